"""Binds features/execute_verification.feature: verify, Observe-Act-Verify, limits, output schema."""

from __future__ import annotations

from pytest_bdd import parsers, scenarios, then, when

from runtime.demo import DemoSite
from runtime.events import StepFinished, StructuredOutput
from tests.execute.conftest import ExecRunner
from tests.fixtures.site_server import FixtureSite

scenarios("execute_verification.feature")


@when(parsers.parse('I run "{name}" against the quote site'))
def run_on_quote_site(runner: ExecRunner, demo_site: DemoSite, name: str) -> None:
    runner.run(name, {"site": demo_site.quote_base})


@when(parsers.parse('I run "{name}" against the fixture site'))
def run_on_fixture_site(runner: ExecRunner, fixture_site: FixtureSite, name: str) -> None:
    runner.run(name, {"site": fixture_site.base_url})


@then(parsers.parse('the verify step recorded "{good}" passed and "{bad}" failed as evidence'))
def verify_evidence(runner: ExecRunner, good: str, bad: str) -> None:
    executions = runner.last.file("executions.json")
    check = next(e for e in executions if e["state_id"] == "check")
    results = {c["check"]: c for c in check["evidence"]["conditions"]}
    assert results[good]["passed"] is True
    assert results[bad]["passed"] is False and results[bad]["expected"] == "Final settlement price"
    assert "Gold spot quote" in results[bad]["observed"]
    assert runner.last.steps("check")[0].outcome == "failed"


@then(parsers.parse('the step "{state_id}" ended "{outcome}" because the page did not change'))
def ended_unchanged(runner: ExecRunner, state_id: str, outcome: str) -> None:
    step = runner.last.steps(state_id)[0]
    assert step.outcome == outcome and step.ok is False and step.verified is False
    assert "no change the act caused" in step.observation_summary


@then(parsers.parse('the step "{state_id}" is recorded as recovered on its way to "{next_step}"'))
def recovered(runner: ExecRunner, state_id: str, next_step: str) -> None:
    record = next(e for e in runner.last.file("executions.json") if e["state_id"] == state_id)
    assert record["recovered"] == {"reason": "unverified", "next": next_step}
    assert f"recovered: on_failure goes on to {next_step}" in runner.last.steps(state_id)[0].observation_summary


@then(parsers.parse('the step "{state_id}" ended "{outcome}"'))
def step_ended(runner: ExecRunner, state_id: str, outcome: str) -> None:
    step = runner.last.steps(state_id)[-1]
    assert step.outcome == outcome, step.observation_summary
    assert step.verified is (outcome == "verified")


@then(parsers.parse('the output field "{name}" is {value:d}'))
def output_field(runner: ExecRunner, name: str, value: int) -> None:
    assert runner.last.file("output.json")["data"][name] == value


@then(parsers.parse('the step "{state_id}" ran {count:d} times before the stop'))
def ran_times(runner: ExecRunner, state_id: str, count: int) -> None:
    steps = runner.last.steps(state_id)
    assert len(steps) == count
    assert [s.outcome for s in steps] == ["unverified"] * (count - 1) + ["stopped"]
    assert "repeated one signature" in runner.last.verdict.summary


@then(parsers.parse("exactly {count:d} states were executed"))
def executed_states(runner: ExecRunner, count: int) -> None:
    assert len(runner.last.payloads(StepFinished)) == count
    assert runner.last.file("verdict.json")["executed_states"] == count


@then(parsers.parse('the structured output is marked invalid with errors for "{first}" and "{second}"'))
def output_invalid(runner: ExecRunner, first: str, second: str) -> None:
    output = runner.last.payloads(StructuredOutput)[-1]
    assert output.valid is False
    assert any(e.startswith(f"{first}:") for e in output.errors) and any(e.startswith(f"{second}:") for e in output.errors)
    assert runner.last.file("output.json")["valid"] is False
