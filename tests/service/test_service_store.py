"""Bindings of features/service_store.feature: the SQLite store through the real server."""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import grpc
import pytest
from pytest_bdd import given, parsers, scenarios, then, when
from tests.service.service_harness import ServedServer, Watcher, chat_deltas

from runtime.events import AgentState, ArtifactStored, GuardrailTripped, StatusChanged, StepFinished, StepStarted
from runtime.outcomes import BlockerKind, StopReason, TaskState
from runtime.client import VerityRpcError
from runtime.service.gen.verity.v1 import events_pb2 as events_pb
from runtime.service.api.proto_mapping import event_from_proto
from runtime.store import StoreWriteError

scenarios("service_store.feature")


@given("a server", target_fixture="server")
def _server(serve: Any) -> ServedServer:
    return serve()


@given(parsers.parse("a server on a {kind} store"), target_fixture="server")
def _server_on(serve: Any, store_location: Any, kind: str) -> ServedServer:
    return serve(store_path=store_location(kind))


@given("a served run that has emitted a status change, a step with agent notes and an artifact")
def _served_run(server: ServedServer, context: dict[str, Any]) -> None:
    context["run"] = live = server.open_run(recipe_name="durable", inputs={"metal": "gold"})
    screenshot = server.config.runs_dir / live.run_id / "artifacts" / "screenshot" / "0123456789abcdef.png"
    context["emitted"] = server.emit(
        live,
        [
            StatusChanged(status=TaskState.RUNNING, detail="started"),
            StepStarted(state_id="open", step_kind="navigate"),
            StepFinished(
                state_id="open", step_kind="navigate", outcome="blocked", ok=False, verified=False, duration_ms=12.5,
                observation_summary="404", blocker_kind=BlockerKind.PAGE_NOT_FOUND,
                agent_state=AgentState(thinking="the old link is gone", next_goal="search"),
            ),
            ArtifactStored(artifact_id="screenshot-0123456789abcdef", artifact_kind="screenshot", path=str(screenshot), media_type="image/png", size=2048, sha256="ab" * 32),
        ],
    )
    # Clients see artifact paths relative to the run directory, never the server's layout.
    emitted = context["emitted"]
    context["streamed"] = [*emitted[:-1], replace(emitted[-1], payload=replace(emitted[-1].payload, path="artifacts/screenshot/0123456789abcdef.png"))]


@given(parsers.parse('{count:d} ended runs of "{first}" and "{second}" with different outcomes'))
def _ended_runs(server: ServedServer, context: dict[str, Any], count: int, first: str, second: str) -> None:
    outcomes = [StopReason.COMPLETED, StopReason.NO_PROGRESS, StopReason.COMPLETED, StopReason.MANUAL_STOP, StopReason.COMPLETED]
    runs = []
    for index in range(count):
        live = server.open_run(recipe_name=first if index % 2 == 0 else second)
        server.finish(live, outcomes[index])
        runs.append((live.run_id, live.record.recipe_name, outcomes[index]))
    context["runs"] = runs  # oldest first


@when("the store is copied as the crashed server left it")
def _copy_store(server: ServedServer, tmp_path: Path) -> None:
    server.call(server.server.supervisor._store.flush())  # the writer commits every few ms anyway
    source = sqlite3.connect(server.config.store_path)
    target = sqlite3.connect(tmp_path / "crashed.db")
    source.backup(target)  # a consistent snapshot, exactly what a killed process leaves committed
    source.close()
    target.close()


@when("a server is started on the copied store", target_fixture="server")
def _start_on_copy(serve: Any, tmp_path: Path) -> ServedServer:
    return serve(store_path=tmp_path / "crashed.db")


@then("the run ended stopped with stop reason interrupted")
def _interrupted(server: ServedServer, context: dict[str, Any]) -> None:
    run = server.client().get_run(context["run"].run_id).run
    assert run.status == events_pb.TASK_STATE_STOPPED
    assert run.stop_reason == events_pb.STOP_REASON_INTERRUPTED
    assert run.inputs["metal"] == "gold" and run.recipe_name == "durable"


