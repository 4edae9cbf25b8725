"""The LLM gateway (seed 003) over the real google-genai client, plus seed 002's prompt builder.

    gateway = LlmGateway.from_env()     # key from GOOGLE_API_KEY / GEMINI_API_KEY only
    async for event in gateway.stream_chat([ChatMessage.system(prompt), ChatMessage.user(goal)], tools):
        LlmDelta -> chat text; LlmToolCall -> run the tool, then append
        ChatMessage.assistant(tool_calls=[call]) and ChatMessage.tool_result(call, result) and stream again;
        LlmDone -> the turn ended.
    Failures raise LlmError(code=LlmErrorCode...).
"""

from typing import TYPE_CHECKING, Any

from runtime.llm.chat_spans import ChatTelemetry, LlmRetry
from runtime.llm.errors import LlmError, LlmErrorCode
from runtime.llm.messages import ChatMessage, LlmDelta, LlmDone, LlmEvent, LlmReply, LlmToolCall, LlmUsage, ToolSpec
from runtime.llm.prompt import PageContext, build_agent_prompt
from runtime.llm.settings import (
    API_KEY_VARIABLES,
    BASE_URL_VARIABLE,
    DEFAULT_MODEL,
    MODEL_VARIABLE,
    ApiKey,
    GeminiSettings,
)

if TYPE_CHECKING:
    from runtime.llm.gateway import LlmGateway, to_gemini_contents
    from runtime.llm.intent_model import INTENT_INSTRUCTION, GeminiIntentModel


def __getattr__(name: str) -> Any:
    # google-genai takes most of a second to import; a run with no model step never pays for it.
    if name in ("LlmGateway", "to_gemini_contents"):
        from runtime.llm import gateway

        return getattr(gateway, name)
    if name in ("INTENT_INSTRUCTION", "GeminiIntentModel"):
        from runtime.llm import intent_model

        return getattr(intent_model, name)
    raise AttributeError(f"module 'runtime.llm' has no attribute {name!r}")


__all__ = [
    "API_KEY_VARIABLES",
    "BASE_URL_VARIABLE",
    "DEFAULT_MODEL",
    "INTENT_INSTRUCTION",
    "MODEL_VARIABLE",
    "ApiKey",
    "ChatMessage",
    "ChatTelemetry",
    "GeminiIntentModel",
    "GeminiSettings",
    "LlmDelta",
    "LlmDone",
    "LlmError",
    "LlmErrorCode",
    "LlmEvent",
    "LlmGateway",
    "LlmReply",
    "LlmRetry",
    "LlmToolCall",
    "LlmUsage",
    "PageContext",
    "ToolSpec",
    "build_agent_prompt",
    "to_gemini_contents",
]
