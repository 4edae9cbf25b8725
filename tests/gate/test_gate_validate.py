"""Binds features/gate_validate.feature: `verity bdd validate` on throwaway projects."""

from __future__ import annotations

import json

from pytest_bdd import given, parsers, scenarios, then

from gate_sample_project import CommandResult, SampleProject

scenarios("gate_validate.feature")

OUTLINE = """
  Scenario Outline: Adding one to a written number
    Given the number <start>
    When I add 1
    Then the total is <total>

    Examples:
      | start | total |
      | 1     | 2     |
      | one   | 2     |
"""


@given("the sample project has an outline whose second row reads \"one\" where a number is expected")
def _outline(project: SampleProject) -> None:
    project.write("features/demo_adding.feature", project.read("features/demo_adding.feature") + OUTLINE)


@given("the sample project's contract file reads:")
def _contract_file(project: SampleProject, docstring: str) -> None:
    project.write("contracts/demo.yaml", docstring + "\n")


@then("none of the sample project's steps ran")
def _no_steps_ran(project: SampleProject) -> None:
    assert not project.steps_ran


@then(parsers.parse('the output reports these problems in "{relative}":'))
def _reports_exactly(result: CommandResult, relative: str, datatable: list[list[str]]) -> None:
    expected = sorted(f"{relative}:{position}: {kind}" for kind, position in datatable[1:])
    reported = sorted(
        ": ".join(row.split(": ")[:2]) for row in result.stdout.splitlines() if row.startswith(f"{relative}:")
    )
    assert reported == expected, result.explain()


@then(parsers.parse('the output reports "{kind}" at "{needle}" in "{relative}" without a column'))
def _reports_at_line(project: SampleProject, result: CommandResult, kind: str, needle: str, relative: str) -> None:
    line, _column = project.position(relative, needle)
    expected = f"{relative}:{line}: {kind}: "
    assert any(row.startswith(expected) for row in result.stdout.splitlines()), result.explain()


@then(parsers.parse('the output names the missing scenario "{name}"'))
def _names_missing_scenario(result: CommandResult, name: str) -> None:
    assert f'Scenario "{name}" in feature "Adding numbers"' in result.stdout, result.explain()


@then("the JSON report lists exactly these problem kinds:")
def _json_kinds(result: CommandResult, datatable: list[list[str]]) -> None:
    report = json.loads(result.stdout)
    assert report["ok"] is False
    assert sorted({problem["kind"] for problem in report["problems"]}) == sorted(row[0] for row in datatable[1:])
    for problem in report["problems"]:
        assert problem["path"] and problem["line"] > 0, problem
