"""`repair` (seed 004 decision 5): a step that ended in execute_error, verification_failed or
no_progress gets an agent, briefed on the failure (the step's goal, the failure summary, the
blocker kind and the evidence), inside every guard the step had: the same domains and tools, the
same approvals, the run's step and time budgets, the step's tab.

The agent's word decides nothing. After each attempt the step's own verification (a verify
step's conditions, an agent's done_when, an act's expect) is judged on a validated document; the
step counts as repaired only when it holds. Otherwise the outcome is the original trigger, so the
run ends with the step's own stop reason, its verdict carrying the repair's evidence too. Without
a configured model the step's failure stands, exactly as without `repair`.
"""

from __future__ import annotations

import json
from typing import Any

from runtime.events import StepFinished
from runtime.execute.context.recovery import FailedStep
from runtime.execute.context.run_context import RunContext
from runtime.execute.reads.judged_conditions import judge_conditions
from runtime.execute.states.agent import AgentLoop
from runtime.execute.step_outcome import RunStopped, StepResult
from runtime.outcomes import StopReason
from runtime.plan.model import State
from runtime.plan.state_kinds import AGENT, TRIGGER_OF_OUTCOME

EVIDENCE_CHARS = 1500


async def repair(ctx: RunContext, state: State) -> StepResult:
    failed = ctx.recovery.failed_step
    assert failed is not None, "a repair state is entered only from its step's failure"
    trigger = TRIGGER_OF_OUTCOME[failed.outcome]
    if not ctx.switches.auto_repair:
        return StepResult(trigger, False, summary=f"not repaired (the auto_repair switch is off): {failed.summary}", error="auto_repair_off", evidence={"repairs": failed.state_id, "trigger": trigger})
    if not ctx.model.available(state.id):
        return StepResult(trigger, False, summary=f"not repaired (no model is configured): {failed.summary}", error="no_model", evidence={"repairs": failed.state_id, "trigger": trigger})
    return await Repairing(ctx, state, failed, trigger).run()


class Repairing:
    """One repair of one failed step: up to `max_attempts` agent attempts, each judged."""

    def __init__(self, ctx: RunContext, state: State, failed: FailedStep, trigger: str) -> None:
        self.ctx = ctx
        self.state = state
        self.failed = failed
        self.trigger = trigger
        self.conditions: list[dict[str, Any]] = list(state.params["conditions"])
        # What the verdict says if the repair fails: the step's own failure comes first.
        self.failure, self.failure_evidence = ctx.findings.failure, dict(ctx.findings.failure_evidence)
        self.blocker = ctx.recovery.blocker

    async def run(self) -> StepResult:
        attempts: list[dict[str, Any]] = []
        max_attempts = int(self.state.params["max_attempts"])
        for number in range(1, max_attempts + 1):
            # The signatures that tripped no_progress were the failed step's, not the agent's.
            self.ctx.progress.reset()
            attempt = await self._attempt(number)
            attempt["conditions"], attempt["repaired"], attempt["judged"] = await self._judge()
            attempts.append(attempt)
            self._report(attempt)
            if attempt["repaired"]:
                break
        repaired = bool(attempts[-1]["repaired"])
        assert self.ctx.recorder.span is not None
        self.ctx.spans.note_repair(self.ctx.recorder.span, self.trigger, len(attempts), repaired)
        evidence = {"repairs": self.failed.state_id, "trigger": self.trigger, "failure": self._failure(), "attempts": attempts}
        if repaired:
            self.ctx.findings.verified(self.failed.state_id)
            self.ctx.findings.verified(self.state.id)
            self.ctx.findings.note_failure("")
            self.ctx.recovery.blocker = None
            summary = f"repaired {self.failed.state_id} ({self.trigger}) in {len(attempts)} attempt(s): {attempts[-1]['judged']}"
            return StepResult("repaired", True, verified=True, summary=summary, evidence=evidence)
        # The run ends as the step would have, with the repair's evidence beside the step's own.
        self.ctx.findings.verified(self.state.id)
        self.ctx.recovery.blocker = self.blocker
        detail = f"{self.failure or self.failed.summary}; not repaired in {len(attempts)} attempt(s): {attempts[-1]['judged']}"
        self.ctx.findings.note_failure(detail, {**self.failure_evidence, "repair": evidence})
        return StepResult(self.trigger, False, summary=detail, error="not_repaired", evidence=evidence)

    def _failure(self) -> dict[str, Any]:
        failed = self.failed
        return {"state": failed.state_id, "outcome": failed.outcome, "summary": failed.summary, "blocker_kind": failed.blocker_kind.value if failed.blocker_kind else None}

    def _briefing(self) -> str:
        failed, params = self.failed, self.state.params
        evidence = json.dumps(failed.evidence, ensure_ascii=False, default=str)[:EVIDENCE_CHARS]
        return (
            f"Step {failed.state_id} ({params['step_kind']}) meant to: {params['goal']}\n"
            f"It failed with {self.trigger}: {failed.summary}\n"
            f"Blocker kind: {failed.blocker_kind.value if failed.blocker_kind else 'none'}\n"
            f"Evidence: {evidence}\n"
            "Do what the step meant to do on this page, then call close. The step's own checks judge the page afterwards."
        )

    async def _attempt(self, number: int) -> dict[str, Any]:
        """One agent attempt; what it said and did. A guard's stop still ends the run."""
        params = self.state.params
        agent_state = self.state.model_copy(
            update={
                "kind": AGENT,
                "params": {"task": f"Repair the failed step {self.failed.state_id}.", "tools": params["tools"], "max_steps": params["max_steps"], "done_when": self.conditions},
            }
        )
        gateway = await self.ctx.model.open_gateway(self.state.id)
        try:
            result = await AgentLoop(self.ctx, agent_state, gateway, self._briefing()).run()
        except RunStopped as stopped:
            if stopped.reason is not StopReason.NO_PROGRESS:
                raise
            result = StepResult("no_progress", False, summary=stopped.detail, evidence=stopped.evidence)
        finally:
            await gateway.aclose()
        said = {"attempt": number, "agent_outcome": result.outcome, "agent_summary": result.summary}
        if result.blocker_kind is not None:
            said["blocker_kind"] = result.blocker_kind.value
        return said

    async def _judge(self) -> tuple[list[dict[str, Any]], bool, str]:
        """The failed step's own verification, on a validated document: the repair's only judge."""
        failed = self.failed.state_id
        judged = await judge_conditions(self.ctx, self.state.id, self.ctx.timeout_for(self.state), self.conditions, failed, f"the repair of {failed}")
        return judged.checks, judged.held, judged.judged

    def _report(self, attempt: dict[str, Any]) -> None:
        repaired = bool(attempt["repaired"])
        self.ctx.events.emit(
            StepFinished(
                state_id=self.state.id,
                step_kind="repair.attempt",
                outcome="repaired" if repaired else "failed",
                ok=repaired,
                verified=repaired,
                duration_ms=0.0,
                observation_summary=f"attempt {attempt['attempt']}: the agent ended {attempt['agent_outcome']}; {attempt['judged']}",
            )
        )
