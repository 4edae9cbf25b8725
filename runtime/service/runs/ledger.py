"""What a run's record keeps: its inputs as recorded, and what one (bounded) event writes to the
store (the event, its artifact index rows, the run row).

Live runs and runs a killed server left behind take the same path, so a run's record means the
same thing however its events arrived.
"""

from __future__ import annotations

from dataclasses import replace

from runtime.artifacts import ArtifactRef
from runtime.events import ArtifactStored, Event, FinalVerdict, StatusChanged
from runtime.plan.model import Plan
from runtime.secrets import marker
from runtime.service.runs.event_bounds import BoundedEvent, EventBounder, cut_text
from runtime.store import ArtifactRecord, BufferedRunStore, RunRecord, RunUpdate

# A run record travels in every ListRuns page; its summary is a summary. The whole text is in the
# run's final verdict event (or the artifact that event names).
RECORD_SUMMARY_BYTES = 4096


def recorded_inputs(plan: Plan, raw_inputs: dict[str, str]) -> dict[str, str]:
    """The inputs as a run's record keeps them: each one the recipe marks secret as its marker."""
    marked = {name for name, spec in plan.inputs.items() if spec.get("secret")}
    return {name: marker(name) if name in marked else value for name, value in raw_inputs.items()}


def state_after(record: RunRecord, event: Event) -> RunRecord | None:
    """The run's record once `event` happened, when the event changes the run's state (its status
    or verdict); None for the many events that only add to its history."""
    payload = event.payload
    if record.ended_ns is not None:
        return None  # the first verdict is the run's; nothing changes it after
    if isinstance(payload, FinalVerdict):
        return with_event(
            replace(
                record,
                status=payload.status,
                stop_reason=payload.stop_reason,
                verified=payload.verified,
                summary=cut_text(payload.summary, RECORD_SUMMARY_BYTES, f"the whole summary is in event {event.seq}"),
                ended_ns=event.timestamp_ns,
                browser_id=payload.browser_id or record.browser_id,
            ),
            event,
        )
    if isinstance(payload, StatusChanged):
        return with_event(replace(record, status=payload.status, browser_id=payload.browser_id or record.browser_id), event)
    return None


def with_event(record: RunRecord, event: Event | None) -> RunRecord:
    """`record` with the seq, time and trace id of the run's newest event."""
    if event is None:
        return record
    return replace(
        record,
        last_seq=max(record.last_seq, event.seq),
        updated_ns=max(record.updated_ns, event.timestamp_ns),
        trace_id=event.trace_id or record.trace_id,
    )


def write_event(store: BufferedRunStore, record: RunRecord, bounded: BoundedEvent, bounder: EventBounder) -> RunRecord | None:
    """Buffer the event and its artifact rows for the next commit, and the run's new state if the
    event changed it (returned then). The store moves the run's last seq on with its events."""
    event = bounded.event
    store.append_event(event)
    payload = event.payload
    if isinstance(payload, ArtifactStored):
        store.add_artifact(
            ArtifactRecord(
                run_id=event.run_id,
                artifact_id=payload.artifact_id,
                artifact_kind=payload.artifact_kind,
                path=payload.path,
                media_type=payload.media_type,
                size=payload.size,
                sha256=payload.sha256,
                seq=event.seq,
            )
        )
    for ref in bounded.cuts:
        store.add_artifact(_cut_record(event, ref, bounder))
    changed = state_after(record, event)
    if changed is not None:
        store.update_run(RunUpdate.of(changed))
    return changed


def _cut_record(event: Event, ref: ArtifactRef, bounder: EventBounder) -> ArtifactRecord:
    return ArtifactRecord(
        run_id=event.run_id,
        artifact_id=ref.id,
        artifact_kind=ref.kind,
        path=bounder.run_relative(ref.path),
        media_type=ref.media_type,
        size=ref.size,
        sha256=ref.sha256,
        seq=event.seq,
    )
