"""Bindings of features/service_replicas.feature: three `verity serve` replicas on one real
PostgreSQL database, each running at most one run (replica_cache_steps.py binds the action cache's
steps of the same scenario). The streams are raw (replica_streams.py), so a duplicate would show.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import pytest
from pytest_bdd import given, parsers, scenario, scenarios, then, when
from tests.fixtures.site_server import FixtureSite
from tests.service.run_steps import *  # noqa: F403 - pytest-bdd step fixtures
from tests.service.run_steps import run_inputs
from tests.service.replica_cache_steps import *  # noqa: F403 - pytest-bdd step fixtures
from tests.service.replica_streams import RawStream, stop_reason, task_state, wait_until

from runtime.client import VerityClient
from tests.fixtures.gemini_fixtures import FIXTURE_API_KEY
from tests.fixtures.gemini_server import GeminiServer

RECIPES = Path(__file__).resolve().parents[1] / "fixtures" / "recipes"

REPLICAS = ("A", "B", "C")


@pytest.mark.timeout(600)
@scenario("service_replicas.feature", "Three replicas share the runs; killing one interrupts its runs and the others keep serving")
def test_three_replicas() -> None:
    pass


scenarios("service_replicas.feature")


REPLICA_HANG_RECIPE = """\
name: replica-hang
version: "1"
goal: 用浏览器 open a page that never answers, for as long as a test needs
inputs:
  site:
    type: string
target:
  start_url: "{site}/hang"
  allowed_domains: ["127.0.0.1"]
plan:
  - id: open
    navigate: "{start_url}"
    timeout_ms: 600000
