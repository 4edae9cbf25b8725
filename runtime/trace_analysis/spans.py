"""Spans read from OTLP/JSON trace files (the Collector's file exporter format, which is what a run
directory's trace.jsonl holds), flattened to plain data for analysis.

    collected = read_trace_paths([Path("runs")])   # every trace.jsonl under runs/
    collected.spans, collected.problems

A directory is searched recursively for files named `trace.jsonl`; a file given by name is read
whatever its name. A line that is not OTLP/JSON is a problem (`file:line: why`) and is skipped,
so one run killed mid-write does not hide the others. A span read twice (the same run in a run
directory and in a Collector's file) counts once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span as ProtoSpan

from runtime.run_layout import TRACE_FILE
from runtime.trace_export import request_from_line


@dataclass(frozen=True)
class SpanEvent:
    name: str
    attributes: dict[str, Any]


@dataclass(frozen=True)
class TraceSpan:
    trace_id: str  # 32 hex
    span_id: str  # 16 hex
    parent_span_id: str  # 16 hex, "" for a root
    name: str
    start_ns: int
    end_ns: int
    status_code: int  # 0 unset, 1 ok, 2 error (OTLP's numbers)
    attributes: dict[str, Any]
    events: tuple[SpanEvent, ...] = ()

    @property
    def duration_ms(self) -> float:
        return (self.end_ns - self.start_ns) / 1e6


@dataclass
class CollectedSpans:
    spans: list[TraceSpan] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    _seen: set[tuple[str, str]] = field(default_factory=set)

    def add_request(self, request: ExportTraceServiceRequest) -> int:
        """Add every span of an export request (a trace.jsonl line, or one received over OTLP);
        returns how many were new."""
        added = 0
        for resource_spans in request.resource_spans:
            for scope_spans in resource_spans.scope_spans:
                for proto in scope_spans.spans:
                    span = span_from_proto(proto)
                    key = (span.trace_id, span.span_id)
                    if key not in self._seen:
                        self._seen.add(key)
                        self.spans.append(span)
                        added += 1
        return added


def span_from_proto(span: ProtoSpan) -> TraceSpan:
    return TraceSpan(
        trace_id=span.trace_id.hex(),
        span_id=span.span_id.hex(),
        parent_span_id=span.parent_span_id.hex(),
        name=span.name,
        start_ns=span.start_time_unix_nano,
        end_ns=span.end_time_unix_nano,
        status_code=int(span.status.code),
        attributes=attribute_values(span.attributes),
        events=tuple(SpanEvent(event.name, attribute_values(event.attributes)) for event in span.events),
    )


def attribute_values(pairs: Iterable[KeyValue]) -> dict[str, Any]:
    return {pair.key: any_value(pair.value) for pair in pairs}


def any_value(value: AnyValue) -> Any:
    which = value.WhichOneof("value")
    if which == "array_value":
        return [any_value(item) for item in value.array_value.values]
    if which == "kvlist_value":
        return attribute_values(value.kvlist_value.values)
    if which is None:
        return None
    return getattr(value, which)


def trace_files(paths: Iterable[Path]) -> Iterator[Path | str]:
    """The files to read: each named file, and every trace.jsonl under each named directory; a
    path that is neither is yielded as a problem message."""
    for path in paths:
        if path.is_dir():
            yield from sorted(path.rglob(TRACE_FILE))
        elif path.is_file():
            yield path
        else:
            yield f"{path}: no such file or directory"


def read_trace_paths(paths: Iterable[Path]) -> CollectedSpans:
    collected = CollectedSpans()
    for item in trace_files(paths):
        if isinstance(item, str):
            collected.problems.append(item)
            continue
        collected.files.append(item)
        _read_file(item, collected)
    return collected


def _read_file(path: Path, collected: CollectedSpans) -> None:
    try:
        with open(path, encoding="utf-8") as lines:
            for number, line in enumerate(lines, 1):
                if not line.strip():
                    continue
                try:
                    request = request_from_line(line)
                except (ValueError, TypeError, AttributeError, json_format.ParseError) as error:
                    collected.problems.append(f"{path}:{number}: not an OTLP/JSON trace line: {_first_line(error)}")
                    continue
                collected.add_request(request)
    except (OSError, UnicodeDecodeError) as error:
        collected.problems.append(f"{path}: cannot be read: {getattr(error, 'strerror', None) or error}")


def _first_line(error: Exception) -> str:
    message = str(error).strip().splitlines()
    return message[0][:200] if message else type(error).__name__
