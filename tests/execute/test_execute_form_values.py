"""Binds features/execute_form_values.feature: form values read as a person sees them, a multiple
select's additions and removals, an option's selected/checked state and `not` in an act's
expectation, in real Chromium on a loopback page (tests/fixtures/site/forms.html); and the
loader's verdict on readings and select modes that contradict themselves."""

from __future__ import annotations

from pathlib import Path

from pytest_bdd import parsers, scenarios, then, when

from tests.execute.conftest import ExecRunner
from tests.execute.recipe_problem_steps import *  # noqa: F403 - the recipe-problem steps
from tests.fixtures.site_server import FixtureSite

scenarios("execute_form_values.feature")

RECIPES = Path(__file__).resolve().parents[1] / "fixtures" / "recipes"


def records(runner: ExecRunner, state_id: str) -> list[dict]:
    return [e for e in runner.last.file("executions.json") if e["state_id"] == state_id]


def read_fields(runner: ExecRunner) -> dict:
    [record] = records(runner, "read")
    return record["evidence"]["fields"]


@when(parsers.parse('I run "{name}" against the fixture site'))
def run_on_fixture_site(runner: ExecRunner, fixture_site: FixtureSite, name: str) -> None:
    runner.wait(runner.start(name, {"site": fixture_site.base_url}), timeout=120)


@then(parsers.parse('the close summary says "{text}"'))
def close_says(runner: ExecRunner, text: str) -> None:
    assert runner.last.verdict.summary.startswith(text), runner.last.verdict.summary


@then(parsers.parse('the extracted fields are "{listed}"'))
def extracted_fields(runner: ExecRunner, listed: str) -> None:
    fields = read_fields(runner)
    # "a=x, b=y, z" -> a: "x", b: "y, z" (a value may itself hold ", ").
    expected: dict[str, str] = {}
    for part in listed.split(", "):
        if "=" in part:
            name, _, value = part.partition("=")
            expected[name] = value
        else:
            expected[name] += ", " + part
    assert {name: fields[name]["value"] for name in expected} == expected, fields


@then(parsers.parse('the extracted field "{name}" is exactly "{text}"'))
def extracted_exactly(runner: ExecRunner, name: str, text: str) -> None:
    field = read_fields(runner)[name]
    assert field["value"] == text and field["raw"] == text, field


@then(parsers.parse('the extracted field "{name}" was missing'))
def extracted_missing(runner: ExecRunner, name: str) -> None:
    field = read_fields(runner)[name]
    assert field["value"] is None and field["raw"] is None and field["error"] == "not found on the page", field


@then(parsers.parse('the acts "{state_ids}" were each verified'))
def acts_verified(runner: ExecRunner, state_ids: str) -> None:
    for state_id in state_ids.split(", "):
        [record] = records(runner, state_id)
        assert record["outcome"] == "verified", record
        assert record["evidence"]["checks"] and all(check["passed"] for check in record["evidence"]["checks"]), record["evidence"]


@then(parsers.parse('the select "{first}" left "{first_chosen}" chosen and "{second}" left "{second_chosen}" chosen'))
def chosen_after(runner: ExecRunner, first: str, first_chosen: str, second: str, second_chosen: str) -> None:
    for state_id, chosen in ((first, first_chosen), (second, second_chosen)):
        [record] = records(runner, state_id)
        assert record["evidence"]["chosen"] == chosen.split(", "), record["evidence"]


@then(parsers.parse('the act "{state_id}" failed the check "{written}"'))
def act_failed_check(runner: ExecRunner, state_id: str, written: str) -> None:
    attempts = records(runner, state_id)
    assert attempts, "the act never ran"
    for record in attempts:
        assert record["outcome"] == "unverified", record
        [check] = record["evidence"]["checks"]
        assert check["written"] == written and check["passed"] is False, check
        # The inner condition held: the option is still chosen.
        assert check["observed"] is True, check


@then(parsers.parse('the state "{state_id}" failed with "{code}"'))
def failed_with(runner: ExecRunner, state_id: str, code: str) -> None:
    [record] = records(runner, state_id)
    assert record["outcome"] == "error" and record["error"] == code, record
    assert runner.last.verdict.status.value != "completed"