"""


# --- three verity serve replicas -------------------------------------------------------------------


@pytest.fixture
def replicas(context: dict[str, Any]) -> dict[str, Any]:
    return context.setdefault("replicas", {})


@given(
    parsers.parse("three verity serve replicas on one PostgreSQL store, each running at most one run, with a {lease:d} second lease"),
)
def _three_replicas(
    serve_processes: Any,
    postgres_dsn: Any,
    tmp_path: Path,
    recipes_dir: Path,
    context: dict[str, Any],
    replicas: dict[str, Any],
    lease: int,
    gemini: GeminiServer,
) -> None:
    # Its step waits as long as the test may take (the fixture site's service-hang gives up after
    # the default step timeout, which a loaded machine can outlast).
    (recipes_dir / "replica-hang.yaml").write_text(REPLICA_HANG_RECIPE)
    (recipes_dir / "agent-order-desk.yaml").write_text((RECIPES / "agent-order-desk.yaml").read_text(encoding="utf-8"))
    context["url"] = url = postgres_dsn()
    # Every replica's agent steps ask the scripted model on loopback, as a team's would its provider.
    model = {**gemini.env(api_key=FIXTURE_API_KEY, timeout_ms=60_000), "GOOGLE_API_KEY": ""}
    for name in REPLICAS:
        # Each replica has a directory of its own, as on separate machines; the database is shared.
        replicas[name] = serve_processes(
            "--store", url, "--runs-dir", str(tmp_path / name / "runs"), "--recipes-dir", str(recipes_dir),
            "--allow-private-network", "--max-concurrent-runs", "1", "--lease-seconds", str(lease),
            env=model,
        )


def client_of(context: dict[str, Any], client_for: Any, name: str) -> VerityClient:
    return client_for(context["replicas"][name].target)


def placements(context: dict[str, Any]) -> dict[str, str | None]:
    """run id -> the target of the replica running it (None while queued), from the shared tables."""
    with psycopg.connect(context["url"], autocommit=True) as conn:
        rows = conn.execute(
            "SELECT p.run_id, x.target FROM run_placements p LEFT JOIN replicas x ON x.replica_id = p.replica_id"
        ).fetchall()
    return dict(rows)


def replica_running(context: dict[str, Any], run_id: str) -> str:
    """Which of A, B, C runs `run_id` (once one has claimed it)."""
    by_target = {process.target: name for name, process in context["replicas"].items()}
    target = wait_until(lambda: placements(context).get(run_id), f"a replica claimed {run_id}")
    return by_target[target]


def wait_for_status(client: VerityClient, run_id: str, status: str) -> Any:
    return wait_until(
        lambda: (run := client.get_run(run_id).run).status == task_state(status) and run, f"run {run_id} is {status}"
    )


@when(parsers.parse('a client starts {count:d} runs of "{name}" on replica {replica}'))
def _start_runs(client_for: Any, site: FixtureSite, context: dict[str, Any], count: int, name: str, replica: str) -> None:
    client = client_of(context, client_for, replica)
    context["runs"] = [client.start_run(recipe_name=name, inputs=run_inputs(site)).run_id for _ in range(count)]


@then("each replica runs one of them")
def _one_each(client_for: Any, context: dict[str, Any]) -> None:
    owners = {replica_running(context, run_id): run_id for run_id in context["runs"]}
    assert sorted(owners) == list(REPLICAS), owners
    for run_id in context["runs"]:
        wait_for_status(client_of(context, client_for, "B"), run_id, "running")
    context["run_on"] = owners


@when("a client streams replica A's run from replica B and stops it from replica C")
def _stream_b_stop_c(client_for: Any, context: dict[str, Any]) -> None:
    run_id = context["run_on"]["A"]
    stream = context["stream"] = RawStream(client_of(context, client_for, "B"), run_id)
    wait_until(lambda: stream.events, "the stream from B got the run's first event")
    context["stopped"] = client_of(context, client_for, "C").stop_run(run_id)


@then("the stream from replica B ends stopped with stop reason manual_stop, every event once in order")
def _stream_ended_stopped(context: dict[str, Any]) -> None:
    assert context["stopped"].stop_reason == stop_reason("manual_stop"), context["stopped"]
    stream = context["stream"].join()
    assert stream.error is None, stream.error
    assert stream.seqs == list(range(1, len(stream.seqs) + 1)), stream.seqs
    final = stream.events[-1]
    assert final.HasField("final_verdict") and final.final_verdict.stop_reason == stop_reason("manual_stop"), final


@when(parsers.parse('a client starts "{name}" on replica B and approves its confirmation on replica C'))
def _approve_elsewhere(client_for: Any, site: FixtureSite, context: dict[str, Any], name: str) -> None:
    started = client_of(context, client_for, "B").start_run(recipe_name=name, inputs=run_inputs(site))
    run_id, context["approval_trace"] = started.run_id, started.trace_id
    stream = context["stream"] = RawStream(client_of(context, client_for, "B"), run_id)
    asked = wait_until(
        lambda: next((e for e in stream.events if e.HasField("confirmation_requested")), None), "the run asked for confirmation"
    )
    assert replica_running(context, run_id) == "A"  # the only replica with a free slot
    pending = client_of(context, client_for, "C").get_run(run_id).pending_confirmations
    assert [p.request_id for p in pending] == [asked.confirmation_requested.request_id]
    client_of(context, client_for, "C").confirm_action(run_id, asked.confirmation_requested.request_id, approve=True)


@then("the run ends completed, as streamed from replica B, in the trace StartRun answered with")
def _completed_from_b(context: dict[str, Any]) -> None:
    stream = context["stream"].join()
    assert stream.error is None, stream.error
    assert stream.seqs == list(range(1, len(stream.seqs) + 1)), stream.seqs
    final = stream.events[-1]
    assert final.HasField("final_verdict") and final.final_verdict.stop_reason == stop_reason("completed"), final
    # The replica that claimed it ran it in the trace StartRun answered with on another replica.
    assert {e.trace_id for e in stream.events} == {context["approval_trace"]}


@when(parsers.parse('a client starts "{name}" on replica C, watches it on replica A, and replica A is killed with SIGKILL'))
def _kill_a(client_for: Any, site: FixtureSite, context: dict[str, Any], name: str) -> None:
    run_id = context["killed_run"] = client_of(context, client_for, "C").start_run(recipe_name=name, inputs=run_inputs(site)).run_id
    assert replica_running(context, run_id) == "A"
    stream = context["stream"] = RawStream(client_of(context, client_for, "A"), run_id)
    wait_for_status(client_of(context, client_for, "C"), run_id, "running")
    wait_until(lambda: any(e.status_changed.status == task_state("running") for e in stream.events), "the watcher on A saw it running")
    context["replicas"]["A"].kill_group()
    stream.join()
    assert stream.error is not None  # the stream broke with its server
    context["seen"] = list(stream.events)


@then("the run is interrupted once replica A's lease has expired")
def _interrupted(client_for: Any, context: dict[str, Any]) -> None:
    run = wait_until(
        lambda: (r := client_of(context, client_for, "B").get_run(context["killed_run"]).run).status == task_state("stopped") and r,
        "the killed replica's run was closed",
    )
    assert run.stop_reason == stop_reason("interrupted"), run


@then("resuming the stream on replica B after the last seq it saw yields every other event exactly once, ending interrupted")
def _resumed(client_for: Any, context: dict[str, Any]) -> None:
    seen = context["seen"]
    after = seen[-1].seq
    rest = RawStream(client_of(context, client_for, "B"), context["killed_run"], after_seq=after).join()
    assert rest.error is None, rest.error
    seqs = [e.seq for e in seen] + rest.seqs
    assert seqs == list(range(1, len(seqs) + 1)), seqs
    final = rest.events[-1]
    assert final.HasField("final_verdict") and final.final_verdict.stop_reason == stop_reason("interrupted"), final


@then("replicas B and C still serve: their runs are listed running from either, and stop on request")
def _others_serve(client_for: Any, context: dict[str, Any]) -> None:
    theirs = {context["run_on"]["B"], context["run_on"]["C"]}
    for name in ("B", "C"):
        listed = client_of(context, client_for, name).list_runs(statuses=[task_state("running")]).runs
        assert {run.run_id for run in listed} == theirs, listed
    # Each stopped from the other replica.
    stopped_b = client_of(context, client_for, "C").stop_run(context["run_on"]["B"])
    stopped_c = client_of(context, client_for, "B").stop_run(context["run_on"]["C"])
    assert stopped_b.stop_reason == stop_reason("manual_stop") and stopped_c.stop_reason == stop_reason("manual_stop")
