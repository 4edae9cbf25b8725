"""Agent steps, the tool side (seed 002 section 7): what one tool call of the model does.

A call passes the step's tool list, tools.allow and the intent guard, asks for approval when the
tool needs it, runs on the driver with the state's timeout, settles the guard and feeds the
no-progress detector, exactly as plan steps do; it counts against guards.max_steps. Its compact
result goes back to the model as a functionResponse. The turn loop is states/agent.py.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field, replace
from typing import Any

from runtime.browser import FoundNodes, ObservationContext, SnapshotTree
from runtime.browser.session.verbs import SessionVerbs
from runtime.events import ToolUsed
from runtime.execute.agent.acting import ACT_TOOLS, ToolCall, literal_text, run_tool
from runtime.execute.agent.client_tools import EVALUATE_TOOL, SCREENSHOT_TOOL, run_function, take_screenshot
from runtime.execute.agent.offered_tools import PAGE_CHANGING_TOOLS
from runtime.execute.agent.page_view import KEEP_SAME_PARAM, PageTree
from runtime.execute.agent.pages import AgentPages, PageVerdict
from runtime.execute.agent.read_origin import refused_reads
from runtime.execute.agent.read_tabs import ReadTabs
from runtime.execute.agent.tab_tool import use_tabs
from runtime.execute.agent.tool_outcome import ToolOutcome
from runtime.execute.agent.typed_values import TypedValues
from runtime.execute.judges.conditions import check_condition
from runtime.execute.context.run_context import RunContext
from runtime.execute.step_outcome import RunStopped
from runtime.execute.judges.target_check import PageObservation
from runtime.execute.reads.provenance import DocumentCheck, current_document, judged_cover, judged_frames, read_from
from runtime.guard import action_signature
from runtime.llm import LlmToolCall, PageContext
from runtime.outcomes import StopReason
from runtime.plan.agent_vocabulary import TargetInvalid, agent_target, canonical_tool
from runtime.plan.model import State
from runtime.plan.state_kinds import TABS_TOOL

# Bounds on what goes back to the model: results are summaries, never whole pages.
RESPONSE_TEXT_CHARS = 600
FIELD_VALUE_CHARS = 300
OBSERVE_CONTEXT_CHARS = 2000


@dataclass
class AgentView:
    """What the model is shown of the page: where it is, and seed 002's observation context
    (the latest observe, the latest two snapshots, 10k chars each)."""

    page: PageContext = field(default_factory=PageContext)
    context: ObservationContext = field(default_factory=ObservationContext)
    # The target check's verdict on the latest prepared page, and that page's URL: shown above
    # the page tree while the tab is still there (page_view.py).
    verdict: tuple[str, str] = ("", "")

    def saw(self, observation: PageObservation, tab_id: str, verdict: str = "") -> None:
        """A prepared page: what it shows a person (never text it hides, which a page could fill
        with instructions for the model), and the target check's verdict on it."""
        self.page = PageContext(observation.url, tab_id, observation.title)
        self.verdict = (observation.url, verdict)
        judged = f"\n{verdict}" if verdict else ""
        summary = f"{observation.url} HTTP {observation.status} {observation.title!r}{judged}\n{observation.visible_text[:OBSERVE_CONTEXT_CHARS]}"
        self.context.add_observe(observation.url, summary)

    def judged(self, verdict: PageVerdict, tab_id: str) -> None:
        check = verdict.check
        # Only a page that is not the target is said to be so: every page the step reaches is
        # judged, so a page with no verdict line is a valid one (fewer tokens on every turn).
        said = "" if check.valid else f"NOT the target ({check.blocker_kind.value if check.blocker_kind else 'blocked'}): {check.reason}"
        self.saw(verdict.observation, tab_id, said)


def describe_call(tool: str, arguments: dict[str, Any]) -> str:
    return f"{tool} {json.dumps(arguments, ensure_ascii=False, sort_keys=True, default=str)}"[:200]


