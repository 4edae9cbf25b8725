"""Steps shared by the features that drive real runs (headless Chromium, the loopback fixture
site) through a served API: the site and its recipes, servers in process and as `verity serve`
processes, clients starting and watching runs, and what their runs end with.

Test modules bind them with `from tests.service.run_steps import *`, which brings pytest-bdd's
step fixtures into the module.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from grpc_health.v1 import health_pb2
from pytest_bdd import given, parsers, then, when
from tests.fixtures.site_server import FixtureSite
from tests.service.service_harness import HealthWatch, Watcher

from runtime.client import VerityClient
from runtime.service.gen.verity.v1 import events_pb2 as events_pb

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


ARTICLE_RECIPE = """\
name: {name}
version: "1"
goal: 用浏览器 read the harbour article
inputs:
  site:
    type: string
target:
  start_url: "{{site}}/article.html"
  allowed_domains: ["127.0.0.1"]
  validation_keywords: ["harbour"]
plan:
  - id: open
    navigate: "{{start_url}}"
    needs_approval: {needs_approval}
  - id: read
    needs_approval: {read_approval}
    extract:
      fields:
        title:
          css: "h1"
  - id: check
    verify:
      - field_present: title
  - id: done
    close:
      summary: read the article
"""

HANGING_RECIPE = """\
name: service-hang
version: "1"
goal: 用浏览器 open a page that never answers
inputs:
  site:
    type: string
target:
  start_url: "{site}/hang"
  allowed_domains: ["127.0.0.1"]
plan:
  - id: open
    navigate: "{start_url}"
"""


@pytest.fixture
def site() -> Iterator[FixtureSite]:
    with FixtureSite() as running:
        yield running


@given("the fixture site and the article recipes", target_fixture="recipes_dir")
def _recipes(tmp_path: Path, site: FixtureSite) -> Path:
    directory = tmp_path / "recipes"
    directory.mkdir()
    (directory / "article.yaml").write_text(ARTICLE_RECIPE.format(name="service-article", needs_approval="false", read_approval="false"))
    (directory / "approval.yaml").write_text(ARTICLE_RECIPE.format(name="service-approval", needs_approval="true", read_approval="false"))
    # Asks before its second step, with the page already open in the run's browser.
    (directory / "read-approval.yaml").write_text(
        ARTICLE_RECIPE.format(name="service-read-approval", needs_approval="false", read_approval="true")
    )
    # Its page never answers: the run stays in the browser until something ends it.
    (directory / "hang.yaml").write_text(HANGING_RECIPE)
    # Opens a tab with a target=_blank link, reads it and closes it (service_tabs.feature).
    tabs = (Path(__file__).resolve().parents[1] / "fixtures" / "recipes" / "tabs" / "read-new-tab.yaml").read_text(encoding="utf-8")
    (directory / "tabs.yaml").write_text(tabs.replace("name: tabs-read-new-tab", "name: service-tabs"))
    return directory


def run_inputs(site: FixtureSite) -> dict[str, str]:
    return {"site": site.base_url}


@given("a server", target_fixture="target")
def _server(serve: Any, recipes_dir: Path, context: dict[str, Any]) -> str:
    context["server"] = server = serve(recipes_dir=recipes_dir)
    return server.target


def serve_args(tmp_path: Path, recipes_dir: Path, *extra: str) -> list[str]:
    # The test sites are on loopback, which a served recipe may reach only when the server allows it.
    return [
        "--store", str(tmp_path / "proc" / "verity.db"), "--runs-dir", str(tmp_path / "proc" / "runs"), "--recipes-dir", str(recipes_dir),
        "--allow-private-network", *extra,
    ]


@given("a verity serve process", target_fixture="target")
def _serve_process(serve_processes: Any, tmp_path: Path, recipes_dir: Path, context: dict[str, Any]) -> str:
    context["process"] = process = serve_processes(*serve_args(tmp_path, recipes_dir))
    return process.target


@given(parsers.parse("a verity serve process with a {seconds:d} second grace period"), target_fixture="target")
def _serve_process_grace(serve_processes: Any, tmp_path: Path, recipes_dir: Path, context: dict[str, Any], seconds: int) -> str:
    context["process"] = process = serve_processes(*serve_args(tmp_path, recipes_dir, "--grace-seconds", str(seconds)))
    return process.target


@pytest.fixture
def client_for(context: dict[str, Any]) -> Iterator[Any]:
    """Clients of a target, with the scenario's token (context["token"]) when it has one."""
    clients: list[VerityClient] = []

    def open_client(target: str) -> VerityClient:
        client = VerityClient(target, context.get("token"))
        clients.append(client)
        return client

    yield open_client
    for client in clients:
        client.close()


