"""trace.jsonl: a run's OpenTelemetry spans as JSON lines, for analysing runs offline.

    provider = trace_file_provider(run_dir / "trace.jsonl")
    start_run(..., tracer_provider=provider)
    ...
    provider.shutdown()          # flushes and closes the file

One JSON object per finished span, in the order spans end (children before their parents):
name, trace_id, span_id, parent_span_id (32/16 hex; parent null for the root), start_ns,
end_ns, status {code, description}, attributes, events [{name, timestamp_ns, attributes}].
Span attributes never carry inputs, page text or keys (see spans.py), so neither does the file.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

TRACE_FILE = "trace.jsonl"


def span_record(span: ReadableSpan) -> dict[str, Any]:
    context = span.get_span_context()
    parent = span.parent
    return {
        "name": span.name,
        "trace_id": format(context.trace_id, "032x") if context else None,
        "span_id": format(context.span_id, "016x") if context else None,
        "parent_span_id": format(parent.span_id, "016x") if parent is not None else None,
        "start_ns": span.start_time,
        "end_ns": span.end_time,
        "status": {"code": span.status.status_code.name, "description": span.status.description or ""},
        "attributes": dict(span.attributes or {}),
        "events": [{"name": e.name, "timestamp_ns": e.timestamp, "attributes": dict(e.attributes or {})} for e in span.events],
    }


class JsonLinesSpanExporter(SpanExporter):
    """Appends each exported span to a file as one JSON line; the file opens on the first span."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: IO[str] | None = None
        self._lock = threading.Lock()
        self._closed = False

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        with self._lock:
            if self._closed:
                return SpanExportResult.FAILURE
            try:
                if self._file is None:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                    self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - closed in shutdown()
                for span in spans:
                    self._file.write(json.dumps(span_record(span), ensure_ascii=False, default=str) + "\n")
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


def trace_file_provider(path: Path) -> TracerProvider:
    """A tracer provider that writes every finished span to `path` as it ends."""
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(JsonLinesSpanExporter(path)))
    return provider
