"""What executing one state gives: a `StepResult` the plan routes on, or `RunStopped`, which ends
the run with a stop reason instead (a guard tripped, a person said no, the browser died)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from runtime.outcomes import BlockerKind, StopReason


class RunStopped(Exception):
    """Ends the run from inside a state with a stop reason (not an outcome the plan routes)."""

    def __init__(
        self,
        reason: StopReason,
        detail: str,
        blocker_kind: BlockerKind | None = None,
        evidence: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(f"{reason.value}: {detail}")
        self.reason = reason
        self.detail = detail
        self.blocker_kind = blocker_kind
        self.evidence = evidence or {}


@dataclass
class StepResult:
    outcome: str
    ok: bool
    verified: bool = False
    summary: str = ""
    blocker_kind: BlockerKind | None = None
    thinking: str = ""
    evaluation: str = ""
    error: str = ""
    evidence: dict[str, Any] = field(default_factory=dict)
