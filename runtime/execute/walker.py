"""Walking a compiled Plan for real: each state does its work, names an outcome, and the plan's
transitions say where to go next. All effects (browser, clock, files) happen here, and every
one is recorded as an event.

A state can also stop the run outright (a guard trips, the browser dies, a person denies an
approval): it raises `RunStopped`, which the walk turns into the run's end.

An `agent` state hands its task to the model (agent_step.py); every tool call the model makes goes
through this walk's guards, approvals, driver actions and no-progress detector, and counts
against guards.max_steps.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any
from urllib.parse import quote_plus, urljoin, urlsplit

import jsonschema
from opentelemetry.trace import Span

from runtime.artifacts import ArtifactRef
from runtime.browser import ActionErrorCode, ActionResult, BrowserSession, PreparedPage
from runtime.events import (
    AgentState,
    ArtifactStored,
    ConfirmationRequested,
    EventLog,
    GuardrailTripped,
    Replanned,
    StatusChanged,
    StepFinished,
    StepStarted,
    StructuredOutput,
    ToolUsed,
)
from runtime.execute.agent_step import AgentLoop
from runtime.execute.agent_tools import scroll_motion
from runtime.execute.approvals import ApprovalDesk
from runtime.execute.field_values import read_field
from runtime.execute.run_files import ExecutionRecord, RunFiles
from runtime.execute.spans import RunSpans
from runtime.execute.step_outcome import RunStopped, StepResult
from runtime.execute.target_check import REPLAN_GUIDANCE, PageObservation, TargetCheck, validate_target
from runtime.guard import IntentDecision, IntentGuard, NoProgressDetector, action_signature
from runtime.llm import GeminiIntentModel, GeminiSettings, LlmError, LlmGateway
from runtime.outcomes import BlockerKind, StopReason, TaskState
from runtime.plan.model import Plan, State
from runtime.recipe.domains import url_allowed
from runtime.recipe.placeholders import fill

# Plan machinery that reads what the run already observed; it touches neither browser nor network,
# so tools.allow and the intent guard do not apply to it.
PLAN_CHECK_TOOLS = frozenset({"data.validate-target", "agent.evaluate"})

VERIFY_POLL_SECONDS = 0.1


@dataclass(frozen=True)
class RunEnd:
    """How the walk ended; the run turns it into the FinalVerdict."""

    stop_reason: StopReason
    summary: str
    blocker_kind: BlockerKind | None = None
    evidence: dict[str, Any] = field(default_factory=dict)


@dataclass
class Blocker:
    state_id: str
    kind: BlockerKind
    reason: str
    evidence: dict[str, Any]


SessionOpener = Callable[[], Awaitable[BrowserSession]]


class PlanWalk:
    """One run of one plan. Create, then `await walk()`; read `data`, `output_valid` afterwards."""

    def __init__(
        self,
        plan: Plan,
        values: dict[str, Any],
        *,
        run_id: str,
        events: EventLog,
        files: RunFiles,
        spans: RunSpans,
        approvals: ApprovalDesk,
        open_session: SessionOpener,
    ) -> None:
        self.plan = plan
        self.values = values
        self.run_id = run_id
        self.events = events
        self.files = files
        self.spans = spans
        self.approvals = approvals
        self._open_session = open_session
        self.session: BrowserSession | None = None
        self.guard = IntentGuard.from_plan(plan)
        self.progress = NoProgressDetector(plan.limits.no_progress_window)
        self.executed = 0
        self.observation: PageObservation | None = None
        self.target_check: TargetCheck | None = None
        self.blocker: Blocker | None = None
        self.replans_used = 0
        self._query_cursor = 0
        self.tried_urls: set[str] = set()
        self.plan_repairs: list[dict[str, Any]] = []
        self.last_failure_summary = ""
        self.data: dict[str, Any] = {}
        self.output_valid: bool | None = None
        self.output_errors: list[str] = []
        self.close_summary = ""
        # Act/verify states whose latest execution did not verify: done needs success AND verified.
        self.unverified: dict[str, str] = {}
        self._action_numbers = itertools.count(1)
        self._record: ExecutionRecord | None = None
        self._approval_numbers = itertools.count(1)
        self._last_failure = ""
        # Evidence for the failure detail it was noted with (other failures set only the detail).
        self._failure_evidence: dict[str, dict[str, Any]] = {}
        self._state_span: Span | None = None
        # Tool calls agent steps made; with executed states they count against guards.max_steps.
        self.agent_calls = 0
        # Read from the environment at intent.preflight when the plan has agent states.
        self.llm_settings: GeminiSettings | None = None

    @property
    def steps_used(self) -> int:
        return self.executed + self.agent_calls

    def note_failure(self, detail: str, evidence: dict[str, Any]) -> None:
        """What the verdict says went wrong when no blocker explains it."""
        self._last_failure = detail
        self._failure_evidence = {detail: evidence}

    def record_turn(self, turn: dict[str, Any]) -> None:
        if self._record is not None:
            self._record.agent_turns.append(turn)

    # ------------------------------------------------------------------ the walk

    async def walk(self) -> RunEnd:
        self.files.write_plan(json.loads(self.plan.to_json()), self.plan_repairs, self.last_failure_summary)
        state_id = self.plan.initial
        while True:
            state = self.plan.state(state_id)
            if state.kind == "terminal":
                assert state.terminal is not None
                return self._terminal_end(state)
            if self.steps_used >= self.plan.limits.max_steps:
                raise RunStopped(
                    StopReason.MAX_STEPS_EXCEEDED,
                    f"the run used {self.steps_used} steps ({self.executed} states, {self.agent_calls} agent tool call(s)), "
                    f"the limit guards.max_steps; next was {state.id}",
                    self.blocker.kind if self.blocker else None,
                )
            self.executed += 1
            result, next_id = await self._execute(state)
            if next_id is None:
                raise RunStopped(
                    StopReason.EXECUTE_ERROR,
                    f"state {state.id} ended with outcome {result.outcome!r}, which the plan does not route",
                    result.blocker_kind,
                )
            state_id = next_id

    def _terminal_end(self, state: State) -> RunEnd:
        assert state.terminal is not None
        reason = state.terminal.stop_reason
        if reason is StopReason.COMPLETED:
            if self.unverified:
                failed = ", ".join(f"{k} ({v})" for k, v in self.unverified.items())
                return RunEnd(StopReason.VERIFICATION_FAILED, f"the plan finished but these steps did not verify: {failed}")
            if self.output_valid is not True:
                return RunEnd(StopReason.OUTPUT_INVALID, "the plan finished without a valid output")
            summary = self.close_summary or "the run completed"
            return RunEnd(StopReason.COMPLETED, f"{summary}: {json.dumps(self.data, ensure_ascii=False, default=str)}", None, {"output": self.data})
        blocker = self.blocker
        detail = {
            StopReason.REPLANS_EXHAUSTED: "no replan reached a valid target",
            StopReason.VERIFICATION_FAILED: "a verification failed",
            StopReason.OUTPUT_INVALID: "the output does not match the recipe's schema",
            StopReason.INTENT_EXECUTION_FAILED: "the browser intent was not carried out",
            StopReason.EXECUTE_ERROR: "a step failed",
            StopReason.TIMEOUT: "a wait timed out",
        }.get(reason, reason.value)
        if blocker is not None and reason in (StopReason.REPLANS_EXHAUSTED, StopReason.EXECUTE_ERROR):
            detail = f"{detail}; last blocker {blocker.kind.value} at {blocker.state_id}: {blocker.reason}"
        evidence = dict(blocker.evidence) if blocker is not None else dict(self._failure_evidence.get(self._last_failure, {}))
        if self._last_failure:
            detail = f"{detail}; {self._last_failure}"
        return RunEnd(reason, detail, blocker.kind if blocker else None, evidence)

    async def _execute(self, state: State) -> tuple[StepResult, str | None]:
        span = self.spans.start_state(state.id, state.kind)
        self._state_span = span
        started = time.time()
        began = time.perf_counter()
        record = ExecutionRecord(index=self.executed, state_id=state.id, kind=state.kind, tool=state.tool, started_at=started)
        self._record = record
        self.events.emit(StepStarted(state_id=state.id, step_kind=state.kind, attempt=self._attempt_of(state.id)))
        stop: RunStopped | None = None
        try:
            result = await self._run_state(state)
        except RunStopped as stopped:
            stop = stopped
            result = StepResult(
                outcome="stopped", ok=False, summary=stopped.detail, blocker_kind=stopped.blocker_kind, error=stopped.reason.value, evidence=stopped.evidence
            )
        except asyncio.CancelledError:
            self._finish_record(state, record, StepResult(outcome="cancelled", ok=False, summary="the run was stopped during this step"), began, None)
            self.spans.end_state(span, "cancelled", None, None)
            raise
        guards = {"replans_left": self.replans_used < self.plan.limits.max_replans, "replans_exhausted": self.replans_used >= self.plan.limits.max_replans}
        next_id = None if stop else state.next_for(result.outcome, guards)
        self._finish_record(state, record, result, began, next_id)
        self.spans.end_state(span, result.outcome, result.blocker_kind, stop.reason if stop else None)
        if stop is not None:
            raise stop
        return result, next_id

    def _attempt_of(self, state_id: str) -> int:
        return 1 + sum(1 for r in self.files.executions if r.state_id == state_id)

    def _finish_record(self, state: State, record: ExecutionRecord, result: StepResult, began: float, next_id: str | None) -> None:
        duration = (time.perf_counter() - began) * 1000
        next_goal = ""
        if next_id is not None:
            next_state = self.plan.state(next_id)
            next_goal = f"{next_state.kind} {next_id}" if next_state.kind != "terminal" else f"end the run ({next_id})"
        agent_state = AgentState(
            thinking=result.thinking,
            evaluation=result.evaluation or result.summary,
            memory=self._memory(),
            next_goal=next_goal,
        )
        record.finished_at = time.time()
        record.duration_ms = round(duration, 1)
        record.outcome = result.outcome
        record.ok = result.ok
        record.verified = result.verified
        record.observation_summary = result.summary
        record.blocker_kind = result.blocker_kind.value if result.blocker_kind else None
        record.agent_state = asdict(agent_state)
        record.evidence = result.evidence
        record.error = result.error
        self.files.record_execution(record)
        self.events.emit(
            StepFinished(
                state_id=state.id,
                step_kind=state.kind,
                outcome=result.outcome,
                ok=result.ok,
                verified=result.verified,
                duration_ms=round(duration, 1),
                observation_summary=result.summary,
                blocker_kind=result.blocker_kind,
                agent_state=agent_state,
                error=result.error,
            )
        )

    def _memory(self) -> str:
        parts = [f"step {self.steps_used}/{self.plan.limits.max_steps}", f"replans {self.replans_used}/{self.plan.limits.max_replans}"]
        if self.observation is not None:
            parts.append(f"page {self.observation.url} (HTTP {self.observation.status})")
        if self.blocker is not None:
            parts.append(f"last blocker {self.blocker.kind.value}")
        if self.data:
            parts.append("fields " + ", ".join(f"{k}={v!r}" for k, v in self.data.items() if k != "text")[:200])
        return "; ".join(parts)

    # ------------------------------------------------------------------ dispatch

    async def _run_state(self, state: State) -> StepResult:
        # An agent state's own tool (agent.act) is bookkeeping: each call its model makes is
        # authorized and settled on its own, so tools.allow need not list agent.act.
        checked = state.tool is not None and state.tool not in PLAN_CHECK_TOOLS and state.kind != "agent"
        if state.tool is not None and state.tool not in PLAN_CHECK_TOOLS:
            if checked:
                self._authorize(state)
            if state.needs_approval:
                await self._ask_approval(state)
        handler = {
            "intent.preflight": self._preflight,
            "navigate": self._navigate,
            "observe": self._observe,
            "data.validate-target": self._validate_target,
            "agent.evaluate": self._evaluate,
            "replan.search": self._replan_search,
            "act": self._act,
            "wait": self._wait,
            "extract": self._extract,
            "verify": self._verify,
            "agent": self._agent,
            "close": self._close,
            "intent.completion": self._completion,
            "output.validate": self._validate_output,
        }[state.kind]
        result = await handler(state)
        if checked:
            assert state.tool is not None
            self.guard.on_settled(state.tool, result.ok)
        return result

    def _authorize(self, state: State) -> None:
        assert state.tool is not None
        self.authorize_tool(state.tool, state.id)

    def authorize_tool(self, tool: str, needed_by: str) -> None:
        """tools.allow, then the intent guard; a refusal stops the run with tool_policy_blocked."""
        allowed = self.plan.tools.allowed
        if allowed is not None and tool not in allowed:
            detail = f"{tool} (needed by {needed_by}) is not in tools.allow ({', '.join(allowed) or 'empty'}); add it there or change the step"
            self.trip_policy(tool, detail, "tools.allow")
            raise RunStopped(StopReason.TOOL_POLICY_BLOCKED, detail, evidence={"tool": tool, "allowed": allowed})
        decision = self.guard.before_tool(tool)
        if not decision.allowed:
            self.trip_policy(tool, decision.detail, "intentGuard")
            raise RunStopped(
                decision.stop_reason or StopReason.TOOL_POLICY_BLOCKED, decision.detail, evidence={"tool": tool, "scope": decision.scope}
            )

    def trip_policy(self, tool: str, detail: str, guard: str) -> None:
        self.events.emit(ToolUsed(tool=tool, action_id=self.new_action_id(tool), phase="blocked", summary=detail, error_code="tool_policy_blocked"))
        self.events.emit(GuardrailTripped(guard=guard, blocker_kind=None, detail=detail, evidence={"tool": tool}))

    async def _ask_approval(self, state: State) -> None:
        await self.ask_approval(state.tool or state.kind, f"{state.kind} {state.id}: {self._describe(state)}", self._filled_params(state), state.id)

    async def ask_approval(self, tool: str, summary: str, params: dict[str, Any], needed_by: str) -> None:
        """ConfirmationRequested, then wait for a person; a denial stops the run with approval_denied."""
        request = ConfirmationRequested(
            request_id=f"{self.run_id}:approve:{next(self._approval_numbers)}", tool=tool, summary=summary, params=params
        )
        answer_future = self.approvals.open(request)
        self.events.emit(request)
        self.events.emit(StatusChanged(status=TaskState.WAITING_FOR_USER_CONFIRMATION, detail=request.summary))
        try:
            answer = await answer_future
        finally:
            self.approvals.close(request.request_id)
        if not answer.approved:
            raise RunStopped(
                StopReason.APPROVAL_DENIED,
                f"{request.tool} for {needed_by} was denied" + (f": {answer.reason}" if answer.reason else ""),
                evidence={"request_id": request.request_id, "tool": tool},
            )
        self.events.emit(StatusChanged(status=TaskState.RUNNING, detail=f"approved {request.request_id}"))

    def _describe(self, state: State) -> str:
        params = self._filled_params(state)
        if state.kind == "navigate":
            return f"open {params.get('url')}"
        if state.kind == "act":
            return "act " + json.dumps(params, ensure_ascii=False)[:200]
        return json.dumps(params, ensure_ascii=False)[:200]

    # ------------------------------------------------------------------ placeholders

    def fill_text(self, text: str | None) -> str | None:
        return None if text is None else fill(text, self.values)

    def fill_locator(self, locator: dict[str, Any] | None) -> dict[str, Any] | None:
        if locator is None:
            return None
        return {k: (self.fill_text(v) if k in ("name", "text", "css", "xpath") and isinstance(v, str) else v) for k, v in locator.items()}

    def _filled_params(self, state: State) -> dict[str, Any]:
        params = dict(state.params)
        if state.kind == "navigate":
            params["url"] = self.fill_text(params.get("url"))
        elif state.kind == "act":
            for key in ("click", "type", "select"):
                if key in params:
                    params[key] = self.fill_locator(params[key])
            for key in ("text", "value"):
                if key in params:
                    params[key] = self.fill_text(params[key])
        return params

    # ------------------------------------------------------------------ browser actions

    def new_action_id(self, name: str) -> str:
        return f"{self.run_id}:a{next(self._action_numbers)}:{name}"

    async def browser(self) -> BrowserSession:
        if self.session is None:
            self.session = await self._open_session()
        return self.session

    async def run_action(self, name: str, summary: str, call: Callable[[BrowserSession, str], Awaitable[ActionResult]]) -> ActionResult:
        """One driver action, bracketed by ToolUsed events; a dead browser stops the run."""
        session = await self.browser()
        action_id = self.new_action_id(name)
        self.events.emit(ToolUsed(tool=name, action_id=action_id, phase="start", summary=summary))
        result = await call(session, action_id)
        summary_of_result = _result_summary(result) if result.ok else ""
        if result.ok:
            self.events.emit(ToolUsed(tool=name, action_id=action_id, phase="success", summary=summary_of_result))
        else:
            assert result.error is not None
            self.events.emit(
                ToolUsed(tool=name, action_id=action_id, phase="error", summary=result.error.message, error_code=result.error.code.value)
            )
        if self._record is not None:
            self._record.tool_results.append(
                {
                    "action": name,
                    "action_id": action_id,
                    "ok": result.ok,
                    "duration_ms": round(result.duration_ms, 1),
                    "error": result.error.to_dict() if result.error else None,
                    "summary": summary_of_result,
                }
            )
        if result.error_code is ActionErrorCode.BROWSER_CRASHED or session.browser.crashed:
            raise RunStopped(
                StopReason.BROWSER_CRASHED,
                f"the browser died during {name}: " + (result.error.message if result.error else "connection lost"),
                evidence={"action": name, "action_id": action_id},
            )
        return result

    def _store_artifact_events(self, page: PreparedPage) -> None:
        for ref in (page.screenshot, page.html_artifact, page.text_artifact):
            if ref is not None:
                self._emit_artifact(ref)

    def _emit_artifact(self, ref: ArtifactRef) -> None:
        self.events.emit(
            ArtifactStored(artifact_id=ref.id, artifact_kind=ref.kind, path=ref.path, media_type=ref.media_type, size=ref.size, sha256=ref.sha256)
        )

    async def open_and_prepare(self, state_id: str, url: str, timeout_ms: int) -> PageObservation:
        """Navigate, then seed 003's mandatory page preparation (loaded -> screenshot + readable text)."""
        self.tried_urls.add(url)
        opened = await self.run_action("open_url", f"open {url}", lambda s, a: s.open_url(url, action_id=a, timeout_ms=timeout_ms))
        if not opened.ok:
            assert opened.error is not None
            return PageObservation(state_id, url, None, "", "", opened.error.code.value, opened.error.message)
        self.tried_urls.add(str(opened.data.get("url", url)))
        return await self._prepare(state_id, timeout_ms, status=opened.data.get("status"))

    async def _prepare(self, state_id: str, timeout_ms: int, status: int | None = None) -> PageObservation:
        prepared = await self.run_action("prepare_page", "wait for load, screenshot, readable text", lambda s, a: s.prepare_page(action_id=a, timeout_ms=timeout_ms))
        if not prepared.ok:
            assert prepared.error is not None
            return PageObservation(state_id, "", status, "", "", prepared.error.code.value, prepared.error.message)
        page: PreparedPage = prepared.value
        self._store_artifact_events(page)
        text = page.text
        if not text and page.text_artifact is not None:
            text = (await asyncio.to_thread(lambda: open(page.text_artifact.path, encoding="utf-8").read()))  # type: ignore[union-attr]
        return PageObservation(
            state_id, page.url, page.status if page.status is not None else status, page.title, text, screenshot_path=page.screenshot.path
        )

    # ------------------------------------------------------------------ states

    async def _preflight(self, state: State) -> StepResult:
        self._require_model()
        goal = str(self.values.get("goal", self.plan.goal))
        intent = await self._detect_intent(goal)
        available = self.plan.tools.allowed if self.plan.tools.allowed is not None else sorted(self.plan.tools.scopes)
        decision = self.guard.preflight(list(available))
        thinking = f"intent {intent.label} ({intent.detector}: {intent.reason})"
        if decision.allowed:
            return StepResult("ok", True, summary=decision.detail, thinking=thinking, evidence={"intent": intent.to_dict()})
        self.events.emit(GuardrailTripped(guard="intentGuard.preflight", blocker_kind=None, detail=decision.detail, evidence={"intent": intent.to_dict()}))
        if decision.stop_reason not in (None, StopReason.INTENT_EXECUTION_FAILED):
            raise RunStopped(decision.stop_reason, decision.detail)
        self._last_failure = decision.detail
        return StepResult("blocked", False, summary=decision.detail, thinking=thinking, error=decision.detail, evidence={"intent": intent.to_dict()})

    async def _detect_intent(self, goal: str) -> IntentDecision:
        """`detector: model` asks Gemini when the keywords miss. Without a configured key the guard
        falls back to the heuristic and says so in the decision (seed 000 section 4.2)."""
        if self.plan.intent_guard.get("detector") != "model":
            return await self.guard.detect(goal)
        try:
            settings = self.llm_settings or GeminiSettings.from_env()
        except LlmError:
            return await self.guard.detect(goal)
        gateway = LlmGateway(settings)
        try:
            return await self.guard.detect(goal, GeminiIntentModel(gateway))
        finally:
            await gateway.aclose()

    def _require_model(self) -> None:
        """Agent steps need Gemini: without a usable key the run stops here, before anything runs."""
        agent_states = [s.id for s in self.plan.states if s.kind == "agent"]
        if not agent_states or self.llm_settings is not None:
            return
        try:
            self.llm_settings = GeminiSettings.from_env()
        except LlmError as error:
            raise RunStopped(
                StopReason.INVALID_INPUT,
                f"agent step(s) {', '.join(agent_states)} need a Gemini model: {error.message}",
                evidence={"llm_error": error.code.value, "agent_states": agent_states},
            ) from None

    async def _navigate(self, state: State) -> StepResult:
        url = self.fill_text(state.params["url"]) or ""
        timeout = state.timeout_ms or self.plan.limits.step_timeout_ms
        observation = await self.open_and_prepare(state.id, url, timeout)
        return self._observed(state, observation, thinking=f"open {url} and prepare the page")

    async def _observe(self, state: State) -> StepResult:
        timeout = state.timeout_ms or self.plan.limits.step_timeout_ms
        observation = await self._prepare(state.id, timeout)
        rendered = ""
        if not observation.error_code:
            max_elements = state.params.get("max_elements")
            snap = await self.run_action("observe", "snapshot the page", lambda s, a: s.observe(max_elements=max_elements, action_id=a, timeout_ms=timeout))
            rendered = str(snap.data.get("rendered", ""))[:2000] if snap.ok else ""
        result = self._observed(state, observation, thinking="look at the current page")
        if rendered:
            result.evidence["snapshot"] = rendered
        return result

    def _observed(self, state: State, observation: PageObservation, thinking: str) -> StepResult:
        self.observation = observation
        self.target_check = None
        if observation.error_code:
            summary = f"could not load {observation.url}: {observation.error_code}: {observation.error_message}"
            return StepResult("error", False, summary=summary, thinking=thinking, error=observation.error_code, evidence=observation.evidence())
        summary = f"{observation.url} HTTP {observation.status} {observation.title!r}: {observation.snippet[:120]}"
        return StepResult("ok", True, summary=summary, thinking=thinking, evidence=observation.evidence())

    async def _validate_target(self, state: State) -> StepResult:
        observation = self.observation
        if observation is None:
            observation = PageObservation(state.id, "", None, "", "", "no_observation", "nothing was observed before validation")
        target = self.plan.target
        keywords = [self.fill_text(k) or "" for k in target.get("validation_keywords", [])]
        check = validate_target(
            observation, expected_status=int(target.get("expected_status", 200)), allowed_domains=list(target.get("allowed_domains", [])), keywords=keywords
        )
        self.target_check = check
        if not check.valid:
            assert check.blocker_kind is not None
            self.blocker = Blocker(observation.state_id, check.blocker_kind, check.reason, check.evidence)
        return StepResult(
            check.outcome,
            check.valid,
            verified=check.valid,
            summary=check.reason,
            blocker_kind=check.blocker_kind,
            thinking="check status, domain, access blocks and keywords of the latest page",
            evidence=check.evidence,
        )

    async def _evaluate(self, state: State) -> StepResult:
        check = self.target_check
        if check is None:
            return StepResult("blocked", False, summary="no validation to evaluate", evaluation="nothing was validated")
        observation = self.observation
        if check.valid:
            evaluation = f"the page is the target ({observation.title!r} at {observation.url}); continue" if observation else "the page is the target"
            return StepResult("valid", True, verified=True, summary=evaluation, evaluation=evaluation, evidence=check.evidence)
        assert check.blocker_kind is not None
        evaluation = _evaluation_sentence(check, observation)
        self.events.emit(GuardrailTripped(guard="data.validate-target", blocker_kind=check.blocker_kind, detail=check.reason, evidence=check.evidence))
        return StepResult("blocked", False, summary=evaluation, blocker_kind=check.blocker_kind, evaluation=evaluation, evidence=check.evidence)

    async def _replan_search(self, state: State) -> StepResult:
        self.replans_used += 1
        attempt = self.replans_used
        self.progress.reset()
        blocker = self.blocker
        summary_text = self._failure_summary(blocker)
        self.last_failure_summary = summary_text
        search_template = self.plan.fallback.get("search_url")
        queries = [self.fill_text(q) or "" for q in self.plan.fallback.get("queries") or []]
        if not search_template:
            self._record_repair(attempt, blocker, summary_text, "", "", "no fallback.search_url: nothing to search")
            self._last_failure = "no fallback.search_url to search with"
            return StepResult("exhausted", False, summary="no fallback.search_url; cannot search", blocker_kind=blocker.kind if blocker else None)
        timeout = state.timeout_ms or self.plan.limits.click_result_timeout_ms
        max_results = int(self.plan.fallback.get("max_results", 5))
        allowed_domains = list(self.plan.target.get("allowed_domains", []))
        while self._query_cursor < len(queries):
            query = queries[self._query_cursor]
            self._query_cursor += 1
            search_url = fill(search_template, {**self.values, "query": quote_plus(query)})
            self.events.emit(Replanned(attempt=attempt, blocker_kind=blocker.kind if blocker else None, failure_summary=summary_text, query=query, url=search_url))
            page = await self.open_and_prepare(state.id, search_url, timeout)
            if page.error_code:
                self._record_repair(attempt, blocker, summary_text, query, search_url, f"search page failed: {page.error_code}")
                continue
            links = await self._result_links(timeout)
            considered = links[:max_results]
            candidates = [u for u in considered if url_allowed(u, allowed_domains) and u not in self.tried_urls]
            skipped = {u: ("not allowed" if not url_allowed(u, allowed_domains) else "tried before") for u in considered if u not in candidates}
            if not candidates:
                self._record_repair(attempt, blocker, summary_text, query, search_url, "no untried result on an allowed domain", skipped=skipped)
                continue
            chosen = candidates[0]
            observation = await self.open_and_prepare(state.id, chosen, timeout)
            self.observation = observation
            self.target_check = None
            self._record_repair(attempt, blocker, summary_text, query, search_url, f"followed {chosen}", chosen=chosen, skipped=skipped)
            summary = f"query {query!r}: followed {chosen}" + (f" (skipped {len(skipped)})" if skipped else "")
            return StepResult(
                "found",
                True,
                summary=summary,
                blocker_kind=blocker.kind if blocker else None,
                thinking=summary_text,
                evidence={"query": query, "search_url": search_url, "followed": chosen, "skipped": skipped},
            )
        self._last_failure = f"searched {len(queries)} quer{'y' if len(queries) == 1 else 'ies'} without an untried allowed-domain result"
        return StepResult(
            "exhausted",
            False,
            summary=self._last_failure,
            blocker_kind=blocker.kind if blocker else BlockerKind.NO_SEARCH_RESULTS,
            thinking=summary_text,
        )

    async def _result_links(self, timeout: int) -> list[str]:
        fields = {"links": {"selector": "a[href]", "attr": "href", "all": True}}
        found = await self.run_action("extract", "read search result links", lambda s, a: s.extract(fields, action_id=a, timeout_ms=timeout))
        if not found.ok:
            return []
        base = str(found.data.get("url", ""))
        links: list[str] = []
        for href in found.data.get("fields", {}).get("links") or []:
            if not href or href.startswith(("#", "javascript:")):
                continue
            absolute = urljoin(base, href)
            if urlsplit(absolute).scheme in ("http", "https") and absolute not in links:
                links.append(absolute)
        return links

    def _failure_summary(self, blocker: Blocker | None) -> str:
        if blocker is None:
            return "replanning without a recorded blocker"
        evidence = blocker.evidence
        guidance = REPLAN_GUIDANCE.get(blocker.kind, "search for another page on an allowed domain")
        snippet = str(evidence.get("snippet", ""))[:160]
        return (
            f"step {blocker.state_id} was blocked ({blocker.kind.value}): {blocker.reason}. "
            f"Observed {evidence.get('url', '')} HTTP {evidence.get('status')} title {evidence.get('title', '')!r}: {snippet!r}. "
            f"Guidance: {guidance}."
        )

    def _record_repair(
        self,
        attempt: int,
        blocker: Blocker | None,
        summary: str,
        query: str,
        search_url: str,
        result: str,
        *,
        chosen: str = "",
        skipped: dict[str, str] | None = None,
    ) -> None:
        self.plan_repairs.append(
            {
                "attempt": attempt,
                "blocker_kind": blocker.kind.value if blocker else None,
                "offending_step": blocker.state_id if blocker else None,
                "failure_summary": summary,
                "query": query,
                "search_url": search_url,
                "followed": chosen,
                "skipped": skipped or {},
                "result": result,
            }
        )
        self.files.write_plan(self.files.plan_data, self.plan_repairs, self.last_failure_summary)

    async def _fingerprint(self, timeout: int) -> str:
        result = await self.run_action("page_fingerprint", "fingerprint the page", lambda s, a: s.fingerprint(action_id=a, timeout_ms=timeout))
        return str(result.data.get("digest", "")) if result.ok else ""

    async def _act(self, state: State) -> StepResult:
        params = self._filled_params(state)
        timeout = state.timeout_ms or self.plan.limits.step_timeout_ms
        # Observe: a fresh snapshot binds refs to this tab and moment; the fingerprint is the "before".
        await self.run_action("snapshot", "observe before acting", lambda s, a: s.snapshot(action_id=a, timeout_ms=timeout))
        before = await self._fingerprint(timeout)
        action_name = next(k for k in ("click", "type", "select", "press", "scroll") if k in params)
        target = params.get(action_name) if action_name in ("click", "type", "select") else None
        tool = state.tool or f"browser_{action_name}"
        acted = await self.run_action("act", f"{action_name} {json.dumps(target or params.get(action_name), ensure_ascii=False)}", self._act_call(action_name, params, timeout))
        after = await self._fingerprint(timeout) if acted.ok else before
        signature_target = json.dumps({"action": action_name, "target": target, "value": params.get("text") or params.get("value") or params.get("press")}, sort_keys=True)
        verdict = self.progress.record(action_signature(tool, signature_target, before, after))
        if not acted.ok:
            assert acted.error is not None
            self.unverified[state.id] = acted.error.code.value
            if verdict is not None:
                raise RunStopped(StopReason.NO_PROGRESS, verdict.detail, evidence={"signatures": list(verdict.signatures)})
            return StepResult(
                "error", False, summary=f"{action_name} failed: {acted.error.code.value}: {acted.error.message}", error=acted.error.code.value,
                thinking=f"{action_name} on {target}", evidence={"error": acted.error.to_dict()},
            )
        checks = await self._verify_expectation(params.get("expect"), before, timeout)
        passed = all(c["passed"] for c in checks)
        if verdict is not None:
            raise RunStopped(StopReason.NO_PROGRESS, verdict.detail, evidence={"signatures": list(verdict.signatures), "checks": checks})
        described = "; ".join(f"{c['check']}: {'ok' if c['passed'] else 'FAILED'} ({c['message']})" for c in checks)
        if passed:
            self.unverified.pop(state.id, None)
            return StepResult("verified", True, verified=True, summary=f"{action_name} done and verified: {described}", thinking=f"{action_name} on {target}", evidence={"checks": checks})
        self.unverified[state.id] = "unverified"
        return StepResult(
            "unverified", False, summary=f"{action_name} done but not verified: {described}", thinking=f"{action_name} on {target}", evidence={"checks": checks}
        )

    def _act_call(self, action_name: str, params: dict[str, Any], timeout: int) -> Callable[[BrowserSession, str], Awaitable[ActionResult]]:
        target = params.get(action_name)
        if action_name == "click":
            return lambda s, a: s.click(target, action_id=a, timeout_ms=timeout)
        if action_name == "type":
            return lambda s, a: s.type_text(target, params["text"], submit=bool(params.get("submit")), action_id=a, timeout_ms=timeout)
        if action_name == "select":
            return lambda s, a: self._select(s, a, target, params["value"], timeout)
        if action_name == "press":
            return lambda s, a: s.press(params["press"], action_id=a, timeout_ms=timeout)
        direction, amount = scroll_motion(params["scroll"])
        return lambda s, a: s.scroll(direction=direction, amount=amount, action_id=a, timeout_ms=timeout)

    @staticmethod
    async def _select(session: BrowserSession, action_id: str, target: Any, value: str, timeout: int) -> ActionResult:
        # The recipe's `value` is an option value or its visible label; try the value first.
        result = await session.select(target, value=value, action_id=action_id, timeout_ms=timeout)
        if result.ok or result.error_code is not ActionErrorCode.NOT_FOUND or "options" not in (result.error.details if result.error else {}):
            return result
        return await session.select(target, label=value, action_id=action_id + ":label", timeout_ms=timeout)

    async def _verify_expectation(self, expect: dict[str, Any] | None, before: str, timeout: int) -> list[dict[str, Any]]:
        """Seed 004's Verify: the step's expectations, or by default that the page changed.

        Effects of an act may land a little later (navigation, rendering), so checks are polled
        until they pass or guards.timeouts.verify_ms runs out.
        """
        expect = dict(expect or {})
        deadline = time.monotonic() + self.plan.limits.verify_timeout_ms / 1000
        session = await self.browser()
        action_id = self.new_action_id("verify")
        self.events.emit(ToolUsed(tool="verify", action_id=action_id, phase="start", summary=f"verify {sorted(expect) or ['page_changed']}"))
        polls = 0
        while True:
            polls += 1
            checks = await self._expectation_checks(session, expect, before, timeout, f"{action_id}:{polls}")
            if all(c["passed"] for c in checks) or time.monotonic() >= deadline:
                break
            await asyncio.sleep(VERIFY_POLL_SECONDS)
        passed = all(c["passed"] for c in checks)
        self.events.emit(
            ToolUsed(tool="verify", action_id=action_id, phase="success", summary=f"{'passed' if passed else 'failed'} after {polls} check(s)")
        )
        if session.browser.crashed:
            raise RunStopped(StopReason.BROWSER_CRASHED, "the browser died while verifying")
        return checks

    async def _expectation_checks(self, session: BrowserSession, expect: dict[str, Any], before: str, timeout: int, action_id: str) -> list[dict[str, Any]]:
        checks: list[dict[str, Any]] = []
        n = itertools.count(1)

        async def driver_check(name: str, **params: Any) -> None:
            result = await session.verify(name, action_id=f"{action_id}:{next(n)}", timeout_ms=timeout, **params)
            if result.ok:
                checks.append({"check": name, "passed": bool(result.data.get("passed")), "expected": result.data.get("expected"), "observed": result.data.get("observed"), "message": result.data.get("message", "")})
            else:
                assert result.error is not None
                checks.append({"check": name, "passed": False, "expected": params, "observed": None, "message": f"{result.error.code.value}: {result.error.message}"})

        if expect.get("url_includes") is not None:
            await driver_check("url_matches", value=self.fill_text(expect["url_includes"]))
        if expect.get("url_matches") is not None:
            await driver_check("url_matches", value=expect["url_matches"], regex=True)
        if expect.get("text_includes") is not None:
            await driver_check("text_present", value=self.fill_text(expect["text_includes"]))
        if expect.get("element") is not None:
            await self._element_check(driver_check, expect["element"])
        wants_change = expect.get("page_changed")
        if wants_change is None:
            wants_change = not any(expect.get(k) is not None for k in ("url_includes", "url_matches", "text_includes", "element"))
        if wants_change:
            result = await session.fingerprint(action_id=f"{action_id}:{next(n)}", timeout_ms=timeout)
            after = str(result.data.get("digest", "")) if result.ok else ""
            changed = bool(after) and after != before
            checks.append({"check": "page_changed", "passed": changed, "expected": "a different page fingerprint", "observed": after[:16], "message": "the page changed" if changed else "the page did not change"})
        return checks

    async def _element_check(self, driver_check: Callable[..., Awaitable[None]], element: dict[str, Any]) -> None:
        locator = self.fill_locator({k: v for k, v in element.items() if k in ("role", "name", "text", "css", "xpath", "ref")})
        state = element.get("state", "visible")
        if element.get("value") is not None:
            await driver_check("element_state", target=locator, state="value", expected=self.fill_text(element["value"]))
            return
        mapping = {"present": ("exists", True), "absent": ("exists", False), "visible": ("visible", True), "hidden": ("visible", False), "enabled": ("enabled", True), "checked": ("checked", True)}
        driver_state, expected = mapping[state]
        await driver_check("element_state", target=locator, state=driver_state, expected=expected)

    async def _wait(self, state: State) -> StepResult:
        params = state.params
        timeout = state.timeout_ms or self.plan.limits.step_timeout_ms
        if params.get("timeout_ms") is not None:
            kind, value = "timeout", int(params["timeout_ms"])
            timeout = max(timeout, value + 1000)
        elif params.get("text") is not None:
            kind, value = "text_includes", self.fill_text(params["text"])
        elif params.get("url") is not None:
            kind, value = "url", self.fill_text(params["url"])
        else:
            kind, value = "load", None
        result = await self.run_action("wait", f"wait for {kind} {value or ''}".strip(), lambda s, a: s.wait(kind, value, action_id=a, timeout_ms=timeout))
        if result.ok:
            return StepResult("ok", True, verified=True, summary=f"{kind} {value or ''} satisfied after {result.data.get('waited_ms')} ms".strip())
        assert result.error is not None
        # The plan routes a wait only by ok/timeout: any failure to see the condition is a timeout.
        return StepResult("timeout", False, summary=f"wait for {kind} {value!r} failed: {result.error.message}", error=result.error.code.value)

    async def _extract(self, state: State) -> StepResult:
        params = state.params
        timeout = state.timeout_ms or self.plan.limits.step_timeout_ms
        blocker_kind = BlockerKind(params.get("blocker_kind", BlockerKind.EXTRACTION_FAILED.value))
        raw: dict[str, str | None] = {}
        field_specs = params.get("fields", {})
        if field_specs:
            requested = {name: self._field_request(spec) for name, spec in field_specs.items()}
            found = await self.run_action("extract", f"extract {', '.join(requested)}", lambda s, a: s.extract(requested, action_id=a, timeout_ms=timeout))
            if not found.ok:
                assert found.error is not None
                return StepResult("error", False, summary=f"extract failed: {found.error.message}", error=found.error.code.value)
            for name, value in (found.data.get("fields") or {}).items():
                raw[name] = None if value is None else str(value)
        readings = {name: read_field(name, raw.get(name), spec.get("type", "string"), spec.get("pattern")) for name, spec in params.get("fields", {}).items()}
        if params.get("readable_text"):
            text = await self.run_action("extract", "extract readable text", lambda s, a: s.extract(readable=True, action_id=a, timeout_ms=timeout))
            self.data["text"] = str(text.data.get("text", "")) if text.ok else None
        missing = {name: r.error for name, r in readings.items() if not r.ok and params["fields"][name].get("required", True)}
        for name, reading in readings.items():
            self.data[name] = reading.value
        evidence = {"fields": {name: {"raw": r.raw, "value": r.value, "error": r.error} for name, r in readings.items()}}
        if self.observation is not None:
            evidence["url"] = self.observation.url
        if missing:
            reason = "; ".join(f"{name}: {why}" for name, why in missing.items())
            self.blocker = Blocker(state.id, blocker_kind, f"required field(s) missing: {reason}", {**(self.observation.evidence() if self.observation else {}), **evidence})
            self.events.emit(GuardrailTripped(guard="extract", blocker_kind=blocker_kind, detail=reason, evidence=evidence))
            return StepResult("blocked", False, summary=f"missing {reason}", blocker_kind=blocker_kind, evidence=evidence)
        shown = ", ".join(f"{name}={r.value!r}" for name, r in readings.items())
        return StepResult("ok", True, verified=True, summary=f"extracted {shown}" if shown else "extracted the readable text", evidence=evidence)

    def _field_request(self, spec: dict[str, Any]) -> dict[str, Any]:
        """A recipe field (any locator, optional attr) as the driver's extract field."""
        locator = self.fill_locator({k: v for k, v in spec.items() if k in ("role", "name", "text", "css", "xpath", "ref")})
        return {"target": locator, **({"attr": spec["attr"]} if spec.get("attr") else {})}

    async def _verify(self, state: State) -> StepResult:
        timeout = state.timeout_ms or self.plan.limits.step_timeout_ms
        session = await self.browser()
        action_id = self.new_action_id("verify")
        self.events.emit(ToolUsed(tool="verify", action_id=action_id, phase="start", summary=f"{len(state.params.get('conditions', []))} condition(s)"))
        results: list[dict[str, Any]] = []
        for i, condition in enumerate(state.params.get("conditions", [])):
            results.append(await self.check_condition(session, condition, timeout, f"{action_id}:{i + 1}"))
        passed = all(r["passed"] for r in results)
        self.events.emit(ToolUsed(tool="verify", action_id=action_id, phase="success", summary=f"{sum(r['passed'] for r in results)}/{len(results)} passed"))
        if session.browser.crashed:
            raise RunStopped(StopReason.BROWSER_CRASHED, "the browser died while verifying")
        described = "; ".join(f"{r['check']} {r['expected']!r}: {'ok' if r['passed'] else 'FAILED'} (observed {str(r['observed'])[:60]!r})" for r in results)
        evidence = {"conditions": results}
        if passed:
            self.unverified.pop(state.id, None)
            return StepResult("passed", True, verified=True, summary=f"all {len(results)} condition(s) passed: {described}", evidence=evidence)
        self.unverified[state.id] = "failed"
        failed = [r for r in results if not r["passed"]]
        self.events.emit(GuardrailTripped(guard="verify", blocker_kind=None, detail=f"{len(failed)} of {len(results)} condition(s) failed", evidence=evidence))
        self._last_failure = "failed: " + "; ".join(f"{r['check']} {r['expected']!r} (observed {str(r['observed'])[:60]!r})" for r in failed)
        return StepResult("failed", False, summary=f"{len(failed)} of {len(results)} condition(s) failed: {described}", evidence=evidence)

    async def check_condition(self, session: BrowserSession, condition: dict[str, Any], timeout: int, action_id: str) -> dict[str, Any]:
        def outcome(check: str, passed: bool, expected: Any, observed: Any) -> dict[str, Any]:
            return {"check": check, "passed": passed, "expected": expected, "observed": observed}

        async def driver(check: str, **params: Any) -> tuple[bool, Any]:
            result = await session.verify(check, action_id=action_id, timeout_ms=timeout, **params)
            if not result.ok:
                return False, f"{result.error_code.value if result.error_code else 'error'}: {result.error.message if result.error else ''}"
            return bool(result.data.get("passed")), result.data.get("observed")

        if "text_includes" in condition:
            expected = self.fill_text(condition["text_includes"])
            passed, observed = await driver("text_present", value=expected)
            return outcome("text_includes", passed, expected, observed)
        if "title_includes" in condition:
            expected = self.fill_text(condition["title_includes"]) or ""
            passed, observed = await driver("title_includes", value=expected)
            return outcome("title_includes", passed, expected, observed)
        if "url_matches" in condition:
            passed, observed = await driver("url_matches", value=condition["url_matches"], regex=True)
            return outcome("url_matches", passed, condition["url_matches"], observed)
        if "element" in condition:
            collected: list[dict[str, Any]] = []

            async def element_driver(name: str, **params: Any) -> None:
                passed, observed = await driver(name, **params)
                collected.append(outcome("element", passed, params.get("target"), observed))

            await self._element_check(element_driver, condition["element"])
            return collected[0]
        if "field_present" in condition:
            name = condition["field_present"]
            value = self.data.get(name)
            return outcome("field_present", value is not None and value != "", name, value)
        matches = condition.get("field_matches") or {}
        failures = {}
        for name, pattern in matches.items():
            value = self.data.get(name)
            if value is None or not re.search(pattern, str(value)):
                failures[name] = value
        return outcome("field_matches", not failures, matches, {n: self.data.get(n) for n in matches})

    async def _agent(self, state: State) -> StepResult:
        self._require_model()
        assert self.llm_settings is not None
        settings = replace(self.llm_settings, model=state.params.get("model") or self.llm_settings.model)
        gateway = LlmGateway(settings)
        try:
            return await AgentLoop(self, state, gateway, self._state_span).run()
        finally:
            await gateway.aclose()

    async def _close(self, state: State) -> StepResult:
        summary = self.fill_text(state.params.get("summary")) or ""
        self.close_summary = summary
        result = await self.run_action("close", summary or "close the session", lambda s, a: s.close(summary, action_id=a))
        if not result.ok:
            assert result.error is not None
            return StepResult("ok", False, summary=f"close failed: {result.error.message}", error=result.error.code.value)
        return StepResult("ok", True, summary=summary or "closed")

    async def _completion(self, state: State) -> StepResult:
        decision = self.guard.completion()
        if decision.allowed:
            return StepResult("ok", True, summary=decision.detail, evidence=self.guard.metadata())
        self.events.emit(GuardrailTripped(guard="intentGuard.completion", blocker_kind=None, detail=decision.detail, evidence=self.guard.metadata()))
        self._last_failure = decision.detail
        return StepResult("unmet", False, summary=decision.detail, error=decision.detail, evidence=self.guard.metadata())

    async def _validate_output(self, state: State) -> StepResult:
        schema = self.plan.output_schema
        validator_cls = jsonschema.validators.validator_for(schema)
        validator = validator_cls(schema, format_checker=validator_cls.FORMAT_CHECKER)
        errors = [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in sorted(validator.iter_errors(self.data), key=lambda e: list(map(str, e.absolute_path)))]
        self.output_valid = not errors
        self.output_errors = errors
        self.files.write_output(self.data, self.output_valid, errors)
        self.events.emit(StructuredOutput(data=dict(self.data), valid=self.output_valid, errors=tuple(errors)))
        if errors:
            self._last_failure = "output invalid: " + "; ".join(errors)
            return StepResult("invalid", False, summary=self._last_failure, evidence={"errors": errors})
        return StepResult("valid", True, verified=True, summary="output matches the schema", evidence={"output": self.data})


