"""Fixtures and the steps both gate feature files share."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_bdd import given, parsers, then, when


from gate_sample_project import (
    ADDING_FEATURE,
    CONTRACT_DEMO_001,
    PYTEST_INI,
    CommandResult,
    SampleProject,
    matrix_contract,
    run_verity,
    run_verity_in_process,
)


@pytest.fixture
def sample_project(tmp_path: Path) -> SampleProject:
    project = SampleProject(tmp_path / "project")
    project.write("pytest.ini", PYTEST_INI)
    project.write("contracts/demo.yaml", "contracts:\n" + CONTRACT_DEMO_001)
    project.write("features/demo_adding.feature", ADDING_FEATURE)
    project.write_adding_test()
    return project


# --- shared steps -------------------------------------------------------------------------------


@given("a sample project whose contract DEMO-001 is proven by a bound scenario", target_fixture="project")
def _sample(sample_project: SampleProject) -> SampleProject:
    return sample_project


@given(parsers.parse('the sample project also declares contract "{contract_id}" with no scenario'))
def _extra_contract(project: SampleProject, contract_id: str) -> None:
    extra = CONTRACT_DEMO_001.replace("DEMO-001", contract_id).replace("Adding two numbers", "Nothing")
    project.write("contracts/demo.yaml", project.read("contracts/demo.yaml") + extra)


@given(parsers.parse('the sample project\'s scenario is also tagged "{tag}"'))
def _extra_tag(project: SampleProject, tag: str) -> None:
    feature = project.read("features/demo_adding.feature")
    project.write("features/demo_adding.feature", feature.replace("  @DEMO-001\n", f"  @DEMO-001 {tag}\n"))


@given(parsers.parse('the sample project has a feature "{relative}" that no test binds'))
def _unbound_feature(project: SampleProject, relative: str) -> None:
    project.write(
        relative,
        "Feature: Subtracting numbers\n\n  @DEMO-001\n  Scenario: Subtracting\n    Given the number 5\n",
    )


@given(parsers.parse('the sample project\'s scenario ends with the step "{step}"'))
def _extra_step(project: SampleProject, step: str) -> None:
    project.write("features/demo_adding.feature", project.read("features/demo_adding.feature") + f"    {step}\n")


@given(
    parsers.parse('the sample project has a test module "{relative}" binding the missing scenario "{name}"')
)
def _module_binding_missing_scenario(project: SampleProject, relative: str, name: str) -> None:
    project.write(
        relative,
        "from pytest_bdd import scenario\n\n\n"
        f'@scenario("demo_adding.feature", "{name}")\n'
        "def test_missing() -> None:\n"
        "    pass\n",
    )


@when(parsers.parse('I run "{command_line}" on the sample project'), target_fixture="result")
def _run(project: SampleProject, command_line: str, capfd: pytest.CaptureFixture[str]) -> CommandResult:
    return run_verity_in_process(command_line, project.root, capfd)


@when(parsers.parse('I run the program "{command_line}" on the sample project'), target_fixture="result")
def _run_program(project: SampleProject, command_line: str) -> CommandResult:
    return run_verity(command_line, cwd=project.root)


@then("the command succeeds")
def _succeeds(result: CommandResult) -> None:
    assert result.exit_code == 0, result.explain()


@then("the command fails")
def _fails(result: CommandResult) -> None:
    assert result.exit_code == 1, result.explain()


@then(parsers.parse("the command exits with status {status:d}"))
def _exits_with(result: CommandResult, status: int) -> None:
    assert result.exit_code == status, result.explain()


@then(parsers.parse('the output says "{text}"'))
def _output_says(result: CommandResult, text: str) -> None:
    assert text in result.output, result.explain()


@then(parsers.parse('the output does not say "{text}"'))
def _output_does_not_say(result: CommandResult, text: str) -> None:
    assert text not in result.output, result.explain()


@then(parsers.parse('stderr says "{text}"'))
def _stderr_says(result: CommandResult, text: str) -> None:
    assert text in result.stderr, result.explain()


@then("verity printed no traceback")
def _no_traceback(result: CommandResult) -> None:
    assert "Traceback (most recent call last)" not in result.stderr, result.explain()


@then(parsers.parse('the output reports "{kind}" at "{needle}" in "{relative}"'))
def _reports_at(project: SampleProject, result: CommandResult, kind: str, needle: str, relative: str) -> None:
    line, column = project.position(relative, needle)
    expected = f"{relative}:{line}:{column}: {kind}: "
    assert any(row.startswith(expected) for row in result.stdout.splitlines()), f"expected {expected!r}\n" + (
        result.explain()
    )


@then(parsers.parse("the JSON matrix \"{relative}\" records {contract_id} as \"{outcome}\" with test outcome \"{test_outcome}\""))
def _json_matrix_records(
    project: SampleProject, relative: str, contract_id: str, outcome: str, test_outcome: str
) -> None:
    contract = matrix_contract(project, relative, contract_id)
    assert contract["result"] == outcome, contract
    test_outcomes = [test["outcome"] for scenario in contract["scenarios"] for test in scenario["tests"]]
    assert test_outcomes == [test_outcome], contract

