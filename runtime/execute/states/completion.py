"""`intent.completion`: did the run do what its intent promised (seed 000 section 4)? A browser
intent that never got a successful browser call is unmet."""

from __future__ import annotations

from runtime.events import GuardrailTripped
from runtime.execute.context.run_context import RunContext
from runtime.execute.step_outcome import StepResult
from runtime.plan.model import State


async def completion(ctx: RunContext, state: State) -> StepResult:
    decision = ctx.guard.completion()
    if decision.allowed:
        return StepResult("ok", True, summary=decision.detail, evidence=ctx.guard.metadata())
    ctx.events.emit(GuardrailTripped(guard="intentGuard.completion", blocker_kind=None, detail=decision.detail, evidence=ctx.guard.metadata()))
    ctx.findings.note_failure(decision.detail)
    return StepResult("unmet", False, summary=decision.detail, error=decision.detail, evidence=ctx.guard.metadata())
