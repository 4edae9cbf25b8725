"""Closing the runs a killed server left in flight: in the store and in their run directories.

Why numbering never reuses a seq a client saw. A client sees an event only after the store
committed it (persist before fan-out), and the event and the run row's `last_seq` are committed in
one transaction. So every seq ever sent is <= the run's stored last seq, and the closing events are
numbered after it. They are also numbered after every seq in the run's events.jsonl, which the
engine writes as events are emitted, so the file never holds two events with one seq either.

Events the file has beyond the store (emitted, written, but killed before their commit; never
sent) are recovered into the store rather than dropped: they are real events of the run. If they
include the run's own verdict, the run ended before the kill and is closed with that verdict.

The run directory is brought up to date before the store: events.jsonl gets the stored events it
lacks and the closing events, and verdict.json the verdict. Should the server die in between, the
next one finds the closing events in the file and recovers them like any other, so a run is never
closed twice with different verdicts.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

from runtime.events import Event, EventLog, FinalVerdict, StatusChanged
from runtime.events.model import payload_to_dict
from runtime.execute.record.run_files import json_default, write_json_atomically
from runtime.outcomes import StopReason, TaskState
from runtime.run_layout import EVENTS_FILE, VERDICT_FILE
from runtime.service.runs.event_bounds import EventBounder, EventLimits
from runtime.service.runs.ledger import write_event
from runtime.store import BufferedRunStore, RunFilter, RunRecord

_log = logging.getLogger(__name__)

IN_FLIGHT_STATES = tuple(state for state in TaskState if not state.is_final)
INTERRUPTED_SUMMARY = "the server stopped while the run was in flight"


@dataclass(frozen=True)
class EventsFile:
    """A run's events.jsonl as a killed process left it."""

    events: tuple[Event, ...]
    # Bytes up to the end of the last complete line: a torn last line is cut off before appending.
    complete_bytes: int
    highest_seq: int

    @classmethod
    def read(cls, path: Path, run_id: str) -> EventsFile:
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return cls((), 0, 0)
        complete = data.rfind(b"\n") + 1
        events: list[Event] = []
        for number, line in enumerate(data[:complete].splitlines(), start=1):
            try:
                event = Event.from_dict(json.loads(line))
            except (ValueError, KeyError, TypeError):
                _log.warning("%s:%d: not an event line, skipped", path, number)
                continue
            if event.run_id == run_id:
                events.append(event)
        return cls(tuple(events), complete, max((e.seq for e in events), default=0))


async def close_runs_left_in_flight(
    store: BufferedRunStore, runs_dir: Path, limits: EventLimits, *, skip: frozenset[str] = frozenset()
) -> list[str]:
    """Close every stored run still in flight (except `skip`); returns their run ids."""
    closed: list[str] = []
    while True:
        records = [r for r in await store.list_runs(RunFilter(statuses=IN_FLIGHT_STATES), 200) if r.run_id not in skip]
        if not records:
            break
        for record in records:
            await _close(store, runs_dir / record.run_id, limits, record)
            closed.append(record.run_id)
    if closed:
        _log.warning("closed %d run(s) a previous server left in flight", len(closed))
    return closed


async def close_run_left_in_flight(store: BufferedRunStore, runs_dir: Path, limits: EventLimits, record: RunRecord) -> None:
    """Close one stored run its dead server left in flight (a replica's, once its lease expired)."""
    await _close(store, runs_dir / record.run_id, limits, record)


async def _close(store: BufferedRunStore, run_dir: Path, limits: EventLimits, record: RunRecord) -> None:
    run_id = record.run_id
    stored_beyond = await store.read_events(run_id, record.last_seq)  # committed with the row; checked anyway
    last_stored = max([record.last_seq, *(e.seq for e in stored_beyond)])
    has_dir = run_dir.is_dir()
    events_file = EventsFile.read(run_dir / EVENTS_FILE, run_id) if has_dir else EventsFile((), 0, 0)

    recovered: list[Event] = []
    for event in sorted(events_file.events, key=lambda e: e.seq):
        if event.seq == last_stored + len(recovered) + 1:
            recovered.append(event)
    own_verdict = next((e for e in recovered if e.is_final), None)
    if own_verdict is not None:
        recovered = recovered[: recovered.index(own_verdict) + 1]
        closing: list[Event] = []
    else:
        closing = _interruption(record, first_seq=max(last_stored, events_file.highest_seq) + 1)

    if has_dir:
        missing = await store.read_events(run_id, events_file.highest_seq) if events_file.highest_seq < last_stored else []
        _append_events(run_dir / EVENTS_FILE, events_file.complete_bytes, [*missing, *closing])
        verdict = closing[-1] if closing else own_verdict
        if closing or not (run_dir / VERDICT_FILE).exists():
            assert verdict is not None and isinstance(verdict.payload, FinalVerdict)
            write_json_atomically(
                run_dir / VERDICT_FILE, {**payload_to_dict(verdict.payload), "run_id": run_id, "trace_id": verdict.trace_id}
            )

    bounder = EventBounder(limits, run_dir)
    for event in [*recovered, *closing]:
        record = write_event(store, record, bounder.bound(event), bounder) or record
    await store.flush()
    if recovered:
        _log.warning("run %s: recovered %d event(s) from its events.jsonl that the store lacked", run_id, len(recovered))


def _interruption(record: RunRecord, *, first_seq: int) -> list[Event]:
    log = EventLog(record.run_id, record.trace_id, first_seq=first_seq)
    return [
        log.emit(StatusChanged(status=TaskState.STOPPED, detail=INTERRUPTED_SUMMARY)),
        log.emit(
            FinalVerdict(
                status=TaskState.STOPPED, stop_reason=StopReason.INTERRUPTED, verified=False, summary=INTERRUPTED_SUMMARY
            )
        ),
    ]


def _append_events(path: Path, keep_bytes: int, events: list[Event]) -> None:
    with open(path, "a+b") as file:
        file.truncate(keep_bytes)  # a torn last line is cut off
        file.seek(keep_bytes)
        for event in events:
            line = json.dumps(event.to_dict(), ensure_ascii=False, default=json_default) + "\n"
            file.write(line.encode("utf-8"))
