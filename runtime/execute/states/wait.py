"""`wait`: until the page loaded, a text shows (or is gone), the URL contains a value, an element
matching a CSS selector is visible (or hidden, attached, detached), any condition holds, or some
time passed (acts/waits.py: the one way a wait waits, an agent's browser_wait_for too).
"""

from __future__ import annotations

from runtime.execute.acts.waits import wait_for
from runtime.execute.context.run_context import RunContext
from runtime.execute.step_outcome import StepResult
from runtime.plan.model import State


async def wait(ctx: RunContext, state: State) -> StepResult:
    return await wait_for(ctx, state.params, ctx.timeout_for(state))
