"""Bindings of features/service_replicas.feature: several servers on one real PostgreSQL database.

Streams are read with the raw StreamRun stub (not `VerityClient.stream_run`, which drops a seq it
has already seen), so a duplicate the servers send would show.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import psycopg
import pytest
from pytest_bdd import given, parsers, scenario, scenarios, then, when
from tests.fixtures.site_server import FixtureSite
from tests.service.run_steps import *  # noqa: F403 - pytest-bdd step fixtures
from tests.service.run_steps import run_inputs
from tests.service.replica_cache_steps import *  # noqa: F403 - pytest-bdd step fixtures
from tests.service.service_harness import ServedServer, chat_deltas, running

from runtime.outcomes import StopReason, TaskState
from runtime.client import VerityClient, VerityRpcError
from runtime.service.gen.verity.v1 import agent_service_pb2 as agent_pb
from runtime.service.gen.verity.v1 import events_pb2 as events_pb
from runtime.store import RunUpdate
from runtime.store.location import PostgresUrl
from tests.fixtures.gemini_fixtures import FIXTURE_API_KEY
from tests.fixtures.gemini_server import GeminiServer

RECIPES = Path(__file__).resolve().parents[1] / "fixtures" / "recipes"

REPLICAS = ("A", "B", "C")
# Bounds on waiting for a condition, never a measure of speed: a loaded machine only takes longer.
DEADLINE_SECONDS = 120.0


@pytest.mark.timeout(600)
@scenario("service_replicas.feature", "Three replicas share the runs; killing one interrupts its runs and the others keep serving")
def test_three_replicas() -> None:
    pass


scenarios("service_replicas.feature")


def wait_until(condition: Callable[[], Any], what: str, timeout: float = DEADLINE_SECONDS) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        time.sleep(0.05)


class RawStream:
    """StreamRun read in a thread with the raw stub: every event as the server sent it."""

    def __init__(self, client: VerityClient, run_id: str, after_seq: int = 0) -> None:
        self.events: list[events_pb.Event] = []
        self.error: grpc.RpcError | None = None
        self.done = threading.Event()
        self._call = client.agent.StreamRun(agent_pb.StreamRunRequest(run_id=run_id, after_seq=after_seq), metadata=client._metadata)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for response in self._call:
                self.events.extend(response.events)
        except grpc.RpcError as error:
            self.error = error
        finally:
            self.done.set()

    @property
    def seqs(self) -> list[int]:
        return [event.seq for event in self.events]

    def join(self, timeout: float = DEADLINE_SECONDS) -> RawStream:
        assert self.done.wait(timeout), f"the stream is still open after {timeout}s ({len(self.events)} events)"
        return self

    def cancel(self) -> None:
        self._call.cancel()


def stop_reason(name: str) -> int:
    return events_pb.StopReason.Value(f"STOP_REASON_{name.upper()}")


def task_state(name: str) -> int:
    return events_pb.TaskState.Value(f"TASK_STATE_{name.upper()}")


REPLICA_HANG_RECIPE = """\
name: replica-hang
version: "1"
goal: 用浏览器 open a page that never answers, for as long as a test needs
inputs:
  site:
    type: string
target:
  start_url: "{site}/hang"
  allowed_domains: ["127.0.0.1"]
plan:
  - id: open
    navigate: "{start_url}"
    timeout_ms: 600000
