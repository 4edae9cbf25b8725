"""Bindings of features/service_store_postgres.feature: the PostgreSQL run store, and the store
conformance scenarios that one test body runs against both stores (Examples: sqlite, postgresql).

The PostgreSQL server is real (tests/fixtures/postgres.py): each test gets fresh databases.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import logging
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import grpc
import psycopg
import pytest
from pytest_bdd import given, parsers, scenarios, then, when
from tests.service.service_harness import ServedServer, ServeProcess, StoreLockHolder, chat_deltas, running
from tests.service.kill_cycles import KillStore, kill_repeatedly

from runtime.events import ArtifactStored, ChatDelta, Event, StatusChanged
from runtime.outcomes import StopReason, TaskState
from runtime.client import VerityClient, VerityRpcError
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


# --- one store, two implementations (SERVICE-038) ------------------------------------------------


@given(parsers.parse("an empty {kind} run store"), target_fixture="store")
def _empty_store(kind: str, store_location: Callable[[str], Any], opened: list[Any]) -> RunStore:
    store = open_run_store(store_location(kind))
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


@when(parsers.parse('the run is updated with the summary "{summary}" and an event in one batch'))
def _update_with_nul(store: RunStore, context: dict[str, Any], summary: str) -> None:
    run_id = context["run_id"]
    seq = len(context["events"]) + 1
    event = _event(run_id, seq, ChatDelta(text="after the summary"))
    update = RunUpdate(run_id, TaskState.COMPLETED, event.timestamp_ns, seq, "trace-a", summary=summary.replace("<NUL>", "\x00"))
    store.write_batch(WriteBatch(events=[event], run_updates={run_id: update}))
    context["events"].append(event)


@then(parsers.parse('the run\'s summary reads back as "{summary}" and the event is stored'))
def _summary_read_back(store: RunStore, context: dict[str, Any], summary: str) -> None:
    run = store.get_run(context["run_id"])
    expected = summary.encode().decode("unicode_escape")  # the Examples write \x00 and \ufffd escaped
    assert run is not None and run.summary == expected and run.status is TaskState.COMPLETED, run
    assert store.read_events(context["run_id"]) == context["events"]


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
    kind: str, seconds: float, store_location: Callable[[str], Any], opened: list[Any], context: dict[str, Any]
) -> BufferedRunStore:
    context["location"] = location = store_location(kind)
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
        # The writer retries on its own; nothing here flushes (a read would) until it has
        # committed every event this buffer was given.
        while buffered.committed_events < last - first + 1 or buffered.write_failure is not None:
            await asyncio.sleep(0.01)

    loop: _Loop = context["loop"]
    loop.run(writer_recovered(), timeout=30)
    stored = loop.run(buffered.read_events(context["run_id"]))
    assert [e.seq for e in stored] == list(range(first, last + 1))
    assert stored[-len(context["appended"]) :] == context["appended"]
    run = loop.run(buffered.get_run(context["run_id"]))
    assert run is not None and run.last_seq == last


def _store_backends(url: str) -> set[int]:
    """Process ids of the sessions other than this one connected to the database of `url`."""
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
    return {pid for (pid,) in rows}


@when("the database server cuts every connection of the store")
def _cut(context: dict[str, Any]) -> None:
    url = context["location"].url
    context["cut"] = cut = _store_backends(url)
    assert cut, "the store holds no connection to cut"
    with psycopg.connect(url) as conn:
        conn.execute("SELECT pg_terminate_backend(pid) FROM unnest(%s::int[]) AS pid", (list(cut),))


@then("the store now writes through a connection opened after the cut")
def _new_connection(context: dict[str, Any]) -> None:
    now = _store_backends(context["location"].url)
    assert now and not now & context["cut"], (now, context["cut"])


@then("the outage was reported once, naming the cut, and then that writing works again")
def _outage_reported(caplog: pytest.LogCaptureFixture) -> None:
    # A pool hands out a pooled connection without a round trip first, so the first write meets the cut.
    messages = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "runtime.store.buffered"]
    errors = [m for level, m in messages if level == logging.ERROR]
    assert len(errors) == 1 and "AdminShutdown" in errors[0] and "held in memory and retried" in errors[0], messages
    assert messages[-1][1].startswith("run store: writing works again; committed"), messages


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
    parsers.parse('a PostgreSQL URL with the password "{password}" {where} for a port nothing listens on'),
    target_fixture="database_url",
)
def _unreachable_url(password: str, where: str, context: dict[str, Any]) -> str:
    port = _closed_loopback_port()
    if where == "as a query parameter":
        context["shown"] = f"postgresql://verity@127.0.0.1:{port}/verity?connect_timeout=5&password=***"
        return f"postgresql://verity@127.0.0.1:{port}/verity?connect_timeout=5&password={password}"
    assert where == "in its user part", where
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


# --- artifact bytes shared through the database (SERVICE-041) ---------------------------------------

SCREENSHOT = b"\x89PNG\r\n\x1a\n" + b"shared screenshot " * 400
REPORT = b"<!doctype html><html><body>" + b"report line<br>" * 300 + b"</body></html>"


def _record_artifact(server: ServedServer, live: Any, kind: str, name: str, data: bytes, *, recorded: bytes | None = None) -> None:
    """Write `data` into the run's directory and emit its ArtifactStored, as the engine does, listed as `recorded`."""
    listed = data if recorded is None else recorded
    relative = f"artifacts/{kind}/{name}"
    file = server.config.runs_dir / live.run_id / relative
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_bytes(data)
    server.emit(
        live,
        [ArtifactStored(artifact_id=f"{kind}-{name}", artifact_kind=kind, path=relative, media_type="application/octet-stream",
                        size=len(listed), sha256=hashlib.sha256(listed).hexdigest())],
    )


