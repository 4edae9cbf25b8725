"""Kill -9 under load, as the durability scenario and `tools/sweep_kill9.py` both run it.

A cycle starts `verity serve` with a flooding run (flood_serve.py) on the store the previous cycle
left, streams that run, and SIGKILLs the server's process group once the client saw a chosen number
of events, then keeps what the broken connection still delivered (those were seen too). After the
last cycle a server started on the same store must show every run as its client saw it: each seen
event stored under its seq with the same content, seqs gap-free and never reused, the rest of the
run resumable after the last seen seq and ending interrupted, and each run directory closed.
Each check returns what it found wrong (empty when the promise held), so the scenario's Then steps
and the sweep judge alike.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.service.flood_serve import WITHOUT_RUN_FILES, flood_text
from tests.service.service_harness import ServeProcess

from runtime.events import Event
from runtime.client import VerityClient, VerityRpcError
from runtime.service.gen.verity.v1 import events_pb2 as events_pb
from runtime.service.api.proto_mapping import event_from_proto

FLOOD = ("tests.service.flood_serve",)
# Kill after the client saw between 1 and this many events: early, mid-burst, deep into the run.
MAX_SEEN_BEFORE_KILL = 3000


@dataclass
class WatchedRun:
    run_id: str
    # Whether the run wrote its directory; without one the store is its only record.
    run_files: bool
    kill_after: int
    seen: list[events_pb.Event] = field(default_factory=list)

    @property
    def last_seen_seq(self) -> int:
        return self.seen[-1].seq


@dataclass(frozen=True)
class KillStore:
    """Where the killed servers keep their store and run directories."""

    root: Path
    # A store URL (postgresql://...) instead of the SQLite file under root.
    store_url: str | None = None

    @property
    def runs_dir(self) -> Path:
        return self.root / "runs"

    def serve_args(self) -> list[str]:
        store = self.store_url or str(self.root / "verity.db")
        return ["--store", store, "--runs-dir", str(self.runs_dir), "--recipes-dir", str(self.root)]


StartServe = Callable[..., ServeProcess]  # (*args, command=...) -> a started `verity serve`


def kill_repeatedly(start: StartServe, store: KillStore, times: int, seed: int = 10) -> list[WatchedRun]:
    """`times` cycles of flood, watch, kill -9, each on the store its predecessor left."""
    chooser = random.Random(seed)  # reproducible kill points
    watched: list[WatchedRun] = []
    for number in range(times):
        # Every other run writes no directory, so only the store can keep what its client saw.
        run_files = number % 2 == 0
        flags = [] if run_files else [WITHOUT_RUN_FILES]
        process = start(*flags, *store.serve_args(), command=FLOOD)
        found = re.search(r"flood run (run-[0-9a-f]+)", process.text)
        assert found is not None, process.text
        run = WatchedRun(found.group(1), run_files, chooser.randint(1, MAX_SEEN_BEFORE_KILL))
        watched.append(_watch_then_kill(process, run))
    return watched


def _watch_then_kill(process: ServeProcess, watched: WatchedRun) -> WatchedRun:
    """Stream the run; once `kill_after` events arrived, SIGKILL the server and keep reading what
    the connection still delivers (those were seen too) until the stream breaks."""
    with VerityClient(process.target) as client:
        try:
            for event in client.stream_run(watched.run_id, resume=False):
                watched.seen.append(event)
                if len(watched.seen) == watched.kill_after:
                    os.killpg(process.process.pid, signal.SIGKILL)
        except VerityRpcError:
            pass  # the server is gone
    process.wait(30)
    return watched


class StoredRuns:
    """The runs as a server started on the killed servers' store streams them (each read once)."""

    def __init__(self, client: VerityClient) -> None:
        self.client = client
        self._events: dict[str, list[events_pb.Event]] = {}

    def events(self, run_id: str) -> list[events_pb.Event]:
        if run_id not in self._events:
            self._events[run_id] = list(self.client.stream_run(run_id))
        return self._events[run_id]


def seen_but_not_stored(stored: StoredRuns, watched: list[WatchedRun]) -> list[str]:
    problems = []
    for run in watched:
        by_seq = {event.seq: event for event in stored.events(run.run_id)}
        problems += [f"{run.run_id}: seq {seen.seq} as seen differs from the store" for seen in run.seen if by_seq.get(seen.seq) != seen]
    return problems


def renumbered(stored: StoredRuns, watched: list[WatchedRun]) -> list[str]:
    problems = []
    for run in watched:
        events = stored.events(run.run_id)
        if [e.seq for e in events] != list(range(1, len(events) + 1)):
            problems.append(f"{run.run_id}: stored seqs are not 1..{len(events)} without gaps")
        deltas = [e for e in events if e.HasField("chat_delta")]
        # The flood's n-th event has seq n; anything renumbered would carry another n.
        problems += [f"{run.run_id}: seq {e.seq} holds {e.chat_delta.text!r}" for e in deltas if e.chat_delta.text != flood_text(run.run_id, e.seq)]
        ending = [e.WhichOneof("payload") for e in events[len(deltas) :]]
        if ending != ["status_changed", "final_verdict"]:
            problems.append(f"{run.run_id}: ends with {ending}, not the interruption's status_changed and final_verdict")
    return problems


def not_resumable(stored: StoredRuns, watched: list[WatchedRun]) -> list[str]:
    problems = []
    for run in watched:
        rest = list(stored.client.stream_run(run.run_id, after_seq=run.last_seen_seq))
        last = stored.events(run.run_id)[-1].seq
        if [e.seq for e in rest] != list(range(run.last_seen_seq + 1, last + 1)):
            problems.append(f"{run.run_id}: resuming after seq {run.last_seen_seq} did not yield seqs {run.last_seen_seq + 1}..{last}")
        elif rest[-1].final_verdict.stop_reason != events_pb.STOP_REASON_INTERRUPTED:
            problems.append(f"{run.run_id}: the resumed run does not end interrupted")
    return problems


def directories_not_closed(stored: StoredRuns, watched: list[WatchedRun], store: KillStore) -> list[str]:
    problems = []
    for run in (run for run in watched if run.run_files):
        run_dir = store.runs_dir / run.run_id
        verdict = json.loads((run_dir / "verdict.json").read_text())
        if (verdict["status"], verdict["stop_reason"], verdict["run_id"]) != ("stopped", "interrupted", run.run_id):
            problems.append(f"{run.run_id}: verdict.json says {verdict['status']}/{verdict['stop_reason']}")
        in_file = [Event.from_dict(json.loads(line)) for line in (run_dir / "events.jsonl").read_text().splitlines()]
        in_store = [event_from_proto(e) for e in stored.events(run.run_id)]
        if [(e.seq, e.payload) for e in in_file] != [(e.seq, e.payload) for e in in_store]:
            problems.append(f"{run.run_id}: events.jsonl differs from the store")
    return problems
