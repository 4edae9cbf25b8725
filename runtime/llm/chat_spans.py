"""`chat {model}` spans (GenAI conventions) for the gateway's model calls, and their retries.

The gateway opens one span per call under whatever span its `ChatTelemetry.parent` names, with
gen_ai.provider.name (`gcp.gemini`, `openai` or `anthropic`), the model, the server, and on the way out the usage and finish
reasons, or `error.type` and status ERROR. Prompts and model text go in only when content capture
is on (never an image's bytes); the key never does. Each retry the provider's SDK makes is seen at the HTTP
layer (`RetryWatch`), becomes a `verity.llm_retry` span event and is reported to `on_retry`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from runtime.llm.errors import LlmError
from runtime.llm.messages import ChatMessage, LlmDone, LlmToolCall, LlmUsage
from runtime.trace_export import attributes as attr


@dataclass(frozen=True)
class LlmRetry:
    """The provider's SDK is about to send attempt `attempt` (2 = the first retry) of a model call."""

    model: str
    attempt: int
    max_attempts: int
    status: int | None  # the failed attempt's HTTP status; None when it got no response
    waited_ms: float  # since the failed attempt's answer (the backoff)

    def describe(self) -> str:
        cause = f"HTTP {self.status}" if self.status is not None else "no response"
        return f"model {self.model}: {cause}; attempt {self.attempt} of {self.max_attempts} after {self.waited_ms:.0f} ms"


@dataclass(frozen=True)
class ChatTelemetry:
    """How a gateway traces its calls: `parent()` names the span a call belongs under."""

    tracer: trace.Tracer
    parent: Callable[[], Span | None] = lambda: None
    capture_content: bool = False
    on_retry: Callable[[LlmRetry], None] | None = None
    on_usage: Callable[[LlmUsage], None] | None = None


class RetryWatch:
    """Counts the HTTP attempts of the call in progress through httpx event hooks. A gateway makes
    one call at a time (an agent step's turns, the intent detector's one question)."""

    def __init__(self) -> None:
        self._current: _Attempts | None = None

    def begin(self, on_retry: Callable[[int, int | None, float], None]) -> None:
        self._current = _Attempts(on_retry)

    def end(self) -> int:
        """The attempts the call made."""
        attempts, self._current = self._current, None
        return attempts.count if attempts is not None else 0

    @property
    def attempts(self) -> int:
        return self._current.count if self._current is not None else 0

    def event_hooks(self) -> dict[str, list[Callable[[Any], Any]]]:
        """httpx event hooks for the SDK's HTTP client (every provider's SDK talks through httpx2)."""

        async def on_request(request: Any) -> None:
            if self._current is not None:
                self._current.sent()

        async def on_response(response: Any) -> None:
            if self._current is not None:
                self._current.answered(response.status_code)

        return {"request": [on_request], "response": [on_response]}


class _Attempts:
    def __init__(self, on_retry: Callable[[int, int | None, float], None]) -> None:
        self.count = 0
        self.on_retry = on_retry
        self.last_status: int | None = None
        self.last_at = 0.0

    def sent(self) -> None:
        self.count += 1
        if self.count > 1:
            self.on_retry(self.count, self.last_status, (time.monotonic() - self.last_at) * 1000 if self.last_at else 0.0)
        self.last_status, self.last_at = None, time.monotonic()

    def answered(self, status: int) -> None:
        self.last_status, self.last_at = status, time.monotonic()


