"""Gateway details beyond the scenarios: settings, history mapping, complete(), more failure codes."""

from __future__ import annotations

import asyncio

import pytest

from runtime.llm import (
    ChatMessage,
    GatewayIntentModel,
    ModelSettings,
    LlmError,
    LlmErrorCode,
    LlmGateway,
    LlmToolCall,
)
from runtime.llm.providers.gemini import to_gemini_contents
from runtime.llm.settings import DEFAULT_MODEL
from tests.fixtures.gemini_server import GeminiServer, ScriptedReply, error_reply, function_call_reply, text_reply


def _run(settings: ModelSettings, action):  # type: ignore[no-untyped-def]
    async def go():  # type: ignore[no-untyped-def]
        gateway = LlmGateway(settings)
        try:
            return await action(gateway)
        finally:
            await gateway.aclose()

    return asyncio.run(go())


async def _drain(gateway: LlmGateway, messages: list[ChatMessage]) -> list:
    return [event async for event in gateway.stream_chat(messages)]


def test_google_api_key_wins_like_google_genai_and_defaults_apply() -> None:
    settings = ModelSettings.from_env({"GOOGLE_API_KEY": "g-key", "GEMINI_API_KEY": "m-key"})
    assert settings.api_key.reveal() == "g-key"
    assert settings.model == DEFAULT_MODEL and settings.base_url.startswith("https://generativelanguage")
    assert "g-key" not in repr(settings) and "g-key" not in str(settings.describe())


def test_blank_key_counts_as_missing() -> None:
    with pytest.raises(LlmError) as caught:
        ModelSettings.from_env({"GEMINI_API_KEY": "   "})
    assert caught.value.code is LlmErrorCode.MISSING_API_KEY


def test_bad_timeout_is_a_settings_error() -> None:
    with pytest.raises(LlmError, match="VERITY_GEMINI_TIMEOUT_MS") as caught:
        ModelSettings.from_env({"GEMINI_API_KEY": "k", "VERITY_GEMINI_TIMEOUT_MS": "soon"})
    assert caught.value.code is LlmErrorCode.INVALID_SETTINGS


def test_tool_results_of_one_turn_share_one_user_content_and_model_ids_are_echoed() -> None:
    first = LlmToolCall("fc-1", "browser_snapshot", {}, model_assigned_id=True)
    second = LlmToolCall("call-1-2", "browser_click", {"ref": "s1:e1"})
    contents = to_gemini_contents(
        [
            ChatMessage.system("ignored here: it becomes the system instruction"),
            ChatMessage.user("go"),
            ChatMessage.assistant("Looking.", [first, second]),
            ChatMessage.tool_result(first, {"ok": True}),
            ChatMessage.tool_result(second, {"ok": False, "error": "stale_ref"}),
        ]
    )
    assert [c.role for c in contents] == ["user", "model", "user"]
    model_parts = contents[1].parts
    assert model_parts[0].text == "Looking." and model_parts[1].function_call.id == "fc-1" and model_parts[2].function_call.id is None
    responses = [part.function_response for part in contents[2].parts]
    assert [(r.name, r.id) for r in responses] == [("browser_snapshot", "fc-1"), ("browser_click", None)]


def test_a_tool_message_must_name_its_call() -> None:
    with pytest.raises(ValueError, match="LlmToolCall"):
        ChatMessage("tool", "result text")


def test_complete_returns_text_calls_and_usage() -> None:
    with GeminiServer() as gemini:
        gemini.enqueue(function_call_reply("browser_snapshot", {}, call_id="fc-9", text_before="Let me look."))
        settings = ModelSettings.from_env(gemini.env())
        reply = _run(settings, lambda gateway: gateway.complete([ChatMessage.user("what is here?")]))
        assert gemini.requests[0].method == "generateContent"
    assert reply.text == "Let me look."
    assert [(c.tool_call_id, c.name, c.model_assigned_id) for c in reply.tool_calls] == [("fc-9", "browser_snapshot", True)]
    assert reply.done.finish_reason == "STOP" and reply.done.usage.prompt_tokens == 11


