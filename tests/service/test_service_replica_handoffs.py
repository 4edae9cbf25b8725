"""Bindings of features/service_replica_handoffs.feature: two in-process servers on one real
PostgreSQL database, as two replicas. The streams are raw (replica_streams.py), so a duplicate
the servers send would show.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import psycopg
import pytest
from pytest_bdd import given, parsers, scenarios, then, when
from tests.service.replica_streams import RawStream, stop_reason, task_state, wait_until
from tests.service.service_harness import ServedServer, chat_deltas, running

from runtime.outcomes import StopReason, TaskState
from runtime.client import VerityRpcError
from runtime.store import RunUpdate
from runtime.store.location import PostgresUrl

scenarios("service_replica_handoffs.feature")


@given("two in-process servers on one PostgreSQL store", target_fixture="pair")
def _two_servers(serve: Callable[..., ServedServer], postgres_dsn: Any, tmp_path: Path) -> tuple[ServedServer, ServedServer]:
    url = PostgresUrl(postgres_dsn())
    return tuple(  # type: ignore[return-value]
        serve(store_path=url, runs_dir=tmp_path / name / "runs", lease_seconds=30, replica_poll_seconds=0.5) for name in ("first", "second")
    )


@when(parsers.parse("a run on the first server emits {count:d} events in paced bursts while 3 clients of the second server join at different moments"))
def _paced_run(pair: tuple[ServedServer, ServedServer], context: dict[str, Any], count: int) -> None:
    first, second = pair
    live = first.open_run("replicated")
    first.emit(live, [running()])
    streams = [RawStream(second.client(), live.run_id)]
    wait_until(lambda: streams[0].events, "the first client got the first event")
    deltas = chat_deltas(count)
    third = count // 3
    first.emit_paced(live, deltas[:third], chunk=10, pause=0.005)
    streams.append(RawStream(second.client(), live.run_id))
    first.emit_paced(live, deltas[third : 2 * third], chunk=10, pause=0.005)
    streams.append(RawStream(second.client(), live.run_id, after_seq=5))
    first.emit_paced(live, deltas[2 * third :], chunk=10, pause=0.005)
    first.finish(live)
    context["streams"] = streams
    context["last_seq"] = count + 3
    context["after"] = [0, 0, 5]


@then("every client of the second server received every event of the run once, in seq order, ending with its final verdict")
def _every_event_once(context: dict[str, Any]) -> None:
    for stream, after in zip(context["streams"], context["after"]):
        stream.join()
        assert stream.error is None, stream.error
        assert stream.seqs == list(range(after + 1, context["last_seq"] + 1)), stream.seqs
        assert stream.events[-1].HasField("final_verdict")


@when("the first server shuts down gracefully with a run in flight")
def _graceful(pair: tuple[ServedServer, ServedServer], context: dict[str, Any]) -> None:
    first, _ = pair
    live = first.open_run("drained")
    first.emit(live, [running()])
    context["run_id"] = live.run_id
    context["replica_id"] = first.server.supervisor.replica_id  # type: ignore[union-attr]
    first.stop(grace=0.2)


@then("the run ends interrupted and the first server has left the replicas")
def _left(pair: tuple[ServedServer, ServedServer], context: dict[str, Any]) -> None:
    _, second = pair
    run = second.client().get_run(context["run_id"]).run
    assert run.status == task_state("stopped") and run.stop_reason == stop_reason("interrupted"), run
    url = second.config.store_path.url  # type: ignore[union-attr]
    with psycopg.connect(url, autocommit=True) as conn:
        left = conn.execute("SELECT count(*) FROM replicas WHERE replica_id = %s", (context["replica_id"],)).fetchone()
    assert left == (0,)


@then("the second server serves the ended run")
def _serves_ended(pair: tuple[ServedServer, ServedServer], context: dict[str, Any]) -> None:
    _, second = pair
    stream = RawStream(second.client(), context["run_id"]).join()
    assert stream.error is None, stream.error
    assert stream.seqs == list(range(1, len(stream.seqs) + 1))
    assert stream.events[-1].final_verdict.stop_reason == stop_reason(StopReason.INTERRUPTED.value)


@when("a run on the first server is running and the first server's lease row disappears, as when its lease expired")
def _lease_row_gone(pair: tuple[ServedServer, ServedServer], context: dict[str, Any]) -> None:
    first, _ = pair
    live = context["live"] = first.open_run("paused")
    first.emit(live, [running(), *chat_deltas(5)])
    first.call(first.server.supervisor._store.flush())  # type: ignore[union-attr]
    with psycopg.connect(first.config.store_path.url, autocommit=True) as conn:  # type: ignore[union-attr]
        conn.execute("DELETE FROM replicas WHERE replica_id = %s", (first.server.supervisor.replica_id,))  # type: ignore[union-attr]


@then("the run is closed as interrupted, streamed from the second server with one final verdict and no gap")
def _interrupted_once(pair: tuple[ServedServer, ServedServer], context: dict[str, Any]) -> None:
    _, second = pair
    stream = RawStream(second.client(), context["live"].run_id).join()
    assert stream.error is None, stream.error
    assert stream.seqs == list(range(1, len(stream.seqs) + 1)), stream.seqs
    finals = [e for e in stream.events if e.HasField("final_verdict")]
    assert len(finals) == 1 and finals[0] is stream.events[-1], finals
    assert finals[0].final_verdict.stop_reason == stop_reason("interrupted")
    context["final_seq"] = finals[0].seq


@then("an update of the ended run written later by the first server leaves its stored verdict as it was")
def _verdict_kept(pair: tuple[ServedServer, ServedServer], context: dict[str, Any]) -> None:
    first, second = pair
    store = first.server.supervisor._store  # type: ignore[union-attr]
    ended = first.call(store.get_run(context["live"].run_id))
    reopened = dataclasses.replace(
        ended, status=TaskState.RUNNING, stop_reason=None, ended_ns=None, summary="", last_seq=ended.last_seq + 7
    )
    store.update_run(RunUpdate.of(reopened))
    first.call(store.flush())
    run = second.client().get_run(context["live"].run_id).run
    assert run.status == task_state("stopped") and run.stop_reason == stop_reason("interrupted"), run
    assert run.last_seq == context["final_seq"]


QUEUED_RECIPE = """\
name: queued-run
version: "1"
goal: open one page
target:
  start_url: "http://127.0.0.1:9/"
  allowed_domains: ["127.0.0.1"]
