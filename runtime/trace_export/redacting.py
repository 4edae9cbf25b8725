"""Spans that never carry a secret: a tracer whose spans redact every attribute and event.

A run's spans (its states, tool calls and model calls) are all started by one tracer; wrapping it
makes span attributes one boundary of the run's `Secrets`, whoever sets them. The real span does
everything else (context, export); only texts are rewritten on their way in.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from opentelemetry import trace
from opentelemetry.util.types import Attributes, AttributeValue

from runtime.secrets import Secrets


def _redacted_value(secrets: Secrets, value: Any) -> Any:
    if isinstance(value, str):
        return secrets.redact_text(value)
    if isinstance(value, (list, tuple)):
        return type(value)(secrets.redact_text(v) if isinstance(v, str) else v for v in value)
    return value


def _redacted(secrets: Secrets, attributes: Attributes | Mapping[str, Any] | None) -> dict[str, Any] | None:
    if attributes is None:
        return None
    return {key: _redacted_value(secrets, value) for key, value in attributes.items()}


class RedactingSpan(trace.Span):
    """A span whose attributes, events, status and name pass through `secrets` first."""

    def __init__(self, span: trace.Span, secrets: Secrets) -> None:
        self.wrapped = span
        self._secrets = secrets

    def end(self, end_time: int | None = None) -> None:
        self.wrapped.end(end_time)

    def get_span_context(self) -> trace.SpanContext:
        return self.wrapped.get_span_context()

    def set_attributes(self, attributes: Mapping[str, AttributeValue]) -> None:
        self.wrapped.set_attributes(_redacted(self._secrets, attributes) or {})

    def set_attribute(self, key: str, value: AttributeValue) -> None:
        self.wrapped.set_attribute(key, _redacted_value(self._secrets, value))

    def add_event(self, name: str, attributes: Attributes = None, timestamp: int | None = None) -> None:
        self.wrapped.add_event(name, _redacted(self._secrets, attributes), timestamp)

    def update_name(self, name: str) -> None:
        self.wrapped.update_name(self._secrets.redact_text(name))

    def is_recording(self) -> bool:
        return self.wrapped.is_recording()

    def set_status(self, status: Any, description: str | None = None) -> None:
        if isinstance(status, trace.Status) and status.description:
            status = trace.Status(status.status_code, self._secrets.redact_text(status.description))
        self.wrapped.set_status(status, self._secrets.redact_text(description) if description else description)

    def record_exception(self, exception: BaseException, attributes: Attributes = None, timestamp: int | None = None, escaped: bool = False) -> None:
        # The exception's own text may hold a value: record it as an event of redacted texts.
        self.wrapped.add_event(
            "exception",
            _redacted(self._secrets, {"exception.type": type(exception).__name__, "exception.message": str(exception), **dict(attributes or {})}),
            timestamp,
        )

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)


class RedactingTracer(trace.Tracer):
    """`tracer`, whose spans are `RedactingSpan`s over `secrets`."""

    def __init__(self, tracer: trace.Tracer, secrets: Secrets) -> None:
        self.wrapped = tracer
        self.secrets = secrets

    def start_span(
        self,
        name: str,
        context: Any = None,
        kind: trace.SpanKind = trace.SpanKind.INTERNAL,
        attributes: Attributes = None,
        links: Sequence[trace.Link] | None = None,
        start_time: int | None = None,
        record_exception: bool = True,
        set_status_on_exception: bool = True,
    ) -> trace.Span:
        span = self.wrapped.start_span(
            self.secrets.redact_text(name), context, kind, _redacted(self.secrets, attributes), links, start_time, False, set_status_on_exception
        )
        return RedactingSpan(span, self.secrets)

    @contextmanager
    def start_as_current_span(self, name: str, context: Any = None, kind: trace.SpanKind = trace.SpanKind.INTERNAL, attributes: Attributes = None, **options: Any) -> Iterator[trace.Span]:  # type: ignore[override]
        span = self.start_span(name, context, kind, attributes)
        with trace.use_span(span, end_on_exit=options.get("end_on_exit", True)):
            yield span
