"""OpenTelemetry for served runs: the same spans as `verity run` (runtime/execute/record/spans.py), sent
wherever the OTEL_* variables say and written to each run's trace.jsonl, in the caller's trace.

The face a call comes through makes the caller's trace context current while the call runs (the
gRPC server's interceptor reads `traceparent`: service/api/server.py); a run started by that call
takes the current context as its root span's parent (`caller_context`).
"""

from __future__ import annotations

from pathlib import Path

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.sdk.trace import SpanProcessor
from opentelemetry.trace import Span, Status, StatusCode

from runtime import __version__
from runtime.outcomes import StopReason, TaskState
from runtime.service.config.errors import ServiceConfigError
from runtime.run_layout import TRACE_FILE
from runtime.trace_export import RunTracing, TelemetryConfigError, TraceExport
from runtime.trace_export import attributes as attr


class RunTracer:
    def __init__(self, span_processors: tuple[SpanProcessor, ...] = ()) -> None:
        # A process-wide export of our own rather than the global provider: several servers
        # (tests) can live in a process, and an embedding application keeps its global provider.
        try:
            self.export = TraceExport.from_env(span_processors)
        except TelemetryConfigError as error:
            raise ServiceConfigError(str(error)) from None
        self.provider = self.export.provider
        self._tracer = self.provider.get_tracer("verity.service", __version__)

    def for_run(self, run_dir: Path) -> RunTracing:
        """A run's provider: the shared exporters, and the run directory's trace.jsonl."""
        return self.export.for_run(run_dir / TRACE_FILE)

    @staticmethod
    def caller_context() -> otel_context.Context | None:
        """The current call's span context (its caller's trace), or None outside a traced call."""
        current = trace.get_current_span().get_span_context()
        return otel_context.get_current() if current.is_valid else None

    def start_run_span(self, run_id: str, recipe_name: str, recipe_version: str) -> Span:
        """A root span for a run no engine drives (benchmarks, tests): in the caller's trace when
        there is one, else a fresh trace."""
        return self._tracer.start_span(
            f"invoke_agent {recipe_name}",
            context=self.caller_context() or otel_context.Context(),
            kind=trace.SpanKind.INTERNAL,
            attributes={
                attr.OPERATION_NAME: attr.INVOKE_AGENT,
                attr.AGENT_NAME: recipe_name,
                attr.RUN_ID: run_id,
                attr.RECIPE_NAME: recipe_name,
                attr.RECIPE_VERSION: recipe_version,
            },
        )

    @staticmethod
    def trace_id_of(span: Span) -> str:
        return format(span.get_span_context().trace_id, "032x")

    @staticmethod
    def end_run_span(span: Span, status: TaskState, stop_reason: StopReason, verified: bool) -> None:
        span.set_attribute(attr.STATUS, status.value)
        span.set_attribute(attr.STOP_REASON, stop_reason.value)
        span.set_attribute(attr.VERIFIED, verified)
        if stop_reason is StopReason.COMPLETED:
            span.set_status(Status(StatusCode.OK))
        else:
            span.set_status(Status(StatusCode.ERROR, stop_reason.value))
        span.end()

    def shutdown(self) -> None:
        self.export.shutdown()