class AgentToolCalls:
    """Runs the model's tool calls for one execution of one agent state."""

    def __init__(self, ctx: RunContext, state: State, view: AgentView, offered: set[str], timeout: int) -> None:
        self.ctx = ctx
        self.state = state
        self.view = view
        self.offered = offered
        self.timeout = timeout
        self.pages = AgentPages(ctx, state, timeout)
        # Every field the model extracted in this execution of the step, each with where it was read.
        self.extracted: dict[str, Any] = {}
        self.sources: dict[str, dict[str, Any]] = {}
        self.read_tabs = ReadTabs(ctx)  # the tab each was read in, judged again at close
        # What <page> shows: the tab's accessibility tree (page_view.py).
        self.tree = PageTree(ctx, timeout, keep_same=bool(state.params.get(KEEP_SAME_PARAM)))
        # What the model typed or chose in this execution: never a value it may read back.
        self.typed = TypedValues(ctx, timeout)

    async def page_moved(self) -> PageVerdict | None:
        """The verdict on a document the tab came to show without a call of the model (a script
        moved it), or None: checked before each turn."""
        verdict = await self.pages.settle()
        if verdict is not None:
            self.view.judged(verdict, self.ctx.browser.tabs.acting_id)
        return verdict

    def withdraw(self, names: list[str]) -> None:
        """Fields whose page no longer stands (their tab moved to a wall since): kept nowhere."""
        for name in names:
            for kept in (self.extracted, self.sources, self.ctx.findings.data, self.ctx.findings.provenance):
                kept.pop(name, None)
        self.ctx.values.record_step_fields(self.state, {name: (value, self.sources[name]) for name, value in self.extracted.items()})

    async def document_for_read(self) -> DocumentCheck:
        """The document a read (extract, verify, done_when) may come from: a validated one only."""
        return await current_document(self.ctx, self.state.id, self.timeout, required=True)

    def authorize(self, tool: str) -> None:
        """The step's tool list, then tools.allow and the intent guard, as for plan steps."""
        ctx = self.ctx
        if tool not in self.offered:
            allowed = ctx.plan.tools.allowed
            if allowed is not None and tool not in allowed:
                ctx.tools.authorize(tool, self.state.id)  # trips tools.allow and stops the run
            detail = f"the model called {tool}, which {self.state.id} does not offer (offered: {', '.join(sorted(self.offered))})"
            ctx.tools.trip(tool, detail, "agent.tools")
            raise RunStopped(StopReason.TOOL_POLICY_BLOCKED, detail, evidence={"tool": tool, "offered": sorted(self.offered)})
        ctx.tools.authorize(tool, self.state.id)
        ctx.budget.ensure_left(f"the model's next call was {tool}")
        ctx.budget.agent_calls += 1

    async def call(self, call: LlmToolCall) -> ToolOutcome:
        # An old name (open_url, browser_select ...) is the tool it now names, for every guard.
        ctx, tool, arguments = self.ctx, canonical_tool(call.name), dict(call.arguments)
        self.authorize(tool)
        action_id = ctx.browser.new_action_id(tool)
        described = describe_call(tool, arguments)
        # The call's execute_tool span holds the driver actions it runs (README Tracing).
        with ctx.spans.tool(tool, action_id, arguments=json.dumps(arguments, ensure_ascii=False, default=str)) as span:
            outcome, before, after = await self._run(tool, arguments, action_id, described)
            if outcome.ok:
                self.typed.note(tool, arguments)
            span.finish(
                ok=outcome.ok, error_code=outcome.error_code, url=self.view.page.url, tab_id=self.view.page.tab_id or None,
                snapshot_id=outcome.response.get("snapshot_id"), result=json.dumps(outcome.response, ensure_ascii=False, default=str),
            )
        signature_target = json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)
        verdict = ctx.progress.record(action_signature(tool, signature_target, before, after))
        if verdict is not None:
            raise RunStopped(StopReason.NO_PROGRESS, verdict.detail, evidence={"signatures": list(verdict.signatures), "tool": tool})
        return outcome

    async def learn_secret_field(self, call: LlmToolCall) -> None:
        """Text the model types into a password field is secret: learned as the call arrives,
        before the model call's span, an event or a later request describes it (the session
        itself would learn it only as it types)."""
        if canonical_tool(call.name) != "browser_type":
            return
        arguments = call.arguments
        text = self.ctx.secrets.reveal(str(arguments.get("text", "")))
        try:
            target = agent_target(arguments.get("target", arguments.get("ref")))
        except TargetInvalid:
            return  # the call itself will say what is wrong with its target
        if not text:
            return
        session = await self.ctx.browser.session()
        found = await (await self.ctx.browser.verbs()).extract(
            fields={"type": {"target": target, "attr": "type"}}, action_id=self.ctx.browser.new_action_id("field_type"), timeout_ms=self.timeout
        )
        kind = str((found.data.get("fields") or {}).get("type") or "") if found.ok else ""
        if kind.lower() == "password" and session.on_secret_typed is not None:
            session.on_secret_typed(text)

    async def _run(self, tool: str, arguments: dict[str, Any], action_id: str, described: str) -> tuple[ToolOutcome, str, str]:
        """Approval, the call itself, and the page fingerprints before and after it."""
        ctx = self.ctx
        tab_id = ctx.browser.tabs.acting_id
        ctx.events.emit(ToolUsed(tool=tool, action_id=action_id, phase="start", summary=described, tab_id=tab_id))
        if ctx.tools.needs_approval(tool):
            try:
                await ctx.tools.approve(tool, f"agent {self.state.id}: {described}", arguments, self.state.id)
            except RunStopped:
                ctx.events.emit(ToolUsed(tool=tool, action_id=action_id, phase="error", summary="denied by a person", error_code="approval_denied", tab_id=tab_id))
                raise
        session = await ctx.browser.verbs()
        before = await self._fingerprint(session)
        outcome = await self._dispatch(tool, arguments, before)
        after = before
        if tool in PAGE_CHANGING_TOOLS:
            # An act has waited for its effect already (acting.py); a navigation for its load.
            after = await self._fingerprint(session)
            outcome.response["page_changed"] = bool(after) and after != before
            # A new document the call led to is judged like a plan step's page, and the model told.
            verdict = await self.pages.settle()
            if verdict is not None:
                self.view.judged(verdict, ctx.browser.tabs.acting_id)
                outcome.response["page"] = verdict.for_model()
        ctx.guard.on_settled(tool, outcome.ok)
        if outcome.ok:
            ctx.events.emit(ToolUsed(tool=tool, action_id=action_id, phase="success", summary=outcome.summary, tab_id=tab_id))
        else:
            ctx.events.emit(ToolUsed(tool=tool, action_id=action_id, phase="error", summary=outcome.summary, error_code=outcome.error_code, tab_id=tab_id))
        return outcome, before, after

    async def _fingerprint(self, session: SessionVerbs) -> str:
        # Polled often while an act settles, so it bypasses run_action's events.
        result = await session.fingerprint(action_id=self.ctx.browser.new_action_id("fingerprint"), timeout_ms=self.timeout)
        if result.ok:
            page = self.view.page
            self.view.page = PageContext(str(result.data.get("url", "")), page.tab_id, page.title if result.data.get("url") == page.url else "")
            return str(result.data.get("digest", ""))
        return ""

    async def _dispatch(self, tool: str, arguments: dict[str, Any], before: str = "") -> ToolOutcome:
        """Each tool's own function: the acts and waits (acting.py), the others below. `before`:
        the page's fingerprint taken just now, which a snapshot keeps rather than asking again."""
        if tool == TABS_TOOL:
            outcome, page = await use_tabs(self.ctx, arguments, self.timeout)
            self.view.page = page or self.view.page
            return outcome
        if tool in ACT_TOOLS:
            return await run_tool(ACT_TOOLS[tool], ToolCall(self.ctx, self.timeout, arguments))
        own = {
            "browser_navigate": self._open_url,
            "browser_navigate_back": self._navigate_back,
            "browser_snapshot": lambda arguments: self._snapshot(arguments, before),
            "browser_find": self._find,
            "browser_extract": self._extract,
            "browser_verify": self._verify,
            SCREENSHOT_TOOL: lambda arguments: take_screenshot(self.ctx, arguments, self.timeout),
            EVALUATE_TOOL: lambda arguments: run_function(self.ctx, arguments, self.timeout),
        }
        if tool not in own:
            return ToolOutcome.failed("unknown_tool", f"{tool} cannot run in an agent step")
        return await own[tool](arguments)

    async def _open_url(self, arguments: dict[str, Any]) -> ToolOutcome:
        ctx = self.ctx
        url = arguments.get("url")
        if not isinstance(url, str) or not url:
            return ToolOutcome.invalid("browser_navigate needs url, an absolute http(s) URL")
        judgement = ctx.network.judge(url)  # the run's one URL judge, before the browser is asked
        if not judgement.allowed:
            assert judgement.blocker_kind is not None
            return ToolOutcome.failed(judgement.blocker_kind.value, f"{url} is refused: {judgement.reason}; stay on the allowed domains", judgement.blocker_kind)
        observation = await ctx.browser.open_and_prepare(self.state.id, url, self.timeout)
        arrived = await self._arrived(observation, f"opened {observation.url} (HTTP {observation.status})")
        if arrived.ok:
            arrived.performed = {"navigate": url}
        return arrived

    async def _navigate_back(self, arguments: dict[str, Any]) -> ToolOutcome:
        ctx = self.ctx
        went = await ctx.browser.run_action("navigate_back", "go back", lambda s, a: s.navigate_back(action_id=a, timeout_ms=self.timeout))
        if not went.ok:
            return ToolOutcome.from_error(went)
        url = str(went.data.get("url", ""))
        judgement = ctx.network.judge(url)  # the page it went back to, judged as an opened one is
        if not judgement.allowed:
            assert judgement.blocker_kind is not None
            return ToolOutcome.failed(judgement.blocker_kind.value, f"went back to {url}, which is refused: {judgement.reason}", judgement.blocker_kind)
        observation = await ctx.browser.prepare(self.state.id, self.timeout, status=went.data.get("status"), requested_url=url)
        return await self._arrived(observation, f"went back to {observation.url}")

    async def _arrived(self, observation: PageObservation, summary: str) -> ToolOutcome:
        """A page the model navigated to (or back to), prepared: judged like a plan step's page,
        and the model told whether it is the target."""
        verdict = await self.pages.judge(observation)
        self.view.judged(verdict, self.ctx.browser.tabs.acting_id)
        if observation.error_code:
            failed = ToolOutcome.failed(verdict.check.blocker_kind.value if verdict.check.blocker_kind else observation.error_code, observation.error_message)
            failed.response["page"] = verdict.for_model()
            return failed
        where = {"url": observation.url, "status": observation.status, "title": observation.title}
        if not verdict.check.valid:
            # The page loaded but is not the target: the call did not get the model anywhere useful.
            assert verdict.check.blocker_kind is not None
            refused = ToolOutcome.failed(verdict.check.blocker_kind.value, f"{observation.url} failed validation: {verdict.check.reason}")
            refused.response.update(where, page=verdict.for_model())
            return refused
        response = {"ok": True, **where, "text": observation.visible_text[:RESPONSE_TEXT_CHARS], "page": verdict.for_model()}
        return ToolOutcome(True, response, f"{summary}: the target")

    async def _snapshot(self, arguments: dict[str, Any], before: str = "") -> ToolOutcome:
        result = await self.tree.snapshot(arguments, before)
        if not result.ok:
            return ToolOutcome.from_error(result)
        tree: SnapshotTree = result.value
        self.view.page = PageContext(tree.url, tree.tab_id, tree.title)
        response = {"ok": True, "snapshot_id": tree.snapshot_id, "lines": len(tree.lines), "note": f"snapshot {tree.label()} is in the page section"}
        return ToolOutcome(True, response, f"snapshot {tree.label()}: {len(tree.lines)} lines of {tree.url}")

    async def _find(self, arguments: dict[str, Any]) -> ToolOutcome:
        result = await self.tree.find(arguments)
        if not result.ok:
            return ToolOutcome.from_error(result)
        found: FoundNodes = result.value
        response = {"ok": True, "snapshot_id": found.snapshot_id, "total": found.total, "found": found.render()}
        return ToolOutcome(True, response, f"found {found.total} node(s) matching {found.query} in {found.snapshot_id}")

    async def _extract(self, arguments: dict[str, Any]) -> ToolOutcome:
        run_action, timeout = self.ctx.browser.run_action, self.timeout
        # Only a validated document is read: a page that failed its target check yields nothing.
        document = await self.document_for_read()
        if document.blocked is not None:
            return _refused_read(document)
        if arguments.get("readable"):
            result = await run_action("extract", "readable text for the model", lambda s, a: s.extract(readable=True, action_id=a, timeout_ms=timeout))
            if not result.ok:
                return ToolOutcome.from_error(result)
            text = str(result.data.get("text", ""))
            return ToolOutcome(True, {"ok": True, "text": text[: RESPONSE_TEXT_CHARS * 3], "chars": len(text)}, f"read {len(text)} chars of readable text")
        fields = arguments.get("fields")
        if not isinstance(fields, list) or not fields or not all(isinstance(f, dict) and f.get("name") for f in fields):
            return ToolOutcome.invalid("browser_extract needs fields: [{name, target, attr?}] or readable: true")
        try:
            requested = {
                str(f["name"]): {"target": agent_target(f.get("target"), f"fields.{f['name']}.target"), **({"attr": f["attr"]} if f.get("attr") else {})}
                for f in fields
            }
        except TargetInvalid as error:
            return ToolOutcome.invalid(str(error))
        result = await run_action("extract", f"extract {', '.join(requested)}", lambda s, a: s.extract(requested, action_id=a, timeout_ms=timeout))
        if not result.ok:
            return ToolOutcome.from_error(result)
        if not read_from(document.provenance, result.data.get("document")) or result.data.get("document_changed_during_read"):
            return ToolOutcome.failed("page_changed", "the page changed while it was read; nothing was kept: read it again")
        framed = judged_frames(self.ctx, self.state.id, result.data)
        if framed is not None:  # a field came from a frame whose document is not a valid page
            return _refused_read(framed)
        covered = judged_cover(self.ctx, self.state.id, result.data)
        if covered is not None and covered.blocked is not None:  # read under a layer that is a wall
            return _refused_read(covered)
        extracted = dict(result.data.get("fields") or {})
        own = await self.typed.own(requested, extracted)
        if own:
            return ToolOutcome.failed(
                "own_value", f"{', '.join(own)} holds text you typed or chose in this step, read back from where you put it; nothing was kept: read the value where the page states it"
            )
        refused = await refused_reads(self.ctx, requested, extracted, timeout)
        if refused is not None:
            return refused
        # What the model extracts is the run's data, as an extract step's fields are: it reaches
        # output.json (and the output schema check) in full, and later steps as
        # {steps.<agent step id>.<field>}; the model sees it shortened. Each field keeps the
        # document it was read from, which was validated.
        found = {name: value for name, value in extracted.items() if value is not None}
        self.ctx.findings.data.update(found)
        self.extracted.update(found)
        self.read_tabs.note(found)
        read_url = (document.provenance.get("document") or {}).get("url") or self.view.page.url
        for name in found:
            self.ctx.findings.provenance[name] = {"state": self.state.id, **document.provenance}
            self.sources[name] = {"url": read_url, "document": document.provenance.get("document"), "tool": "browser_extract", "at": round(time.time(), 3)}
        self.ctx.values.record_step_fields(self.state, {name: (value, self.sources[name]) for name, value in self.extracted.items()})
        values = {name: (value[:FIELD_VALUE_CHARS] if isinstance(value, str) else value) for name, value in extracted.items()}
        missing = list(result.data.get("missing") or [])
        shown = ", ".join(f"{k}={str(v)[:40]!r}" for k, v in values.items())
        performed = {"extract": {"fields": {name: {**spec["target"], **({"attr": spec["attr"]} if "attr" in spec else {})} for name, spec in requested.items()}}}
        return ToolOutcome(True, {"ok": True, "fields": values, "missing": missing}, f"extracted {shown}", performed=performed)

    async def _verify(self, arguments: dict[str, Any]) -> ToolOutcome:
        given = [k for k in ("text_includes", "title_includes", "url_matches", "element_visible") if arguments.get(k) is not None]
        if len(given) != 1:
            return ToolOutcome.invalid("browser_verify needs exactly one of text_includes, title_includes, url_matches, element_visible")
        key = given[0]
        document = await self.document_for_read()
        if document.blocked is not None:
            return _refused_read(document)
        if key == "element_visible":
            try:
                target = agent_target(arguments[key], key)
            except TargetInvalid as error:
                return ToolOutcome.invalid(str(error))
            # A model's names match loosely unless it quoted them (a recipe's are exact by default).
            condition: dict[str, Any] = {"element": {"exact": False, **literal_text(target), "state": "visible"}}
        else:
            condition = {key: literal_text(str(arguments[key])) if key != "url_matches" else str(arguments[key])}
        probe = replace(await self.ctx.probe(self.timeout), editable_text=False)  # as done_when judges it
        checked = await check_condition(probe, condition, self.ctx.browser.new_action_id("verify"))
        observed = None if checked.observed is None else str(checked.observed)[:FIELD_VALUE_CHARS]
        return ToolOutcome(True, {"ok": True, "passed": checked.passed, "observed": observed}, f"{key} {'passed' if checked.passed else 'failed'}")


def _refused_read(document: DocumentCheck) -> ToolOutcome:
    """A read on a page that failed its target check: the model is told which blocker and why."""
    blocked = document.blocked
    assert blocked is not None and blocked.blocker_kind is not None
    return ToolOutcome.failed(
        blocked.blocker_kind.value, f"this page failed validation, so nothing read here counts: {blocked.summary}; go to a page that passes"
    )
