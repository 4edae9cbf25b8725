"""Bindings of features/service_store_postgres.feature: the PostgreSQL run store, and the store
conformance scenarios that one test body runs against both stores (Examples: sqlite, postgresql).

The PostgreSQL server is real (tests/fixtures/postgres.py): each test gets fresh databases.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import psycopg
import pytest
from pytest_bdd import given, parsers, scenarios, then, when
from tests.service.service_harness import ServedServer, ServeProcess, StoreLockHolder, chat_deltas, running
from tests.service.test_service_durability import WatchedRun, _watch_then_kill

from runtime.events import ChatDelta, Event, StatusChanged
from runtime.outcomes import StopReason, TaskState
from runtime.service.client import VerityClient
from runtime.service.gen.verity.v1 import events_pb2 as events_pb
from runtime.store import BufferedRunStore, RunStore, StoreError, StoreWriteError
from runtime.store.location import PostgresUrl
from runtime.store.opening import open_run_store
from runtime.store.postgres import MIGRATIONS, PostgresRunStore
from runtime.store.records import ArtifactRecord, RunCursor, RunFilter, RunRecord, RunUpdate, WriteBatch

scenarios("service_store_postgres.feature")

T = TypeVar("T")


class _Loop:
    """An event loop on its own thread, as the server's: BufferedRunStore's writer runs on it between steps."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="store-test-loop", daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 30) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        self.loop.close()


@pytest.fixture
def opened() -> Iterator[list[Callable[[], None]]]:
    """Closers of what a scenario opened (stores, loops, lock holders), run last-opened first."""
    closers: list[Callable[[], None]] = []
    yield closers
    for close in reversed(closers):
        close()


def _store_location(kind: str, tmp_path: Path, postgres_dsn: Callable[[], str]) -> Path | PostgresUrl:
    if kind == "sqlite":
        return tmp_path / "store" / "verity.db"
    assert kind == "postgresql", kind
    return PostgresUrl(postgres_dsn())


# --- one store, two implementations (SERVICE-038) ------------------------------------------------


@given(parsers.parse("an empty {kind} run store"), target_fixture="store")
def _empty_store(kind: str, tmp_path: Path, postgres_dsn: Callable[[], str], opened: list[Any]) -> RunStore:
    store = open_run_store(_store_location(kind, tmp_path, postgres_dsn))
    opened.append(store.close)
    return store


def _event(run_id: str, seq: int, payload: Any, trace_id: str = "trace-a") -> Event:
    return Event(seq=seq, run_id=run_id, timestamp_ns=1_000_000 + 1000 * seq, trace_id=trace_id, payload=payload)


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
            _event(run_id, 1, StatusChanged(status=TaskState.RUNNING, detail="started")),
            _event(run_id, 2, ChatDelta(text=f"{run_id} says ünïcode")),
            _event(run_id, 3, StatusChanged(status=status, detail="ended")),
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
    store.write_batch(WriteBatch(events=[_event("run-a", 2, ChatDelta(text="a second copy"))]))
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
    events = [_event(record.run_id, seq, ChatDelta(text=f"event {seq}")) for seq in range(1, count + 1)]
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


# --- held writes (SERVICE-039) ---------------------------------------------------------------------


class _PostgresLockHolder:
    """Another session holding a lock every event insert needs, until `release`."""

    def __init__(self, url: str) -> None:
        self._conn = psycopg.connect(url)
        self._conn.execute("LOCK TABLE events IN EXCLUSIVE MODE")  # opens a transaction; held until it ends

    def release(self) -> None:
        if not self._conn.closed:
            self._conn.rollback()
            self._conn.close()


