"""Bindings of features/service_store_held_writes.feature: the write buffer in front of either run
store holds what it cannot write (a lock another session holds, connections the database cut) and
commits it once the store answers again.

The PostgreSQL server is real (tests/fixtures/postgres.py): each test gets fresh databases.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import psycopg
import pytest
from pytest_bdd import given, parsers, scenarios, then, when
from tests.service.service_harness import StoreLockHolder, chat_deltas, running, stored_event

from runtime.outcomes import TaskState
from runtime.store import BufferedRunStore, StoreWriteError
from runtime.store.location import PostgresUrl
from runtime.store.opening import open_run_store
from runtime.store.records import RunRecord

scenarios("service_store_held_writes.feature")

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
            buffered.append_event(stored_event(record.run_id, seq, running()))
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
    events = [stored_event(context["run_id"], first + i, delta) for i, delta in enumerate(chat_deltas(count))]

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
