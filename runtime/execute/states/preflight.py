"""`intent.preflight`: detect the goal's intent and check the plan's tools against it before
anything runs (seed 000 section 4); a plan with agent steps also needs its model configured here."""

from __future__ import annotations

from runtime.events import GuardrailTripped
from runtime.execute.context.run_context import RunContext
from runtime.execute.step_outcome import RunStopped, StepResult
from runtime.outcomes import StopReason
from runtime.plan.model import State


async def preflight(ctx: RunContext, state: State) -> StepResult:
    ctx.model.require()
    plan = ctx.plan
    goal = str(ctx.values.get("goal", plan.goal))
    intent = await ctx.model.detect_intent(ctx.guard, goal)
    available = plan.tools.allowed if plan.tools.allowed is not None else sorted(plan.tools.scopes)
    decision = ctx.guard.preflight(list(available))
    thinking = f"intent {intent.label} ({intent.detector}: {intent.reason})"
    evidence = {"intent": intent.to_dict()}
    if decision.allowed:
        return StepResult("ok", True, summary=decision.detail, thinking=thinking, evidence=evidence)
    ctx.events.emit(GuardrailTripped(guard="intentGuard.preflight", blocker_kind=None, detail=decision.detail, evidence=evidence))
    if decision.stop_reason not in (None, StopReason.INTENT_EXECUTION_FAILED):
        raise RunStopped(decision.stop_reason, decision.detail)
    ctx.findings.note_failure(decision.detail)
    return StepResult("blocked", False, summary=decision.detail, thinking=thinking, error=decision.detail, evidence=evidence)
