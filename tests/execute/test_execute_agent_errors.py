"""Binds features/execute_agent_errors.feature: an agent step with no Gemini API key, and one whose
model answers with an error, on the shared Chromium with the scripted Gemini server on loopback."""

from __future__ import annotations

import pytest
from pytest_bdd import given, parsers, scenarios, then

from runtime.events import StepStarted, StructuredOutput, ToolUsed
from tests.execute.agent_run_steps import *  # noqa: F403 - the scripted model and the run steps
from tests.execute.conftest import ExecRunner

scenarios("execute_agent_errors.feature")


@given("the environment holds no Gemini API key")
def no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)


@then(parsers.parse('the verdict says to set "{first}" or "{second}"'))
def says_set_key(runner: ExecRunner, first: str, second: str) -> None:
    summary = runner.last.verdict.summary
    assert first in summary and second in summary and "find" in summary, summary


@then(parsers.parse('no state ran after "{state_id}"'))
def nothing_after(runner: ExecRunner, state_id: str) -> None:
    assert [s.state_id for s in runner.last.payloads(StepStarted)] == [state_id]
    assert not runner.last.payloads(ToolUsed)


@then(parsers.parse('the agent step "{state_id}" failed with the model error "{code}"'))
def model_error(runner: ExecRunner, state_id: str, code: str) -> None:
    [agent] = [s for s in runner.last.steps(state_id) if s.step_kind == "agent"]
    assert (agent.outcome, agent.error) == ("error", code)
    [record] = [r for r in runner.last.file("executions.json") if r["state_id"] == state_id]
    assert record["evidence"]["llm_error"]["code"] == code and record["evidence"]["llm_error"]["status"] == 503
    assert runner.last.verdict.evidence["llm_error"]["code"] == code


@then(parsers.parse('a structured error output reported "{code}"'))
def structured_error(runner: ExecRunner, code: str) -> None:
    [output] = runner.last.payloads(StructuredOutput)
    assert output.valid is False and output.data["status"] == "error" and output.data["error"]["code"] == code
