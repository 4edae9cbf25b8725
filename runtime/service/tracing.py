"""OpenTelemetry for runs: one root span per run, whose trace id every event of the run carries.

Span attributes are limited to identifiers and outcomes (run id, recipe name/version, status,
stop reason). Inputs, tokens and page content never go into spans: they may hold secrets.
"""

from __future__ import annotations

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.trace import Span, Status, StatusCode

from runtime import __version__
from runtime.outcomes import StopReason, TaskState


class RunTracer:
    def __init__(self, span_processors: tuple[SpanProcessor, ...] = ()) -> None:
        # A provider of our own rather than the global one: several servers (tests) can live in a
        # process, and the embedding application keeps control of its global provider.
        self.provider = TracerProvider(resource=Resource.create({"service.name": "verity", "service.version": __version__}))
        for processor in span_processors:
            self.provider.add_span_processor(processor)
        self._tracer = self.provider.get_tracer("verity.service", __version__)

    def start_run_span(self, run_id: str, recipe_name: str, recipe_version: str) -> Span:
        """A new root span (fresh trace id), never a child of whatever context is current."""
        return self._tracer.start_span(
            "verity.run",
            context=otel_context.Context(),
            kind=trace.SpanKind.INTERNAL,
            attributes={
                "verity.run_id": run_id,
                "verity.recipe.name": recipe_name,
                "verity.recipe.version": recipe_version,
            },
        )

    @staticmethod
    def trace_id_of(span: Span) -> str:
        return format(span.get_span_context().trace_id, "032x")

    @staticmethod
    def end_run_span(span: Span, status: TaskState, stop_reason: StopReason, verified: bool) -> None:
        span.set_attribute("verity.status", status.value)
        span.set_attribute("verity.stop_reason", stop_reason.value)
        span.set_attribute("verity.verified", verified)
        if stop_reason is StopReason.COMPLETED:
            span.set_status(Status(StatusCode.OK))
        else:
            span.set_status(Status(StatusCode.ERROR, stop_reason.value))
        span.end()

    def shutdown(self) -> None:
        self.provider.shutdown()