class ChatSpan:
    """One model call's span. Without telemetry every method does nothing."""

    def __init__(self, telemetry: ChatTelemetry | None, model: str, base_url: str, max_attempts: int, provider: str = attr.GEMINI_PROVIDER) -> None:
        self.telemetry = telemetry
        self.model = model
        self.max_attempts = max_attempts
        self.span: Span | None = None
        self.retries = 0
        if telemetry is None:
            return
        parent = telemetry.parent()
        context = trace.set_span_in_context(parent) if parent is not None else otel_context.Context()
        address = urlsplit(base_url)
        attributes: dict[str, Any] = {
            attr.OPERATION_NAME: attr.CHAT,
            attr.PROVIDER_NAME: provider,
            attr.REQUEST_MODEL: model,
        }
        if address.hostname:
            attributes[attr.SERVER_ADDRESS] = address.hostname
            attributes[attr.SERVER_PORT] = address.port or (443 if address.scheme == "https" else 80)
        self.span = telemetry.tracer.start_span(f"chat {model}", context=context, kind=SpanKind.CLIENT, attributes=attributes)

    def record_request(self, messages: Sequence[ChatMessage]) -> None:
        if self.span is None or self.telemetry is None or not self.telemetry.capture_content:
            return
        system = "\n\n".join(m.content for m in messages if m.role == "system" and m.content)
        if system:
            self.span.set_attribute(attr.SYSTEM_INSTRUCTIONS, json.dumps([{"type": "text", "content": system}], ensure_ascii=False))
        self.span.set_attribute(attr.INPUT_MESSAGES, json.dumps([_message_record(m) for m in messages if m.role != "system"], ensure_ascii=False, default=str))

    def retried(self, attempt: int, status: int | None, waited_ms: float) -> None:
        self.retries += 1
        retry = LlmRetry(self.model, attempt, self.max_attempts, status, round(waited_ms, 1))
        if self.span is not None:
            event: dict[str, Any] = {attr.RETRY_ATTEMPT: attempt}
            if status is not None:
                event[attr.HTTP_STATUS_CODE] = status
            self.span.add_event(attr.LLM_RETRY_EVENT, event)
        if self.telemetry is not None and self.telemetry.on_retry is not None:
            self.telemetry.on_retry(retry)

    def succeeded(self, done: LlmDone, text: str, calls: Sequence[LlmToolCall]) -> None:
        telemetry, span = self.telemetry, self.span
        if telemetry is None or span is None:
            return
        span.set_attribute(attr.RESPONSE_MODEL, done.model or self.model)
        span.set_attribute(attr.INPUT_TOKENS, done.usage.prompt_tokens)
        span.set_attribute(attr.OUTPUT_TOKENS, done.usage.output_tokens)
        if done.finish_reason:
            span.set_attribute(attr.FINISH_REASONS, [done.finish_reason])
        if telemetry.capture_content:
            parts: list[dict[str, Any]] = [{"type": "text", "content": text}] if text else []
            parts += [{"type": "tool_call", "id": c.tool_call_id, "name": c.name, "arguments": c.arguments} for c in calls]
            output = [{"role": "assistant", "parts": parts, "finish_reason": done.finish_reason.lower() or "stop"}]
            span.set_attribute(attr.OUTPUT_MESSAGES, json.dumps(output, ensure_ascii=False, default=str))
        if telemetry.on_usage is not None:
            telemetry.on_usage(done.usage)
        self._end()

    def failed(self, error: BaseException) -> None:
        if self.span is None:
            return
        if isinstance(error, GeneratorExit):  # the caller stopped reading: not the model's failure
            self._end()
            return
        code = error.code.value if isinstance(error, LlmError) else type(error).__name__
        self.span.set_attribute(attr.ERROR_TYPE, code)
        self.span.set_status(Status(StatusCode.ERROR, code))
        self._end()

    def _end(self) -> None:
        if self.span is not None:
            self.span.set_attribute(attr.RETRIES, self.retries)
            self.span.end()
            self.span = None


def _message_record(message: ChatMessage) -> dict[str, Any]:
    """A message in the GenAI conventions' shape (role and parts)."""
    if message.role == "tool" and message.answers is not None:
        part: dict[str, Any] = {"type": "tool_call_response", "id": message.answers.tool_call_id, "response": message.result}
        return {"role": "tool", "parts": [part]}
    parts: list[dict[str, Any]] = [{"type": "text", "content": message.content}] if message.content else []
    parts += [{"type": "blob", "modality": "image", "mime_type": image.mime_type} for image in message.images]
    parts += [{"type": "tool_call", "id": c.tool_call_id, "name": c.name, "arguments": c.arguments} for c in message.tool_calls]
    return {"role": message.role, "parts": parts}
