"""Bindings of features/service_runs.feature: real runs (runtime.execute, headless Chromium)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import grpc
import pytest
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.trace import SpanKind
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pytest_bdd import given, parsers, scenarios, then, when
from tests.service.run_steps import *  # noqa: F403 - the shared real-run steps
from tests.service.run_steps import assert_run_ended, run_inputs
from tests.service.service_harness import Watcher

from runtime.client import VerityClient, VerityRpcError
from runtime.service.gen.verity.v1 import events_pb2 as events_pb
from tests.fixtures.site_server import FixtureSite

scenarios("service_runs.feature")


# --- servers ---------------------------------------------------------------------------------


@given("a server with an in-memory span exporter", target_fixture="target")
def _server_with_spans(serve: Any, recipes_dir: Path, context: dict[str, Any]) -> str:
    context["spans"] = exporter = InMemorySpanExporter()
    context["server"] = server = serve(recipes_dir=recipes_dir, span_processors=(SimpleSpanProcessor(exporter),))
    return server.target


# --- when ------------------------------------------------------------------------------------


@when(parsers.parse('a client runs "{name}" with Run and a {seconds:d} second timeout'))
def _run_with_timeout(target: str, client_for: Any, site: FixtureSite, context: dict[str, Any], name: str, seconds: int) -> None:
    client = context["client"] = client_for(target)
    started = time.monotonic()
    context["events"] = list(client.run(recipe_name=name, inputs=run_inputs(site), timeout_seconds=seconds))
    context["elapsed"] = time.monotonic() - started


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


@when("the server process receives SIGTERM")
def _sigterm(context: dict[str, Any]) -> None:
    context["process"].signal(signal.SIGTERM)


@when(parsers.parse('I run "verity client run --recipe-name {name}" with the site input'))
def _cli_run(target: str, site: FixtureSite, context: dict[str, Any], name: str) -> None:
    context["cli"] = _verity("client", "run", "--recipe-name", name, "--input", f"site={site.base_url}", "--target", target)


def _verity(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "runtime.cli.main", *args], capture_output=True, text=True, timeout=120)


# --- then ------------------------------------------------------------------------------------


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
    # The Run call's server span ends only after its last message has gone out, so the client can see
    # the final event first: wait for that span to finish (a generous ceiling, not a speed check).
    deadline = time.monotonic() + 60
    while not (parents := [s for s in context["spans"].get_finished_spans() if s.context.span_id == roots[0].parent.span_id]):
        assert time.monotonic() < deadline, "the server span of the call that started the run never finished"
        time.sleep(0.05)
    [server_span] = parents
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
    # Its first step waits for a confirmation nobody gives (on a loaded machine the budget may end
    # even before the request is out): nothing ran past it, so only the timeout could end the run.
    assert not any(e.HasField("tool_used") and e.tool_used.tool == "open_url" for e in events), events
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
    assert_run_ended(context, "completed", "completed")


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
                client.start_run(recipe_name=name, inputs=run_inputs(site))
                assert code == "UNAVAILABLE" and time.monotonic() < deadline, "the run was accepted"
                time.sleep(0.05)
    assert failure.value.code == grpc.StatusCode[code], failure.value


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


@then("the server process exits with code 0")
def _exit_zero(context: dict[str, Any]) -> None:
    process = context["process"]
    assert process.wait(30) == 0, process.text
    assert "verity serve: stopped" in process.text
    context["health"].close()


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


@when("a second client watches the run and cancels its stream")
def _watch_and_cancel(target: str, client_for: Any, context: dict[str, Any]) -> None:
    seen = len(context["watcher"].events)
    cancelling = Watcher(client_for(target), context["run_id"], stop_after=seen).start()
    cancelling.join()  # it read the run so far, then closed its stream
    assert cancelling.error is None and cancelling.seqs == list(range(1, seen + 1))


@when(parsers.parse("the server shuts down with a grace period of {seconds:f} seconds"))
def _in_process_shutdown(context: dict[str, Any], seconds: float) -> None:
    context["server"].stop(seconds)


@when("a server is started again on the same store")
def _in_process_restart(serve: Any, recipes_dir: Path, client_for: Any, context: dict[str, Any]) -> None:
    context["server"] = server = serve(recipes_dir=recipes_dir)
    context["client"] = client_for(server.target)


@then("the run's verdict.json and events.jsonl end with that interruption")
def _directory_interrupted(context: dict[str, Any]) -> None:
    run_dir = context["server"].config.runs_dir / context["run_id"]
    verdict = json.loads((run_dir / "verdict.json").read_text())
    assert (verdict["status"], verdict["stop_reason"]) == ("stopped", "interrupted")
    lines = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    streamed = list(context["client"].stream_run(context["run_id"]))
    assert [line["seq"] for line in lines] == [e.seq for e in streamed]
    assert lines[-1]["kind"] == "final_verdict" and lines[-1]["payload"]["stop_reason"] == "interrupted"
