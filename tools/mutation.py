"""Mutation check: how many small bugs planted in the guard and target-check code do the tests catch?

    uv run python tools/mutation.py [--max-children 2] [--keep DIR] [--show N] [--json]

A test that binds a scenario but checks too little passes the gate; a mutation check finds it.
mutmut (a dev dependency) rewrites each function of MUTATED_MODULES into variants with one small
change (`<` for `<=`, another constant, a dropped argument...) and runs the TESTS that cover each
function against every variant. A variant the tests still pass on "survived": a bug they would
miss. The score is (killed + timed out) / (all mutants - skipped).

It then names the Then steps that killed no mutant of the code they cover: a second pass reruns
each pytest-bdd scenario under the mutants of the functions it runs that some test detected, and
notes which Then step failed; a step no mutant made fail is listed (`tools/mutation_then_steps.py`).

mutmut works in the current directory (it writes `mutants/` and reads `setup.cfg`), so the script
copies the project into a scratch directory first and the working tree stays untouched. This is a
benchmark-style script, not part of the suite: it takes minutes. BENCHMARKS.md records its figure.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tools.mutation_then_steps import (  # noqa: E402
    DETECTED,
    CollectionFailed,
    ThenStepVerdicts,
    collect_then_steps,
    covering_mutants,
    find_kills,
    kill_candidates,
    then_steps_that_killed_nothing,
)

# What is mutated (globs relative to the repository) and which tests judge it. Edit these when the
# modules move; the tests are the fast, Chromium-free ones that exercise the modules directly.
# target_check.py judges the page; page_blockers.py is the blocker detection it delegates to.
MUTATED_MODULES = ("runtime/guard/*", "runtime/execute/judges/target_check.py", "runtime/execute/judges/page_blockers.py")
TESTS = ("tests/guard", "tests/execute/test_execute_units.py", "tests/verdict/test_page_blockers.py")
# What the tests need besides the package itself (pytest-bdd reads features/ at import).
COPIED = ("runtime", "tests", "features", "contracts", "recipes", "proto", "pyproject.toml", "uv.lock")
_IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")
_RESULT_LINE = re.compile(r"^\s*(?P<mutant>\S+): (?P<status>.+)$")
_DETECTED = (*DETECTED, "caught by type check")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--max-children", type=int, default=2, help="mutants tested in parallel (default: 2)")
    parser.add_argument("--keep", type=Path, help="work in this directory and keep it (default: a temporary one)")
    parser.add_argument("--show", type=int, default=0, metavar="N", help="print the diff of the first N survivors")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if not (Path(sys.executable).parent / "mutmut").exists():
        print("mutation: mutmut is not installed; run `uv sync` (it is a dev dependency)", file=sys.stderr)
        return 2
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        return _measure(args.keep.resolve(), args)
    with tempfile.TemporaryDirectory(prefix="verity-mutation-") as scratch:
        return _measure(Path(scratch), args)


@dataclass(frozen=True)
class MutationTarget:
    """What mutmut mutates and which tests judge it, in a directory holding a copy of the project."""

    source: str  # the package directory mutmut copies into mutants/
    mutated: tuple[str, ...]  # globs of the modules to mutate
    tests: tuple[str, ...]  # test paths, as pytest takes them
    also_copy: tuple[str, ...] = ()  # what the tests read besides the package and tests/


@dataclass(frozen=True)
class MutationRun:
    statuses: dict[str, str]  # mutant name -> status, as `mutmut results` prints it
    seconds: float
    then_steps: ThenStepVerdicts
    then_step_seconds: float  # the second pass, which finds the Then steps each mutant made fail


class MutationRunFailed(Exception):
    pass


VERITY = MutationTarget(
    source="runtime",
    mutated=MUTATED_MODULES,
    tests=TESTS,
    also_copy=tuple(name for name in COPIED if name not in ("runtime", "tests", "pyproject.toml", "uv.lock")),
)


def run_mutants(workdir: Path, target: MutationTarget, max_children: int) -> MutationRun:
    """Run mutmut in `workdir` (which it writes to) and judge the Then steps of `target.tests`."""
    mutmut = Path(sys.executable).parent / "mutmut"
    _write_settings(workdir, target)
    started = time.monotonic()
    run = subprocess.run(
        [str(mutmut), "run", "--max-children", str(max_children)],
        cwd=workdir,
        stdout=subprocess.DEVNULL,  # a progress line redrawn many times a second
        stderr=subprocess.PIPE,
        text=True,
    )
    seconds = time.monotonic() - started
    if run.returncode != 0:
        raise MutationRunFailed(f"`mutmut run` exited with status {run.returncode}\n{run.stderr[-3000:]}")
    statuses = _statuses(workdir, mutmut)
    if not statuses:
        raise MutationRunFailed("mutmut reported no mutants; check MUTATED_MODULES")
    then_steps = collect_then_steps(workdir, target.tests)
    covering = covering_mutants(then_steps, _tests_by_function(workdir), statuses)
    started = time.monotonic()
    kills = find_kills(workdir / "mutants", target.tests, kill_candidates(then_steps, covering, statuses))
    verdicts = then_steps_that_killed_nothing(then_steps, covering, kills)
    return MutationRun(statuses, round(seconds, 1), verdicts, round(time.monotonic() - started, 1))


def _measure(workdir: Path, args: argparse.Namespace) -> int:
    _copy_project(workdir)
    try:
        run = run_mutants(workdir, VERITY, args.max_children)
    except (MutationRunFailed, CollectionFailed) as failure:
        print(f"mutation: {failure}", file=sys.stderr)
        return 1
    figures = _figures(run, args.max_children)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        _print_figures(figures)
    survivors = [mutant for mutant, status in run.statuses.items() if status == "survived"]
    mutmut = Path(sys.executable).parent / "mutmut"
    for mutant in survivors[: args.show]:
        shown = subprocess.run([str(mutmut), "show", mutant], cwd=workdir, capture_output=True, text=True)
        print(shown.stdout)
    return 0


def _copy_project(workdir: Path) -> None:
    for name in COPIED:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, workdir / name, ignore=_IGNORED, dirs_exist_ok=True)
        elif source.is_file():
            shutil.copy2(source, workdir / name)


def _write_settings(workdir: Path, target: MutationTarget) -> None:
    # pyproject.toml has no [tool.mutmut], so mutmut reads its settings from setup.cfg.
    lines = ["[mutmut]", f"source_paths = {target.source}", "only_mutate ="]
    lines += [f"    {pattern}" for pattern in target.mutated]
    lines += ["pytest_add_cli_args_test_selection ="]
    lines += [f"    {path}" for path in target.tests]
    lines += ["pytest_add_cli_args = -p no:cacheprovider", "also_copy ="]
    lines += [f"    {name}" for name in target.also_copy]
    (workdir / "setup.cfg").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _statuses(workdir: Path, mutmut: Path) -> dict[str, str]:
    """Every mutant's status, as `mutmut results --all true` prints them."""
    listed = subprocess.run([str(mutmut), "results", "--all", "true"], cwd=workdir, capture_output=True, text=True)
    statuses = {}
    for line in listed.stdout.splitlines():
        match = _RESULT_LINE.match(line)
        if match:
            statuses[match.group("mutant")] = match.group("status").strip()
    return statuses


