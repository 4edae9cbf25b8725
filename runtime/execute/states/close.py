"""`close`: end the browser session with the recipe's summary, which the verdict then opens with
(a conversation's session stays open: its `close` ends the turn, and the run ends it later)."""

from __future__ import annotations

from runtime.execute.context.run_context import RunContext
from runtime.execute.step_outcome import StepResult
from runtime.plan.model import State


async def close(ctx: RunContext, state: State) -> StepResult:
    summary = ctx.values.text(state.params.get("summary")) or ""
    ctx.findings.close_summary = summary
    if ctx.goes_on:
        # A conversation's turn ends here; its session stays open for the next message.
        return StepResult("ok", True, summary=summary or "the turn closed; the session stays open")
    if ctx.storage_state is not None and ctx.browser.current is not None:
        # The session ends here, before the run knows it completed: keep what is to be saved.
        await ctx.storage_state.capture(ctx.browser.current)
    result = await ctx.browser.run_action("close", summary or "close the session", lambda s, a: s.close(summary, action_id=a))
    if not result.ok:
        assert result.error is not None
        return StepResult("ok", False, summary=f"close failed: {result.error.message}", error=result.error.code.value)
    return StepResult("ok", True, summary=summary or "closed")
