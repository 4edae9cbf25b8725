"""A run as a table row, the same on every store: the columns of `runs` in order, both ways."""

from __future__ import annotations

import json

from runtime.outcomes import StopReason, TaskState
from runtime.store.records import RunRecord

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
