"""Bindings of features/service_store_conformance.feature: one test body judges both run stores
(Examples: sqlite, postgresql), so they keep the same promises about the rows they hold.

The PostgreSQL server is real (tests/fixtures/postgres.py): each test gets fresh databases.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from pytest_bdd import given, parsers, scenarios, then, when
from tests.service.service_harness import stored_event

from runtime.events import ChatDelta, StatusChanged
from runtime.outcomes import StopReason, TaskState
from runtime.store import RunStore
from runtime.store.opening import open_run_store
from runtime.store.records import ArtifactRecord, RunCursor, RunFilter, RunRecord, RunUpdate, WriteBatch

scenarios("service_store_conformance.feature")


@given(parsers.parse("an empty {kind} run store"), target_fixture="store")
def _empty_store(kind: str, store_location: Callable[[str], Any], opened: list[Any]) -> RunStore:
    store = open_run_store(store_location(kind))
    opened.append(store.close)
    return store


# "run-B" sorts before "run-a" byte-wise (as SQLite compares) but after it in most locales' collations.
_RUNS = (
    ("run-a", "alpha", TaskState.COMPLETED, 200),
    ("run-B", "beta", TaskState.STOPPED, 200),
    ("run-c", "alpha", TaskState.COMPLETED, 100),
    ("run-d", "beta", TaskState.RUNNING, 300),
    ("run-e", "alpha", TaskState.COMPLETED, 400),
)


@when("5 runs are written, two of them created at the same nanosecond, with events and artifacts")
def _write_runs(store: RunStore, context: dict[str, Any]) -> None:
    records = [
        RunRecord(
            run_id=run_id, recipe_name=recipe, recipe_version="1", status=TaskState.CREATED, trace_id="",
            created_ns=created, updated_ns=created, inputs={"metal": "gold", "n": run_id}, labels={"team": recipe},
        )
        for run_id, recipe, _, created in _RUNS
    ]
    store.write_batch(WriteBatch(new_runs=records))
    events = {
        run_id: [
            stored_event(run_id, 1, StatusChanged(status=TaskState.RUNNING, detail="started")),
            stored_event(run_id, 2, ChatDelta(text=f"{run_id} says ünïcode")),
            stored_event(run_id, 3, StatusChanged(status=status, detail="ended")),
        ]
        for run_id, _, status, _ in _RUNS
    }
    # Events and the final update in separate batches; the update names a last_seq behind the events.
    store.write_batch(WriteBatch(events=[e for run_events in events.values() for e in run_events[:2]]))
    updates = {
        run_id: RunUpdate(
            run_id=run_id, status=status, updated_ns=5, last_seq=1, trace_id="trace-a",
            stop_reason=StopReason.COMPLETED if status is TaskState.COMPLETED else None,
            verified=status is TaskState.COMPLETED, summary=f"{run_id} done",
            ended_ns=None if status is TaskState.RUNNING else 2_000_000,
        )
        for run_id, _, status, _ in _RUNS
    }
    store.write_batch(
        WriteBatch(
            events=[run_events[2] for run_events in events.values()],
            run_updates=updates,
            artifacts=[
                ArtifactRecord("run-a", "shot-2", "screenshot", "artifacts/old.png", "image/png", 10, "00" * 32, 2),
                ArtifactRecord("run-a", "shot-1", "screenshot", "artifacts/one.png", "image/png", 20, "11" * 32, 3),
                ArtifactRecord("run-a", "shot-2", "screenshot", "artifacts/two.png", "image/png", 30, "22" * 32, 3),
            ],
        )
    )
    # A repeated seq (a retried batch) with other content: the first stored copy stays.
    store.write_batch(WriteBatch(events=[stored_event("run-a", 2, ChatDelta(text="a second copy"))]))
    context.update(records=records, events=events, updates=updates)


@then("each run reads back field for field, its last seq following its newest event")
def _runs_read_back(store: RunStore, context: dict[str, Any]) -> None:
    for record in context["records"]:
        update: RunUpdate = context["updates"][record.run_id]
        expected = replace(
            record, status=update.status, stop_reason=update.stop_reason, verified=update.verified, summary=update.summary,
            ended_ns=update.ended_ns, trace_id="trace-a", last_seq=3,
            updated_ns=context["events"][record.run_id][2].timestamp_ns,
        )
        assert store.get_run(record.run_id) == expected
    assert store.get_run("run-missing") is None


@then("its events read back in seq order from any seq, a repeated event stored once")
def _events_read_back(store: RunStore, context: dict[str, Any]) -> None:
    for run_id, events in context["events"].items():
        assert store.read_events(run_id) == events
        assert store.read_events(run_id, after_seq=1) == events[1:]
        assert store.read_events(run_id, after_seq=1, limit=1) == events[1:2]
        assert store.read_events(run_id, after_seq=3) == []


def _byte_order_newest_first(runs: list[tuple[str, int]]) -> list[str]:
    return [run_id for run_id, _ in sorted(runs, key=lambda r: (r[1], r[0].encode()), reverse=True)]


@then("listing runs is newest first with ties broken by run id, and paging 2 at a time returns each once")
def _listing(store: RunStore) -> None:
    expected = _byte_order_newest_first([(run_id, created) for run_id, _, _, created in _RUNS])
    assert expected[2:4] == ["run-a", "run-B"]  # the tie, in byte order
    assert [r.run_id for r in store.list_runs(RunFilter(), 100)] == expected
    pages: list[list[str]] = []
    after: RunCursor | None = None
    while page := store.list_runs(RunFilter(), 2, after):
        pages.append([r.run_id for r in page])
        after = RunCursor(page[-1].created_ns, page[-1].run_id)
    assert pages == [expected[0:2], expected[2:4], expected[4:]]


@then("listing by status and by recipe returns only the matching runs")
def _filters(store: RunStore) -> None:
    def listed(run_filter: RunFilter) -> list[str]:
        return [r.run_id for r in store.list_runs(run_filter, 100)]

    def expected(keep: Callable[[str, TaskState], bool]) -> list[str]:
        return _byte_order_newest_first([(run_id, created) for run_id, recipe, status, created in _RUNS if keep(recipe, status)])

    assert listed(RunFilter(statuses=(TaskState.COMPLETED,))) == expected(lambda _, s: s is TaskState.COMPLETED)
    in_flight_or_stopped = (TaskState.RUNNING, TaskState.STOPPED)
    assert listed(RunFilter(statuses=in_flight_or_stopped)) == expected(lambda _, s: s in in_flight_or_stopped)
    assert listed(RunFilter(recipe_name="beta")) == expected(lambda r, _: r == "beta")
    assert listed(RunFilter(statuses=(TaskState.COMPLETED,), recipe_name="beta")) == []


@then("the artifact index lists the newest row of each artifact in seq order")
def _artifacts(store: RunStore) -> None:
    assert [(a.artifact_id, a.path, a.size, a.sha256, a.seq) for a in store.list_artifacts("run-a")] == [
        ("shot-1", "artifacts/one.png", 20, "11" * 32, 3),
        ("shot-2", "artifacts/two.png", 30, "22" * 32, 3),
    ]
    assert store.list_artifacts("run-B") == []


@given(parsers.parse("a run with {count:d} stored events"))
def _run_with_events(store: RunStore, context: dict[str, Any], count: int) -> None:
    record = RunRecord("run-kept", "retained", "1", TaskState.RUNNING, "trace-a", 1, 1)
    events = [stored_event(record.run_id, seq, ChatDelta(text=f"event {seq}")) for seq in range(1, count + 1)]
    store.write_batch(WriteBatch(new_runs=[record]))
    store.write_batch(WriteBatch(events=events))
    context.update(run_id=record.run_id, events=events)


@when(parsers.parse("its events before seq {seq:d} are trimmed"))
def _trim(store: RunStore, context: dict[str, Any], seq: int) -> None:
    context["deleted"] = store.trim_events(context["run_id"], seq)


@then(parsers.parse("{deleted:d} events were deleted and events {first:d} to {last:d} remain"))
def _trimmed(store: RunStore, context: dict[str, Any], deleted: int, first: int, last: int) -> None:
    assert context["deleted"] == deleted
    assert store.read_events(context["run_id"]) == context["events"][first - 1 : last]


@then(parsers.parse("the run's earliest seq is {seq:d}"))
def _earliest(store: RunStore, context: dict[str, Any], seq: int) -> None:
    run = store.get_run(context["run_id"])
    assert run is not None and (run.earliest_seq, run.last_seq) == (seq, len(context["events"]))


@when(parsers.parse('the run is updated with the summary "{summary}" and an event in one batch'))
def _update_with_nul(store: RunStore, context: dict[str, Any], summary: str) -> None:
    run_id = context["run_id"]
    seq = len(context["events"]) + 1
    event = stored_event(run_id, seq, ChatDelta(text="after the summary"))
    update = RunUpdate(run_id, TaskState.COMPLETED, event.timestamp_ns, seq, "trace-a", summary=summary.replace("<NUL>", "\x00"))
    store.write_batch(WriteBatch(events=[event], run_updates={run_id: update}))
    context["events"].append(event)


@then(parsers.parse('the run\'s summary reads back as "{summary}" and the event is stored'))
def _summary_read_back(store: RunStore, context: dict[str, Any], summary: str) -> None:
    run = store.get_run(context["run_id"])
    expected = summary.encode().decode("unicode_escape")  # the Examples write \x00 and \ufffd escaped
    assert run is not None and run.summary == expected and run.status is TaskState.COMPLETED, run
    assert store.read_events(context["run_id"]) == context["events"]
