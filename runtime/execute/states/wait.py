"""`wait`: until the page loaded, a text shows, the URL contains a value, an element matching a
CSS selector is visible, or some time passed."""

from __future__ import annotations

from runtime.execute.context import RunContext
from runtime.execute.step_outcome import StepResult
from runtime.plan.model import State

# A fixed-time wait gets this much more than its own length before the driver gives up on it.
TIMED_WAIT_SLACK_MS = 1000


async def wait(ctx: RunContext, state: State) -> StepResult:
    params = state.params
    timeout = ctx.timeout_for(state)
    value: str | int | None
    if params.get("timeout_ms") is not None:
        kind, value = "timeout", int(params["timeout_ms"])
        timeout = max(timeout, value + TIMED_WAIT_SLACK_MS)
    elif params.get("text") is not None:
        kind, value = "text_includes", ctx.values.text(params["text"])
    elif params.get("url") is not None:
        kind, value = "url", ctx.values.text(params["url"])
    elif params.get("selector") is not None:
        kind, value = "selector", ctx.values.text(params["selector"])
    else:
        kind, value = "load", None
    result = await ctx.browser.run_action("wait", f"wait for {kind} {value or ''}".strip(), lambda s, a: s.wait(kind, value, action_id=a, timeout_ms=timeout))
    if result.ok:
        return StepResult("ok", True, verified=True, summary=f"{kind} {value or ''} satisfied after {result.data.get('waited_ms')} ms".strip())
    assert result.error is not None
    # The plan routes a wait only by ok/timeout: any failure to see the condition is a timeout.
    return StepResult("timeout", False, summary=f"wait for {kind} {value!r} failed: {result.error.message}", error=result.error.code.value)
