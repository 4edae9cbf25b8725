"""Anthropic's Messages API through the `anthropic` SDK, chosen by ANTHROPIC_BASE_URL and keyed
by ANTHROPIC_API_KEY.

The SDK retries 408, 409, 429 and 5xx answers, timeouts and refused connections itself, honouring
Retry-After. Its own OpenTelemetry spans are off: the gateway writes the one `chat` span, and the
SDK's could carry content we redact. Messages alternate strictly between user and assistant, so
tool results and the text after them travel in one user message.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import anthropic
import httpx2

from runtime.llm.errors import LlmError, LlmErrorCode
from runtime.llm.messages import ChatMessage, LlmDelta, LlmDone, LlmEvent, LlmReply, LlmToolCall, LlmUsage
from runtime.llm.providers.model_client import ChatRequest, parse_arguments, status_error, tried_text
from runtime.llm.settings import ModelSettings


class AnthropicMessagesClient:
    def __init__(self, settings: ModelSettings, event_hooks: dict[str, list[Callable[[Any], Any]]]) -> None:
        self.settings = settings
        self._http = httpx2.AsyncClient(event_hooks=event_hooks, timeout=settings.timeout_ms / 1000)
        self._client = anthropic.AsyncAnthropic(
            api_key=settings.api_key.reveal(),
            base_url=settings.base_url,
            timeout=settings.timeout_ms / 1000,
            max_retries=settings.max_attempts - 1,
            http_client=self._http,
            open_telemetry=False,
        )

    async def aclose(self) -> None:
        await self._client.close()
        await self._http.aclose()

    async def stream(self, request: ChatRequest) -> AsyncIterator[LlmEvent]:
        stream = await self._client.messages.create(**self._params(request), stream=True)
        blocks: dict[int, dict[str, str]] = {}
        stop_reason, input_tokens, output_tokens, seen_any = "", 0, 0, False
        try:
            async for event in stream:
                seen_any = True
                if event.type == "message_start":
                    input_tokens = event.message.usage.input_tokens or 0
                elif event.type == "content_block_start":
                    block = event.content_block
                    if block.type == "tool_use":
                        blocks[event.index] = {"id": block.id, "name": block.name, "arguments": ""}
                elif event.type == "content_block_delta":
                    delta = event.delta
                    if delta.type == "text_delta" and delta.text:
                        yield LlmDelta(delta.text)
                    elif delta.type == "input_json_delta" and event.index in blocks:
                        blocks[event.index]["arguments"] += delta.partial_json
                elif event.type == "message_delta":
                    stop_reason = event.delta.stop_reason or stop_reason
                    output_tokens = event.usage.output_tokens or output_tokens
        finally:
            await stream.close()
        if not seen_any:
            raise LlmError(LlmErrorCode.MALFORMED_RESPONSE, f"model {self.settings.model} streamed no events")
        self._raise_if_refused(stop_reason)
        for index in sorted(blocks):
            block = blocks[index]
            parsed, problem = parse_arguments(block["arguments"])
            yield LlmToolCall(tool_call_id=block["id"], name=block["name"], arguments=parsed, model_assigned_id=True, arguments_error=problem)
        usage = LlmUsage(prompt_tokens=input_tokens, output_tokens=output_tokens, total_tokens=input_tokens + output_tokens)
        yield LlmDone(finish_reason=stop_reason, usage=usage, model=self.settings.model)

    async def complete(self, request: ChatRequest) -> LlmReply:
        message = await self._client.messages.create(**self._params(request))
        self._raise_if_refused(message.stop_reason or "")
        text = "".join(block.text for block in message.content if block.type == "text")
        calls = tuple(
            LlmToolCall(tool_call_id=block.id, name=block.name, arguments=dict(block.input or {}), model_assigned_id=True)
            for block in message.content
            if block.type == "tool_use"
        )
        usage = LlmUsage(
            prompt_tokens=message.usage.input_tokens or 0,
            output_tokens=message.usage.output_tokens or 0,
            total_tokens=(message.usage.input_tokens or 0) + (message.usage.output_tokens or 0),
        )
        return LlmReply(text=text, tool_calls=calls, done=LlmDone(finish_reason=message.stop_reason or "", usage=usage, model=self.settings.model))

    def _params(self, request: ChatRequest) -> dict[str, Any]:
        messages = to_anthropic_messages(request)
        if not messages:
            raise LlmError(LlmErrorCode.BAD_REQUEST, "a chat needs at least one user, assistant or tool message besides system ones")
        params: dict[str, Any] = {"model": self.settings.model, "max_tokens": request.max_tokens or self.settings.max_tokens, "messages": messages}
        if request.system:
            params["system"] = request.system
        if request.tools:
            params["tools"] = [{"name": tool.name, "description": tool.description, "input_schema": tool.schema} for tool in request.tools]
        if request.temperature is not None:
            params["temperature"] = request.temperature
        return params

    def _raise_if_refused(self, stop_reason: str) -> None:
        if stop_reason == "refusal":
            raise LlmError(LlmErrorCode.REFUSED, f"model {self.settings.model} refused to answer (stop_reason refusal)")

    def map_error(self, error: Exception, attempts: int, request: ChatRequest) -> LlmError:
        redact, tried, where = self.settings.redact, tried_text(attempts), self.settings.base_url
        if isinstance(error, anthropic.APIStatusError):
            detail = redact(_error_message(error))
            return status_error("Anthropic", error.status_code, detail, self.settings.model, tried, request, where)
        if isinstance(error, anthropic.APITimeoutError):
            return LlmError(LlmErrorCode.TIMEOUT, f"no answer from {where} within {self.settings.timeout_ms} ms{tried}")
        if isinstance(error, anthropic.APIConnectionError):
            return LlmError(LlmErrorCode.CONNECTION_FAILED, f"could not reach {where}{tried}: {redact(str(error))[:200]}")
        if isinstance(error, anthropic.APIResponseValidationError | json.JSONDecodeError):
            return LlmError(LlmErrorCode.MALFORMED_RESPONSE, f"model {self.settings.model} sent a response that is not Messages JSON: {redact(str(error))[:200]}")
        raise error


def to_anthropic_messages(request: ChatRequest) -> list[dict[str, Any]]:
    """Our history as Messages: strictly alternating roles, each a list of content blocks."""
    messages: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if messages and messages[-1]["role"] == role:
            messages[-1]["content"].extend(blocks)
        else:
            messages.append({"role": role, "content": blocks})

    for message in request.messages:
        if message.role == "system":
            continue
        if message.role == "user":
            add("user", _user_blocks(message))
        elif message.role == "assistant":
            blocks: list[dict[str, Any]] = [{"type": "text", "text": message.content}] if message.content else []
            blocks += [{"type": "tool_use", "id": call.tool_call_id, "name": call.name, "input": call.arguments} for call in message.tool_calls]
            add("assistant", blocks or [{"type": "text", "text": "(no answer)"}])
        else:
            assert message.answers is not None  # ChatMessage enforces it
            result = message.result if message.result is not None else {"output": message.content}
            block = {"type": "tool_result", "tool_use_id": message.answers.tool_call_id, "content": json.dumps(result, ensure_ascii=False, default=str)}
            add("user", [block])
    return messages


def _user_blocks(message: ChatMessage) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": message.content or "(empty)"}]
    for image in message.images:
        blocks.append({"type": "image", "source": {"type": "base64", "media_type": image.mime_type, "data": base64.b64encode(image.data).decode("ascii")}})
    return blocks


def _error_message(error: Any) -> str:
    body = error.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
    return str(error.message or "no message")
