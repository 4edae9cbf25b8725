"""Binds features/llm_gateway.feature: the real google-genai client against the loopback Gemini server."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import re
import traceback
from dataclasses import dataclass, field

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.llm import (
    ChatMessage,
    LlmDelta,
    LlmDone,
    LlmError,
    LlmEvent,
    LlmGateway,
    LlmToolCall,
    ToolSpec,
)
from tests.fixtures.gemini_server import GeminiServer, error_reply, function_call_reply, malformed_reply, text_reply

scenarios("llm_gateway.feature")

SYSTEM_PROMPT = "You are Verity's browser agent."
TOOLS = {
    "browser_click": ToolSpec(
        "browser_click", "Click an element by ref.", {"type": "object", "properties": {"ref": {"type": "string"}}, "required": ["ref"]}
    )
}


@dataclass
class Chat:
    api_key: str
    history: list[ChatMessage] = field(default_factory=list)
    tools: list[ToolSpec] = field(default_factory=list)
    events: list[LlmEvent] = field(default_factory=list)  # the latest turn
    all_events: list[LlmEvent] = field(default_factory=list)
    errors: list[LlmError] = field(default_factory=list)
    gateway_reprs: list[str] = field(default_factory=list)

    def stream(self) -> None:
        """One streamed turn with a fresh gateway read from the environment, as the executor does."""

        async def turn() -> None:
            gateway = LlmGateway.from_env()
            self.gateway_reprs += [repr(gateway), repr(gateway.settings), json.dumps(gateway.settings.describe())]
            self.events = []
            try:
                async for event in gateway.stream_chat(self.history, self.tools):
                    self.events.append(event)
            except LlmError as error:
                self.errors.append(error)
            finally:
                await gateway.aclose()
            self.all_events += self.events

        asyncio.run(turn())

    def deltas(self) -> list[str]:
        return [e.content for e in self.events if isinstance(e, LlmDelta)]

    def tool_calls(self) -> list[LlmToolCall]:
        return [e for e in self.events if isinstance(e, LlmToolCall)]


def _quoted(text: str) -> list[str]:
    return re.findall(r'"([^"]*)"', text)


QUOTED_LIST = r'(?P<chunks>"[^"]*"(?:, "[^"]*")*)'


@given("a Gemini server on loopback")
def _server(gemini: GeminiServer) -> None:
    assert gemini.base_url.startswith("http://127.0.0.1:")


@given(parsers.parse('the environment holds the Gemini API key "{key}"'), target_fixture="chat")
def _key(gemini_env: dict[str, str], monkeypatch: pytest.MonkeyPatch, key: str) -> Chat:
    monkeypatch.setenv("GEMINI_API_KEY", key)
    return Chat(api_key=key)


@given("the environment holds no Gemini API key")
def _no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)


@given(parsers.parse("the gateway timeout is {ms:d} ms"))
def _timeout(monkeypatch: pytest.MonkeyPatch, ms: int) -> None:
    monkeypatch.setenv("VERITY_GEMINI_TIMEOUT_MS", str(ms))


@given(parsers.re(r"Gemini will (?:then )?stream " + QUOTED_LIST))
def _will_stream(gemini: GeminiServer, chunks: str) -> None:
    gemini.enqueue(text_reply(*_quoted(chunks)))


@given(parsers.parse('Gemini will stream "{text}" after {seconds:f} seconds'))
def _will_stream_late(gemini: GeminiServer, text: str, seconds: float) -> None:
    gemini.enqueue(text_reply(text, delay_seconds=seconds))


@given(parsers.parse('Gemini will call "{tool}" with ref "{ref}" and thought signature "{signature}"'))
def _will_call(gemini: GeminiServer, tool: str, ref: str, signature: str) -> None:
    gemini.enqueue(function_call_reply(tool, {"ref": ref}, thought_signature=signature.encode()))


@given(parsers.parse('Gemini will then fail with HTTP {status:d} saying "{message}"'))
def _will_fail(gemini: GeminiServer, status: int, message: str) -> None:
    gemini.enqueue(error_reply(status, message))


@given(parsers.parse("the gateway makes at most {attempts:d} attempts"))
def _attempts(monkeypatch: pytest.MonkeyPatch, attempts: int) -> None:
    monkeypatch.setenv("VERITY_GEMINI_MAX_ATTEMPTS", str(attempts))


@given(parsers.parse('Gemini will keep failing with HTTP {status:d} saying "{message}"'))
def _will_keep_failing(gemini: GeminiServer, status: int, message: str) -> None:
    gemini.enqueue(*[error_reply(status, message)] * 5)


@then(parsers.parse('the error names "{words}"'))
def _error_names(chat: Chat, words: str) -> None:
    [error] = chat.errors
    assert words in error.message, error.message


@then("the error names no attempts")
def _error_names_no_attempts(chat: Chat) -> None:
    [error] = chat.errors
    assert "attempts" not in error.message, error.message


@given(parsers.parse('Gemini will answer with the body "{body}"'))
def _will_answer_raw(gemini: GeminiServer, body: str) -> None:
    gemini.enqueue(malformed_reply(body))


@when(parsers.parse('I stream a chat asking "{question}"'))
def _ask(chat: Chat, question: str) -> None:
    chat.history = [ChatMessage.system(SYSTEM_PROMPT), ChatMessage.user(question)]
    chat.stream()
    assert not chat.errors, chat.errors


@when(parsers.parse('I stream a chat asking "{question}" with the tool "{tool}"'))
def _ask_with_tool(chat: Chat, question: str, tool: str) -> None:
    chat.tools = [TOOLS[tool]]
    _ask(chat, question)


@when(parsers.parse('I stream a chat asking "{question}" while capturing every log record'))
def _ask_logged(chat: Chat, caplog: pytest.LogCaptureFixture, question: str) -> None:
    caplog.set_level(logging.DEBUG)  # root and every library logger that propagates: google_genai, httpx2, httpcore
    _ask(chat, question)


@when(parsers.parse('I stream a chat asking "{question}" expecting an error'))
def _ask_failing(chat: Chat, question: str) -> None:
    chat.history = [ChatMessage.system(SYSTEM_PROMPT), ChatMessage.user(question)]
    chat.stream()
    assert len(chat.errors) == 1, f"expected one LlmError, got events {chat.events}"


@when("I send back the result ok for that call and stream again")
def _send_result(chat: Chat) -> None:
    call = chat.tool_calls()[0]
    chat.history += [ChatMessage.assistant(tool_calls=[call]), ChatMessage.tool_result(call, {"ok": True, "data": {"clicked": call.arguments["ref"]}})]
    chat.stream()
    assert not chat.errors, chat.errors


@when("I create the gateway", target_fixture="created")
def _create() -> LlmError | LlmGateway:
    try:
        return LlmGateway.from_env()
    except LlmError as error:
        return error


@then(parsers.re(r"I receive the deltas " + QUOTED_LIST))
def _deltas(chat: Chat, chunks: str) -> None:
    assert chat.deltas() == _quoted(chunks)
    assert isinstance(chat.events[-1], LlmDone)
    assert sum(isinstance(e, LlmDone) for e in chat.events) == 1


@then(parsers.parse('the last event is done with finish reason "{reason}" and {tokens:d} total tokens'))
def _done(chat: Chat, reason: str, tokens: int) -> None:
    done = chat.events[-1]
    assert isinstance(done, LlmDone)
    assert (done.finish_reason, done.usage.total_tokens) == (reason, tokens)
    assert done.model == "gemini-fixture-flash"


@then("Gemini received a streaming request with the system instruction and the question")
def _streaming_request(gemini: GeminiServer, chat: Chat) -> None:
    request = gemini.requests[-1]
    assert request.method == "streamGenerateContent" and request.query == {"alt": ["sse"]}
    assert (request.api_version, request.model) == ("v1beta", "gemini-fixture-flash")
    assert request.body["systemInstruction"]["parts"][0]["text"] == SYSTEM_PROMPT
    assert request.body["contents"] == [{"role": "user", "parts": [{"text": chat.history[-1].content}]}]


@then(parsers.parse('I receive a tool call "{tool}" with ref "{ref}"'))
def _tool_call(chat: Chat, tool: str, ref: str) -> None:
    calls = chat.tool_calls()
    assert [(c.name, c.arguments) for c in calls] == [(tool, {"ref": ref})]
    assert calls[0].tool_call_id and isinstance(chat.events[-1], LlmDone)


@then(parsers.parse('Gemini received the tool "{tool}" as a function declaration'))
def _declared(gemini: GeminiServer, tool: str) -> None:
    declarations = gemini.requests[0].body["tools"][0]["functionDeclarations"]
    assert [d["name"] for d in declarations] == [tool]
    schema = declarations[0].get("parametersJsonSchema") or declarations[0].get("parameters_json_schema")
    assert schema == TOOLS[tool].schema


@then("Gemini's last request holds the function call with its thought signature and then the function response")
def _round_trip(gemini: GeminiServer, chat: Chat) -> None:
    contents = gemini.requests[-1].body["contents"]
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    call_part = contents[1]["parts"][0]
    assert call_part["functionCall"]["name"] == "browser_click" and call_part["functionCall"]["args"] == {"ref": "s1:e4"}
    assert base64.b64decode(call_part["thoughtSignature"]) == b"sig-7"
    response = contents[2]["parts"][0]["functionResponse"]
    assert response == {"name": "browser_click", "response": {"ok": True, "data": {"clicked": "s1:e4"}}}


@then(parsers.parse('it fails with LLM error "{code}" mentioning "{text}"'))
def _fails_with(created: LlmError | LlmGateway, code: str, text: str) -> None:
    assert isinstance(created, LlmError), created
    assert created.code.value == code and text in str(created)


@then(parsers.parse('every request carried the API key in the "{header}" header only'))
def _header_only(gemini: GeminiServer, chat: Chat, header: str) -> None:
    assert len(gemini.requests) == 2
    for request in gemini.requests:
        assert request.headers[header] == chat.api_key
        others = {name: value for name, value in request.headers.items() if name != header}
        assert chat.api_key not in json.dumps(others)
        assert chat.api_key not in request.path + json.dumps(request.query) + json.dumps(request.body)


@then("the API key appears in no log record, event, error message, repr or traceback")
def _no_leak(chat: Chat, caplog: pytest.LogCaptureFixture) -> None:
    assert caplog.records, "the scenario must have captured the client's debug logs"
    [error] = chat.errors
    assert error.code.value == "server_error" and "backend exploded" in error.message
    places = {
        "logs": "\n".join(f"{r.name} {r.getMessage()} {r.args!r}" for r in caplog.records),
        "events": repr(chat.all_events),
        "error": f"{error} {error!r} {json.dumps(error.to_dict())}",
        "traceback": "".join(traceback.format_exception(error)),
        "reprs": "\n".join(chat.gateway_reprs),
    }
    assert error.__cause__ is None
    for place, text in places.items():
        assert chat.api_key not in text, f"API key leaked in {place}"


@then(parsers.parse('the error code is "{code}" with HTTP status {status:d}'))
def _error_code_status(chat: Chat, code: str, status: int) -> None:
    [error] = chat.errors
    assert (error.code.value, error.status) == (code, status)


@then(parsers.parse('the error code is "{code}"'))
def _error_code(chat: Chat, code: str) -> None:
    [error] = chat.errors
    assert error.code.value == code, error


@then(parsers.parse("Gemini received exactly {count:d} request"))
def _request_count(gemini: GeminiServer, count: int) -> None:
    assert len(gemini.requests) == count
