"""Bindings of features/service_durability.feature: kill -9 under load, and run directories closed."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from pytest_bdd import given, parsers, scenario, scenarios, then, when
from tests.service.kill_cycles import (
    KillStore,
    StoredRuns,
    directories_not_closed,
    kill_repeatedly,
    not_resumable,
    renumbered,
    seen_but_not_stored,
)
from tests.service.service_harness import ServedServer, chat_deltas, running

from runtime.events import Event
from runtime.execute.record.run_files import RunFiles
from runtime.client import VerityClient
from runtime.service.api.proto_mapping import event_from_proto


@scenario(
    "service_durability.feature",
    "Killing the server while events flow fast, again and again, loses and renumbers nothing a client saw",
)
def test_kill_9_under_load() -> None:
    pass


scenarios("service_durability.feature")


@when(
    parsers.parse(
        "a verity serve process whose run emits events as fast as it can is killed with SIGKILL while a client "
        "watches, {times:d} times, each on the store its predecessor left"
    )
)
def _kill_repeatedly(serve_processes: Any, tmp_path: Path, context: dict[str, Any], times: int) -> None:
    context["store"] = store = KillStore(tmp_path / "kill")
    context["watched"] = watched = kill_repeatedly(serve_processes, store, times)
    assert all(run.seen for run in watched)


@when("verity serve is started again on that store")
def _restart(serve_processes: Any, context: dict[str, Any]) -> None:
    process = serve_processes(*context["store"].serve_args())
    context["stored"] = StoredRuns(VerityClient(process.target))


@then("every event a client saw is stored under the seq it had, with the content the client saw")
def _nothing_seen_is_lost(context: dict[str, Any]) -> None:
    assert seen_but_not_stored(context["stored"], context["watched"]) == []


@then("every stored event of those runs has the content its seq was emitted with")
def _no_seq_reused(context: dict[str, Any]) -> None:
    assert renumbered(context["stored"], context["watched"]) == []


@then("resuming each run after the last seq its client saw yields the rest of the run, ending interrupted")
def _resume_yields_rest(context: dict[str, Any]) -> None:
    assert not_resumable(context["stored"], context["watched"]) == []


@then("each run's directory has an interrupted verdict.json and an events.jsonl with every stored event once, in order")
def _run_directories_closed(context: dict[str, Any]) -> None:
    assert directories_not_closed(context["stored"], context["watched"], context["store"]) == []
    context["stored"].client.close()


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

