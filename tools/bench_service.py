"""Benchmark the gRPC event path: emit into a served run's EventLog, receive in another process.

    uv run python tools/bench_service.py                 # all four measurements
    uv run python tools/bench_service.py --events 50000 --subscribers 100
    uv run python tools/bench_service.py --synchronous full   # fsync the store on every commit
    uv run python tools/bench_service.py --postgres           # the PostgreSQL store instead of SQLite

The server runs in this process (a real VerityServer on a loopback port, SQLite store in a temp
dir); events are emitted into a run the supervisor serves, so they take the production path:
EventLog -> supervisor listener (bound, store buffer) -> group commit -> fan-out -> StreamRun ->
gRPC -> client. Durability is on: a client receives an event only after the store committed it.
Clients run in a separate process (spawned), as other services would.

Measured:
  throughput   events/s delivered to one subscriber (public VerityClient.stream_run), from the
               first emit to the last receipt; with --rounds N, N interleaved rounds against a
               plain grpc.aio echo stream in the same server process (one message per event,
               each the size of one of our events as sent), so load falls on both alike
  fan-out      N subscribers on one run: aggregate events/s and the slowest subscriber's time
  start        StreamRun call -> first event received, for a run with stored events
  latency      emit -> client receipt, p50/p99, at a steady 1 event/ms
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import struct  # noqa: E402

from runtime.events import ChatDelta, FinalVerdict  # noqa: E402
from runtime.outcomes import StopReason, TaskState  # noqa: E402


def _final() -> FinalVerdict:
    return FinalVerdict(status=TaskState.COMPLETED, stop_reason=StopReason.COMPLETED, verified=True, summary="bench")


# --- client side (separate process) --------------------------------------------------------------


def _client_throughput(target: str, run_id: str, results: Any) -> None:
    from runtime.client import VerityClient

    with VerityClient(target) as client:
        count = 0
        for _event in client.stream_run(run_id):
            count += 1
        # Wall-clock time, comparable with the emitting process's: the clock runs from the first
        # emit to the last receipt, so the time events wait for their commit is counted.
        results.send({"count": count, "last_received": time.time()})


# The baseline: a grpc.aio unary-stream method that sends `count` messages of `size` bytes.
ECHO_SERVICE, ECHO_METHOD = "bench.Echo", "Stream"


def _client_echo(target: str, count: int, size: int, results: Any) -> None:
    import grpc

    with grpc.insecure_channel(target) as channel:
        call = channel.unary_stream(f"/{ECHO_SERVICE}/{ECHO_METHOD}")
        received = 0
        for _message in call(struct.pack("!II", count, size)):
            received += 1
        results.send({"count": received, "last_received": time.time()})


def _echo_handler(begins: list[float]) -> Any:
    """A plain grpc.aio stream: no store, no fan-out, one prebuilt message per event."""
    import grpc

    async def stream(request: bytes, context: Any) -> Any:
        count, size = struct.unpack("!II", request)
        message = b"x" * size
        begins.append(time.time())
        for _ in range(count):
            yield message

    return grpc.method_handlers_generic_handler(ECHO_SERVICE, {ECHO_METHOD: grpc.unary_stream_rpc_method_handler(stream)})


def _event_message_size(text: str) -> int:
    """The bytes one of our 64-byte chat-delta events takes as sent (its Event message)."""
    from runtime.events import EventLog
    from runtime.service.api.proto_mapping import event_to_proto

    event = EventLog("bench-0000000000000000").emit(ChatDelta(text=text))
    return event_to_proto(event).ByteSize()


def _client_fanout(target: str, run_id: str, subscribers: int, results: Any) -> None:
    import grpc

    from runtime.service.gen.verity.v1 import agent_service_pb2 as agent_pb
    from runtime.service.gen.verity.v1 import agent_service_pb2_grpc as agent_grpc

    async def watch(stub: Any) -> tuple[int, float]:
        count = 0
        call = stub.StreamRun(agent_pb.StreamRunRequest(run_id=run_id))
        async for response in call:
            count += len(response.events)
        return count, time.perf_counter()

    async def main() -> None:
        channels = [grpc.aio.insecure_channel(target) for _ in range(4)]
        stubs = [agent_grpc.AgentServiceStub(c) for c in channels]
        tasks = [asyncio.ensure_future(watch(stubs[i % 4])) for i in range(subscribers)]
        # The server starts emitting once it sees every subscription; the clock starts at the first event.
        await asyncio.wait(tasks, timeout=0)
        begin = time.perf_counter()
        done = await asyncio.gather(*tasks)
        results.send({"counts": [c for c, _ in done], "slowest_seconds": max(t for _, t in done) - begin})
        for channel in channels:
            await channel.close()

    asyncio.run(main())


def _client_start_latency(target: str, run_id: str, calls: int, results: Any) -> None:
    from runtime.client import VerityClient

    samples = []
    with VerityClient(target) as client:
        list(client.stream_run(run_id))  # warm the connection
        for _ in range(calls):
            begin = time.perf_counter()
            stream = client.stream_run(run_id)
            next(stream)
            samples.append(time.perf_counter() - begin)
            stream.close()
    results.send({"samples": samples})


def _client_latency(target: str, run_id: str, results: Any) -> None:
    from runtime.client import VerityClient

    delays = []
    with VerityClient(target) as client:
        for event in client.stream_run(run_id):
            received = time.time_ns()
            if event.HasField("chat_delta"):
                delays.append((received - event.timestamp.ToNanoseconds()) / 1e6)
    results.send({"delays_ms": delays})


# --- server side -----------------------------------------------------------------------------------


async def _spawn(target_fn: Any, *args: Any) -> tuple[Any, Any]:
    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe()
    process = context.Process(target=target_fn, args=(*args, child), daemon=True)
    process.start()
    return process, parent


async def _receive(pipe: Any, timeout: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while not pipe.poll():
        if time.monotonic() > deadline:
            raise TimeoutError("bench client did not report")
        await asyncio.sleep(0.005)
    return pipe.recv()


async def _wait_subscribers(live: Any, count: int) -> None:
    while live.broadcast.subscriber_count < count:
        await asyncio.sleep(0.005)


async def _emit_burst(live: Any, count: int, text: str) -> None:
    for i in range(count):
        live.events.emit(ChatDelta(text=text))
        if i % 256 == 255:
            await asyncio.sleep(0)  # let the streams drain, as a working run yields between steps
    live.events.emit(_final())


async def run_benchmarks(args: argparse.Namespace) -> dict[str, Any]:
    from runtime.service.api.server import VerityServer
    from runtime.service.config.server_config import ServerConfig

    with tempfile.TemporaryDirectory() as tmp:
        config = ServerConfig(
            port=0,
            store_path=args.store_location or Path(tmp) / "bench.db",
            runs_dir=Path(tmp) / "runs",
            recipes_dir=None,
            # Large enough that the throughput figure measures delivery, not cut-offs.
            subscriber_buffer=max(args.events, 10_000) + 10,
            max_concurrent_runs=16,
            store_synchronous=args.synchronous,
        )
        server = VerityServer(config)
        await server.start()
        # The baseline's server: a second grpc.aio server on the same event loop, so it shares
        # the process and the loop with ours.
        import grpc

        echo_begins: list[float] = []
        echo_server = grpc.aio.server()
        echo_server.add_generic_rpc_handlers((_echo_handler(echo_begins),))
        echo_target = f"127.0.0.1:{echo_server.add_insecure_port('127.0.0.1:0')}"
        await echo_server.start()
        supervisor = server.supervisor
        assert supervisor is not None
        target = server.target
        report: dict[str, Any] = {
            "events": args.events,
            "subscribers": args.subscribers,
            "event_text_bytes": len(args.text),
            "store_synchronous": args.synchronous,
            "store": "postgresql" if args.store_location else "sqlite",
        }
        store = server._store
        assert store is not None

        # 1. throughput to one subscriber, in rounds interleaved with the plain echo stream
        async def ours() -> float:
            live = await supervisor.open_run("bench", "1", {}, {})
            process, pipe = await _spawn(_client_throughput, target, live.run_id)
            await _wait_subscribers(live, 1)
            commits, committed = store.commits, store.committed_events
            emit_begin = time.time()
            await _emit_burst(live, args.events, args.text)
            report.setdefault("throughput_emit_seconds", []).append(round(time.time() - emit_begin, 3))
            result = await _receive(pipe)
            process.join()
            if result["count"] != args.events + 1:
                raise SystemExit(f"the subscriber got {result['count']} of {args.events + 1} events")
            report.setdefault("throughput_events_per_commit", []).append(round((store.committed_events - committed) / max(1, store.commits - commits), 1))
            return result["count"] / (result["last_received"] - emit_begin)

        async def echo() -> float:
            process, pipe = await _spawn(_client_echo, echo_target, args.events + 1, echo_size)
            result = await _receive(pipe)
            process.join()
            if result["count"] != args.events + 1:
                raise SystemExit(f"the echo client got {result['count']} of {args.events + 1} messages")
            return result["count"] / (result["last_received"] - echo_begins[-1])

        echo_size = _event_message_size(args.text)
        report["echo_message_bytes"] = echo_size
        ours_rates: list[float] = []
        echo_rates: list[float] = []
        loads: list[float] = []
        for number in range(args.rounds):
            loads.append(os.getloadavg()[0])
            sides = [(ours, ours_rates), (echo, echo_rates)]
            for measure, rates in sides if number % 2 == 0 else reversed(sides):
                rates.append(await measure())
        report["throughput_events_per_s"] = round(statistics.median(ours_rates))
        report["throughput_rounds"] = [round(r) for r in ours_rates]
        report["echo_events_per_s"] = round(statistics.median(echo_rates))
        report["echo_rounds"] = [round(r) for r in echo_rates]
        report["throughput_vs_echo"] = round(statistics.median(ours_rates) / statistics.median(echo_rates), 3)
        report["load_average"] = f"{min(loads):.1f}-{max(loads):.1f}"
        await echo_server.stop(0)
        if args.throughput_only:
            await server.stop(0)
            return report

        # 2. fan-out to N subscribers of one run
        fan_events = args.fanout_events
        live = await supervisor.open_run("bench", "1", {}, {})
        process, pipe = await _spawn(_client_fanout, target, live.run_id, args.subscribers)
        await _wait_subscribers(live, args.subscribers)
        await _emit_burst(live, fan_events, args.text)
        result = await _receive(pipe)
        process.join()
        expected = fan_events + 1
        report["fanout_events_per_subscriber"] = expected
        report["fanout_all_complete"] = all(c == expected for c in result["counts"])
        report["fanout_slowest_subscriber_s"] = round(result["slowest_seconds"], 3)
        report["fanout_aggregate_events_per_s"] = round(expected * args.subscribers / result["slowest_seconds"])

        # 3. stream start latency (stored run)
        live = await supervisor.open_run("bench", "1", {}, {})
        live.events.emit(ChatDelta(text=args.text))
        live.events.emit(_final())
        await live.ended.wait()
        process, pipe = await _spawn(_client_start_latency, target, live.run_id, 200)
        result = await _receive(pipe)
        process.join()
        samples = sorted(result["samples"])
        report["stream_start_ms_p50"] = round(statistics.median(samples) * 1000, 3)
        report["stream_start_ms_p99"] = round(samples[int(len(samples) * 0.99) - 1] * 1000, 3)

        # 4. emit -> receipt latency at 1 event/ms
        live = await supervisor.open_run("bench", "1", {}, {})
        process, pipe = await _spawn(_client_latency, target, live.run_id)
        await _wait_subscribers(live, 1)
        for _ in range(args.latency_events):
            live.events.emit(ChatDelta(text=args.text))
            await asyncio.sleep(0.001)
        live.events.emit(_final())
        result = await _receive(pipe)
        process.join()
        delays = sorted(result["delays_ms"])
        report["delivery_latency_ms_p50"] = round(statistics.median(delays), 3)
        report["delivery_latency_ms_p99"] = round(delays[int(len(delays) * 0.99) - 1], 3)

        await server.stop(0)
        return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=100_000, help="events for the throughput run")
    parser.add_argument("--subscribers", type=int, default=100)
    parser.add_argument("--fanout-events", type=int, default=2_000)
    parser.add_argument("--latency-events", type=int, default=2_000)
    parser.add_argument("--text", default="x" * 64, help="chat delta text of each event")
    parser.add_argument("--synchronous", choices=("normal", "full"), default="normal", help="the store's SQLite synchronous mode")
    parser.add_argument("--throughput-only", action="store_true", help="measure only the throughput to one subscriber")
    parser.add_argument(
        "--postgres", action="store_true",
        help="store in a throwaway PostgreSQL server (fsync on; Debian's postgresql) instead of SQLite",
    )
    parser.add_argument("--rounds", type=int, default=1, help="throughput rounds, interleaved with the plain echo stream")
    args = parser.parse_args(argv)
    args.store_location = None
    if not args.postgres:
        report = asyncio.run(run_benchmarks(args))
    else:
        from runtime.store.location import PostgresUrl
        from tests.fixtures.postgres import PostgresServer, _server_binaries

        postgres = PostgresServer(_server_binaries(), durable=True)
        postgres.start()
        try:
            args.store_location = PostgresUrl(postgres.new_database())
            report = asyncio.run(run_benchmarks(args))
        finally:
            postgres.stop()
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
