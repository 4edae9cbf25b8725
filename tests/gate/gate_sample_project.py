"""A throwaway project for the gate's tests, and two ways to run `verity` on it.

Every scenario builds a tiny project in tmp_path (contracts/, features/, tests/ and a pytest.ini)
and runs `verity` on it, which in turn runs a real nested pytest. Most scenarios call the CLI's
`main` in this process (the same code from the parsed command line on, without a second
interpreter importing the gate); those whose subject is what a shell sees of the program run the
real `verity` console script.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from runtime.cli.main import main

VERITY = Path(sys.executable).parent / "verity"
NESTED_RUN_TIMEOUT_SECONDS = 120

PYTEST_INI = """\
[pytest]
bdd_features_base_dir = features/
# The sample uses pytest-bdd, and pytest-xdist for the `-n` scenarios; nothing else installed in this
# environment. Importing every installed plugin (hypothesis alone costs ~2 s) would dominate each nested run.
# A project opts out of autoloading in its own ini; the gate passes its plugin with -p either way.
addopts = --disable-plugin-autoload -p pytest-bdd -p xdist
# pytest-bdd turns every tag into a mark; contract ids are not registered marks.
filterwarnings =
    ignore::pytest.PytestUnknownMarkWarning
"""

CONTRACT_DEMO_001 = """\
  - id: DEMO-001
    owner: demo
    statement: Adding two numbers gives their sum.
    source:
      seed: 004_520acc07423a0cd3.txt
      section: "7"
"""

ADDING_FEATURE = """\
Feature: Adding numbers

  @DEMO-001
  Scenario: Adding two numbers
    Given the number 2
    When I add 3
    Then the total is 5
"""

ADDING_TEST = '''\
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

STEPS_RAN = Path(__file__).resolve().parent.parent / "steps-ran.log"
{prelude}
scenarios("demo_adding.feature")


@given(parsers.parse("the number {{number:d}}"), target_fixture="total")
def the_number(number: int) -> int:
    with STEPS_RAN.open("a", encoding="utf-8") as log:
        log.write(f"the number {{number}}\\n")
    return number


@when(parsers.parse("I add {{number:d}}"), target_fixture="total")
def add(total: int, number: int) -> int:
    return total + number


@then(parsers.parse("the total is {{expected:d}}"))
def total_is(total: int, expected: int{then_parameters}) -> None:
{then_body}
'''

THEN_BODY = "    assert total == expected"


@dataclass
class SampleProject:
    root: Path

    def write(self, relative: str, text: str) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def read(self, relative: str) -> str:
        return (self.root / relative).read_text(encoding="utf-8")

    def write_adding_test(self, prelude: str = "", then_body: str = THEN_BODY, then_parameters: str = "") -> None:
        """Write the sample's test module; `then_parameters` are extra fixtures for its then step."""
        text = ADDING_TEST.format(prelude=prelude, then_body=then_body, then_parameters=then_parameters)
        self.write("tests/test_adding.py", text)

    def position(self, relative: str, needle: str) -> tuple[int, int]:
        """1-based line and column of the first occurrence of `needle` in the file."""
        for number, line in enumerate(self.read(relative).splitlines(), start=1):
            column = line.find(needle)
            if column >= 0:
                return number, column + 1
        raise AssertionError(f"{needle!r} does not occur in {relative}")

    @property
    def steps_ran(self) -> bool:
        return (self.root / "steps-ran.log").exists()


@dataclass
class CommandResult:
    command: list[str]
    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def explain(self) -> str:
        return f"$ {shlex.join(self.command)}\nexit {self.exit_code}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"


def run_verity(command_line: str, cwd: Path) -> CommandResult:
    """Run the `verity` console script as its own process."""
    words = shlex.split(command_line)
    assert words[0] == "verity", command_line
    command = [str(VERITY), *words[1:]]
    completed = subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, timeout=NESTED_RUN_TIMEOUT_SECONDS, check=False
    )
    return CommandResult(command=words, exit_code=completed.returncode, stdout=completed.stdout, stderr=completed.stderr)


def run_verity_in_process(command_line: str, cwd: Path, capfd: pytest.CaptureFixture[str]) -> CommandResult:
    """Run `verity` through the CLI's `main` in this process, in `cwd`.

    The output is captured at the file descriptors, so the nested pytest's output (which the gate
    streams to this process's stdout, or stderr with --json) lands where it would for a shell.
    """
    words = shlex.split(command_line)
    assert words[0] == "verity", command_line
    capfd.readouterr()  # drop whatever earlier steps printed
    with contextlib.chdir(cwd):
        try:
            exit_code = main(words[1:])
        except SystemExit as leaving:  # argparse refusing the command line
            exit_code = leaving.code if isinstance(leaving.code, int) else 1
    sys.stdout.flush()
    sys.stderr.flush()
    captured = capfd.readouterr()
    return CommandResult(command=words, exit_code=exit_code, stdout=captured.out, stderr=captured.err)


def matrix_contract(project: SampleProject, relative: str, contract_id: str) -> dict[str, object]:
    matrix = json.loads(project.read(relative))
    by_id = {contract["id"]: contract for contract in matrix["contracts"]}
    assert contract_id in by_id, matrix
    return by_id[contract_id]
