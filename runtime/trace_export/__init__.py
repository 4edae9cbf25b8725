"""Writing runs' spans: where they go (the SDK's exporters, chosen by the standard OTEL_*
variables, and the run directory's OTLP/JSON trace.jsonl), the attribute vocabulary, the
content-capture switch and the redacting tracer. It knows nothing of runs themselves
(runtime/execute/record/spans.py does); reading traces back for figures is runtime/trace_analysis/.

    export = TraceExport.from_env()             # OTEL_TRACES_EXPORTER=otlp|console|none ...
    tracing = export.for_run(run_dir / TRACE_FILE)
    start_run(..., tracer_provider=tracing.provider)
    ...
    tracing.close(); export.shutdown()          # flush the file, then the exporters
"""

from runtime.trace_export.content import CAPTURE_CONTENT_VARIABLE, capture_message_content
from runtime.trace_export.export import TRACES_EXPORTER_VARIABLE, RunTracing, TelemetryConfigError, TraceExport
from runtime.trace_export.otlp_json import OtlpJsonFileExporter, read_trace_file, request_from_line, spans_to_line

__all__ = [
    "CAPTURE_CONTENT_VARIABLE",
    "TRACES_EXPORTER_VARIABLE",
    "OtlpJsonFileExporter",
    "RunTracing",
    "TelemetryConfigError",
    "TraceExport",
    "capture_message_content",
    "read_trace_file",
    "request_from_line",
    "spans_to_line",
]
