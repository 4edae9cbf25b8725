"""What the gateway asks of a provider's client: one model turn, streamed or whole.

Each provider (providers/gemini.py, openai_chat.py, anthropic_messages.py) turns our messages and
tools into its wire format through its official SDK, and its answers back into our events. The
gateway around them does what is the same for all: redaction, spans, retry reporting, errors.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from runtime.llm.errors import LlmError, LlmErrorCode, code_for_status
from runtime.llm.messages import ChatMessage, LlmEvent, LlmReply, ToolSpec
from runtime.llm.settings import ModelSettings

# What every SDK retries, besides timeouts and refused connections.
RETRIED_STATUSES = (408, 429, 500, 502, 503, 504)


@dataclass(frozen=True)
class ChatRequest:
    messages: Sequence[ChatMessage]
    tools: Sequence[ToolSpec] = ()
    temperature: float | None = None
    json_output: bool = False  # ask for one JSON object (the intent detector)
    max_tokens: int | None = None

    @property
    def system(self) -> str:
        return "\n\n".join(m.content for m in self.messages if m.role == "system" and m.content)

    @property
    def has_images(self) -> bool:
        return any(m.images for m in self.messages)


class ModelClient(Protocol):
    def stream(self, request: ChatRequest) -> AsyncIterator[LlmEvent]:
        """Deltas and tool calls as they arrive, then exactly one LlmDone. Raises the SDK's errors."""
        ...

    async def complete(self, request: ChatRequest) -> LlmReply: ...

    def map_error(self, error: Exception, attempts: int, request: ChatRequest) -> LlmError:
        """The SDK's failure as our LlmError; re-raises what it does not know."""
        ...

    async def aclose(self) -> None: ...


@dataclass(frozen=True)
class DrivenModel:
    """A model outside the providers that answers an agent step turn by turn: `verity mcp`'s
    client driving the browser toolset. `settings` name it in spans (no key: it has none)."""

    client: ModelClient
    settings: ModelSettings


class CallIds:
    """Ids for calls the model did not name: deterministic per conversation turn."""

    def __init__(self, history: Sequence[ChatMessage]) -> None:
        self._turn = sum(1 for m in history if m.role == "assistant")
        self._count = 0

    def next(self) -> str:
        self._count += 1
        return f"call-{self._turn}-{self._count}"


def status_error(provider: str, status: int, detail: str, model: str, tried: str, request: ChatRequest, base_url: str) -> LlmError:
    """An HTTP error answer as an LlmError; a server that cannot call tools or take images says so
    in words only, and is named as such so the user knows what to change."""
    lowered = detail.lower()
    if status in (400, 404, 422, 501) and request.tools and "tool" in lowered:
        return LlmError(
            LlmErrorCode.TOOLS_UNSUPPORTED,
            f"the {provider} server at {base_url} cannot call tools with model {model}: {detail} "
            "(an OpenAI-compatible server needs tool calling on: vLLM --enable-auto-tool-choice --tool-call-parser ..., "
            "llama.cpp's server --jinja, Ollama a model that supports tools)",
            status=status,
        )
    if status in (400, 422) and request.has_images and "image" in lowered:
        return LlmError(
            LlmErrorCode.IMAGES_UNSUPPORTED,
            f"model {model} at {base_url} takes no images: {detail} (set agent.vision: off, or VERITY_MODEL_VISION=off)",
            status=status,
        )
    return LlmError(code_for_status(status), f"{provider} answered HTTP {status} for model {model}{tried}: {detail}", status=status)


def tried_text(attempts: int) -> str:
    return f" (after {attempts} attempts)" if attempts > 1 else ""


def parse_arguments(text: str) -> tuple[dict[str, Any], str | None]:
    """A tool call's arguments sent as JSON text: the object, or {} and why it is not one."""
    if not text.strip():
        return {}, None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        return {}, f"the arguments are not JSON ({error.msg} at character {error.pos}): {text[:200]}"
    if not isinstance(value, dict):
        return {}, f"the arguments are JSON {type(value).__name__}, not an object: {text[:200]}"
    return value, None
