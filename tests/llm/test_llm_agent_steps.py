"""Binds features/llm_agent_steps.feature: agent steps on the shared Chromium, the real
google-genai client against the scripted Gemini server, spans in an in-memory exporter."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.browser import Browser
from runtime.demo import DemoSite
from runtime.events import StepFinished, ToolUsed
from runtime.execute import BrowserProvider
from tests.execute.conftest import ExecRunner
from tests.fixtures.browser_loop import LoopThread
from tests.fixtures.gemini_fixtures import FIXTURE_API_KEY
from tests.fixtures.gemini_server import GeminiServer, RecordedRequest, error_reply, function_call_reply
from tests.fixtures.site_server import FixtureSite

scenarios("llm_agent_steps.feature")


@pytest.fixture(scope="module")
def demo_site() -> Iterator[DemoSite]:
    with DemoSite() as served:
        yield served


@pytest.fixture
def runner(loop_thread: LoopThread, shared_browser: Browser, tmp_path: Path) -> ExecRunner:
    return ExecRunner(loop_thread, BrowserProvider(browser=shared_browser), tmp_path / "runs")


@pytest.fixture
def spans() -> InMemorySpanExporter:
    return InMemorySpanExporter()


@given(parsers.parse("a Gemini server on loopback that allows {attempts:d} attempts per model call"))
def gemini_attempts(gemini: GeminiServer, monkeypatch: pytest.MonkeyPatch, attempts: int) -> None:
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    for name, value in gemini.env(api_key=FIXTURE_API_KEY, max_attempts=attempts).items():
        monkeypatch.setenv(name, value)


@given("the model will first be rate limited")
def rate_limited(gemini: GeminiServer) -> None:
    gemini.enqueue(error_reply(429, "Resource has been exhausted", "RESOURCE_EXHAUSTED"))


@given(parsers.parse('the model will then look, click the "{name}" result by its ref and close'))
def look_click_close(gemini: GeminiServer, name: str) -> None:
    def click(request: RecordedRequest) -> Any:
        refs = re.findall(r"link \"" + re.escape(name) + r"[^\n]*?\[ref=(s\d+:(?:f\d+)?e\d+)\]", request.system_instruction)
        assert refs, "no such link in the prompt"
        return function_call_reply("browser_click", {"target": {"ref": refs[-1]}})

    gemini.enqueue(function_call_reply("browser_snapshot", {}), click, function_call_reply("close", {"summary": "opened the quote"}))


@given(parsers.parse('the model will type "{text}" into "{css}", submit, read "{result}" as "{field}" and close'))
def type_read_close(gemini: GeminiServer, text: str, css: str, result: str, field: str) -> None:
    gemini.enqueue(
        function_call_reply("browser_type", {"target": {"css": css}, "text": text, "submit": True}),
        function_call_reply("browser_extract", {"fields": [{"name": field, "target": {"css": result}}]}),
        function_call_reply("close", {"summary": f"typed {field}"}),
    )


@when(parsers.parse('I run "{name}" against the demo site with its spans recorded'))
def run_demo(runner: ExecRunner, demo_site: DemoSite, spans: InMemorySpanExporter, gemini: GeminiServer, name: str) -> None:
    provider = TracerProvider(shutdown_on_exit=False)
    provider.add_span_processor(SimpleSpanProcessor(spans))
    runner.run(name, {"site": demo_site.quote_base, "search_site": demo_site.search_base}, tracer_provider=provider)
    assert not gemini.script_failures, gemini.script_failures


@when(parsers.parse('I run "{name}" against the fixture site with its spans recorded'))
def run_fixture(runner: ExecRunner, site: FixtureSite, spans: InMemorySpanExporter, gemini: GeminiServer, name: str) -> None:
    provider = TracerProvider(shutdown_on_exit=False)
    provider.add_span_processor(SimpleSpanProcessor(spans))
    runner.run(name, {"site": site.base_url}, tracer_provider=provider)
    assert not gemini.script_failures, gemini.script_failures


@then(parsers.parse('the run ends "{status}" with stop reason "{reason}"'))
def run_ends(runner: ExecRunner, status: str, reason: str) -> None:
    verdict = runner.last.verdict
    assert (verdict.status.value, verdict.stop_reason.value) == (status, reason), verdict.summary


@then(parsers.parse('one tool_used event of phase "{phase}" for "{tool}" reported "{code}"'))
def retry_event(runner: ExecRunner, phase: str, tool: str, code: str) -> None:
    [retry] = [t for t in runner.last.payloads(ToolUsed) if t.phase == phase]
    assert (retry.tool, retry.error_code) == (tool, code) and "HTTP 429" in retry.summary and "attempt 2 of 4" in retry.summary


@then(parsers.parse('the first chat span has a "{event}" event with HTTP status {status:d}'))
def chat_retry(spans: InMemorySpanExporter, event: str, status: int) -> None:
    chats = sorted((s for s in spans.get_finished_spans() if s.name.startswith("chat ")), key=lambda s: s.start_time or 0)
    assert [(e.name, (e.attributes or {})["http.response.status_code"]) for e in chats[0].events] == [(event, status)]
    assert all(not c.events for c in chats[1:])


@then(parsers.parse("the run's root span counts {count:d} retry"))
def root_retries(spans: InMemorySpanExporter, count: int) -> None:
    [root] = [s for s in spans.get_finished_spans() if s.name.startswith("invoke_agent ")]
    assert (root.attributes or {})["verity.retries"] == count


@then(parsers.parse('the model\'s opening prompt says "{task}" and "{check}" with no "{placeholder}"'))
def opening_prompt(gemini: GeminiServer, task: str, check: str, placeholder: str) -> None:
    opening = gemini.requests[0].body["contents"][0]["parts"][0]["text"]
    assert task in opening and check in opening and placeholder not in opening, opening
    assert "is visible" not in opening


@then(parsers.parse('the output holds {field} "{value}"'))
def output_holds(runner: ExecRunner, field: str, value: str) -> None:
    assert runner.last.file("output.json")["data"][field].startswith(value)


@then(parsers.parse('the step "{state_id}" that reads "{reference}" verified'))
def later_step(runner: ExecRunner, state_id: str, reference: str) -> None:
    [check] = [s for s in runner.last.payloads(StepFinished) if s.state_id == state_id]
    assert check.ok and check.verified, check
