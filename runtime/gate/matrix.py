"""The traceability matrix: `traceability.md` for people, `traceability.json` for tools.

The Markdown opens with the verdict and a summary per area, then lists what did not pass with its
short failure message, the other failing tests, the plain tests that were skipped or xfailed,
and one table per area.
Test ids are shown with their non-ASCII parameters readable (pytest escapes them in node ids).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path

from runtime.gate.results import NOT_SELECTED, BoundTest, ContractResult, GateResult

MARKDOWN_NAME = "traceability.md"
JSON_NAME = "traceability.json"
_MESSAGE_CHARS = 200
# pytest's escapes of non-ASCII characters in parameter ids: \xNN, \uNNNN, \UNNNNNNNN.
_ESCAPE = re.compile(r"\\(\\|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})")


def write_matrix(result: GateResult, out_dir: Path) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    markdown_path = out_dir / MARKDOWN_NAME
    json_path = out_dir / JSON_NAME
    markdown_path.write_text(render_markdown(result), encoding="utf-8")
    json_path.write_text(json.dumps(result.to_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return markdown_path, json_path


def readable_node_id(node_id: str) -> str:
    """The node id with pytest's escapes of printable non-ASCII characters undone (`\\u7528` -> 用)."""

    def unescape(match: re.Match[str]) -> str:
        escape = match.group(1)
        if escape == "\\":
            return match.group(0)  # an escaped backslash stays as written
        character = chr(int(escape[1:], 16))
        return character if ord(character) > 0x7F and character.isprintable() else match.group(0)

    return _ESCAPE.sub(unescape, node_id)


def render_markdown(result: GateResult) -> str:
    judged = result.judged_contracts
    passed = sum(contract.passed for contract in judged)
    lines = [
        "# Traceability matrix",
        "",
        f"Verdict: **{'PASSED' if result.passed else 'FAILED'}**. "
        f"{passed} of {len(judged)} judged contracts proven; pytest exit status {result.pytest_exit_code}.",
        "",
    ]
    if result.subset:
        not_selected = len(result.contracts) - len(judged)
        lines += [f"Subset: {result.subset_line().removeprefix('subset: ')}; {not_selected} not selected.", ""]
    lines += [f"- {reason}" for reason in result.reasons]
    if result.reasons:
        lines.append("")
    lines += _area_summary(result.contracts)
    lines += _not_passed_scenarios(judged)
    # Failing scenario tests are listed under their scenario above; these are the rest.
    in_scenarios = {test.node_id for contract in result.contracts for scenario in contract.scenarios for test in scenario.tests}
    other_failing = [test for test in result.failing_tests if test.node_id not in in_scenarios]
    if other_failing:
        lines += ["", "## Other failing tests", ""]
        lines += [_test_bullet(test) for test in other_failing]
    if result.parked_plain_tests:
        lines += ["", "## Plain tests skipped or xfailed", ""]
        lines += [_test_bullet(test) for test in result.parked_plain_tests]
    if result.problems:
        lines += ["", "## Problems", ""]
        lines += [f"- `{problem.location}` {problem.kind}: {problem.message}" for problem in result.problems]
    lines += ["", "## Contracts by area"]
    for area, contracts in _by_area(result.contracts).items():
        lines += ["", f"### {area}", ""]
        lines += _contract_table(contracts)
    return "\n".join(lines) + "\n"


def _area_summary(contracts: list[ContractResult]) -> list[str]:
    lines = [
        "## Summary by area",
        "",
        "| Area | Contracts | Proven | Not proven | Not selected | Scenarios | Tests |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    areas = _by_area(contracts)
    for area, members in [*areas.items(), ("**all**", contracts)]:
        proven = sum(contract.passed for contract in members)
        not_selected = sum(not contract.judged for contract in members)
        scenarios = sum(len(contract.scenarios) for contract in members)
        tests = len({test.node_id for contract in members for scenario in contract.scenarios for test in scenario.tests})
        cells = [area, len(members), proven, len(members) - proven - not_selected, not_selected, scenarios, tests]
        lines.append("| " + " | ".join(str(cell) for cell in cells) + " |")
    return lines


def _not_passed_scenarios(judged: list[ContractResult]) -> list[str]:
    lines: list[str] = []
    for contract in judged:
        if contract.passed:
            continue
        if not contract.scenarios:
            lines.append(f"- **{contract.id}** (`{contract.location}`): {contract.result}")
        for scenario in contract.scenarios:
            if scenario.result in ("passed", NOT_SELECTED):
                continue
            lines.append(f"- **{contract.id}** {scenario.name} (`{scenario.feature}:{scenario.line}`): {scenario.result}")
            lines += ["  " + _test_bullet(test) for test in scenario.tests if test.outcome != "passed"]
    return ["", "## Scenarios not passed", "", *lines] if lines else []


def _contract_table(contracts: list[ContractResult]) -> list[str]:
    lines = ["| Contract | Statement | Scenario(s) | Test id(s) | Result |", "| --- | --- | --- | --- | --- |"]
    for contract in contracts:
        scenarios = "<br>".join(
            f"{scenario.name} ({scenario.feature}:{scenario.line}): {scenario.result}" for scenario in contract.scenarios
        )
        tests = "<br>".join(
            f"`{readable_node_id(test.node_id)}`: {test.outcome}"
            for scenario in contract.scenarios
            for test in scenario.tests
        )
        cells = [contract.id, contract.statement, scenarios or "—", tests or "—", contract.result]
        lines.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    return lines


def _test_bullet(test: BoundTest) -> str:
    text = f"- `{readable_node_id(test.node_id)}`: {test.outcome}"
    first_line = test.message.splitlines()[0] if test.message else ""
    if first_line:
        if len(first_line) > _MESSAGE_CHARS:
            first_line = first_line[: _MESSAGE_CHARS - 1] + "…"
        text += f" — {_code_span(first_line)}"
    return text


def _by_area(contracts: Iterable[ContractResult]) -> dict[str, list[ContractResult]]:
    areas: dict[str, list[ContractResult]] = {}
    for contract in contracts:
        areas.setdefault(contract.owner, []).append(contract)
    return dict(sorted(areas.items()))


def _code_span(text: str) -> str:
    # A fence longer than any run of backticks inside, so messages quoting code stay one span.
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    padding = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{padding}{text}{padding}{fence}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
