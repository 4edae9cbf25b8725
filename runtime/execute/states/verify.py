"""`verify`: every condition of the step is judged once (judges/conditions.py); the step passes only
when all hold, and a failed one keeps the run from completing."""

from __future__ import annotations

from runtime.events import GuardrailTripped, ToolUsed
from runtime.execute.judges.conditions import check_all, describe_failures
from runtime.execute.context.run_context import RunContext
from runtime.execute.reads.provenance import READ_ATTEMPTS, current_document, read_from
from runtime.execute.step_outcome import StepResult
from runtime.plan.model import State

OBSERVED_CHARS = 60


async def verify(ctx: RunContext, state: State) -> StepResult:
    conditions = state.params.get("conditions", [])
    timeout = ctx.timeout_for(state)
    for _ in range(READ_ATTEMPTS):
        # Conditions are judged on a validated document only (reads/provenance.py); a document
        # replaced while they were judged is checked and judged again.
        document = await current_document(ctx, state.id, timeout)
        if document.blocked is not None:
            return document.blocked
        probe = await ctx.probe(timeout)
        action_id = ctx.browser.new_action_id("verify")
        ctx.events.emit(ToolUsed(tool="verify", action_id=action_id, phase="start", summary=f"{len(conditions)} condition(s)", tab_id=ctx.browser.tabs.acting_id))
        checks = await check_all(probe, conditions, action_id)
        if all(read_from(document.provenance, c.document) for c in checks):
            break
    passed = [c for c in checks if c.passed]
    ctx.events.emit(ToolUsed(tool="verify", action_id=action_id, phase="success", summary=f"{len(passed)}/{len(checks)} passed", tab_id=ctx.browser.tabs.acting_id))
    ctx.browser.stop_if_crashed("the browser died while verifying")
    described = "; ".join(f"{c.check} {c.expected!r}: {'ok' if c.passed else 'FAILED'} (observed {str(c.observed)[:OBSERVED_CHARS]!r})" for c in checks)
    evidence = {"conditions": [c.to_dict() for c in checks], "provenance": document.provenance}
    if len(passed) == len(checks):
        ctx.findings.verified(state.id)
        return StepResult("passed", True, verified=True, summary=f"all {len(checks)} condition(s) passed: {described}", evidence=evidence)
    ctx.findings.not_verified(state.id, "failed")
    failed = len(checks) - len(passed)
    ctx.events.emit(GuardrailTripped(guard="verify", blocker_kind=None, detail=f"{failed} of {len(checks)} condition(s) failed", evidence=evidence))
    ctx.findings.note_failure("failed: " + describe_failures(checks, OBSERVED_CHARS))
    return StepResult("failed", False, summary=f"{failed} of {len(checks)} condition(s) failed: {described}", evidence=evidence)
