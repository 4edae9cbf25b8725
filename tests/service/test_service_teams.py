"""Bindings of features/service_teams.feature: retry-safe starts on a real server, its real run
store, and two replicas on a real PostgreSQL database."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from pytest_bdd import given, parsers, scenarios, then, when
from tests.fixtures.site_server import FixtureSite
from tests.service.lost_replies import LoseReplies, losing_replies
from tests.service.run_steps import *  # noqa: F403 - pytest-bdd step fixtures
from tests.service.run_steps import run_inputs
from tests.service.service_harness import ServedServer, running

from runtime.client import VerityClient, VerityRpcError
from runtime.outcomes import TaskState
from runtime.service.gen.verity.v1 import events_pb2 as events_pb
from runtime.store import RunRecord
from runtime.store.location import PostgresUrl
from runtime.store.opening import open_run_store
from runtime.store.run_keys import KeyHolder, RunKey

scenarios("service_teams.feature")

HOUR_NS = 3600 * 10**9


def _all_runs(client: VerityClient) -> list[str]:
    return [run.run_id for run in client.iter_runs()]


def _refused_reuse(context: dict[str, Any], attempt: Callable[[], Any]) -> None:
    with pytest.raises(VerityRpcError) as refused:
        attempt()
    error = refused.value
    assert error.code == grpc.StatusCode.ALREADY_EXISTS, error
    assert error.reason == "IDEMPOTENCY_KEY_REUSED" and error.metadata["run_id"] == context["first_run"], error


# --- one server -------------------------------------------------------------------------------------


@when(parsers.parse('a client starts "{name}" with an idempotency key and the first reply is lost'))
def _start_losing_reply(target: str, client_for: Any, site: FixtureSite, context: dict[str, Any], name: str) -> None:
    context["key"] = key = str(uuid.uuid4())
    context["lose"] = lose = LoseReplies("StartRun")
    client = losing_replies(client_for(target), lose)
    context["retried"] = client.start_run(recipe_name=name, inputs=run_inputs(site), idempotency_key=key)


@then("its retry answers with the run the first attempt started, the only run the server lists")
def _one_run(target: str, client_for: Any, context: dict[str, Any]) -> None:
    (lost,) = context["lose"].lost  # the first attempt reached the server and started a run
    retried = context["retried"]
    assert retried.run_id == lost.run_id and retried.trace_id == lost.trace_id, (retried, lost)
    context["first_run"] = lost.run_id
    assert _all_runs(client_for(target)) == [lost.run_id]


@when(parsers.parse('the client runs "{name}" with Run and the same key'))
def _run_same_key(target: str, client_for: Any, site: FixtureSite, context: dict[str, Any], name: str) -> None:
    context["events"] = list(client_for(target).run(recipe_name=name, inputs=run_inputs(site), idempotency_key=context["key"]))


@then("the stream is that run's, from seq 1 to its final verdict")
def _stream_of_first(target: str, client_for: Any, context: dict[str, Any]) -> None:
    events = context["events"]
    assert {e.run_id for e in events} == {context["first_run"]}
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert events[0].status_changed.status == events_pb.TASK_STATE_CREATED and events[-1].HasField("final_verdict")
    assert _all_runs(client_for(target)) == [context["first_run"]]


@when(parsers.parse('the client starts "{name}" with the same key'))
def _start_other(target: str, client_for: Any, site: FixtureSite, context: dict[str, Any], name: str) -> None:
    client = client_for(target)
    context["attempt"] = lambda: client.start_run(recipe_name=name, inputs=run_inputs(site), idempotency_key=context["key"])


@then("the start is refused ALREADY_EXISTS with reason IDEMPOTENCY_KEY_REUSED naming the first run, and no run is added")
def _refused(target: str, client_for: Any, context: dict[str, Any]) -> None:
    _refused_reuse(context, context["attempt"])
    assert _all_runs(client_for(target)) == [context["first_run"]]


@then("a key of 129 characters is refused INVALID_ARGUMENT at idempotency_key")
def _long_key(target: str, client_for: Any, site: FixtureSite) -> None:
    with pytest.raises(VerityRpcError) as refused:
        client_for(target).start_run(recipe_name="service-article", inputs=run_inputs(site), idempotency_key="k" * 129)
    assert refused.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert [v.field for v in refused.value.field_violations] == ["idempotency_key"], refused.value


@when(parsers.parse('the server restarts on its store and the client starts "{name}" with the same key again'))
def _restart_and_retry(serve: Callable[..., ServedServer], recipes_dir: Path, site: FixtureSite, context: dict[str, Any], name: str) -> None:
    context["server"].stop()
    context["server"] = server = serve(recipes_dir=recipes_dir)
    context["again"] = server.client().start_run(recipe_name=name, inputs=run_inputs(site), idempotency_key=context["key"])


@then("the answer is the first run, still the only one listed")
def _same_after_restart(context: dict[str, Any]) -> None:
    assert context["again"].run_id == context["first_run"]
    assert _all_runs(context["server"].client()) == [context["first_run"]]


# --- the run store ------------------------------------------------------------------------------------


def _record(run_id: str) -> RunRecord:
    now = time.time_ns()
    return RunRecord(run_id, "keyed", "1", TaskState.CREATED, "", now, now)


@given(parsers.parse("an empty {kind} run store for keyed starts"), target_fixture="store")
def _keyed_store(kind: str, store_location: Callable[[str], Any]) -> Any:
    store = open_run_store(store_location(kind))
    yield store
    store.close()


@when("a run is recorded with a key")
def _recorded_with_key(store: Any, context: dict[str, Any]) -> None:
    now = time.time_ns()
    context["now"] = now
    first = RunKey("key-1", "fingerprint-a", now, now - HOUR_NS)
    assert store.create_keyed_run(_record("run-a"), first) == KeyHolder("run-a", "fingerprint-a")
    assert store.find_key(first) == KeyHolder("run-a", "fingerprint-a")


@then("a second run claiming the key within the retention is not recorded and learns the first run and its fingerprint")
def _second_claim(store: Any, context: dict[str, Any]) -> None:
    now = context["now"]
    second = RunKey("key-1", "fingerprint-b", now + 1, now - HOUR_NS)
    assert store.create_keyed_run(_record("run-b"), second) == KeyHolder("run-a", "fingerprint-a")
    assert store.get_run("run-b") is None and store.get_run("run-a") is not None


@then("a run claiming the key once the first claim has expired is recorded and holds the key from then on")
def _expired_claim(store: Any, context: dict[str, Any]) -> None:
    now = context["now"]
    # The retention's horizon is past the first claim: it has expired.
    later = RunKey("key-1", "fingerprint-c", now + HOUR_NS, now + 1)
    assert store.find_key(later) is None
    assert store.create_keyed_run(_record("run-c"), later) == KeyHolder("run-c", "fingerprint-c")
    assert store.get_run("run-c") is not None
    assert store.find_key(later) == KeyHolder("run-c", "fingerprint-c")


# --- two replicas -------------------------------------------------------------------------------------

QUEUED_RECIPE = """\
name: keyed-queued
version: "1"
goal: open one page
target:
  start_url: "http://127.0.0.1:9/"
  allowed_domains: ["127.0.0.1"]
