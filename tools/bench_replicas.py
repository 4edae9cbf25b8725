"""Benchmark replicas of `verity serve` sharing one PostgreSQL run store.

    uv run python tools/bench_replicas.py            # on a temporary PostgreSQL, started as the tests start one
    uv run python tools/bench_replicas.py --events 20000 --subscribers 50

Replica A runs in this process, so events can be emitted into a run it hosts (the production
path: EventLog -> supervisor -> store commit -> NOTIFY); replicas B and C are `verity serve`
processes. Clients run in processes of their own.

Measured:
  throughput   events/s to one subscriber streaming from replica B a run hosted on A: every event
               crosses PostgreSQL (commit on A, NOTIFY, read by B's tail), first emit to last receipt
  fan-out      100 subscribers spread over A, B and C on one run hosted on A: all complete? slowest
  claim        queued run -> claimed by a replica (placement's claimed_at - the run's queued time,
               one host clock), p50/p99, runs started one at a time on replica A
  runs/s       runs started as fast as a client can, until every one has a verdict, with 1 and with
               3 replica processes. These runs end before their browser would start (the session
               file their recipe names does not exist: stop reason invalid_input), so this is the
               queue/claim/engine start/record/verdict path, not Chromium.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from runtime.events import ChatDelta, FinalVerdict  # noqa: E402
from runtime.outcomes import StopReason, TaskState  # noqa: E402

# A recipe in the replicas' recipe directory (sent inline it could not name a session file).
RECIPE_NAME = "bench-trivial"
RECIPE = """\
name: bench-trivial
version: "1"
goal: open one loopback page
session:
  storage_state: does-not-exist.json
target:
  start_url: "http://127.0.0.1:9/"
  allowed_domains: ["127.0.0.1"]
plan:
  - id: open
    navigate: "{start_url}"
