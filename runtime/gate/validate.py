"""`verity bdd validate`: every contract has a scenario, every scenario a test, every step a definition.

Static apart from one `pytest --collect-only` subprocess; no test is executed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from runtime.gate.collect import PytestRun, run_pytest
from runtime.gate.contracts import ContractCatalog, load_contracts
from runtime.gate.features import FeatureCatalog, load_features
from runtime.gate.problems import Problem, display_path, sort_problems

_OUTPUT_TAIL_LINES = 30


@dataclass
class ValidationReport:
    root: Path
    contracts: ContractCatalog
    features: FeatureCatalog
    pytest_run: PytestRun
    problems: list[Problem]

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def tests_collected(self) -> int:
        report = self.pytest_run.report
        return len(report.collected) if report is not None else 0

    def summary(self) -> str:
        counts = (
            f"{len(self.contracts.contracts)} contracts, {len(self.features.scenarios)} scenarios, "
            f"{self.tests_collected} tests collected"
        )
        if self.ok:
            return f"bdd validate: OK ({counts}); every contract has a scenario, every scenario a contract tag and a test, every step a definition, every then step a check"
        return f"bdd validate: FAILED with {len(self.problems)} problem(s) ({counts})"

    def to_json(self) -> dict[str, object]:
        return {
            "ok": self.ok,
            "root": str(self.root),
            "contracts": len(self.contracts.contracts),
            "scenarios": len(self.features.scenarios),
            "tests_collected": self.tests_collected,
            "problems": [problem.to_json() for problem in self.problems],
        }


def validate_project(root: Path) -> ValidationReport:
    contracts = load_contracts(root)
    features = load_features(root)
    pytest_run = run_pytest(root, collect_only=True)
    problems = find_gaps(root, contracts, features, pytest_run)
    return ValidationReport(root=root, contracts=contracts, features=features, pytest_run=pytest_run, problems=problems)


def find_gaps(root: Path, contracts: ContractCatalog, features: FeatureCatalog, pytest_run: PytestRun) -> list[Problem]:
    """All problems at once: file problems, then contract <-> scenario <-> test <-> step gaps."""
    problems = [*contracts.problems, *features.problems]
    problems += _contracts_without_scenarios(contracts, features)
    problems += _tags_naming_no_contract(contracts, features)
    problems += _mistyped_contract_tags(contracts, features)
    problems += _scenarios_without_contract_tag(features)
    problems += _test_gaps(root, features, pytest_run)
    return sort_problems(problems)


def _contracts_without_scenarios(contracts: ContractCatalog, features: FeatureCatalog) -> list[Problem]:
    proven_ids = {contract_id for scenario in features.scenarios for contract_id in scenario.contract_ids}
    return [
        Problem(
            kind="contract_without_scenario",
            path=contract.path,
            line=contract.line,
            column=contract.column,
            message=f"contract {contract.id} has no scenario tagged @{contract.id}",
            evidence=f"add a Scenario tagged @{contract.id} to a features/*.feature file",
        )
        for contract in contracts.contracts
        if contract.id not in proven_ids
    ]


def _tags_naming_no_contract(contracts: ContractCatalog, features: FeatureCatalog) -> list[Problem]:
    return [
        Problem(
            kind="unknown_contract_tag",
            path=use.feature_path,
            line=use.tag.line,
            column=use.tag.column,
            message=f"tag @{use.tag.name} names no contract in contracts/*.yaml",
        )
        for use in features.tag_uses
        if use.tag.looks_like_contract_id and use.tag.name not in contracts.declared_ids
    ]


def _mistyped_contract_tags(contracts: ContractCatalog, features: FeatureCatalog) -> list[Problem]:
    problems = []
    for use in features.tag_uses:
        if not use.tag.is_mistyped_contract_id:
            continue
        corrected = use.tag.corrected_contract_id
        hint = f"did you mean @{corrected}?" if corrected in contracts.declared_ids else "contract ids look like AREA-NNN"
        problems.append(
            Problem(
                kind="malformed_contract_tag",
                path=use.feature_path,
                line=use.tag.line,
                column=use.tag.column,
                message=f"tag @{use.tag.name} is written like a contract id but is not one; {hint}",
            )
        )
    return problems


def _scenarios_without_contract_tag(features: FeatureCatalog) -> list[Problem]:
    # Without this, a scenario whose tag was mistyped or removed would silently stop proving anything.
    return [
        Problem(
            kind="scenario_without_contract",
            path=scenario.feature_path,
            line=scenario.line,
            column=scenario.column,
            message=f"scenario {scenario.name!r} carries no contract tag; every scenario must prove a contract",
            evidence="tag it (or its Feature or Rule) with the id of the contract it proves, e.g. @GATE-001",
        )
        for scenario in features.scenarios
        if not scenario.contract_ids
    ]


def _test_gaps(root: Path, features: FeatureCatalog, pytest_run: PytestRun) -> list[Problem]:
    report = pytest_run.report
    if report is None:
        tail = "\n".join(pytest_run.output.splitlines()[-_OUTPUT_TAIL_LINES:])
        return [
            Problem(
                kind="test_collection_failed",
                path=".",
                line=0,
                column=0,
                message=f"pytest exited with status {pytest_run.exit_code} before reporting what it collected",
                evidence=tail,
            )
        ]
    problems = [
        Problem(
            kind="collection_error",
            path=display_path(Path(error.path), root),
            line=error.line,
            column=0,
            message=f"pytest could not collect {error.node_id or 'the session'}; its scenarios are not bound",
            evidence=error.message,
        )
        for error in report.collection_errors
    ]
    bound = {(test.feature_file, test.scenario_line) for test in report.collected if test.feature_file}
    problems += [
        Problem(
            kind="unbound_scenario",
            path=scenario.feature_path,
            line=scenario.line,
            column=scenario.column,
            message=f"scenario {scenario.name!r} is bound by no collected test",
            evidence=f'bind it in tests/<area>/test_*.py with scenarios("{_features_relative(scenario.feature_path)}")',
        )
        for scenario in features.scenarios
        if (scenario.feature_file, scenario.line) not in bound
    ]
    step_columns = {
        (scenario.feature_file, step.line): step.column for scenario in features.scenarios for step in scenario.steps
    }
    problems += [
        Problem(
            kind="undefined_step",
            path=display_path(Path(step.feature_file), root),
            line=step.line,
            column=step_columns.get((step.feature_file, step.line), 0),
            message=f"no step definition matches: {step.keyword} {step.text}",
            evidence=f"needed by {step.node_id}",
        )
        for step in report.undefined_steps
    ]
    problems += [
        Problem(
            kind="then_step_without_check",
            path=display_path(Path(step.path), root),
            line=step.line,
            column=0,
            message=f"then step {step.function} checks nothing: no assert, raise, pytest.fail/raises, assert* "
            "call or call to a project function that checks (a check that cannot fail does not count: a constant "
            "assert, an expression compared with itself, an assertion whose failure is caught)",
            evidence=f"bound to {display_path(Path(step.feature_file), root)}:{step.step_line}: {step.step_text}",
        )
        for step in report.unchecked_then_steps
    ]
    return problems


def _features_relative(feature_path: str) -> str:
    return feature_path.removeprefix("features/")