def _tests_by_function(workdir: Path) -> dict[str, list[str]]:
    """mutmut's coverage: the node ids of the tests that ran each mutated function (by mangled name)."""
    stats = json.loads((workdir / "mutants" / "mutmut-stats.json").read_text(encoding="utf-8"))
    return stats["tests_by_mangled_function_name"]


def _figures(run: MutationRun, max_children: int) -> dict[str, object]:
    statuses = run.statuses
    counts = Counter(statuses.values())
    by_module: dict[str, Counter[str]] = defaultdict(Counter)
    for mutant, status in statuses.items():
        by_module[_module_of(mutant)][status] += 1
    return {
        "score": _score(counts),
        "mutants": len(statuses),
        "statuses": dict(counts.most_common()),
        "modules": {module: {"score": _score(module_counts), **module_counts} for module, module_counts in sorted(by_module.items())},
        "seconds": run.seconds,
        "then_step_seconds": run.then_step_seconds,
        "max_children": max_children,
        "mutated": list(MUTATED_MODULES),
        "tests": list(TESTS),
        "then_steps_that_killed_no_mutant": run.then_steps.to_json(),
    }


def _score(counts: Counter[str]) -> float:
    judged = sum(counts.values()) - counts["skipped"]
    detected = sum(counts[status] for status in _DETECTED)
    return round(100 * detected / judged, 1) if judged else 0.0


def _module_of(mutant: str) -> str:
    # Mutant names read `runtime.guard.intent.x_function__mutmut_3` or `...x<sep>Class<sep>method__mutmut_3`.
    return mutant.split(".x", 1)[0]


def _print_figures(figures: dict[str, object]) -> None:
    print(
        f"mutation score: {figures['score']}% of {figures['mutants']} mutants detected"
        f" ({figures['seconds']} s; Then-step pass {figures['then_step_seconds']} s)"
    )
    print("  " + ", ".join(f"{count} {status}" for status, count in figures["statuses"].items()))
    for module, module_figures in figures["modules"].items():
        detail = ", ".join(f"{count} {status}" for status, count in module_figures.items() if status != "score")
        print(f"  {module}: {module_figures['score']}% ({detail})")
    print(f"  mutated: {', '.join(figures['mutated'])}; tests: {', '.join(figures['tests'])}")
    then_steps = figures["then_steps_that_killed_no_mutant"]
    print(
        f"Then steps that killed no mutant of the code they cover: {len(then_steps['steps'])} of the"
        f" {then_steps['considered']} Then steps whose scenario covers a mutant"
        f" ({then_steps['covering_no_mutant']} more cover none)"
    )
    for step in then_steps["steps"]:
        print(f"  {step['feature']}: {step['step']}  ({step['definition']}; {step['covering_mutants']} covering mutants)")


if __name__ == "__main__":
    raise SystemExit(main())
