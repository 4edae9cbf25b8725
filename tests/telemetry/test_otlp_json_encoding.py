"""trace.jsonl's own OTLP/JSON writer (runtime/trace_export/otlp_json.py `spans_to_line`) writes,
character for character, what opentelemetry-proto's encoder and protobuf's JSON mapping make of
the same spans, ids in hex (TELEMETRY-002's format, without importing protobuf in a run).

The spans are the real SDK's, made to cover every field the mapping treats on its own: each
attribute type and its default value, events, links to a remote context, a remote parent, trace
state, every span kind and status, a scope with a schema and attributes, two resources."""

from __future__ import annotations

import base64
import json
import math

from google.protobuf import json_format
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Link, SpanContext, SpanKind, Status, StatusCode, TraceFlags, TraceState

from runtime.trace_export import spans_to_line

ATTRIBUTES = {
    "text": "café ✓ \"quoted\"",
    "empty_text": "",
    "yes": True,
    "no": False,
    "zero": 0,
    "big": 2**62,
    "negative": -7,
    "ratio": 0.25,
    "zero_ratio": 0.0,
    "whole_ratio": 3.0,
    "not_a_number": math.nan,
    "infinite": -math.inf,
    "names": ["a", "b"],
    "counts": [1, 0, -2],
    "flags": [True, False],
    "ratios": [1.5, 0.0],
    "nothing": [],
}


def _spans() -> list[ReadableSpan]:
    exporter = InMemorySpanExporter()
    for resource in (Resource.create({"service.name": "verity", "pid": 42}), Resource({}, schema_url="https://opentelemetry.io/schemas/1.21.0")):
        provider = TracerProvider(resource=resource)
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        tracer = provider.get_tracer("verity", "0.1.0", schema_url="https://opentelemetry.io/schemas/1.11.0", attributes={"scope.kind": "test"})
        bare = provider.get_tracer("")
        remote = SpanContext(0x0AF7651916CD43DD8448EB211C80319C, 0x00F067AA0BA902B7, is_remote=True, trace_flags=TraceFlags(1), trace_state=TraceState([("vendor", "v1"), ("other", "x")]))
        with tracer.start_as_current_span("root", attributes=ATTRIBUTES, kind=SpanKind.SERVER) as root:
            root.add_event("seen", {"count": 3, "at": "top"})
            root.add_event("bare")
            root.set_status(Status(StatusCode.ERROR, "it failed"))
            with tracer.start_as_current_span("child", kind=SpanKind.CLIENT, links=[Link(remote, {"why": "follows"}), Link(remote)]) as child:
                child.set_status(Status(StatusCode.OK))
        for kind in (SpanKind.INTERNAL, SpanKind.PRODUCER, SpanKind.CONSUMER):
            tracer.start_span(f"remote child {kind.name}", context=trace.set_span_in_context(trace.NonRecordingSpan(remote)), kind=kind).end()
        bare.start_span("unscoped").end()
    return list(exporter.get_finished_spans())


def _reference_line(spans: list[ReadableSpan]) -> str:
    """What runtime/trace_export wrote before it had its own writer: the encoder, protobuf's JSON
    mapping, and the ids turned from base64 to hex."""
    data = json_format.MessageToDict(encode_spans(spans), use_integers_for_enums=True)

    def hex_ids(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("traceId", "spanId", "parentSpanId"):
                    node[key] = base64.b64decode(value).hex()
                else:
                    hex_ids(value)
        elif isinstance(node, list):
            for item in node:
                hex_ids(item)

    hex_ids(data)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def test_each_span_alone_is_written_as_the_encoder_and_protobuf_write_it() -> None:
    spans = _spans()
    assert len(spans) == 12
    for span in spans:
        assert spans_to_line([span]) == _reference_line([span]), span.name


def test_a_batch_of_spans_is_grouped_by_resource_and_scope_as_the_encoder_groups_it() -> None:
    spans = _spans()
    line = spans_to_line(spans)
    assert line == _reference_line(spans)
    assert len(json.loads(line)["resourceSpans"]) == 2