"""


# --- three verity serve replicas -------------------------------------------------------------------


@pytest.fixture
def replicas(context: dict[str, Any]) -> dict[str, Any]:
    return context.setdefault("replicas", {})


@given(
    parsers.parse("three verity serve replicas on one PostgreSQL store, each running at most one run, with a {lease:d} second lease"),
)
def _three_replicas(
    serve_processes: Any,
    postgres_dsn: Any,
    tmp_path: Path,
    recipes_dir: Path,
    context: dict[str, Any],
    replicas: dict[str, Any],
    lease: int,
    gemini: GeminiServer,
) -> None:
    # Its step waits as long as the test may take (the fixture site's service-hang gives up after
    # the default step timeout, which a loaded machine can outlast).
    (recipes_dir / "replica-hang.yaml").write_text(REPLICA_HANG_RECIPE)
    (recipes_dir / "agent-order-desk.yaml").write_text((RECIPES / "agent-order-desk.yaml").read_text(encoding="utf-8"))
    context["url"] = url = postgres_dsn()
    # Every replica's agent steps ask the scripted model on loopback, as a team's would its provider.
    model = {**gemini.env(api_key=FIXTURE_API_KEY, timeout_ms=60_000), "GOOGLE_API_KEY": ""}
    for name in REPLICAS:
        # Each replica has a directory of its own, as on separate machines; the database is shared.
        replicas[name] = serve_processes(
            "--store", url, "--runs-dir", str(tmp_path / name / "runs"), "--recipes-dir", str(recipes_dir),
            "--allow-private-network", "--max-concurrent-runs", "1", "--lease-seconds", str(lease),
            env=model,
        )


def client_of(context: dict[str, Any], client_for: Any, name: str) -> VerityClient:
    return client_for(context["replicas"][name].target)


def placements(context: dict[str, Any]) -> dict[str, str | None]:
    """run id -> the target of the replica running it (None while queued), from the shared tables."""
    with psycopg.connect(context["url"], autocommit=True) as conn:
        rows = conn.execute(
            "SELECT p.run_id, x.target FROM run_placements p LEFT JOIN replicas x ON x.replica_id = p.replica_id"
        ).fetchall()
    return dict(rows)


def replica_running(context: dict[str, Any], run_id: str) -> str:
    """Which of A, B, C runs `run_id` (once one has claimed it)."""
    by_target = {process.target: name for name, process in context["replicas"].items()}
    target = wait_until(lambda: placements(context).get(run_id), f"a replica claimed {run_id}")
    return by_target[target]


def wait_for_status(client: VerityClient, run_id: str, status: str) -> Any:
    return wait_until(
        lambda: (run := client.get_run(run_id).run).status == task_state(status) and run, f"run {run_id} is {status}"
    )


@when(parsers.parse('a client starts {count:d} runs of "{name}" on replica {replica}'))
def _start_runs(client_for: Any, site: FixtureSite, context: dict[str, Any], count: int, name: str, replica: str) -> None:
    client = client_of(context, client_for, replica)
    context["runs"] = [client.start_run(recipe_name=name, inputs=run_inputs(site)).run_id for _ in range(count)]


@then("each replica runs one of them")
def _one_each(client_for: Any, context: dict[str, Any]) -> None:
    owners = {replica_running(context, run_id): run_id for run_id in context["runs"]}
    assert sorted(owners) == list(REPLICAS), owners
    for run_id in context["runs"]:
        wait_for_status(client_of(context, client_for, "B"), run_id, "running")
    context["run_on"] = owners


@when("a client streams replica A's run from replica B and stops it from replica C")
def _stream_b_stop_c(client_for: Any, context: dict[str, Any]) -> None:
    run_id = context["run_on"]["A"]
    stream = context["stream"] = RawStream(client_of(context, client_for, "B"), run_id)
    wait_until(lambda: stream.events, "the stream from B got the run's first event")
    context["stopped"] = client_of(context, client_for, "C").stop_run(run_id)


@then("the stream from replica B ends stopped with stop reason manual_stop, every event once in order")
def _stream_ended_stopped(context: dict[str, Any]) -> None:
    assert context["stopped"].stop_reason == stop_reason("manual_stop"), context["stopped"]
    stream = context["stream"].join()
    assert stream.error is None, stream.error
    assert stream.seqs == list(range(1, len(stream.seqs) + 1)), stream.seqs
    final = stream.events[-1]
    assert final.HasField("final_verdict") and final.final_verdict.stop_reason == stop_reason("manual_stop"), final


@when(parsers.parse('a client starts "{name}" on replica B and approves its confirmation on replica C'))
def _approve_elsewhere(client_for: Any, site: FixtureSite, context: dict[str, Any], name: str) -> None:
    started = client_of(context, client_for, "B").start_run(recipe_name=name, inputs=run_inputs(site))
    run_id, context["approval_trace"] = started.run_id, started.trace_id
    stream = context["stream"] = RawStream(client_of(context, client_for, "B"), run_id)
    asked = wait_until(
        lambda: next((e for e in stream.events if e.HasField("confirmation_requested")), None), "the run asked for confirmation"
    )
    assert replica_running(context, run_id) == "A"  # the only replica with a free slot
    pending = client_of(context, client_for, "C").get_run(run_id).pending_confirmations
    assert [p.request_id for p in pending] == [asked.confirmation_requested.request_id]
    client_of(context, client_for, "C").confirm_action(run_id, asked.confirmation_requested.request_id, approve=True)


@then("the run ends completed, as streamed from replica B, in the trace StartRun answered with")
def _completed_from_b(context: dict[str, Any]) -> None:
    stream = context["stream"].join()
    assert stream.error is None, stream.error
    assert stream.seqs == list(range(1, len(stream.seqs) + 1)), stream.seqs
    final = stream.events[-1]
    assert final.HasField("final_verdict") and final.final_verdict.stop_reason == stop_reason("completed"), final
    # The replica that claimed it ran it in the trace StartRun answered with on another replica.
    assert {e.trace_id for e in stream.events} == {context["approval_trace"]}


@when(parsers.parse('a client starts "{name}" on replica C, watches it on replica A, and replica A is killed with SIGKILL'))
def _kill_a(client_for: Any, site: FixtureSite, context: dict[str, Any], name: str) -> None:
    run_id = context["killed_run"] = client_of(context, client_for, "C").start_run(recipe_name=name, inputs=run_inputs(site)).run_id
    assert replica_running(context, run_id) == "A"
    stream = context["stream"] = RawStream(client_of(context, client_for, "A"), run_id)
    wait_for_status(client_of(context, client_for, "C"), run_id, "running")
    wait_until(lambda: any(e.status_changed.status == task_state("running") for e in stream.events), "the watcher on A saw it running")
    context["replicas"]["A"].kill_group()
    stream.join()
    assert stream.error is not None  # the stream broke with its server
    context["seen"] = list(stream.events)


@then("the run is interrupted once replica A's lease has expired")
def _interrupted(client_for: Any, context: dict[str, Any]) -> None:
    run = wait_until(
        lambda: (r := client_of(context, client_for, "B").get_run(context["killed_run"]).run).status == task_state("stopped") and r,
        "the killed replica's run was closed",
    )
    assert run.stop_reason == stop_reason("interrupted"), run


@then("resuming the stream on replica B after the last seq it saw yields every other event exactly once, ending interrupted")
def _resumed(client_for: Any, context: dict[str, Any]) -> None:
    seen = context["seen"]
    after = seen[-1].seq
    rest = RawStream(client_of(context, client_for, "B"), context["killed_run"], after_seq=after).join()
    assert rest.error is None, rest.error
    seqs = [e.seq for e in seen] + rest.seqs
    assert seqs == list(range(1, len(seqs) + 1)), seqs
    final = rest.events[-1]
    assert final.HasField("final_verdict") and final.final_verdict.stop_reason == stop_reason("interrupted"), final


@then("replicas B and C still serve: their runs are listed running from either, and stop on request")
def _others_serve(client_for: Any, context: dict[str, Any]) -> None:
    theirs = {context["run_on"]["B"], context["run_on"]["C"]}
    for name in ("B", "C"):
        listed = client_of(context, client_for, name).list_runs(statuses=[task_state("running")]).runs
        assert {run.run_id for run in listed} == theirs, listed
    # Each stopped from the other replica.
    stopped_b = client_of(context, client_for, "C").stop_run(context["run_on"]["B"])
    stopped_c = client_of(context, client_for, "B").stop_run(context["run_on"]["C"])
    assert stopped_b.stop_reason == stop_reason("manual_stop") and stopped_c.stop_reason == stop_reason("manual_stop")


# --- in-process servers on one store ------------------------------------------------------------------


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
