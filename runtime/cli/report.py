"""`verity report RUN_DIR`: write (or rewrite) a run directory's report.html."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from runtime.report.run_dir import NotARunDirectory
from runtime.report.write import write_report

EXIT_NOT_A_RUN = 3


def register(commands: argparse._SubParsersAction) -> None:
    report = commands.add_parser(
        "report",
        help="write a run's self-contained HTML report (RUN_DIR/report.html)",
        description="Write RUN_DIR/report.html: the verdict and output, every executed state with its screenshot "
        "thumbnail, evaluation, blocker, evidence and provenance, and the replan history. One file, no network.",
    )
    report.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="a run directory (verity run --out, or runs/<run id>)")
    report.set_defaults(handler=_report_command)


def _report_command(args: argparse.Namespace) -> int:
    try:
        path = write_report(args.run_dir)
    except NotARunDirectory as error:
        print(f"verity report: {error}", file=sys.stderr)
        return EXIT_NOT_A_RUN
    except OSError as error:
        print(f"verity report: cannot write the report into {args.run_dir}: {error.strerror or error}", file=sys.stderr)
        return 1
    print(path)
    return 0
