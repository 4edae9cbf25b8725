"""Mutation check: how many small bugs planted in the guard and target-check code do the tests catch?

    uv run python tools/mutation.py [--max-children 2] [--keep DIR] [--show N] [--json]

A test that binds a scenario but checks too little passes the gate; a mutation check finds it.
mutmut (a dev dependency) rewrites each function of MUTATED_MODULES into variants with one small
change (`<` for `<=`, another constant, a dropped argument...) and runs the TESTS that cover each
function against every variant. A variant the tests still pass on "survived": a bug they would
miss. The score is (killed + timed out) / (all mutants - skipped).

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
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# What is mutated (globs relative to the repository) and which tests judge it. Edit these when the
# modules move; the tests are the fast, Chromium-free ones that exercise the modules directly.
# target_check.py judges the page; page_blockers.py is the blocker detection it delegates to.
MUTATED_MODULES = ("runtime/guard/*", "runtime/execute/target_check.py", "runtime/execute/page_blockers.py")
TESTS = ("tests/guard", "tests/execute/test_execute_units.py", "tests/verdict/test_page_blockers.py")
# What the tests need besides the package itself (pytest-bdd reads features/ at import).
COPIED = ("runtime", "tests", "features", "contracts", "recipes", "proto", "pyproject.toml", "uv.lock")
_IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")
_RESULT_LINE = re.compile(r"^\s*(?P<mutant>\S+): (?P<status>.+)$")
_DETECTED = ("killed", "timeout", "caught by type check")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--max-children", type=int, default=2, help="mutants tested in parallel (default: 2)")
    parser.add_argument("--keep", type=Path, help="work in this directory and keep it (default: a temporary one)")
    parser.add_argument("--show", type=int, default=0, metavar="N", help="print the diff of the first N survivors")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    mutmut = Path(sys.executable).parent / "mutmut"
    if not mutmut.exists():
        print("mutation: mutmut is not installed; run `uv sync` (it is a dev dependency)", file=sys.stderr)
        return 2
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        return _measure(args.keep.resolve(), mutmut, args)
    with tempfile.TemporaryDirectory(prefix="verity-mutation-") as scratch:
        return _measure(Path(scratch), mutmut, args)


def _measure(workdir: Path, mutmut: Path, args: argparse.Namespace) -> int:
    _copy_project(workdir)
    started = time.monotonic()
    run = subprocess.run(
        [str(mutmut), "run", "--max-children", str(args.max_children)],
        cwd=workdir,
        stdout=subprocess.DEVNULL,  # a progress line redrawn many times a second
        stderr=subprocess.PIPE,
        text=True,
    )
    elapsed = time.monotonic() - started
    if run.returncode != 0:
        print(f"mutation: `mutmut run` exited with status {run.returncode}\n{run.stderr[-3000:]}", file=sys.stderr)
        return 1
    statuses = _statuses(workdir, mutmut)
    if not statuses:
        print("mutation: mutmut reported no mutants; check MUTATED_MODULES", file=sys.stderr)
        return 1
    figures = _figures(statuses, elapsed, args.max_children)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        _print_figures(figures)
    survivors = [mutant for mutant, status in statuses.items() if status == "survived"]
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
    # pyproject.toml has no [tool.mutmut], so mutmut reads its settings from setup.cfg.
    lines = ["[mutmut]", "source_paths = runtime", "only_mutate ="]
    lines += [f"    {pattern}" for pattern in MUTATED_MODULES]
    lines += ["pytest_add_cli_args_test_selection ="]
    lines += [f"    {path}" for path in TESTS]
    lines += ["pytest_add_cli_args = -p no:cacheprovider", "also_copy ="]
    lines += [f"    {name}" for name in COPIED if name not in ("runtime", "tests", "pyproject.toml", "uv.lock")]
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


def _figures(statuses: dict[str, str], elapsed: float, max_children: int) -> dict[str, object]:
    counts = Counter(statuses.values())
    by_module: dict[str, Counter[str]] = defaultdict(Counter)
    for mutant, status in statuses.items():
        by_module[_module_of(mutant)][status] += 1
    return {
        "score": _score(counts),
        "mutants": len(statuses),
        "statuses": dict(counts.most_common()),
        "modules": {module: {"score": _score(module_counts), **module_counts} for module, module_counts in sorted(by_module.items())},
        "seconds": round(elapsed, 1),
        "max_children": max_children,
        "mutated": list(MUTATED_MODULES),
        "tests": list(TESTS),
    }


def _score(counts: Counter[str]) -> float:
    judged = sum(counts.values()) - counts["skipped"]
    detected = sum(counts[status] for status in _DETECTED)
    return round(100 * detected / judged, 1) if judged else 0.0


def _module_of(mutant: str) -> str:
    # Mutant names read `runtime.guard.intent.x_function__mutmut_3` or `...x<sep>Class<sep>method__mutmut_3`.
    return mutant.split(".x", 1)[0]


def _print_figures(figures: dict[str, object]) -> None:
    print(f"mutation score: {figures['score']}% of {figures['mutants']} mutants detected ({figures['seconds']} s)")
    print("  " + ", ".join(f"{count} {status}" for status, count in figures["statuses"].items()))
    for module, module_figures in figures["modules"].items():
        detail = ", ".join(f"{count} {status}" for status, count in module_figures.items() if status != "score")
        print(f"  {module}: {module_figures['score']}% ({detail})")
    print(f"  mutated: {', '.join(figures['mutated'])}; tests: {', '.join(figures['tests'])}")


if __name__ == "__main__":
    raise SystemExit(main())
