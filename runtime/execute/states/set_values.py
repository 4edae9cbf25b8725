"""`set`: give variables values (`{vars.<name>}`), each filled from the run's values with its
type kept when one placeholder is the whole string."""

from __future__ import annotations

from runtime.execute.context.run_context import RunContext
from runtime.execute.step_outcome import StepResult
from runtime.plan.model import State


async def set_values(ctx: RunContext, state: State) -> StepResult:
    assigned = {}
    try:
        for name, template in state.params.get("values", {}).items():
            assigned[name] = ctx.values.value(template)
    except KeyError as missing:
        # Only a value an agent step's model did not extract can be missing here.
        return StepResult("error", False, summary=f"set: no value {missing} yet", error="missing_value")
    for name, value in assigned.items():
        ctx.values.store.set_var(name, value, {"state": state.id})
    shown = ", ".join(f"{name}={value!r}"[:120] for name, value in assigned.items())
    return StepResult("ok", True, verified=True, summary=f"set {shown}", evidence={"values": assigned})
