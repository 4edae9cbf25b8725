"""Binds features/execute_agent_vocabulary.feature: every act and locator kind through an agent
step (real Chromium, the real google-genai client against the scripted Gemini server), the old
tool names, upload confinement, and the plan's check, uncheck and upload steps."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import grpc
import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.events import StepFinished, ToolUsed
from runtime.execute.agent.fixed_part import FIXED_PART_BUDGET, compact_bytes, fixed_part
from runtime.execute.agent.offered_tools import TARGET_HELP, offered_tools
from runtime.llm import build_agent_prompt
from runtime.recipe import load_recipe_file
from runtime.recipe.tool_names import TOOL_ALIASES
from runtime.service.api.rich_errors import ServiceError, load_or_report
from runtime.service.runs.recipe_catalog import RecipeCatalog
from tests.execute.conftest import RECIPES, ExecRunner
from tests.fixtures.gemini_server import GeminiServer, RecordedRequest, ScriptedReply, function_call_reply
from tests.fixtures.site_server import FixtureSite

scenarios("execute_agent_vocabulary.feature")

ACT_TOOLS = {
    "browser_click", "browser_type", "browser_press_key", "browser_select_option", "browser_check", "browser_uncheck",
    "browser_hover", "browser_drag", "browser_select_text", "browser_scroll", "browser_file_upload",
}  # fmt: skip


def responses(gemini: GeminiServer) -> list[dict[str, Any]]:
    """What each call of the model got back, in order (the last request carries them all)."""
    return [r["response"] for r in gemini.requests[-1].function_responses()]


def calls(gemini: GeminiServer) -> list[dict[str, Any]]:
    """The model's calls as the last request echoes them: name and arguments, in order."""
    return [part["functionCall"] for c in gemini.requests[-1].body["contents"] for part in c["parts"] if "functionCall" in part]


# ---------------------------------------------------------------------- the scripted model


@given("the model will call, one per turn:")
def will_call(gemini: GeminiServer, datatable: list[list[str]]) -> None:
    for tool, arguments in datatable[1:]:
        gemini.enqueue(function_call_reply(tool, json.loads(arguments)))


@given(parsers.parse('a copy of the recipe "{name}" in a directory of its own'), target_fixture="copy")
def recipe_copy(tmp_path: Path, name: str) -> Path:
    home = tmp_path / "recipe"
    (home / "files").mkdir(parents=True)
    source = RECIPES / f"{name}.yaml"
    shutil.copy(source, home / source.name)
    shutil.copy(source.parent / "files" / "resume.txt", home / "files" / "resume.txt")
    (tmp_path / "outside.txt").write_text("not the recipe's to give\n", encoding="utf-8")
    return home / source.name


@given(parsers.parse('the model will first turn the declared file into a link to a file outside that directory, then upload "{name}"'))
def will_swap_then_upload(gemini: GeminiServer, copy: Path, name: str) -> None:
    declared = copy.parent / "files" / "resume.txt"

    def turn(request: RecordedRequest) -> ScriptedReply:
        # After the recipe loaded (its check passed) and before the upload: the file is swapped.
        declared.unlink()
        declared.symlink_to(copy.parent.parent / "outside.txt")
        return function_call_reply("browser_file_upload", {"target": "label=Attachment", "files": [name]})

    gemini.enqueue(turn)


@given(parsers.parse('the model will then close saying "{summary}"'))
def will_close(gemini: GeminiServer, summary: str) -> None:
    gemini.enqueue(function_call_reply("close", {"summary": summary}))


# ---------------------------------------------------------------------- runs


@when(parsers.parse('I run "{name}" against the fixture site'), target_fixture="ran_recipe")
def run_on_fixture(runner: ExecRunner, fixture_site: FixtureSite, gemini: GeminiServer, name: str) -> Path:
    runner.run(name, {"site": fixture_site.base_url})
    assert not gemini.script_failures, gemini.script_failures
    return RECIPES / f"{name}.yaml"


