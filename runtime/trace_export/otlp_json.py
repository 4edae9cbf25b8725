"""trace.jsonl as OTLP/JSON: the OpenTelemetry Collector's file exporter format.

Each line is one `ExportTraceServiceRequest` (the same JSON as `TracesData`): `resourceSpans`
with the resource, the instrumentation scope and the spans, encoded by opentelemetry-proto's
encoder and protobuf's JSON mapping, with OTLP/JSON's two departures from it: trace and span ids
are hex, not base64, and enums are numbers. `request_from_line` reads a line back into the
protobuf message.
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from google.protobuf import json_format
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult


# Byte fields OTLP/JSON writes as hex (span, event-less links, and their parents).
_ID_FIELDS = ("traceId", "spanId", "parentSpanId")


def request_to_line(request: ExportTraceServiceRequest) -> str:
    """One OTLP/JSON line (no newline) for an export request."""
    data = json_format.MessageToDict(request, use_integers_for_enums=True)
    _recode_ids(data, lambda b64: base64.b64decode(b64).hex())
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def request_from_line(line: str) -> ExportTraceServiceRequest:
    """Parse one OTLP/JSON line; raises ValueError (json_format.ParseError) when it is not one."""
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
                except (ValueError, json_format.ParseError) as error:
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
        line = request_to_line(encode_spans(spans))
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
