"""Receiving OTLP over gRPC for `verity trace summarize --listen`: a TraceService on HOST:PORT that
collects the spans exporters send, until enough runs have ended or the time is up.

Point runs at it with OTEL_TRACES_EXPORTER=otlp and OTEL_EXPORTER_OTLP_ENDPOINT=http://HOST:PORT.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest, ExportTraceServiceResponse

from runtime.trace_export import attributes as names
from runtime.trace_analysis.spans import CollectedSpans


class ListenError(Exception):
    """The address cannot be listened on."""


class _TraceService(trace_service_pb2_grpc.TraceServiceServicer):
    def __init__(self, collected: CollectedSpans, on_run_ended: Callable[[int], None]) -> None:
        self.collected = collected
        self.on_run_ended = on_run_ended

    async def Export(self, request: ExportTraceServiceRequest, context: grpc.aio.ServicerContext) -> ExportTraceServiceResponse:  # noqa: N802 - the proto's name
        before = len(self.collected.spans)
        self.collected.add_request(request)
        new = self.collected.spans[before:]
        ended = sum(1 for span in new if span.attributes.get(names.OPERATION_NAME) == names.INVOKE_AGENT)
        if ended:
            self.on_run_ended(ended)
        return ExportTraceServiceResponse()


async def receive_spans(
    address: str, collected: CollectedSpans, *, seconds: float, runs: int | None, on_listening: Callable[[str], None]
) -> int:
    """Listen on `address` until `runs` runs have ended (their invoke_agent spans arrived) or
    `seconds` have passed; returns how many runs arrived. Spans go into `collected`."""
    server = grpc.aio.server()
    done = asyncio.Event()
    arrived = 0

    def run_ended(count: int) -> None:
        nonlocal arrived
        arrived += count
        if runs is not None and arrived >= runs:
            done.set()

    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(_TraceService(collected, run_ended), server)
    try:
        port = server.add_insecure_port(address)
    except RuntimeError as error:
        raise ListenError(f"cannot listen on {address}: {error}") from None
    if port == 0:
        raise ListenError(f"cannot listen on {address}")
    await server.start()
    host = address.rsplit(":", 1)[0]
    on_listening(f"{host}:{port}")
    try:
        await asyncio.wait_for(done.wait(), timeout=seconds)
    except asyncio.TimeoutError:
        pass
    finally:
        # Let an export in flight finish, so its sender is not told it failed.
        await server.stop(grace=1.0)
    return arrived