@then("streaming it replays the same events, then the interruption")
def _replay(server: ServedServer, context: dict[str, Any]) -> None:
    received = [event_from_proto(e) for e in server.client().stream_run(context["run"].run_id)]
    emitted = context["streamed"]
    assert received[: len(emitted)] == emitted  # field for field, nested agent notes included
    tail = received[len(emitted):]
    assert [type(e.payload).__name__ for e in tail] == ["StatusChanged", "FinalVerdict"]
    assert tail[-1].payload.stop_reason is StopReason.INTERRUPTED
    assert {e.trace_id for e in received} == {emitted[0].trace_id}


def _list_all(server: ServedServer, **filters: Any) -> list[Any]:
    return list(server.client().iter_runs(**filters))


@then("listing runs with status completed returns only the completed ones, newest first")
def _by_status(server: ServedServer, context: dict[str, Any]) -> None:
    runs = _list_all(server, statuses=[events_pb.TASK_STATE_COMPLETED])
    expected = [run_id for run_id, _, reason in reversed(context["runs"]) if reason is StopReason.COMPLETED]
    assert [r.run_id for r in runs] == expected
    stopped = _list_all(server, statuses=[events_pb.TASK_STATE_STOPPED, events_pb.TASK_STATE_ERROR])
    assert {r.run_id for r in stopped} == {run_id for run_id, _, reason in context["runs"] if reason is not StopReason.COMPLETED}


@then(parsers.parse('listing runs of recipe "{name}" returns only its runs'))
def _by_recipe(server: ServedServer, context: dict[str, Any], name: str) -> None:
    runs = _list_all(server, recipe_name=name)
    assert [r.run_id for r in runs] == [run_id for run_id, recipe, _ in reversed(context["runs"]) if recipe == name]


@then("paging through all runs 2 at a time returns every run once, newest first")
def _paging(server: ServedServer, context: dict[str, Any]) -> None:
    client = server.client()
    pages, token = [], ""
    while True:
        page = client.list_runs(page_size=2, page_token=token)
        pages.append([r.run_id for r in page.runs])
        token = page.next_page_token
        if not token:
            break
    assert [len(p) for p in pages] == [2, 2, 1]
    assert [run_id for page in pages for run_id in page] == [run_id for run_id, _, _ in reversed(context["runs"])]


@then(parsers.parse('a made-up page token is INVALID_ARGUMENT on field "{field}"'))
def _bad_token(server: ServedServer, field: str) -> None:
    with pytest.raises(VerityRpcError) as failure:
        server.client().list_runs(page_token="not-a-token")
    assert failure.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert [v.field for v in failure.value.field_violations] == [field]


@then("GetRun lists the artifact with its path, size and seq")
def _artifacts(server: ServedServer, context: dict[str, Any]) -> None:
    response = server.client().get_run(context["run"].run_id)
    assert [(a.artifact_id, a.path, a.size, a.media_type, a.seq) for a in response.artifacts] == [
        ("screenshot-0123456789abcdef", "artifacts/screenshot/0123456789abcdef.png", 2048, "image/png", 4)
    ]
    assert response.run.status == events_pb.TASK_STATE_RUNNING and response.run.last_seq == 4


@then(parsers.parse('GetRun of "{run_id}" fails with NOT_FOUND naming the run'))
def _not_found(server: ServedServer, run_id: str) -> None:
    with pytest.raises(VerityRpcError) as failure:
        server.client().get_run(run_id)
    assert failure.value.code == grpc.StatusCode.NOT_FOUND and run_id in failure.value.message


# --- store outages (SERVICE-021) ---------------------------------------------------------------



@when(parsers.parse("the run emits {count:d} events"))
def _emit(server: ServedServer, context: dict[str, Any], count: int) -> None:
    server.emit(context["run"], chat_deltas(count))


@then(parsers.parse("the watcher has received none of those {count:d} events while the store is locked"))
def _nothing_while_locked(server: ServedServer, context: dict[str, Any], count: int) -> None:
    # The listing above proved the events were emitted and are held unwritten; a watcher only
    # gets an event from a commit, and none has happened since.
    assert context["watcher"].seqs == [1]
    assert context["holder"].locked