@when("I run the copy against the fixture site")
def run_copy(runner: ExecRunner, fixture_site: FixtureSite, gemini: GeminiServer, copy: Path) -> None:
    runner.run(copy, {"site": fixture_site.base_url})
    assert not gemini.script_failures, gemini.script_failures


# ---------------------------------------------------------------------- what the model was told


@then(parsers.parse("the model was told that each of its {count:d} acts had an effect"))
def every_act_had_an_effect(gemini: GeminiServer, count: int) -> None:
    told = [(call["name"], response) for call, response in zip(calls(gemini), responses(gemini)) if call["name"] in ACT_TOOLS]
    assert len(told) == count, told
    for name, response in told:
        assert response["ok"] is True and response["effect"] is True and response["seen"], (name, response)


@then(parsers.parse('the model was offered the upload tool naming the files "{names}"'))
def upload_offered(gemini: GeminiServer, names: str) -> None:
    declared = {d["name"]: d for d in gemini.requests[0].body["tools"][0]["functionDeclarations"]}
    assert declared["browser_file_upload"]["description"].endswith(f": {names}.")


@then(parsers.parse('the model was told its hover showed "{shown}" and its selection holds "{selected}"'))
def hover_and_selection(gemini: GeminiServer, shown: str, selected: str) -> None:
    told = dict(zip([c["name"] for c in calls(gemini)], responses(gemini)))
    assert shown in told["browser_hover"]["seen"], told["browser_hover"]
    assert told["browser_select_text"]["selected_text"] == selected and selected in told["browser_select_text"]["seen"]


@then(parsers.parse('the model\'s call {number:d} failed with "{code}" saying "{text}"'))
def call_failed(gemini: GeminiServer, number: int, code: str, text: str) -> None:
    response = responses(gemini)[number - 1]
    assert response["ok"] is False and response["error"]["code"] == code and text in response["error"]["message"], response


@then(parsers.parse("the model's call {number:d} was told it had no effect"))
def call_without_effect(gemini: GeminiServer, number: int) -> None:
    response = responses(gemini)[number - 1]
    assert response["ok"] is True and response["effect"] is False and "no change the act caused" in response["seen"], response


@then(parsers.parse("the model's call {number:d} was told it had an effect"))
def call_with_effect(gemini: GeminiServer, number: int) -> None:
    response = responses(gemini)[number - 1]
    assert response["ok"] is True and response["effect"] is True, response


@then("every call of the model succeeded")
def all_succeeded(gemini: GeminiServer) -> None:
    told = responses(gemini)
    assert told and all(r["ok"] is True for r in told), told


@then(parsers.parse('the model\'s last call went back to "{path}"'))
def went_back(gemini: GeminiServer, path: str) -> None:
    assert calls(gemini)[-1]["name"] == "browser_navigate_back"
    last = responses(gemini)[-1]
    # Back as the browser's button goes: the page may come from the back-forward cache, unfetched.
    assert last["url"].endswith(path) and last["title"] == "Agent acts" and last["status"] in (200, None), last


@then(parsers.parse('the tool events name "{names}", never an old name'))
def new_names_only(runner: ExecRunner, names: str) -> None:
    used = {u.tool for u in runner.last.payloads(ToolUsed)}
    assert {name.strip() for name in names.split(",")} <= used, used
    # open_url is also the driver's navigation action (not a tool): a model's call reads "<tool> {...}".
    assert not used & (set(TOOL_ALIASES) - {"open_url"}), used
    assert not [u for u in runner.last.payloads(ToolUsed) if u.tool in TOOL_ALIASES and u.summary.startswith(f"{u.tool} {{")]


@then(parsers.parse('the file input received only "{name}"'))
def only_uploaded(gemini: GeminiServer, name: str) -> None:
    uploaded = [r["uploaded"] for r in responses(gemini) if r.get("uploaded")]
    assert uploaded == [[name]], uploaded


# ---------------------------------------------------------------------- the fixed part


