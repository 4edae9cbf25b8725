"""Binds features/llm_providers.feature: each provider's real SDK against our loopback server that
speaks that provider's wire format, all driven by the same scripts (tests/fixtures/model_wire.py)."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.llm import ChatMessage, ChatTelemetry, ImagePart, LlmDelta, LlmDone, LlmError, LlmEvent, LlmGateway, LlmToolCall, ModelChoice, ModelSettings, ToolSpec
from tests.fixtures.anthropic_server import AnthropicServer
from tests.fixtures.gemini_server import GeminiServer
from tests.fixtures.model_wire import (
    ModelWireServer,
    broken_arguments_reply,
    error_reply,
    function_call_reply,
    malformed_reply,
    refusal_reply,
    text_reply,
)
from tests.fixtures.openai_server import OpenAIServer

scenarios("llm_providers.feature")

SERVERS: dict[str, type[ModelWireServer]] = {"gemini": GeminiServer, "openai": OpenAIServer, "anthropic": AnthropicServer}
KEY = "sk-verity-provider-fixture-51c0e2"
# Every variable that could point a provider elsewhere: a test sets exactly what it means.
MODEL_VARIABLES = (
    "VERITY_MODEL", "GOOGLE_API_KEY", "GEMINI_API_KEY", "VERITY_GEMINI_BASE_URL", "GOOGLE_GEMINI_BASE_URL", "VERITY_GEMINI_MODEL",
    "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN",
    "VERITY_MODEL_MAX_ATTEMPTS", "VERITY_GEMINI_MAX_ATTEMPTS",
)
TOOLS = {"browser_click": ToolSpec("browser_click", "Click an element by ref.", {"type": "object", "properties": {"ref": {"type": "string"}}, "required": ["ref"]})}
# The smallest PNG there is: one transparent pixel.
PIXEL = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000" "1f15c4890000000d49444154789c6360000002000105" "2f1d9c0e0000000049454e44ae426082")
QUOTED_LIST = r'(?P<chunks>"[^"]*"(?:, "[^"]*")*)'


@dataclass
class Chat:
    server: ModelWireServer
    monkeypatch: pytest.MonkeyPatch
    history: list[ChatMessage] = field(default_factory=list)
    tools: list[ToolSpec] = field(default_factory=list)
    events: list[LlmEvent] = field(default_factory=list)
    errors: list[LlmError] = field(default_factory=list)
    exporter: InMemorySpanExporter | None = None

    def stream(self) -> None:
        async def turn() -> None:
            telemetry = None
            if self.exporter is not None:
                provider = TracerProvider(shutdown_on_exit=False)
                provider.add_span_processor(SimpleSpanProcessor(self.exporter))
                telemetry = ChatTelemetry(provider.get_tracer("test"), capture_content=True)
            gateway = LlmGateway(None, telemetry)  # settings from the environment, as a run reads them
            self.events = []
            try:
                async for event in gateway.stream_chat(self.history, self.tools):
                    self.events.append(event)
            except LlmError as error:
                self.errors.append(error)
            finally:
                await gateway.aclose()

        asyncio.run(turn())

    def ask(self, question: str, tool: str | None = None, images: tuple[ImagePart, ...] = ()) -> None:
        self.history = [ChatMessage.system("You are Verity's browser agent."), ChatMessage.user(question, images)]
        self.tools = [TOOLS[tool]] if tool else []
        self.stream()


@pytest.fixture
def clean_model_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in MODEL_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@pytest.fixture
def servers() -> Iterator[list[ModelWireServer]]:
    started: list[ModelWireServer] = []
    yield started
    for server in started:
        server.stop()


@given(parsers.parse("a {provider} server on loopback chosen by VERITY_MODEL"), target_fixture="chat")
def _server(provider: str, servers: list[ModelWireServer], clean_model_env: pytest.MonkeyPatch) -> Chat:
    server = SERVERS[provider]().start()
    servers.append(server)
    env = server.env(api_key=KEY)  # type: ignore[attr-defined]
    if provider == "gemini":
        env["VERITY_MODEL"] = "gemini"
    for name, value in env.items():
        clean_model_env.setenv(name, value)
    return Chat(server, clean_model_env)


@given(parsers.parse("the environment holds no {variable}"))
def _no_variable(chat: Chat, variable: str) -> None:
    chat.monkeypatch.delenv(variable, raising=False)


@given(parsers.parse("the gateway makes at most {attempts:d} attempts"))
def _attempts(chat: Chat, attempts: int) -> None:
    chat.monkeypatch.setenv("VERITY_MODEL_MAX_ATTEMPTS", str(attempts))
    chat.monkeypatch.setenv("VERITY_GEMINI_MAX_ATTEMPTS", str(attempts))


@given("message content is captured in spans")
def _capture(chat: Chat) -> None:
    chat.exporter = InMemorySpanExporter()


@given(parsers.parse('the model will call "{tool}" with ref "{ref}"'))
def _will_call(chat: Chat, tool: str, ref: str) -> None:
    chat.server.enqueue(function_call_reply(tool, {"ref": ref}))


@given(parsers.parse('the model will call "{tool}" with the arguments text "{text}"'))
def _will_call_broken(chat: Chat, tool: str, text: str) -> None:
    chat.server.enqueue(broken_arguments_reply(tool, text))


@given(parsers.re(r"the model will (?:then )?stream " + QUOTED_LIST))
def _will_stream(chat: Chat, chunks: str) -> None:
    chat.server.enqueue(text_reply(*re.findall(r'"([^"]*)"', chunks)))


@given(parsers.re(r'the model will then fail with HTTP (?P<status>\d+) saying "(?P<message>.*)"$'))
def _will_fail(chat: Chat, status: str, message: str) -> None:
    chat.server.enqueue(error_reply(int(status), message.replace('\\"', '"'), status_text="INVALID_ARGUMENT"))


@given(parsers.parse('the model will then fail with HTTP {status:d} saying "{message}" and Retry-After {seconds:f} seconds'))
def _will_fail_retry_after(chat: Chat, status: int, message: str, seconds: float) -> None:
    chat.server.enqueue(error_reply(status, message, status_text="RESOURCE_EXHAUSTED", retry_after=seconds))


@given(parsers.parse('the model will keep failing with HTTP {status:d} saying "{message}"'))
def _will_keep_failing(chat: Chat, status: int, message: str) -> None:
    chat.server.enqueue(*[error_reply(status, message, status_text="UNAVAILABLE") for _ in range(5)])


@given(parsers.parse('the model will answer with the body "{body}"'))
def _will_answer_body(chat: Chat, body: str) -> None:
    chat.server.enqueue(malformed_reply(body))


@given("the model will refuse")
def _will_refuse(chat: Chat) -> None:
    chat.server.enqueue(refusal_reply("I can't help with that."))


@given(parsers.parse('VERITY_MODEL is "{choice}" and OPENAI_API_KEY and ANTHROPIC_API_KEY are set'), target_fixture="environment")
def _two_providers(choice: str) -> dict[str, str]:
    return {"VERITY_MODEL": choice, "OPENAI_API_KEY": "o-key", "ANTHROPIC_API_KEY": "a-key"}


@when(parsers.parse('I stream a chat asking "{question}"'))
@when(parsers.parse('I stream a chat asking "{question}" expecting an error'))
def _ask(chat: Chat, question: str) -> None:
    chat.ask(question)


@when(parsers.parse('I stream a chat asking "{question}" with the tool "{tool}"'))
@when(parsers.parse('I stream a chat asking "{question}" with the tool "{tool}" expecting an error'))
def _ask_with_tool(chat: Chat, question: str, tool: str) -> None:
    chat.ask(question, tool)


@when(parsers.parse('I stream a chat asking "{question}" with a screenshot'))
def _ask_with_image(chat: Chat, question: str) -> None:
    chat.ask(question, images=(ImagePart("image/png", PIXEL),))


@when("I send back the result ok for that call and stream again")
def _send_back(chat: Chat) -> None:
    calls = [e for e in chat.events if isinstance(e, LlmToolCall)]
    chat.history += [ChatMessage.assistant(tool_calls=calls), *(ChatMessage.tool_result(call, {"ok": True, "data": {"clicked": True}}) for call in calls)]
    chat.stream()


@when("I create the gateway", target_fixture="created")
def _create(chat: Chat) -> LlmError | None:
    try:
        LlmGateway.from_env()
    except LlmError as error:
        return error
    return None


@then(parsers.parse('I receive a tool call "{tool}" with ref "{ref}"'))
def _received_call(chat: Chat, tool: str, ref: str) -> None:
    calls = [e for e in chat.events if isinstance(e, LlmToolCall)]
    assert [(c.name, c.arguments, c.arguments_error) for c in calls] == [(tool, {"ref": ref}, None)], (calls, chat.errors)


@then(parsers.parse('I receive a tool call "{tool}" whose arguments error says "{words}"'))
def _received_broken_call(chat: Chat, tool: str, words: str) -> None:
    calls = [e for e in chat.events if isinstance(e, LlmToolCall)]
    assert len(calls) == 1 and calls[0].name == tool and calls[0].arguments == {}, (calls, chat.errors)
    assert calls[0].arguments_error and words in calls[0].arguments_error, calls[0]


@then(parsers.re(r"I receive the deltas " + QUOTED_LIST))
def _received_deltas(chat: Chat, chunks: str) -> None:
    assert not chat.errors, chat.errors
    assert [e.content for e in chat.events if isinstance(e, LlmDelta)] == re.findall(r'"([^"]*)"', chunks)


@then(parsers.parse("the last event is done with {tokens:d} total tokens"))
def _done(chat: Chat, tokens: int) -> None:
    last = chat.events[-1]
    assert isinstance(last, LlmDone) and last.usage.total_tokens == tokens, last


@then(parsers.parse('the server\'s last request holds the tool\'s result for "{tool}"'))
def _result_sent(chat: Chat, tool: str) -> None:
    responses = chat.server.requests[-1].function_responses()
    assert responses == [{"name": tool, "response": {"ok": True, "data": {"clicked": True}}}], responses


@then(parsers.parse('every request carried the key in the "{header}" header and nowhere else'))
def _key_in_header(chat: Chat, header: str) -> None:
    assert chat.server.requests
    for request in chat.server.requests:
        assert KEY in request.headers[header], request.headers
        others = {name: value for name, value in request.headers.items() if name != header}
        assert KEY not in json.dumps(others) + request.path + json.dumps(request.query) + json.dumps(request.body)


@then(parsers.parse('it fails with LLM error "{code}" mentioning "{text}"'))
def _fails(created: LlmError | None, code: str, text: str) -> None:
    assert created is not None and created.code.value == code and text in created.message, created


@then(parsers.parse('a step naming "{choice}" talks to {provider} model "{model}"'))
def _step_choice(environment: dict[str, str], choice: str, provider: str, model: str) -> None:
    settings = ModelSettings.from_env(environment, ModelChoice.parse(choice))
    assert (settings.provider, settings.model) == (provider, model)


@then(parsers.parse('a step naming nothing talks to {provider} model "{model}"'))
def _default_choice(environment: dict[str, str], provider: str, model: str) -> None:
    settings = ModelSettings.from_env(environment, None)
    assert (settings.provider, settings.model) == (provider, model)


@then(parsers.parse('a step naming the provider "{provider}" alone fails with "{code}" mentioning "{text}"'))
def _provider_alone(environment: dict[str, str], provider: str, code: str, text: str) -> None:
    with pytest.raises(LlmError) as caught:
        ModelSettings.from_env(environment, ModelChoice(provider, None))
    assert caught.value.code.value == code and text in caught.value.message, caught.value


@then(parsers.parse("the server received exactly {count:d} requests"))
def _request_count(chat: Chat, count: int) -> None:
    assert len(chat.server.requests) == count, [r.path for r in chat.server.requests]


@then(parsers.parse('the error code is "{code}"'))
def _error_code(chat: Chat, code: str) -> None:
    assert [e.code.value for e in chat.errors] == [code], chat.errors


@then(parsers.parse('the error names "{words}"'))
def _error_names(chat: Chat, words: str) -> None:
    assert words in chat.errors[0].message, chat.errors[0].message


@then("the server received 1 image in its own shape")
def _image_received(chat: Chat) -> None:
    assert not chat.errors, chat.errors
    assert chat.server.requests[-1].image_count() == 1


@then("the chat span records an image part without its bytes")
def _span_has_no_bytes(chat: Chat) -> None:
    assert chat.exporter is not None
    spans = [s for s in chat.exporter.get_finished_spans() if s.name.startswith("chat ")]
    recorded = str(spans[-1].attributes.get("gen_ai.input.messages"))
    assert '"modality": "image"' in recorded, recorded
    encoded = __import__("base64").b64encode(PIXEL).decode()
    assert encoded not in recorded and PIXEL.hex() not in recorded
