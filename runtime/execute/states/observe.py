"""`observe`: prepare the page as it is now and snapshot its elements, without acting."""

from __future__ import annotations

from runtime.execute.context.run_context import RunContext
from runtime.execute.states.navigate import observed
from runtime.execute.step_outcome import StepResult
from runtime.plan.model import State

SNAPSHOT_EVIDENCE_CHARS = 2000


async def observe(ctx: RunContext, state: State) -> StepResult:
    timeout = ctx.timeout_for(state)
    observation = await ctx.browser.prepare(state.id, timeout)
    rendered = ""
    if not observation.error_code:
        max_elements = state.params.get("max_elements")
        snap = await ctx.browser.run_action("observe", "snapshot the page", lambda s, a: s.observe(max_elements=max_elements, action_id=a, timeout_ms=timeout))
        rendered = str(snap.data.get("rendered", ""))[:SNAPSHOT_EVIDENCE_CHARS] if snap.ok else ""
    result = observed(ctx, observation, thinking="look at the current page")
    if rendered:
        result.evidence["snapshot"] = rendered
    return result