@then(parsers.parse("the model was offered {count:d} tools"))
def offered_count(gemini: GeminiServer, count: int) -> None:
    assert len(gemini.requests[0].body["tools"][0]["functionDeclarations"]) == count


def _outside_goal_and_page(prompt: str) -> str:
    return re.sub(r"<(goal|page)>\n.*?\n</\1>", r"<\1></\1>", prompt, flags=re.DOTALL)


@then(parsers.parse("the fixed part of its request is what the measure reports, at most {budget:d} bytes"))
def fixed_part_as_sent(gemini: GeminiServer, ran_recipe: Path, budget: int) -> None:
    first = gemini.requests[0]
    sent = [
        # google-genai writes the schema's key as parameters_json_schema (older versions camelCase it).
        {"name": d["name"], "description": d["description"], "parameters": d.get("parameters_json_schema", d.get("parametersJsonSchema"))}
        for d in first.body["tools"][0]["functionDeclarations"]
    ]
    files = list(load_recipe_file(ran_recipe).files)
    measured = fixed_part([d["name"] for d in sent], files)
    assert compact_bytes(sent) == measured.declarations
    # The instructions: the system prompt, but for the goal and the page, as the measure builds it.
    built = build_agent_prompt("", offered_tools([d["name"] for d in sent], files), tool_notes=TARGET_HELP)
    assert _outside_goal_and_page(first.system_instruction) == _outside_goal_and_page(built)
    assert measured.total <= budget == FIXED_PART_BUDGET, measured


# ---------------------------------------------------------------------- plan acts


def _step(runner: ExecRunner, state_id: str) -> StepFinished:
    [step] = [s for s in runner.last.steps(state_id) if s.step_kind == "act"]
    return step


def _evidence(runner: ExecRunner, state_id: str) -> dict[str, Any]:
    [record] = [r for r in runner.last.file("executions.json") if r["state_id"] == state_id]
    return record["evidence"]


@then(parsers.parse('the step "{state_id}" was verified by the box\'s checked state'))
def verified_by_state(runner: ExecRunner, state_id: str) -> None:
    step, evidence = _step(runner, state_id), _evidence(runner, state_id)
    assert step.verified and evidence["already"] is False
    assert [c["check"] for c in evidence["checks"]] == ["element"] and evidence["checks"][0]["passed"]


@then(parsers.parse('the step "{state_id}" found the box checked already and was verified'))
def already_checked(runner: ExecRunner, state_id: str) -> None:
    step, evidence = _step(runner, state_id), _evidence(runner, state_id)
    assert step.verified and evidence["already"] is True and evidence["checks"][0]["passed"]


@then(parsers.parse('the step "{state_id}" was verified with the input holding "{name}"'))
def verified_upload(runner: ExecRunner, state_id: str, name: str) -> None:
    step, evidence = _step(runner, state_id), _evidence(runner, state_id)
    assert step.verified and evidence["uploaded"] == [name]
    assert [c["check"] for c in evidence["checks"]] == ["own_effect"] and evidence["checks"][0]["passed"]


@when(parsers.parse('the server\'s recipe catalog is sent "{name}" as text'), target_fixture="refused")
def send_inline(name: str) -> tuple[ServiceError, str]:
    text = (RECIPES / f"{name}.yaml").read_text(encoding="utf-8")
    with pytest.raises(ServiceError) as refused:
        load_or_report(RecipeCatalog(None), "recipe_yaml", text, "")
    return refused.value, text


@then(parsers.parse('it is refused as INVALID_ARGUMENT at "{path}" with "{code}", naming its line'))
def refused_inline(refused: tuple[ServiceError, str], path: str, code: str) -> None:
    error, text = refused
    line = next(i for i, written in enumerate(text.splitlines(), 1) if written.startswith(f"{path}:"))
    assert error.code is grpc.StatusCode.INVALID_ARGUMENT, error
    assert f":{line}:" in error.message and path in error.message and code in error.message, error.message


@pytest.fixture
def copy() -> Path:
    raise AssertionError("this scenario needs 'a copy of the recipe ... in a directory of its own' first")

