"""Seed 003's LLM gateway: one interface over Gemini, OpenAI-compatible servers and Anthropic.

`stream_chat` yields `LlmDelta` for text, `LlmToolCall` for each tool call and one final
`LlmDone`; `complete` gives one whole `LlmReply`. Which provider answers is the settings' choice
(settings.py); each speaks through its official SDK (providers/). What is the same for all is
done here: every outgoing message is redacted before it is sent or recorded, every call is a
`chat {model}` span (chat_spans.py), each HTTP retry the SDK makes is seen through httpx event
hooks and reported, and whatever still fails surfaces as `LlmError` with a code.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from runtime.llm.chat_spans import ChatSpan, ChatTelemetry, RetryWatch
from runtime.llm.errors import LlmError
from runtime.llm.messages import ChatMessage, LlmDelta, LlmDone, LlmEvent, LlmReply, LlmToolCall, ToolSpec
from runtime.llm.providers import open_client
from runtime.llm.providers.model_client import ChatRequest, ModelClient
from runtime.llm.settings import ModelSettings


class LlmGateway:
    def __init__(
        self,
        settings: ModelSettings | None = None,
        telemetry: ChatTelemetry | None = None,
        *,
        redact: Callable[[Any], Any] | None = None,
        client: ModelClient | None = None,
    ) -> None:
        """`redact` rewrites every outgoing message (a run's secrets become their markers) before
        it is sent or recorded: what the model is told never holds a secret value. `client`: a
        model that is not one of the providers' (a DrivenModel's), behind the same redaction and spans."""
        self.settings = settings or ModelSettings.from_env()
        self.telemetry = telemetry
        self._redact = redact
        self._attempts = RetryWatch()
        self._client = client if client is not None else open_client(self.settings, self._attempts.event_hooks())

    @classmethod
    def from_env(cls) -> LlmGateway:
        return cls(ModelSettings.from_env())

    def __repr__(self) -> str:
        return f"LlmGateway(provider={self.settings.provider!r}, model={self.settings.model!r}, base_url={self.settings.base_url!r})"

    async def aclose(self) -> None:
        await self._client.aclose()

    async def stream_chat(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec] = (),
        *,
        temperature: float | None = None,
    ) -> AsyncIterator[LlmEvent]:
        """Stream one model turn: deltas and tool calls as they arrive, then exactly one LlmDone."""
        request = ChatRequest(self._outgoing(messages), tuple(tools), temperature)
        text: list[str] = []
        calls: list[LlmToolCall] = []
        done: LlmDone | None = None
        chat = self._begin(request.messages)
        events = self._client.stream(request)
        try:
            try:
                async for event in events:
                    if isinstance(event, LlmDone):
                        done = event
                        continue
                    if isinstance(event, LlmDelta):
                        text.append(event.content)
                    else:
                        calls.append(event)
                    yield event
            except LlmError:
                raise
            except Exception as error:  # noqa: BLE001 - narrowed by map_error, which re-raises what it does not know
                raise self._client.map_error(error, self._attempts.attempts, request) from None
            finally:
                # A consumer that stops early (a guard blocked the call) must not leave the HTTP stream open.
                await events.aclose()  # type: ignore[attr-defined]
        except BaseException as error:
            self._attempts.end()
            chat.failed(error)
            raise
        self._attempts.end()
        assert done is not None  # every client ends its stream with one LlmDone
        chat.succeeded(done, "".join(text), calls)
        yield done

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec] = (),
        *,
        temperature: float | None = None,
        json_output: bool = False,
    ) -> LlmReply:
        """One whole model turn; `json_output` asks for one JSON object where the provider can."""
        request = ChatRequest(self._outgoing(messages), tuple(tools), temperature, json_output=json_output)
        chat = self._begin(request.messages)
        try:
            try:
                reply = await self._client.complete(request)
            except LlmError:
                raise
            except Exception as error:  # noqa: BLE001 - see stream_chat
                raise self._client.map_error(error, self._attempts.attempts, request) from None
        except BaseException as error:
            self._attempts.end()
            chat.failed(error)
            raise
        self._attempts.end()
        chat.succeeded(reply.done, reply.text, reply.tool_calls)
        return reply

    def _outgoing(self, messages: Sequence[ChatMessage]) -> Sequence[ChatMessage]:
        return messages if self._redact is None else [self._redact(m) for m in messages]

    def _begin(self, messages: Sequence[ChatMessage]) -> ChatSpan:
        """The call's span (when traced) and its attempt count, which reports each retry."""
        settings = self.settings
        chat = ChatSpan(self.telemetry, settings.model, settings.base_url, settings.max_attempts, provider=settings.span_provider)
        chat.record_request(messages)
        self._attempts.begin(chat.retried)
        return chat
