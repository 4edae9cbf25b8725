"""`agent.evaluate`: seed 001's evaluation of the target check, in words a person reads
("page still 404"); a blocked page trips the data.validate-target guardrail."""

from __future__ import annotations

from runtime.events import GuardrailTripped
from runtime.execute.context import RunContext
from runtime.execute.step_outcome import StepResult
from runtime.execute.target_check import PageObservation, TargetCheck
from runtime.outcomes import BlockerKind
from runtime.plan.model import State


async def evaluate(ctx: RunContext, state: State) -> StepResult:
    check = ctx.page.target_check
    if check is None:
        return StepResult("blocked", False, summary="no validation to evaluate", evaluation="nothing was validated")
    observation = ctx.page.observation
    if check.valid:
        evaluation = f"the page is the target ({observation.title!r} at {observation.url}); continue" if observation else "the page is the target"
        return StepResult("valid", True, verified=True, summary=evaluation, evaluation=evaluation, evidence=check.evidence)
    assert check.blocker_kind is not None
    evaluation = evaluation_sentence(check, observation)
    ctx.events.emit(GuardrailTripped(guard="data.validate-target", blocker_kind=check.blocker_kind, detail=check.reason, evidence=check.evidence))
    return StepResult("blocked", False, summary=evaluation, blocker_kind=check.blocker_kind, evaluation=evaluation, evidence=check.evidence)


def evaluation_sentence(check: TargetCheck, observation: PageObservation | None) -> str:
    """Seed 001's human-readable evaluation, e.g. "page still 404"."""
    where = observation.url if observation else "the page"
    status = observation.status if observation else "?"
    kind = check.blocker_kind
    if kind is BlockerKind.PAGE_NOT_FOUND:
        return f"page still 404 at {where}; search for a fresh page"
    if kind is BlockerKind.ACCESS_DENIED:
        return f"access denied (HTTP {status}) at {where}; look elsewhere"
    if kind is BlockerKind.ACCESS_BLOCKED:
        return f"{where} shows a captcha or bot wall; not retrying it"
    if kind is BlockerKind.SERVER_ERROR:
        return f"server error (HTTP {status}) at {where}"
    if kind is BlockerKind.DOMAIN_NOT_ALLOWED:
        return f"{where} is outside the allowed domains; not using it"
    if kind is BlockerKind.KEYWORDS_MISSING:
        return f"{where} does not mention the target: {check.reason}"
    if kind is BlockerKind.NAVIGATION_FAILED:
        return f"could not load {where}: {check.reason}"
    return check.reason
