"""The LLM gateway (seed 003) over Gemini, OpenAI-compatible servers and Anthropic, each through its
official SDK, plus seed 002's prompt builder.

    gateway = LlmGateway.from_env()     # VERITY_MODEL=provider:name; keys from each SDK's variables only
    async for event in gateway.stream_chat([ChatMessage.system(prompt), ChatMessage.user(goal)], tools):
        LlmDelta -> chat text; LlmToolCall -> run the tool, then append
        ChatMessage.assistant(tool_calls=[call]) and ChatMessage.tool_result(call, result) and stream again;
        LlmDone -> the turn ended.
    Failures raise LlmError(code=LlmErrorCode...).

The names below are imported on first use, not with the package: a run whose plan asks no model
(no agent or repair step, no model intent detector) loads none of this package's modules, and a
provider's SDK, which takes most of a second to import, is loaded only by the gateway.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from runtime.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from runtime.llm.chat_spans import ChatTelemetry, LlmRetry
    from runtime.llm.errors import LlmError, LlmErrorCode, code_for_status
    from runtime.llm.gateway import LlmGateway
    from runtime.llm.intent_model import INTENT_INSTRUCTION, GatewayIntentModel
    from runtime.llm.messages import ChatMessage, ImagePart, LlmDelta, LlmDone, LlmEvent, LlmReply, LlmToolCall, LlmUsage, ToolSpec
    from runtime.llm.prompt import PageContext, build_agent_prompt
    from runtime.llm.settings import (
        API_KEY_VARIABLES,
        BASE_URL_VARIABLE,
        DEFAULT_MODEL,
        MODEL_CHOICE_VARIABLE,
        MODEL_VARIABLE,
        PROVIDERS,
        ApiKey,
        ModelChoice,
        ModelSettings,
    )
    from runtime.llm.vision import vision_on

# Each exported name, by the module of runtime.llm that defines it.
_EXPORTED_FROM = {
    "chat_spans": ("ChatTelemetry", "LlmRetry"),
    "errors": ("LlmError", "LlmErrorCode", "code_for_status"),
    "gateway": ("LlmGateway",),
    "intent_model": ("INTENT_INSTRUCTION", "GatewayIntentModel"),
    "messages": ("ChatMessage", "ImagePart", "LlmDelta", "LlmDone", "LlmEvent", "LlmReply", "LlmToolCall", "LlmUsage", "ToolSpec"),
    "prompt": ("PageContext", "build_agent_prompt"),
    "settings": (
        "API_KEY_VARIABLES",
        "BASE_URL_VARIABLE",
        "DEFAULT_MODEL",
        "MODEL_CHOICE_VARIABLE",
        "MODEL_VARIABLE",
        "PROVIDERS",
        "ApiKey",
        "ModelChoice",
        "ModelSettings",
    ),
    "vision": ("vision_on",),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTED_FROM, globals())

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
    "code_for_status",
    "vision_on",
]
