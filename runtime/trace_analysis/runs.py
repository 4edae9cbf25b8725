"""Runs found in a set of spans: one per `invoke_agent` span, with the figures the summary needs.

A run's figures come from its `invoke_agent` span, which carries the verdict and the run's counts
(README, Tracing), and from its state spans: the direct children of the run span that carry
`verity.state.kind`. Spans of a run whose `invoke_agent` span never arrived (a run killed before
it ended) belong to no run and are only counted.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from runtime.trace_export import attributes as names
from runtime.trace_analysis.spans import TraceSpan

EXPECTED_VERDICT_LABEL = names.LABEL_PREFIX + "expected_verdict"
COMPLETED = "completed"


@dataclass(frozen=True)
class StateTiming:
    kind: str
    duration_ms: float
    blocker_kind: str | None


@dataclass(frozen=True)
class RunFigures:
    run_id: str
    trace_id: str
    stop_reason: str
    verified: bool
    blocker_kind: str | None
    replans: int
    # Action retries (seed 004's retries): replans, repair attempts and cached paths that fell back
    # to their model; model HTTP retries apart.
    repairs: int
    retries: int
    model_retries: int
    blocked_requests: int
    input_tokens: int
    output_tokens: int
    expected_verdict: str | None
    states: tuple[StateTiming, ...] = field(default_factory=tuple)
    cache_fallbacks: int = 0

    @property
    def done_and_verified(self) -> bool:
        """Seed 004's success: the run completed and its verification held."""
        return self.stop_reason == COMPLETED and self.verified

    @property
    def llm_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def blocker_kinds_met(self) -> set[str]:
        """Every blocker kind the run met: in any of its states, or as its last blocker."""
        kinds = {state.blocker_kind for state in self.states if state.blocker_kind}
        if self.blocker_kind:
            kinds.add(self.blocker_kind)
        return kinds


@dataclass(frozen=True)
class FoundRuns:
    runs: tuple[RunFigures, ...]
    spans_outside_runs: int


def find_runs(spans: list[TraceSpan]) -> FoundRuns:
    children: dict[tuple[str, str], list[TraceSpan]] = defaultdict(list)
    for span in spans:
        if span.parent_span_id:
            children[(span.trace_id, span.parent_span_id)].append(span)
    roots = [span for span in spans if span.attributes.get(names.OPERATION_NAME) == names.INVOKE_AGENT]
    runs = [_figures(root, children[(root.trace_id, root.span_id)]) for root in roots]
    runs.sort(key=lambda run: (run.trace_id, run.run_id))
    in_runs = sum(_subtree_size(root, children) for root in roots)
    outside = sum(1 for span in spans if not _is_client_side(span)) - in_runs
    return FoundRuns(tuple(runs), max(outside, 0))


def _figures(root: TraceSpan, direct_children: list[TraceSpan]) -> RunFigures:
    attributes = root.attributes
    states = sorted((span for span in direct_children if names.STATE_KIND in span.attributes), key=lambda span: span.start_ns)
    expected = attributes.get(EXPECTED_VERDICT_LABEL)
    replans = _count(attributes.get(names.REPLANS))
    repairs = sum(_count(span.attributes.get(names.REPAIR_ATTEMPTS)) for span in states)
    fallbacks = sum(1 for span in states if span.attributes.get(names.ACTION_CACHE) == "fell_back")
    return RunFigures(
        run_id=str(attributes.get(names.RUN_ID, root.span_id)),
        trace_id=root.trace_id,
        stop_reason=str(attributes.get(names.STOP_REASON, "unknown")),
        verified=attributes.get(names.VERIFIED) is True,
        blocker_kind=_text_or_none(attributes.get(names.BLOCKER_KIND)),
        replans=replans,
        repairs=repairs,
        retries=replans + repairs + fallbacks,
        cache_fallbacks=fallbacks,
        model_retries=_count(attributes.get(names.RETRIES)),
        blocked_requests=_count(attributes.get(names.BLOCKED_REQUESTS)),
        input_tokens=_count(attributes.get(names.INPUT_TOKENS)),
        output_tokens=_count(attributes.get(names.OUTPUT_TOKENS)),
        expected_verdict=_text_or_none(expected),
        states=tuple(
            StateTiming(str(span.attributes[names.STATE_KIND]), span.duration_ms, _text_or_none(span.attributes.get(names.BLOCKER_KIND)))
            for span in states
        ),
    )


def _subtree_size(root: TraceSpan, children: dict[tuple[str, str], list[TraceSpan]]) -> int:
    size, stack = 0, [root]
    while stack:
        span = stack.pop()
        size += 1
        stack.extend(children.get((span.trace_id, span.span_id), ()))
    return size


def _is_client_side(span: TraceSpan) -> bool:
    """A caller's own spans (a gRPC client's, the server's RPC span) are not part of any run and
    not a sign of a lost one: only spans of our vocabulary are."""
    return not any(key.startswith("verity.") or key.startswith("gen_ai.") for key in span.attributes)


def _count(value: Any) -> int:
    """A run's count attribute; one it does not carry counts 0 (a run that asked no model has no
    token counts)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return int(value)
    return 0


def _text_or_none(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None
