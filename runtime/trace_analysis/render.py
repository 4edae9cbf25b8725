"""A summary as a plain-text table (the default) or as JSON (`--json`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from runtime.trace_analysis.runs import RunFigures
from runtime.trace_analysis.summary import Distribution, Fraction, Summary

PER_RUN = (
    ("replans", "replans"),
    ("retries", "action retries"),
    ("model_retries", "model retries"),
    ("llm_tokens", "LLM tokens"),
    ("blocked_requests", "blocked requests"),
)


def summary_data(summary: Summary) -> dict[str, Any]:
    """The summary as JSON-ready data: every fraction with its rate, every distribution whole."""
    return _plain(summary)


def render_json(summary: Summary, runs: Sequence[RunFigures], problems: list[str], gate: dict[str, Any] | None = None) -> str:
    """The summary, then each run's own figures (to find the runs behind a number), then problems
    (and the release gate's judgement, when thresholds were given)."""
    each = [{**_plain(run), "states": len(run.states), "llm_tokens": run.llm_tokens} for run in runs]
    judged = {"gate": gate} if gate is not None else {}
    return json.dumps({**summary_data(summary), "each_run": each, "problems": problems, **judged}, indent=2, ensure_ascii=False) + "\n"


def render_table(summary: Summary, files: int) -> str:
    lines = [f"runs: {summary.runs} (from {summary.spans} spans in {files} file{'s' if files != 1 else ''})"]
    if summary.spans_outside_runs:
        lines.append(f"spans outside any run: {summary.spans_outside_runs} (a run that never ended leaves no invoke_agent span)")
    lines.append(f"done and verified: {_fraction(summary.done_and_verified)}")
    labelled = summary.labelled
    if labelled.runs:
        lines += [
            f"labelled runs (verity.label.expected_verdict): {labelled.runs}",
            f"  false successes: {_fraction(labelled.false_successes)} of the runs expected not to complete",
            f"  false failures:  {_fraction(labelled.false_failures)} of the runs expected to complete",
            f"  verdict agrees:  {_fraction(labelled.agreements)}",
            f"  misjudged:       {_fraction(labelled.misjudged)} (false successes and failures)",
        ]
    else:
        lines.append("labelled runs: none (label runs with expected_verdict to measure false successes)")
    lines.append("")
    rows = [[title, *_distribution_cells(getattr(summary, name))] for name, title in PER_RUN]
    lines += _table(["per run", "mean", "p50", "p95", "max"], rows)
    lines.append(f"LLM tokens in all: {summary.llm_input_tokens} input, {summary.llm_output_tokens} output")
    lines.append("")
    lines += _table(["stop reason", "runs"], [[reason, str(count)] for reason, count in summary.stop_reasons.items()])
    lines.append("")
    lines += _table(["blocker kind", "runs that met it"], [[kind, str(count)] for kind, count in summary.blocker_kinds.items()] or [["(none)", "0"]])
    lines.append("")
    latency_rows = [[kind, str(d.count), *_distribution_cells(d)[1:]] for kind, d in summary.step_latency_ms.items()]
    lines += _table(["step kind", "states", "p50 ms", "p95 ms", "max ms"], latency_rows or [["(none)", "0", "", "", ""]])
    return "\n".join(lines) + "\n"


def _plain(value: Any) -> Any:
    if isinstance(value, Fraction):
        return {"count": value.count, "of": value.of, "rate": value.rate}
    if hasattr(value, "__dataclass_fields__"):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def _fraction(fraction: Fraction) -> str:
    rate = fraction.rate
    return f"{fraction.count} of {fraction.of}" + (f" ({rate * 100:.1f}%)" if rate is not None else "")


def _distribution_cells(distribution: Distribution) -> list[str]:
    return [_number(value) for value in (distribution.mean, distribution.p50, distribution.p95, distribution.max)]


def _number(value: float | None) -> str:
    if value is None:
        return "-"
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        first, *rest = cells
        return "  ".join([first.ljust(widths[0]), *(cell.rjust(width) for cell, width in zip(rest, widths[1:]))]).rstrip()

    return [line(header), *(line(row) for row in rows)]

