"""`agent.evaluate`: seed 001's evaluation of the target check, in words a person reads
("page still 404"); a blocked page trips the data.validate-target guardrail."""

from __future__ import annotations

from runtime.events import GuardrailTripped
from runtime.execute.context.run_context import RunContext
from runtime.execute.step_outcome import StepResult
from runtime.execute.judges.target_check import PageObservation, TargetCheck
from runtime.outcomes import BlockerKind
from runtime.plan.model import State
from runtime.plan.state_kinds import TARGET_CHECK

# Seed 001's human-readable evaluation per blocker kind, e.g. "page still 404".
EVALUATIONS: dict[BlockerKind, str] = {
    BlockerKind.PAGE_NOT_FOUND: "page still 404 at {where}; search for a fresh page",
    BlockerKind.ACCESS_DENIED: "access denied (HTTP {status}) at {where}; look elsewhere",
    BlockerKind.ACCESS_BLOCKED: "{where} shows a bot wall or firewall block; not retrying it",
    BlockerKind.SERVER_ERROR: "server error (HTTP {status}) at {where}",
    BlockerKind.DOMAIN_NOT_ALLOWED: "{where} is outside the allowed domains; not using it",
    BlockerKind.KEYWORDS_MISSING: "{where} does not mention the target: {reason}",
    BlockerKind.NAVIGATION_FAILED: "could not load {where}: {reason}",
    BlockerKind.CAPTCHA: "{where} is a captcha; not solving or retrying it",
    BlockerKind.LOGIN_REQUIRED: "{where} asks to sign in and the run has no credentials",
    BlockerKind.RATE_LIMITED: "{where} is rate limiting (HTTP {status}); not asking again before Retry-After",
    BlockerKind.SCHEME_NOT_ALLOWED: "{where} is not an http(s) page; not reading it",
}


async def agent_evaluate(ctx: RunContext, state: State) -> StepResult:
    check = ctx.page.target_check
    if check is None:
        return StepResult("blocked", False, summary="no validation to evaluate", evaluation="nothing was validated")
    observation = ctx.page.observation
    if check.valid:
        evaluation = f"the page is the target ({observation.title!r} at {observation.url}); continue" if observation else "the page is the target"
        return StepResult("valid", True, verified=True, summary=evaluation, evaluation=evaluation, evidence=check.evidence)
    assert check.blocker_kind is not None
    evaluation = evaluation_sentence(check, observation)
    ctx.events.emit(GuardrailTripped(guard=TARGET_CHECK, blocker_kind=check.blocker_kind, detail=check.reason, evidence=check.evidence))
    return StepResult("blocked", False, summary=evaluation, blocker_kind=check.blocker_kind, evaluation=evaluation, evidence=check.evidence)


def evaluation_sentence(check: TargetCheck, observation: PageObservation | None) -> str:
    template = EVALUATIONS.get(check.blocker_kind) if check.blocker_kind is not None else None
    if template is None:
        return check.reason
    where = observation.url if observation else "the page"
    status = observation.status if observation else "?"
    return template.format(where=where, status=status, reason=check.reason)
