"""Binds features/live_gate.feature: `verity bdd gate --live` on this repository, its model the
real openai SDK pointed at our OpenAI-compatible server on loopback through the variables a team
sets (VERITY_MODEL, OPENAI_API_KEY, OPENAI_BASE_URL). The gate's pytest runs in a subprocess, as it
always does; the scripted model in this process places the smoke scenario's order."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.cli.main import main
from tests.execute.order_desk import LIVE_CUSTOMER, order_script
from tests.fixtures.openai_server import OpenAIServer

scenarios("live_gate.feature")

REPO = Path(__file__).resolve().parents[2]
KEY = "sk-live-gate-fixture-91c2"
# Every variable that could name a model or hold a key, cleared before a case sets its own.
MODEL_VARIABLES = (
    "VERITY_MODEL",
    "VERITY_GEMINI_MODEL",
    "VERITY_GEMINI_BASE_URL",
    "GOOGLE_GEMINI_BASE_URL",
    "GOOGLE_API_KEY",
    "GEMINI_API_KEY",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
)


@pytest.fixture
def openai_model() -> Iterator[OpenAIServer]:
    with OpenAIServer() as server:
        yield server


@pytest.fixture
def gate() -> dict[str, Any]:
    return {}


@given("an environment that names no model and holds no model key")
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in MODEL_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@when("the environment names an Anthropic model but holds no Anthropic key")
def anthropic_without_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VERITY_MODEL", "anthropic:claude-fixture")


@when("the environment names an OpenAI model on a loopback server, with its key, as a team would set them")
def openai_on_loopback(monkeypatch: pytest.MonkeyPatch, openai_model: OpenAIServer) -> None:
    for name, value in openai_model.env(api_key=KEY, timeout_ms=30_000).items():
        monkeypatch.setenv(name, value)
    openai_model.enqueue(*order_script(LIVE_CUSTOMER))


@when('I run "verity bdd gate --live"')
def live_gate_refused(gate: dict[str, Any], tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    capfd.readouterr()
    gate["exit"] = main(["bdd", "gate", "--live", "--root", str(REPO), "--out", str(tmp_path / "refused")])
    gate["out"], gate["err"] = capfd.readouterr()
    gate["reports"] = tmp_path / "refused"


@then(parsers.parse("it exits 3 before pytest starts, naming {names}"))
def refused(gate: dict[str, Any], names: str) -> None:
    assert gate["exit"] == 3, (gate["out"], gate["err"])
    assert gate["err"].startswith("verity bdd gate --live: no model to run the @live scenarios against: ")
    for name in names.split(" and "):
        assert name in gate["err"], gate["err"]
    assert gate["out"] == "" and not gate["reports"].exists()  # nothing ran, nothing was written


@when("I run \"verity bdd gate --live\" over the live smoke scenario's tests and the action cache's")
def live_gate_run(gate: dict[str, Any], tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    capfd.readouterr()
    tests = ["tests/execute/test_live_smoke.py", "tests/execute/test_action_cache_versions.py"]
    # A selection of the caller's own (-m) narrows the live one; hypothesis's plugin, which none of
    # these tests uses, is the largest share of the nested pytest's start-up.
    quiet = ["-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:hypothesispytest"]
    argv = ["bdd", "gate", "--live", "--json", "--root", str(REPO), "--out", str(tmp_path / "live"), "--", *tests, "-m", "not replicas", *quiet]
    gate["exit"] = main(argv)
    gate["out"], gate["err"] = capfd.readouterr()


@then("the gate passes with the @live scenario passed and the other deselected, its contract proven")
def live_gate_passed(gate: dict[str, Any]) -> None:
    result = json.loads(gate["out"])
    assert gate["exit"] == 0 and result["verdict"] == "passed", (result["reasons"], gate["err"][-3000:])
    args = result["subset"]["pytest_args"]
    assert args[args.index("-m") + 1] == "live and (not replicas)" and result["contracts_passed"] == 1, args
    assert "the @live scenarios against openai:openai-fixture-mini at http://127.0.0.1:" in gate["err"]
    assert result["outcome_counts"] == {"passed": 1, "deselected": 1}, result["outcome_counts"]
    judged = {contract["id"]: contract["result"] for contract in result["contracts"] if contract["result"] != "not selected"}
    assert judged == {"LIVE-002": "passed"}, judged


@then("every model request reached the loopback server with that key, which the gate's output never shows")
def requests_on_loopback(gate: dict[str, Any], openai_model: OpenAIServer) -> None:
    assert len(openai_model.requests) == 4 and not openai_model.script_failures, openai_model.script_failures
    assert {request.headers["authorization"] for request in openai_model.requests} == {f"Bearer {KEY}"}
    assert KEY not in gate["out"] + gate["err"]