def test_a_blocked_prompt_is_a_typed_error() -> None:
    with GeminiServer() as gemini:
        gemini.enqueue(ScriptedReply(chunks=[[]], prompt_block_reason="SAFETY"))
        with pytest.raises(LlmError) as caught:
            _run(ModelSettings.from_env(gemini.env()), lambda gateway: _drain(gateway, [ChatMessage.user("x")]))
    assert caught.value.code is LlmErrorCode.PROMPT_BLOCKED and "SAFETY" in caught.value.message


def test_an_unreachable_server_is_connection_failed() -> None:
    with GeminiServer() as gemini:
        env = gemini.env()
    # The server is stopped now: its port refuses connections.
    with pytest.raises(LlmError) as caught:
        _run(ModelSettings.from_env(env), lambda gateway: _drain(gateway, [ChatMessage.user("x")]))
    assert caught.value.code is LlmErrorCode.CONNECTION_FAILED and caught.value.retryable


def test_a_503_is_a_retryable_server_error() -> None:
    with GeminiServer() as gemini:
        gemini.enqueue(error_reply(503, "overloaded", "UNAVAILABLE"))
        with pytest.raises(LlmError) as caught:
            _run(ModelSettings.from_env(gemini.env()), lambda gateway: _drain(gateway, [ChatMessage.user("x")]))
    assert caught.value.code is LlmErrorCode.SERVER_ERROR and caught.value.status == 503 and caught.value.retryable


def test_a_chat_of_only_system_messages_is_rejected_before_any_request() -> None:
    with GeminiServer() as gemini:
        with pytest.raises(LlmError) as caught:
            _run(ModelSettings.from_env(gemini.env()), lambda gateway: _drain(gateway, [ChatMessage.system("rules")]))
        assert gemini.requests == []
    assert caught.value.code is LlmErrorCode.BAD_REQUEST


def test_intent_model_asks_for_json_with_the_goal() -> None:
    with GeminiServer() as gemini:
        gemini.enqueue(text_reply('{"label": "general", "confidence": 0.9, "reason": "notes"}'))
        answer = _run(ModelSettings.from_env(gemini.env()), lambda gateway: GatewayIntentModel(gateway).classify_intent("tidy my notes"))
        request = gemini.requests[0]
    assert answer == '{"label": "general", "confidence": 0.9, "reason": "notes"}'
    assert '"label"' in request.body["systemInstruction"]["parts"][0]["text"]
    assert request.body["contents"][0]["parts"][0]["text"] == "<goal>\ntidy my notes\n</goal>"
    assert request.body["generationConfig"] == {"temperature": 0.0, "responseMimeType": "application/json"}


def test_a_server_message_echoing_the_key_is_redacted() -> None:
    with GeminiServer() as gemini:
        gemini.enqueue(error_reply(400, "API key sk-echoed-123 not valid. Please pass a valid API key.", "INVALID_ARGUMENT"))
        with pytest.raises(LlmError) as caught:
            _run(ModelSettings.from_env(gemini.env(api_key="sk-echoed-123")), lambda gateway: _drain(gateway, [ChatMessage.user("x")]))
    assert caught.value.code is LlmErrorCode.BAD_REQUEST
    assert "sk-echoed-123" not in str(caught.value) and "API key *** not valid" in caught.value.message


def test_a_consumer_may_stop_after_the_first_tool_call() -> None:
    async def first_event(gateway: LlmGateway) -> object:
        stream = gateway.stream_chat([ChatMessage.user("x")])
        try:
            async for event in stream:
                return event
        finally:
            await stream.aclose()  # type: ignore[attr-defined]

    with GeminiServer() as gemini:
        gemini.enqueue(ScriptedReply(chunks=[[{"functionCall": {"name": "webfetch", "args": {"url": "http://x"}}}], [{"text": "more"}]]))
        gemini.enqueue(text_reply("second chat"))
        settings = ModelSettings.from_env(gemini.env())

        async def two_chats(gateway: LlmGateway) -> tuple[object, list]:
            return await first_event(gateway), await _drain(gateway, [ChatMessage.user("y")])

        first, second = _run(settings, two_chats)
    assert isinstance(first, LlmToolCall) and first.name == "webfetch"
    assert [getattr(e, "content", None) for e in second][:1] == ["second chat"]