@given(
    parsers.parse("an empty {kind} run store behind the write buffer, waiting {seconds:f} seconds for a lock"),
    target_fixture="buffered",
)
def _buffered_store(
    kind: str, seconds: float, tmp_path: Path, postgres_dsn: Callable[[], str], opened: list[Any], context: dict[str, Any]
) -> BufferedRunStore:
    context["location"] = location = _store_location(kind, tmp_path, postgres_dsn)
    context["loop"] = loop = _Loop()
    opened.append(loop.stop)
    store = open_run_store(location, busy_timeout_seconds=seconds)

    async def front() -> BufferedRunStore:
        return BufferedRunStore(store)

    buffered = loop.run(front())
    opened.append(lambda: loop.run(buffered.close()))
    return buffered


@given(parsers.parse("a buffered run with {count:d} committed event"))
def _buffered_run(buffered: BufferedRunStore, context: dict[str, Any], count: int) -> None:
    loop: _Loop = context["loop"]
    record = RunRecord("run-held", "held", "1", TaskState.RUNNING, "trace-a", 1, 1)
    loop.run(buffered.create_run(record))

    async def append_and_flush() -> None:
        for seq in range(1, count + 1):
            buffered.append_event(_event(record.run_id, seq, running()))
        await buffered.flush()

    loop.run(append_and_flush())
    context.update(run_id=record.run_id, next_seq=count + 1)


@when("another session holds the store's write lock")
def _hold(context: dict[str, Any], opened: list[Any]) -> None:
    location = context["location"]
    if isinstance(location, PostgresUrl):
        holder = _PostgresLockHolder(location.url)
        opened.append(holder.release)
        context["release"] = holder.release
    else:
        sqlite_holder = StoreLockHolder(location)
        opened.append(sqlite_holder.kill)
        context["release"] = sqlite_holder.release


@when(parsers.parse("the run appends {count:d} events"))
def _append(buffered: BufferedRunStore, context: dict[str, Any], count: int) -> None:
    first = context["next_seq"]
    events = [_event(context["run_id"], first + i, delta) for i, delta in enumerate(chat_deltas(count))]

    async def append() -> None:
        for event in events:
            buffered.append_event(event)

    context["loop"].run(append())
    context["appended"] = events


@then(parsers.parse("flushing fails with a StoreWriteError holding {count:d} events of the run"))
def _flush_fails(buffered: BufferedRunStore, context: dict[str, Any], count: int) -> None:
    with pytest.raises(StoreWriteError) as failure:
        context["loop"].run(buffered.flush())
    assert (failure.value.held_events, failure.value.run_ids) == (count, (context["run_id"],))
    assert buffered.write_failure is not None


@when("the other session releases the lock")
def _release(context: dict[str, Any]) -> None:
    context["release"]()


@then(parsers.parse("the writer commits the held events and the run has events {first:d} to {last:d} with no gap"))
def _committed_after_release(buffered: BufferedRunStore, context: dict[str, Any], first: int, last: int) -> None:
    async def writer_recovered() -> None:
        # The writer retries on its own; nothing here flushes until it has committed.
        while buffered.write_failure is not None:
            await asyncio.sleep(0.01)

    loop: _Loop = context["loop"]
    loop.run(writer_recovered(), timeout=30)
    stored = loop.run(buffered.read_events(context["run_id"]))
    assert [e.seq for e in stored] == list(range(first, last + 1))
    assert stored[-len(context["appended"]) :] == context["appended"]
    run = loop.run(buffered.get_run(context["run_id"]))
    assert run is not None and run.last_seq == last


# --- PostgreSQL as the server's store (SERVICE-036) ------------------------------------------------


@given("a PostgreSQL database", target_fixture="database_url")
def _database(postgres_dsn: Callable[[], str]) -> str:
    return postgres_dsn()


@when("a server is started with that database's URL as its store", target_fixture="server")
def _server_on_postgres(serve: Any, database_url: str) -> ServedServer:
    return serve(store_path=PostgresUrl(database_url))


@when(parsers.parse("a run is opened and emits {count:d} events"))
def _run_emits(server: ServedServer, context: dict[str, Any], count: int) -> None:
    context["run"] = live = server.open_run(recipe_name="on-postgres", inputs={"metal": "gold"})
    context["emitted"] = server.emit(live, [running(), *chat_deltas(count - 1)])
    assert server.server.supervisor is not None
    server.call(server.server.supervisor._store.flush())  # committed now, not a few ms later


