"""Binds features/gate_run.feature: `verity bdd gate` on throwaway projects."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable

from pytest_bdd import given, parsers, scenarios, then

from gate_sample_project import CONTRACT_DEMO_001, CommandResult, SampleProject, matrix_contract

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


def _fail_first(project: SampleProject) -> None:
    # Collected before tests/test_adding.py, so `-x` stops the run before the scenario's test.
    project.write("tests/test_aa_first.py", "def test_fails_first() -> None:\n    assert 1 + 1 == 3\n")


# Each way of keeping the scenario's single test from passing, as a change to the sample project.
SABOTAGE: dict[str, Callable[[SampleProject], None]] = {
    "passing": lambda project: None,
    "failing": _expect_six,
    "skipped": lambda project: project.write_adding_test(SKIP_PRELUDE),
    "marked as an expected fail": _expected_fail,
    "broken in its fixture setup": lambda project: project.write_adding_test(BROKEN_FIXTURE_PRELUDE),
    "stopped before it ran by -x": _fail_first,  # with the `-- -x` of the When step
}

MULTIPLYING_FEATURE = """\
Feature: Multiplying numbers

  @{contract_id}
  Scenario: Multiplying two numbers
    Given the factor 2
    When I multiply by 3
    Then the product is 6
"""

MULTIPLYING_TEST = """\
from pytest_bdd import given, parsers, scenarios, then, when

scenarios("demo_multiplying.feature")


@given(parsers.parse("the factor {number:d}"), target_fixture="product")
def factor(number: int) -> int:
    return number


@when(parsers.parse("I multiply by {number:d}"), target_fixture="product")
def multiply(product: int, number: int) -> int:
    return product * number


@then(parsers.parse("the product is {expected:d}"))
def product_is(product: int, expected: int) -> None:
    assert product == expected
"""

WRITTEN_NUMBER_OUTLINE = """
  @DEMO-001
  Scenario Outline: Adding a written number
    Given the written number <word>
    When I add 3
    Then the total is <total>

    Examples:
      | word   | total |
      | {word} | 5     |
"""

WRITTEN_NUMBER_STEP = """
@given(parsers.parse("the written number {{word}}"), target_fixture="total")
def written_number(word: str) -> int:
    return {{"{word}": 2}}[word]
"""

PARKED_TEST = """\
import pytest


@pytest.mark.{mark}(reason="{reason}")
def test_plain() -> None:
    assert 1 + 1 == 3