@then(parsers.parse("the watcher receives those {count:d} events"))
def _delivered_once_stored(server: ServedServer, context: dict[str, Any], count: int) -> None:
    watcher: Watcher = context["watcher"]
    watcher.wait_for(1 + count)
    assert watcher.seqs == list(range(1, 2 + count))


@then("listing runs fails with UNAVAILABLE STORE_UNAVAILABLE")
def _list_unavailable(server: ServedServer) -> None:
    with pytest.raises(VerityRpcError) as failure:
        server.client(resume_attempts=0).list_runs()
    error = failure.value
    assert error.code == grpc.StatusCode.UNAVAILABLE and error.reason == "STORE_UNAVAILABLE"
    assert "database is locked" in error.message and int(error.metadata["held_events"]) >= 20


@then("the server log reports the outage once")
def _outage_logged(caplog: pytest.LogCaptureFixture) -> None:
    reports = [r for r in caplog.records if r.name == "runtime.store.buffered" and r.levelno == logging.ERROR]
    assert len(reports) == 1, [r.getMessage() for r in reports]
    assert "cannot write (OperationalError: database is locked)" in reports[0].getMessage()




@when("the run emits its final verdict")
def _final(server: ServedServer, context: dict[str, Any]) -> None:
    server.finish(context["run"])


@then(parsers.parse("streaming the run from the store replays all {count:d} events exactly once"))
def _replay_all(server: ServedServer, context: dict[str, Any], count: int) -> None:
    run_id = context["run"].run_id
    assert server.server.supervisor.live_run(run_id) is None  # ended: streams come from the store
    replayed = list(server.client().stream_run(run_id))
    assert [e.seq for e in replayed] == list(range(1, count + 1))
    assert replayed[-1].HasField("final_verdict")
    context["watcher"].join()
    assert replayed == context["watcher"].events
    rows = sqlite3.connect(server.config.store_path).execute("SELECT COUNT(*) FROM events WHERE run_id = ?", (run_id,)).fetchone()
    assert rows == (count,)


@then("the server log reports that writing works again")
def _recovered(caplog: pytest.LogCaptureFixture) -> None:
    messages = [r.getMessage() for r in caplog.records if r.name == "runtime.store.buffered"]
    assert any(m.startswith("run store: writing works again; committed") for m in messages), messages


@when("the server shuts down", target_fixture="shutdown_failure")
def _shut_down(server: ServedServer) -> StoreWriteError:
    with pytest.raises(StoreWriteError) as failure:
        server.stop(grace=0.0)
    return failure.value


@then(parsers.parse("the shutdown fails naming {count:d} lost events of the run"))
def _lost_named(shutdown_failure: StoreWriteError, context: dict[str, Any], count: int) -> None:
    # 5 chat deltas and the interruption's status change and verdict; the first event was committed.
    run_id = context["run"].run_id
    assert shutdown_failure.held_events == count and shutdown_failure.run_ids == (run_id,)
    assert str(shutdown_failure).startswith(
        f"run store: {count} event(s) of run(s) {run_id} could not be written before closing and are lost: database is locked"
    ), str(shutdown_failure)


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_free_form_values_are_stored_as_the_stream_sends_them(serve: Any, store_location: Any, kind: str) -> None:
    """Evidence may hold values JSON cannot (a Path); the store keeps the text the live stream sent."""
    server = serve(store_path=store_location(kind))
    live = server.open_run(recipe_name="evidence")
    watcher = Watcher(server.client(), live.run_id).start()
    server.emit(
        live,
        [GuardrailTripped(guard="data.validate-target", blocker_kind=BlockerKind.PAGE_NOT_FOUND, detail="404",
                          evidence={"page": Path("/site/missing.html"), "kinds": (BlockerKind.ACCESS_DENIED,), "status": 404})],
    )
    server.finish(live)
    watcher.join()
    replayed = list(server.client().stream_run(live.run_id))
    assert replayed == watcher.events
    evidence = event_from_proto(replayed[0]).payload.evidence
    assert evidence == {"page": "/site/missing.html", "kinds": ["access_denied"], "status": 404}
