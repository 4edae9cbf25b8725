"""Binds features/service_reasons.feature: served runs (a real `verity serve` process, real gRPC on
loopback, real Chromium) say why they failed, and a killed Chromium is reported as a crash."""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path
from typing import Any

import grpc
import pytest
from pytest_bdd import given, parsers, scenarios, then, when
from tests.fixtures.site_server import FixtureSite
from tests.service.run_steps import *  # noqa: F403 - the shared real-run steps
from tests.service.run_steps import run_inputs, start_and_watch

from runtime.client import VerityClient, VerityRpcError

scenarios("service_reasons.feature")

FIXTURE_RECIPES = Path(__file__).resolve().parents[1] / "fixtures" / "recipes" / "reasons"

SEARCH_FILE_RECIPE = """\
name: reasons-search-file
goal: 用浏览器 read the rows
inputs:
  site: {description: Base URL of the fixture site}
target:
  start_url: "{site}/reasons/rows.html"
plan:
  - navigate: "{start_url}"
  - close:
fallback:
  search_url: "%s"
"""


@given("the reasons recipes are in the server's recipes directory")
def _reasons_recipes(recipes_dir: Path) -> None:
    for recipe in FIXTURE_RECIPES.glob("*.yaml"):
        shutil.copy(recipe, recipes_dir / recipe.name)


@when(parsers.parse('a client starts "{name}" and waits for its "{action}" action'))
def _start_until_action(target: str, client_for: Any, site: FixtureSite, context: dict[str, Any], name: str, action: str) -> None:
    def in_action(events: list[Any]) -> bool:
        uses = [e.tool_used for e in events if e.HasField("tool_used") and e.tool_used.tool == action]
        return bool(uses) and uses[-1].phase == "start"

    start_and_watch(target, client_for, site, context, name, in_action, f"to its {action} action")


def _serving_chromium(tmp_path: Path) -> int:
    """The pid of the serve process's Chromium: the process started with a profile under the
    server's chromium-profiles directory (beside its store) that is not one of its helpers."""
    marker = f"--user-data-dir={tmp_path / 'proc' / 'chromium-profiles'}{os.sep}"
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            arguments = [a.decode(errors="replace") for a in (entry / "cmdline").read_bytes().split(b"\0") if a]
        except OSError:
            continue
        if any(a.startswith(marker) for a in arguments) and not any(a.startswith("--type=") for a in arguments):
            return int(entry.name)
    raise AssertionError("the server has no Chromium")


@when("the serving Chromium is killed with SIGKILL")
def _kill_serving_chromium(tmp_path: Path) -> None:
    os.kill(_serving_chromium(tmp_path), signal.SIGKILL)


@then(parsers.parse("the final verdict and GetRun's summary say \"{text}\""))
def _summaries_say(target: str, context: dict[str, Any], text: str) -> None:
    if "watcher" in context:
        context["watcher"].join(60)
        events = context["watcher"].events
    else:
        events = context["events"]
    final = events[-1]
    assert final.HasField("final_verdict"), final
    assert text in final.final_verdict.summary, final.final_verdict.summary
    with VerityClient(target) as client:
        info = client.get_run(final.run_id).run
    assert text in info.summary, info.summary


@when(parsers.parse('a client starts a recipe whose fallback.search_url is "{url}"'))
def _start_search_file(target: str, site: FixtureSite, context: dict[str, Any], url: str) -> None:
    with VerityClient(target) as client, pytest.raises(VerityRpcError) as failure:
        client.start_run(recipe_yaml=SEARCH_FILE_RECIPE % url, inputs=run_inputs(site))
    context["error"] = failure.value


@when(parsers.parse('a client starts "{name}" with the input site "{site_url}"'))
def _start_with_site(target: str, context: dict[str, Any], name: str, site_url: str) -> None:
    with VerityClient(target) as client, pytest.raises(VerityRpcError) as failure:
        client.start_run(recipe_name=name, inputs={"site": site_url})
    context["error"] = failure.value


@then(parsers.parse('StartRun fails with INVALID_ARGUMENT at "{field}" naming scheme_not_allowed'))
def _refused_at(context: dict[str, Any], field: str) -> None:
    error = context["error"]
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT, error
    assert [v.field for v in error.field_violations] == [field], error.field_violations
    assert "[scheme_not_allowed]" in error.field_violations[0].description and "file:" in error.field_violations[0].description


@then("the server has no run")
def _no_runs(target: str) -> None:
    with VerityClient(target) as client:
        assert list(client.list_runs().runs) == []