plan:
  - id: open
    navigate: "{start_url}"
"""


@given("two in-process servers on one PostgreSQL store, each running at most one run, both busy", target_fixture="pair")
def _two_busy_servers(serve: Callable[..., ServedServer], postgres_dsn: Any, tmp_path: Path) -> tuple[ServedServer, ServedServer]:
    url = PostgresUrl(postgres_dsn())
    pair = tuple(
        serve(store_path=url, runs_dir=tmp_path / name / "runs", lease_seconds=30, replica_poll_seconds=0.5, max_concurrent_runs=1)
        for name in ("first", "second")
    )
    for server in pair:
        busy = server.open_run("busy")
        server.emit(busy, [running()])  # its one slot is taken
        # A server commits its events in batches: its own listing commits what it holds first, so
        # after this the store says running and the other server cannot list the busy run created.
        assert busy.run_id in [run.run_id for run in server.client().list_runs(statuses=[task_state("running")]).runs]
    return pair  # type: ignore[return-value]


@when("a client starts a run on the first server")
def _start_queued(pair: tuple[ServedServer, ServedServer], context: dict[str, Any]) -> None:
    started = pair[0].client().start_run(recipe_yaml=QUEUED_RECIPE)
    context["run_id"], context["trace_id"] = started.run_id, started.trace_id


@then("the run is listed created on both servers with the trace id StartRun answered, and no replica has claimed it")
def _listed_created(pair: tuple[ServedServer, ServedServer], context: dict[str, Any]) -> None:
    for server in pair:
        listed = server.client().list_runs(statuses=[task_state("created")]).runs
        assert [run.run_id for run in listed] == [context["run_id"]], listed
        # StartRun answered with the trace the run will have, though no replica has started it.
        assert listed[0].trace_id == context["trace_id"] and len(context["trace_id"]) == 32 and int(context["trace_id"], 16)
    with psycopg.connect(pair[0].config.store_path.url, autocommit=True) as conn:  # type: ignore[union-attr]
        placed = conn.execute("SELECT replica_id FROM run_placements WHERE run_id = %s", (context["run_id"],)).fetchone()
    assert placed == (None,)


@then("confirming anything for it is refused as not pending, since it is queued")
def _confirm_queued(pair: tuple[ServedServer, ServedServer], context: dict[str, Any]) -> None:
    with pytest.raises(VerityRpcError) as refused:
        pair[1].client().confirm_action(context["run_id"], "request-1", approve=True)
    assert refused.value.code == grpc.StatusCode.FAILED_PRECONDITION and refused.value.reason == "CONFIRMATION_NOT_PENDING"
    assert "queued" in refused.value.message


@when("a client stops the run on the second server")
def _stop_queued(pair: tuple[ServedServer, ServedServer], context: dict[str, Any]) -> None:
    context["stopped"] = pair[1].client().stop_run(context["run_id"])


@then("the run is stopped with stop reason manual_stop, its stream a status change and a final verdict")
def _stopped_unstarted(pair: tuple[ServedServer, ServedServer], context: dict[str, Any]) -> None:
    assert context["stopped"].status == task_state("stopped") and context["stopped"].stop_reason == stop_reason("manual_stop")
    stream = RawStream(pair[0].client(), context["run_id"]).join()
    assert stream.error is None, stream.error
    assert [e.WhichOneof("payload") for e in stream.events] == ["status_changed", "final_verdict"]
    assert stream.seqs == [1, 2]
    assert stream.events[-1].final_verdict.stop_reason == stop_reason("manual_stop")
