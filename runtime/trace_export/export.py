"""Where a process's spans go: the SDK's exporters, chosen by the standard variables, behind one
batch processor each, plus each run's own trace.jsonl.

OTEL_TRACES_EXPORTER is `none` (the default), `otlp` or `console` (to stderr, so `--json` output
stays JSON), or a comma-separated list. `otlp` speaks OTEL_EXPORTER_OTLP_TRACES_PROTOCOL or
OTEL_EXPORTER_OTLP_PROTOCOL: `grpc` (the default) or `http/protobuf`. The SDK's exporters read
the endpoint, headers, timeout, certificates and compression themselves; Resource.create reads
OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.

Every run gets a TracerProvider of its own (so its trace.jsonl holds its spans only) sharing the
process's exporting processors; closing a run closes its file, never the shared exporters.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from opentelemetry.sdk.resources import SERVICE_NAME, SERVICE_VERSION, Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor, SpanExporter

from runtime import __version__
from runtime.trace_export.otlp_json import OtlpJsonFileExporter

TRACES_EXPORTER_VARIABLE = "OTEL_TRACES_EXPORTER"
PROTOCOL_VARIABLES = ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")
EXPORTERS = ("otlp", "console", "none")
PROTOCOLS = ("grpc", "http/protobuf")
DEFAULT_SERVICE_NAME = "verity"


class TelemetryConfigError(ValueError):
    """An OTEL_* variable names something we cannot export with; the message says which and why."""


def exporters_from_env(env: Mapping[str, str] | None = None) -> list[SpanExporter]:
    env = os.environ if env is None else env
    names = [name.strip().lower() for name in env.get(TRACES_EXPORTER_VARIABLE, "none").split(",") if name.strip()]
    unknown = [name for name in names if name not in EXPORTERS]
    if unknown:
        raise TelemetryConfigError(f"{TRACES_EXPORTER_VARIABLE}={env.get(TRACES_EXPORTER_VARIABLE)!r}: unknown exporter {unknown[0]!r} (known: {', '.join(EXPORTERS)})")
    exporters: list[SpanExporter] = []
    if "otlp" in names:
        exporters.append(_otlp_exporter(env))
    if "console" in names:
        exporters.append(ConsoleSpanExporter(out=sys.stderr))
    return exporters


def _otlp_exporter(env: Mapping[str, str]) -> SpanExporter:
    variable = next((name for name in PROTOCOL_VARIABLES if env.get(name, "").strip()), PROTOCOL_VARIABLES[-1])
    protocol = env.get(variable, "").strip().lower() or "grpc"
    if protocol == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcSpanExporter

        return GrpcSpanExporter()
    if protocol == "http/protobuf":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpSpanExporter

        return HttpSpanExporter()
    raise TelemetryConfigError(f"{variable}={protocol!r}: the OTLP protocol must be one of {', '.join(PROTOCOLS)}")


def resource_from_env() -> Resource:
    """OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, with service.name `verity` when neither names one."""
    resource = Resource.create({SERVICE_VERSION: __version__})
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: DEFAULT_SERVICE_NAME}))
    return resource


@dataclass
class RunTracing:
    """One run's provider and its trace file; `close()` when the run has ended."""

    provider: TracerProvider
    file_processor: SpanProcessor | None = None

    def close(self) -> None:
        if self.file_processor is not None:
            self.file_processor.shutdown()
            self.file_processor = None


class TraceExport:
    """The process's exporting span processors and resource; `for_run` gives each run its provider."""

    def __init__(self, processors: Sequence[SpanProcessor] = (), resource: Resource | None = None) -> None:
        self.processors = list(processors)
        self.resource = resource or resource_from_env()
        # Spans that belong to no run's file (a served run the engine never started).
        self.provider = self._provider()

    @classmethod
    def from_env(cls, extra_processors: Sequence[SpanProcessor] = ()) -> TraceExport:
        """Exporters from the OTEL_* variables (see the module docstring), plus `extra_processors`."""
        exporting = [BatchSpanProcessor(exporter) for exporter in exporters_from_env()]
        return cls([*exporting, *extra_processors])

    def _provider(self) -> TracerProvider:
        # shutdown_on_exit=False: the processors are shared; `shutdown` ends them once.
        provider = TracerProvider(resource=self.resource, shutdown_on_exit=False)
        for processor in self.processors:
            provider.add_span_processor(processor)
        return provider

    def for_run(self, trace_file: Path | None) -> RunTracing:
        """A provider for one run: the shared exporters, and `trace_file` written as each span ends."""
        provider = self._provider()
        file_processor = None
        if trace_file is not None:
            file_processor = SimpleSpanProcessor(OtlpJsonFileExporter(trace_file))
            provider.add_span_processor(file_processor)
        return RunTracing(provider, file_processor)

    def shutdown(self) -> None:
        """Flush and stop the exporters (after the runs have ended)."""
        for processor in self.processors:
            processor.shutdown()
