"""Analysis of runs' OpenTelemetry traces: `verity trace summarize`.

    collected = read_trace_paths([Path("runs")])
    summary = summarize(find_runs(collected.spans), len(collected.spans))

spans.py reads OTLP/JSON into plain spans, runs.py finds the runs in them, summary.py computes
the figures (nearest-rank percentiles), render.py prints them.
"""

from runtime.traces.runs import FoundRuns, RunFigures, find_runs
from runtime.traces.spans import CollectedSpans, TraceSpan, read_trace_paths
from runtime.traces.summary import Summary, nearest_rank, summarize

__all__ = ["CollectedSpans", "FoundRuns", "RunFigures", "Summary", "TraceSpan", "find_runs", "nearest_rank", "read_trace_paths", "summarize"]
