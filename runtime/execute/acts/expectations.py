"""Seed 004's Verify for an act: its expectations, or by default an effect of its own, polled
while the effects land."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from typing import Any

from runtime.events import ToolUsed
from runtime.execute.context.run_context import RunContext
from runtime.execute.judges.conditions import ConditionCheck, check_all, expectation_conditions
from runtime.execute.step_outcome import RunStopped
from runtime.outcomes import StopReason

VERIFY_POLL_SECONDS = 0.1


async def await_expectations(
    ctx: RunContext, expect: dict[str, Any] | None, before: str, timeout: int, act_effects: tuple[str, ...] = ()
) -> list[ConditionCheck]:
    """The act's expectations, or by default an effect of the act's own.

    Effects of an act may land a little later (navigation, rendering), so the checks are polled
    until they all pass or guards.timeouts.verify_ms runs out.
    """
    conditions = expectation_conditions(expect)
    deadline = time.monotonic() + ctx.plan.limits.verify_timeout_ms / 1000
    probe = replace(await ctx.probe(timeout, before), act_effects=act_effects)
    action_id = ctx.browser.new_action_id("verify")
    tab_id = ctx.browser.tabs.acting_id
    ctx.events.emit(ToolUsed(tool="verify", action_id=action_id, phase="start", summary=f"verify {sorted(expect or {}) or ['own_effect']}", tab_id=tab_id))
    polls = 0
    while True:
        polls += 1
        checks = await check_all(probe, conditions, f"{action_id}:{polls}")
        if all(c.passed for c in checks) or time.monotonic() >= deadline:
            break
        if await ctx.browser.gone():
            # A dead browser shows no effect however long it is polled: stop now, as a crash.
            raise RunStopped(StopReason.BROWSER_CRASHED, "the browser died or disconnected while the act's effect was checked")
        await asyncio.sleep(VERIFY_POLL_SECONDS)
    passed = all(c.passed for c in checks)
    ctx.events.emit(ToolUsed(tool="verify", action_id=action_id, phase="success", summary=f"{'passed' if passed else 'failed'} after {polls} check(s)", tab_id=tab_id))
    ctx.browser.stop_if_crashed("the browser died while verifying")
    return checks