plan:
  - id: open
    navigate: "{start_url}"
"""


@given("two busy replicas on one PostgreSQL store, each running at most one run", target_fixture="pair")
def _busy_replicas(serve: Callable[..., ServedServer], postgres_dsn: Any, tmp_path: Path) -> tuple[ServedServer, ...]:
    url = PostgresUrl(postgres_dsn())
    pair = tuple(
        serve(store_path=url, runs_dir=tmp_path / name / "runs", lease_seconds=30, replica_poll_seconds=0.5, max_concurrent_runs=1)
        for name in ("first", "second")
    )
    for server in pair:
        server.emit(server.open_run("busy"), [running()])  # its one slot is taken: started runs stay queued
    return pair


@when("a client starts a run on the first replica with an idempotency key, loses the reply and retries on the second")
def _retry_elsewhere(pair: tuple[ServedServer, ...], context: dict[str, Any]) -> None:
    first, second = pair
    context["key"] = key = str(uuid.uuid4())
    context["lose"] = lose = LoseReplies("StartRun")
    with pytest.raises(VerityRpcError):
        # This client gives up after one try, as a process that died after sending would.
        losing_replies(first.client(resume_attempts=0), lose).start_run(recipe_yaml=QUEUED_RECIPE, idempotency_key=key)
    context["retried"] = second.client().start_run(recipe_yaml=QUEUED_RECIPE, idempotency_key=key)


@then("both answers name one run, queued, listed once on both replicas")
def _one_queued(pair: tuple[ServedServer, ...], context: dict[str, Any]) -> None:
    (lost,) = context["lose"].lost
    retried = context["retried"]
    assert retried.run_id == lost.run_id and retried.trace_id == lost.trace_id, (retried, lost)
    context["first_run"] = lost.run_id
    for server in pair:
        created = server.client().list_runs(statuses=[events_pb.TASK_STATE_CREATED]).runs
        assert [run.run_id for run in created] == [lost.run_id], created


@then("the same key with another recipe is refused on the second replica naming that run")
def _refused_on_second(pair: tuple[ServedServer, ...], context: dict[str, Any]) -> None:
    other = QUEUED_RECIPE.replace("keyed-queued", "keyed-other")
    _refused_reuse(context, lambda: pair[1].client().start_run(recipe_yaml=other, idempotency_key=context["key"]))


@when("two clients start one request with a new key on both replicas at once")
def _racing_starts(pair: tuple[ServedServer, ...], context: dict[str, Any]) -> None:
    context["before"] = len(_all_runs(pair[0].client()))
    key = str(uuid.uuid4())
    clients = [server.client() for server in pair]
    barrier = threading.Barrier(len(clients))
    answers: list[Any] = [None] * len(clients)

    def start(index: int) -> None:
        barrier.wait()
        answers[index] = clients[index].start_run(recipe_yaml=QUEUED_RECIPE, idempotency_key=key)

    threads = [threading.Thread(target=start, args=(index,)) for index in range(len(clients))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    context["answers"] = answers


@then("both get the same run, and the store holds one more run")
def _one_of_two(pair: tuple[ServedServer, ...], context: dict[str, Any]) -> None:
    answers = context["answers"]
    assert all(answers) and answers[0].run_id == answers[1].run_id, answers
    assert len(_all_runs(pair[1].client())) == context["before"] + 1
