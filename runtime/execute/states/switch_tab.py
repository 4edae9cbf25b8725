"""`switch_tab`: make a tab the primary tab, the one later steps act in unless they name another
(seed 004: the primary tab moves only on purpose)."""

from __future__ import annotations

from runtime.execute.context.run_context import RunContext
from runtime.execute.context.run_tabs import TabUnavailable
from runtime.execute.step_outcome import StepResult
from runtime.plan.model import State


async def switch_tab(ctx: RunContext, state: State) -> StepResult:
    word = str(state.params["tab"])
    try:
        tab_id = ctx.browser.tabs.resolve(word)
    except TabUnavailable as unavailable:
        return StepResult("error", False, summary=f"cannot switch to tab {word!r}: {unavailable}", error="tab_unavailable")
    previous = ctx.browser.tabs.primary
    switched = await ctx.browser.run_action(
        "switch_tab", f"make tab {word} ({tab_id}) the primary tab", lambda s, a: s.switch_tab(tab_id, action_id=a, timeout_ms=ctx.timeout_for(state))
    )
    if not switched.ok:
        assert switched.error is not None
        return StepResult("error", False, summary=f"switch to tab {word!r} failed: {switched.error.message}", error=switched.error.code.value)
    url = switched.data.get("url", "")
    evidence = {"tab_id": tab_id, "url": url, "previous_primary_tab_id": previous}
    return StepResult("ok", True, summary=f"tab {word} ({tab_id}, {url}) is the primary tab now, instead of {previous}", evidence=evidence)