"""


@given(parsers.parse("the sample project's scenario test is {sabotage}"))
def _sabotage(project: SampleProject, sabotage: str) -> None:
    SABOTAGE[sabotage](project)


@given(parsers.parse('the sample project also has contract "{contract_id}" of area "{area}" proven by a passing multiplying scenario'))
def _multiplying_contract(project: SampleProject, contract_id: str, area: str) -> None:
    contract = CONTRACT_DEMO_001.replace("DEMO-001", contract_id).replace("owner: demo", f"owner: {area}")
    project.write("contracts/demo.yaml", project.read("contracts/demo.yaml") + contract)
    project.write("features/demo_multiplying.feature", MULTIPLYING_FEATURE.format(contract_id=contract_id))
    project.write("tests/test_multiplying.py", MULTIPLYING_TEST)


@given(parsers.parse('the sample project also has an outline adding the written number "{word}"'))
def _written_number(project: SampleProject, word: str) -> None:
    feature = project.read("features/demo_adding.feature")
    project.write("features/demo_adding.feature", feature + WRITTEN_NUMBER_OUTLINE.format(word=word))
    project.write_adding_test(WRITTEN_NUMBER_STEP.format(word=word))


@given(parsers.parse('the sample project has a plain test "{relative}" that is skipped because "{reason}"'))
def _skipped_plain_test(project: SampleProject, relative: str, reason: str) -> None:
    project.write(relative, PARKED_TEST.format(mark="skip", reason=reason))


@given(parsers.parse('the sample project has a plain test "{relative}" that is expected to fail because "{reason}"'))
def _xfailed_plain_test(project: SampleProject, relative: str, reason: str) -> None:
    project.write(relative, PARKED_TEST.format(mark="xfail", reason=reason))


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
        'the Markdown matrix "{relative}" has a row for {contract_id} under area "{area}" with test "{node_id}" and '
        'result "{outcome}"'
    )
)
def _markdown_row(
    project: SampleProject, relative: str, contract_id: str, area: str, node_id: str, outcome: str
) -> None:
    markdown = project.read(relative)
    area_table = _section(markdown, f"### {area}")
    rows = [line for line in area_table if line.startswith(f"| {contract_id} |")]
    assert len(rows) == 1, markdown
    cells = [cell.strip() for cell in rows[0].strip("|").split(" | ")]
    assert cells[0] == contract_id
    assert cells[1] == "Adding two numbers gives their sum."
    assert "Adding two numbers (features/demo_adding.feature:4)" in cells[2]
    assert f"`{node_id}`: {outcome}" in cells[3]
    assert cells[4] == outcome


@then(parsers.parse('the Markdown matrix "{relative}" says "{text}"'))
def _markdown_says(project: SampleProject, relative: str, text: str) -> None:
    assert text in project.read(relative).splitlines(), project.read(relative)


@then(parsers.parse('the Markdown matrix "{relative}" summarises the areas before the contract tables:'))
def _area_summary(project: SampleProject, relative: str, datatable: list[list[str]]) -> None:
    markdown = project.read(relative)
    summary = _section(markdown, "## Summary by area")
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in summary if line.startswith("| ")]
    assert rows[0] == datatable[0], markdown
    assert rows[2:] == datatable[1:], markdown
    assert markdown.index("## Summary by area") < markdown.index("## Contracts by area"), markdown


@then(
    parsers.re(
        r'the Markdown matrix "(?P<relative>[^"]+)" lists under "(?P<heading>[^"]+)" the test "(?P<node_id>[^"]+)" '
        r'as "(?P<outcome>[^"]+)" with the message "(?P<message>[^"]*)"'
    )
)
def _markdown_lists_test(
    project: SampleProject, relative: str, heading: str, node_id: str, outcome: str, message: str
) -> None:
    markdown = project.read(relative)
    expected = f"- `{node_id}`: {outcome}" + (f" — `{message}`" if message else "")
    assert any(line.strip() == expected for line in _section(markdown, f"## {heading}")), markdown


@then(parsers.parse('the Markdown matrix "{relative}" shows the test "{node_id}"'))
def _markdown_shows_test(project: SampleProject, relative: str, node_id: str) -> None:
    assert f"`{node_id}`: passed" in project.read(relative), project.read(relative)


@then(parsers.parse('the Markdown matrix "{relative}" has no escape "{escape}"'))
def _markdown_has_no_escape(project: SampleProject, relative: str, escape: str) -> None:
    assert escape not in project.read(relative), project.read(relative)


@then(parsers.re(r'the JSON matrix "(?P<relative>[^"]+)" gives (?P<contract_id>\S+)\'s test the message "(?P<message>[^"]*)"'))
def _json_message(project: SampleProject, relative: str, contract_id: str, message: str) -> None:
    contract = matrix_contract(project, relative, contract_id)
    messages = [test["message"] for scenario in contract["scenarios"] for test in scenario["tests"]]
    assert messages == [message], contract


@then(parsers.re(r'the JSON matrix "(?P<relative>[^"]+)" records (?P<contract_id>\S+) as "(?P<outcome>[^"]+)"'))
def _json_matrix_result(project: SampleProject, relative: str, contract_id: str, outcome: str) -> None:
    contract = matrix_contract(project, relative, contract_id)
    assert contract["result"] == outcome, contract


@then(parsers.parse('the JUnit XML "{relative}" records test "{name}" as "{status}"'))
def _junit_records(project: SampleProject, relative: str, name: str, status: str) -> None:
    tree = ElementTree.parse(project.root / relative)
    [case] = [case for case in tree.iter("testcase") if case.get("name") == name]
    outcomes = {child.tag for child in case} & {"failure", "error", "skipped"}
    assert outcomes == ({"failure"} if status == "failed" else set()), ElementTree.tostring(case, encoding="unicode")


@then(parsers.parse('the Cucumber JSON "{relative}" records scenario "{name}" tagged "{tag}" as "{status}"'))
def _cucumber_records(project: SampleProject, relative: str, name: str, tag: str, status: str) -> None:
    features = json.loads(project.read(relative))
    [scenario] = [element for feature in features for element in feature["elements"] if element["name"] == name]
    assert tag.removeprefix("@") in {tag_entry["name"].removeprefix("@") for tag_entry in scenario["tags"]}, scenario
    statuses = {step["result"]["status"] for step in scenario["steps"]}
    assert ("failed" in statuses) == (status == "failed"), scenario
    assert statuses <= {"passed", "failed", "skipped"}, scenario


@then(parsers.parse('the sample project has no file "{relative}"'))
def _no_file(project: SampleProject, relative: str) -> None:
    assert not (project.root / relative).exists()


def _section(markdown: str, heading: str) -> list[str]:
    """The lines under `heading`, up to the next heading of the same or a higher level."""
    lines = markdown.splitlines()
    assert heading in lines, markdown
    level = heading.split(" ", 1)[0]
    start = lines.index(heading) + 1
    end = next(
        (
            index
            for index in range(start, len(lines))
            if lines[index].startswith("#") and len(lines[index].split(" ", 1)[0]) <= len(level)
        ),
        len(lines),
    )
    return lines[start:end]


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
