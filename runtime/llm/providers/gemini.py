"""Gemini through google-genai: `:streamGenerateContent?alt=sse` and `:generateContent`.

HTTP 408, 429 and 5xx answers, timeouts and refused connections are retried with exponential
backoff by google-genai itself (HttpRetryOptions, bounded by `max_attempts`).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import pydantic
from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from runtime.llm.errors import LlmError, LlmErrorCode
from runtime.llm.messages import ChatMessage, LlmDelta, LlmDone, LlmEvent, LlmReply, LlmToolCall, LlmUsage, ToolSpec
from runtime.llm.providers.model_client import RETRIED_STATUSES, CallIds, ChatRequest, status_error, tried_text
from runtime.llm.settings import MAX_RETRY_DELAY_MS, ModelSettings


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


class GeminiClient:
    def __init__(self, settings: ModelSettings, event_hooks: dict[str, list[Callable[[Any], Any]]]) -> None:
        self.settings = settings
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
                    http_status_codes=list(RETRIED_STATUSES),
                ),
                async_client_args={"event_hooks": event_hooks},
            ),
        )

    async def aclose(self) -> None:
        await self._client.aio.aclose()

    async def stream(self, request: ChatRequest) -> AsyncIterator[LlmEvent]:
        contents, config = self._request(request)
        call_ids = CallIds(request.messages)
        finish_reason, usage, seen_any = "", LlmUsage(), False
        stream: AsyncIterator[types.GenerateContentResponse] | None = None
        try:
            stream = await self._client.aio.models.generate_content_stream(model=self.settings.model, contents=contents, config=config)
            async for chunk in stream:
                seen_any = True
                _raise_if_prompt_blocked(chunk)
                for event in _events_of(chunk, call_ids):
                    yield event
                finish_reason = _finish_reason(chunk) or finish_reason
                usage = _usage(chunk) or usage
        finally:
            # A consumer that stops early (a guard blocked the call) must not leave the HTTP stream open.
            close = getattr(stream, "aclose", None)
            if close is not None:
                await close()
        if not seen_any:
            raise LlmError(LlmErrorCode.MALFORMED_RESPONSE, f"model {self.settings.model} streamed no response chunks")
        yield LlmDone(finish_reason=finish_reason, usage=usage, model=self.settings.model)

    async def complete(self, request: ChatRequest) -> LlmReply:
        contents, config = self._request(request)
        if request.json_output:
            config.response_mime_type = "application/json"
        response = await self._client.aio.models.generate_content(model=self.settings.model, contents=contents, config=config)
        _raise_if_prompt_blocked(response)
        if not response.candidates:
            raise LlmError(LlmErrorCode.MALFORMED_RESPONSE, f"model {self.settings.model} returned no candidates")
        events = _events_of(response, CallIds(request.messages))
        text = "".join(e.content for e in events if isinstance(e, LlmDelta))
        calls = tuple(e for e in events if isinstance(e, LlmToolCall))
        done = LlmDone(finish_reason=_finish_reason(response), usage=_usage(response) or LlmUsage(), model=self.settings.model)
        return LlmReply(text=text, tool_calls=calls, done=done)

    def _request(self, request: ChatRequest) -> tuple[list[types.Content], types.GenerateContentConfig]:
        contents = to_gemini_contents(request.messages)
        if not contents:
            raise LlmError(LlmErrorCode.BAD_REQUEST, "a chat needs at least one user, assistant or tool message besides system ones")
        config = types.GenerateContentConfig(
            system_instruction=request.system or None,
            temperature=request.temperature,
            max_output_tokens=request.max_tokens,
            # We run the tools ourselves (guards, approvals, events); the SDK must never call them.
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
            tools=[types.Tool(function_declarations=[_declaration(tool) for tool in request.tools])] if request.tools else None,
        )
        return contents, config

    def map_error(self, error: Exception, attempts: int, request: ChatRequest) -> LlmError:
        redact = self.settings.redact
        model = self.settings.model
        tried = tried_text(attempts)
        if isinstance(error, genai_errors.APIError):
            detail = redact(str(error.message or error.status or "no message"))
            return status_error("Gemini", int(error.code or 0), detail, model, tried, request, self.settings.base_url)
        if isinstance(error, _TIMEOUT_ERRORS):
            return LlmError(LlmErrorCode.TIMEOUT, f"no answer from {self.settings.base_url} within {self.settings.timeout_ms} ms{tried}")
        if isinstance(error, _TRANSPORT_ERRORS):
            return LlmError(
                LlmErrorCode.CONNECTION_FAILED, f"could not reach {self.settings.base_url}{tried}: {type(error).__name__}: {redact(str(error))[:200]}"
            )
        if isinstance(error, genai_errors.UnknownApiResponseError | pydantic.ValidationError | json.JSONDecodeError):
            return LlmError(LlmErrorCode.MALFORMED_RESPONSE, f"model {model} sent a response that is not Gemini JSON: {redact(str(error))[:200]}")
        raise error


def _declaration(tool: ToolSpec) -> types.FunctionDeclaration:
    return types.FunctionDeclaration(name=tool.name, description=tool.description, parameters_json_schema=tool.schema)


def to_gemini_contents(messages: Sequence[ChatMessage]) -> list[types.Content]:
    """Our history as Gemini contents; consecutive tool results share one user turn, as Gemini expects."""
    contents: list[types.Content] = []
    for message in messages:
        if message.role == "system":
            continue
        if message.role == "user":
            parts = [types.Part(text=message.content)]
            parts += [types.Part(inline_data=types.Blob(mime_type=image.mime_type, data=image.data)) for image in message.images]
            contents.append(types.Content(role="user", parts=parts))
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


def _events_of(response: types.GenerateContentResponse, call_ids: CallIds) -> list[LlmEvent]:
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
