"""Bindings of features/service_runs.feature: real runs (runtime.execute, headless Chromium)."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.trace import SpanKind
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pytest_bdd import given, parsers, scenarios, then, when
from tests.service.service_harness import Watcher

from runtime.service.client import VerityClient, VerityRpcError
from runtime.service.gen.verity.v1 import events_pb2 as events_pb
from tests.fixtures.site_server import FixtureSite

scenarios("service_runs.feature")

ARTICLE_RECIPE = """\
name: {name}
version: "1"
goal: 用浏览器 read the harbour article
inputs:
  site:
    type: string
target:
  start_url: "{{site}}/article.html"
  allowed_domains: ["127.0.0.1"]
  validation_keywords: ["harbour"]
plan:
  - id: open
    navigate: "{{start_url}}"
    needs_approval: {needs_approval}
  - id: read
    extract:
      fields:
        title:
          css: "h1"
  - id: check
    verify:
      - field_present: title
  - id: done
    close:
      summary: read the article
"""


@pytest.fixture
def site() -> Iterator[FixtureSite]:
    with FixtureSite() as running:
        yield running


@given("the fixture site and the article recipes", target_fixture="recipes_dir")
def _recipes(tmp_path: Path, site: FixtureSite) -> Path:
    directory = tmp_path / "recipes"
    directory.mkdir()
    (directory / "article.yaml").write_text(ARTICLE_RECIPE.format(name="service-article", needs_approval="false"))
    (directory / "approval.yaml").write_text(ARTICLE_RECIPE.format(name="service-approval", needs_approval="true"))
    return directory


def _inputs(site: FixtureSite) -> dict[str, str]:
    return {"site": site.base_url}


# --- servers ---------------------------------------------------------------------------------


@given("a server", target_fixture="target")
def _server(serve: Any, recipes_dir: Path, context: dict[str, Any]) -> str:
    context["server"] = server = serve(recipes_dir=recipes_dir)
    return server.target


@given("a server with an in-memory span exporter", target_fixture="target")
def _server_with_spans(serve: Any, recipes_dir: Path, context: dict[str, Any]) -> str:
    context["spans"] = exporter = InMemorySpanExporter()
    context["server"] = server = serve(recipes_dir=recipes_dir, span_processors=(SimpleSpanProcessor(exporter),))
    return server.target


@given(parsers.parse("a server that allows {count:d} concurrent run"), target_fixture="target")
def _limited_server(serve: Any, recipes_dir: Path, context: dict[str, Any], count: int) -> str:
    context["server"] = server = serve(recipes_dir=recipes_dir, max_concurrent_runs=count)
    return server.target


def _serve_args(tmp_path: Path, recipes_dir: Path, *extra: str) -> list[str]:
    # The test sites are on loopback, which a served recipe may reach only when the server allows it.
    return [
        "--store", str(tmp_path / "proc" / "verity.db"), "--runs-dir", str(tmp_path / "proc" / "runs"), "--recipes-dir", str(recipes_dir),
        "--allow-private-network", *extra,
    ]


@given("a verity serve process", target_fixture="target")
def _serve_process(serve_processes: Any, tmp_path: Path, recipes_dir: Path, context: dict[str, Any]) -> str:
    context["process"] = process = serve_processes(*_serve_args(tmp_path, recipes_dir))
    return process.target


@given(parsers.parse("a verity serve process with a {seconds:d} second grace period"), target_fixture="target")
def _serve_process_grace(serve_processes: Any, tmp_path: Path, recipes_dir: Path, context: dict[str, Any], seconds: int) -> str:
    context["process"] = process = serve_processes(*_serve_args(tmp_path, recipes_dir, "--grace-seconds", str(seconds)))
    return process.target


@pytest.fixture
def client_for() -> Iterator[Any]:
    clients: list[VerityClient] = []

    def open_client(target: str) -> VerityClient:
        client = VerityClient(target)
        clients.append(client)
        return client

    yield open_client
    for client in clients:
        client.close()


# --- when ------------------------------------------------------------------------------------


@when(parsers.parse('a client runs "{name}" with Run'))
def _run_with_run(target: str, client_for: Any, site: FixtureSite, context: dict[str, Any], name: str) -> None:
    context["events"] = list(client_for(target).run(recipe_name=name, inputs=_inputs(site)))


@when(parsers.parse('a client runs "{name}" with Run and a {seconds:d} second timeout'))
def _run_with_timeout(target: str, client_for: Any, site: FixtureSite, context: dict[str, Any], name: str, seconds: int) -> None:
    client = context["client"] = client_for(target)
    started = time.monotonic()
    context["events"] = list(client.run(recipe_name=name, inputs=_inputs(site), timeout_seconds=seconds))
    context["elapsed"] = time.monotonic() - started


@when(parsers.parse('a client starts "{name}" and waits for its confirmation request'))
def _start_and_wait(target: str, client_for: Any, site: FixtureSite, context: dict[str, Any], name: str) -> None:
    client = context["client"] = client_for(target)
    run_id = context["run_id"] = client.start_run(recipe_name=name, inputs=_inputs(site)).run_id
    watcher = context["watcher"] = Watcher(client, run_id).start()
    deadline = time.monotonic() + 60
    while not any(e.HasField("confirmation_requested") for e in watcher.events):
        assert time.monotonic() < deadline and not watcher.done.is_set(), f"no confirmation request: {watcher.events[-3:]} {watcher.error}"
        time.sleep(0.02)
    context["request_id"] = next(e for e in watcher.events if e.HasField("confirmation_requested")).confirmation_requested.request_id


@when("the client approves the request")
def _approve(context: dict[str, Any]) -> None:
    context["client"].confirm_action(context["run_id"], context["request_id"], True)


@when(parsers.parse('the client denies the request because "{reason}"'))
def _deny(context: dict[str, Any], reason: str) -> None:
    context["client"].confirm_action(context["run_id"], context["request_id"], False, reason)


@when("a second client watches the run")
def _second_watcher(target: str, client_for: Any, context: dict[str, Any]) -> None:
    context["second"] = Watcher(client_for(target), context["run_id"]).start()
    context["second"].wait_for(len(context["watcher"].events))


@when("the client stops the run")
def _stop(context: dict[str, Any]) -> None:
    context["stopped"] = context["client"].stop_run(context["run_id"])


@when("the server process is killed")
def _kill(context: dict[str, Any]) -> None:
    context["process"].kill_group()


@when("verity serve is started again on the same store")
def _restart(serve_processes: Any, tmp_path: Path, recipes_dir: Path, context: dict[str, Any]) -> None:
    context["process"] = serve_processes(*_serve_args(tmp_path, recipes_dir))
    context["client"] = VerityClient(context["process"].target)


@when("a health watcher is watching the server")
def _health_watcher(target: str, context: dict[str, Any]) -> None:
    channel = grpc.insecure_channel(target)
    statuses: list[int] = []
    stub = health_pb2_grpc.HealthStub(channel)
    call = stub.Watch(health_pb2.HealthCheckRequest(service=""))

    def watch() -> None:
        try:
            for response in call:
                statuses.append(response.status)
        except grpc.RpcError:
            pass

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while health_pb2.HealthCheckResponse.SERVING not in statuses:
        assert time.monotonic() < deadline, statuses
        time.sleep(0.01)
    context["health"] = (statuses, thread, channel)


@when("the server process receives SIGTERM")
def _sigterm(context: dict[str, Any]) -> None:
    context["process"].signal(signal.SIGTERM)


@when(parsers.parse('I run "verity client run --recipe-name {name}" with the site input'))
def _cli_run(target: str, site: FixtureSite, context: dict[str, Any], name: str) -> None:
    context["cli"] = _verity("client", "run", "--recipe-name", name, "--input", f"site={site.base_url}", "--target", target)


def _verity(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "runtime.cli.main", *args], capture_output=True, text=True, timeout=120)


# --- then ------------------------------------------------------------------------------------


@then("the events end with a completed, verified final verdict")
def _completed_verified(context: dict[str, Any]) -> None:
    events = context["events"]
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert events[0].status_changed.status == events_pb.TASK_STATE_CREATED
    final = events[-1].final_verdict
    assert events[-1].HasField("final_verdict")
    assert final.stop_reason == events_pb.STOP_REASON_COMPLETED and final.verified
    kinds = {e.WhichOneof("payload") for e in events}
    assert {"step_started", "step_finished", "tool_used", "structured_output"} <= kinds


@then("every event carries the trace id of the run's root span")
def _trace_ids(context: dict[str, Any]) -> None:
    events = context["events"]
    trace_ids = {e.trace_id for e in events}
    assert len(trace_ids) == 1
    (trace_id,) = trace_ids
    assert len(trace_id) == 32 and int(trace_id, 16) != 0
    finished = context["spans"].get_finished_spans()
    roots = [s for s in finished if s.name.startswith("invoke_agent ")]
    assert [format(s.context.trace_id, "032x") for s in roots] == [trace_id]
    # The run is inside the trace of the call that started it (a new trace when the caller sent none).
    [server_span] = [s for s in finished if s.context.span_id == roots[0].parent.span_id]
    assert server_span.kind is SpanKind.SERVER and server_span.parent is None
    assert server_span.name.rsplit("/", 1)[-1] in ("StartRun", "Run")
    assert roots[0].attributes["verity.run_id"] == events[0].run_id


@then("no span attribute holds the run's inputs")
def _no_inputs_in_spans(context: dict[str, Any], site: FixtureSite) -> None:
    spans = context["spans"].get_finished_spans()
    assert spans
    for span in spans:
        for key, value in (span.attributes or {}).items():
            assert site.base_url not in str(value), f"{span.name} {key}={value!r} leaks the site input"


@then(parsers.parse("the stream ends with a final verdict {status} with stop reason {reason} no sooner than {seconds:d} seconds"))
def _stream_ends_with(context: dict[str, Any], status: str, reason: str, seconds: int) -> None:
    events = context["events"]
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    # The run was waiting for a confirmation nobody gave: only the timeout could end it.
    assert any(e.HasField("confirmation_requested") for e in events)
    final = events[-1].final_verdict
    assert events[-1].HasField("final_verdict") and not final.verified
    assert final.status == events_pb.TaskState.Value(f"TASK_STATE_{status.upper()}")
    assert final.stop_reason == events_pb.StopReason.Value(f"STOP_REASON_{reason.upper()}")
    assert context["elapsed"] >= seconds
    context["run_id"] = events[-1].run_id


@then(parsers.parse("GetRun reports the run {status} with stop reason {reason}"))
def _get_shows(context: dict[str, Any], status: str, reason: str) -> None:
    run = context["client"].get_run(context["run_id"]).run
    assert run.status == events_pb.TaskState.Value(f"TASK_STATE_{status.upper()}")
    assert run.stop_reason == events_pb.StopReason.Value(f"STOP_REASON_{reason.upper()}")


@then("GetRun shows the run waiting_for_user_confirmation with that request pending")
def _waiting(context: dict[str, Any]) -> None:
    deadline = time.monotonic() + 10
    while True:
        response = context["client"].get_run(context["run_id"])
        if response.run.status == events_pb.TASK_STATE_WAITING_FOR_USER_CONFIRMATION or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert response.run.status == events_pb.TASK_STATE_WAITING_FOR_USER_CONFIRMATION
    assert [c.request_id for c in response.pending_confirmations] == [context["request_id"]]


@then(parsers.parse("the run ends {status} with stop reason {reason}"))
def _ends_with(context: dict[str, Any], status: str, reason: str) -> None:
    watcher = context["watcher"]
    watcher.join(60)
    assert watcher.error is None, watcher.error
    final = watcher.events[-1]
    assert final.HasField("final_verdict")
    assert final.final_verdict.status == events_pb.TaskState.Value(f"TASK_STATE_{status.upper()}")
    assert final.final_verdict.stop_reason == events_pb.StopReason.Value(f"STOP_REASON_{reason.upper()}")


@then(parsers.parse('confirming request "{request_id}" fails with FAILED_PRECONDITION'))
def _confirm_unknown(context: dict[str, Any], request_id: str) -> None:
    with pytest.raises(VerityRpcError) as failure:
        context["client"].confirm_action(context["run_id"], request_id, True)
    assert failure.value.code == grpc.StatusCode.FAILED_PRECONDITION
    assert failure.value.reason == "CONFIRMATION_NOT_PENDING"
    assert context["request_id"] in failure.value.metadata["pending"]


@then("confirming the same request again fails with FAILED_PRECONDITION")
def _confirm_twice(context: dict[str, Any]) -> None:
    with pytest.raises(VerityRpcError) as failure:
        context["client"].confirm_action(context["run_id"], context["request_id"], True)
    assert failure.value.code == grpc.StatusCode.FAILED_PRECONDITION
    _ends_with(context, "completed", "completed")


@then("StopRun answered with the run stopped with stop reason manual_stop")
def _stopped_answer(context: dict[str, Any]) -> None:
    run = context["stopped"]
    assert run.status == events_pb.TASK_STATE_STOPPED
    assert run.stop_reason == events_pb.STOP_REASON_MANUAL_STOP


@then("both watchers saw the final verdict manual_stop")
def _both_saw_stop(context: dict[str, Any]) -> None:
    for watcher in (context["watcher"], context["second"]):
        watcher.join(30)
        assert watcher.error is None, watcher.error
        assert watcher.events[-1].final_verdict.stop_reason == events_pb.STOP_REASON_MANUAL_STOP
    assert [e.seq for e in context["second"].events] == [e.seq for e in context["watcher"].events]


@then(parsers.parse('starting "{name}" fails with {code}'))
def _start_fails(target: str, site: FixtureSite, context: dict[str, Any], name: str, code: str) -> None:
    with VerityClient(target, timeout=10) as client:
        with pytest.raises(VerityRpcError) as failure:
            deadline = time.monotonic() + 10
            while True:  # during shutdown, wait until the server has stopped accepting
                client.start_run(recipe_name=name, inputs=_inputs(site))
                assert code == "UNAVAILABLE" and time.monotonic() < deadline, "the run was accepted"
                time.sleep(0.05)
    assert failure.value.code == grpc.StatusCode[code], failure.value


@then(parsers.parse("the server has recorded exactly {count:d} run"))
def _recorded(context: dict[str, Any], count: int) -> None:
    assert len(context["client"].list_runs().runs) == count


@then(parsers.parse('starting "{name}" again succeeds'))
def _start_again(context: dict[str, Any], site: FixtureSite, name: str) -> None:
    started = context["client"].start_run(recipe_name=name, inputs=_inputs(site))
    events = list(context["client"].stream_run(started.run_id))
    assert events[-1].final_verdict.stop_reason == events_pb.STOP_REASON_COMPLETED


@then("streaming the run from the start replays its events and ends with stop reason interrupted")
def _replay_interrupted(context: dict[str, Any]) -> None:
    before = context["watcher"].events
    events = list(context["client"].stream_run(context["run_id"]))
    seqs = [e.seq for e in events]
    assert seqs == list(range(1, len(events) + 1))
    # Everything the first server had sent survived the kill, unchanged.
    assert events[: len(before)] == before
    assert events[-1].final_verdict.stop_reason == events_pb.STOP_REASON_INTERRUPTED
    assert events[-1].final_verdict.status == events_pb.TASK_STATE_STOPPED
    assert events[-1].trace_id == before[0].trace_id


@then("GetRun shows the run stopped with stop reason interrupted")
def _get_interrupted(context: dict[str, Any]) -> None:
    run = context["client"].get_run(context["run_id"]).run
    assert run.status == events_pb.TASK_STATE_STOPPED
    assert run.stop_reason == events_pb.STOP_REASON_INTERRUPTED
    assert run.HasField("end_time")


@then("the health watcher sees NOT_SERVING")
def _not_serving(context: dict[str, Any]) -> None:
    statuses, _thread, _channel = context["health"]
    deadline = time.monotonic() + 10
    while health_pb2.HealthCheckResponse.NOT_SERVING not in statuses:
        assert time.monotonic() < deadline, statuses
        time.sleep(0.01)


@then("the server process exits with code 0")
def _exit_zero(context: dict[str, Any]) -> None:
    process = context["process"]
    assert process.wait(30) == 0, process.text
    assert "verity serve: stopped" in process.text
    context["health"][2].close()


@then("the command exits with code 0 and printed the final verdict")
def _cli_ok(context: dict[str, Any]) -> None:
    result = context["cli"]
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.strip().splitlines()
    assert "final_verdict" in lines[-1] and "STOP_REASON_COMPLETED" in lines[-1]
    assert lines[0].startswith("#1 ") and "status_changed" in lines[0]


@then(parsers.parse('"verity client list --status completed" lists the run'))
def _cli_list(target: str, context: dict[str, Any]) -> None:
    result = _verity("client", "list", "--status", "completed", "--target", target)
    assert result.returncode == 0, result.stderr
    assert "service-article@1  completed  stop_reason=completed" in result.stdout
    context["listed_run_id"] = result.stdout.split()[0]
    empty = _verity("client", "list", "--status", "running", "--target", target)
    assert empty.stdout.strip() == ""


@then(parsers.parse('"verity client get" shows the run completed'))
def _cli_get(target: str, context: dict[str, Any]) -> None:
    result = _verity("client", "get", context["listed_run_id"], "--target", target, "--json")
    assert result.returncode == 0, result.stderr
    assert '"status": "TASK_STATE_COMPLETED"' in result.stdout
    missing = _verity("client", "get", "run-unknown", "--target", target)
    assert missing.returncode == 4 and "NOT_FOUND" in missing.stderr
