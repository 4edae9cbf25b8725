"""`agent` (seed 002 section 7, seed 003 section 5): Gemini chooses browser actions, one tool call
per turn, inside exactly the guardrails plan steps have.

Each turn the model gets the structured prompt (goal, page, tools, strategy, completion rule, and
the compressed observation context) and the conversation so far, and may call ONE tool, which
agent/tool_calls.py runs. The model finishes by calling `close`: the step is `verified` only when every
`done_when` condition holds on the page (judges/conditions.py, the same judge verify steps use).

Events: streamed text -> ChatDelta; each call -> ToolUsed (start/success/error, or blocked);
each turn -> a StepFinished of step_kind `agent.turn` carrying its agent_state.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from opentelemetry.trace import Span

from runtime.events import AgentState, ChatDelta, GuardrailTripped, StepFinished, StructuredOutput, ToolUsed
from runtime.execute.agent.tab_tool import tab_lines
from runtime.execute.agent.tool_calls import AgentToolCalls, AgentView, describe_call
from runtime.execute.agent.offered_tools import NUDGE, TARGET_HELP, offered_tools
from runtime.execute.states.agent_cache import CachedAgentStep
from runtime.execute.judges.conditions import check_all, describe_condition, describe_failures, filled_condition
from runtime.execute.context.recovery import Blocker
from runtime.execute.context.run_context import RunContext
from runtime.execute.reads.provenance import READ_ATTEMPTS, read_from
from runtime.execute.reads.refused_data import fail_for_refused_data
from runtime.execute.step_outcome import RunStopped, StepResult
from runtime.llm import ChatMessage, LlmDelta, LlmDone, LlmError, LlmToolCall, LlmUsage, build_agent_prompt
from runtime.outcomes import StopReason
from runtime.plan.agent_vocabulary import canonical_tool
from runtime.plan.model import State

if TYPE_CHECKING:
    from runtime.llm import LlmGateway

THINKING_CHARS = 2000
OBSERVED_CHARS = 80
DEFAULT_MAX_TURNS = 12


async def agent(ctx: RunContext, state: State) -> StepResult:
    # A path the action cache holds replays first, without the model (states/agent_cache.py).
    cached = CachedAgentStep(ctx, state)
    replay = await cached.replay()
    if replay is not None and replay.result is not None:
        return replay.result
    gateway = await ctx.model.open_gateway(state.id)
    try:
        loop = AgentLoop(ctx, state, gateway, replay.briefing if replay is not None else "")
        result = await loop.run()
    finally:
        await gateway.aclose()
    # Judged before the action cache learns the path: a path that sent the run's data where the
    # fence refused it is no path to keep (EXEC-101).
    result = fail_for_refused_data(ctx, state, result)
    if replay is not None:
        result.evidence["action_cache"] = replay.facts
    await cached.learn(result, replay, [turn.record() for turn in loop.turns])
    return result


@dataclass
class Turn:
    number: int
    text: str = ""
    tool: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)
    outcome: str = ""
    ok: bool = False
    summary: str = ""
    error_code: str = ""
    usage: LlmUsage = field(default_factory=LlmUsage)
    performed: dict[str, Any] | None = None

    def record(self) -> dict[str, Any]:
        kept = {"performed": self.performed} if self.performed is not None else {}
        return {
            **kept,
            "turn": self.number,
            "thinking": self.text[:THINKING_CHARS],
            "tool": self.tool,
            "arguments": self.arguments,
            "outcome": self.outcome,
            "ok": self.ok,
            "summary": self.summary,
            "error_code": self.error_code,
            "tokens": self.usage.total_tokens,
        }


class AgentLoop:
    """One execution of one agent state. `await AgentLoop(ctx, state, gateway).run()`."""

    def __init__(self, ctx: RunContext, state: State, gateway: LlmGateway, briefing: str = "") -> None:
        self.ctx = ctx
        # Facts the step's task is given with, as written (never filled: a repair's failure
        # evidence may hold braces); states/repair.py briefs its agent on the failed step.
        self.briefing = briefing
        self.state = state
        self.gateway = gateway
        params = state.params
        self.task = ctx.values.text(str(params["task"])) or ""
        self.max_turns = int(params.get("max_steps") or DEFAULT_MAX_TURNS)
        self.tools = offered_tools(params.get("tools"), ctx.uploads.names)
        # Recipe conditions, unfilled: the condition judge fills their placeholders itself.
        self.done_when: list[dict[str, Any]] = list(params.get("done_when", []))
        self.timeout = ctx.timeout_for(state)
        self.view = AgentView()
        self.calls = AgentToolCalls(ctx, state, self.view, {tool.name for tool in self.tools}, self.timeout)
        self.conversation: list[ChatMessage] = [ChatMessage.user(self._opening())]
        self.turns: list[Turn] = []
        # The latest fence refusal the model met in this step: if the step then fails, that
        # refusal is why (a form that posts off the allowed domains leaves done_when unmet).
        self.refusal: Blocker | None = None

    async def run(self) -> StepResult:
        adopted = self.calls.pages.adopt()
        if adopted is not None:
            self.view.judged(adopted, self.ctx.browser.tabs.acting_id)
        if self.ctx.browser.current is not None:
            # A page the plan opened but did not judge (validate_target: false), or one that moved
            # since it was judged, is judged before the first turn.
            await self._tell_if_page_moved()
        for number in range(1, self.max_turns + 1):
            turn = Turn(number)
            self.turns.append(turn)
            span = self.ctx.spans.start_turn(self.state.id, number)
            began = time.perf_counter()
            try:
                if number > 1:
                    await self._tell_if_page_moved()
                try:
                    turn.text, calls, turn.usage = await self._ask_model()
                except LlmError as error:
                    turn.outcome, turn.error_code, turn.summary = "llm_error", error.code.value, f"{error.code.value}: {error.message}"
                    return self._model_failed(error, turn)
                if not calls:
                    # One nudge per tool-less answer; it still counts as a turn.
                    if turn.text:
                        self.conversation.append(ChatMessage.assistant(turn.text))
                    self.conversation.append(ChatMessage.user(NUDGE))
                    turn.outcome, turn.summary = "no_tool_call", "the model answered without a tool call; nudged it to call one"
                    continue
                call = calls[0]
                turn.tool, turn.arguments = call.name, dict(call.arguments)
                self.conversation.append(ChatMessage.assistant(turn.text, [call]))
                if canonical_tool(call.name) == "close":
                    return await self._close(call, turn)
                outcome = await self.calls.call(call)
                if outcome.refused is not None:
                    self.refusal = Blocker(self.state.id, outcome.refused, outcome.summary, {"tool": canonical_tool(call.name), "arguments": turn.arguments})
                if len(calls) > 1:
                    outcome.response["note"] = f"only the first of your {len(calls)} tool calls ran; make one call per turn"
                self.conversation.append(ChatMessage.tool_result(call, outcome.response))
                changed = {True: "; the page changed", False: "; the page did not change"}.get(outcome.response.get("page_changed"), "")
                turn.outcome, turn.ok, turn.error_code = ("ok" if outcome.ok else "error"), outcome.ok, outcome.error_code
                turn.performed = outcome.performed
                turn.summary = f"{describe_call(call.name, turn.arguments)[:120]} -> {outcome.summary}{changed}"
            finally:
                self._finish_turn(turn, span, began)
        detail = f"the model used all {self.max_turns} turns of {self.state.id} without calling close"
        evidence: dict[str, Any] = {"turns": self.max_turns, "last_tools": [t.tool or "(none)" for t in self.turns[-3:]]}
        # Out of turns on a page that is not the target: that page is why, and its kind says so.
        latest = self.calls.pages.latest
        blocker_kind = None
        if self.refusal is not None and (latest is None or latest.check.valid):
            blocker_kind = self.refusal.kind
            evidence["refused"] = {"reason": self.refusal.reason, **self.refusal.evidence}
            self.ctx.recovery.blocker = self.refusal
        if latest is not None and not latest.check.valid:
            blocker_kind = latest.check.blocker_kind
            evidence["page"] = latest.for_model()
            assert blocker_kind is not None
            self.ctx.recovery.blocker = Blocker(self.state.id, blocker_kind, latest.check.reason, dict(latest.check.evidence))
        self.ctx.findings.note_failure(detail, evidence)
        return StepResult("exhausted", False, summary=detail, blocker_kind=blocker_kind, thinking=self.turns[-1].text[:THINKING_CHARS], evidence=evidence)

    async def _tell_if_page_moved(self) -> None:
        """A document the model did not lead to (the page's own script moved the tab) is judged
        before the model's next turn, and the model is told."""
        moved = await self.calls.page_moved()
        if moved is None:
            return
        note = f"The page changed without a call of yours: {json.dumps(moved.for_model(), ensure_ascii=False)}"
        last = self.conversation[-1]
        if last.role == "user" and last.answers is None:
            self.conversation[-1] = ChatMessage.user(f"{last.content}\n\n{note}", last.images)
        else:
            self.conversation.append(ChatMessage.user(note))

    def _opening(self) -> str:
        # The model reads the conditions as the judge will check them: placeholders filled.
        conditions = "\n".join(f"- {describe_condition(filled_condition(self.ctx.values, c))}" for c in self.done_when)
        briefing = f"{self.briefing}\n\n" if self.briefing else ""
        return (
            f"Task: {self.task}\n\n{briefing}"
            f"This step counts as done only if, when you call close, all of these hold:\n{conditions}\n\n"
            f"You have at most {self.max_turns} turns, one tool call each."
            f"{self._secret_note()}"
        )

    def _secret_note(self) -> str:
        # The model never sees a secret value, only its marker; typed as text, the marker becomes the value.
        placeholders = self.ctx.secrets.placeholders()
        if not placeholders:
            return ""
        return (
            f"\n\nSecret values are shown as placeholders: {', '.join(placeholders)}. To type one, pass its placeholder, "
            "exactly as written, as the text of browser_type; the real value is typed for you."
        )

    async def _show_screenshot(self) -> None:
        """`agent.vision`: the page's screenshot, when it changed since the last one sent, goes
        with the latest user message; only the latest picture stays in the conversation, so
        requests do not grow with every page."""
        image = await self.calls.tree.new_screenshot()
        if image is None:
            return
        kept = [replace(m, images=()) if m.images else m for m in self.conversation]
        last = kept[-1]
        if last.role == "user" and last.answers is None:
            kept[-1] = replace(last, images=(image,))
        else:
            kept.append(ChatMessage.user("The page as it looks now.", (image,)))
        self.conversation[:] = kept

    async def _ask_model(self) -> tuple[str, list[LlmToolCall], LlmUsage]:
        # <page> is the tab's accessibility tree, written again when the page changed.
        self.view.page = await self.calls.tree.refresh(self.view.page, self.calls.pages.take_digest())
        if self.ctx.model.vision.get(self.state.id):
            await self._show_screenshot()
        page = replace(self.view.page, open_tabs=tab_lines(self.ctx))
        prompt = build_agent_prompt(self.task, self.tools, page, self.calls.tree.context(self.view.verdict) or self.view.context, tool_notes=TARGET_HELP)
        text: list[str] = []
        calls: list[LlmToolCall] = []
        usage = LlmUsage()
        async for event in self.gateway.stream_chat([ChatMessage.system(prompt), *self.conversation], self.tools):
            if isinstance(event, LlmDelta):
                text.append(event.content)
                self.ctx.events.emit(ChatDelta(text=event.content))
            elif isinstance(event, LlmToolCall):
                # While the stream waits: the model call's span ends (with its content) only after.
                await self.calls.learn_secret_field(event)
                calls.append(event)
            elif isinstance(event, LlmDone):
                usage = event.usage
        return "".join(text), calls, usage

    def _finish_turn(self, turn: Turn, span: Span, began: float) -> None:
        ctx = self.ctx
        agent_state = AgentState(
            thinking=turn.text[:THINKING_CHARS],
            evaluation=turn.summary,
            memory=f"turn {turn.number}/{self.max_turns} of {self.state.id}; run steps {ctx.budget.used}/{ctx.plan.limits.max_steps}; page {self.view.page.url or '(none)'}",
            next_goal=describe_call(turn.tool, turn.arguments) if turn.tool else "answer with a tool call",
        )
        ctx.events.emit(
            StepFinished(
                state_id=self.state.id,
                step_kind="agent.turn",
                outcome=turn.outcome or "stopped",
                ok=turn.ok,
                verified=False,
                duration_ms=round((time.perf_counter() - began) * 1000, 1),
                observation_summary=turn.summary,
                agent_state=agent_state,
                error=turn.error_code,
            )
        )
        ctx.recorder.add_agent_turn(turn.record())
        ctx.spans.end_turn(span, turn.tool, turn.outcome or "stopped", turn.error_code)

    def _model_failed(self, error: LlmError, turn: Turn) -> StepResult:
        # Seed 003: an unrecoverable model error is reported as a structured error output.
        details = error.to_dict()  # built and redacted by the gateway: never the key
        self.ctx.events.emit(StructuredOutput(data={"status": "error", "error": details}, valid=False, errors=(turn.summary,)))
        self.ctx.findings.note_failure(f"the model failed in {self.state.id}: {turn.summary}", {"llm_error": details})
        return StepResult("error", False, summary=f"the model failed: {turn.summary}", error=error.code.value, evidence={"llm_error": details, "turns": turn.number})

    async def _close(self, call: LlmToolCall, turn: Turn) -> StepResult:
        ctx = self.ctx
        # The model's close only ends this step (the browser stays open for the plan): the
        # compiler always offers it, so tools.allow need not list it; the intent guard still sees it.
        decision = ctx.guard.before_tool("close")
        if not decision.allowed:
            ctx.tools.trip("close", decision.detail, "intentGuard")
            raise RunStopped(decision.stop_reason or StopReason.TOOL_POLICY_BLOCKED, decision.detail, evidence={"tool": "close"})
        summary = str(call.arguments.get("summary", ""))[:500]
        action_id = ctx.browser.new_action_id("close")
        ctx.events.emit(ToolUsed(tool="close", action_id=action_id, phase="start", summary=summary or "close the agent step"))
        with ctx.spans.tool("close", action_id) as span:
            # done_when is judged on a validated document only, as a verify step's conditions are;
            # a document replaced while they were judged is checked and judged again.
            for _ in range(READ_ATTEMPTS):
                document = await self.calls.document_for_read()
                if document.blocked is not None:
                    span.finish(ok=False, error_code=document.blocked.blocker_kind.value if document.blocked.blocker_kind else "blocked")
                    return self._closed_blocked(action_id, summary, turn, document.blocked)
                # Text the model may have typed into an editable box is not the page saying it.
                probe = replace(await ctx.probe(self.timeout), editable_text=False)
                checks = await check_all(probe, self.done_when, action_id)
                if all(read_from(document.provenance, c.document) for c in checks):
                    break
            provenance = document.provenance
            # A kept value read in another tab is judged where it was read, as this tab is.
            elsewhere = await self.calls.read_tabs.blocked_elsewhere(self.calls.document_for_read)
            if elsewhere is not None:
                blocked, read_there = elsewhere
                self.calls.withdraw(read_there)
                span.finish(ok=False, error_code=blocked.blocker_kind.value if blocked.blocker_kind else "blocked")
                return self._closed_blocked(action_id, summary, turn, blocked)
            span.finish(ok=True)
        failed = [c.to_dict() for c in checks if not c.passed]
        ctx.guard.on_settled("close", True)
        ctx.events.emit(ToolUsed(tool="close", action_id=action_id, phase="success", summary=f"{len(checks) - len(failed)}/{len(checks)} done_when condition(s) passed"))
        turn.ok = not failed
        evidence: dict[str, Any] = {"close_summary": summary, "conditions": [c.to_dict() for c in checks], "turns": turn.number, "provenance": provenance}
        thinking = turn.text[:THINKING_CHARS]
        if not failed:
            ctx.findings.verified(self.state.id)
            if ctx.recovery.blocker is not None and ctx.recovery.blocker.state_id == self.state.id:
                ctx.recovery.blocker = None  # a page the model left behind is no longer the run's blocker
            if ctx.goes_on and summary:
                ctx.findings.close_summary = summary  # a conversation's turn is answered with what the model said
            turn.outcome, turn.summary = "closed", f"closed and verified: {summary}"
            return StepResult("verified", True, verified=True, summary=f"the model closed ({summary}) and all {len(checks)} done_when condition(s) hold", thinking=thinking, evidence=evidence)
        described = describe_failures(checks, OBSERVED_CHARS)
        evidence["failed"] = failed
        if self.refusal is not None:
            # done_when is unmet after the fence refused where the model sent the tab: that is why.
            refused = StepResult("blocked", False, summary=f"done_when failed ({described}) after the fence refused: {self.refusal.reason}", blocker_kind=self.refusal.kind, evidence={**evidence, "refused": {"reason": self.refusal.reason, **self.refusal.evidence}})
            ctx.recovery.blocker = self.refusal
            return self._closed_blocked(action_id, summary, turn, refused)
        ctx.findings.not_verified(self.state.id, "unverified")
        ctx.events.emit(GuardrailTripped(guard="agent.done_when", blocker_kind=None, detail=f"{len(failed)} of {len(checks)} done_when condition(s) failed: {described}", evidence=evidence))
        ctx.findings.note_failure(f"{self.state.id} closed but done_when failed: {described}", {"failed_conditions": failed, "close_summary": summary})
        turn.outcome, turn.summary = "closed", f"closed but not verified: {described}"
        return StepResult("unverified", False, summary=f"the model closed ({summary}) but {len(failed)} done_when condition(s) failed: {described}", thinking=thinking, evidence=evidence)

    def _closed_blocked(self, action_id: str, summary: str, turn: Turn, blocked: StepResult) -> StepResult:
        """close on a page that failed its target check, or with done_when unmet after the fence
        refused where the model sent the tab: the step fails with that blocker kind."""
        ctx = self.ctx
        assert blocked.blocker_kind is not None
        kind = blocked.blocker_kind.value
        ctx.events.emit(ToolUsed(tool="close", action_id=action_id, phase="error", summary=f"blocked ({kind})", error_code=kind))
        ctx.findings.not_verified(self.state.id, kind)
        turn.outcome, turn.error_code = "closed", kind
        turn.summary = f"closed while blocked ({kind}): {blocked.summary}"
        evidence = {**blocked.evidence, "close_summary": summary, "turns": turn.number}
        detail = f"the model closed ({summary}), blocked: {blocked.summary}"
        ctx.findings.note_failure(f"{self.state.id}: {detail}", evidence)
        return StepResult("blocked", False, summary=detail, blocker_kind=blocked.blocker_kind, thinking=turn.text[:THINKING_CHARS], evidence=evidence)
