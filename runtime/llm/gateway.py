"""Seed 003's LLM gateway over the real google-genai client (Gemini API).

`stream_chat` turns our messages and tools into Gemini contents and function declarations, streams
`:streamGenerateContent?alt=sse`, and yields `LlmDelta` for text, `LlmToolCall` for each
`functionCall`, and one final `LlmDone`. `complete` does the same over `:generateContent`.
HTTP 408, 429 and 5xx answers, timeouts and refused connections are retried with exponential
backoff by google-genai itself (HttpRetryOptions, bounded by `max_attempts`); each retry is seen
at the HTTP layer and reported (chat_spans.py). What still fails surfaces as `LlmError` with a
code, naming the attempts made. With a `ChatTelemetry` every call is a `chat {model}` span.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any
import importlib
import pydantic
from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from runtime.llm.chat_spans import ChatSpan, ChatTelemetry, RetryWatch
from runtime.llm.errors import LlmError, LlmErrorCode, code_for_status
from runtime.llm.messages import ChatMessage, LlmDelta, LlmDone, LlmEvent, LlmReply, LlmToolCall, LlmUsage, ToolSpec
from runtime.llm.settings import MAX_RETRY_DELAY_MS, GeminiSettings

# What google-genai retries, besides timeouts and refused connections.
RETRIED_STATUSES = [408, 429, 500, 502, 503, 504]


def _transport_errors(name: str) -> tuple[type[Exception], ...]:
    # google-genai talks HTTP through httpx2 (or httpx when that is what is installed); accept both.
    found = []
    for module_name in ("httpx2", "httpx"):
        try:
            found.append(getattr(importlib.import_module(module_name), name))
        except (ImportError, AttributeError):
            continue
    return tuple(found)


_TIMEOUT_ERRORS = _transport_errors("TimeoutException")
_TRANSPORT_ERRORS = _transport_errors("TransportError")


class LlmGateway:
    def __init__(
        self, settings: GeminiSettings | None = None, telemetry: ChatTelemetry | None = None, *, redact: Callable[[Any], Any] | None = None
    ) -> None:
        """`redact` rewrites every outgoing message (a run's secrets become their markers) before
        it is sent or recorded: what the model is told never holds a secret value."""
        self.settings = settings or GeminiSettings.from_env()
        self.telemetry = telemetry
        self._redact = redact
        self._attempts = RetryWatch()
        settings = self.settings
        self._client = genai.Client(
            api_key=settings.api_key.reveal(),
            vertexai=False,
            http_options=types.HttpOptions(
                base_url=settings.base_url,
                api_version=settings.api_version,
                timeout=settings.timeout_ms,
                retry_options=types.HttpRetryOptions(
                    attempts=settings.max_attempts,
                    initial_delay=settings.retry_delay_ms / 1000,
                    max_delay=max(settings.retry_delay_ms, MAX_RETRY_DELAY_MS) / 1000,
                    http_status_codes=RETRIED_STATUSES,
                ),
                async_client_args={"event_hooks": self._attempts.event_hooks()},
            ),
        )

    @classmethod
    def from_env(cls) -> LlmGateway:
        return cls(GeminiSettings.from_env())

    def __repr__(self) -> str:
        return f"LlmGateway(model={self.settings.model!r}, base_url={self.settings.base_url!r})"

    async def aclose(self) -> None:
        await self._client.aio.aclose()

    async def stream_chat(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec] = (),
        *,
        temperature: float | None = None,
    ) -> AsyncIterator[LlmEvent]:
        """Stream one model turn: deltas and tool calls as they arrive, then exactly one LlmDone."""
        messages = self._outgoing(messages)
        contents, config = self._request(messages, tools, temperature)
        call_ids = _CallIds(messages)
        finish_reason, usage, seen_any = "", LlmUsage(), False
        text: list[str] = []
        calls: list[LlmToolCall] = []
        chat = self._begin(messages)
        stream: AsyncIterator[types.GenerateContentResponse] | None = None
        try:
            try:
                stream = await self._client.aio.models.generate_content_stream(model=self.settings.model, contents=contents, config=config)
                async for chunk in stream:
                    seen_any = True
                    _raise_if_prompt_blocked(chunk)
                    for event in _events_of(chunk, call_ids):
                        if isinstance(event, LlmDelta):
                            text.append(event.content)
                        elif isinstance(event, LlmToolCall):
                            calls.append(event)
                        yield event
                    finish_reason = _finish_reason(chunk) or finish_reason
                    usage = _usage(chunk) or usage
            except LlmError:
                raise
            except Exception as error:  # noqa: BLE001 - narrowed by _map_error, which re-raises what it does not know
                raise self._map_error(error) from None
            finally:
                # A consumer that stops early (a guard blocked the call) must not leave the HTTP stream open.
                close = getattr(stream, "aclose", None)
                if close is not None:
                    await close()
            if not seen_any:
                raise LlmError(LlmErrorCode.MALFORMED_RESPONSE, f"model {self.settings.model} streamed no response chunks")
        except BaseException as error:
            self._attempts.end()
            chat.failed(error)
            raise
        done = LlmDone(finish_reason=finish_reason, usage=usage, model=self.settings.model)
        self._attempts.end()
        chat.succeeded(done, "".join(text), calls)
        yield done

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec] = (),
        *,
        temperature: float | None = None,
        response_mime_type: str | None = None,
    ) -> LlmReply:
        """One whole model turn over `:generateContent`."""
        messages = self._outgoing(messages)
        contents, config = self._request(messages, tools, temperature)
        if response_mime_type:
            config.response_mime_type = response_mime_type
        chat = self._begin(messages)
        try:
            try:
                response = await self._client.aio.models.generate_content(model=self.settings.model, contents=contents, config=config)
                _raise_if_prompt_blocked(response)
                events = _events_of(response, _CallIds(messages))
            except LlmError:
                raise
            except Exception as error:  # noqa: BLE001 - see stream_chat
                raise self._map_error(error) from None
            if not response.candidates:
                raise LlmError(LlmErrorCode.MALFORMED_RESPONSE, f"model {self.settings.model} returned no candidates")
        except BaseException as error:
            self._attempts.end()
            chat.failed(error)
            raise
        self._attempts.end()
        text = "".join(e.content for e in events if isinstance(e, LlmDelta))
        calls = tuple(e for e in events if isinstance(e, LlmToolCall))
        done = LlmDone(finish_reason=_finish_reason(response), usage=_usage(response) or LlmUsage(), model=self.settings.model)
        chat.succeeded(done, text, calls)
        return LlmReply(text=text, tool_calls=calls, done=done)

    def _outgoing(self, messages: Sequence[ChatMessage]) -> Sequence[ChatMessage]:
        return messages if self._redact is None else [self._redact(m) for m in messages]

    def _begin(self, messages: Sequence[ChatMessage]) -> ChatSpan:
        """The call's span (when traced) and its attempt count, which reports each retry."""
        chat = ChatSpan(self.telemetry, self.settings.model, self.settings.base_url, self.settings.max_attempts)
        chat.record_request(messages)
        self._attempts.begin(chat.retried)
        return chat

    # --- request --------------------------------------------------------------------------------

    def _request(
        self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec], temperature: float | None
    ) -> tuple[list[types.Content], types.GenerateContentConfig]:
        system = "\n\n".join(m.content for m in messages if m.role == "system" and m.content)
        contents = to_gemini_contents(messages)
        if not contents:
            raise LlmError(LlmErrorCode.BAD_REQUEST, "a chat needs at least one user, assistant or tool message besides system ones")
        config = types.GenerateContentConfig(
            system_instruction=system or None,
            temperature=temperature,
            # We run the tools ourselves (guards, approvals, events); the SDK must never call them.
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
            tools=[types.Tool(function_declarations=[_declaration(tool) for tool in tools])] if tools else None,
        )
        return contents, config

    # --- errors ---------------------------------------------------------------------------------

    def _map_error(self, error: Exception) -> LlmError:
        redact = self.settings.redact
        model = self.settings.model
        attempts = self._attempts.attempts
        tried = f" (after {attempts} attempts)" if attempts > 1 else ""
        if isinstance(error, genai_errors.APIError):
            code = code_for_status(int(error.code or 0))
            detail = redact(str(error.message or error.status or "no message"))
            return LlmError(code, f"Gemini answered HTTP {error.code} for model {model}{tried}: {detail}", status=int(error.code or 0))
        if isinstance(error, _TIMEOUT_ERRORS):
            return LlmError(LlmErrorCode.TIMEOUT, f"no answer from {self.settings.base_url} within {self.settings.timeout_ms} ms{tried}")
        if isinstance(error, _TRANSPORT_ERRORS):
            return LlmError(
                LlmErrorCode.CONNECTION_FAILED, f"could not reach {self.settings.base_url}{tried}: {type(error).__name__}: {redact(str(error))[:200]}"
            )
        if isinstance(error, genai_errors.UnknownApiResponseError | pydantic.ValidationError | json.JSONDecodeError):
            return LlmError(
                LlmErrorCode.MALFORMED_RESPONSE, f"model {model} sent a response that is not Gemini JSON: {redact(str(error))[:200]}"
            )
        raise error


