"""OpenAI's Chat Completions API through the `openai` SDK: OpenAI itself, and any server that
speaks it with tools (vLLM, llama.cpp's server, Ollama), chosen by OPENAI_BASE_URL.

The SDK retries 408, 409, 429 and 5xx answers, timeouts and refused connections itself, honouring
Retry-After; `max_retries` is our attempts less one. Tool call arguments arrive as JSON text in
pieces; a call whose text is not a JSON object is passed on with `arguments_error` set, so the
agent answers the model with an error instead of running it.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2
import openai

from runtime.llm.errors import LlmError, LlmErrorCode
from runtime.llm.messages import ChatMessage, LlmDelta, LlmDone, LlmEvent, LlmReply, LlmToolCall, LlmUsage
from runtime.llm.providers.model_client import ChatRequest, parse_arguments, status_error, tried_text
from runtime.llm.settings import ModelSettings


class OpenAIChatClient:
    def __init__(self, settings: ModelSettings, event_hooks: dict[str, list[Callable[[Any], Any]]]) -> None:
        self.settings = settings
        self._http = httpx2.AsyncClient(event_hooks=event_hooks, timeout=settings.timeout_ms / 1000)
        self._client = openai.AsyncOpenAI(
            api_key=settings.api_key.reveal(),
            base_url=settings.base_url,
            timeout=settings.timeout_ms / 1000,
            max_retries=settings.max_attempts - 1,
            http_client=self._http,
        )

    async def aclose(self) -> None:
        await self._client.close()
        await self._http.aclose()

    async def stream(self, request: ChatRequest) -> AsyncIterator[LlmEvent]:
        stream = await self._client.chat.completions.create(**self._params(request), stream=True, stream_options={"include_usage": True})
        calls: dict[int, dict[str, str]] = {}
        finish_reason, usage, refusal, seen_any = "", LlmUsage(), "", False
        try:
            async for chunk in stream:
                seen_any = True
                if chunk.usage is not None:
                    usage = _usage(chunk.usage)
                for choice in chunk.choices[:1]:
                    delta = choice.delta
                    if delta.content:
                        yield LlmDelta(delta.content)
                    if delta.refusal:
                        refusal += delta.refusal
                    for piece in delta.tool_calls or []:
                        call = calls.setdefault(piece.index, {"id": "", "name": "", "arguments": ""})
                        call["id"] = piece.id or call["id"]
                        if piece.function is not None:
                            call["name"] += piece.function.name or ""
                            call["arguments"] += piece.function.arguments or ""
                    finish_reason = choice.finish_reason or finish_reason
        finally:
            await stream.close()
        if not seen_any:
            raise LlmError(LlmErrorCode.MALFORMED_RESPONSE, f"model {self.settings.model} streamed no response chunks")
        self._raise_if_refused(refusal)
        for index in sorted(calls):
            yield self._tool_call(calls[index]["id"], calls[index]["name"], calls[index]["arguments"], index)
        yield LlmDone(finish_reason=finish_reason, usage=usage, model=self.settings.model)

    async def complete(self, request: ChatRequest) -> LlmReply:
        params = self._params(request)
        if request.json_output:
            params["response_format"] = {"type": "json_object"}
        response = await self._client.chat.completions.create(**params)
        if not response.choices:
            raise LlmError(LlmErrorCode.MALFORMED_RESPONSE, f"model {self.settings.model} returned no choices")
        choice = response.choices[0]
        self._raise_if_refused(choice.message.refusal or "")
        calls = tuple(
            self._tool_call(call.id, call.function.name, call.function.arguments, index)
            for index, call in enumerate(choice.message.tool_calls or [])
            if call.type == "function"
        )
        usage = _usage(response.usage) if response.usage is not None else LlmUsage()
        done = LlmDone(finish_reason=choice.finish_reason or "", usage=usage, model=self.settings.model)
        return LlmReply(text=choice.message.content or "", tool_calls=calls, done=done)

    def _params(self, request: ChatRequest) -> dict[str, Any]:
        params: dict[str, Any] = {"model": self.settings.model, "messages": to_openai_messages(request)}
        if request.tools:
            params["tools"] = [
                {"type": "function", "function": {"name": tool.name, "description": tool.description, "parameters": tool.schema}} for tool in request.tools
            ]
        if request.temperature is not None:
            params["temperature"] = request.temperature
        if request.max_tokens is not None:
            params["max_tokens"] = request.max_tokens
        return params

    def _tool_call(self, call_id: str, name: str, arguments: str, index: int) -> LlmToolCall:
        if not name:
            raise LlmError(LlmErrorCode.MALFORMED_RESPONSE, f"model {self.settings.model} sent a tool call without a name")
        parsed, problem = parse_arguments(arguments)
        return LlmToolCall(tool_call_id=call_id or f"call-{index}", name=name, arguments=parsed, model_assigned_id=bool(call_id), arguments_error=problem)

    def _raise_if_refused(self, refusal: str) -> None:
        if refusal:
            raise LlmError(LlmErrorCode.REFUSED, f"model {self.settings.model} refused: {self.settings.redact(refusal)[:300]}")

    def map_error(self, error: Exception, attempts: int, request: ChatRequest) -> LlmError:
        redact, tried, where = self.settings.redact, tried_text(attempts), self.settings.base_url
        if isinstance(error, openai.APIStatusError):
            detail = redact(_error_message(error))
            return status_error("OpenAI-compatible server", error.status_code, detail, self.settings.model, tried, request, where)
        if isinstance(error, openai.APITimeoutError):
            return LlmError(LlmErrorCode.TIMEOUT, f"no answer from {where} within {self.settings.timeout_ms} ms{tried}")
        if isinstance(error, openai.APIConnectionError):
            return LlmError(LlmErrorCode.CONNECTION_FAILED, f"could not reach {where}{tried}: {redact(str(error))[:200]}")
        if isinstance(error, openai.APIResponseValidationError | json.JSONDecodeError):
            return LlmError(LlmErrorCode.MALFORMED_RESPONSE, f"model {self.settings.model} sent a response that is not Chat Completions JSON: {redact(str(error))[:200]}")
        raise error


def to_openai_messages(request: ChatRequest) -> list[dict[str, Any]]:
    """Our history as Chat Completions messages: one system message first, images as data URLs."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": request.system}] if request.system else []
    for message in request.messages:
        if message.role == "system":
            continue
        if message.role == "user":
            messages.append({"role": "user", "content": _user_content(message)})
        elif message.role == "assistant":
            entry: dict[str, Any] = {"role": "assistant", "content": message.content or None}
            if message.tool_calls:
                entry["tool_calls"] = [
                    {"id": call.tool_call_id, "type": "function", "function": {"name": call.name, "arguments": json.dumps(call.arguments, ensure_ascii=False)}}
                    for call in message.tool_calls
                ]
            messages.append(entry)
        else:
            assert message.answers is not None  # ChatMessage enforces it
            result = message.result if message.result is not None else {"output": message.content}
            messages.append({"role": "tool", "tool_call_id": message.answers.tool_call_id, "content": json.dumps(result, ensure_ascii=False, default=str)})
    return messages


def _user_content(message: ChatMessage) -> str | list[dict[str, Any]]:
    if not message.images:
        return message.content
    parts: list[dict[str, Any]] = [{"type": "text", "text": message.content}]
    for image in message.images:
        url = f"data:{image.mime_type};base64,{base64.b64encode(image.data).decode('ascii')}"
        parts.append({"type": "image_url", "image_url": {"url": url}})
    return parts


def _usage(usage: Any) -> LlmUsage:
    return LlmUsage(prompt_tokens=usage.prompt_tokens or 0, output_tokens=usage.completion_tokens or 0, total_tokens=usage.total_tokens or 0)


def _error_message(error: Any) -> str:
    body = error.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    return str(error.message or "no message")
