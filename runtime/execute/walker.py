"""Walking a compiled Plan for real: take the current state, run its handler (states/), record the
execution, follow the transition its outcome names. All effects (browser, clock, files) happen
in the handlers, and every one is recorded as an event.

Each state acts in its step's tab (context/run_tabs.py): the walker enters that tab before the
state starts and goes back to the primary tab after it; a tab the run cannot act in (never
opened, or closed) fails the state.

A state can also stop the run outright (a guard trips, the browser dies, a person denies an
approval): it raises `RunStopped`, which ends the walk. A terminal state ends it with its stop
reason, checked against what the run found (an unverified step or an invalid output is not done).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from runtime.execute.context.recovery import FailedStep
from runtime.execute.context.run_context import RunContext
from runtime.execute.reads.refused_data import fail_for_refused_data
from runtime.execute.states import HANDLERS
from runtime.execute.step_outcome import RunStopped, StepResult
from runtime.outcomes import BlockerKind, StopReason
from runtime.plan.model import State
from runtime.plan.state_kinds import AGENT, NO_PROGRESS_OUTCOME, PLAN_CHECK_TOOLS, RECOVERABLE_KINDS, REPAIR, STEP_ENTRY_KINDS, TERMINAL
from runtime.template.expressions import ExpressionError


# Failed outcomes the verdict names with the step's own summary when its handler noted nothing
# (a blocked page has its blocker, which the verdict names instead).
NAMED_FAILURES = frozenset({"error", "unverified", "timeout", "failed", "exhausted"})
# What a failed terminal says before the details of the blocker or failure that led there.
TERMINAL_DETAIL: dict[StopReason, str] = {
    StopReason.REPLANS_EXHAUSTED: "no replan reached a valid target",
    StopReason.VERIFICATION_FAILED: "a verification failed",
    StopReason.OUTPUT_INVALID: "the output does not match the recipe's schema",
    StopReason.INTENT_EXECUTION_FAILED: "the browser intent was not carried out",
    StopReason.EXECUTE_ERROR: "a step failed",
    StopReason.TIMEOUT: "a wait timed out",
}


@dataclass(frozen=True)
class RunEnd:
    """How the walk ended; the run turns it into the FinalVerdict."""

    stop_reason: StopReason
    summary: str
    blocker_kind: BlockerKind | None = None
    evidence: dict[str, Any] = field(default_factory=dict)


class PlanWalk:
    """One run of one plan: `await PlanWalk(RunContext.create(...)).walk()`; the context then
    holds what the run found."""

    def __init__(self, context: RunContext) -> None:
        self.context = context
        self.plan = context.plan

    async def walk(self) -> RunEnd:
        ctx = self.context
        ctx.files.write_plan(self.plan.to_data(), ctx.recovery.plan_repairs, ctx.recovery.last_failure_summary)
        state_id = self.plan.initial
        while True:
            state = self.plan.state(state_id)
            if state.kind == TERMINAL:
                return self._terminal_end(state)
            ctx.budget.ensure_left(f"next was {state.id}", ctx.recovery.blocker_kind)
            ctx.budget.executed += 1
            result, next_id = await self._execute(ctx.loops.iteration_view(state))
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
        findings, blocker = self.context.findings, self.context.recovery.blocker
        if reason is StopReason.COMPLETED:
            if findings.unverified:
                failed = ", ".join(f"{k} ({v})" for k, v in findings.unverified.items())
                return RunEnd(StopReason.VERIFICATION_FAILED, f"the plan finished but these steps did not verify: {failed}")
            if findings.output_valid is not True:
                return RunEnd(StopReason.OUTPUT_INVALID, "the plan finished without a valid output")
            summary = findings.close_summary or "the run completed"
            output = json.dumps(findings.data, ensure_ascii=False, default=str)
            return RunEnd(StopReason.COMPLETED, f"{summary}: {output}", None, {"output": findings.data, "provenance": findings.provenance})
        detail = TERMINAL_DETAIL.get(reason, reason.value)
        if blocker is not None and reason in (StopReason.REPLANS_EXHAUSTED, StopReason.EXECUTE_ERROR):
            detail = f"{detail}; last blocker {blocker.kind.value} at {blocker.state_id}: {blocker.reason}"
        evidence = dict(blocker.evidence) if blocker is not None else dict(findings.failure_evidence)
        if findings.failure:
            detail = f"{detail}; {findings.failure}"
        return RunEnd(reason, detail, blocker.kind if blocker else None, evidence)

    async def _execute(self, state: State) -> tuple[StepResult, str | None]:
        """Run one state in its tab; the next state id, None when unrouted."""
        tabs = self.context.browser.tabs
        newest = tabs.newest
        unavailable = tabs.enter(state)
        try:
            executed = await self._execute_in_tab(state, unavailable)
        finally:
            tabs.leave()
        if not self.context.switches.sticky_tab:
            await self.context.browser.follow_new_tab(newest)
        return executed

    async def _execute_in_tab(self, state: State, unavailable: str) -> tuple[StepResult, str | None]:
        """Run one state's handler inside its record (or fail it: `unavailable` says why its tab
        cannot be acted in); the next state id, None when unrouted."""
        ctx = self.context
        ctx.recorder.start(ctx.budget.executed, state, tab_id=ctx.browser.tabs.acting_id)
        stop: RunStopped | None = None
        failure_before = ctx.findings.failure
        try:
            result = await self._run_handler(state) if not unavailable else self._tab_unavailable(state, unavailable)
            if not result.ok and await ctx.browser.gone():
                raise RunStopped(StopReason.BROWSER_CRASHED, f"the browser died or disconnected: {result.summary}", evidence={"step_result": result.outcome})
        except RunStopped as stopped:
            if stopped.reason is StopReason.NO_PROGRESS and state.next_for(NO_PROGRESS_OUTCOME) is not None and not await ctx.browser.gone():
                # The step's repair waits for it: no_progress is this step's outcome, not the run's end.
                result = StepResult(NO_PROGRESS_OUTCOME, False, summary=stopped.detail, error=stopped.reason.value, evidence=stopped.evidence)
                ctx.findings.note_failure(f"{state.kind} {state.id}: {stopped.detail}", stopped.evidence)
            else:
                stop = await self._crash_named(state, stopped)
                result = StepResult(
                    outcome="stopped", ok=False, summary=stopped.detail, blocker_kind=stopped.blocker_kind, error=stopped.reason.value, evidence=stopped.evidence
                )
        except ExpressionError as failed:
            # A `{= expression}` that cannot be computed with the values the run has (a division
            # by zero, a text where a number is needed): the step fails like any step, and says so.
            result = StepResult(outcome="error", ok=False, summary=f"an expression failed: {failed}", error="expression_failed")
        except asyncio.CancelledError:
            cancelled = StepResult(outcome="cancelled", ok=False, summary="the run was stopped during this step")
            ctx.recorder.finish(state, cancelled, memory=ctx.memory(), next_goal="")
            raise
        next_id = None if stop else state.next_for(result.outcome, ctx.recovery.transition_guards())
        failed_before = ctx.recovery.failed_step
        if not result.ok and stop is None:
            ctx.recovery.failed_step = FailedStep(state.id, state.kind, result.outcome, result.summary, result.blocker_kind, result.evidence)
        if not result.ok and next_id is not None and self._leads_on(state, next_id):
            why = result.error or result.outcome
            ctx.findings.recover(state.id, why)
            if state.kind == REPAIR and failed_before is not None:
                ctx.findings.recover(failed_before.state_id, why)  # the step it failed to repair is recovered with it
            ctx.recovery.blocker = None
            if ctx.recorder.record is not None:
                ctx.recorder.record.recovered = {"reason": why, "next": next_id}
            result.summary = f"{result.summary} (recovered: on_failure goes on to {next_id})"
        elif not result.ok and stop is None and result.outcome in NAMED_FAILURES and ctx.findings.failure == failure_before:
            # A failed step whose handler did not say why in its own words: the verdict names it
            # with its result, so nobody has to open executions.json to learn why the run failed.
            ctx.findings.note_failure(f"{state.kind} {state.id}: {result.summary}", result.evidence)
        ctx.recorder.finish(state, result, memory=ctx.memory(), next_goal=self._next_goal(next_id), stop_reason=stop.reason if stop else None)
        if stop is not None:
            raise stop
        return result, next_id

    async def _crash_named(self, state: State, stopped: RunStopped) -> RunStopped:
        """A step stopped by a crash names the step; a step stopped for another reason while the
        browser is gone (a wait's deadline, a budget) stopped because of the crash, and says so."""
        if stopped.reason is not StopReason.BROWSER_CRASHED:
            if stopped.reason in (StopReason.APPROVAL_DENIED, StopReason.TOOL_POLICY_BLOCKED) or not await self.context.browser.gone():
                return stopped
            detail = f"the browser died or disconnected: {stopped.detail}"
        else:
            detail = stopped.detail
        where = f"{state.kind} {state.id}"
        return RunStopped(
            StopReason.BROWSER_CRASHED, f"{where}: {detail}", evidence={**stopped.evidence, "state": state.id, "kind": state.kind}
        )

    @staticmethod
    def _tab_unavailable(state: State, why: str) -> StepResult:
        """The state's tab cannot be acted in: the step fails (its on_failure may lead on); a
        state that cannot fail that way (a target check) stops the run."""
        if any(transition.on == "error" for transition in state.transitions):
            return StepResult("error", False, summary=why, error="tab_unavailable")
        raise RunStopped(StopReason.EXECUTE_ERROR, why, evidence={"state": state.id, "tab": state.tab})

    async def _run_handler(self, state: State) -> StepResult:
        """The state's tool passes tools.allow, the intent guard and any approval first; its
        result settles the guard."""
        ctx = self.context
        # An agent state's own tool (agent.act) is bookkeeping: each call its model makes is
        # authorized and settled on its own, so tools.allow need not list agent.act.
        uses_tool = state.tool is not None and state.tool not in PLAN_CHECK_TOOLS
        checked = uses_tool and state.kind != AGENT
        if checked:
            assert state.tool is not None
            ctx.tools.authorize(state.tool, state.id)
        if uses_tool and state.needs_approval:
            await ctx.tools.approve_state(state, ctx.values.params(state))
        # A step whose run data the fence refused did not succeed, whatever its handler judged.
        result = fail_for_refused_data(ctx, state, await HANDLERS[state.kind](ctx, state))
        if checked:
            assert state.tool is not None
            ctx.guard.on_settled(state.tool, result.ok)
        return result

    def _leads_on(self, state: State, next_id: str) -> bool:
        """Did a failed state's own on_failure take the run to another recipe step? (A blocked
        observation's replan, or a terminal, is not a recovery.) The steps, an observation's
        evaluation and its replan may recover; a step is entered by its own state or its `when`."""
        return state.kind in RECOVERABLE_KINDS and self.plan.state(next_id).kind in STEP_ENTRY_KINDS

    def _next_goal(self, next_id: str | None) -> str:
        if next_id is None:
            return ""
        next_state = self.plan.state(next_id)
        return f"{next_state.kind} {next_id}" if next_state.kind != TERMINAL else f"end the run ({next_id})"
