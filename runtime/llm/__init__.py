"""The LLM gateway (seed 003) over Gemini, OpenAI-compatible servers and Anthropic, each through its
official SDK, plus seed 002's prompt builder.

    gateway = LlmGateway.from_env()     # VERITY_MODEL=provider:name; keys from each SDK's variables only
    async for event in gateway.stream_chat([ChatMessage.system(prompt), ChatMessage.user(goal)], tools):
        LlmDelta -> chat text; LlmToolCall -> run the tool, then append
        ChatMessage.assistant(tool_calls=[call]) and ChatMessage.tool_result(call, result) and stream again;
        LlmDone -> the turn ended.
    Failures raise LlmError(code=LlmErrorCode...).
"""

from typing import TYPE_CHECKING, Any

from runtime.llm.chat_spans import ChatTelemetry, LlmRetry
from runtime.llm.errors import LlmError, LlmErrorCode
from runtime.llm.messages import ChatMessage, ImagePart, LlmDelta, LlmDone, LlmEvent, LlmReply, LlmToolCall, LlmUsage, ToolSpec
from runtime.llm.prompt import PageContext, build_agent_prompt
from runtime.llm.settings import (
    API_KEY_VARIABLES,
    BASE_URL_VARIABLE,
    DEFAULT_MODEL,
    MODEL_VARIABLE,
    MODEL_CHOICE_VARIABLE,
    PROVIDERS,
    ApiKey,
    ModelChoice,
    ModelSettings,
)

if TYPE_CHECKING:
    from runtime.llm.gateway import LlmGateway
    from runtime.llm.intent_model import INTENT_INSTRUCTION, GatewayIntentModel


def __getattr__(name: str) -> Any:
    # A provider's SDK takes most of a second to import; a run with no model step never pays for it.
    if name == "LlmGateway":
        from runtime.llm import gateway

        return getattr(gateway, name)
    if name in ("INTENT_INSTRUCTION", "GatewayIntentModel"):
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
    "GatewayIntentModel",
    "ImagePart",
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
    "MODEL_CHOICE_VARIABLE",
    "ModelChoice",
    "ModelSettings",
    "PROVIDERS",
    "PageContext",
    "ToolSpec",
    "build_agent_prompt",
]