@then(parsers.parse("the database holds the run and its {count:d} events"))
def _database_holds(database_url: str, context: dict[str, Any], count: int) -> None:
    run_id = context["run"].run_id
    with psycopg.connect(database_url) as conn:
        run = conn.execute("SELECT recipe_name, inputs_json, last_seq FROM runs WHERE run_id = %s", (run_id,)).fetchone()
        kinds = conn.execute("SELECT seq, kind FROM events WHERE run_id = %s ORDER BY seq", (run_id,)).fetchall()
    assert run == ("on-postgres", '{"metal": "gold"}', count)
    assert kinds == [(e.seq, e.kind) for e in context["emitted"]] and len(kinds) == count


@then("no SQLite file was created")
def _no_sqlite(tmp_path: Path) -> None:
    made = [str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.suffix in (".db", ".db-wal", ".sqlite")]
    assert made == [] and not (tmp_path / "store").exists()


def _closed_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # closed again when the probe is: nothing listens there


@given(
    parsers.parse('a PostgreSQL URL with the password "{password}" for a port nothing listens on'), target_fixture="database_url"
)
def _unreachable_url(password: str, context: dict[str, Any]) -> str:
    port = _closed_loopback_port()
    context["password"] = password
    context["shown"] = f"postgresql://verity:***@127.0.0.1:{port}/verity"
    return f"postgresql://verity:{password}@127.0.0.1:{port}/verity"


