"""Seed 004's release gate over the figures (section 7.4): `done && verified` at least a rate,
the misjudgment rate at most a rate, the P95 of action retries at most a count. A threshold the
runs cannot show (no runs, no labelled runs) is missed too: a gate never passes on no evidence."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from runtime.trace_analysis.summary import Summary


@dataclass(frozen=True)
class Thresholds:
    min_done_verified: float | None = None
    max_misjudged: float | None = None
    max_p95_retries: int | None = None

    @property
    def given(self) -> bool:
        return any(value is not None for value in (self.min_done_verified, self.max_misjudged, self.max_p95_retries))

    def to_data(self) -> dict[str, Any]:
        return {"min_done_verified": self.min_done_verified, "max_misjudged": self.max_misjudged, "max_p95_retries": self.max_p95_retries}


def missed_thresholds(summary: Summary, thresholds: Thresholds) -> list[str]:
    """Each threshold the runs miss, said with the figure and the flag."""
    missed: list[str] = []
    if thresholds.min_done_verified is not None:
        rate = summary.done_and_verified.rate
        if rate is None or rate < thresholds.min_done_verified:
            missed.append(f"done and verified {_rate(rate)} is below --min-done-verified {thresholds.min_done_verified:g}")
    if thresholds.max_misjudged is not None:
        rate = summary.labelled.misjudged.rate
        if rate is None:
            missed.append("no run is labelled expected_verdict, so --max-misjudged has nothing to judge: label runs with their expected verdict")
        elif rate > thresholds.max_misjudged:
            missed.append(f"misjudged {_rate(rate)} is above --max-misjudged {thresholds.max_misjudged:g}")
    if thresholds.max_p95_retries is not None:
        p95 = summary.retries.p95
        if p95 is None or p95 > thresholds.max_p95_retries:
            missed.append(f"P95 action retries {p95 if p95 is not None else 'none'} is above --max-p95-retries {thresholds.max_p95_retries}")
    return missed


def _rate(rate: float | None) -> str:
    return "none (no runs)" if rate is None else f"{rate:g}"
