"""A run as a table row, the same on every store: the columns of `runs` in order, both ways, and
the parameter rows every store's batch writes with (its SQL differs only in placeholders)."""

from __future__ import annotations

import json
from collections.abc import Iterable

from runtime.events import Event
from runtime.outcomes import StopReason, TaskState
from runtime.store.records import ArtifactRecord, RunRecord, RunUpdate

RUN_COLUMNS = (
    "run_id, recipe_name, recipe_version, status, stop_reason, verified, summary, trace_id, "
    "inputs_json, labels_json, created_ns, updated_ns, ended_ns, last_seq, earliest_seq"
)


def run_row(run: RunRecord) -> tuple[object, ...]:
    return (
        run.run_id,
        run.recipe_name,
        run.recipe_version,
        run.status.value,
        run.stop_reason.value if run.stop_reason else None,
        int(run.verified),
        run.summary,
        run.trace_id,
        json.dumps(run.inputs, sort_keys=True),
        json.dumps(run.labels, sort_keys=True),
        run.created_ns,
        run.updated_ns,
        run.ended_ns,
        run.last_seq,
        run.earliest_seq,
    )


def run_from_row(row: tuple[object, ...]) -> RunRecord:
    (
        run_id,
        recipe_name,
        recipe_version,
        status,
        stop_reason,
        verified,
        summary,
        trace_id,
        inputs_json,
        labels_json,
        created_ns,
        updated_ns,
        ended_ns,
        last_seq,
        earliest_seq,
    ) = row
    return RunRecord(
        run_id=str(run_id),
        recipe_name=str(recipe_name),
        recipe_version=str(recipe_version),
        status=TaskState(status),
        stop_reason=StopReason(stop_reason) if stop_reason else None,
        verified=bool(verified),
        summary=str(summary),
        trace_id=str(trace_id),
        inputs=json.loads(str(inputs_json)),
        labels=json.loads(str(labels_json)),
        created_ns=int(created_ns),  # type: ignore[arg-type]
        updated_ns=int(updated_ns),  # type: ignore[arg-type]
        ended_ns=int(ended_ns) if ended_ns is not None else None,  # type: ignore[arg-type]
        last_seq=int(last_seq),  # type: ignore[arg-type]
        earliest_seq=int(earliest_seq),  # type: ignore[arg-type]
    )


def artifact_row(artifact: ArtifactRecord) -> tuple[object, ...]:
    """(run_id, artifact_id, artifact_kind, path, media_type, size, sha256, seq)"""
    a = artifact
    return (a.run_id, a.artifact_id, a.artifact_kind, a.path, a.media_type, a.size, a.sha256, a.seq)


def run_update_row(update: RunUpdate) -> tuple[object, ...]:
    """(status, stop_reason, verified, summary, updated_ns, ended_ns, last_seq, trace_id, run_id)"""
    u = update
    stop_reason = u.stop_reason.value if u.stop_reason else None
    return (u.status.value, stop_reason, int(u.verified), u.summary, u.updated_ns, u.ended_ns, u.last_seq, u.trace_id, u.run_id)


def newest_event_rows(events: Iterable[Event]) -> list[tuple[object, ...]]:
    """For each run of `events`, its newest: (seq, timestamp_ns, trace_id, trace_id, run_id), so a
    run's last seq moves on with its events in the batch's own transaction (a stored last_seq is
    never behind a stored event, nor ahead of one)."""
    newest: dict[str, Event] = {}
    for event in events:
        newest[event.run_id] = event
    return [(e.seq, e.timestamp_ns, e.trace_id, e.trace_id, e.run_id) for e in newest.values()]
