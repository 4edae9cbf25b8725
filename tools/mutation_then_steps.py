"""Which Then steps of the mutation check's scenarios killed no mutant of the code they cover?

A scenario whose test runs a mutated function "covers" every mutant of that function (mutmut records
which tests run which function while it collects its statistics). A Then step kills a mutant when,
with that mutant active, the step fails. mutmut cannot say which step did: it stops a mutant's run
at the first failing test and records only that the mutant was killed. So a second pass
(`tools.mutation_kills`) reruns each scenario test under its covering mutants that some test
detected, one at a time, and notes which step pytest-bdd reports failing; a mutant that survived
passed every covering test, so it made no step fail and needs no rerun. A Then step that covers at
least one mutant and failed under none is listed by feature line, with the step definition
pytest-bdd binds it to and how many mutants its scenario covers.

This module holds the join and a pytest plugin (`-p tools.mutation_then_steps`) that, at
collection, writes each pytest-bdd test's Then steps and the step definitions pytest-bdd picks for
them, using pytest-bdd's own lookup.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd.scenario import find_fixturedefs_for_step, iterparentnodeids, scenario_wrapper_template_registry
from pytest_bdd.steps import step_function_context_registry
from pytest_bdd.utils import registry_get_safe

from runtime.gate.then_checks import definition_site
from tools.mutation_kills import CANDIDATES_OPTION, KILLS_OPTION

REPO = Path(__file__).resolve().parents[1]
OUTPUT_OPTION = "--mutation-then-steps"
_EXAMPLE_PARAMETER = "_pytest_bdd_example"  # the parametrize name pytest-bdd gives Scenario Outline rows
_MUTANT_SUFFIX = "__mutmut_"  # mutmut names a mutant `<mangled function name>__mutmut_<n>`
DETECTED = ("killed", "timeout")  # the statuses of a mutant some test failed on
KILL_RUN_TIMEOUT_SECONDS = 60  # pytest-timeout's limit per rerun: a mutant can make a test loop forever


class CollectionFailed(RuntimeError):
    """pytest could not collect the tests whose Then steps are judged, or rerun them."""


@dataclass(frozen=True)
class ThenStep:
    """One Then step as a test runs it: where it is written and which definition it binds to."""

    feature: str  # feature file, relative to the project
    line: int
    text: str  # keyword and text, as written ("Then the intent is ...", "And ...")
    definition: str  # step definition file, relative to the project
    definition_line: int

    @property
    def key(self) -> str:
        return f"{self.feature}:{self.line}"


@dataclass(frozen=True)
class UnkillingThenStep:
    step: ThenStep
    covering_mutants: int

    def to_json(self) -> dict[str, object]:
        return {
            "feature": self.step.key,
            "step": self.step.text,
            "definition": f"{self.step.definition}:{self.step.definition_line}",
            "covering_mutants": self.covering_mutants,
        }


@dataclass(frozen=True)
class ThenStepVerdicts:
    considered: int  # Then steps whose scenario covers at least one mutant
    covering_nothing: int  # Then steps whose scenario runs no mutated function
    killed_nothing: tuple[UnkillingThenStep, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "considered": self.considered,
            "covering_no_mutant": self.covering_nothing,
            "steps": [step.to_json() for step in self.killed_nothing],
        }


def covering_mutants(
    then_steps_by_test: Mapping[str, Sequence[ThenStep]],
    tests_by_function: Mapping[str, Iterable[str]],
    statuses: Mapping[str, str],
) -> dict[str, set[str]]:
    """The mutants each pytest-bdd test covers: every mutant of every mutated function it runs.

    `tests_by_function` is mutmut's coverage (mangled function name -> test node ids) and
    `statuses` its verdict per mutant, which names every mutant."""
    mutants_by_function: dict[str, list[str]] = {}
    for mutant in statuses:
        mutants_by_function.setdefault(mutant.partition(_MUTANT_SUFFIX)[0], []).append(mutant)
    functions_by_test: dict[str, set[str]] = {}
    for function, tests in tests_by_function.items():
        for test in tests:
            functions_by_test.setdefault(test, set()).add(function)
    return {
        test: {mutant for function in functions_by_test.get(test, ()) for mutant in mutants_by_function.get(function, ())}
        for test in then_steps_by_test
    }


def kill_candidates(
    then_steps_by_test: Mapping[str, Sequence[ThenStep]],
    covering: Mapping[str, set[str]],
    statuses: Mapping[str, str],
) -> dict[str, dict[str, list[str]]]:
    """What the second pass tries: for each test, the covering mutants some test detected (a
    survivor passed every test that covers it, so it made no step fail) and its Then steps."""
    candidates = {}
    for test, steps in then_steps_by_test.items():
        detected = sorted(mutant for mutant in covering.get(test, ()) if statuses[mutant] in DETECTED)
        if detected:
            candidates[test] = {"mutants": detected, "steps": sorted({step.key for step in steps})}
    return candidates


def then_steps_that_killed_nothing(
    then_steps_by_test: Mapping[str, Sequence[ThenStep]],
    covering: Mapping[str, set[str]],
    kills: Mapping[str, str],
) -> ThenStepVerdicts:
    """The Then steps that cover at least one mutant and that no mutant made fail (`kills` maps
    "feature:line" to a mutant that did). A step written once but run by several tests (the rows of
    a Scenario Outline) covers the mutants of all of them."""
    covered_by_step: dict[ThenStep, set[str]] = {}
    for test, steps in then_steps_by_test.items():
        for step in steps:
            covered_by_step.setdefault(step, set()).update(covering.get(test, ()))
    considered = {step: mutants for step, mutants in covered_by_step.items() if mutants}
    killed_nothing = [UnkillingThenStep(step, len(mutants)) for step, mutants in considered.items() if step.key not in kills]
    killed_nothing.sort(key=lambda found: (found.step.feature, found.step.line))
    return ThenStepVerdicts(
        considered=len(considered),
        covering_nothing=len(covered_by_step) - len(considered),
        killed_nothing=tuple(killed_nothing),
    )


def find_kills(mutants_dir: Path, tests: Sequence[str], candidates: Mapping[str, Mapping[str, list[str]]]) -> dict[str, str]:
    """Rerun each candidate test under its candidate mutants (`tools.mutation_kills`) in mutmut's
    `mutants/` directory: {"feature:line": a mutant that made that Then step fail}."""
    if not candidates:
        return {}
    wanted = mutants_dir / ".mutation-kill-candidates.json"
    output = mutants_dir / ".mutation-kills.json"
    wanted.write_text(json.dumps(candidates), encoding="utf-8")
    # mutants/ alone and first on the path: the tests must import the mutated package from there.
    path = os.pathsep.join([str(mutants_dir), str(REPO)])
    _run_pytest(
        mutants_dir,
        [
            "-p",
            "tools.mutation_kills",
            f"{CANDIDATES_OPTION}={wanted}",
            f"{KILLS_OPTION}={output}",
            f"--timeout={KILL_RUN_TIMEOUT_SECONDS}",
            "-o",
            "timeout_func_only=true",
            *tests,
        ],
        path,
        output,
        "finding which Then steps fail under which mutants",
    )
    return json.loads(output.read_text(encoding="utf-8"))


def collect_then_steps(project: Path, tests: Sequence[str]) -> dict[str, list[ThenStep]]:
    """Each pytest-bdd test of `tests` (paths as pytest takes them) with its Then steps, by node id,
    as pytest collects them in `project` (node ids match the ones mutmut records there)."""
    output = project / ".mutation-then-steps.json"
    # The project's own directory first, so its packages win; this repository only lends the plugin.
    path = os.pathsep.join([str(project), str(REPO)])
    _run_pytest(
        project,
        ["--collect-only", "-p", "tools.mutation_then_steps", f"{OUTPUT_OPTION}={output}", *tests],
        path,
        output,
        "collecting the Then steps",
    )
    raw = json.loads(output.read_text(encoding="utf-8"))
    output.unlink()
    return {test: [ThenStep(**step) for step in steps] for test, steps in raw.items()}


def _run_pytest(directory: Path, arguments: list[str], python_path: str, output: Path, doing: str) -> None:
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *arguments],
        cwd=directory,
        env={**os.environ, "PYTHONPATH": python_path},
        capture_output=True,
        text=True,
    )
    # Exit 1 (some test failed) is expected in the second pass: the reruns run mutated code.
    if ran.returncode not in (0, 1) or not output.exists():
        raise CollectionFailed(f"{doing} failed (pytest exit {ran.returncode}):\n{ran.stdout[-2000:]}{ran.stderr[-2000:]}")


# --- the pytest plugin ---------------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        OUTPUT_OPTION, dest="mutation_then_steps", metavar="PATH", help="write each pytest-bdd test's Then steps to PATH (JSON)"
    )


def pytest_configure(config: pytest.Config) -> None:
    output = config.getoption("mutation_then_steps")
    if output:
        config.pluginmanager.register(_ThenStepRecorder(Path(output), config.rootpath), "mutation-then-steps")


class _ThenStepRecorder:
    def __init__(self, output: Path, rootpath: Path) -> None:
        self._output = output
        self._root = rootpath
        self._steps: dict[str, list[dict[str, Any]]] = {}

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            steps = self._then_steps(item)
            if steps:
                self._steps[item.nodeid] = [asdict(step) for step in steps]

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self._output.write_text(json.dumps(self._steps, indent=1), encoding="utf-8")

    def _then_steps(self, item: pytest.Item) -> list[ThenStep]:
        template = registry_get_safe(scenario_wrapper_template_registry, getattr(item, "obj", None))
        if template is None:
            return []
        callspec = getattr(item, "callspec", None)
        scenario = template.render(callspec.params.get(_EXAMPLE_PARAMETER, {}) if callspec is not None else {})
        feature = self._relative(Path(template.feature.filename))
        found = []
        # The template's step says what is written (an outline's <placeholders>), the rendered one
        # what pytest-bdd matches against the step definitions for this row.
        for written, step in zip(template.steps, scenario.steps, strict=True):
            if step.type != "then":
                continue
            definitions = list(find_fixturedefs_for_step(step=step, fixturemanager=item.session._fixturemanager, node=item))
            if not definitions:
                continue  # an undefined step fails its scenario; `verity bdd validate` reports it
            # pytest-bdd runs the definition closest to the test (the last one ordered by scope).
            chosen = sorted(definitions, key=lambda definition: list(iterparentnodeids(definition.baseid)))[-1]
            context = step_function_context_registry.get(chosen.func)
            if context is None:
                continue
            path, line, _ = definition_site(context.step_func)
            found.append(ThenStep(feature, written.line_number, f"{written.keyword} {written.name}", self._relative(Path(path)), line))
        return found

    def _relative(self, path: Path) -> str:
        resolved = path.resolve()
        return str(resolved.relative_to(self._root)) if resolved.is_relative_to(self._root) else str(resolved)