def _result_summary(result: ActionResult) -> str:
    data = result.data
    for key in ("summary", "message"):
        if isinstance(data.get(key), str) and data[key]:
            return data[key][:200]
    if "status" in data and "url" in data:
        return f"{data.get('url')} HTTP {data.get('status')}"
    if "url" in data:
        return str(data["url"])
    return ", ".join(f"{k}={v}" for k, v in list(data.items())[:4] if not isinstance(v, (dict, list)))[:200]


def _evaluation_sentence(check: TargetCheck, observation: PageObservation | None) -> str:
    """Seed 001's human-readable evaluation, e.g. "page still 404"."""
    where = observation.url if observation else "the page"
    kind = check.blocker_kind
    if kind is BlockerKind.PAGE_NOT_FOUND:
        return f"page still 404 at {where}; search for a fresh page"
    if kind is BlockerKind.ACCESS_DENIED:
        return f"access denied (HTTP {observation.status if observation else '?'}) at {where}; look elsewhere"
    if kind is BlockerKind.ACCESS_BLOCKED:
        return f"{where} shows a captcha or bot wall; not retrying it"
    if kind is BlockerKind.SERVER_ERROR:
        return f"server error (HTTP {observation.status if observation else '?'}) at {where}"
    if kind is BlockerKind.DOMAIN_NOT_ALLOWED:
        return f"{where} is outside the allowed domains; not using it"
    if kind is BlockerKind.KEYWORDS_MISSING:
        return f"{where} does not mention the target: {check.reason}"
    if kind is BlockerKind.NAVIGATION_FAILED:
        return f"could not load {where}: {check.reason}"
    return check.reason
