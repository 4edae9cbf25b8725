"""The gateway's vocabulary (seed 003 section 5): chat messages and tools in, LLM events out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True)
class ToolSpec:
    """A tool the model may call: `schema` is the JSON Schema of its arguments object."""

    name: str
    description: str
    schema: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})


@dataclass(frozen=True)
class ImagePart:
    """A picture sent with a user message (the prepared page's screenshot); `data` never prints."""

    mime_type: str
    data: bytes = field(repr=False)


@dataclass(frozen=True)
class LlmDelta:
    content: str
    type: Literal["delta"] = "delta"


@dataclass(frozen=True)
class LlmToolCall:
    tool_call_id: str
    name: str
    arguments: dict[str, Any]
    # Gemini may attach an opaque signature to a call; it must go back with the call in history.
    thought_signature: bytes | None = field(default=None, repr=False)
    # Whether the model chose `tool_call_id` (then it is echoed in the functionResponse) or we did.
    model_assigned_id: bool = False
    # Providers that send arguments as JSON text (OpenAI, Anthropic's streamed input) may send
    # text that is not a JSON object: the call then carries why, and the tool answers the model
    # with an invalid_params error instead of running.
    arguments_error: str | None = None
    type: Literal["tool_call"] = "tool_call"


@dataclass(frozen=True)
class LlmUsage:
    prompt_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0


@dataclass(frozen=True)
class LlmDone:
    finish_reason: str = ""
    usage: LlmUsage = field(default_factory=LlmUsage)
    model: str = ""
    type: Literal["done"] = "done"


LlmEvent = LlmDelta | LlmToolCall | LlmDone


@dataclass(frozen=True)
class ChatMessage:
    role: Role
    content: str = ""
    tool_calls: tuple[LlmToolCall, ...] = ()  # assistant: the calls the model made
    answers: LlmToolCall | None = None  # tool: the call this message is the result of
    result: dict[str, Any] | None = None  # tool: the structured result sent back as functionResponse
    images: tuple[ImagePart, ...] = ()  # user: pictures the model sees beside the text

    def __post_init__(self) -> None:
        if self.role == "tool" and self.answers is None:
            raise ValueError("a tool message must name the LlmToolCall it answers (ChatMessage.tool_result)")
        if self.tool_calls and self.role != "assistant":
            raise ValueError(f"only assistant messages carry tool_calls, not {self.role!r}")
        if self.images and self.role != "user":
            raise ValueError(f"only user messages carry images, not {self.role!r}")

    @classmethod
    def system(cls, content: str) -> ChatMessage:
        return cls("system", content)

    @classmethod
    def user(cls, content: str, images: tuple[ImagePart, ...] | list[ImagePart] = ()) -> ChatMessage:
        return cls("user", content, images=tuple(images))

    @classmethod
    def assistant(cls, content: str = "", tool_calls: tuple[LlmToolCall, ...] | list[LlmToolCall] = ()) -> ChatMessage:
        return cls("assistant", content, tool_calls=tuple(tool_calls))

    @classmethod
    def tool_result(cls, call: LlmToolCall, result: dict[str, Any]) -> ChatMessage:
        """The result of `call`, e.g. {"ok": true, "data": {...}} or {"ok": false, "error": "..."}."""
        return cls("tool", answers=call, result=dict(result))


@dataclass(frozen=True)
class LlmReply:
    """A whole (non-streamed) answer: the text, the tool calls, and how it ended."""

    text: str
    tool_calls: tuple[LlmToolCall, ...]
    done: LlmDone
