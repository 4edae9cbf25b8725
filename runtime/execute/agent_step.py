"""Agent steps (seed 002 section 7, seed 003 section 5): Gemini chooses browser actions, one tool
call per turn, inside exactly the guardrails plan steps have.

Each turn the model gets the structured prompt (goal, page, tools, strategy, completion rule, and
the compressed observation context) and the conversation so far, and may call ONE tool. A call
passes the step's tool list, tools.allow and the intent guard, asks for approval when the tool
needs it, runs on the driver with the state's timeout, settles the guard and feeds the
no-progress detector; its compact result goes back as a functionResponse. The model finishes by
calling `close`: the step is `verified` only when every `done_when` condition holds on the page.

Events: streamed text -> ChatDelta; each call -> ToolUsed (start/success/error, or blocked);
each turn -> a StepFinished of step_kind `agent.turn` carrying its agent_state.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from runtime.browser import ActionResult, BrowserSession, Snapshot
from runtime.browser.observation_context import ObservationContext
from runtime.events import AgentState, ChatDelta, GuardrailTripped, StepFinished, StructuredOutput, ToolUsed
from runtime.execute.agent_tools import NUDGE, PAGE_CHANGING_TOOLS, offered_tools, scroll_motion, target_argument
from runtime.execute.step_outcome import RunStopped, StepResult
from runtime.guard import action_signature
from runtime.llm import ChatMessage, LlmDelta, LlmDone, LlmError, LlmGateway, LlmToolCall, LlmUsage, PageContext, build_agent_prompt
from runtime.outcomes import StopReason
from runtime.plan.model import State
from runtime.recipe.domains import url_allowed

if TYPE_CHECKING:
    from opentelemetry.trace import Span

    from runtime.execute.walker import PlanWalk

# Bounds on what goes back to the model: results are summaries, never whole pages.
RESPONSE_TEXT_CHARS = 600
FIELD_VALUE_CHARS = 300
ERROR_MESSAGE_CHARS = 300
THINKING_CHARS = 2000
SETTLE_POLL_SECONDS = 0.1


@dataclass
class ToolOutcome:
    """One tool call's result: `response` goes back to the model, `summary` into events."""

    ok: bool
    response: dict[str, Any]
    summary: str
    error_code: str = ""

    @classmethod
    def failed(cls, code: str, message: str) -> ToolOutcome:
        message = message[:ERROR_MESSAGE_CHARS]
        return cls(False, {"ok": False, "error": {"code": code, "message": message}}, f"{code}: {message}", code)

    @classmethod
    def from_error(cls, result: ActionResult) -> ToolOutcome:
        assert result.error is not None
        return cls.failed(result.error.code.value, result.error.message)


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

    def record(self) -> dict[str, Any]:
        return {
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


def describe_call(tool: str, arguments: dict[str, Any]) -> str:
    return f"{tool} {json.dumps(arguments, ensure_ascii=False, sort_keys=True, default=str)}"[:200]


def describe_condition(condition: dict[str, Any]) -> str:
    if "text_includes" in condition:
        return f"the page shows the text {condition['text_includes']!r}"
    if "title_includes" in condition:
        return f"the page title includes {condition['title_includes']!r}"
    if "url_matches" in condition:
        return f"the URL matches the regular expression {condition['url_matches']!r}"
    if "element" in condition:
        element = dict(condition["element"])
        state = element.pop("state", "visible")
        return f"the element {json.dumps(element, ensure_ascii=False)} is {state}"
    if "field_present" in condition:
        return f"the field {condition['field_present']!r} was extracted"
    return f"the fields match {json.dumps(condition.get('field_matches', {}), ensure_ascii=False)}"


def literal_text(value: Any) -> Any:
    """Model-written text passed where recipe text is filled: braces stay braces, not placeholders."""
    if isinstance(value, str):
        return value.replace("{", "{{").replace("}", "}}")
    if isinstance(value, dict):
        return {k: literal_text(v) for k, v in value.items()}
    return value


class AgentLoop:
    """One execution of one agent state. `await AgentLoop(walk, state, gateway, span).run()`."""

    def __init__(self, walk: PlanWalk, state: State, gateway: LlmGateway, span: Span | None) -> None:
        self.walk = walk
        self.state = state
        self.gateway = gateway
        self.span = span
        params = state.params
        self.task = walk.fill_text(str(params["task"])) or ""
        self.max_turns = int(params.get("max_steps") or 12)
        self.tools = offered_tools(params.get("tools"))
        self.offered = {tool.name for tool in self.tools}
        # Recipe conditions, unfilled: the verify checker fills their placeholders itself.
        self.done_when: list[dict[str, Any]] = list(params.get("done_when", []))
        self.timeout = state.timeout_ms or walk.plan.limits.step_timeout_ms
        self.context = ObservationContext()  # seed 002: latest observe, latest two snapshots, 10k chars each
        self.page = PageContext()
        self.conversation: list[ChatMessage] = [ChatMessage.user(self._opening())]
        self.turns: list[Turn] = []

    # ------------------------------------------------------------------ the loop

    async def run(self) -> StepResult:
        self._seed_context()
        for number in range(1, self.max_turns + 1):
            turn = Turn(number)
            self.turns.append(turn)
            span = self.walk.spans.start_child(self.span, "verity.agent.turn", {"verity.state.id": self.state.id, "verity.agent.turn": number})
            began = time.perf_counter()
            try:
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
                if call.name == "close":
                    return await self._close(call, turn)
                outcome = await self._call_tool(call)
                if len(calls) > 1:
                    outcome.response["note"] = f"only the first of your {len(calls)} tool calls ran; make one call per turn"
                self.conversation.append(ChatMessage.tool_result(call, outcome.response))
                changed = {True: "; the page changed", False: "; the page did not change"}.get(outcome.response.get("page_changed"), "")
                turn.outcome, turn.ok, turn.error_code = ("ok" if outcome.ok else "error"), outcome.ok, outcome.error_code
                turn.summary = f"{describe_call(call.name, turn.arguments)[:120]} -> {outcome.summary}{changed}"
            finally:
                self._finish_turn(turn, span, began)
        detail = f"the model used all {self.max_turns} turns of {self.state.id} without calling close"
        evidence = {"turns": self.max_turns, "last_tools": [t.tool or "(none)" for t in self.turns[-3:]]}
        self.walk.note_failure(detail, evidence)
        return StepResult("exhausted", False, summary=detail, thinking=self.turns[-1].text[:THINKING_CHARS], evidence=evidence)

    def _opening(self) -> str:
        filled = [{k: (self.walk.fill_text(v) if k in ("text_includes", "title_includes") else v) for k, v in c.items()} for c in self.done_when]
        conditions = "\n".join(f"- {describe_condition(c)}" for c in filled)
        return (
            f"Task: {self.task}\n\n"
            f"This step counts as done only if, when you call close, all of these hold:\n{conditions}\n\n"
            f"You have at most {self.max_turns} turns, one tool call each."
        )

    def _seed_context(self) -> None:
        observation = self.walk.observation
        if observation is not None and not observation.error_code:
            tab_id = self.walk.session.primary_tab_id if self.walk.session is not None else ""
            self.page = PageContext(observation.url, tab_id, observation.title)
            self.context.add_observe(observation.url, f"{observation.url} HTTP {observation.status} {observation.title!r}\n{observation.text[:2000]}")

    async def _ask_model(self) -> tuple[str, list[LlmToolCall], LlmUsage]:
        prompt = build_agent_prompt(self.task, self.tools, self.page, self.context)
        text: list[str] = []
        calls: list[LlmToolCall] = []
        usage = LlmUsage()
        async for event in self.gateway.stream_chat([ChatMessage.system(prompt), *self.conversation], self.tools):
            if isinstance(event, LlmDelta):
                text.append(event.content)
                self.walk.events.emit(ChatDelta(text=event.content))
            elif isinstance(event, LlmToolCall):
                calls.append(event)
            elif isinstance(event, LlmDone):
                usage = event.usage
        return "".join(text), calls, usage

    def _finish_turn(self, turn: Turn, span: Span, began: float) -> None:
        limits = self.walk.plan.limits
        agent_state = AgentState(
            thinking=turn.text[:THINKING_CHARS],
            evaluation=turn.summary,
            memory=f"turn {turn.number}/{self.max_turns} of {self.state.id}; run steps {self.walk.steps_used}/{limits.max_steps}; page {self.page.url or '(none)'}",
            next_goal=describe_call(turn.tool, turn.arguments) if turn.tool else "answer with a tool call",
        )
        self.walk.events.emit(
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
        self.walk.record_turn(turn.record())
        span.set_attribute("verity.agent.tool", turn.tool or "")
        span.set_attribute("verity.agent.outcome", turn.outcome or "stopped")
        span.set_attribute("verity.llm.total_tokens", turn.usage.total_tokens)
        if turn.error_code:
            span.set_attribute("verity.error_code", turn.error_code)
        span.end()

    def _model_failed(self, error: LlmError, turn: Turn) -> StepResult:
        # Seed 003: an unrecoverable model error is reported as a structured error output.
        details = error.to_dict()  # built and redacted by the gateway: never the key
        self.walk.events.emit(StructuredOutput(data={"status": "error", "error": details}, valid=False, errors=(turn.summary,)))
        self.walk.note_failure(f"the model failed in {self.state.id}: {turn.summary}", {"llm_error": details})
        return StepResult("error", False, summary=f"the model failed: {turn.summary}", error=error.code.value, evidence={"llm_error": details, "turns": turn.number})

    # ------------------------------------------------------------------ one tool call

    def _authorize(self, tool: str) -> None:
        """The step's tool list, then tools.allow and the intent guard, as for plan steps."""
        walk = self.walk
        if tool not in self.offered:
            allowed = walk.plan.tools.allowed
            if allowed is not None and tool not in allowed:
                walk.authorize_tool(tool, self.state.id)  # trips tools.allow and stops the run
            detail = f"the model called {tool}, which {self.state.id} does not offer (offered: {', '.join(sorted(self.offered))})"
            walk.trip_policy(tool, detail, "agent.tools")
            raise RunStopped(StopReason.TOOL_POLICY_BLOCKED, detail, evidence={"tool": tool, "offered": sorted(self.offered)})
        walk.authorize_tool(tool, self.state.id)
        limit = walk.plan.limits.max_steps
        if walk.steps_used >= limit:
            raise RunStopped(
                StopReason.MAX_STEPS_EXCEEDED,
                f"the run used {walk.steps_used} steps ({walk.executed} states, {walk.agent_calls} agent tool call(s)), "
                f"the limit guards.max_steps; the model's next call was {tool}",
            )
        walk.agent_calls += 1

    async def _call_tool(self, call: LlmToolCall) -> ToolOutcome:
        walk, tool, arguments = self.walk, call.name, dict(call.arguments)
        self._authorize(tool)
        action_id = walk.new_action_id(tool)
        described = describe_call(tool, arguments)
        walk.events.emit(ToolUsed(tool=tool, action_id=action_id, phase="start", summary=described))
        if tool in walk.plan.tools.needs_approval:
            try:
                await walk.ask_approval(tool, f"agent {self.state.id}: {described}", arguments, self.state.id)
            except RunStopped:
                walk.events.emit(ToolUsed(tool=tool, action_id=action_id, phase="error", summary="denied by a person", error_code="approval_denied"))
                raise
        session = await walk.browser()
        before = await self._fingerprint(session)
        outcome = await self._dispatch(tool, arguments, session)
        after = before
        if tool in PAGE_CHANGING_TOOLS:
            after = await self._settled(session, before) if outcome.ok and tool not in ("open_url", "browser_wait") else await self._fingerprint(session)
            outcome.response["page_changed"] = bool(after) and after != before
        walk.guard.on_settled(tool, outcome.ok)
        if outcome.ok:
            walk.events.emit(ToolUsed(tool=tool, action_id=action_id, phase="success", summary=outcome.summary))
        else:
            walk.events.emit(ToolUsed(tool=tool, action_id=action_id, phase="error", summary=outcome.summary, error_code=outcome.error_code))
        signature_target = json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)
        verdict = walk.progress.record(action_signature(tool, signature_target, before, after))
        if verdict is not None:
            raise RunStopped(StopReason.NO_PROGRESS, verdict.detail, evidence={"signatures": list(verdict.signatures), "tool": tool})
        return outcome

    async def _fingerprint(self, session: BrowserSession) -> str:
        # Polled often while an act settles, so it bypasses run_action's events.
        result = await session.fingerprint(action_id=self.walk.new_action_id("fingerprint"), timeout_ms=self.timeout)
        if result.ok:
            self.page = PageContext(str(result.data.get("url", "")), self.page.tab_id, self.page.title if result.data.get("url") == self.page.url else "")
            return str(result.data.get("digest", ""))
        return ""

    async def _settled(self, session: BrowserSession, before: str) -> str:
        """Wait (up to guards.timeouts.verify_ms) for the act's effect; a navigation then loads."""
        deadline = time.monotonic() + self.walk.plan.limits.verify_timeout_ms / 1000
        while True:
            after = await self._fingerprint(session)
            if (after and after != before) or time.monotonic() >= deadline:
                break
            await asyncio.sleep(SETTLE_POLL_SECONDS)
        if after and after != before:
            await session.wait_for_loaded(action_id=self.walk.new_action_id("settle"), timeout_ms=self.timeout)
            after = await self._fingerprint(session) or after
        return after

    async def _dispatch(self, tool: str, arguments: dict[str, Any], session: BrowserSession) -> ToolOutcome:
        walk, timeout = self.walk, self.timeout
        if tool == "open_url":
            return await self._open_url(arguments)
        if tool == "browser_snapshot":
            return await self._snapshot(arguments)
        if tool == "browser_extract":
            return await self._extract(arguments)
        if tool == "browser_verify":
            return await self._verify(arguments, session)
        if tool == "browser_wait":
            kind = str(arguments.get("kind", "load"))
            value: str | int | None = arguments.get("value")
            if kind == "timeout":
                try:
                    value = int(float(str(value)))
                except ValueError:
                    return ToolOutcome.failed("invalid_params", "a timeout wait needs value = milliseconds")
            result = await walk.run_action("wait", f"wait for {kind} {value or ''}".strip(), lambda s, a: s.wait(kind, value, action_id=a, timeout_ms=timeout))
            return self._acted(result, f"{kind} satisfied")
        target = target_argument(arguments)
        if tool == "browser_click":
            result = await walk.run_action("act", f"click {target}", lambda s, a: s.click(target, action_id=a, timeout_ms=timeout))
        elif tool == "browser_type":
            text, submit = str(arguments.get("text", "")), bool(arguments.get("submit"))
            result = await walk.run_action("act", f"type into {target}", lambda s, a: s.type_text(target, text, submit=submit, action_id=a, timeout_ms=timeout))
        elif tool == "browser_select":
            value_arg, label = arguments.get("value"), arguments.get("label")
            result = await walk.run_action("act", f"select in {target}", lambda s, a: s.select(target, value=value_arg, label=label, action_id=a, timeout_ms=timeout))
        elif tool == "browser_press":
            key = str(arguments.get("key", ""))
            result = await walk.run_action("act", f"press {key}", lambda s, a: s.press(key, target=target, action_id=a, timeout_ms=timeout))
        else:  # browser_scroll
            direction, amount = scroll_motion(str(arguments.get("direction", "down")))
            result = await walk.run_action("act", f"scroll {direction}", lambda s, a: s.scroll(direction=direction, amount=amount, target=target, action_id=a, timeout_ms=timeout))
        return self._acted(result, f"{tool.removeprefix('browser_')} done")

    def _acted(self, result: ActionResult, summary: str) -> ToolOutcome:
        if not result.ok:
            return ToolOutcome.from_error(result)
        opened = result.data.get("opened_tabs") or []
        response: dict[str, Any] = {"ok": True}
        if opened:
            response["opened_tabs"] = [tab.get("url") for tab in opened]
        return ToolOutcome(True, response, summary)

    async def _open_url(self, arguments: dict[str, Any]) -> ToolOutcome:
        walk = self.walk
        url = arguments.get("url")
        if not isinstance(url, str) or not url:
            return ToolOutcome.failed("invalid_params", "open_url needs url, an absolute http(s) URL")
        allowed = list(walk.plan.target.get("allowed_domains", []))
        if not url_allowed(url, allowed):
            return ToolOutcome.failed("domain_not_allowed", f"{url} is outside the allowed domains ({', '.join(allowed)}); stay on them")
        observation = await walk.open_and_prepare(self.state.id, url, self.timeout)
        walk.observation, walk.target_check = observation, None
        if observation.error_code:
            return ToolOutcome.failed(observation.error_code, observation.error_message)
        tab_id = walk.session.primary_tab_id if walk.session is not None else ""
        self.page = PageContext(observation.url, tab_id, observation.title)
        self.context.add_observe(observation.url, f"{observation.url} HTTP {observation.status} {observation.title!r}\n{observation.text[:2000]}")
        response = {"ok": True, "url": observation.url, "status": observation.status, "title": observation.title, "text": observation.text[:RESPONSE_TEXT_CHARS]}
        return ToolOutcome(True, response, f"opened {observation.url} (HTTP {observation.status})")

    async def _snapshot(self, arguments: dict[str, Any]) -> ToolOutcome:
        max_elements = arguments.get("max_elements")
        limit = int(max_elements) if isinstance(max_elements, (int, float)) and max_elements >= 1 else None
        result = await self.walk.run_action(
            "snapshot", "snapshot for the model", lambda s, a: s.snapshot(max_elements=limit, action_id=a, timeout_ms=self.timeout)
        )
        if not result.ok:
            return ToolOutcome.from_error(result)
        snapshot: Snapshot = result.value
        self.context.add_snapshot(snapshot.snapshot_id, str(result.data.get("rendered", "")))
        self.page = PageContext(snapshot.url, snapshot.tab_id, snapshot.title)
        response = {
            "ok": True,
            "snapshot_id": snapshot.snapshot_id,
            "url": snapshot.url,
            "title": snapshot.title,
            "elements": len(snapshot.elements),
            "truncated": snapshot.truncated,
            "note": "the elements and their refs are listed in the page section; refs of older snapshots are stale",
        }
        return ToolOutcome(True, response, f"snapshot {snapshot.snapshot_id}: {len(snapshot.elements)} elements of {snapshot.url}")

    async def _extract(self, arguments: dict[str, Any]) -> ToolOutcome:
        timeout = self.timeout
        if arguments.get("readable"):
            result = await self.walk.run_action("extract", "readable text for the model", lambda s, a: s.extract(readable=True, action_id=a, timeout_ms=timeout))
            if not result.ok:
                return ToolOutcome.from_error(result)
            text = str(result.data.get("text", ""))
            return ToolOutcome(True, {"ok": True, "text": text[: RESPONSE_TEXT_CHARS * 3], "chars": len(text)}, f"read {len(text)} chars of readable text")
        fields = arguments.get("fields")
        if not isinstance(fields, list) or not fields or not all(isinstance(f, dict) and f.get("name") for f in fields):
            return ToolOutcome.failed("invalid_params", "browser_extract needs fields: [{name, target, attr?}] or readable: true")
        requested = {str(f["name"]): {"target": target_argument(f), **({"attr": f["attr"]} if f.get("attr") else {})} for f in fields}
        result = await self.walk.run_action("extract", f"extract {', '.join(requested)}", lambda s, a: s.extract(requested, action_id=a, timeout_ms=timeout))
        if not result.ok:
            return ToolOutcome.from_error(result)
        values = {name: (value[:FIELD_VALUE_CHARS] if isinstance(value, str) else value) for name, value in (result.data.get("fields") or {}).items()}
        missing = list(result.data.get("missing") or [])
        shown = ", ".join(f"{k}={str(v)[:40]!r}" for k, v in values.items())
        return ToolOutcome(True, {"ok": True, "fields": values, "missing": missing}, f"extracted {shown}")

    async def _verify(self, arguments: dict[str, Any], session: BrowserSession) -> ToolOutcome:
        given = [k for k in ("text_includes", "title_includes", "url_matches", "element_visible") if arguments.get(k) is not None]
        if len(given) != 1:
            return ToolOutcome.failed("invalid_params", "browser_verify needs exactly one of text_includes, title_includes, url_matches, element_visible")
        key = given[0]
        if key == "element_visible":
            target = target_argument(arguments, key)
            if not isinstance(target, dict):
                return ToolOutcome.failed("invalid_params", "element_visible needs a target object")
            condition: dict[str, Any] = {"element": {**literal_text(target), "state": "visible"}}
        else:
            condition = {key: literal_text(str(arguments[key])) if key != "url_matches" else str(arguments[key])}
        checked = await self.walk.check_condition(session, condition, self.timeout, self.walk.new_action_id("verify"))
        observed = checked["observed"]
        response = {"ok": True, "passed": checked["passed"], "observed": str(observed)[:FIELD_VALUE_CHARS] if observed is not None else None}
        return ToolOutcome(True, response, f"{key} {'passed' if checked['passed'] else 'failed'}")

    # ------------------------------------------------------------------ close

    async def _close(self, call: LlmToolCall, turn: Turn) -> StepResult:
        walk = self.walk
        # The model's close only ends this step (the browser stays open for the plan): the
        # compiler always offers it, so tools.allow need not list it; the intent guard still sees it.
        decision = walk.guard.before_tool("close")
        if not decision.allowed:
            walk.trip_policy("close", decision.detail, "intentGuard")
            raise RunStopped(decision.stop_reason or StopReason.TOOL_POLICY_BLOCKED, decision.detail, evidence={"tool": "close"})
        summary = str(call.arguments.get("summary", ""))[:500]
        action_id = walk.new_action_id("close")
        walk.events.emit(ToolUsed(tool="close", action_id=action_id, phase="start", summary=summary or "close the agent step"))
        session = await walk.browser()
        results = [await walk.check_condition(session, condition, self.timeout, f"{action_id}:{i + 1}") for i, condition in enumerate(self.done_when)]
        failed = [r for r in results if not r["passed"]]
        walk.guard.on_settled("close", True)
        walk.events.emit(ToolUsed(tool="close", action_id=action_id, phase="success", summary=f"{len(results) - len(failed)}/{len(results)} done_when condition(s) passed"))
        turn.ok = not failed
        evidence = {"close_summary": summary, "conditions": results, "turns": turn.number}
        if not failed:
            walk.unverified.pop(self.state.id, None)
            turn.outcome, turn.summary = "closed", f"closed and verified: {summary}"
            return StepResult("verified", True, verified=True, summary=f"the model closed ({summary}) and all {len(results)} done_when condition(s) hold", thinking=turn.text[:THINKING_CHARS], evidence=evidence)
        walk.unverified[self.state.id] = "unverified"
        described = "; ".join(f"{r['check']} {r['expected']!r} (observed {str(r['observed'])[:80]!r})" for r in failed)
        evidence["failed"] = failed
        walk.events.emit(GuardrailTripped(guard="agent.done_when", blocker_kind=None, detail=f"{len(failed)} of {len(results)} done_when condition(s) failed: {described}", evidence=evidence))
        walk.note_failure(f"{self.state.id} closed but done_when failed: {described}", {"failed_conditions": failed, "close_summary": summary})
        turn.outcome, turn.summary = "closed", f"closed but not verified: {described}"
        return StepResult("unverified", False, summary=f"the model closed ({summary}) but {len(failed)} done_when condition(s) failed: {described}", thinking=turn.text[:THINKING_CHARS], evidence=evidence)
