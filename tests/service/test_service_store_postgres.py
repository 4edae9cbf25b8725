"""Bindings of features/service_store_postgres.feature: a server whose store is a postgresql:// URL
keeps its runs in that database, refuses one it cannot reach without showing the password, and
loses nothing a client saw when killed with SIGKILL.

The PostgreSQL server is real (tests/fixtures/postgres.py): each test gets fresh databases.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
from pytest_bdd import given, parsers, scenarios, then, when
from tests.service.service_harness import ServedServer, ServeProcess, chat_deltas, running
from tests.service.kill_cycles import KillStore, kill_repeatedly

from runtime.client import VerityClient
from runtime.service.gen.verity.v1 import events_pb2 as events_pb
from runtime.store.location import PostgresUrl

scenarios("service_store_postgres.feature")


# --- PostgreSQL as the server's store (SERVICE-036) ------------------------------------------------


@when("a server is started with that database's URL as its store", target_fixture="server")
def _server_on_postgres(serve: Any, database_url: str) -> ServedServer:
    return serve(store_path=PostgresUrl(database_url))


@when(parsers.parse("a run is opened and emits {count:d} events"))
def _run_emits(server: ServedServer, context: dict[str, Any], count: int) -> None:
    context["run"] = live = server.open_run(recipe_name="on-postgres", inputs={"metal": "gold"})
    context["emitted"] = server.emit(live, [running(), *chat_deltas(count - 1)])
    assert server.server.supervisor is not None
    server.call(server.server.supervisor._store.flush())  # committed now, not a few ms later


@then(parsers.parse("the database holds the run and its {count:d} events"))
def _database_holds(database_url: str, context: dict[str, Any], count: int) -> None:
    run_id = context["run"].run_id
    with psycopg.connect(database_url) as conn:
        run = conn.execute("SELECT recipe_name, inputs_json, last_seq FROM runs WHERE run_id = %s", (run_id,)).fetchone()
        kinds = conn.execute("SELECT seq, kind FROM events WHERE run_id = %s ORDER BY seq", (run_id,)).fetchall()
    assert run == ("on-postgres", '{"metal": "gold"}', count)
    assert kinds == [(e.seq, e.kind) for e in context["emitted"]] and len(kinds) == count


@then("no SQLite file was created")
def _no_sqlite(tmp_path: Path) -> None:
    made = [str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.suffix in (".db", ".db-wal", ".sqlite")]
    assert made == [] and not (tmp_path / "store").exists()


def _closed_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # closed again when the probe is: nothing listens there


@given(
    parsers.parse('a PostgreSQL URL with the password "{password}" {where} for a port nothing listens on'),
    target_fixture="database_url",
)
def _unreachable_url(password: str, where: str, context: dict[str, Any]) -> str:
    port = _closed_loopback_port()
    if where == "as a query parameter":
        context["shown"] = f"postgresql://verity@127.0.0.1:{port}/verity?connect_timeout=5&password=***"
        return f"postgresql://verity@127.0.0.1:{port}/verity?connect_timeout=5&password={password}"
    assert where == "in its user part", where
    context["shown"] = f"postgresql://verity:***@127.0.0.1:{port}/verity"
    return f"postgresql://verity:{password}@127.0.0.1:{port}/verity"


@when(parsers.parse('I start "verity serve" with that URL as the store {how}'), target_fixture="served")
def _serve_unreachable(database_url: str, tmp_path: Path, how: str) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "VERITY_TOKEN"}
    if how == "in the config file":
        (tmp_path / "serve.yaml").write_text(f'store: "{database_url}"\n', encoding="utf-8")
        store = ["--config", "serve.yaml"]
    else:
        assert how == "on the command line", how
        store = ["--store", database_url]
    done = subprocess.run(
        [sys.executable, "-m", "runtime.cli.main", "serve", "--port", "0", *store, "--log-level", "DEBUG"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, env=env,
    )
    return {"code": done.returncode, "output": done.stdout + done.stderr}


@then("it exits with code 2 and a message naming the URL with its password hidden")
def _refused_hidden(served: dict[str, Any], context: dict[str, Any]) -> None:
    assert served["code"] == 2, served
    assert context["shown"] in served["output"] and "cannot open the PostgreSQL run store" in served["output"], served
    assert "Traceback" not in served["output"], served["output"]


@then(parsers.parse('the output never shows "{secret}"'))
def _never_shown(served: dict[str, Any], secret: str) -> None:
    assert secret not in served["output"], served["output"]


# --- kill -9 on PostgreSQL (SERVICE-040) -----------------------------------------------------------------

@when(
    parsers.parse(
        "a verity serve process on that database whose run emits events as fast as it can is killed with SIGKILL "
        "while a client watches, {times:d} times"
    )
)
def _kill_on_postgres(serve_processes: Any, database_url: str, tmp_path: Path, context: dict[str, Any], times: int) -> None:
    store = KillStore(tmp_path, store_url=database_url)
    watched = kill_repeatedly(serve_processes, store, times, seed=18)
    assert all(run.seen for run in watched)
    context["watched"] = watched


def _postgres_args(database_url: str, tmp_path: Path) -> list[str]:
    return ["--store", database_url, "--runs-dir", str(tmp_path / "runs"), "--recipes-dir", str(tmp_path)]


@when("verity serve is started again on that database")
def _restart_on_postgres(serve_processes: Any, database_url: str, tmp_path: Path, context: dict[str, Any]) -> None:
    process: ServeProcess = serve_processes(*_postgres_args(database_url, tmp_path))
    context["client"] = client = VerityClient(process.target)
    context["stored"] = {run.run_id: list(client.stream_run(run.run_id)) for run in context["watched"]}
    client.close()


@then("every event a client saw is stored in PostgreSQL under the seq it had")
def _seen_stored(context: dict[str, Any], database_url: str) -> None:
    for run in context["watched"]:
        stored = {event.seq: event for event in context["stored"][run.run_id]}
        for seen in run.seen:
            assert stored.get(seen.seq) == seen, f"{run.run_id}: seq {seen.seq} as seen differs from the store"
    with psycopg.connect(database_url) as conn:
        counts = dict(conn.execute("SELECT run_id, count(*) FROM events GROUP BY run_id").fetchall())
    assert counts == {run.run_id: len(context["stored"][run.run_id]) for run in context["watched"]}


@then("each run ended stopped with stop reason interrupted, its seqs without a gap")
def _interrupted_on_postgres(context: dict[str, Any]) -> None:
    for run in context["watched"]:
        stored = context["stored"][run.run_id]
        assert [e.seq for e in stored] == list(range(1, len(stored) + 1))
        assert stored[-1].final_verdict.stop_reason == events_pb.STOP_REASON_INTERRUPTED
        assert stored[-2].status_changed.status == events_pb.TASK_STATE_STOPPED
