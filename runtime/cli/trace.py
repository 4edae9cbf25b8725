"""`verity trace summarize FILE|DIR...`: seed 004's reliability figures from OpenTelemetry traces."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from runtime.trace_analysis.gate import Thresholds, missed_thresholds
from runtime.trace_analysis.render import render_json, render_table
from runtime.trace_analysis.runs import find_runs
from runtime.trace_analysis.spans import CollectedSpans, read_trace_paths
from runtime.trace_analysis.summary import summarize

EXIT_NO_RUNS = 1
EXIT_USAGE = 2
EXIT_GATE_MISSED = 3


def register(commands: argparse._SubParsersAction) -> None:
    trace = commands.add_parser("trace", help="analyse OpenTelemetry traces of runs")
    actions = trace.add_subparsers(dest="trace_command", metavar="ACTION", required=True)
    summarize_parser = actions.add_parser(
        "summarize",
        help="reliability figures over runs: done and verified, false successes, replans, retries, stop reasons, latencies",
        description="Read OTLP/JSON trace files (a run directory's trace.jsonl, a Collector file exporter's output) and "
        "print seed 004's reliability figures over the runs they hold. Directories are searched for trace.jsonl files.",
    )
    summarize_parser.add_argument("paths", type=Path, nargs="*", metavar="FILE|DIR", help="trace files, or directories holding trace.jsonl files")
    summarize_parser.add_argument("--json", action="store_true", help="print the figures as JSON instead of a table")
    summarize_parser.add_argument(
        "--listen", metavar="HOST:PORT", help="also receive OTLP over gRPC on HOST:PORT (port 0 picks one) until --runs runs ended or --seconds passed"
    )
    summarize_parser.add_argument("--seconds", type=_positive_float, default=60.0, metavar="S", help="with --listen: stop listening after S seconds (default 60)")
    summarize_parser.add_argument("--runs", type=_positive_int, metavar="N", help="with --listen: stop once N runs have ended")
    gate = summarize_parser.add_argument_group("release gate (seed 004): exit 3 when the runs miss a threshold")
    gate.add_argument("--min-done-verified", type=_rate, metavar="R", help="the done-and-verified rate must be at least R (0 to 1)")
    gate.add_argument("--max-misjudged", type=_rate, metavar="R", help="false successes and failures among labelled runs at most R (0 to 1)")
    gate.add_argument("--max-p95-retries", type=_count, metavar="N", help="the P95 of action retries (replans, repairs) per run at most N")
    summarize_parser.set_defaults(handler=_summarize_command, parser=summarize_parser)


def _summarize_command(args: argparse.Namespace) -> int:
    if not args.paths and not args.listen:
        args.parser.error("name trace files or directories, or --listen HOST:PORT")
    if args.runs is not None and not args.listen:
        args.parser.error("--runs needs --listen")
    collected = read_trace_paths(args.paths)
    if args.listen:
        from runtime.trace_analysis.receiver import ListenError, receive_spans  # gRPC only when listening

        def listening(address: str) -> None:
            print(f"verity trace: listening on {address} for OTLP/gRPC", file=sys.stderr, flush=True)

        try:
            asyncio.run(receive_spans(args.listen, collected, seconds=args.seconds, runs=args.runs, on_listening=listening))
        except ListenError as error:
            print(f"verity trace: {error}", file=sys.stderr)
            return EXIT_USAGE
    thresholds = Thresholds(args.min_done_verified, args.max_misjudged, args.max_p95_retries)
    return print_summary(collected, json_mode=args.json, thresholds=thresholds)


def _rate(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text} is not a rate from 0 to 1")
    return value


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is not a whole number of at least 0")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number")
    return value


def _positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive whole number")
    return value


def print_summary(collected: CollectedSpans, *, json_mode: bool, thresholds: Thresholds | None = None) -> int:
    for problem in collected.problems:
        print(f"verity trace: {problem}", file=sys.stderr)
    found = find_runs(collected.spans)
    summary = summarize(found, len(collected.spans))
    gate = thresholds if thresholds is not None and thresholds.given else None
    missed = missed_thresholds(summary, gate) if gate is not None else []
    if json_mode:
        judged = {"thresholds": gate.to_data(), "missed": missed, "passed": not missed} if gate is not None else None
        print(render_json(summary, found.runs, collected.problems, judged), end="")
    else:
        print(render_table(summary, len(collected.files)), end="")
    if summary.runs == 0:
        print("verity trace: no run found (no invoke_agent span in the traces read)", file=sys.stderr)
        return EXIT_NO_RUNS
    for reason in missed:
        print(f"verity trace: gate missed: {reason}", file=sys.stderr)
    return EXIT_GATE_MISSED if missed else 0
