"""Binds features/execute_control.feature: approvals, manual stop, browser crash, tool policy."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.browser import launch_browser
from runtime.demo import DemoSite
from runtime.events import ConfirmationRequested, GuardrailTripped, StatusChanged, ToolUsed
from runtime.execute import BrowserProvider
from runtime.outcomes import TaskState
from tests.fixtures.browser_loop import LoopThread
from tests.execute.conftest import ExecRunner, wait_until
from tests.fixtures.gemini_server import GeminiServer, text_reply
from tests.fixtures.site_server import FixtureSite

scenarios("execute_control.feature")


@pytest.fixture
def own_browser(loop_thread: LoopThread) -> Iterator[BrowserProvider]:
    browser = loop_thread.run(launch_browser())
    yield BrowserProvider(browser=browser)
    loop_thread.run(browser.close())


@when(parsers.parse('I start "{name}" against the quote site'))
def start_on_quote_site(runner: ExecRunner, demo_site: DemoSite, name: str) -> None:
    runner.start(name, {"site": demo_site.quote_base})


@when(parsers.parse('I run "{name}" against the quote site'))
def run_on_quote_site(runner: ExecRunner, demo_site: DemoSite, name: str) -> None:
    runner.run(name, {"site": demo_site.quote_base})


@pytest.fixture
def hangs_before() -> dict[str, int]:
    """How many requests had reached the fixture site's /hang when the run started."""
    return {}


@when(parsers.parse('I start "{name}" against the fixture site'))
def start_on_fixture_site(runner: ExecRunner, fixture_site: FixtureSite, hangs_before: dict[str, int], name: str) -> None:
    hangs_before["count"] = fixture_site.hanging.count
    runner.start(name, {"site": fixture_site.base_url})


@when(parsers.parse('I start "{name}" on a browser of its own'))
def start_on_own_browser(runner: ExecRunner, fixture_site: FixtureSite, own_browser: BrowserProvider, hangs_before: dict[str, int], name: str) -> None:
    hangs_before["count"] = fixture_site.hanging.count
    runner.start(name, {"site": fixture_site.base_url}, provider=own_browser)


@then(parsers.parse('the run waits for confirmation of "{tool}"'))
def waits_for_confirmation(runner: ExecRunner, tool: str) -> None:
    record = runner.last
    assert wait_until(lambda: bool(runner.call(record.handle.pending_confirmations)))
    pending = runner.call(record.handle.pending_confirmations)
    assert len(pending) == 1 and pending[0].tool == tool
    assert record.payloads(ConfirmationRequested)[0].request_id == pending[0].request_id
    statuses = [s.status for s in record.payloads(StatusChanged)]
    assert statuses[-1] is TaskState.WAITING_FOR_USER_CONFIRMATION
    assert not [t for t in record.payloads(ToolUsed) if t.tool == "open_url"], "nothing may run before the answer"


@then("answering an unknown request is refused")
def unknown_request(runner: ExecRunner) -> None:
    assert runner.call(runner.last.handle.confirm, "no-such-request", True) is False


@when("I approve the pending request")
def approve(runner: ExecRunner) -> None:
    record = runner.last
    request = runner.call(record.handle.pending_confirmations)[0]
    assert runner.call(record.handle.confirm, request.request_id, True) is True
    runner.wait(record)


@when(parsers.parse('I deny the pending request because "{reason}"'))
def deny(runner: ExecRunner, reason: str) -> None:
    record = runner.last
    request = runner.call(record.handle.pending_confirmations)[0]
    assert runner.call(record.handle.confirm, request.request_id, False, reason) is True
    runner.wait(record)
    assert reason in record.verdict.summary


@then("the status went from waiting_for_user_confirmation back to running")
def status_sequence(runner: ExecRunner) -> None:
    statuses = [s.status.value for s in runner.last.payloads(StatusChanged)]
    assert statuses == ["created", "running", "waiting_for_user_confirmation", "running", "completed"]


@then("no page was opened")
def no_page_opened(runner: ExecRunner) -> None:
    assert not [t for t in runner.last.payloads(ToolUsed) if t.tool == "open_url" and t.phase != "blocked"]


@when("the run is loading the page")
def loading(runner: ExecRunner, fixture_site: FixtureSite, hangs_before: dict[str, int]) -> None:
    record = runner.last
    assert wait_until(lambda: any(t.tool == "open_url" and t.phase == "start" for t in record.payloads(ToolUsed)))
    # The navigation reached the hanging server: the page load is under way, not about to start.
    assert fixture_site.hanging.wait_beyond(hangs_before["count"], timeout=30)


@then("the run directory keeps the events, executions and verdict")
def run_dir_kept(runner: ExecRunner) -> None:
    record = runner.last
    executions = record.file("executions.json")
    assert executions[-1]["state_id"] == "open" and executions[-1]["outcome"] == "cancelled"
    assert record.file("verdict.json")["stop_reason"] == "manual_stop"
    assert record.event_lines()[-1]["payload"]["stop_reason"] == "manual_stop"


@when("the browser process is killed")
def kill_browser(runner: ExecRunner, own_browser: BrowserProvider) -> None:
    pid = own_browser.browser.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    runner.wait(runner.last, timeout=20)


@then(parsers.parse('the guardrail "{guard}" tripped for "{tool}"'))
def guardrail_tripped(runner: ExecRunner, guard: str, tool: str) -> None:
    trips = [t for t in runner.last.payloads(GuardrailTripped) if t.guard == guard]
    assert trips and trips[0].evidence["tool"] == tool
    blocked = [t for t in runner.last.payloads(ToolUsed) if t.phase == "blocked"]
    assert [t.tool for t in blocked] == [tool]
    assert tool in runner.last.verdict.summary


@then(parsers.parse('no "{action}" action ran'))
def no_action(runner: ExecRunner, action: str) -> None:
    assert not [t for t in runner.last.payloads(ToolUsed) if t.tool == action and t.phase == "start"]


@then(parsers.parse('the step "{state_id}" was blocked naming the available tools'))
def preflight_blocked(runner: ExecRunner, state_id: str) -> None:
    step = runner.last.steps(state_id)[0]
    assert step.outcome == "blocked" and "notes_write" in step.observation_summary


@given(parsers.parse('Gemini will classify the goal as "{label}"'))
def will_classify(gemini: GeminiServer, label: str) -> None:
    gemini.enqueue(text_reply(json.dumps({"label": label, "confidence": 0.9, "reason": "the quote is on a web page"})))


@then("Gemini was asked to classify the goal once")
def asked_once(gemini: GeminiServer) -> None:
    assert len(gemini.requests) == 1
    assert "read today's gold quote" in json.dumps(gemini.requests[0].body, ensure_ascii=False)
