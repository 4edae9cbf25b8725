"""A step does not succeed while the fence has refused the run's own data (EXEC-101).

A refused navigation ends the page path (refused_path.py); a refused subresource does not, since
real pages fire off-domain beacons all the time. But a refused request that carried what the run
typed or chose, or a secret, was the page sending the run's data where the run may not go: the
act that put it there did not succeed, and neither does the step, whatever the page says after
("sent", a pushState to /collect). The step that learns of it first (its own act's request is
heard as it is made, so that is the step whose act sent it, unless the page sent it later on its
own) fails as `blocked` with the refusal's kind, and the evidence names the request.
"""

from __future__ import annotations

from runtime.execute.context.recovery import Blocker
from runtime.execute.context.run_context import RunContext
from runtime.execute.step_outcome import StepResult
from runtime.plan.model import State
from runtime.plan.state_kinds import ACT, AGENT, EVALUATE, EXTRACT, VERIFY

SHOWN_REFUSALS = 5
# The recipe's steps that can fail as blocked; an observation's own chain judges pages, not acts.
CLAIMING_KINDS = frozenset({ACT, AGENT, VERIFY, EXTRACT, EVALUATE})
# A step that judged it failed on the page's word (done_when or an expectation unmet, an agent out
# of turns): the refusal of its data is why, as a refused navigation is (states/agent.py).
UNMET = frozenset({"unverified", "failed", "exhausted"})


def fail_for_refused_data(ctx: RunContext, state: State, result: StepResult) -> StepResult:
    """`result` when it failed for a reason of its own (an error, a blocker), or no refused request
    carried the run's data since the last step claimed them (or the state cannot route a blocked
    outcome); else a `blocked` result with the first such request's kind, and that request (and
    any others) as evidence."""
    if (not result.ok and result.outcome not in UNMET) or state.kind not in CLAIMING_KINDS or not any(t.on == "blocked" for t in state.transitions):
        return result
    refusals = ctx.browser.sent_data.claim()
    if not refusals:
        return result
    first = refusals[0]
    kind = first.kind
    reason = ctx.browser.sent_data.describe(first)
    evidence = {
        "refused_data": [refusal.evidence() for refusal in refusals[:SHOWN_REFUSALS]],
        "refused_data_count": len(refusals),
        "step_result": {"outcome": result.outcome, "summary": result.summary[:300]},
    }
    ctx.recovery.blocker = Blocker(state.id, kind, reason, evidence)
    ctx.findings.not_verified(state.id, kind.value)
    return StepResult("blocked", False, summary=f"{state.id} did not succeed: {reason}", blocker_kind=kind, thinking=result.thinking, evidence={**result.evidence, **evidence})