@given(
    "a server on that database whose run recorded a screenshot and a report, and whose second run recorded the same screenshot",
    target_fixture="first_server",
)
def _server_with_artifacts(serve: Any, database_url: str, tmp_path: Path, context: dict[str, Any]) -> ServedServer:
    server = serve(store_path=PostgresUrl(database_url), runs_dir=tmp_path / "first-runs")
    first, second = server.open_run(recipe_name="first"), server.open_run(recipe_name="second")
    _record_artifact(server, first, "screenshot", "page.png", SCREENSHOT)
    _record_artifact(server, first, "report", "report.html", REPORT)
    _record_artifact(server, second, "screenshot", "again.png", SCREENSHOT)
    server.finish(first)
    server.finish(second)
    context["runs"] = [first.run_id, second.run_id]
    context["contents"] = {hashlib.sha256(SCREENSHOT).hexdigest(): SCREENSHOT, hashlib.sha256(REPORT).hexdigest(): REPORT}
    return server


@given("a server on that database whose run recorded a screenshot whose file holds other bytes than recorded", target_fixture="first_server")
def _server_with_changed_artifact(serve: Any, database_url: str, tmp_path: Path, context: dict[str, Any]) -> ServedServer:
    server = serve(store_path=PostgresUrl(database_url), runs_dir=tmp_path / "first-runs")
    live = server.open_run(recipe_name="changed")
    _record_artifact(server, live, "screenshot", "page.png", b"bytes written later " * 50, recorded=SCREENSHOT)
    server.finish(live)
    context["runs"] = [live.run_id]
    context["artifact_id"] = "screenshot-page.png"
    return server


@when("that server is stopped and its run directories are deleted")
def _first_gone(first_server: ServedServer) -> None:
    first_server.stop()
    shutil.rmtree(first_server.config.runs_dir)


@when("another server with run directories of its own is started on that database", target_fixture="server")
def _other_server(serve: Any, database_url: str, tmp_path: Path) -> ServedServer:
    return serve(store_path=PostgresUrl(database_url), runs_dir=tmp_path / "other-runs")


@then("GetArtifact on the other server returns every listed artifact's bytes, matching its sha256 and size")
def _served_from_database(server: ServedServer, context: dict[str, Any], tmp_path: Path) -> None:
    client = server.client()
    fetched = 0
    for run_id in context["runs"]:
        for artifact in client.get_run(run_id).artifacts:
            destination = io.BytesIO()
            info = client.download_artifact(run_id, artifact.artifact_id, destination, chunk_bytes=1024)
            assert destination.getvalue() == context["contents"][info.sha256]
            fetched += 1
    assert fetched == 3
    assert not (tmp_path / "first-runs").exists()  # the bytes can only have come from the database


def _blobs(database_url: str) -> list[tuple[str, int]]:
    with psycopg.connect(database_url) as conn:
        return conn.execute("SELECT sha256, size FROM blobs ORDER BY sha256").fetchall()


@then(parsers.parse("the database keeps one copy of each content: {blobs:d} blobs for {rows:d} artifact rows"))
def _deduplicated(database_url: str, context: dict[str, Any], blobs: int, rows: int) -> None:
    assert _blobs(database_url) == sorted((sha, len(data)) for sha, data in context["contents"].items())
    assert len(context["contents"]) == blobs
    with psycopg.connect(database_url) as conn:
        assert conn.execute("SELECT count(*) FROM artifacts").fetchone() == (rows,)


@then("GetArtifact of that screenshot on the other server fails with DATA_LOSS ARTIFACT_MISSING")
def _not_served(server: ServedServer, context: dict[str, Any]) -> None:
    destination = io.BytesIO()
    with pytest.raises(VerityRpcError) as failure:
        server.client().download_artifact(context["runs"][0], context["artifact_id"], destination)
    assert (failure.value.code, failure.value.reason) == (grpc.StatusCode.DATA_LOSS, "ARTIFACT_MISSING")
    assert destination.getvalue() == b""


@then("the database keeps no blob")
def _no_blob(database_url: str) -> None:
    assert _blobs(database_url) == []


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


@when(parsers.parse("the PostgreSQL store is opened on it by {count:d} threads at the same moment"))
def _open_together(database_url: str, context: dict[str, Any], count: int) -> None:
    start = threading.Barrier(count)
    outcomes: list[str] = []

    def open_store() -> None:
        start.wait()  # released together: their migrations contend for the same fresh database
        try:
            PostgresRunStore(PostgresUrl(database_url)).close()
            outcomes.append("opened")
        except StoreError as error:
            outcomes.append(str(error))

    threads = [threading.Thread(target=open_store) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    context["outcomes"] = outcomes
    context["openers"] = count


@then("every opening succeeded")
def _all_opened(context: dict[str, Any]) -> None:
    assert context["outcomes"] == ["opened"] * context["openers"], context["outcomes"]


@then("schema_migrations lists every migration once")
def _each_once(database_url: str) -> None:
    assert [(version, name) for version, name, _ in _migrations(database_url)] == [(v, n) for v, n, _ in MIGRATIONS]


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

@when(
    parsers.parse(
        "a verity serve process on that database whose run emits events as fast as it can is killed with SIGKILL "
        "while a client watches, {times:d} times"
    )
)
def _kill_on_postgres(serve_processes: Any, database_url: str, tmp_path: Path, context: dict[str, Any], times: int) -> None:
    store = KillStore(tmp_path, store_url=database_url)
    watched = kill_repeatedly(serve_processes, store, times, seed=18)
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

