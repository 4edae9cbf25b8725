"""`data.validate-target`: is the latest observation the recipe's target? A page that is not
becomes the run's blocker, which evaluate reports and a replan works from."""

from __future__ import annotations

from runtime.execute.context import RunContext
from runtime.execute.recovery import Blocker
from runtime.execute.refused_path import refused_target_check
from runtime.execute.step_outcome import StepResult
from runtime.execute.target_check import PageObservation, validate_target
from runtime.plan.model import State


async def validate(ctx: RunContext, state: State) -> StepResult:
    observation = ctx.page.observation
    if observation is None:
        observation = PageObservation(state.id, "", None, "", "", "no_observation", "nothing was observed before validation")
    target = ctx.plan.target
    keywords = [ctx.values.text(k) or "" for k in target.get("validation_keywords", [])]
    # A page path the network policy refused is that refusal, whatever the page shows now.
    check = refused_target_check(ctx) or validate_target(
        observation, expected_status=int(target.get("expected_status", 200)), allowed_domains=list(target.get("allowed_domains", [])), keywords=keywords
    )
    ctx.page.target_check = check
    if not check.valid:
        assert check.blocker_kind is not None
        ctx.recovery.blocker = Blocker(observation.state_id, check.blocker_kind, check.reason, check.evidence)
    return StepResult(
        check.outcome,
        check.valid,
        verified=check.valid,
        summary=check.reason,
        blocker_kind=check.blocker_kind,
        thinking="check status, domain, access blocks and keywords of the latest page",
        evidence=check.evidence,
    )
