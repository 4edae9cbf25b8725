"""Binds features/gate_validate.feature: `verity bdd validate` on throwaway projects."""

from __future__ import annotations

import json
import re

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


CHECKER_PRELUDE = """
class Checker:
    def must_equal(self, actual: int, expected: int) -> None:
        if actual != expected:
            raise AssertionError(f"{actual} != {expected}")


@pytest.fixture
def checker() -> Checker:
    return Checker()
"""

# How the sample's then step compares the total: (code placed before its scenarios, extra parameters, body).
THEN_WAYS: dict[str, tuple[str, str, str]] = {
    "an assert statement": ("", "", "    assert total == expected"),
    "a raise statement": ("", "", "    if total != expected:\n        raise AssertionError(total)"),
    "pytest.raises": ("", "", "    with pytest.raises(ZeroDivisionError):\n        total // (total - expected)"),
    "a call named assertEqual": ("from unittest import TestCase\n", "", "    TestCase().assertEqual(total, expected)"),
    "a helper function that asserts": (
        "def _same_or_fail(actual: int, expected: int) -> None:\n    assert actual == expected\n",
        "",
        "    _same_or_fail(total, expected)",
    ),
    "a method of its annotated fixture that raises": (
        CHECKER_PRELUDE,
        ", checker: Checker",
        "    checker.must_equal(total, expected)",
    ),
    "a nested function it hands to a helper": (
        "def _eventually(check) -> None:\n    check()\n",
        "",
        "    def matches() -> None:\n        assert total == expected\n\n    _eventually(matches)",
    ),
    "print only": ("", "", "    print(total == expected)"),
    "a constant assertion": ("", "", "    print(total)\n    assert True"),
    "an expression compared with itself": ("", "", "    assert total == total"),
    "an assertion whose failure is caught": (
        "",
        "",
        "    try:\n        assert total == expected\n    except AssertionError:\n        pass",
    ),
    "a constant true beside a real comparison": ("", "", "    assert total == expected or 1"),
    "assert False after its own test": ("", "", "    if total != expected:\n        assert False, total"),
    "a caught failure raised again with more context": (
        "",
        "",
        "    try:\n        assert total == expected\n    except AssertionError as error:\n"
        "        raise AssertionError(f'total {total}') from error",
    ),
    "a helper function that only returns the comparison": (
        "def _same(actual: int, expected: int) -> bool:\n    return actual == expected\n",
        "",
        "    _same(total, expected)",
    ),
    "a method of an unannotated fixture": (CHECKER_PRELUDE, ", checker", "    checker.must_equal(total, expected)"),
    "a library function that raises on bad input": ("import json\n", "", "    json.loads(str(total - expected))"),
}


@given(
    "the sample project's scenario also checks the total through each of these ways:", target_fixture="then_ways"
)
def _then_steps_each_way(project: SampleProject, datatable: list[list[str]]) -> dict[str, bool]:
    ways = {way: checks == "yes" for way, checks in datatable[1:]}
    preludes = list(dict.fromkeys(THEN_WAYS[way][0] for way in ways))
    steps = [
        f'\n\n@then("the total is checked through {way}")\n'
        f"def {_step_function(way)}(total: int{THEN_WAYS[way][1]}) -> None:\n"
        f"    expected = 5\n{THEN_WAYS[way][2]}\n"
        for way in ways
    ]
    project.write_adding_test("\n".join(preludes) + "".join(steps))
    feature = project.read("features/demo_adding.feature")
    project.write("features/demo_adding.feature", feature + "".join(f"    And the total is checked through {way}\n" for way in ways))
    return ways


@then("the output reports then_step_without_check exactly for the ways that do not check")
def _reports_unchecked_ways(result: CommandResult, then_ways: dict[str, bool]) -> None:
    reported = set(re.findall(r"then_step_without_check: then step (\w+) checks nothing", result.stdout))
    expected = {_step_function(way) for way, checks in then_ways.items() if not checks}
    assert reported == expected, result.explain()


def _step_function(way: str) -> str:
    return "checked_through_" + re.sub(r"\W+", "_", way).strip("_").lower()


@given(parsers.parse("the sample project's then step compares the total through {way}"))
def _then_step_way(project: SampleProject, way: str) -> None:
    prelude, parameters, body = THEN_WAYS[way]
    project.write_adding_test(prelude, then_body=body, then_parameters=parameters)


@given(parsers.parse('the sample project\'s scenario tag "{tag}" is replaced by "{replacement}"'))
def _replace_tag(project: SampleProject, tag: str, replacement: str) -> None:
    feature = project.read("features/demo_adding.feature")
    project.write("features/demo_adding.feature", feature.replace(f"  {tag}\n", f"  {replacement}\n"))


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
