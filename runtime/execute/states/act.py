"""`act`: Observe -> Act -> Verify (seed 004). A fresh snapshot binds refs, the page fingerprint
before and after feeds the no-progress detector, and the act counts only when its expectations
hold (by default: an effect of its own, not any change of the page), polled while it lands."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import replace
from typing import Any

from runtime.browser import ActionErrorCode, ActionResult, BrowserSession
from runtime.events import ToolUsed
from runtime.execute.agent.offered_tools import scroll_motion
from runtime.execute.context.browser_access import DriverCall
from runtime.execute.judges.conditions import ConditionCheck, check_all, expectation_conditions
from runtime.execute.context.run_context import RunContext
from runtime.execute.reads.provenance import current_document
from runtime.execute.context.recovery import Blocker
from runtime.execute.step_outcome import RunStopped, StepResult
from runtime.guard import action_signature
from runtime.outcomes import BlockerKind, StopReason
from runtime.plan.model import State

ACTIONS = ("click", "hover", "type", "select", "press", "scroll", "drag", "select_text")
VERIFY_POLL_SECONDS = 0.1


async def act(ctx: RunContext, state: State) -> StepResult:
    params = ctx.values.params(state)
    timeout = ctx.timeout_for(state)
    # The page acted on must be a validated document (reads/provenance.py), like any page read.
    acted_on = await current_document(ctx, state.id, timeout, judge_changes=False)
    if acted_on.blocked is not None:
        return acted_on.blocked
    # Observe: a fresh snapshot binds refs to this tab and moment; the fingerprint is the "before".
    await ctx.browser.run_action("snapshot", "observe before acting", lambda s, a: s.snapshot(action_id=a, timeout_ms=timeout))
    before = await ctx.browser.fingerprint(timeout)
    action_name = next(k for k in ACTIONS if k in params)
    target = params.get(action_name) if action_name in ("click", "hover", "type", "select", "drag", "select_text") else None
    tool = state.tool or f"browser_{action_name}"
    described_action = json.dumps(target or params.get(action_name), ensure_ascii=False)
    # The page is watched for changes of its own before the gesture only when the act's own effect
    # will be judged (effects.py); an explicit expectation says what to look for instead.
    baseline = None if {"own_effect": True} in expectation_conditions(params.get("expect")) else 0
    acted = await ctx.browser.run_action("act", f"{action_name} {described_action}", driver_call(action_name, params, timeout, baseline))
    after = await ctx.browser.fingerprint(timeout) if acted.ok else before
    signature_target = json.dumps(
        {"action": action_name, "target": target, "value": params.get("text") or params.get("value") or params.get("press") or params.get("to")}, sort_keys=True
    )
    verdict = ctx.progress.record(action_signature(tool, signature_target, before, after))
    thinking = f"{action_name} on {target}"
    if not acted.ok:
        assert acted.error is not None
        ctx.findings.not_verified(state.id, acted.error.code.value)
        if verdict is not None:
            raise RunStopped(StopReason.NO_PROGRESS, verdict.detail, evidence={"signatures": list(verdict.signatures)})
        evidence = {"error": acted.error.to_dict(), "provenance": acted_on.provenance}
        summary = f"{action_name} failed: {acted.error.code.value}: {acted.error.message}"
        refused_kind = acted.error.details.get("blocker_kind")
        if refused_kind:
            # The network policy refused where the click would go: the path is blocked, as a refused
            # navigation is, and takes the blocker route (replan, or replans_exhausted with this kind).
            kind = BlockerKind(refused_kind)
            ctx.recovery.blocker = Blocker(state.id, kind, acted.error.message, dict(acted.error.details))
            return StepResult("blocked", False, summary=summary, blocker_kind=kind, error=acted.error.code.value, thinking=thinking, evidence=evidence)
        return StepResult("error", False, summary=summary, error=acted.error.code.value, thinking=thinking, evidence=evidence)
    if params.get("read_at_press"):
        # What the page showed the instant the gesture reached it: values of this step.
        read_at_press = dict(acted.data.get("read_at_press") or {})
        ctx.values.record_step(state, {name: read_at_press.get(name) for name in params["read_at_press"]}, {"read": "at the press"})
    opened = tuple(f"opened tab {t.get('tab_id')} ({t.get('url')})" for t in acted.data.get("opened_tabs") or [])
    checks = [c.to_dict() for c in await await_expectations(ctx, params.get("expect"), before, timeout, opened)]
    if verdict is not None:
        raise RunStopped(StopReason.NO_PROGRESS, verdict.detail, evidence={"signatures": list(verdict.signatures), "checks": checks})
    described = "; ".join(f"{c['check']}: {'ok' if c['passed'] else 'FAILED'} ({c['message']})" for c in checks)
    evidence: dict[str, Any] = {"checks": checks, "target": acted.data.get("target"), "provenance": acted_on.provenance}
    if "chosen" in acted.data:  # a select: the options chosen once it acted, in the page's order
        evidence["chosen"] = acted.data["chosen"]
    if "read_at_press" in acted.data:
        evidence["read_at_press"], evidence["read_at_event"] = acted.data["read_at_press"], acted.data["read_at_event"]
    if "selected_text" in acted.data:  # a select_text: the text it meant to select, as the page shows it
        evidence["selected_text"] = acted.data["selected_text"]
    if acted.data.get("dragged"):  # a drag: where the pointer went down and came up, in how many moves
        evidence["dragged"] = {key: acted.data[key] for key in ("from", "to", "moves", "destination")}
    if all(c["passed"] for c in checks):
        # The act's effect may be a new document: it is validated before the run goes on with it.
        landed = await current_document(ctx, state.id, timeout, judge_changes=False)
        if landed.blocked is not None:
            ctx.findings.not_verified(state.id, "blocked")
            landed.blocked.evidence.update(checks=checks)
            return landed.blocked
        ctx.findings.verified(state.id)
        evidence["landed_on"] = landed.provenance
        return StepResult("verified", True, verified=True, summary=f"{action_name} done and verified: {described}", thinking=thinking, evidence=evidence)
    ctx.findings.not_verified(state.id, "unverified")
    # The verdict names the check that failed and why, not only that a verification failed.
    failed = "; ".join(f"expect {c['check']}: {c['message'] or c['observed']}" for c in checks if not c["passed"])
    ctx.findings.note_failure(f"act {state.id}: {failed}", {"checks": checks})
    return StepResult("unverified", False, summary=f"{action_name} done but not verified: {described}", thinking=thinking, evidence=evidence)


def driver_call(action_name: str, params: dict[str, Any], timeout: int, baseline: int | None = None) -> DriverCall:
    target = params.get(action_name)
    read = params.get("read_at_press") or None
    if action_name == "click":
        return lambda s, a: s.click(target, action_id=a, timeout_ms=timeout, effect_baseline_ms=baseline, read_at_press=read)
    if action_name == "hover":
        return lambda s, a: s.hover(target, action_id=a, timeout_ms=timeout, effect_baseline_ms=baseline)
    if action_name == "type":
        keys, delay = bool(params.get("keys")), int(params.get("key_delay_ms") or 0)
        return lambda s, a: s.type_text(
            target, params["text"], submit=bool(params.get("submit")), keys=keys, key_delay_ms=delay,
            action_id=a, timeout_ms=timeout, effect_baseline_ms=baseline,
        )  # fmt: skip
    if action_name == "select":
        mode = "add" if params.get("add") else "remove" if params.get("remove") else "replace"
        return lambda s, a: select_by_value_or_label(s, a, target, params["value"], timeout, baseline, mode=mode)
    if action_name == "select_text":
        return lambda s, a: s.select_text(target, params.get("text") or "", action_id=a, timeout_ms=timeout, effect_baseline_ms=baseline)
    if action_name == "drag":
        return lambda s, a: s.drag(target, params["to"], action_id=a, timeout_ms=timeout, effect_baseline_ms=baseline, read_at_press=read)
    if action_name == "press":
        return lambda s, a: s.press(params["press"], action_id=a, timeout_ms=timeout, effect_baseline_ms=baseline, read_at_press=read)
    direction, amount = scroll_motion(params["scroll"])
    return lambda s, a: s.scroll(direction=direction, amount=amount, action_id=a, timeout_ms=timeout, effect_baseline_ms=baseline)


async def select_by_value_or_label(
    session: BrowserSession, action_id: str, target: Any, value: str, timeout: int, baseline: int | None = None, *, mode: str = "replace"
) -> ActionResult:
    # The recipe's `value` is an option value or its visible label; try the value first.
    result = await session.select(target, value=value, mode=mode, action_id=action_id, timeout_ms=timeout, effect_baseline_ms=baseline)
    if result.ok or result.error_code is not ActionErrorCode.NOT_FOUND or "options" not in (result.error.details if result.error else {}):
        return result
    return await session.select(target, label=value, mode=mode, action_id=action_id + ":label", timeout_ms=timeout, effect_baseline_ms=baseline)


async def await_expectations(
    ctx: RunContext, expect: dict[str, Any] | None, before: str, timeout: int, act_effects: tuple[str, ...] = ()
) -> list[ConditionCheck]:
    """Seed 004's Verify: the step's expectations, or by default an effect of the act's own.

    Effects of an act may land a little later (navigation, rendering), so the checks are polled
    until they all pass or guards.timeouts.verify_ms runs out.
    """
    conditions = expectation_conditions(expect)
    deadline = time.monotonic() + ctx.plan.limits.verify_timeout_ms / 1000
    probe = replace(await ctx.probe(timeout, before), act_effects=act_effects)
    action_id = ctx.browser.new_action_id("verify")
    ctx.events.emit(ToolUsed(tool="verify", action_id=action_id, phase="start", summary=f"verify {sorted(expect or {}) or ['own_effect']}"))
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
    ctx.events.emit(ToolUsed(tool="verify", action_id=action_id, phase="success", summary=f"{'passed' if passed else 'failed'} after {polls} check(s)"))
    ctx.browser.stop_if_crashed("the browser died while verifying")
    return checks
