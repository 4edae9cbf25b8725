"""What the run knows about getting unstuck: the latest blocker, the replans used, the plan
repairs written to plans.json (seed 001's failure summary and search ladder), and the latest
failed step, which a step's `repair` takes over."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from runtime.execute.judges.page_blockers import BlockerFinding, replan_guidance
from runtime.execute.record.run_files import RunFiles
from runtime.execute.judges.target_check import REPLAN_GUIDANCE
from runtime.outcomes import BlockerKind


@dataclass
class Blocker:
    """Why a state could not go on, with what it saw; a replan and the verdict name it."""

    state_id: str
    kind: BlockerKind
    reason: str
    evidence: dict[str, Any]


@dataclass(frozen=True)
class FailedStep:
    """The latest state that failed, as its repair reads it (states/repair.py)."""

    state_id: str
    kind: str
    outcome: str
    summary: str
    blocker_kind: BlockerKind | None
    evidence: dict[str, Any]


@dataclass
class Recovery:
    max_replans: int
    blocker: Blocker | None = None
    replans_used: int = 0
    # The next query of the fallback ladder: a later replan goes on where the last one stopped.
    query_cursor: int = 0
    plan_repairs: list[dict[str, Any]] = field(default_factory=list)
    last_failure_summary: str = ""
    failed_step: FailedStep | None = None

    @property
    def blocker_kind(self) -> BlockerKind | None:
        return self.blocker.kind if self.blocker is not None else None

    def transition_guards(self) -> dict[str, bool]:
        """The plan's transition guards (plan.model.GUARDS) as they stand now."""
        return {"replans_left": self.replans_used < self.max_replans, "replans_exhausted": self.replans_used >= self.max_replans}

    def retry_after_wait(self, next_url: str, budget_seconds: float) -> tuple[float, str]:
        """How long to wait before asking `next_url`, and why: a rate-limited host's Retry-After
        is honoured when the next request goes to the same host. A wait longer than the budget
        is never slept: the seconds come back as -1 and the replan must not ask that host."""
        blocker = self.blocker
        if blocker is None or blocker.kind is not BlockerKind.RATE_LIMITED:
            return 0.0, ""
        seconds = blocker.evidence.get("retry_after_seconds")
        if not isinstance(seconds, (int, float)) or seconds <= 0:
            return 0.0, ""
        if urlsplit(str(blocker.evidence.get("url", ""))).netloc != urlsplit(next_url).netloc:
            return 0.0, f"Retry-After {seconds:g} s is for another host"
        if seconds > budget_seconds:
            return -1.0, f"Retry-After {seconds:g} s is longer than the {budget_seconds:.0f} s left to this replan"
        return float(seconds), f"waited Retry-After {seconds:g} s before asking the host again"

    def failure_summary(self) -> str:
        """Seed 001's failure summary of the latest blocker: what, where, what was seen, what to do."""
        blocker = self.blocker
        if blocker is None:
            return "replanning without a recorded blocker"
        evidence = blocker.evidence
        guidance = replan_guidance(BlockerFinding(blocker.kind, blocker.reason, evidence), REPLAN_GUIDANCE)
        snippet = str(evidence.get("snippet", ""))[:160]
        return (
            f"step {blocker.state_id} was blocked ({blocker.kind.value}): {blocker.reason}. "
            f"Observed {evidence.get('url', '')} HTTP {evidence.get('status')} title {evidence.get('title', '')!r}: {snippet!r}. "
            f"Guidance: {guidance}."
        )

    def record_repair(
        self,
        files: RunFiles,
        attempt: int,
        query: str,
        search_url: str,
        result: str,
        *,
        chosen: str = "",
        skipped: dict[str, str] | None = None,
    ) -> None:
        """One try of a replan, appended to plans.json's plan_repairs."""
        blocker = self.blocker
        self.plan_repairs.append(
            {
                "attempt": attempt,
                "blocker_kind": blocker.kind.value if blocker else None,
                "offending_step": blocker.state_id if blocker else None,
                "failure_summary": self.last_failure_summary,
                "query": query,
                "search_url": search_url,
                "followed": chosen,
                "skipped": skipped or {},
                "result": result,
            }
        )
        files.write_plan(files.plan_data, self.plan_repairs, self.last_failure_summary)
