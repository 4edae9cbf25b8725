"""A run's OpenTelemetry spans, in the GenAI conventions (README "Tracing"):

    invoke_agent {recipe}                 the run
      verity.state {kind}                 each executed plan state
        verity.agent.turn                 each turn of an agent state
          chat {model}                    each model call (runtime/llm/chat_spans.py)
          execute_tool {tool}             each browser tool call (driver actions nest inside)

What happens inside a span without being a span of its own (a guard trips, the policy refuses a
request, a replan, an approval, a verification) becomes a span event: `on_event` reads the run's
events and puts each on the innermost open span. Spans hold ids, kinds, outcomes, counts and
domains; page text, prompts, tool arguments and inputs only with content capture on
(runtime/telemetry/content.py), and keys never.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from runtime.secrets import Secrets
from runtime.trace_export.redacting import RedactingTracer
from runtime import __version__
from runtime.events import ConfirmationRequested, Event, GuardrailTripped, Replanned, StatusChanged
from runtime import llm
from runtime.outcomes import BlockerKind, StopReason, TaskState
from runtime.trace_export import attributes as attr
from runtime.trace_export import capture_message_content

if TYPE_CHECKING:
    from runtime.llm import ChatTelemetry, LlmRetry, LlmUsage

_DEFAULT_PROVIDER: TracerProvider | None = None
# Blockers the network policy reports for each request it refused.
_POLICY_BLOCKERS = (BlockerKind.DOMAIN_NOT_ALLOWED, BlockerKind.SCHEME_NOT_ALLOWED)

def _is_trace_id(text: str) -> bool:
    return len(text) == 32 and all(c in "0123456789abcdef" for c in text) and int(text, 16) != 0


def default_provider() -> trace.TracerProvider:
    """The global provider when one is configured (an SDK provider), else a private one without
    exporters, so a run always has a real trace id to stamp on its events."""
    global _DEFAULT_PROVIDER
    configured = trace.get_tracer_provider()
    if isinstance(configured, TracerProvider):
        return configured
    if _DEFAULT_PROVIDER is None:
        _DEFAULT_PROVIDER = TracerProvider(shutdown_on_exit=False)
    return _DEFAULT_PROVIDER


def url_domain(url: str | None) -> str:
    """The host of `url` (never its path or query: they may carry inputs); '' when it has none."""
    try:
        return (urlsplit(url).hostname or "") if url else ""
    except ValueError:
        return ""


class ToolSpan:
    """One `execute_tool {tool}` span; use as a context manager so a call that raises still ends it."""

    def __init__(self, spans: RunSpans, span: Span) -> None:
        self._spans = spans
        self.span = span
        self._ended = False

    def __enter__(self) -> ToolSpan:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: Any) -> None:
        if not self._ended:
            self.finish(ok=kind is None, error_code="" if kind is None else getattr(getattr(error, "reason", None), "value", kind.__name__))

    def finish(
        self,
        *,
        ok: bool,
        error_code: str = "",
        url: str | None = None,
        tab_id: str | None = None,
        snapshot_id: str | None = None,
        result: str | None = None,
    ) -> None:
        span = self.span
        url = url if isinstance(url, str) else None
        if url_domain(url):
            span.set_attribute(attr.URL_DOMAIN, url_domain(url))
            self._spans.page_url = url
        if tab_id:
            span.set_attribute(attr.TAB_ID, tab_id)
            self._spans.tab_id = tab_id
        if isinstance(snapshot_id, str) and snapshot_id:
            span.set_attribute(attr.SNAPSHOT_ID, snapshot_id)
        if result is not None and self._spans.capture_content:
            span.set_attribute(attr.TOOL_CALL_RESULT, result)
        if not ok:
            span.set_attribute(attr.ERROR_TYPE, error_code or "error")
            if error_code:
                span.set_attribute(attr.ERROR_CODE, error_code)
            span.set_status(Status(StatusCode.ERROR, error_code or "the tool call failed"))
        self._ended = True
        self._spans._close(span)


class RunSpans:
    def __init__(
        self,
        provider: trace.TracerProvider | None,
        run_id: str,
        recipe_name: str,
        recipe_version: str,
        *,
        parent: otel_context.Context | None = None,
        existing_trace_id: str = "",
        labels: Mapping[str, str] | None = None,
        secrets: Secrets | None = None,
    ) -> None:
        """The run's `invoke_agent` span: a new trace, or a child of `parent` (a served run joining
        its caller's trace). `existing_trace_id` joins a trace known only by its id. Every span of
        the run, model calls' too, is started by one tracer that redacts the run's `secrets`."""
        self.secrets = secrets if secrets is not None else Secrets()
        self._tracer = RedactingTracer((provider or default_provider()).get_tracer("verity", __version__), self.secrets)
        self.capture_content = capture_message_content()
        attributes: dict[str, Any] = {
            attr.OPERATION_NAME: attr.INVOKE_AGENT,
            attr.AGENT_NAME: recipe_name,
            attr.RUN_ID: run_id,
            attr.RECIPE_NAME: recipe_name,
            attr.RECIPE_VERSION: recipe_version,
        }
        for key, value in (labels or {}).items():
            attributes[attr.LABEL_PREFIX + key] = str(value)
        context = parent if parent is not None else otel_context.Context()  # never a child of whatever is current
        if parent is None and _is_trace_id(existing_trace_id):
            remote = trace.SpanContext(
                trace_id=int(existing_trace_id, 16),
                span_id=random.getrandbits(64) or 1,
                is_remote=True,
                trace_flags=trace.TraceFlags(trace.TraceFlags.SAMPLED),
            )
            context = trace.set_span_in_context(trace.NonRecordingSpan(remote), context)
        self.root: Span = self._tracer.start_span(f"invoke_agent {recipe_name}", context=context, kind=SpanKind.INTERNAL, attributes=attributes)
        # Open spans, outermost first: the running state, its agent turn, tool calls in progress.
        self._open: list[Span] = []
        self.replans = 0
        self.retries = 0
        self.blocked_requests = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self._pending_approvals: dict[str, str] = {}
        # Where the running state's tool calls last were: its span names the page it ended on.
        self.page_url: str | None = None
        self.tab_id: str | None = None

    @property
    def trace_id(self) -> str:
        return format(self.root.get_span_context().trace_id, "032x")

    def current(self) -> Span:
        """The innermost open span: where a model call, a tool call or an event belongs."""
        return self._open[-1] if self._open else self.root

    def _start(self, name: str, kind: SpanKind, attributes: dict[str, Any]) -> Span:
        span = self._tracer.start_span(name, context=trace.set_span_in_context(self.current()), kind=kind, attributes=attributes)
        self._open.append(span)
        return span

    def _close(self, span: Span) -> None:
        if span in self._open:
            # Anything opened inside it and left open (a cancelled call) ends with it.
            while self._open:
                inner = self._open.pop()
                if inner is span:
                    break
                inner.end()
        span.end()

    # --- states, turns, tool calls ---------------------------------------------------------------

    def start_state(self, state_id: str, kind: str, attempt: int = 1) -> Span:
        while self._open:  # a state is never inside another
            self._open.pop().end()
        self.page_url = self.tab_id = None
        return self._start(f"verity.state {kind}", SpanKind.INTERNAL, {attr.STATE_ID: state_id, attr.STATE_KIND: kind, attr.STATE_ATTEMPT: attempt})

    def end_state(
        self,
        span: Span,
        outcome: str,
        blocker_kind: BlockerKind | None,
        stop_reason: StopReason | None,
        *,
        ok: bool = True,
        verified: bool | None = None,
        url: str | None = None,
        tab_id: str | None = None,
    ) -> None:
        span.set_attribute(attr.STATE_OUTCOME, outcome)
        if blocker_kind is not None:
            span.set_attribute(attr.BLOCKER_KIND, blocker_kind.value)
        if stop_reason is not None:
            span.set_attribute(attr.STOP_REASON, stop_reason.value)
            if stop_reason is StopReason.APPROVAL_DENIED:
                for request_id, tool in self._pending_approvals.items():
                    span.add_event(attr.APPROVAL_ANSWERED_EVENT, {attr.APPROVAL_REQUEST_ID: request_id, attr.TOOL_NAME: tool, attr.APPROVAL_APPROVED: False})
                self._pending_approvals.clear()
        if verified is not None:
            span.set_attribute(attr.VERIFIED, verified)
            span.add_event(attr.VERIFICATION_EVENT, {attr.VERIFIED: verified})
        url, tab_id = url or self.page_url, tab_id or self.tab_id
        if url_domain(url):
            span.set_attribute(attr.URL_DOMAIN, url_domain(url))
        if tab_id:
            span.set_attribute(attr.TAB_ID, tab_id)
        if not ok:
            span.set_status(Status(StatusCode.ERROR, stop_reason.value if stop_reason else outcome))
        self._close(span)

    def note_repair(self, span: Span, trigger: str, attempts: int, repaired: bool) -> None:
        """A repair state's span says what it repaired, in how many attempts, and whether it held."""
        span.set_attribute(attr.REPAIR_TRIGGER, trigger)
        span.set_attribute(attr.REPAIR_ATTEMPTS, attempts)
        span.set_attribute(attr.REPAIR_REPAIRED, repaired)

    def note_action_cache(self, span: Span, outcome: str) -> None:
        """An agent state's span says whether its cached path replayed, fell back or was missed."""
        span.set_attribute(attr.ACTION_CACHE, outcome)

    def start_turn(self, state_id: str, number: int) -> Span:
        return self._start("verity.agent.turn", SpanKind.INTERNAL, {attr.STATE_ID: state_id, attr.AGENT_TURN: number})

    def end_turn(self, span: Span, tool: str, outcome: str, error_code: str = "") -> None:
        span.set_attribute(attr.AGENT_TOOL, tool)
        span.set_attribute(attr.AGENT_OUTCOME, outcome)
        if error_code:
            span.set_attribute(attr.ERROR_CODE, error_code)
            span.set_status(Status(StatusCode.ERROR, error_code))
        self._close(span)

    def tool(self, tool: str, call_id: str, arguments: str | None = None) -> ToolSpan:
        """An `execute_tool` span for one call, under the innermost open span."""
        attributes: dict[str, Any] = {attr.OPERATION_NAME: attr.EXECUTE_TOOL, attr.TOOL_NAME: tool, attr.TOOL_CALL_ID: call_id, attr.TOOL_TYPE: "function"}
        if arguments is not None and self.capture_content:
            attributes[attr.TOOL_CALL_ARGUMENTS] = arguments
        return ToolSpan(self, self._start(f"execute_tool {tool}", SpanKind.INTERNAL, attributes))

    # --- model calls --------------------------------------------------------------------------

    def chat_telemetry(self, on_retry: Any = None) -> ChatTelemetry:
        """What the LLM gateway needs to trace its calls under the current span and count them
        (made by the first gateway a run opens: a run that asks no model loads no runtime.llm)."""

        def retried(retry: LlmRetry) -> None:
            self.retries += 1
            if on_retry is not None:
                on_retry(retry)

        return llm.ChatTelemetry(self._tracer, parent=self.current, capture_content=self.capture_content, on_retry=retried, on_usage=self._used)

    def _used(self, usage: LlmUsage) -> None:
        self.input_tokens += usage.prompt_tokens
        self.output_tokens += usage.output_tokens

    # --- events -------------------------------------------------------------------------------

    def on_event(self, event: Event) -> None:
        """An EventLog listener: what the run reports becomes span events and counts."""
        payload = event.payload
        if isinstance(payload, GuardrailTripped):
            self._guardrail(payload)
        elif isinstance(payload, Replanned):
            self.replans = max(self.replans, payload.attempt)
            attributes: dict[str, Any] = {attr.REPLAN_ATTEMPT: payload.attempt}
            if payload.blocker_kind is not None:
                attributes[attr.BLOCKER_KIND] = payload.blocker_kind.value
            if url_domain(payload.url):
                attributes[attr.URL_DOMAIN] = url_domain(payload.url)
            if self.capture_content and payload.query:
                attributes[attr.REPLAN_QUERY] = payload.query
            self.current().add_event(attr.REPLAN_EVENT, attributes)
        elif isinstance(payload, ConfirmationRequested):
            self._pending_approvals[payload.request_id] = payload.tool
            self.current().add_event(attr.APPROVAL_REQUESTED_EVENT, {attr.APPROVAL_REQUEST_ID: payload.request_id, attr.TOOL_NAME: payload.tool})
        elif isinstance(payload, StatusChanged) and payload.status is TaskState.RUNNING and payload.detail.startswith("approved "):
            request_id = payload.detail.removeprefix("approved ")
            tool = self._pending_approvals.pop(request_id, "")
            self.current().add_event(attr.APPROVAL_ANSWERED_EVENT, {attr.APPROVAL_REQUEST_ID: request_id, attr.TOOL_NAME: tool, attr.APPROVAL_APPROVED: True})

    def _guardrail(self, tripped: GuardrailTripped) -> None:
        attributes: dict[str, Any] = {attr.GUARD: tripped.guard}
        if tripped.blocker_kind is not None:
            attributes[attr.BLOCKER_KIND] = tripped.blocker_kind.value
        if tripped.blocker_kind in _POLICY_BLOCKERS and tripped.guard.startswith(("network", "policy")):
            self.blocked_requests += 1
            target = tripped.evidence.get("url") or tripped.evidence.get("target")
            if url_domain(str(target or "")):
                attributes[attr.URL_DOMAIN] = url_domain(str(target))
            self.current().add_event(attr.REQUEST_BLOCKED_EVENT, attributes)
            return
        if self.capture_content:
            attributes[attr.DETAIL] = tripped.detail
        self.current().add_event(attr.GUARDRAIL_TRIPPED_EVENT, attributes)

    # --- the end ------------------------------------------------------------------------------

    def end_run(
        self,
        status: str,
        stop_reason: StopReason,
        verified: bool,
        blocker_kind: BlockerKind | None,
        *,
        steps: int | None = None,
        blocked_requests: int = 0,
    ) -> None:
        """End the root span with the verdict and the run's counts; `blocked_requests` is the
        policy's own count (its events stop one by one after the first few)."""
        while self._open:
            self._open.pop().end()
        root = self.root
        root.set_attribute(attr.STATUS, status)
        root.set_attribute(attr.STOP_REASON, stop_reason.value)
        root.set_attribute(attr.VERIFIED, verified)
        if blocker_kind is not None:
            root.set_attribute(attr.BLOCKER_KIND, blocker_kind.value)
        if steps is not None:
            root.set_attribute(attr.STEPS, steps)
        root.set_attribute(attr.REPLANS, self.replans)
        root.set_attribute(attr.RETRIES, self.retries)
        root.set_attribute(attr.BLOCKED_REQUESTS, max(self.blocked_requests, blocked_requests))
        root.set_attribute(attr.INPUT_TOKENS, self.input_tokens)
        root.set_attribute(attr.OUTPUT_TOKENS, self.output_tokens)
        if stop_reason is StopReason.COMPLETED:
            root.set_status(Status(StatusCode.OK))
        else:
            root.set_status(Status(StatusCode.ERROR, stop_reason.value))
        root.end()
