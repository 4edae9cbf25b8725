"""Binds features/execute_agent_guards.feature: the guardrails and limits every tool call of an
agent step's model passes (tool policy, approvals, a manual stop, progress, turns and the run's
max_steps), on the shared Chromium with the scripted Gemini server on loopback."""

from __future__ import annotations

import re

from pytest_bdd import parsers, scenarios, then, when

from runtime.demo import DemoSite
from runtime.events import ConfirmationRequested, GuardrailTripped, StatusChanged, ToolUsed
from runtime.outcomes import TaskState
from tests.execute.agent_run_steps import *  # noqa: F403 - the scripted model and the run steps
from tests.execute.conftest import ExecRunner, wait_until
from tests.fixtures.gemini_server import GeminiServer
from tests.fixtures.site_server import FixtureSite

scenarios("execute_agent_guards.feature")


@when(parsers.parse('I run "{name}" against the fixture site'))
def run_on_fixture(runner: ExecRunner, fixture_site: FixtureSite, gemini: GeminiServer, name: str) -> None:
    runner.run(name, {"site": fixture_site.base_url})
    assert not gemini.script_failures, gemini.script_failures


@when(parsers.parse('I start "{name}" against the demo site'))
def start_on_demo(runner: ExecRunner, demo_site: DemoSite, name: str) -> None:
    runner.start(name, {"site": demo_site.quote_base, "search_site": demo_site.search_base})


@when(parsers.parse('I deny the pending request because "{reason}"'))
def deny(runner: ExecRunner, reason: str) -> None:
    record = runner.last
    request = runner.call(record.handle.pending_confirmations)[0]
    assert runner.call(record.handle.confirm, request.request_id, False, reason) is True
    runner.wait(record)
    assert reason in record.verdict.summary


@then(parsers.parse('the guardrail "{guard}" tripped for the model\'s "{tool}"'))
def guard_tripped(runner: ExecRunner, guard: str, tool: str) -> None:
    record = runner.last
    [trip] = [t for t in record.payloads(GuardrailTripped) if t.guard == guard]
    assert trip.evidence["tool"] == tool
    assert [(u.tool, u.phase) for u in record.payloads(ToolUsed) if u.tool == tool] == [(tool, "blocked")]
    assert tool in record.verdict.summary


@then(parsers.parse('the run waits for confirmation of the model\'s "{tool}"'))
def waits_for_confirmation(runner: ExecRunner, tool: str) -> None:
    record = runner.last
    assert wait_until(lambda: bool(runner.call(record.handle.pending_confirmations)))
    [pending] = runner.call(record.handle.pending_confirmations)
    assert pending.tool == tool and re.fullmatch(r"s\d+:e\d+", pending.params["target"]["ref"])
    assert record.payloads(ConfirmationRequested)[0].request_id == pending.request_id
    assert record.payloads(StatusChanged)[-1].status is TaskState.WAITING_FOR_USER_CONFIRMATION
    assert not [u for u in record.payloads(ToolUsed) if u.tool == "act"], "the click must wait for the answer"


@then(parsers.parse("the verdict says the model used all {turns:d} turns"))
def used_all_turns(runner: ExecRunner, turns: int) -> None:
    assert f"used all {turns} turns" in runner.last.verdict.summary


@when("the model is answering")
def model_answering(runner: ExecRunner, gemini: GeminiServer) -> None:
    assert wait_until(lambda: len(gemini.requests) == 1)


@then(parsers.parse('the agent step "{state_id}" ended "{outcome}"'))
def agent_ended(runner: ExecRunner, state_id: str, outcome: str) -> None:
    [agent] = [s for s in runner.last.steps(state_id) if s.step_kind == "agent"]
    assert agent.outcome == outcome
    assert runner.last.file("verdict.json")["stop_reason"] == "manual_stop"


@then(parsers.parse('the verdict says the run used {steps:d} steps, "{calls}"'))
def run_budget(runner: ExecRunner, steps: int, calls: str) -> None:
    summary = runner.last.verdict.summary
    assert f"the run used {steps} steps" in summary and calls in summary, summary


@then(parsers.parse("the model's clicks reached the page {count:d} time"))
def clicks_reached(runner: ExecRunner, count: int) -> None:
    assert len([u for u in runner.last.payloads(ToolUsed) if u.tool == "act" and u.phase == "success"]) == count


@then(parsers.parse('every request went to the step\'s model "{model}"'))
def step_model(gemini: GeminiServer, model: str) -> None:
    assert [r.model for r in gemini.requests] == [model, model]
