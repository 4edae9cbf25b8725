"""Binds features/recipe_freeze.feature: `verity recipe freeze` on a real agent run (Chromium, the
real google-genai client and the scripted Gemini server on loopback), and the frozen recipe run
again on the same page."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, scenarios, then, when
from ruamel.yaml import YAML

from runtime.cli.main import main
from runtime.recipe import load_recipe_file
from runtime.secrets import marker
from tests.execute.conftest import ExecRunner
from tests.fixtures.gemini_server import GeminiServer, RecordedRequest, ScriptedReply, function_call_reply
from tests.fixtures.site_server import FixtureSite

scenarios("recipe_freeze.feature")


def ref_of(request: RecordedRequest, role: str, name: str) -> str:
    refs = re.findall(re.escape(f'{role} "{name}"') + r"[^\n]*?\[ref=(s\d+:(?:f\d+)?e\d+)\]", request.system_instruction)
    assert refs, f"no {role} {name!r} in the prompt:\n{request.system_instruction}"
    return refs[-1]


@given(parsers.parse('the model will type "{text}" into the member name by its ref, the password secret by its label, click Sign in by its ref and close'))
def sign_in_script(gemini: GeminiServer, text: str) -> None:
    def type_name(request: RecordedRequest) -> ScriptedReply:
        return function_call_reply("browser_type", {"target": {"ref": ref_of(request, "textbox", "Member name")}, "text": text})

    def click(request: RecordedRequest) -> ScriptedReply:
        return function_call_reply("browser_click", {"target": {"ref": ref_of(request, "button", "Sign in")}})

    # The model knows the password only as its marker; typed, the marker becomes the value.
    pin = function_call_reply("browser_type", {"target": "label=Password", "text": marker("password")})
    gemini.enqueue(type_name, pin, click, function_call_reply("close", {"summary": "signed in"}))


@when(parsers.parse('I run "{name}" with the password "{pin}" against the fixture site'), target_fixture="frozen")
def run_sign_in(runner: ExecRunner, fixture_site: FixtureSite, gemini: GeminiServer, name: str, pin: str) -> dict[str, Any]:
    record = runner.run(name, {"site": fixture_site.base_url, "password": pin})
    assert not gemini.script_failures, gemini.script_failures
    return {"run_dir": record.run_dir, "password": pin}


@when("I freeze the run into a recipe")
def freeze(frozen: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "frozen" / "agent-sign-in.yaml"
    path.parent.mkdir()
    frozen["code"] = main(["recipe", "freeze", str(frozen["run_dir"]), "-o", str(path)])
    frozen["path"], frozen["stderr"] = path, capsys.readouterr().err


@then("the frozen recipe validates and names each element by the role and name its ref resolved to")
def frozen_valid(frozen: dict[str, Any]) -> None:
    assert frozen["code"] == 0, frozen["stderr"]
    load_recipe_file(frozen["path"])
    plan = YAML(typ="safe").load(frozen["path"].read_text(encoding="utf-8"))["plan"]
    assert [step["id"] for step in plan] == ["open", "sign_in-1", "sign_in-2", "sign_in-3", "sign_in", "step-3"]
    acts = [step["act"] for step in plan if "act" in step]
    # The model's own braces stay text ({{ }}), never a placeholder.
    assert acts[0] == {"type": {"role": "textbox", "name": "Member name", "exact": True}, "text": "Ada {{x}}"}, acts[0]
    assert acts[1] == {"type": {"label": "Password"}, "text": "{password}"}, acts[1]
    assert acts[2] == {"click": {"role": "button", "name": "Sign in", "exact": True}}, acts[2]
    assert plan[4] == {"id": "sign_in", "verify": [{"text_includes": "Welcome, Ada"}]}


@then("the frozen recipe holds the password only as its placeholder")
def no_secret(frozen: dict[str, Any]) -> None:
    text = frozen["path"].read_text(encoding="utf-8")
    assert frozen["password"] not in text and "«secret" not in text
    assert YAML(typ="safe").load(text)["inputs"]["password"]["secret"] is True


@then(parsers.parse('the frozen recipe, run again with the password "{pin}", completes without asking the model'))
def frozen_runs(runner: ExecRunner, fixture_site: FixtureSite, gemini: GeminiServer, frozen: dict[str, Any], pin: str) -> None:
    asked = len(gemini.requests)
    record = runner.wait(runner.start(frozen["path"], {"site": fixture_site.base_url, "password": pin}))
    assert record.verdict.stop_reason.value == "completed" and record.verdict.verified is True, record.verdict.summary
    assert len(gemini.requests) == asked
    verified = [r for r in record.file("executions.json") if r["state_id"] == "sign_in"]
    assert verified[0]["ok"] is True and "Welcome, Ada {x}" in str(verified[0]["evidence"]["conditions"][0]["observed"])


@then("freezing is refused because the run did not complete verified")
def refused(frozen: dict[str, Any]) -> None:
    assert frozen["code"] == 3 and not frozen["path"].exists()
    assert "did not complete verified (stop reason verification_failed)" in frozen["stderr"], frozen["stderr"]
