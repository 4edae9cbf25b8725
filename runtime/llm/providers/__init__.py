"""One client per provider, each over its official SDK, behind `ModelClient` (model_client.py).

A provider's SDK is imported only when a gateway for it is opened: a run with no model step, or
one on Gemini, never pays for the others.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runtime.llm.providers.model_client import ModelClient
from runtime.llm.settings import ModelSettings


def open_client(settings: ModelSettings, event_hooks: dict[str, list[Callable[[Any], Any]]]) -> ModelClient:
    if settings.provider == "openai":
        from runtime.llm.providers.openai_chat import OpenAIChatClient

        return OpenAIChatClient(settings, event_hooks)
    if settings.provider == "anthropic":
        from runtime.llm.providers.anthropic_messages import AnthropicMessagesClient

        return AnthropicMessagesClient(settings, event_hooks)
    from runtime.llm.providers.gemini import GeminiClient

    return GeminiClient(settings, event_hooks)
