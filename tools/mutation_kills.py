"""Which Then step fails when a mutant is active? A pytest plugin for the mutation check's second pass.

mutmut stops a mutant's run at its first failing test, so it says that a mutant was killed, not by
which scenario, let alone by which step. This plugin runs in mutmut's `mutants/` directory (where
each mutated function is a trampoline that `MUTANT_UNDER_TEST` switches) and, for each selected
test, activates that test's candidate mutants one at a time and reruns the test, noting the step
pytest-bdd reports failing. A test stops as soon as each of its Then steps has failed once, so a
step that catches bugs costs a few reruns and only a step that catches none costs them all.

It imports nothing from the project: the code under test must come from `mutants/`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from _pytest.runner import runtestprotocol

CANDIDATES_OPTION = "--mutation-kill-candidates"
KILLS_OPTION = "--mutation-kills"
_MUTANT_VARIABLE = "MUTANT_UNDER_TEST"  # what mutmut's trampolines read on every call


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        CANDIDATES_OPTION,
        dest="mutation_kill_candidates",
        metavar="PATH",
        help='JSON {test node id: {"mutants": [...], "steps": ["feature:line", ...]}}: what to try on which test',
    )
    parser.addoption(
        KILLS_OPTION, dest="mutation_kills", metavar="PATH", help='write {"feature:line": mutant} for each Then step that failed'
    )


def pytest_configure(config: pytest.Config) -> None:
    candidates = config.getoption("mutation_kill_candidates")
    output = config.getoption("mutation_kills")
    if candidates and output:
        wanted = json.loads(Path(candidates).read_text(encoding="utf-8"))
        config.pluginmanager.register(_KillFinder(wanted, Path(output), config.rootpath), "mutation-kills")


class _KillFinder:
    def __init__(self, candidates: dict[str, dict[str, list[str]]], output: Path, rootpath: Path) -> None:
        self._candidates = candidates
        self._output = output
        self._root = rootpath
        self._kills: dict[str, str] = {}  # "feature:line" -> the first mutant that made that step fail
        self._failed_step: str | None = None

    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        kept = [item for item in items if item.nodeid in self._candidates]
        config.hook.pytest_deselected(items=[item for item in items if item.nodeid not in self._candidates])
        items[:] = kept

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> bool:
        candidate = self._candidates[item.nodeid]
        for mutant in candidate["mutants"]:
            if all(step in self._kills for step in candidate["steps"]):
                break
            self._failed_step = None
            os.environ[_MUTANT_VARIABLE] = mutant
            try:
                # nextitem=None tears every fixture down, so each rerun starts from nothing.
                runtestprotocol(item, log=False, nextitem=None)
            finally:
                os.environ[_MUTANT_VARIABLE] = ""
                item._initrequest()  # a fresh fixture request for the next rerun, as pytest-rerunfailures does
            if self._failed_step in candidate["steps"]:
                self._kills.setdefault(self._failed_step, mutant)
        return True  # the test's own outcome under the original code is mutmut's business, not this pass's

    def pytest_bdd_step_error(self, feature: Any, step: Any) -> None:
        self._failed_step = f"{self._relative(Path(feature.filename))}:{step.line_number}"

    def pytest_sessionfinish(self) -> None:
        self._output.write_text(json.dumps(self._kills, indent=1), encoding="utf-8")

    def _relative(self, path: Path) -> str:
        resolved = path.resolve()
        return str(resolved.relative_to(self._root)) if resolved.is_relative_to(self._root) else str(resolved)