"""


def _final() -> FinalVerdict:
    return FinalVerdict(status=TaskState.COMPLETED, stop_reason=StopReason.COMPLETED, verified=True, summary="bench")


# --- client side (separate processes) --------------------------------------------------------------


def _client_count(target: str, run_id: str, results: Any) -> None:
    import grpc

    from runtime.service.gen.verity.v1 import agent_service_pb2 as agent_pb
    from runtime.service.gen.verity.v1 import agent_service_pb2_grpc as agent_grpc

    with grpc.insecure_channel(target) as channel:
        stub = agent_grpc.AgentServiceStub(channel)
        count, seqs_in_order = 0, True
        last = 0
        for response in stub.StreamRun(agent_pb.StreamRunRequest(run_id=run_id)):
            for event in response.events:
                seqs_in_order &= event.seq == last + 1
                last = event.seq
                count += 1
        results.send({"count": count, "in_order": seqs_in_order, "last_received": time.time()})


def _client_fanout(targets: list[str], run_id: str, subscribers: int, results: Any) -> None:
    import grpc

    from runtime.service.gen.verity.v1 import agent_service_pb2 as agent_pb
    from runtime.service.gen.verity.v1 import agent_service_pb2_grpc as agent_grpc

    async def watch(stub: Any) -> tuple[int, float]:
        count = 0
        async for response in stub.StreamRun(agent_pb.StreamRunRequest(run_id=run_id)):
            count += len(response.events)
        return count, time.time()

    async def main() -> None:
        channels = [grpc.aio.insecure_channel(t) for t in targets]
        stubs = [agent_grpc.AgentServiceStub(c) for c in channels]
        tasks = [asyncio.ensure_future(watch(stubs[i % len(stubs)])) for i in range(subscribers)]
        results.send({"subscribed": True})
        done = await asyncio.gather(*tasks)
        results.send({"counts": [c for c, _ in done], "last_received": max(t for _, t in done)})
        for channel in channels:
            await channel.close()

    asyncio.run(main())


def _client_start_runs(target: str, count: int, spacing: float, results: Any) -> None:
    from runtime.client import VerityClient

    with VerityClient(target) as client:
        run_ids = []
        for _ in range(count):
            run_ids.append(client.start_run(recipe_name=RECIPE_NAME).run_id)
            if spacing:
                time.sleep(spacing)
    results.send({"run_ids": run_ids})


# --- replicas ------------------------------------------------------------------------------------


class ReplicaProcess:
    def __init__(self, url: str, home: Path, *extra: str) -> None:
        """Blocks until the replica listens: construct it off the event loop (`start`)."""
        home.mkdir(parents=True, exist_ok=True)
        (home / "bench.yaml").write_text(RECIPE)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "runtime.cli.main", "serve", "--store", url, "--port", "0", "--runs-dir", str(home / "runs"),
             "--recipes-dir", str(home), "--allow-private-network", "--log-level", "WARNING", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=REPO, start_new_session=True,
        )
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if "listening on " in line:
                self.target = line.rsplit("listening on ", 1)[1].strip()
                break
        else:
            raise RuntimeError(f"a replica did not start (exit {self.process.wait()})")
        threading.Thread(target=lambda: [None for _ in self.process.stdout], daemon=True).start()  # type: ignore[union-attr]

    @classmethod
    async def start(cls, url: str, home: Path, *extra: str) -> ReplicaProcess:
        return await asyncio.to_thread(cls, url, home, *extra)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()


async def _spawn(target_fn: Any, *args: Any) -> tuple[Any, Any]:
    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe()
    process = context.Process(target=target_fn, args=(*args, child), daemon=True)
    process.start()
    return process, parent


async def _receive(pipe: Any, timeout: float = 300) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while not pipe.poll():
        if time.monotonic() > deadline:
            raise TimeoutError("a bench client did not report")
        await asyncio.sleep(0.005)
    return pipe.recv()


async def _emit_burst(live: Any, count: int, text: str) -> None:
    for i in range(count):
        live.events.emit(ChatDelta(text=text))
        if i % 256 == 255:
            await asyncio.sleep(0)  # as a working run yields between steps
    live.events.emit(_final())


def _percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[max(0, int(len(ordered) * fraction) - 1)]


async def _let_subscribers_arrive(seconds: float = 2.0) -> None:
    # Subscribers on other replicas cannot be counted from here; give their StreamRun calls time to
    # arrive before the burst, so the figure is live delivery (a late one catches up from the table).
    await asyncio.sleep(seconds)


def _claim_latencies(url: str, run_ids: list[str]) -> list[float]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT EXTRACT(EPOCH FROM claimed_at) * 1000 - queued_ns / 1e6 FROM run_placements WHERE run_id = ANY(%s)",
            (run_ids,),
        ).fetchall()
    return [float(row[0]) for row in rows]


def _ended(url: str, run_ids: list[str]) -> tuple[int, int]:
    """How many of `run_ids` have a verdict, and the newest verdict's time (ns)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        count, newest = conn.execute(
            "SELECT count(*), max(ended_ns) FROM runs WHERE run_id = ANY(%s) AND ended_ns IS NOT NULL", (run_ids,)
        ).fetchone()
    return int(count), int(newest or 0)


async def _runs_per_second(url: str, home: Path, replicas: int, runs: int, per_replica: int) -> dict[str, Any]:
    processes = [await ReplicaProcess.start(url, home / f"r{i}", "--max-concurrent-runs", str(per_replica)) for i in range(replicas)]
    try:
        begin = time.time_ns()
        process, pipe = await _spawn(_client_start_runs, processes[0].target, runs, 0.0)
        run_ids = (await _receive(pipe))["run_ids"]
        await asyncio.to_thread(process.join)
        while (ended := await asyncio.to_thread(_ended, url, run_ids))[0] < len(run_ids):
            await asyncio.sleep(0.05)
        seconds = (ended[1] - begin) / 1e9
        return {"runs": runs, "seconds": round(seconds, 3), "runs_per_s": round(runs / seconds, 1)}
    finally:
        for replica in processes:
            replica.stop()