@when(parsers.parse('I start "verity serve" with that URL as the store {how}'), target_fixture="served")
def _serve_unreachable(database_url: str, tmp_path: Path, how: str) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "VERITY_TOKEN"}
    if how == "in the config file":
        (tmp_path / "serve.yaml").write_text(f'store: "{database_url}"\n', encoding="utf-8")
        store = ["--config", "serve.yaml"]
    else:
        assert how == "on the command line", how
        store = ["--store", database_url]
    done = subprocess.run(
        [sys.executable, "-m", "runtime.cli.main", "serve", "--port", "0", *store, "--log-level", "DEBUG"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, env=env,
    )
    return {"code": done.returncode, "output": done.stdout + done.stderr}


@then("it exits with code 2 and a message naming the URL with its password hidden")
def _refused_hidden(served: dict[str, Any], context: dict[str, Any]) -> None:
    assert served["code"] == 2, served
    assert context["shown"] in served["output"] and "cannot open the PostgreSQL run store" in served["output"], served
    assert "Traceback" not in served["output"], served["output"]


@then(parsers.parse('the output never shows "{secret}"'))
def _never_shown(served: dict[str, Any], secret: str) -> None:
    assert secret not in served["output"], served["output"]


# --- migrations (SERVICE-037) ------------------------------------------------------------------------


def _migrations(url: str) -> list[tuple[int, str, Any]]:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT version, name, applied_at FROM schema_migrations ORDER BY version").fetchall()


@when("the PostgreSQL store is opened on it twice")
def _open_twice(database_url: str, context: dict[str, Any]) -> None:
    PostgresRunStore(PostgresUrl(database_url)).close()
    context["after_first"] = _migrations(database_url)
    PostgresRunStore(PostgresUrl(database_url)).close()


@then("schema_migrations lists every migration once, applied by the first opening")
def _listed_once(database_url: str, context: dict[str, Any]) -> None:
    rows = _migrations(database_url)
    assert [(version, name) for version, name, _ in rows] == [(version, name) for version, name, _ in MIGRATIONS]
    assert rows == context["after_first"]  # the second opening applied nothing, not even again


@then("the runs, events and artifacts tables exist")
def _tables(database_url: str) -> None:
    with psycopg.connect(database_url) as conn:
        found = conn.execute(
            "SELECT to_regclass('runs') IS NOT NULL, to_regclass('events') IS NOT NULL, to_regclass('artifacts') IS NOT NULL"
        ).fetchone()
    assert found == (True, True, True)


@given(parsers.parse("its schema_migrations records version {version:d}"))
def _newer_version(database_url: str, version: int) -> None:
    with psycopg.connect(database_url) as conn:
        conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
        conn.execute("INSERT INTO schema_migrations (version, name) VALUES (%s, 'from the future')", (version,))


@when("the PostgreSQL store is opened on it", target_fixture="open_failure")
def _open_newer(database_url: str) -> StoreError:
    with pytest.raises(StoreError) as failure:
        PostgresRunStore(PostgresUrl(database_url))
    return failure.value


@then(parsers.parse("opening fails with a message naming schema version {version:d} as newer than this Verity"))
def _newer_refused(open_failure: StoreError, database_url: str, version: int) -> None:
    message = str(open_failure)
    assert f"schema is at version {version}, newer than this Verity" in message, message
    assert f"up to {MIGRATIONS[-1][0]}" in message, message
    with psycopg.connect(database_url) as conn:
        assert conn.execute("SELECT to_regclass('runs')").fetchone() == (None,)  # nothing migrated


# --- kill -9 on PostgreSQL (SERVICE-040) -----------------------------------------------------------------

FLOOD = ("tests.service.flood_serve",)
MAX_SEEN_BEFORE_KILL = 2000


@when(
    parsers.parse(
        "a verity serve process on that database whose run emits events as fast as it can is killed with SIGKILL "
        "while a client watches, {times:d} times"
    )
)
def _kill_on_postgres(serve_processes: Any, database_url: str, tmp_path: Path, context: dict[str, Any], times: int) -> None:
    chooser = random.Random(18)  # reproducible kill points
    watched: list[WatchedRun] = []
    for _ in range(times):
        process = serve_processes(*_postgres_args(database_url, tmp_path), command=FLOOD)
        run_id = re.search(r"flood run (run-[0-9a-f]+)", process.text).group(1)  # type: ignore[union-attr]
        watched.append(_watch_then_kill(process, WatchedRun(run_id, True), chooser.randint(1, MAX_SEEN_BEFORE_KILL)))
    assert all(run.seen for run in watched)
    context["watched"] = watched


def _postgres_args(database_url: str, tmp_path: Path) -> list[str]:
    return ["--store", database_url, "--runs-dir", str(tmp_path / "runs"), "--recipes-dir", str(tmp_path)]


@when("verity serve is started again on that database")
def _restart_on_postgres(serve_processes: Any, database_url: str, tmp_path: Path, context: dict[str, Any]) -> None:
    process: ServeProcess = serve_processes(*_postgres_args(database_url, tmp_path))
    context["client"] = client = VerityClient(process.target)
    context["stored"] = {run.run_id: list(client.stream_run(run.run_id)) for run in context["watched"]}
    client.close()


@then("every event a client saw is stored in PostgreSQL under the seq it had")
def _seen_stored(context: dict[str, Any], database_url: str) -> None:
    for run in context["watched"]:
        stored = {event.seq: event for event in context["stored"][run.run_id]}
        for seen in run.seen:
            assert stored.get(seen.seq) == seen, f"{run.run_id}: seq {seen.seq} as seen differs from the store"
    with psycopg.connect(database_url) as conn:
        counts = dict(conn.execute("SELECT run_id, count(*) FROM events GROUP BY run_id").fetchall())
    assert counts == {run.run_id: len(context["stored"][run.run_id]) for run in context["watched"]}


@then("each run ended stopped with stop reason interrupted, its seqs without a gap")
def _interrupted_on_postgres(context: dict[str, Any]) -> None:
    for run in context["watched"]:
        stored = context["stored"][run.run_id]
        assert [e.seq for e in stored] == list(range(1, len(stored) + 1))
        assert stored[-1].final_verdict.stop_reason == events_pb.STOP_REASON_INTERRUPTED
        assert stored[-2].status_changed.status == events_pb.TASK_STATE_STOPPED