@when(parsers.parse('a client runs "{name}" with Run'))
def _run_with_run(target: str, client_for: Any, site: FixtureSite, context: dict[str, Any], name: str) -> None:
    context["events"] = list(client_for(target).run(recipe_name=name, inputs=run_inputs(site)))


def start_and_watch(
    target: str, client_for: Any, site: FixtureSite, context: dict[str, Any], name: str, reached: Callable[[list[Any]], bool], what: str
) -> Watcher:
    """Start recipe `name`, watch it, and return once its events show `reached` (the run got `what`)."""
    client = context["client"] = client_for(target)
    run_id = context["run_id"] = client.start_run(recipe_name=name, inputs=run_inputs(site)).run_id
    watcher = context["watcher"] = Watcher(client, run_id).start()
    deadline = time.monotonic() + 60
    while not reached(watcher.events):
        assert time.monotonic() < deadline and not watcher.done.is_set(), f"the run never got {what}: {watcher.events[-3:]} {watcher.error}"
        time.sleep(0.02)
    return watcher


@when(parsers.parse('a client starts "{name}" and waits for its confirmation request'))
def _start_and_wait(target: str, client_for: Any, site: FixtureSite, context: dict[str, Any], name: str) -> None:
    watcher = start_and_watch(
        target, client_for, site, context, name, lambda events: any(e.HasField("confirmation_requested") for e in events), "a confirmation request"
    )
    context["request_id"] = next(e for e in watcher.events if e.HasField("confirmation_requested")).confirmation_requested.request_id


@when("the server process is killed")
def _kill(context: dict[str, Any]) -> None:
    context["process"].kill_group()


@when("verity serve is started again on the same store")
def _restart(serve_processes: Any, tmp_path: Path, recipes_dir: Path, context: dict[str, Any]) -> None:
    context["process"] = serve_processes(*serve_args(tmp_path, recipes_dir))
    context["client"] = VerityClient(context["process"].target)


@given("a health watcher is watching the server")
@when("a health watcher is watching the server")
def _health_watcher(target: str, context: dict[str, Any]) -> None:
    context["health"] = health = HealthWatch(target)
    health.assert_reaches(lambda statuses: SERVING in statuses, "reported SERVING")


@then("the events end with a completed, verified final verdict")
def _completed_verified(context: dict[str, Any]) -> None:
    events = context["events"]
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert events[0].status_changed.status == events_pb.TASK_STATE_CREATED
    final = events[-1].final_verdict
    assert events[-1].HasField("final_verdict")
    assert final.stop_reason == events_pb.STOP_REASON_COMPLETED and final.verified
    kinds = {e.WhichOneof("payload") for e in events}
    assert {"step_started", "step_finished", "tool_used", "structured_output"} <= kinds


@then(parsers.parse("the run ends {status} with stop reason {reason}"))
def assert_run_ended(context: dict[str, Any], status: str, reason: str) -> None:
    watcher = context["watcher"]
    watcher.join(60)
    assert watcher.error is None, watcher.error
    final = watcher.events[-1]
    assert final.HasField("final_verdict")
    assert final.final_verdict.status == events_pb.TaskState.Value(f"TASK_STATE_{status.upper()}")
    assert final.final_verdict.stop_reason == events_pb.StopReason.Value(f"STOP_REASON_{reason.upper()}"), final.final_verdict


@then("the health watcher sees NOT_SERVING")
def _not_serving(context: dict[str, Any]) -> None:
    context["health"].assert_reaches(lambda statuses: NOT_SERVING in statuses, "reported NOT_SERVING")


@then(parsers.parse('a client running "{name}" gets a completed, verified verdict'))
@given(parsers.parse('a client running "{name}" gets a completed, verified verdict'))
def _runs_to_completion(target: str, client_for: Any, site: FixtureSite, name: str) -> None:
    events = list(client_for(target).run(recipe_name=name, inputs=run_inputs(site)))
    final = events[-1].final_verdict
    assert events[-1].HasField("final_verdict") and final.stop_reason == events_pb.STOP_REASON_COMPLETED and final.verified, final


@then("the health watcher sees SERVING again")
def _serving_again(context: dict[str, Any]) -> None:
    context["health"].assert_reaches(
        lambda statuses: NOT_SERVING in statuses and statuses[-1] == SERVING,
        "came back to SERVING",
        timeout=120,  # relaunching waits out a backoff
    )
