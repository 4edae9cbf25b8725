"""Binds features/llm_telemetry.feature: the real google-genai client against the loopback Gemini
server, its chat spans in an in-memory exporter, and where it sends its requests."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.llm import ChatMessage, ChatTelemetry, LlmDelta, LlmError, LlmGateway, LlmRetry
from runtime.trace_export import CAPTURE_CONTENT_VARIABLE, capture_message_content
from tests.fixtures.gemini_fixtures import FIXTURE_API_KEY
from tests.fixtures.gemini_server import GeminiServer, error_reply, text_reply

scenarios("llm_telemetry.feature")


@dataclass
class Traced:
    exporter: InMemorySpanExporter
    provider: TracerProvider
    retries: list[LlmRetry] = field(default_factory=list)
    deltas: list[str] = field(default_factory=list)
    errors: list[LlmError] = field(default_factory=list)

    def chat_spans(self) -> list[ReadableSpan]:
        return [s for s in self.exporter.get_finished_spans() if s.name.startswith("chat ")]

    def ask(self, question: str) -> None:
        telemetry = ChatTelemetry(self.provider.get_tracer("test"), capture_content=capture_message_content(), on_retry=self.retries.append)

        async def turn() -> None:
            gateway = LlmGateway(None, telemetry)  # settings from the environment, as the executor reads them
            try:
                async for event in gateway.stream_chat([ChatMessage.system("You are a test."), ChatMessage.user(question)]):
                    if isinstance(event, LlmDelta):
                        self.deltas.append(event.content)
            except LlmError as error:
                self.errors.append(error)
            finally:
                await gateway.aclose()

        asyncio.run(turn())


@pytest.fixture
def other_gemini() -> Iterator[GeminiServer]:
    with GeminiServer() as server:
        yield server


@given("a Gemini server on loopback and a traced gateway", target_fixture="traced")
def traced_gateway(gemini_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Traced:
    monkeypatch.delenv(CAPTURE_CONTENT_VARIABLE, raising=False)
    monkeypatch.delenv("GOOGLE_GEMINI_BASE_URL", raising=False)
    exporter = InMemorySpanExporter()
    provider = TracerProvider(shutdown_on_exit=False)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return Traced(exporter, provider)


@given("content capture is switched on")
def capture_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CAPTURE_CONTENT_VARIABLE, "true")


@given(parsers.parse("the gateway makes at most {attempts:d} attempts"))
def attempts(monkeypatch: pytest.MonkeyPatch, attempts: int) -> None:
    monkeypatch.setenv("VERITY_GEMINI_MAX_ATTEMPTS", str(attempts))


@given(parsers.re(r'Gemini will stream (?P<chunks>"[^"]*"(?:, "[^"]*")*)$'))
def will_stream(gemini: GeminiServer, chunks: str) -> None:
    gemini.enqueue(text_reply(*re.findall(r'"([^"]*)"', chunks)))


@given(parsers.parse("Gemini will fail with HTTP {status:d}"))
def will_fail(gemini: GeminiServer, status: int) -> None:
    gemini.enqueue(error_reply(status, "scripted failure"))


@given("VERITY_GEMINI_BASE_URL is unset and GOOGLE_GEMINI_BASE_URL names the Gemini server")
def sdk_base_url(gemini: GeminiServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VERITY_GEMINI_BASE_URL")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", gemini.base_url)


@given("GOOGLE_GEMINI_BASE_URL names another Gemini server")
def other_base_url(other_gemini: GeminiServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", other_gemini.base_url)


@when(parsers.parse('I ask "{question}"'))
def ask(traced: Traced, question: str) -> None:
    traced.ask(question)
    assert not traced.errors, traced.errors


@when(parsers.parse('I ask "{question}" expecting an error'))
def ask_failing(traced: Traced, question: str) -> None:
    traced.ask(question)
    assert traced.errors


@then(parsers.parse('the chat span "{name}" is a client span with gen_ai.provider.name "{provider}", {inputs:d} input and {outputs:d} output tokens and finish reason "{reason}"'))
def chat_span(traced: Traced, name: str, provider: str, inputs: int, outputs: int, reason: str) -> None:
    [span] = traced.chat_spans()
    attributes = span.attributes or {}
    assert span.name == name and span.kind is SpanKind.CLIENT and span.status.status_code is not StatusCode.ERROR
    assert attributes["gen_ai.operation.name"] == "chat" and attributes["gen_ai.provider.name"] == provider
    assert attributes["gen_ai.request.model"] == attributes["gen_ai.response.model"] == name.removeprefix("chat ")
    assert (attributes["gen_ai.usage.input_tokens"], attributes["gen_ai.usage.output_tokens"]) == (inputs, outputs)
    assert tuple(attributes["gen_ai.response.finish_reasons"]) == (reason,)
    assert attributes["server.address"] == "127.0.0.1" and isinstance(attributes["server.port"], int)
    assert attributes["verity.retries"] == 0


def _attribute_text(traced: Traced) -> str:
    return json.dumps([{k: list(v) if isinstance(v, tuple) else v for k, v in (s.attributes or {}).items()} for s in traced.chat_spans()])


@then(parsers.parse('no chat span attribute holds "{question}", "{answer}" or the API key'))
def no_content(traced: Traced, question: str, answer: str) -> None:
    assert traced.deltas  # the model did answer
    text = _attribute_text(traced)
    assert question not in text and answer not in text and FIXTURE_API_KEY not in text


@then(parsers.parse('the chat span\'s input messages hold "{question}" and its output messages hold "{answer}"'))
def content(traced: Traced, question: str, answer: str) -> None:
    [span] = traced.chat_spans()
    attributes = span.attributes or {}
    messages = json.loads(str(attributes["gen_ai.input.messages"]))
    assert messages[0]["role"] == "user" and question in messages[0]["parts"][0]["content"]
    assert "You are a test." in str(attributes["gen_ai.system_instructions"])
    output = json.loads(str(attributes["gen_ai.output.messages"]))
    assert output[0]["role"] == "assistant" and output[0]["parts"][0]["content"] == answer


@then("no chat span attribute holds the API key")
def no_key(traced: Traced) -> None:
    assert FIXTURE_API_KEY not in _attribute_text(traced)


@then(parsers.parse('the chat span has {count:d} "{event}" event with HTTP status {status:d} and verity.retries {retries:d}'))
def retry_event(traced: Traced, count: int, event: str, status: int, retries: int) -> None:
    [span] = traced.chat_spans()
    events = [e for e in span.events if e.name == event]
    assert len(events) == count and all((e.attributes or {})["http.response.status_code"] == status for e in events)
    assert (span.attributes or {})["verity.retries"] == retries and span.status.status_code is not StatusCode.ERROR


@then(parsers.parse("the retry was reported as attempt {attempt:d} of {of:d} after HTTP {status:d}"))
def retry_reported(traced: Traced, gemini: GeminiServer, attempt: int, of: int, status: int) -> None:
    [retry] = traced.retries
    assert (retry.attempt, retry.max_attempts, retry.status) == (attempt, of, status)
    assert retry.waited_ms >= 0 and len(gemini.requests) == attempt
    assert f"HTTP {status}" in retry.describe()


@then(parsers.parse('the chat span has status ERROR with error.type "{code}"'))
def chat_error(traced: Traced, code: str) -> None:
    [span] = traced.chat_spans()
    assert span.status.status_code is StatusCode.ERROR and (span.attributes or {})["error.type"] == code


@then("the Gemini server got the request")
def got_request(traced: Traced, gemini: GeminiServer) -> None:
    assert traced.deltas == ["ok"] and len(gemini.requests) == 1


@then("the Gemini server got the request and the other one none")
def got_request_not_other(traced: Traced, gemini: GeminiServer, other_gemini: GeminiServer) -> None:
    assert traced.deltas == ["ok"] and len(gemini.requests) == 1 and not other_gemini.requests
