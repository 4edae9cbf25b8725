"""The rows a run store keeps: runs, their events and the artifact index, plus write batches."""

from __future__ import annotations

from dataclasses import dataclass, field

from runtime.events import Event
from runtime.outcomes import StopReason, TaskState


@dataclass(frozen=True)
class RunRecord:
    """One run as stored. Timestamps are Unix epoch nanoseconds."""

    run_id: str
    recipe_name: str
    recipe_version: str
    status: TaskState
    trace_id: str
    created_ns: int
    updated_ns: int
    stop_reason: StopReason | None = None
    verified: bool = False
    summary: str = ""
    inputs: dict[str, str] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    ended_ns: int | None = None
    last_seq: int = 0
    # The oldest seq still stored; last_seq + 1 when the run has no stored events.
    earliest_seq: int = 1
    # The browser (ListBrowsers' id) the run got, as its events say: kept in its events (the final
    # verdict carries it), not in a column of its own; "" until known.
    browser_id: str = ""

    @property
    def is_final(self) -> bool:
        return self.status.is_final


@dataclass(frozen=True)
class RunUpdate:
    """The latest known state of a run; the newest update of a run in a batch wins."""

    run_id: str
    status: TaskState
    updated_ns: int
    last_seq: int
    trace_id: str
    stop_reason: StopReason | None = None
    verified: bool = False
    summary: str = ""
    ended_ns: int | None = None

    @classmethod
    def of(cls, record: RunRecord) -> RunUpdate:
        """The update that brings a stored run up to `record`."""
        return cls(
            run_id=record.run_id,
            status=record.status,
            updated_ns=record.updated_ns,
            last_seq=record.last_seq,
            trace_id=record.trace_id,
            stop_reason=record.stop_reason,
            verified=record.verified,
            summary=record.summary,
            ended_ns=record.ended_ns,
        )


@dataclass(frozen=True)
class ArtifactRecord:
    """An entry of the artifact index: the bytes stay in the run directory, this row points there."""

    run_id: str
    artifact_id: str
    artifact_kind: str
    path: str
    media_type: str
    size: int
    sha256: str
    seq: int


@dataclass(frozen=True)
class RunFilter:
    """Which runs `list_runs` returns; empty fields match everything."""

    statuses: tuple[TaskState, ...] = ()
    recipe_name: str = ""


@dataclass(frozen=True)
class RunCursor:
    """Keyset position in the newest-first run listing: the last run of the previous page."""

    created_ns: int
    run_id: str


@dataclass
class WriteBatch:
    """Everything one flush writes, in one transaction."""

    new_runs: list[RunRecord] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    artifacts: list[ArtifactRecord] = field(default_factory=list)
    run_updates: dict[str, RunUpdate] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.new_runs or self.events or self.artifacts or self.run_updates)

    def followed_by(self, later: WriteBatch) -> WriteBatch:
        """This batch's rows, then `later`'s, in order; a later run update wins."""
        return WriteBatch(
            new_runs=[*self.new_runs, *later.new_runs],
            events=[*self.events, *later.events],
            artifacts=[*self.artifacts, *later.artifacts],
            run_updates={**self.run_updates, **later.run_updates},
        )

    @property
    def run_ids(self) -> tuple[str, ...]:
        ids = dict.fromkeys([*(r.run_id for r in self.new_runs), *(e.run_id for e in self.events), *self.run_updates])
        return tuple(ids)
