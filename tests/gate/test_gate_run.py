"""Binds features/gate_run.feature: `verity bdd gate` on throwaway projects."""

from __future__ import annotations

import json
from collections.abc import Callable

from pytest_bdd import given, parsers, scenarios, then

from gate_sample_project import CommandResult, SampleProject, matrix_contract

scenarios("gate_run.feature")

XFAIL_PRELUDE = 'pytestmark = pytest.mark.xfail(reason="known bug")'
SKIP_PRELUDE = 'pytestmark = pytest.mark.skip(reason="parked")'
BROKEN_FIXTURE_PRELUDE = """
@pytest.fixture(autouse=True)
def database() -> None:
    raise ConnectionError("the database is down")
"""


def _expect_six(project: SampleProject) -> None:
    feature = project.read("features/demo_adding.feature")
    project.write("features/demo_adding.feature", feature.replace("the total is 5", "the total is 6"))


def _expected_fail(project: SampleProject) -> None:
    project.write_adding_test(XFAIL_PRELUDE)
    _expect_six(project)


# Each way of keeping the scenario's single test from passing, as a change to the sample project.
SABOTAGE: dict[str, Callable[[SampleProject], None]] = {
    "failing": _expect_six,
    "skipped": lambda project: project.write_adding_test(SKIP_PRELUDE),
    "marked as an expected fail": _expected_fail,
    "broken in its fixture setup": lambda project: project.write_adding_test(BROKEN_FIXTURE_PRELUDE),
    "deselected by pytest options": lambda project: None,  # the `--` arguments of the When step do it
}


@given(parsers.parse("the sample project's scenario test is {sabotage}"))
def _sabotage(project: SampleProject, sabotage: str) -> None:
    SABOTAGE[sabotage](project)


@given(parsers.parse('the sample project has a plain test "{relative}" that fails'))
def _plain_failing_test(project: SampleProject, relative: str) -> None:
    project.write(relative, "def test_broken_arithmetic() -> None:\n    assert 1 + 1 == 3\n")


@given("the sample project has no tests")
def _no_tests(project: SampleProject) -> None:
    (project.root / "tests" / "test_adding.py").unlink()


@then("the sample project's steps ran")
def _steps_ran(project: SampleProject) -> None:
    assert project.steps_ran


@then(parsers.parse("the output shows pytest's closing summary \"{summary}\""))
def _closing_summary(result: CommandResult, summary: str) -> None:
    summary_lines = [line for line in result.stdout.splitlines() if line.startswith("=") and " in " in line]
    assert summary_lines and summary in summary_lines[-1], result.explain()


@then(parsers.parse("stderr shows pytest's closing summary \"{summary}\""))
def _closing_summary_on_stderr(result: CommandResult, summary: str) -> None:
    summary_lines = [line for line in result.stderr.splitlines() if line.startswith("=") and " in " in line]
    assert summary_lines and summary in summary_lines[-1], result.explain()


@then(
    parsers.parse(
        'the Markdown matrix "{relative}" has a row for {contract_id} with test "{node_id}" and result "{outcome}"'
    )
)
def _markdown_row(project: SampleProject, relative: str, contract_id: str, node_id: str, outcome: str) -> None:
    rows = [line for line in project.read(relative).splitlines() if line.startswith(f"| {contract_id} |")]
    assert len(rows) == 1, project.read(relative)
    cells = [cell.strip() for cell in rows[0].strip("|").split(" | ")]
    assert cells[0] == contract_id
    assert cells[1] == "demo"
    assert cells[2] == "Adding two numbers gives their sum."
    assert "Adding two numbers (features/demo_adding.feature:4)" in cells[3]
    assert f"`{node_id}`: {outcome}" in cells[4]
    assert cells[5] == outcome


@then(parsers.parse('the JSON matrix "{relative}" records {contract_id} as "{outcome}" with no test'))
def _json_matrix_no_test(project: SampleProject, relative: str, contract_id: str, outcome: str) -> None:
    contract = matrix_contract(project, relative, contract_id)
    assert contract["result"] == outcome
    assert contract["scenarios"] == []


@then(parsers.parse('stdout is a JSON verdict "{verdict}" with {contract_id} "{outcome}"'))
def _json_verdict(result: CommandResult, verdict: str, contract_id: str, outcome: str) -> None:
    document = json.loads(result.stdout)
    assert document["verdict"] == verdict, result.explain()
    assert {contract["id"]: contract["result"] for contract in document["contracts"]} == {contract_id: outcome}
