"""trace.jsonl as OTLP/JSON: the OpenTelemetry Collector's file exporter format.

Each line is one `ExportTraceServiceRequest` (the same JSON as `TracesData`): `resourceSpans`
with the resource, the instrumentation scope and the spans, in protobuf's JSON mapping with
OTLP/JSON's two departures from it: trace and span ids are hex, not base64, and enums are numbers.

`spans_to_line` writes that JSON itself, field for field what opentelemetry-proto's encoder and
protobuf's `MessageToDict` make of the same spans (tests/telemetry prove it): a run writes its
trace without importing protobuf and the OTLP messages, about 0.06 s of CPU per `verity run`
(BENCHMARKS.md, "Run start"). `request_from_line` reads a line back into the protobuf message,
for the tools that analyse traces.
"""

from __future__ import annotations

import base64
import json
import math
import threading
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
from opentelemetry.trace import SpanContext

if TYPE_CHECKING:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope

# Byte fields OTLP/JSON writes as hex (span, event-less links, and their parents).
_ID_FIELDS = ("traceId", "spanId", "parentSpanId")
# Span.flags: the parent's is_remote is known, and whether it is remote (SpanFlags in trace.proto).
_FLAGS_HAS_IS_REMOTE = 0x100
_FLAGS_IS_REMOTE = 0x200


def spans_to_line(spans: Sequence[ReadableSpan]) -> str:
    """One OTLP/JSON line (no newline) for an export of `spans`, grouped by resource and scope.

    protobuf's JSON mapping, as the encoder's messages get it: a field at its default (0, "",
    an empty list) is left out, a message that is set is written even when empty (`"status": {}`),
    fields go in the order of their numbers, 64-bit integers are strings."""
    grouped: dict[Resource, dict[InstrumentationScope | None, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for span in spans:
        grouped[span.resource][span.instrumentation_scope or None].append(_span(span))
    resource_spans = []
    for resource, scopes in grouped.items():
        scope_spans = [
            _fields(scope=_scope(scope), spans=encoded, schemaUrl=scope.schema_url if scope else None)
            for scope, encoded in scopes.items()
        ]
        resource_spans.append(_fields(resource=_fields(attributes=_attributes(resource.attributes)), scopeSpans=scope_spans, schemaUrl=resource.schema_url))
    return json.dumps(_fields(resourceSpans=resource_spans), ensure_ascii=False, separators=(",", ":"))


def request_from_line(line: str) -> ExportTraceServiceRequest:
    """Parse one OTLP/JSON line; raises ValueError (json_format.ParseError) when it is not one."""
    from google.protobuf import json_format
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    data = json.loads(line)
    _recode_ids(data, lambda hex_id: base64.b64encode(bytes.fromhex(hex_id)).decode("ascii"))
    return json_format.ParseDict(data, ExportTraceServiceRequest())


def read_trace_file(path: Path) -> Iterator[ExportTraceServiceRequest]:
    """Every request in a trace.jsonl, in file order (blank lines skipped)."""
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if line.strip():
                try:
                    yield request_from_line(line)
                except ValueError as error:  # json_format.ParseError is one
                    raise ValueError(f"{path}:{number}: not an OTLP/JSON trace line: {error}") from None


def _recode_ids(node: Any, recode: Any) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in _ID_FIELDS and isinstance(value, str):
                node[key] = recode(value)
            else:
                _recode_ids(value, recode)
    elif isinstance(node, list):
        for item in node:
            _recode_ids(item, recode)


# --------------------------------------------------------------------------- the JSON mapping


def _fields(**fields: Any) -> dict[str, Any]:
    """A message's JSON: the fields (given in the order of their numbers) not at their default."""
    return {name: value for name, value in fields.items() if value not in (None, "", 0, [])}


def _span(span: ReadableSpan) -> dict[str, Any]:
    context = span.get_span_context()
    assert context is not None  # an SDK span always has one
    status = span.status
    return _fields(
        traceId=format(context.trace_id, "032x"),
        spanId=format(context.span_id, "016x"),
        traceState=",".join(f"{key}={value}" for key, value in context.trace_state.items()),
        parentSpanId=format(span.parent.span_id, "016x") if span.parent else None,
        name=span.name,
        kind=span.kind.value + 1,  # SpanKind.INTERNAL (0) is SPAN_KIND_INTERNAL (1), and so on
        startTimeUnixNano=_int64(span.start_time),
        endTimeUnixNano=_int64(span.end_time),
        attributes=_attributes(span.attributes),
        droppedAttributesCount=span.dropped_attributes,
        events=[
            _fields(timeUnixNano=_int64(event.timestamp), name=event.name, attributes=_attributes(event.attributes), droppedAttributesCount=event.dropped_attributes)
            for event in span.events
        ],
        droppedEventsCount=span.dropped_events,
        links=[
            _fields(
                traceId=format(link.context.trace_id, "032x"),
                spanId=format(link.context.span_id, "016x"),
                attributes=_attributes(link.attributes),
                droppedAttributesCount=link.dropped_attributes,
                flags=_flags(link.context),
            )
            for link in span.links
        ],
        droppedLinksCount=span.dropped_links,
        status=_fields(message=status.description, code=status.status_code.value),
        flags=_flags(span.parent),
    )


def _flags(parent: SpanContext | None) -> int:
    return _FLAGS_HAS_IS_REMOTE | (_FLAGS_IS_REMOTE if parent is not None and parent.is_remote else 0)


def _scope(scope: InstrumentationScope | None) -> dict[str, Any]:
    if scope is None:
        return {}
    return _fields(name=scope.name, version=scope.version, attributes=_attributes(scope.attributes))


def _int64(value: int | None) -> str | None:
    return None if not value else str(value)


def _attributes(attributes: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    return [_fields(key=key, value=_any_value(value)) for key, value in (attributes or {}).items()]


def _any_value(value: Any) -> dict[str, Any]:
    """An AnyValue: a oneof, so a member that is set is written even at its default (false, 0, "")."""
    if value is None:
        return {}
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, str):
        return {"stringValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": _double(value)}
    if isinstance(value, bytes):
        return {"bytesValue": base64.b64encode(value).decode("ascii")}
    if isinstance(value, Sequence):
        return {"arrayValue": _fields(values=[_any_value(item) for item in value])}
    if isinstance(value, Mapping):
        return {"kvlistValue": _fields(values=[_fields(key=str(key), value=_any_value(item)) for key, item in value.items()])}
    raise TypeError(f"an attribute value of type {type(value).__name__} has no OTLP form")


def _double(value: float) -> float | str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return value


class OtlpJsonFileExporter(SpanExporter):
    """Appends each export batch to a file as one OTLP/JSON line; the file opens on the first span,
    so a run that never started leaves none."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: IO[str] | None = None
        self._lock = threading.Lock()
        self._closed = False

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        if not spans:
            return SpanExportResult.SUCCESS
        line = spans_to_line(spans)
        with self._lock:
            if self._closed:
                return SpanExportResult.FAILURE
            try:
                if self._file is None:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                    self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - closed in shutdown()
                self._file.write(line + "\n")
                self._file.flush()
            except OSError:
                return SpanExportResult.FAILURE
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        with self._lock:
            self._closed = True
            if self._file is not None:
                self._file.close()
                self._file = None

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        with self._lock:
            if self._file is not None:
                self._file.flush()
        return True
