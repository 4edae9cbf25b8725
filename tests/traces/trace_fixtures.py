"""The fixed set of runs `verity trace summarize` is tested against, as OTLP/JSON trace files.

Built from opentelemetry-proto messages and written in the Collector's file exporter format (one
ExportTraceServiceRequest per line, ids in hex, enums as numbers), independently of the runtime's
own writer. The files are committed under tests/fixtures/traces/; regenerate them with

    uv run --frozen python -m tests.traces.trace_fixtures

and the test that compares them with a fresh build fails if they drift.

    run_dirs/r1/trace.jsonl  r1 in two lines, as a batch processor writes them
    run_dirs/r2/trace.jsonl  r2
    collector.jsonl      r3..r6 (r5 served, under a client's span), r1 again (counted once),
                         a span of a run that never ended, and a line that is not OTLP/JSON

The expected figures are worked out by hand in test_trace_summarize.py.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, InstrumentationScope, KeyValue
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span, Status

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "traces"
MS = 1_000_000
T0 = 1_760_000_000_000 * MS  # a fixed wall-clock start, in ns
BROKEN_LINE = '{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "not-hex"'


def any_value(value: Any) -> AnyValue:
    if isinstance(value, bool):
        return AnyValue(bool_value=value)
    if isinstance(value, int):
        return AnyValue(int_value=value)
    if isinstance(value, float):
        return AnyValue(double_value=value)
    return AnyValue(string_value=str(value))


def key_values(attributes: dict[str, Any]) -> list[KeyValue]:
    return [KeyValue(key=key, value=any_value(value)) for key, value in attributes.items()]


@dataclass
class RunBuilder:
    """One run's spans: the invoke_agent root, then states one after another (each may hold
    tool, turn and chat spans)."""

    number: int
    trace_id: bytes
    parent_span_id: bytes = b""
    spans: list[Span] = field(default_factory=list)
    clock_ms: float = 0.0
    _next_span: int = 1

    def new_span_id(self) -> bytes:
        span_id = bytes([self.number, 0, 0, 0, 0, 0, 0, self._next_span])
        self._next_span += 1
        return span_id

    def span(self, name: str, parent: bytes, start_ms: float, duration_ms: float, attributes: dict[str, Any], kind: int = Span.SPAN_KIND_INTERNAL) -> Span:
        span = Span(
            trace_id=self.trace_id,
            span_id=self.new_span_id(),
            parent_span_id=parent,
            name=name,
            kind=kind,
            start_time_unix_nano=T0 + int(start_ms * MS),
            end_time_unix_nano=T0 + int((start_ms + duration_ms) * MS),
            attributes=key_values(attributes),
        )
        self.spans.append(span)
        return span

    def root(self, recipe: str, attributes: dict[str, Any], *, error: bool) -> Span:
        root = self.span(f"invoke_agent {recipe}", self.parent_span_id, 0, 0, {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": recipe, **attributes})
        root.status.CopyFrom(Status(code=Status.STATUS_CODE_ERROR if error else Status.STATUS_CODE_OK, message=str(attributes["verity.stop_reason"]) if error else ""))
        return root

    def state(self, root: Span, kind: str, duration_ms: float, blocker: str | None = None, **extra: Any) -> Span:
        attributes: dict[str, Any] = {"verity.state.id": f"s{self._next_span}", "verity.state.kind": kind, "verity.state.attempt": 1}
        if blocker:
            attributes["verity.blocker_kind"] = blocker
        attributes.update(extra)
        span = self.span(f"verity.state {kind}", root.span_id, self.clock_ms, duration_ms, attributes)
        self.clock_ms += duration_ms
        root.end_time_unix_nano = T0 + int(self.clock_ms * MS)
        return span

    def tool(self, state: Span, tool: str, kind: str) -> Span:
        start = (state.start_time_unix_nano - T0) / MS
        return self.span(f"execute_tool {tool}", state.span_id, start, 1, {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool, "verity.state.kind": kind})

    def chat(self, state: Span, input_tokens: int, output_tokens: int) -> None:
        start = (state.start_time_unix_nano - T0) / MS
        turn = self.span("verity.agent.turn", state.span_id, start, 5, {"verity.agent.turn": 1, "verity.state.kind": "agent"})
        self.span("chat gemini-2.5-flash", turn.span_id, start, 4, {
            "gen_ai.operation.name": "chat", "gen_ai.provider.name": "gcp.gemini", "gen_ai.request.model": "gemini-2.5-flash",
            "gen_ai.usage.input_tokens": input_tokens, "gen_ai.usage.output_tokens": output_tokens,
        }, kind=Span.SPAN_KIND_CLIENT)


def trace_id(number: int) -> bytes:
    return bytes([0xAB, number]) + bytes(14)


def run_attributes(run_id: str, stop_reason: str, verified: bool, *, replans: int, retries: int, blocked: int,
                   tokens: tuple[int, int] = (0, 0), blocker: str | None = None, expected: str | None = None) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        "verity.run_id": run_id, "verity.status": "completed" if stop_reason == "completed" else "error",
        "verity.stop_reason": stop_reason, "verity.verified": verified,
        "verity.replans": replans, "verity.retries": retries, "verity.blocked_requests": blocked,
    }
    if tokens != (0, 0):
        attributes["gen_ai.usage.input_tokens"], attributes["gen_ai.usage.output_tokens"] = tokens
    if blocker:
        attributes["verity.blocker_kind"] = blocker
    if expected:
        attributes["verity.label.expected_verdict"] = expected
    return attributes


def build_runs() -> dict[str, RunBuilder]:
    runs: dict[str, RunBuilder] = {}

    r1 = runs["r1"] = RunBuilder(1, trace_id(1))
    root = r1.root("demo-quote", run_attributes("r1", "completed", True, replans=1, retries=0, blocked=0, expected="completed"), error=False)
    navigate = r1.state(root, "navigate", 100)
    r1.tool(navigate, "open_url", "navigate")
    r1.state(root, "data.validate-target", 5, "page_not_found")
    r1.state(root, "agent.evaluate", 2, "page_not_found")
    r1.state(root, "replan.search", 300)
    r1.state(root, "extract", 40)
    r1.state(root, "verify", 10)

    r2 = runs["r2"] = RunBuilder(2, trace_id(2))
    root = r2.root("agent-search", run_attributes("r2", "verification_failed", False, replans=0, retries=2, blocked=3, tokens=(1000, 200), expected="verification_failed"), error=True)
    r2.state(root, "navigate", 200)
    agent = r2.state(root, "agent", 1500)
    r2.chat(agent, 1000, 200)
    r2.tool(agent, "browser_click", "agent")
    # The agent's done_when failed; a repair tried twice, and the step's verification still failed.
    r2.state(root, "repair", 300, **{"verity.repair.trigger": "verification_failed", "verity.repair.attempts": 2, "verity.repair.repaired": False})
    r2.state(root, "verify", 20)

    r3 = runs["r3"] = RunBuilder(3, trace_id(3))
    root = r3.root("agent-search", run_attributes("r3", "completed", True, replans=0, retries=1, blocked=0, tokens=(500, 100), expected="page_not_found"), error=False)
    r3.state(root, "navigate", 50)
    r3.chat(r3.state(root, "agent", 900), 500, 100)
    r3.state(root, "verify", 30)

    r4 = runs["r4"] = RunBuilder(4, trace_id(4))
    root = r4.root("demo-quote", run_attributes("r4", "replans_exhausted", False, replans=2, retries=0, blocked=1, blocker="page_not_found", expected="completed"), error=True)
    r4.state(root, "navigate", 120)
    r4.state(root, "data.validate-target", 4, "page_not_found")
    r4.state(root, "replan.search", 400)
    r4.state(root, "replan.search", 600)

    # A served run: the client's span and the server's StartRun span come first in its trace.
    r5 = runs["r5"] = RunBuilder(5, trace_id(5))
    client = r5.span("verity.v1.AgentService/StartRun", b"", 0, 3000, {"rpc.system": "grpc", "rpc.method": "StartRun"}, kind=Span.SPAN_KIND_CLIENT)
    server = r5.span("verity.v1.AgentService/StartRun", client.span_id, 1, 2900, {"rpc.system": "grpc", "rpc.service": "verity.v1.AgentService"}, kind=Span.SPAN_KIND_SERVER)
    r5.parent_span_id = server.span_id
    root = r5.root("form-fill", run_attributes("r5", "no_progress", False, replans=0, retries=4, blocked=0, tokens=(2000, 300)), error=True)
    r5.state(root, "navigate", 80)
    r5.state(root, "act", 60)
    r5.state(root, "act", 70)

    r6 = runs["r6"] = RunBuilder(6, trace_id(6))
    root = r6.root("demo-quote", run_attributes("r6", "completed", True, replans=3, retries=0, blocked=5, expected="completed"), error=False)
    r6.state(root, "navigate", 90)
    r6.state(root, "data.validate-target", 6, "access_denied")
    r6.state(root, "replan.search", 350)
    r6.state(root, "extract", 25)
    r6.state(root, "verify", 15)

    # A run killed before its root span ended: only one state span ever arrived.
    killed = runs["killed"] = RunBuilder(7, trace_id(7))
    killed.span("verity.state navigate", bytes([7]) * 8, 0, 999, {"verity.state.id": "open", "verity.state.kind": "navigate"})
    return runs


def request_line(spans: list[Span]) -> str:
    """One Collector file exporter line: the request as protobuf JSON, ids re-encoded as hex."""
    request = ExportTraceServiceRequest(
        resource_spans=[
            ResourceSpans(
                resource=Resource(attributes=key_values({"service.name": "verity"})),
                scope_spans=[ScopeSpans(scope=InstrumentationScope(name="verity"), spans=spans)],
            )
        ]
    )
    data = json_format.MessageToDict(request, use_integers_for_enums=True)
    for resource_spans in data["resourceSpans"]:
        for scope_spans in resource_spans["scopeSpans"]:
            for span in scope_spans["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64decode(span[key]).hex()
    return json.dumps(data, separators=(",", ":"))


def fixture_files() -> dict[str, str]:
    """Relative path -> content of every fixture file."""
    runs = build_runs()
    r1 = runs["r1"].spans
    collector = [
        request_line(runs["r3"].spans),
        request_line(runs["r4"].spans),
        BROKEN_LINE,
        request_line(runs["r5"].spans + runs["r6"].spans),
        request_line(r1),
        request_line(runs["killed"].spans),
    ]
    return {
        "run_dirs/r1/trace.jsonl": request_line(r1[2:]) + "\n" + request_line(r1[:2]) + "\n",  # children first, as spans end
        "run_dirs/r2/trace.jsonl": request_line(runs["r2"].spans) + "\n",
        "collector.jsonl": "\n".join(collector) + "\n",
    }


def write_fixtures(root: Path = FIXTURES) -> None:
    for relative, content in fixture_files().items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")


if __name__ == "__main__":
    write_fixtures()
    print(f"wrote {', '.join(fixture_files())} under {FIXTURES}")
