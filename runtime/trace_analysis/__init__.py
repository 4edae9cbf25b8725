"""Reading runs' OpenTelemetry traces back and summarising them: `verity trace summarize`.
The spans are written by runtime/trace_export/; this room only reads what it wrote (or what a
Collector received).

    collected = read_trace_paths([Path("runs")])
    summary = summarize(find_runs(collected.spans), len(collected.spans))

spans.py reads OTLP/JSON into plain spans, runs.py finds the runs in them, summary.py computes
the figures (nearest-rank percentiles), render.py prints them.
"""

from runtime.trace_analysis.runs import FoundRuns, RunFigures, find_runs
from runtime.trace_analysis.spans import CollectedSpans, TraceSpan, read_trace_paths
from runtime.trace_analysis.summary import Summary, nearest_rank, summarize

__all__ = ["CollectedSpans", "FoundRuns", "RunFigures", "Summary", "TraceSpan", "find_runs", "nearest_rank", "read_trace_paths", "summarize"]