async def run_benchmarks(args: argparse.Namespace, new_database: Any) -> dict[str, Any]:
    from runtime.service.api.server import VerityServer
    from runtime.service.config.server_config import ServerConfig
    from runtime.store.location import PostgresUrl

    report: dict[str, Any] = {"events": args.events, "subscribers": args.subscribers}
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        (home / "a").mkdir()
        (home / "a" / "bench.yaml").write_text(RECIPE)
        url = new_database()
        config = ServerConfig(
            port=0, store_path=PostgresUrl(url), runs_dir=home / "a" / "runs", recipes_dir=home / "a",
            subscriber_buffer=max(args.events, 10_000) + 10, max_concurrent_runs=16, allow_private_network=True,
        )
        server = VerityServer(config)
        await server.start()
        supervisor = server.supervisor
        assert supervisor is not None
        others = [await ReplicaProcess.start(url, home / name) for name in ("b", "c")]
        try:
            # 1. throughput through PostgreSQL: hosted on A, streamed from B
            live = await supervisor.open_run("bench", "1", {}, {})
            process, pipe = await _spawn(_client_count, others[0].target, live.run_id)
            await _let_subscribers_arrive()
            begin = time.time()
            await _emit_burst(live, args.events, args.text)
            result = await _receive(pipe)
            await asyncio.to_thread(process.join)
            report["throughput_events_per_s"] = round(result["count"] / (result["last_received"] - begin))
            report["throughput_all_in_order"] = result["in_order"] and result["count"] == args.events + 1

            # The same from A itself (the hosting replica: no NOTIFY, no read back), for comparison.
            live = await supervisor.open_run("bench", "1", {}, {})
            process, pipe = await _spawn(_client_count, server.target, live.run_id)
            await _let_subscribers_arrive()
            begin = time.time()
            await _emit_burst(live, args.events, args.text)
            result = await _receive(pipe)
            await asyncio.to_thread(process.join)
            report["throughput_on_hosting_replica_events_per_s"] = round(result["count"] / (result["last_received"] - begin))

            if args.throughput_only:
                return report

            # 2. fan-out over A, B, C
            live = await supervisor.open_run("bench", "1", {}, {})
            targets = [server.target, *(o.target for o in others)]
            process, pipe = await _spawn(_client_fanout, targets, live.run_id, args.subscribers)
            await _receive(pipe)
            await _let_subscribers_arrive(3.0)
            begin = time.time()
            await _emit_burst(live, args.fanout_events, args.text)
            result = await _receive(pipe)
            await asyncio.to_thread(process.join)
            expected = args.fanout_events + 1
            report["fanout_events_per_subscriber"] = expected
            report["fanout_all_complete"] = all(c == expected for c in result["counts"])
            report["fanout_slowest_subscriber_s"] = round(result["last_received"] - begin, 3)

            # 3. claim latency: runs started one at a time on A (three replicas claim them)
            process, pipe = await _spawn(_client_start_runs, server.target, args.claims, 0.05)
            run_ids = (await _receive(pipe))["run_ids"]
            await asyncio.to_thread(process.join)
            while (await asyncio.to_thread(_ended, url, run_ids))[0] < len(run_ids):
                await asyncio.sleep(0.05)
            latencies = await asyncio.to_thread(_claim_latencies, url, run_ids)
            report["claim_ms_p50"] = round(statistics.median(latencies), 2)
            report["claim_ms_p99"] = round(_percentile(latencies, 0.99), 2)
            report["claims"] = len(latencies)
        finally:
            for other in others:
                other.stop()
            await server.stop(0)

        # 4. runs/s with 1 and 3 replica processes, each database fresh
        for replicas in (1, 3):
            report[f"runs_{replicas}_replica"] = await _runs_per_second(new_database(), home / f"runs{replicas}", replicas, args.runs, 4)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=50_000)
    parser.add_argument("--fanout-events", type=int, default=2_000)
    parser.add_argument("--subscribers", type=int, default=100)
    parser.add_argument("--claims", type=int, default=200)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--text", default="x" * 64)
    parser.add_argument("--throughput-only", action="store_true", help="only the two events/s figures")
    args = parser.parse_args(argv)
    from tests.fixtures.postgres import PostgresServer, _server_binaries

    server = PostgresServer(_server_binaries())
    server.start()
    try:
        report = asyncio.run(run_benchmarks(args, server.new_database))
    finally:
        server.stop()
    report["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    report["load_average"] = [round(x, 1) for x in os.getloadavg()]
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
