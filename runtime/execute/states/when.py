"""`<step>.when`: judge a step's `when` (the verify vocabulary, judges/conditions.py) just before the
step; `holds` runs it, `skipped` goes on without it and the record says why."""

from __future__ import annotations

from runtime.execute.judges.conditions import check_all, describe_failures
from runtime.execute.context.run_context import RunContext
from runtime.execute.step_outcome import StepResult
from runtime.plan.model import State

OBSERVED_CHARS = 60


async def when(ctx: RunContext, state: State) -> StepResult:
    conditions = state.params.get("conditions", [])
    guarded = state.params.get("guards", "")
    probe = await ctx.probe(ctx.plan.limits.verify_timeout_ms)
    checks = await check_all(probe, conditions, ctx.browser.new_action_id("when"))
    ctx.browser.stop_if_crashed("the browser died while judging a `when`")
    evidence = {"conditions": [c.to_dict() for c in checks], "step": guarded}
    if all(c.passed for c in checks):
        return StepResult("holds", True, verified=True, summary=f"when holds: {guarded} runs", evidence=evidence)
    why = describe_failures(checks, OBSERVED_CHARS)
    evidence["skipped_because"] = why
    return StepResult("skipped", True, verified=True, summary=f"{guarded} skipped: its when does not hold ({why})", evidence=evidence)
