"""Binds features/live_smoke.feature: the scenario `verity bdd gate --live` runs against a real
model. Under a live gate (VERITY_LIVE_GATE=1) the model is whichever the environment names;
otherwise the scripted Gemini server on loopback places the order. Either way only done_when and
the page judge the run, never the model's exact replies."""

from __future__ import annotations

import os
from typing import Any

import pytest
from pytest_bdd import given, scenarios, then, when

from runtime.gate.live import LIVE_VARIABLE
from tests.execute.conftest import ExecRunner, RunRecord
from tests.execute.order_desk import LIVE_CUSTOMER, PIN, OrderDesk, order_script

scenarios("live_smoke.feature")


@given("the model the environment names under a live gate, else a scripted one on loopback")
def model_named(request: pytest.FixtureRequest) -> None:
    if os.environ.get(LIVE_VARIABLE) == "1":
        return  # the environment is left as the team (or the live gate's own test) set it
    request.getfixturevalue("gemini_env")
    request.getfixturevalue("gemini").enqueue(*order_script(LIVE_CUSTOMER))


@when("an agent step places the order of Ada Lovelace on the order desk", target_fixture="placed")
def place_order(runner: ExecRunner, desk: OrderDesk) -> RunRecord:
    return runner.run("agent-order-desk", {"site": desk.base_url, "customer": LIVE_CUSTOMER, "pin": PIN})


@then("the run completes verified, with the order placed for Ada Lovelace on the page")
def order_placed(placed: RunRecord) -> None:
    verdict = placed.verdict
    assert (verdict.stop_reason.value, verdict.verified) == ("completed", True), verdict.summary
    (execution,) = [r for r in placed.file("executions.json") if r["state_id"] == "order"]
    observed: Any = execution["evidence"]["conditions"][0]["observed"]
    assert execution["verified"] is True and f"Order placed for {LIVE_CUSTOMER}" in str(observed), execution
