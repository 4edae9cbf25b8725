"""`verity bdd validate` and `verity bdd gate`."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from runtime.gate.gate import run_gate, verdict_lines
from runtime.gate.live import LIVE_TAG, LIVE_VARIABLE, LiveGateRefused, described, live_model, live_pytest_args
from runtime.gate.validate import validate_project

EXIT_OK = 0
EXIT_GAPS = 1
EXIT_USAGE = 2
EXIT_NO_MODEL = 3  # `gate --live` with no model configured: nothing ran


def register(subparsers: argparse._SubParsersAction) -> None:
    bdd = subparsers.add_parser(
        "bdd",
        help="check that every contract is proven by a scenario bound to a passing test",
        description="The contract -> feature -> test gate.",
    )
    bdd_commands = bdd.add_subparsers(dest="bdd_command", metavar="SUBCOMMAND")
    bdd.set_defaults(handler=lambda _args: _missing_subcommand(bdd))

    validate = bdd_commands.add_parser(
        "validate",
        help="statically check contracts, features, tests and step definitions (no test runs)",
        description="List every contract without a scenario, scenario without a contract tag, unknown or "
        "mistyped contract tag, unbound scenario, undefined step, then step that checks nothing and malformed "
        "contract file, each with file:line:col. Exit 1 if any.",
    )
    _add_common_options(validate)
    validate.set_defaults(handler=_run_validate)

    gate = bdd_commands.add_parser(
        "gate",
        help="run the test suite once and fail unless every contract's scenarios pass",
        description="Run pytest once over the whole suite, map contract -> scenario -> test -> outcome, write "
        "<out>/traceability.md and <out>/traceability.json, and have pytest write <out>/junit.xml (JUnit XML) and "
        "<out>/cucumber.json (Cucumber JSON) for CI. Arguments after `--` go to pytest; a --junitxml or "
        "--cucumberjson among them replaces the default path, and a selection (-k, -m, paths) judges only the "
        "contracts whose scenarios it selects.",
    )
    _add_common_options(gate)
    gate.add_argument(
        "--out", type=Path, default=None, help="directory for the matrix and the CI reports, created if missing (default: <root>/reports)"
    )
    gate.add_argument(
        "--live",
        action="store_true",
        help="run only the scenarios tagged @live, against the model the environment names (VERITY_MODEL and its "
        f"provider's key and base URL); exit {EXIT_NO_MODEL} without running anything when none is configured",
    )
    gate.add_argument("pytest_args", nargs=argparse.REMAINDER, help="-- followed by arguments passed to pytest")
    gate.set_defaults(handler=_run_gate)


def _add_common_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--root", type=Path, default=Path("."), help="project root holding contracts/, features/, tests/ (default: .)"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON on stdout")


def _run_validate(args: argparse.Namespace) -> int:
    root = _project_root(args.root)
    if root is None:
        return EXIT_USAGE
    report = validate_project(root)
    if args.json:
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
        return EXIT_OK if report.ok else EXIT_GAPS
    for problem in report.problems:
        print(problem.render())
    print(report.summary())
    return EXIT_OK if report.ok else EXIT_GAPS


def _run_gate(args: argparse.Namespace) -> int:
    root = _project_root(args.root)
    if root is None:
        return EXIT_USAGE
    pytest_args = list(args.pytest_args)
    if pytest_args and pytest_args[0] == "--":
        pytest_args = pytest_args[1:]
    elif pytest_args:
        print(f"verity bdd gate: unexpected argument {pytest_args[0]!r}; put pytest arguments after `--`", file=sys.stderr)
        return EXIT_USAGE
    extra_env: dict[str, str] = {}
    if args.live:
        try:
            model = live_model(os.environ)
        except LiveGateRefused as refused:
            print(f"verity bdd gate --live: {refused}", file=sys.stderr)
            return EXIT_NO_MODEL
        print(f"verity bdd gate --live: the @{LIVE_TAG} scenarios against {described(model)}", file=sys.stderr)
        pytest_args, extra_env = live_pytest_args(pytest_args), {LIVE_VARIABLE: "1"}
    out_dir = args.out.resolve() if args.out is not None else root / "reports"
    # With --json, stdout carries only the JSON document, so pytest's live output goes to stderr.
    sys.stdout.flush()
    stream_to = sys.stderr.fileno() if args.json else None
    result = run_gate(root, out_dir, pytest_args, stream_to=stream_to, extra_env=extra_env)
    if args.json:
        print(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
    else:
        if result.problems:
            print()
        for problem in result.problems:
            print(problem.render())
        print()
        print("\n".join(verdict_lines(result, root)))
    return EXIT_OK if result.passed else EXIT_GAPS


def _project_root(root: Path) -> Path | None:
    if not root.is_dir():
        print(f"verity bdd: --root {root} is not a directory", file=sys.stderr)
        return None
    return root.resolve()


def _missing_subcommand(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_USAGE
