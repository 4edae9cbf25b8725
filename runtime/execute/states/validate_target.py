"""`data.validate-target`: is the latest observation the recipe's target? A page that is not
becomes the run's blocker, which evaluate reports and a replan works from."""

from __future__ import annotations

from runtime.execute.context.run_context import RunContext
from runtime.execute.context.recovery import Blocker
from runtime.execute.reads.provenance import target_verdict
from runtime.execute.step_outcome import StepResult
from runtime.execute.judges.target_check import PageObservation
from runtime.plan.model import State


async def validate(ctx: RunContext, state: State) -> StepResult:
    observation = ctx.page.observation
    if observation is None:
        observation = PageObservation(state.id, "", None, "", "", "no_observation", "nothing was observed before validation")
    check = target_verdict(ctx, observation)
    ctx.page.judge(check)
    if not check.valid:
        assert check.blocker_kind is not None
        ctx.recovery.blocker = Blocker(observation.state_id, check.blocker_kind, check.reason, check.evidence)
    if check.valid and observation.document is not None:
        check.evidence["validated_document"] = observation.document.to_dict()
    return StepResult(
        check.outcome,
        check.valid,
        verified=check.valid,
        summary=check.reason,
        blocker_kind=check.blocker_kind,
        thinking="check status, domain, access blocks and keywords of the latest page",
        evidence=check.evidence,
    )

