"""Bindings of features/service_durability.feature: kill -9 under load, and run directories closed."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, scenario, scenarios, then, when
from tests.service.flood_serve import WITHOUT_RUN_FILES, flood_text
from tests.service.service_harness import ServedServer, ServeProcess, chat_deltas, running

from runtime.events import Event
from runtime.execute.run_files import RunFiles
from runtime.service.client import VerityClient, VerityRpcError
from runtime.service.gen.verity.v1 import events_pb2 as events_pb
from runtime.service.proto_mapping import event_from_proto



# Twenty server processes start one after another (each imports the whole runtime): slow on a
# loaded machine, so this scenario gets a generous ceiling of its own.
@pytest.mark.timeout(900)
@scenario(
    "service_durability.feature",
    "Killing the server while events flow fast, 20 times over, loses and renumbers nothing a client saw",
)
def test_kill_9_under_load() -> None:
    pass


scenarios("service_durability.feature")

FLOOD = ("tests.service.flood_serve",)
# Kill after the client saw between 1 and this many events: early, mid-burst, deep into the run.
MAX_SEEN_BEFORE_KILL = 3000


@dataclass
class WatchedRun:
    run_id: str
    # Whether the run wrote its directory; without one the store is its only record.
    run_files: bool
    seen: list[events_pb.Event] = field(default_factory=list)

    @property
    def last_seen_seq(self) -> int:
        return self.seen[-1].seq


def _store_args(tmp_path: Path) -> list[str]:
    return ["--store", str(tmp_path / "kill" / "verity.db"), "--runs-dir", str(tmp_path / "kill" / "runs"), "--recipes-dir", str(tmp_path)]


def _watch_then_kill(process: ServeProcess, watched: WatchedRun, kill_after: int) -> WatchedRun:
    """Stream the run; once `kill_after` events arrived, SIGKILL the server and keep reading what
    the connection still delivers (those were seen too) until the stream breaks."""
    run_id = watched.run_id
    with VerityClient(process.target) as client:
        try:
            for event in client.stream_run(run_id, resume=False):
                watched.seen.append(event)
                if len(watched.seen) == kill_after:
                    os.killpg(process.process.pid, signal.SIGKILL)
        except VerityRpcError:
            pass  # the server is gone
    process.wait(30)
    return watched


@when(
    parsers.parse(
        "a verity serve process whose run emits events as fast as it can is killed with SIGKILL while a client "
        "watches, {times:d} times, each on the store its predecessor left"
    )
)
def _kill_repeatedly(serve_processes: Any, tmp_path: Path, context: dict[str, Any], times: int) -> None:
    chooser = random.Random(10)  # reproducible kill points
    watched: list[WatchedRun] = []
    for number in range(times):
        # Every other run writes no directory, so only the store can keep what its client saw.
        run_files = number % 2 == 0
        flags = [] if run_files else [WITHOUT_RUN_FILES]
        process = serve_processes(*flags, *_store_args(tmp_path), command=FLOOD)
        run_id = re.search(r"flood run (run-[0-9a-f]+)", process.text).group(1)  # type: ignore[union-attr]
        watched.append(_watch_then_kill(process, WatchedRun(run_id, run_files), chooser.randint(1, MAX_SEEN_BEFORE_KILL)))
    assert all(run.seen for run in watched)
    context["watched"] = watched


@when("verity serve is started again on that store")
def _restart(serve_processes: Any, tmp_path: Path, context: dict[str, Any]) -> None:
    context["process"] = serve_processes(*_store_args(tmp_path))
    context["client"] = VerityClient(context["process"].target)


def _stored(context: dict[str, Any], run_id: str) -> list[events_pb.Event]:
    cache = context.setdefault("stored", {})
    if run_id not in cache:
        cache[run_id] = list(context["client"].stream_run(run_id))
    return cache[run_id]


@then("every event a client saw is stored under the seq it had, with the content the client saw")
def _nothing_seen_is_lost(context: dict[str, Any]) -> None:
    for run in context["watched"]:
        stored = {event.seq: event for event in _stored(context, run.run_id)}
        for seen in run.seen:
            assert stored.get(seen.seq) == seen, f"{run.run_id}: seq {seen.seq} as seen differs from the store"


@then("every stored event of those runs has the content its seq was emitted with")
def _no_seq_reused(context: dict[str, Any]) -> None:
    for run in context["watched"]:
        stored = _stored(context, run.run_id)
        assert [e.seq for e in stored] == list(range(1, len(stored) + 1))
        deltas = [e for e in stored if e.HasField("chat_delta")]
        # The flood's n-th event has seq n; anything renumbered would carry another n.
        assert [e.chat_delta.text for e in deltas] == [flood_text(run.run_id, e.seq) for e in deltas]
        assert [e.WhichOneof("payload") for e in stored[len(deltas) :]] == ["status_changed", "final_verdict"]


@then("resuming each run after the last seq its client saw yields the rest of the run, ending interrupted")
def _resume_yields_rest(context: dict[str, Any]) -> None:
    client: VerityClient = context["client"]
    for run in context["watched"]:
        rest = list(client.stream_run(run.run_id, after_seq=run.last_seen_seq))
        assert [e.seq for e in rest] == list(range(run.last_seen_seq + 1, _stored(context, run.run_id)[-1].seq + 1))
        assert rest[-1].final_verdict.stop_reason == events_pb.STOP_REASON_INTERRUPTED


@then("each run's directory has an interrupted verdict.json and an events.jsonl with every stored event once, in order")
def _run_directories_closed(tmp_path: Path, context: dict[str, Any]) -> None:
    for run in (run for run in context["watched"] if run.run_files):
        run_dir = tmp_path / "kill" / "runs" / run.run_id
        verdict = json.loads((run_dir / "verdict.json").read_text())
        assert (verdict["status"], verdict["stop_reason"], verdict["run_id"]) == ("stopped", "interrupted", run.run_id)
        lines = (run_dir / "events.jsonl").read_text().splitlines()
        in_file = [Event.from_dict(json.loads(line)) for line in lines]
        stored = [event_from_proto(e) for e in _stored(context, run.run_id)]
        assert [(e.seq, e.payload) for e in in_file] == [(e.seq, e.payload) for e in stored]
    context["client"].close()


# --- a run directory ahead of the store -----------------------------------------------------------


@given(parsers.parse("a served run that writes its run directory, with {count:d} stored events"))
def _run_with_directory(server: ServedServer, context: dict[str, Any], count: int) -> None:
    live = server.open_run(recipe_name="directory")
    files = RunFiles(server.config.runs_dir / live.run_id)  # as the engine writes it
    server.on_loop(lambda: live.events.add_listener(files.on_event))
    context["run"] = live
    context["emitted"] = server.emit(live, [running(), *chat_deltas(count - 1)])


@when(parsers.parse("the run emits {count:d} events"))
def _emit(server: ServedServer, context: dict[str, Any], count: int) -> None:
    context["emitted"] += server.emit(context["run"], chat_deltas(count, prefix="unstored"))


@when("the store is copied as the killed server left it, with a torn line at the end of events.jsonl")
def _copy_killed_state(server: ServedServer, tmp_path: Path, context: dict[str, Any]) -> None:
    source = sqlite3.connect(server.config.store_path)
    target = sqlite3.connect(tmp_path / "killed.db")
    source.backup(target)  # exactly what is committed: the events held behind the lock are not
    source.close()
    target.close()
    context["holder"].release()  # the running server's own store is of no further interest
    events_file = server.config.runs_dir / context["run"].run_id / "events.jsonl"
    with open(events_file, "a", encoding="utf-8") as file:
        file.write('{"seq": 8, "run_id": "' + context["run"].run_id + '", "timestamp_ns": 17')  # killed mid-write


@when("a server is started on the copied store and the same run directories", target_fixture="server")
def _start_on_copy(serve: Any, tmp_path: Path) -> ServedServer:
    return serve(store_path=tmp_path / "killed.db")


@then(parsers.parse("the run has {count:d} stored events: its {own:d}, then the interruption"))
def _recovered(server: ServedServer, context: dict[str, Any], count: int, own: int) -> None:
    stored = [event_from_proto(e) for e in server.client().stream_run(context["run"].run_id)]
    assert [e.seq for e in stored] == list(range(1, count + 1))
    assert [(e.seq, e.payload) for e in stored[:own]] == [(e.seq, e.payload) for e in context["emitted"]]
    assert [e.kind for e in stored[own:]] == ["status_changed", "final_verdict"]
    context["stored"] = stored


@then(parsers.parse("the run's events.jsonl holds the same {count:d} events, each once"))
def _file_matches(server: ServedServer, context: dict[str, Any], count: int) -> None:
    lines = (server.config.runs_dir / context["run"].run_id / "events.jsonl").read_text().splitlines()
    assert len(lines) == count
    assert [(e.seq, e.payload) for e in (Event.from_dict(json.loads(line)) for line in lines)] == [
        (e.seq, e.payload) for e in context["stored"]
    ]


@then("the run's verdict.json says stopped with stop reason interrupted")
def _verdict_file(server: ServedServer, context: dict[str, Any]) -> None:
    verdict = json.loads((server.config.runs_dir / context["run"].run_id / "verdict.json").read_text())
    assert (verdict["status"], verdict["stop_reason"], verdict["verified"]) == ("stopped", "interrupted", False)

