"""Seed 004's reliability figures over a set of runs.

Percentiles are nearest-rank: the p-th percentile of n values is the value at rank ceil(p/100 * n)
of the values sorted ascending (so P50 of [1, 2, 3, 4] is 2 and P95 of 20 values is the 19th).
It always names a value that occurred; nothing is interpolated.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from runtime.trace_analysis.runs import COMPLETED, FoundRuns, RunFigures


def nearest_rank(values: Sequence[float], percent: float) -> float | None:
    """The nearest-rank percentile of `values`; None when there are none."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(percent / 100 * len(ordered)))
    return ordered[rank - 1]


@dataclass(frozen=True)
class Distribution:
    """A per-run (or per-state) quantity: how many values, and their mean, P50, P95 and max."""

    count: int
    mean: float | None
    p50: float | None
    p95: float | None
    max: float | None

    @classmethod
    def of(cls, values: Sequence[float]) -> Distribution:
        if not values:
            return cls(0, None, None, None, None)
        return cls(len(values), round(sum(values) / len(values), 2), nearest_rank(values, 50), nearest_rank(values, 95), max(values))


@dataclass(frozen=True)
class Fraction:
    count: int
    of: int

    @property
    def rate(self) -> float | None:
        return round(self.count / self.of, 4) if self.of else None


@dataclass(frozen=True)
class LabelledVerdicts:
    """Runs labelled `expected_verdict` (a stop reason; `completed` expects success)."""

    runs: int
    # Runs that claimed success (completed and verified) though their label expects otherwise,
    # out of the runs expected not to complete: the false-success rate.
    false_successes: Fraction
    # Runs that did not complete and verify though their label expects them to.
    false_failures: Fraction
    # Runs whose stop reason is the one their label names.
    agreements: Fraction
    # Runs judged the wrong way round (a false success or a false failure), of all labelled runs:
    # seed 004's misjudgment rate.
    misjudged: Fraction


@dataclass(frozen=True)
class Summary:
    runs: int
    spans: int
    spans_outside_runs: int
    done_and_verified: Fraction
    labelled: LabelledVerdicts
    replans: Distribution
    retries: Distribution  # action retries: replans, repair attempts and action-cache fallbacks
    model_retries: Distribution  # model calls retried (HTTP 429, 5xx)
    llm_tokens: Distribution
    llm_input_tokens: int
    llm_output_tokens: int
    blocked_requests: Distribution
    stop_reasons: dict[str, int]
    blocker_kinds: dict[str, int]  # runs that met each kind
    step_latency_ms: dict[str, Distribution]  # by state kind


def summarize(found: FoundRuns, spans: int) -> Summary:
    runs = found.runs
    latencies: dict[str, list[float]] = defaultdict(list)
    for run in runs:
        for state in run.states:
            latencies[state.kind].append(round(state.duration_ms, 3))
    blockers = Counter(kind for run in runs for kind in run.blocker_kinds_met)
    return Summary(
        runs=len(runs),
        spans=spans,
        spans_outside_runs=found.spans_outside_runs,
        done_and_verified=Fraction(sum(1 for run in runs if run.done_and_verified), len(runs)),
        labelled=_labelled(runs),
        replans=Distribution.of([run.replans for run in runs]),
        retries=Distribution.of([run.retries for run in runs]),
        model_retries=Distribution.of([run.model_retries for run in runs]),
        llm_tokens=Distribution.of([run.llm_tokens for run in runs]),
        llm_input_tokens=sum(run.input_tokens for run in runs),
        llm_output_tokens=sum(run.output_tokens for run in runs),
        blocked_requests=Distribution.of([run.blocked_requests for run in runs]),
        stop_reasons=_by_count(Counter(run.stop_reason for run in runs)),
        blocker_kinds=_by_count(blockers),
        step_latency_ms={kind: Distribution.of(values) for kind, values in sorted(latencies.items())},
    )


def _labelled(runs: Sequence[RunFigures]) -> LabelledVerdicts:
    labelled = [run for run in runs if run.expected_verdict is not None]
    expect_success = [run for run in labelled if run.expected_verdict == COMPLETED]
    expect_other = [run for run in labelled if run.expected_verdict != COMPLETED]
    false_successes = Fraction(sum(1 for run in expect_other if run.done_and_verified), len(expect_other))
    false_failures = Fraction(sum(1 for run in expect_success if not run.done_and_verified), len(expect_success))
    return LabelledVerdicts(
        runs=len(labelled),
        false_successes=false_successes,
        false_failures=false_failures,
        misjudged=Fraction(false_successes.count + false_failures.count, len(labelled)),
        agreements=Fraction(sum(1 for run in labelled if run.stop_reason == run.expected_verdict), len(labelled)),
    )


def _by_count(counter: Counter[str]) -> dict[str, int]:
    """Most frequent first, ties by name, so the output is the same for the same runs."""
    return dict(sorted(counter.items(), key=lambda item: (-item[1], item[0])))