class _CallIds:
    """Ids for calls the model did not name: deterministic per conversation turn."""

    def __init__(self, history: Sequence[ChatMessage]) -> None:
        self._turn = sum(1 for m in history if m.role == "assistant")
        self._count = 0

    def next(self) -> str:
        self._count += 1
        return f"call-{self._turn}-{self._count}"


def _declaration(tool: ToolSpec) -> types.FunctionDeclaration:
    return types.FunctionDeclaration(name=tool.name, description=tool.description, parameters_json_schema=tool.schema)


def to_gemini_contents(messages: Sequence[ChatMessage]) -> list[types.Content]:
    """Our history as Gemini contents; consecutive tool results share one user turn, as Gemini expects."""
    contents: list[types.Content] = []
    for message in messages:
        if message.role == "system":
            continue
        if message.role == "user":
            contents.append(types.Content(role="user", parts=[types.Part(text=message.content)]))
        elif message.role == "assistant":
            parts = [types.Part(text=message.content)] if message.content else []
            for call in message.tool_calls:
                parts.append(
                    types.Part(
                        function_call=types.FunctionCall(
                            name=call.name, args=call.arguments, id=call.tool_call_id if call.model_assigned_id else None
                        ),
                        thought_signature=call.thought_signature,
                    )
                )
            contents.append(types.Content(role="model", parts=parts))
        else:
            call = message.answers
            assert call is not None  # ChatMessage enforces it
            part = types.Part(
                function_response=types.FunctionResponse(
                    name=call.name,
                    response=message.result if message.result is not None else {"output": message.content},
                    id=call.tool_call_id if call.model_assigned_id else None,
                )
            )
            previous = contents[-1] if contents else None
            if previous is not None and previous.role == "user" and previous.parts and previous.parts[-1].function_response:
                previous.parts.append(part)
            else:
                contents.append(types.Content(role="user", parts=[part]))
    return contents


