"""Benchmark what keeping artifact bytes in PostgreSQL costs per run (issue 18 part 7).

    tools/demo --out /tmp/demo-run                      # or any run directory with artifacts
    uv run python tools/bench_pgstore.py /tmp/demo-run --runs 40

A throwaway PostgreSQL server is started in a temporary directory (the tests' fixture,
tests/fixtures/postgres.py, with fsync on; Debian's postgresql must be installed). The run directory's
events.jsonl is replayed as `--runs` runs through `PostgresRunStore.write_batch`, the way the
server's writer commits them (the run row, then its events and artifact rows in one batch, then
its final state), in three ways:

  index only      the store knows no runs directory: artifact rows only, bytes stay on disk
  blobs, unique   every run's artifacts have bytes of their own (each file gets the run's number
                  appended), so every commit copies them into `blobs`
  blobs, repeated every run records the same bytes: after the first run nothing is copied again

Reported per run: the median and p90 time of its commits, and how much the database grew.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import psycopg  # noqa: E402

from runtime.events import ArtifactStored, Event  # noqa: E402
from runtime.outcomes import TaskState  # noqa: E402
from runtime.run_layout import EVENTS_FILE  # noqa: E402
from runtime.store.location import PostgresUrl  # noqa: E402
from runtime.store.postgres import PostgresRunStore  # noqa: E402
from runtime.store.records import ArtifactRecord, RunRecord, RunUpdate, WriteBatch  # noqa: E402
from tests.fixtures.postgres import PostgresServer, _server_binaries  # noqa: E402


def _load(run_dir: Path) -> list[Event]:
    return [Event.from_dict(json.loads(line)) for line in (run_dir / EVENTS_FILE).read_text().splitlines() if line]


def _make_run(source: Path, events: list[Event], root: Path, run_id: str, unique: bool) -> tuple[list[Event], list[ArtifactRecord]]:
    """The run's events under `run_id`, its artifact files under root/run_id, and its artifact rows."""
    run_dir = root / run_id
    out_events: list[Event] = []
    artifacts: list[ArtifactRecord] = []
    for event in events:
        payload = event.payload
        if isinstance(payload, ArtifactStored):
            original = Path(payload.path)
            relative = original.relative_to(source) if original.is_absolute() else original
            data = (source / relative).read_bytes() + (run_id.encode() if unique else b"")
            target = run_dir / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            payload = replace(payload, path=str(relative), size=len(data), sha256=hashlib.sha256(data).hexdigest())
            artifacts.append(
                ArtifactRecord(run_id, payload.artifact_id, payload.artifact_kind, payload.path, payload.media_type,
                               payload.size, payload.sha256, event.seq)
            )
        out_events.append(replace(event, run_id=run_id, payload=payload))
    return out_events, artifacts


def _database_bytes(url: str) -> int:
    with psycopg.connect(url) as conn:
        return int(conn.execute("SELECT pg_database_size(current_database())").fetchone()[0])


def _measure(server: PostgresServer, source: Path, events: list[Event], runs: int, mode: str) -> dict[str, float]:
    url = server.new_database()
    with tempfile.TemporaryDirectory(prefix="bench-pgstore-") as tmp:
        root = Path(tmp)
        prepared = [_make_run(source, events, root, f"run-{mode[:5]}-{n:04d}", unique=mode == "blobs, unique") for n in range(runs)]
        store = PostgresRunStore(PostgresUrl(url), artifact_root=None if mode == "index only" else root)
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CHECKPOINT")
        before = _database_bytes(url)
        times: list[float] = []
        for run_events, artifacts in prepared:
            run_id = run_events[0].run_id
            record = RunRecord(run_id, "bench", "1", TaskState.CREATED, "", run_events[0].timestamp_ns, run_events[0].timestamp_ns)
            final = RunUpdate(run_id, TaskState.COMPLETED, run_events[-1].timestamp_ns, run_events[-1].seq, run_events[-1].trace_id)
            started = time.perf_counter()
            store.write_batch(WriteBatch(new_runs=[record]))
            store.write_batch(WriteBatch(events=run_events, artifacts=artifacts))
            store.write_batch(WriteBatch(run_updates={run_id: final}))
            times.append((time.perf_counter() - started) * 1000)
        store.close()
        grown = _database_bytes(url) - before
        artifact_bytes = sum(a.size for a in prepared[0][1])
    times.sort()
    return {
        "median_ms": statistics.median(times),
        "p90_ms": times[int(len(times) * 0.9) - 1],
        "db_bytes_per_run": grown / runs,
        "artifact_bytes_per_run": artifact_bytes,
        "events_per_run": len(events),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir", type=Path, help="a run directory with events.jsonl and artifacts (e.g. tools/demo --out DIR)")
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    source = args.run_dir.resolve()
    events = _load(source)
    server = PostgresServer(_server_binaries(), durable=True)  # fsync on, as in production
    server.start()
    try:
        for mode in ("index only", "blobs, unique", "blobs, repeated"):
            result = _measure(server, source, events, args.runs, mode)
            print(
                f"{mode:16s} {result['median_ms']:6.2f} ms/run median, {result['p90_ms']:6.2f} p90; "
                f"database +{result['db_bytes_per_run'] / 1024:7.1f} KiB/run "
                f"({result['events_per_run']} events, {result['artifact_bytes_per_run'] / 1024:.1f} KiB of artifacts per run)"
            )
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
