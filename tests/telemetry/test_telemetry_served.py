"""Binds features/telemetry_served.feature: `verity serve` as a subprocess exporting to a loopback
OTLP receiver, and a client that propagates its trace through W3C traceparent metadata."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.demo import DEMO_RECIPE, DemoSite
from runtime.service.gen.verity.v1 import agent_service_pb2 as agent_pb
from runtime.service.gen.verity.v1 import agent_service_pb2_grpc as agent_grpc
from runtime.service.gen.verity.v1 import events_pb2 as events_pb
from runtime.trace_export import read_trace_file
from tests.fixtures.otlp_receiver import FlatSpan, OtlpGrpcReceiver, flat_spans
from tests.service.service_harness import ServeProcess
from tests.telemetry.conftest import TelemetryEnv, clean_env

scenarios("telemetry_served.feature")


@dataclass
class ClientRun:
    trace_id: str
    span_id: str
    run_id: str = ""
    answered_trace_id: str = ""
    events: list[events_pb.Event] = field(default_factory=list)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[dict[str, ServeProcess]]:
    holder: dict[str, ServeProcess] = {}
    yield holder
    server = holder.get("server")
    if server is not None:
        server.signal(signal.SIGTERM)
        try:
            server.wait(60)
        finally:
            server.close()


@given('"verity serve" exporting to the receiver')
def serve(served: dict[str, ServeProcess], telemetry_env: TelemetryEnv, tmp_path: Path) -> None:
    env = clean_env(**telemetry_env.variables, OTEL_SERVICE_NAME="verity-served", OTEL_BSP_SCHEDULE_DELAY="200")
    # The demo site is on loopback: the server lets the recipes it is sent reach it.
    args = ["--store", str(tmp_path / "verity.db"), "--runs-dir", str(tmp_path / "runs"), "--recipes-dir", str(tmp_path), "--allow-private-network"]
    served["server"] = ServeProcess(args, env=env, cwd=str(tmp_path))


@when(parsers.parse('a client inside its own span starts the demo recipe for "{metal}" with traceparent and follows it to the end'), target_fixture="client_run")
def client_starts(served: dict[str, ServeProcess], demo_site: DemoSite, metal: str) -> ClientRun:
    tracer = TracerProvider(shutdown_on_exit=False).get_tracer("a-client")
    with grpc.insecure_channel(served["server"].target) as channel:
        stub = agent_grpc.AgentServiceStub(channel)
        with tracer.start_as_current_span("client work") as span:
            carrier: dict[str, str] = {}
            TraceContextTextMapPropagator().inject(carrier, context=trace.set_span_in_context(span))
            context = span.get_span_context()
            run = ClientRun(format(context.trace_id, "032x"), format(context.span_id, "016x"))
            request = agent_pb.StartRunRequest(
                recipe_yaml=DEMO_RECIPE.read_text(encoding="utf-8"),
                inputs={"site": demo_site.quote_base, "search_site": demo_site.search_base, "metal": metal},
            )
            answer = stub.StartRun(request, metadata=tuple(carrier.items()), timeout=30)
        run.run_id, run.answered_trace_id = answer.run_id, answer.trace_id
        for response in stub.StreamRun(agent_pb.StreamRunRequest(run_id=run.run_id), timeout=120):
            run.events.extend(response.events)
    return run


def run_spans(receiver: OtlpGrpcReceiver) -> list[FlatSpan]:
    return receiver.wait_for_spans(lambda spans: any(s.name.startswith("invoke_agent ") for s in spans))


@then("the run completed and StartRun answered the client's trace id")
def completed(client_run: ClientRun) -> None:
    final = client_run.events[-1]
    assert final.WhichOneof("payload") == "final_verdict" and final.final_verdict.verified, final
    assert client_run.answered_trace_id == client_run.trace_id


@then("every event of the run carries the client's trace id")
def event_trace_ids(client_run: ClientRun) -> None:
    assert {e.trace_id for e in client_run.events} == {client_run.trace_id}


@then("the receiver got the server's StartRun span as a child of the client's span, and the run's invoke_agent span as a child of that")
def joined(receiver: OtlpGrpcReceiver, client_run: ClientRun) -> None:
    spans = run_spans(receiver)
    [server_span] = [s for s in spans if s.name.endswith("/StartRun")]
    [root] = [s for s in spans if s.name == "invoke_agent demo-quote"]
    assert server_span.kind == "SERVER" and server_span.trace_id == client_run.trace_id
    assert server_span.parent_span_id == client_run.span_id
    assert root.parent_span_id == server_span.span_id and root.attributes["verity.run_id"] == client_run.run_id
    assert all(s.resource["service.name"] == "verity-served" for s in spans)


@then("the receiver got the run's state and tool spans in the client's trace")
def run_tree(receiver: OtlpGrpcReceiver, client_run: ClientRun) -> None:
    spans = [s for s in run_spans(receiver) if s.trace_id == client_run.trace_id]
    [root] = [s for s in spans if s.name.startswith("invoke_agent ")]
    states = [s for s in spans if s.parent_span_id == root.span_id]
    assert states and all(s.name.startswith("verity.state ") for s in states)
    assert any(s.name == "execute_tool open_url" for s in spans)


@then("the run directory's trace.jsonl holds the run's spans")
def run_file(receiver: OtlpGrpcReceiver, client_run: ClientRun, tmp_path: Path) -> None:
    written = flat_spans(read_trace_file(tmp_path / "runs" / client_run.run_id / "trace.jsonl"))
    received = {s.span_id for s in run_spans(receiver) if not s.name.startswith("/")}
    assert {s.span_id for s in written} == received
    assert {s.trace_id for s in written} == {client_run.trace_id}
