"""What `verity bdd gate` concluded: per contract, scenario and test, and why the verdict is what it is."""

from __future__ import annotations

import shlex
from dataclasses import asdict, dataclass, field
from pathlib import Path

from runtime.gate.ci_reports import CiReports
from runtime.gate.problems import Problem

UNBOUND = "unbound"
NO_SCENARIO = "no scenario"
NOT_SELECTED = "not selected"
DESELECTED = "deselected"  # a test outcome: pytest's arguments left it out


@dataclass(frozen=True)
class BoundTest:
    node_id: str  # as pytest names it (non-ASCII parameters escaped), so it can be passed back to pytest
    outcome: str
    message: str = ""  # why it did not pass, shortened; empty when it passed


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
    result: str  # "passed", "failed", "no scenario" or "not selected"
    scenarios: tuple[ScenarioResult, ...]

    @property
    def passed(self) -> bool:
        return self.result == "passed"

    @property
    def judged(self) -> bool:
        return self.result != NOT_SELECTED


@dataclass
class GateResult:
    root: Path
    pytest_exit_code: int
    contracts: list[ContractResult]
    problems: list[Problem]
    outcome_counts: dict[str, int]
    failing_tests: list[BoundTest]
    parked_plain_tests: list[BoundTest] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    subset: bool = False
    pytest_args: list[str] = field(default_factory=list)
    matrix_markdown: Path | None = None
    matrix_json: Path | None = None
    ci_reports: CiReports | None = None

    @property
    def passed(self) -> bool:
        return not self.reasons

    @property
    def judged_contracts(self) -> list[ContractResult]:
        return [contract for contract in self.contracts if contract.judged]

    def subset_line(self) -> str:
        """'subset: 12 of 125 contracts judged, -k recipe', or '' when the whole suite ran."""
        if not self.subset:
            return ""
        selection = shlex.join(self.pytest_args) or "pytest arguments"
        return f"subset: {len(self.judged_contracts)} of {len(self.contracts)} contracts judged, {selection}"

    def to_json(self) -> dict[str, object]:
        judged = self.judged_contracts
        return {
            "verdict": "passed" if self.passed else "failed",
            "reasons": self.reasons,
            "root": str(self.root),
            "pytest_exit_code": self.pytest_exit_code,
            "subset": {"contracts_judged": len(judged), "contracts_total": len(self.contracts), "pytest_args": self.pytest_args}
            if self.subset
            else None,
            "contracts_passed": sum(contract.passed for contract in judged),
            "contracts_failed": sum(not contract.passed for contract in judged),
            "contracts_not_selected": len(self.contracts) - len(judged),
            "outcome_counts": self.outcome_counts,
            "contracts": [asdict(contract) for contract in self.contracts],
            "failing_tests": [asdict(test) for test in self.failing_tests],
            "parked_plain_tests": [asdict(test) for test in self.parked_plain_tests],
            "problems": [problem.to_json() for problem in self.problems],
            "ci_reports": self.ci_reports.to_json(self.root) if self.ci_reports else None,
        }
