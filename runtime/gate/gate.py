"""`verity bdd gate`: run the suite once, then map contract -> scenarios -> tests -> outcome.

A contract passes only when it has at least one scenario and every test bound to every one of its
scenarios passed. Skipped, xfailed, xpassed (a test that declares it expects to fail proves nothing),
errored and never-run tests all leave the contract unproven.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from runtime.gate.collect import NOT_RUN, OUTCOMES, PytestReport, PytestRun, run_pytest
from runtime.gate.contracts import Contract, ContractCatalog, load_contracts
from runtime.gate.features import FeatureCatalog, FeatureScenario, load_features
from runtime.gate.problems import Problem, display_path
from runtime.gate.validate import find_gaps

UNBOUND = "unbound"
NO_SCENARIO = "no scenario"
_VERDICT_CONTRACTS_SHOWN = 10
# When a scenario's tests disagree, the matrix shows the most serious outcome.
_SEVERITY = ("error", "failed", UNBOUND, NOT_RUN, "xpassed", "xfailed", "skipped", "passed")


@dataclass(frozen=True)
class BoundTest:
    node_id: str
    outcome: str


@dataclass(frozen=True)
class ScenarioResult:
    feature: str
    line: int
    name: str
    result: str
    tests: tuple[BoundTest, ...]


@dataclass(frozen=True)
class ContractResult:
    id: str
    owner: str
    statement: str
    location: str
    result: str  # "passed", "failed" or "no scenario"
    scenarios: tuple[ScenarioResult, ...]

    @property
    def passed(self) -> bool:
        return self.result == "passed"


@dataclass
class GateResult:
    root: Path
    pytest_exit_code: int
    contracts: list[ContractResult]
    problems: list[Problem]
    outcome_counts: dict[str, int]
    failing_tests: list[BoundTest]
    reasons: list[str] = field(default_factory=list)
    matrix_markdown: Path | None = None
    matrix_json: Path | None = None

    @property
    def passed(self) -> bool:
        return not self.reasons

    def to_json(self) -> dict[str, object]:
        return {
            "verdict": "passed" if self.passed else "failed",
            "reasons": self.reasons,
            "root": str(self.root),
            "pytest_exit_code": self.pytest_exit_code,
            "contracts_passed": sum(contract.passed for contract in self.contracts),
            "contracts_failed": sum(not contract.passed for contract in self.contracts),
            "outcome_counts": self.outcome_counts,
            "contracts": [asdict(contract) for contract in self.contracts],
            "failing_tests": [asdict(test) for test in self.failing_tests],
            "problems": [problem.to_json() for problem in self.problems],
        }


def run_gate(root: Path, out_dir: Path, pytest_args: Sequence[str] = (), *, stream_to: int | None = None) -> GateResult:
    """Run pytest once over the whole suite, then judge every contract and write the matrix."""
    contracts = load_contracts(root)
    features = load_features(root)
    pytest_run = run_pytest(root, pytest_args, stream_to=stream_to)
    result = judge(root, contracts, features, pytest_run)
    result.matrix_markdown, result.matrix_json = write_matrix(result, out_dir)
    return result


def judge(root: Path, contracts: ContractCatalog, features: FeatureCatalog, pytest_run: PytestRun) -> GateResult:
    report = pytest_run.report or PytestReport()
    problems = find_gaps(root, contracts, features, pytest_run)
    contract_results = [_contract_result(contract, features, report) for contract in contracts.contracts]
    outcomes = [_outcome(report, test.node_id, test.deselected) for test in report.collected]
    counts = {name: outcomes.count(name) for name in (*OUTCOMES, NOT_RUN) if outcomes.count(name)}
    failing = [
        BoundTest(test.node_id, outcome)
        for test, outcome in zip(report.collected, outcomes, strict=True)
        if outcome in ("failed", "error")
    ]
    reasons = []
    if pytest_run.report is None:
        reasons.append(f"pytest exited with status {pytest_run.exit_code} without reporting any result")
    elif not report.collected:
        reasons.append("pytest collected no tests")
    if pytest_run.exit_code != 0:
        reasons.append(f"pytest exited with status {pytest_run.exit_code}")
    if failing:
        reasons.append(f"{len(failing)} test(s) failed or errored")
    unproven = [contract.id for contract in contract_results if not contract.passed]
    if unproven:
        reasons.append(f"{len(unproven)} contract(s) not proven")
    if not contract_results and not contracts.problems:
        reasons.append("no contracts are declared in contracts/*.yaml")
    if problems:
        reasons.append(f"{len(problems)} contract/feature/test problem(s)")
    return GateResult(
        root=root,
        pytest_exit_code=pytest_run.exit_code,
        contracts=contract_results,
        problems=problems,
        outcome_counts=counts,
        failing_tests=failing,
        reasons=reasons,
    )


def _contract_result(contract: Contract, features: FeatureCatalog, report: PytestReport) -> ContractResult:
    scenarios = tuple(
        _scenario_result(scenario, report) for scenario in features.scenarios if contract.id in scenario.contract_ids
    )
    if not scenarios:
        result = NO_SCENARIO
    else:
        result = "passed" if all(scenario.result == "passed" for scenario in scenarios) else "failed"
    return ContractResult(
        id=contract.id,
        owner=contract.owner,
        statement=contract.statement,
        location=f"{contract.path}:{contract.line}:{contract.column}",
        result=result,
        scenarios=scenarios,
    )


def _scenario_result(scenario: FeatureScenario, report: PytestReport) -> ScenarioResult:
    tests = tuple(
        BoundTest(test.node_id, _outcome(report, test.node_id, test.deselected))
        for test in report.collected
        if test.feature_file == scenario.feature_file and test.scenario_line == scenario.line
    )
    outcomes = {test.outcome for test in tests} or {UNBOUND}
    worst = min(outcomes, key=_SEVERITY.index)
    return ScenarioResult(
        feature=scenario.feature_path, line=scenario.line, name=scenario.name, result=worst, tests=tests
    )


def _outcome(report: PytestReport, node_id: str, deselected: bool) -> str:
    return NOT_RUN if deselected else report.outcome_of(node_id)


def write_matrix(result: GateResult, out_dir: Path) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    markdown_path = out_dir / "traceability.md"
    json_path = out_dir / "traceability.json"
    markdown_path.write_text(render_markdown(result), encoding="utf-8")
    json_path.write_text(json.dumps(result.to_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return markdown_path, json_path


def render_markdown(result: GateResult) -> str:
    passed = sum(contract.passed for contract in result.contracts)
    lines = [
        "# Traceability matrix",
        "",
        f"Verdict: **{'PASSED' if result.passed else 'FAILED'}**. "
        f"{passed} of {len(result.contracts)} contracts proven; pytest exit status {result.pytest_exit_code}.",
        "",
    ]
    lines += [f"- {reason}" for reason in result.reasons]
    if result.reasons:
        lines.append("")
    lines += [
        "| Contract | Owner | Statement | Scenario(s) | Test id(s) | Result |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for contract in result.contracts:
        scenarios = "<br>".join(
            f"{scenario.name} ({scenario.feature}:{scenario.line}): {scenario.result}" for scenario in contract.scenarios
        )
        tests = "<br>".join(
            f"`{test.node_id}`: {test.outcome}" for scenario in contract.scenarios for test in scenario.tests
        )
        cells = [contract.id, contract.owner, contract.statement, scenarios or "—", tests or "—", contract.result]
        lines.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    if result.failing_tests:
        lines += ["", "## Failing tests", ""]
        lines += [f"- `{test.node_id}`: {test.outcome}" for test in result.failing_tests]
    if result.problems:
        lines += ["", "## Problems", ""]
        lines += [f"- `{problem.location}` {problem.kind}: {problem.message}" for problem in result.problems]
    return "\n".join(lines) + "\n"


def verdict_lines(result: GateResult, root: Path) -> list[str]:
    passed = [contract for contract in result.contracts if contract.passed]
    failed = [contract for contract in result.contracts if not contract.passed]
    counts = ", ".join(f"{count} {name}" for name, count in result.outcome_counts.items()) or "none"
    shown = ", ".join(f"{contract.id}: {contract.result}" for contract in failed[:_VERDICT_CONTRACTS_SHOWN])
    if len(failed) > _VERDICT_CONTRACTS_SHOWN:
        shown += f", ... {len(failed) - _VERDICT_CONTRACTS_SHOWN} more in the matrix"
    lines = [
        f"bdd gate: {'PASSED' if result.passed else 'FAILED'}",
        f"  contracts: {len(passed)} passed, {len(failed)} failed" + (f" ({shown})" if failed else ""),
        f"  tests: {counts}; pytest exit status {result.pytest_exit_code}",
    ]
    lines += [f"  why: {reason}" for reason in result.reasons]
    if result.matrix_markdown and result.matrix_json:
        lines.append(
            f"  matrix: {display_path(result.matrix_markdown, root)}, {display_path(result.matrix_json, root)}"
        )
    return lines


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
