"""The pages an agent step reaches, held to the plan's standard (seed 001's data.validate-target).

The model chooses where to go, so every document the tab comes to show while an agent step runs,
whether the model opened it, reached it by a click or a submit, or the page's own script moved
there, is prepared (loaded, screenshot, readable text) and judged by the same target check a plan
step's page gets: URL and domain, status, what the page says (a soft 404, a login or captcha wall,
an error page, the policy's refusal) and the validation keywords. The model is told the verdict in
the result of the call that got there, or before its next turn when the page moved by itself, so
it can go elsewhere. Nothing it reads on a page that failed counts (reads/provenance.py, with
`required`), and `close` on such a page fails with the page's blocker kind.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from runtime.browser.vocabulary.document import DocumentIdentity
from runtime.events import GuardrailTripped, ToolUsed
from runtime.execute.context.run_context import RunContext
from runtime.execute.judges.target_check import PageObservation, TargetCheck
from runtime.execute.reads.provenance import target_verdict
from runtime.plan.model import State
from runtime.plan.state_kinds import TARGET_CHECK

REASON_CHARS = 300


@dataclass(frozen=True)
class PageVerdict:
    """A page the agent reached and what the target check said of it."""

    observation: PageObservation
    check: TargetCheck

    def for_model(self) -> dict[str, Any]:
        """What the model is told: where it is and whether values may be read there."""
        seen = self.observation
        told: dict[str, Any] = {"url": seen.url, "status": seen.status, "title": seen.title, "valid": self.check.valid}
        if not self.check.valid:
            assert self.check.blocker_kind is not None
            told["blocker_kind"] = self.check.blocker_kind.value
            told["reason"] = self.check.reason[:REASON_CHARS]
            told["note"] = "this page is not the target: nothing read here counts and close fails here; go to a page that passes"
        return told


class AgentPages:
    """Judges each new document of one agent state's execution, once."""

    def __init__(self, ctx: RunContext, state: State, timeout_ms: int) -> None:
        self.ctx = ctx
        self.state = state
        self.timeout_ms = timeout_ms
        self.latest: PageVerdict | None = None
        self._judged: DocumentIdentity | None = None
        # The page's fingerprint digest the latest settle() took on the document judged last:
        # the turn's tree reuses it instead of asking the page again (take_digest()).
        self.settled_digest = ""

    def take_digest(self) -> str:
        """The digest settle() took just now, once; "" if it found a new document (or none since)."""
        digest, self.settled_digest = self.settled_digest, ""
        return digest

    def adopt(self) -> PageVerdict | None:
        """The page the plan already judged before the step began, if it is the one shown."""
        observation, check = self.ctx.page.observation, self.ctx.page.target_check
        if observation is None or check is None or observation.document is None:
            return None
        self._judged = observation.document
        self.latest = PageVerdict(observation, check)
        return self.latest

    async def settle(self) -> PageVerdict | None:
        """If the tab shows a document not judged yet, prepare and judge it; the new verdict, or
        None when the document is the one judged last."""
        # Asked before every turn, of the tab the step acts in: the session's own fingerprint,
        # without a tool event each time.
        self.settled_digest = ""
        session = await self.ctx.browser.verbs()
        found = await session.fingerprint(action_id=self.ctx.browser.new_action_id("fingerprint"), timeout_ms=self.timeout_ms)
        document = DocumentIdentity.from_dict(found.data["document"]) if found.ok and found.data.get("document") else None
        if document is None or (self._judged is not None and document.same_document(self._judged) and document.url == self._judged.url):
            self.settled_digest = str(found.data.get("digest", "")) if found.ok else ""
            return None
        return await self.judge(await self.ctx.browser.prepare(self.state.id, self.timeout_ms))

    async def judge(self, observation: PageObservation) -> PageVerdict:
        """The target check of a page the agent reached, recorded as a plan step's is."""
        ctx = self.ctx
        ctx.page.saw(observation)
        check = target_verdict(ctx, observation)
        ctx.page.judge(check)
        self._judged = observation.document
        self.latest = PageVerdict(observation, check)
        action_id, tab_id = ctx.browser.new_action_id("agent_page"), ctx.browser.tabs.acting_id
        ctx.events.emit(ToolUsed(tool=TARGET_CHECK, action_id=action_id, phase="start", summary=f"{self.state.id} reached {observation.url}", tab_id=tab_id))
        if check.valid:
            ctx.events.emit(ToolUsed(tool=TARGET_CHECK, action_id=action_id, phase="success", summary=check.reason, tab_id=tab_id))
        else:
            assert check.blocker_kind is not None
            ctx.events.emit(ToolUsed(tool=TARGET_CHECK, action_id=action_id, phase="error", summary=check.reason, error_code=check.blocker_kind.value, tab_id=tab_id))
            ctx.events.emit(
                GuardrailTripped(guard=TARGET_CHECK, blocker_kind=check.blocker_kind, detail=f"{self.state.id}: {check.reason}", evidence=check.evidence)
            )
        return self.latest
