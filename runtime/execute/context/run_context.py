"""What a state handler may touch, handed to it explicitly: one `RunContext` per run.

The walker owns the loop; a handler gets the context and the state, does its work and returns a
`StepResult`. Handlers never see the walker. The context is a few named collaborators, each with
one job:

    values     placeholder values and filling (values/run_values.py), the values the run found (values/value_store.py)
    guard      the intent guard; progress: the no-progress detector
    tools      tools.allow, the intent guard's before_tool and approvals (context/tool_gate.py)
    browser    the session, driver actions, page preparation and artifacts (context/browser_access.py)
    network    the run's network policy: the URL judge, what the policy proxy refused (context/network.py)
    recorder   the running state's execution record and span (record/step_record.py)
    page       the acting tab's latest observation and whether it is the target (context/run_tabs.py)
    recovery   the latest blocker, replans and plan repairs (context/recovery.py)
    findings   extracted data and what the verdict will say
    budget     guards.max_steps: executed states plus agent tool calls
    model      the run's Gemini settings (context/model_access.py)
    loops      the for_each loops in progress (context/loops.py)
    login      how the plan logs in, judged once from the plan (judges/login_intent.py), or None
    storage_state   the recipe's storage-state files and the state to save (record/storage_state.py), or None
    uploads    the files the recipe lets the run upload, by name (plan/order.py)
    switches   the strategies rolled back for this run (plan/switches.py)
    action_cache   the verified action cache as the `cache` switch lets the run use it (context/action_cache.py)
    goes_on    a conversation: the session stays open past a `close` step, for the next turn
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from runtime.events import EventLog
from runtime.execute.context.action_cache import RunActionCache
from runtime.execute.context.action_ids import ActionIds
from runtime.execute.context.approvals import ApprovalDesk
from runtime.execute.context.browser_access import BrowserAccess, SessionOpener
from runtime.execute.judges.conditions import ConditionProbe
from runtime.execute.judges.login_intent import LoginMeans, login_means
from runtime.execute.context.loops import LoopFrames
from runtime.execute.context.model_access import ModelAccess, report_retries
from runtime.execute.context.network import RunNetwork
from runtime.execute.context.recovery import Recovery
from runtime.execute.context.run_tabs import PageState
from runtime.execute.record.run_files import RunFiles
from runtime.execute.record.spans import RunSpans
from runtime.execute.step_outcome import RunStopped
from runtime.execute.record.step_record import StepRecorder
from runtime.execute.context.tool_gate import ToolGate
from runtime.execute.values.run_values import RunValues
from runtime.guard import IntentGuard, NoProgressDetector
from runtime.outcomes import BlockerKind, StopReason
from runtime.plan.model import Plan, State
from runtime.plan.order import UploadFiles
from runtime.plan.switches import RunSwitches
from runtime.secrets import Secrets

if TYPE_CHECKING:
    from runtime.execute.record.storage_state import StorageStateKeeper
    from runtime.llm.providers.model_client import DrivenModel
    from runtime.store.action_cache import ActionCache


@dataclass
class StepBudget:
    """guards.max_steps counts executed states and the tool calls agent steps made."""

    limit: int
    executed: int = 0
    agent_calls: int = 0
    started: float = field(default_factory=time.monotonic)

    def run_ms_left(self, run_timeout_ms: int) -> int:
        """What is left of guards.timeouts.run_ms, in milliseconds."""
        return max(0, int(run_timeout_ms - (time.monotonic() - self.started) * 1000))

    @property
    def used(self) -> int:
        return self.executed + self.agent_calls

    def ensure_left(self, next_up: str, blocker_kind: BlockerKind | None = None) -> None:
        """Stop the run (max_steps_exceeded) when no step is left for `next_up`."""
        if self.used >= self.limit:
            raise RunStopped(
                StopReason.MAX_STEPS_EXCEEDED,
                f"the run used {self.used} steps ({self.executed} states, {self.agent_calls} agent tool call(s)), "
                f"the limit guards.max_steps; {next_up}",
                blocker_kind,
            )


@dataclass
class RunFindings:
    """What the run found out and the verdict is built from."""

    data: dict[str, Any] = field(default_factory=dict)
    output_valid: bool | None = None  # None until output.validate ran
    output_errors: list[str] = field(default_factory=list)
    close_summary: str = ""
    # Act/verify/agent states whose latest execution did not verify: done needs success AND verified.
    unverified: dict[str, str] = field(default_factory=dict)
    # What the verdict says went wrong when no blocker explains it, with its evidence.
    failure: str = ""
    failure_evidence: dict[str, Any] = field(default_factory=dict)

    def note_failure(self, detail: str, evidence: dict[str, Any] | None = None) -> None:
        """The latest failure replaces any earlier one, evidence included."""
        self.failure = detail
        self.failure_evidence = dict(evidence or {})

    # Failed steps whose on_failure path led on, with why they failed: they no longer count.
    recovered: dict[str, str] = field(default_factory=dict)
    # Each extracted value's provenance: the state that read it and the document it came from.
    provenance: dict[str, dict[str, Any]] = field(default_factory=dict)

    def verified(self, state_id: str) -> None:
        self.unverified.pop(state_id, None)

    def recover(self, state_id: str, why: str) -> None:
        """The run went on past this failed step by its on_failure path: only the steps on the
        path that reaches the end must verify, and its failure no longer speaks for the run."""
        self.unverified.pop(state_id, None)
        self.recovered[state_id] = why
        self.failure = ""
        self.failure_evidence = {}

    def not_verified(self, state_id: str, why: str) -> None:
        self.unverified[state_id] = why


@dataclass
class RunContext:
    """What a handler may touch (see the module docstring); built once per run by `create`."""

    plan: Plan
    values: RunValues
    events: EventLog
    spans: RunSpans
    files: RunFiles
    guard: IntentGuard
    progress: NoProgressDetector
    tools: ToolGate
    browser: BrowserAccess
    network: RunNetwork
    recorder: StepRecorder
    model: ModelAccess
    recovery: Recovery
    budget: StepBudget
    findings: RunFindings = field(default_factory=RunFindings)
    loops: LoopFrames = field(default_factory=LoopFrames)
    login: LoginMeans | None = None
    storage_state: StorageStateKeeper | None = None
    uploads: UploadFiles = field(default_factory=UploadFiles)
    switches: RunSwitches = field(default_factory=RunSwitches)
    action_cache: RunActionCache = field(default_factory=lambda: RunActionCache(None))
    # A conversation's context (execute/conversation.py): its session outlives each turn's `close`.
    goes_on: bool = False

    @classmethod
    def create(
        cls,
        plan: Plan,
        values: dict[str, Any],
        *,
        run_id: str,
        events: EventLog,
        files: RunFiles,
        spans: RunSpans,
        approvals: ApprovalDesk,
        open_session: SessionOpener,
        private_network_override: bool | None = None,
        switches: RunSwitches | None = None,
        driven_model: DrivenModel | None = None,
        action_cache: ActionCache | None = None,
    ) -> RunContext:
        guard = IntentGuard.from_plan(plan)
        action_ids = ActionIds(run_id)
        recorder = StepRecorder(events, files, spans)
        run_values = RunValues(values)
        switches = switches or RunSwitches.of(plan.switches)
        return cls(
            plan=plan,
            values=run_values,
            events=events,
            spans=spans,
            files=files,
            guard=guard,
            progress=NoProgressDetector(plan.limits.no_progress_window, enabled=switches.no_progress),
            tools=ToolGate(plan.tools, guard, events, approvals, action_ids),
            browser=BrowserAccess(open_session, events, action_ids, recorder),
            network=RunNetwork.for_run(plan, run_values, events, private_network_override=private_network_override),
            recorder=recorder,
            model=ModelAccess(plan, lambda: spans.chat_telemetry(report_retries(events, action_ids)), events.secrets, driven_model),
            recovery=Recovery(plan.limits.max_replans),
            budget=StepBudget(plan.limits.max_steps),
            login=login_means(plan),
            switches=switches,
            action_cache=RunActionCache(action_cache, switches.cache),
        )

    def verdict_facts(self, evidence: dict[str, Any]) -> dict[str, Any]:
        """What verdict.json records of the run beside the verdict, once its session stopped
        (every request its context sent has been judged); adds to the verdict's `evidence` the
        switches set otherwise and the agent steps whose cached path fell back to their model."""
        self.network.finish()
        facts: dict[str, Any] = {
            "blocked_requests": self.network.summary(),
            "executed_states": self.budget.executed,
            "replans_used": self.recovery.replans_used,
            "intent_guard": self.guard.metadata(),
            "switches": self.switches.record_in(evidence),
        }
        if (cached := self.action_cache.record()) is not None:
            facts["action_cache"] = cached
        if fell_back := self.action_cache.fell_back():
            evidence["action_cache_fallbacks"] = fell_back
        return facts

    @property
    def page(self) -> PageState:
        """The page state of the tab the running state acts in (its own for each tab)."""
        return self.browser.page

    @property
    def secrets(self) -> Secrets:
        """The run's one redaction authority (the event log's): secret inputs, passwords typed."""
        return self.events.secrets

    def timeout_for(self, state: State) -> int:
        """The state's own timeout, else guards.timeouts.step_ms."""
        return state.timeout_ms or self.plan.limits.step_timeout_ms

    async def probe(self, timeout_ms: int, before: str = "") -> ConditionProbe:
        """Where conditions are judged now: this run's page, values and extracted fields."""
        return ConditionProbe(await self.browser.verbs(), self.values, self.findings.data, timeout_ms, before)

    def memory(self) -> str:
        """The run in one line, for each step's agent_state."""
        parts = [f"step {self.budget.used}/{self.plan.limits.max_steps}", f"replans {self.recovery.replans_used}/{self.plan.limits.max_replans}"]
        observation = self.page.observation
        if observation is not None:
            parts.append(f"page {observation.url} (HTTP {observation.status})")
        if self.recovery.blocker is not None:
            parts.append(f"last blocker {self.recovery.blocker.kind.value}")
        if self.findings.data:
            parts.append("fields " + ", ".join(f"{k}={v!r}" for k, v in self.findings.data.items() if k != "text")[:200])
        return "; ".join(parts)
