"""Binds features/service_switches.feature: a run's switches sent in its run options over a real
gRPC channel, to an in-process server running the run in real Chromium on the loopback site."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import grpc
import pytest
from pytest_bdd import parsers, scenarios, then, when
from tests.fixtures.site_server import FixtureSite
from tests.service.run_steps import *  # noqa: F403 - the shared real-run steps
from tests.service.run_steps import run_inputs

from runtime.client import VerityClient, VerityRpcError
from runtime.service.gen.verity.v1 import events_pb2 as events_pb

scenarios("service_switches.feature")


@when(parsers.parse('a client runs "{name}" with Run and the switches no_progress=off and cache=bypass'))
def _run_with_switches(target: str, site: FixtureSite, context: dict[str, Any], name: str) -> None:
    client = context["client"] = VerityClient(target)
    context["events"] = list(client.run(recipe_name=name, inputs=run_inputs(site), switches={"no_progress": "off", "cache": "bypass"}))


@then(parsers.parse('the run\'s first running status says "{detail}"'))
def _first_running(context: dict[str, Any], detail: str) -> None:
    running = [e.status_changed for e in context["events"] if e.HasField("status_changed") and e.status_changed.status == events_pb.TASK_STATE_RUNNING]
    assert running and running[0].detail == detail, running[:1]


@then("its verdict.json records no_progress off and cache bypass")
def _verdict_records(context: dict[str, Any], tmp_path: Path) -> None:
    run_id = context["events"][0].run_id
    written = json.loads((tmp_path / "runs" / run_id / "verdict.json").read_text(encoding="utf-8"))
    switches = written["switches"]
    assert (switches["no_progress"], switches["cache"], switches["auto_repair"]) == (False, "bypass", True), switches


@then("a start with the switch sticky_tab=sideways is refused INVALID_ARGUMENT naming options.switches, and no run was created")
def _unknown_refused(context: dict[str, Any], site: FixtureSite) -> None:
    client: VerityClient = context["client"]
    before = len(list(client.iter_runs()))
    with pytest.raises(VerityRpcError) as refused:
        client.start_run(recipe_name="service-article", inputs=run_inputs(site), switches={"sticky_tab": "sideways"})
    assert refused.value.code == grpc.StatusCode.INVALID_ARGUMENT, refused.value
    assert "options.switches" in str(refused.value) and "sticky_tab" in str(refused.value), refused.value
    assert len(list(client.iter_runs())) == before