def _events_of(response: types.GenerateContentResponse, call_ids: _CallIds) -> list[LlmEvent]:
    events: list[LlmEvent] = []
    for candidate in (response.candidates or [])[:1]:
        for part in (candidate.content.parts if candidate.content else None) or []:
            if part.thought:
                continue  # thinking summaries are not the answer
            if part.function_call is not None:
                call = part.function_call
                if not call.name:
                    raise LlmError(LlmErrorCode.MALFORMED_RESPONSE, "the model sent a functionCall without a name")
                events.append(
                    LlmToolCall(
                        tool_call_id=call.id or call_ids.next(),
                        name=call.name,
                        arguments=dict(call.args or {}),
                        thought_signature=part.thought_signature,
                        model_assigned_id=bool(call.id),
                    )
                )
            elif part.text:
                events.append(LlmDelta(part.text))
    return events


def _raise_if_prompt_blocked(response: types.GenerateContentResponse) -> None:
    feedback = response.prompt_feedback
    if feedback is not None and feedback.block_reason is not None:
        reason = getattr(feedback.block_reason, "value", str(feedback.block_reason))
        raise LlmError(LlmErrorCode.PROMPT_BLOCKED, f"Gemini blocked the prompt: {reason} {feedback.block_reason_message or ''}".strip())


def _finish_reason(response: types.GenerateContentResponse) -> str:
    for candidate in (response.candidates or [])[:1]:
        if candidate.finish_reason is not None:
            return str(getattr(candidate.finish_reason, "value", candidate.finish_reason))
    return ""


def _usage(response: types.GenerateContentResponse) -> LlmUsage | None:
    meta = response.usage_metadata
    if meta is None:
        return None
    return LlmUsage(
        prompt_tokens=meta.prompt_token_count or 0,
        output_tokens=meta.candidates_token_count or 0,
        total_tokens=meta.total_token_count or 0,
    )
