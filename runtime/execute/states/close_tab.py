"""`close_tab`: close a tab the run opened (or the primary one, which passes to the tab that
opened it); later steps act in the primary tab."""

from __future__ import annotations

from runtime.execute.context.run_context import RunContext
from runtime.execute.context.run_tabs import TabUnavailable
from runtime.execute.step_outcome import StepResult
from runtime.plan.model import State


async def close_tab(ctx: RunContext, state: State) -> StepResult:
    word = str(state.params["tab"])
    try:
        tab_id = ctx.browser.tabs.resolve(word)
    except TabUnavailable as unavailable:
        return StepResult("error", False, summary=f"cannot close tab {word!r}: {unavailable}", error="tab_unavailable")
    closed = await ctx.browser.run_action(
        "close_tab", f"close tab {word} ({tab_id})", lambda s, a: s.close_tab(tab_id, action_id=a, timeout_ms=ctx.timeout_for(state))
    )
    if not closed.ok:
        assert closed.error is not None
        return StepResult("error", False, summary=f"closing tab {word!r} failed: {closed.error.message}", error=closed.error.code.value)
    primary = str(closed.data.get("primary_tab_id", ""))
    evidence = {"tab_id": tab_id, "url": closed.data.get("url", ""), "primary_tab_id": primary}
    return StepResult("ok", True, summary=f"closed tab {word} ({tab_id}); the primary tab is {primary}", evidence=evidence)
