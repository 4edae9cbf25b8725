"""A page path the network policy refused stops where it is found (issue 8): validation names the
refusal instead of judging the page, and an extract reads nothing from it."""

from __future__ import annotations

from runtime.execute.context.run_context import RunContext
from runtime.execute.context.recovery import Blocker
from runtime.execute.step_outcome import StepResult
from runtime.execute.judges.target_check import TargetCheck


def refused_target_check(ctx: RunContext) -> TargetCheck | None:
    """The blocked target check of a refused path (the refusal's kind and evidence), else None."""
    refusal = ctx.browser.path_refusal()
    if refusal is None:
        return None
    return TargetCheck(False, refusal.kind, refusal.reason, dict(refusal.evidence))


def stop_refused_path(ctx: RunContext, state_id: str) -> StepResult | None:
    """A `blocked` result (the refusal becomes the run's blocker) when the current page path was
    refused; None when it was not."""
    refusal = ctx.browser.path_refusal()
    if refusal is None:
        return None
    ctx.recovery.blocker = Blocker(state_id, refusal.kind, refusal.reason, dict(refusal.evidence))
    return StepResult("blocked", False, summary=refusal.reason, blocker_kind=refusal.kind, evidence=dict(refusal.evidence))
