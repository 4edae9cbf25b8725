"""Run pytest in a subprocess with the gate's plugin and read back what it recorded.

pytest-bdd keeps its scenario <-> test binding in process memory, so the only faithful way to learn
which scenarios the suite binds (and which steps it cannot resolve) is to ask a real pytest run.
`runtime.gate.pytest_plugin` writes a JSON report described by the dataclasses below.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import runtime

PLUGIN_MODULE = "runtime.gate.pytest_plugin"
REPORT_OPTION = "--verity-gate-report"

# Outcomes as pytest's terminal summary names them; "not run" covers deselected and never-reached tests.
OUTCOMES = ("passed", "failed", "skipped", "xfailed", "xpassed", "error")
NOT_RUN = "not run"
# Collection imports every test module; one that hangs at import must not hang validate forever.
COLLECT_TIMEOUT_SECONDS = 600


@dataclass(frozen=True)
class CollectedTest:
    node_id: str
    feature_file: str | None = None  # resolved absolute path; None for plain (non pytest-bdd) tests
    scenario_name: str | None = None
    scenario_line: int | None = None
    deselected: bool = False


@dataclass(frozen=True)
class UndefinedStep:
    node_id: str
    feature_file: str
    line: int
    keyword: str
    text: str


@dataclass(frozen=True)
class UncheckedThenStep:
    """A step definition bound to a Then step whose body checks nothing (see runtime.gate.then_checks)."""

    path: str  # absolute source file of the step function
    line: int  # the line of its `def`
    function: str
    step_text: str
    feature_file: str
    step_line: int


@dataclass(frozen=True)
class CollectionError:
    node_id: str
    path: str  # absolute
    line: int
    message: str


@dataclass
class PytestReport:
    exit_status: int | None = None
    collected: list[CollectedTest] = field(default_factory=list)
    undefined_steps: list[UndefinedStep] = field(default_factory=list)
    collection_errors: list[CollectionError] = field(default_factory=list)
    outcomes: dict[str, str] = field(default_factory=dict)
    # Why a test did not pass, shortened: the assertion, the skip or xfail reason, the setup error.
    messages: dict[str, str] = field(default_factory=dict)
    unchecked_then_steps: list[UncheckedThenStep] = field(default_factory=list)
    # pytest was given files or directories to collect, so tests outside them were never collected.
    narrowed_by_paths: bool = False

    def to_json(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PytestReport:
        return cls(
            exit_status=data.get("exit_status"),
            collected=[CollectedTest(**item) for item in data.get("collected", [])],
            undefined_steps=[UndefinedStep(**item) for item in data.get("undefined_steps", [])],
            collection_errors=[CollectionError(**item) for item in data.get("collection_errors", [])],
            outcomes=dict(data.get("outcomes", {})),
            messages=dict(data.get("messages", {})),
            unchecked_then_steps=[UncheckedThenStep(**item) for item in data.get("unchecked_then_steps", [])],
            narrowed_by_paths=bool(data.get("narrowed_by_paths", False)),
        )

    def outcome_of(self, node_id: str) -> str:
        return self.outcomes.get(node_id, NOT_RUN)

    @property
    def is_subset(self) -> bool:
        """Whether pytest's arguments selected part of the suite (`-k`, `-m`, paths, node ids)."""
        return self.narrowed_by_paths or any(test.deselected for test in self.collected)


@dataclass
class PytestRun:
    """What one pytest subprocess produced. `report` is None when pytest died before writing it."""

    exit_code: int
    report: PytestReport | None
    output: str = ""  # captured stdout+stderr; empty when the output was streamed


def run_pytest(
    root: Path,
    pytest_args: Sequence[str] = (),
    *,
    collect_only: bool = False,
    stream_to: int | None = None,
    extra_env: Mapping[str, str] | None = None,
) -> PytestRun:
    """Run pytest once in `root` with the gate plugin.

    With `collect_only` the output is captured (validate shows only problems); otherwise it goes
    straight to the file descriptor `stream_to` (the terminal by default) so CI logs read as usual.
    """
    with tempfile.TemporaryDirectory(prefix="verity-gate-") as scratch:
        report_path = Path(scratch) / "pytest-report.json"
        command = [sys.executable, "-m", "pytest", "-p", PLUGIN_MODULE, f"{REPORT_OPTION}={report_path}"]
        if collect_only:
            # No cache writes: validate must leave the project untouched.
            command += ["--collect-only", "-q", "-p", "no:cacheprovider"]
        command += list(pytest_args)
        environment = {**_environment_with_runtime_importable(), **(extra_env or {})}
        if collect_only:
            try:
                completed = subprocess.run(
                    command,
                    cwd=root,
                    env=environment,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                    timeout=COLLECT_TIMEOUT_SECONDS,
                )
            except subprocess.TimeoutExpired:
                message = f"pytest --collect-only did not finish within {COLLECT_TIMEOUT_SECONDS} s"
                return PytestRun(exit_code=-1, report=None, output=message)
            output = completed.stdout
        else:
            completed = subprocess.run(command, cwd=root, env=environment, stdout=stream_to, stderr=stream_to)
            output = ""
        report = None
        if report_path.is_file():
            report = PytestReport.from_json(json.loads(report_path.read_text(encoding="utf-8")))
        return PytestRun(exit_code=completed.returncode, report=report, output=output)


def _environment_with_runtime_importable() -> dict[str, str]:
    # The plugin must import even when the project under test is not this repository.
    package_parent = str(Path(runtime.__file__).resolve().parent.parent)
    environment = dict(os.environ)
    existing = environment.get("PYTHONPATH")
    environment["PYTHONPATH"] = package_parent + (os.pathsep + existing if existing else "")
    return environment
