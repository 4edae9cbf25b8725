"""`verity bdd gate`: run the suite once, then map contract -> scenarios -> tests -> outcome.

A contract passes only when it has at least one scenario and every test bound to every one of its
scenarios passed. Skipped, xfailed, xpassed (a test that declares it expects to fail proves nothing),
errored and never-run tests all leave the contract unproven.

When pytest's arguments select part of the suite (`-k`, `-m`, files or node ids), the gate judges
only the contracts with a selected scenario, on their selected scenarios, and says so; the others
are "not selected" rather than failed. A selected scenario that does not pass still fails the gate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from runtime.gate.ci_reports import ci_report_args
from runtime.gate.collect import NOT_RUN, OUTCOMES, CollectedTest, PytestReport, PytestRun, run_pytest
from runtime.gate.contracts import Contract, ContractCatalog, load_contracts
from runtime.gate.features import FeatureCatalog, FeatureScenario, load_features
from runtime.gate.matrix import write_matrix
from runtime.gate.problems import display_path
from runtime.gate.results import (
    DESELECTED,
    NO_SCENARIO,
    NOT_SELECTED,
    UNBOUND,
    BoundTest,
    ContractResult,
    GateResult,
    ScenarioResult,
)
from runtime.gate.validate import find_gaps

_VERDICT_CONTRACTS_SHOWN = 10
# When a scenario's tests disagree, the matrix shows the most serious outcome.
_SEVERITY = ("error", "failed", UNBOUND, NOT_RUN, DESELECTED, "xpassed", "xfailed", "skipped", "passed")
# Plain tests that did not fail but proved nothing; the matrix lists them so they are not forgotten.
_PARKED_OUTCOMES = ("skipped", "xfailed", "xpassed")


def run_gate(
    root: Path, out_dir: Path, pytest_args: Sequence[str] = (), *, stream_to: int | None = None, extra_env: Mapping[str, str] | None = None
) -> GateResult:
    """Run pytest once over the whole suite, then judge every contract and write the matrix.

    JUnit XML and Cucumber JSON land in `out_dir` too, unless the pytest arguments name their own.
    `extra_env` is added to the environment pytest runs in (a live gate's VERITY_LIVE_GATE).
    """
    contracts = load_contracts(root)
    features = load_features(root)
    out_dir.mkdir(parents=True, exist_ok=True)
    extra_args, ci_reports = ci_report_args(root, out_dir, pytest_args)
    pytest_run = run_pytest(root, [*extra_args, *pytest_args], stream_to=stream_to, extra_env=extra_env)
    result = judge(root, contracts, features, pytest_run, pytest_args)
    result.ci_reports = ci_reports
    result.matrix_markdown, result.matrix_json = write_matrix(result, out_dir)
    return result


def judge(
    root: Path,
    contracts: ContractCatalog,
    features: FeatureCatalog,
    pytest_run: PytestRun,
    pytest_args: Sequence[str] = (),
) -> GateResult:
    report = pytest_run.report or PytestReport()
    subset = report.is_subset
    problems = find_gaps(root, contracts, features, pytest_run)
    if report.narrowed_by_paths:
        # Scenarios outside the given paths were never collected; `bdd validate` judges binding.
        problems = [problem for problem in problems if problem.kind != "unbound_scenario"]
    contract_results = [_contract_result(contract, features, report, subset) for contract in contracts.contracts]
    tests = [_bound_test(report, test) for test in report.collected]
    counts = {name: sum(test.outcome == name for test in tests) for name in (*OUTCOMES, NOT_RUN, DESELECTED)}
    failing = [test for test in tests if test.outcome in ("failed", "error")]
    parked = [
        test
        for test, collected in zip(tests, report.collected, strict=True)
        if collected.feature_file is None and test.outcome in _PARKED_OUTCOMES
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
    unproven = [contract.id for contract in contract_results if contract.judged and not contract.passed]
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
        outcome_counts={name: count for name, count in counts.items() if count},
        failing_tests=failing,
        parked_plain_tests=parked,
        reasons=reasons,
        subset=subset,
        pytest_args=list(pytest_args),
    )


def _contract_result(contract: Contract, features: FeatureCatalog, report: PytestReport, subset: bool) -> ContractResult:
    scenarios = tuple(
        _scenario_result(scenario, report, subset)
        for scenario in features.scenarios
        if contract.id in scenario.contract_ids
    )
    judged = [scenario for scenario in scenarios if scenario.result != NOT_SELECTED]
    if not scenarios:
        result = NO_SCENARIO
    elif not judged:
        result = NOT_SELECTED
    else:
        result = "passed" if all(scenario.result == "passed" for scenario in judged) else "failed"
    return ContractResult(
        id=contract.id,
        owner=contract.owner,
        statement=contract.statement,
        location=f"{contract.path}:{contract.line}:{contract.column}",
        result=result,
        scenarios=scenarios,
    )


def _scenario_result(scenario: FeatureScenario, report: PytestReport, subset: bool) -> ScenarioResult:
    collected = [
        test
        for test in report.collected
        if test.feature_file == scenario.feature_file and test.scenario_line == scenario.line
    ]
    tests = tuple(_bound_test(report, test) for test in collected)
    if subset and not any(not test.deselected for test in collected):
        result = NOT_SELECTED  # deselected, or outside the paths pytest was given
    else:
        outcomes = {test.outcome for test in tests} or {UNBOUND}
        result = min(outcomes, key=_SEVERITY.index)
    return ScenarioResult(feature=scenario.feature_path, line=scenario.line, name=scenario.name, result=result, tests=tests)


def _bound_test(report: PytestReport, test: CollectedTest) -> BoundTest:
    if test.deselected:
        return BoundTest(test.node_id, DESELECTED)
    return BoundTest(test.node_id, report.outcome_of(test.node_id), report.messages.get(test.node_id, ""))


def verdict_lines(result: GateResult, root: Path) -> list[str]:
    judged = result.judged_contracts
    passed = [contract for contract in judged if contract.passed]
    failed = [contract for contract in judged if not contract.passed]
    counts = ", ".join(f"{count} {name}" for name, count in result.outcome_counts.items()) or "none"
    shown = ", ".join(f"{contract.id}: {contract.result}" for contract in failed[:_VERDICT_CONTRACTS_SHOWN])
    if len(failed) > _VERDICT_CONTRACTS_SHOWN:
        shown += f", ... {len(failed) - _VERDICT_CONTRACTS_SHOWN} more in the matrix"
    lines = [f"bdd gate: {'PASSED' if result.passed else 'FAILED'}"]
    if result.subset:
        lines.append(f"  {result.subset_line()}")
    lines += [
        f"  contracts: {len(passed)} passed, {len(failed)} failed" + (f" ({shown})" if failed else ""),
        f"  tests: {counts}; pytest exit status {result.pytest_exit_code}",
    ]
    lines += [f"  why: {reason}" for reason in result.reasons]
    if result.matrix_markdown and result.matrix_json:
        lines.append(
            f"  matrix: {display_path(result.matrix_markdown, root)}, {display_path(result.matrix_json, root)}"
        )
    if result.ci_reports:
        written = result.ci_reports.written(root)
        if written:
            lines.append(f"  CI reports: {', '.join(written)}")
    return lines
