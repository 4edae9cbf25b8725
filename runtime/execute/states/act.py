"""`act`: Observe -> Act -> Verify (seed 004). A fresh snapshot binds refs, the page fingerprint
before and after feeds the no-progress detector, and the act counts only when its expectations
hold (by default: an effect of its own, not any change of the page), polled while it lands."""

from __future__ import annotations

import json
from typing import Any

from runtime.execute.acts.expectations import await_expectations
from runtime.execute.acts.gestures import TARGETED, act_action, default_expect, driver_call, only_types, put_text
from runtime.execute.judges.conditions import expectation_conditions
from runtime.execute.context.run_context import RunContext
from runtime.execute.reads.provenance import current_document
from runtime.execute.context.recovery import Blocker
from runtime.execute.step_outcome import RunStopped, StepResult
from runtime.guard import action_signature
from runtime.outcomes import BlockerKind, StopReason
from runtime.plan.agent_vocabulary import UploadRefused
from runtime.plan.model import State



async def act(ctx: RunContext, state: State) -> StepResult:
    params = ctx.values.params(state)
    timeout = ctx.timeout_for(state)
    # The page acted on must be a validated document (reads/provenance.py), like any page read; an
    # act that reads values at the press reads the page as it is, so a page a script rewrote since
    # validation (into a sign-in wall, say) is judged again first, as before an extract.
    acted_on = await current_document(ctx, state.id, timeout, judge_changes=bool(params.get("read_at_press")))
    if acted_on.blocked is not None:
        return acted_on.blocked
    # Observe: a fresh snapshot binds refs to this tab and moment; the fingerprint is the "before".
    await ctx.browser.run_action("snapshot", "observe before acting", lambda s, a: s.snapshot(action_id=a, timeout_ms=timeout))
    before = await ctx.browser.fingerprint(timeout)
    action_name = act_action(params)
    target = params.get(action_name) if action_name in TARGETED else None
    tool = state.tool or f"browser_{action_name}"
    described_action = json.dumps(target or params.get(action_name), ensure_ascii=False)
    # Unfilled: the condition judge fills a default expectation's locator itself.
    expect = default_expect(action_name, state.params)
    # The page is watched for changes of its own before the gesture only when the act's own effect
    # will be judged (effects.py); an explicit expectation says what to look for instead.
    baseline = None if {"own_effect": True} in expectation_conditions(expect) else 0
    try:
        paths = [str(ctx.uploads.path_of(name)) for name in params.get("files") or []] if action_name == "upload" else None
    except UploadRefused as refused:
        ctx.findings.not_verified(state.id, "upload_refused")
        return StepResult("error", False, summary=f"upload refused: {refused}", error="upload_refused", evidence={"files": params.get("files")})
    # Before the page has it: a page may send what is typed while the act still runs.
    ctx.browser.sent_data.put(put_text(action_name, params))
    with ctx.browser.sent_data.typing(only_types(action_name, params)):
        acted = await ctx.browser.run_action("act", f"{action_name} {described_action}", driver_call(action_name, params, timeout, baseline, paths))
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
    checks = [c.to_dict() for c in await await_expectations(ctx, expect, before, timeout, opened)]
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
    if "uploaded" in acted.data:  # an upload: the file names the input holds
        evidence["uploaded"] = acted.data["uploaded"]
    if "already" in acted.data:  # a check or uncheck: whether the box was in that state already
        evidence["already"] = acted.data["already"]
    # The `verify` switch (seed 004 section 6): an act of a kind named lenient counts once its
    # gesture ran, without an effect of its own; an explicit expectation is still judged.
    lenient = baseline is None and action_name in ctx.switches.lenient_acts and not all(c["passed"] for c in checks)
    if lenient:
        evidence["verify"] = "lenient"
        described = f"{described} (verify lenient for {action_name}: no effect of its own required)"
    if all(c["passed"] for c in checks) or lenient:
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
