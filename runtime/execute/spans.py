"""OpenTelemetry spans of a run: a root `verity.run` span and one child span per executed state.

Attributes carry ids and outcomes only (never inputs, page text or tokens: they may be secrets).
When the caller passes no tracer provider we use a private SDK provider without exporters, so a
run always has a real 32-hex trace id to stamp on its events even where tracing is not set up.
"""

from __future__ import annotations

import random

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import Span, Status, StatusCode

from runtime.outcomes import BlockerKind, StopReason

_DEFAULT_PROVIDER: TracerProvider | None = None


def _is_trace_id(text: str) -> bool:
    return len(text) == 32 and all(c in "0123456789abcdef" for c in text) and int(text, 16) != 0


def default_provider() -> trace.TracerProvider:
    """The global provider when one is configured (an SDK provider), else a private one."""
    global _DEFAULT_PROVIDER
    configured = trace.get_tracer_provider()
    if isinstance(configured, TracerProvider):
        return configured
    if _DEFAULT_PROVIDER is None:
        _DEFAULT_PROVIDER = TracerProvider()
    return _DEFAULT_PROVIDER


class RunSpans:
    def __init__(
        self, provider: trace.TracerProvider | None, run_id: str, recipe_name: str, recipe_version: str, *, existing_trace_id: str = ""
    ) -> None:
        """A new root `verity.run` span (a fresh trace) - unless the caller already opened the run's
        trace (the gRPC service does, to stamp its run record): then our span joins that trace as
        `verity.execute`, so every event and span of the run shares one trace id."""
        self._tracer = (provider or default_provider()).get_tracer("verity.execute")
        attributes = {"verity.run_id": run_id, "verity.recipe.name": recipe_name, "verity.recipe.version": recipe_version}
        parent = otel_context.Context()  # never a child of whatever happens to be current
        name = "verity.run"
        if _is_trace_id(existing_trace_id):
            remote = trace.SpanContext(
                trace_id=int(existing_trace_id, 16),
                span_id=random.getrandbits(64) or 1,
                is_remote=True,
                trace_flags=trace.TraceFlags(trace.TraceFlags.SAMPLED),
            )
            parent = trace.set_span_in_context(trace.NonRecordingSpan(remote), parent)
            name = "verity.execute"
        self.root: Span = self._tracer.start_span(name, context=parent, attributes=attributes)

    @property
    def trace_id(self) -> str:
        return format(self.root.get_span_context().trace_id, "032x")

    def start_state(self, state_id: str, kind: str) -> Span:
        return self._tracer.start_span(
            f"verity.state {kind}",
            context=trace.set_span_in_context(self.root),
            attributes={"verity.state.id": state_id, "verity.state.kind": kind},
        )

    def start_child(self, parent: Span | None, name: str, attributes: dict[str, str | int]) -> Span:
        """A span inside a state's span (an agent turn), or inside the run's when there is none."""
        return self._tracer.start_span(name, context=trace.set_span_in_context(parent or self.root), attributes=attributes)

    @staticmethod
    def end_state(span: Span, outcome: str, blocker_kind: BlockerKind | None, stop_reason: StopReason | None) -> None:
        span.set_attribute("verity.state.outcome", outcome)
        if blocker_kind is not None:
            span.set_attribute("verity.blocker_kind", blocker_kind.value)
        if stop_reason is not None:
            span.set_attribute("verity.stop_reason", stop_reason.value)
        span.end()

    def end_run(self, status: str, stop_reason: StopReason, verified: bool, blocker_kind: BlockerKind | None) -> None:
        self.root.set_attribute("verity.status", status)
        self.root.set_attribute("verity.stop_reason", stop_reason.value)
        self.root.set_attribute("verity.verified", verified)
        if blocker_kind is not None:
            self.root.set_attribute("verity.blocker_kind", blocker_kind.value)
        if stop_reason is StopReason.COMPLETED:
            self.root.set_status(Status(StatusCode.OK))
        else:
            self.root.set_status(Status(StatusCode.ERROR, stop_reason.value))
        self.root.end()
