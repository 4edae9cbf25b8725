"""`verity trace summarize FILE|DIR...`: seed 004's reliability figures from OpenTelemetry traces."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from runtime.traces.render import render_json, render_table
from runtime.traces.runs import find_runs
from runtime.traces.spans import CollectedSpans, read_trace_paths
from runtime.traces.summary import summarize

EXIT_NO_RUNS = 1


def register(commands: argparse._SubParsersAction) -> None:
    trace = commands.add_parser("trace", help="analyse OpenTelemetry traces of runs")
    actions = trace.add_subparsers(dest="trace_command", metavar="ACTION", required=True)
    summarize_parser = actions.add_parser(
        "summarize",
        help="reliability figures over runs: done and verified, false successes, replans, retries, stop reasons, latencies",
        description="Read OTLP/JSON trace files (a run directory's trace.jsonl, a Collector file exporter's output) and "
        "print seed 004's reliability figures over the runs they hold. Directories are searched for trace.jsonl files.",
    )
    summarize_parser.add_argument("paths", type=Path, nargs="+", metavar="FILE|DIR", help="trace files, or directories holding trace.jsonl files")
    summarize_parser.add_argument("--json", action="store_true", help="print the figures as JSON instead of a table")
    summarize_parser.set_defaults(handler=_summarize_command)


def _summarize_command(args: argparse.Namespace) -> int:
    collected = read_trace_paths(args.paths)
    return print_summary(collected, json_mode=args.json)


def print_summary(collected: CollectedSpans, *, json_mode: bool) -> int:
    for problem in collected.problems:
        print(f"verity trace: {problem}", file=sys.stderr)
    found = find_runs(collected.spans)
    summary = summarize(found, len(collected.spans))
    print(render_json(summary, found.runs, collected.problems) if json_mode else render_table(summary, len(collected.files)), end="")
    if summary.runs == 0:
        print("verity trace: no run found (no invoke_agent span in the traces read)", file=sys.stderr)
        return EXIT_NO_RUNS
    return 0
