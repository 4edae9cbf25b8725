"""How a wait waits: until the page loaded, a text shows (or is gone), the URL contains a value, an
element matching a CSS selector is visible (or hidden, attached, detached), any condition holds,
or some time passed.

The driver waits for load, text, URL, a visible selector and time itself. Every other wait is a
condition polled until it holds: the same judge as `when` and `verify` (judges/conditions.py), so a
wait and a check can never disagree on what "hidden" or "gone" means. It is bounded by its
timeout like any wait. The params are a wait step's (`text`, `gone`, `url`, `selector`, `state`,
`timeout_ms`, `until`, `every_ms`, `load`), as the plan holds them: their placeholders are filled
here, as the wait starts (text that must stay as it is comes with its braces doubled).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from runtime.execute.context.run_context import RunContext
from runtime.execute.judges.conditions import check_condition, condition_as_written
from runtime.execute.step_outcome import StepResult

# A fixed-time wait gets this much more than its own length before the driver gives up on it.
TIMED_WAIT_SLACK_MS = 1000
DEFAULT_EVERY_MS = 250
# `state` of a selector wait -> the element condition state that means it.
_SELECTOR_STATES = {"hidden": "hidden", "detached": "absent", "attached": "present"}


async def wait_for(ctx: RunContext, params: dict[str, Any], timeout: int) -> StepResult:
    """Wait for the one condition `params` name; `ok` when it held, `timeout` otherwise."""
    polled = polled_condition(params)
    if polled is not None:
        return await _wait_until(ctx, polled, timeout, int(params.get("every_ms") or DEFAULT_EVERY_MS))
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
    # A wait ends only as ok or timeout: any failure to see the condition is a timeout.
    return StepResult("timeout", False, summary=f"wait for {kind} {value!r} failed: {result.error.message}", error=result.error.code.value)


def polled_condition(params: dict[str, Any]) -> dict[str, Any] | None:
    """The condition a wait polls, or None when the driver waits by itself."""
    if params.get("until") is not None:
        return dict(params["until"])
    if params.get("text") is not None and params.get("gone"):
        return {"not": {"text_includes": params["text"]}}
    if params.get("selector") is not None and params.get("state") in _SELECTOR_STATES:
        return {"element": {"css": params["selector"], "state": _SELECTOR_STATES[params["state"]]}}
    return None


async def _wait_until(ctx: RunContext, condition: dict[str, Any], timeout_ms: int, every_ms: int) -> StepResult:
    written = condition_as_written(condition)
    started = time.monotonic()
    deadline = started + timeout_ms / 1000
    action_id = ctx.browser.new_action_id("wait")
    polls = 0
    while True:
        polls += 1
        # Each judgement gets what is left of the wait's time, so the wait never outlasts it.
        left_ms = max(100, int((deadline - time.monotonic()) * 1000))
        probe = await ctx.probe(min(left_ms, ctx.plan.limits.verify_timeout_ms))
        check = await check_condition(probe, condition, f"{action_id}:{polls}")
        ctx.browser.stop_if_crashed("the browser died while waiting")
        waited = round((time.monotonic() - started) * 1000)
        evidence = {"condition": check.to_dict(), "polls": polls, "waited_ms": waited}
        if check.passed:
            return StepResult("ok", True, verified=True, summary=f"{written} held after {waited} ms ({polls} check(s))", evidence=evidence)
        if time.monotonic() + every_ms / 1000 >= deadline:
            why = check.message or f"observed {str(check.observed)[:80]!r}"
            return StepResult("timeout", False, summary=f"wait until {written} timed out after {waited} ms: {why}", error="timeout", evidence=evidence)
        await asyncio.sleep(every_ms / 1000)
