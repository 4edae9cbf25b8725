"""Binds features/login_pages.feature: a login page is no blocker for a run that means to log in
(MiniWoB++ login-user on loopback, judged by the task's reward; the agent is the scripted Gemini
server), and still login_required for a run that cannot."""

from __future__ import annotations

import re
from typing import Any

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.execute.judges.login_intent import login_means
from runtime.plan import compile_recipe
from runtime.recipe import load_recipe_with_registry
from tests.execute.conftest import ExecRunner, recipe_path
from tests.fixtures.gemini_server import GeminiServer, RecordedRequest, ScriptedReply, function_call_reply
from tests.fixtures.miniwob_server import MiniwobSite

scenarios("login_pages.feature")

# The task's instruction as the page shows it (MiniWoB++ login-user's #query).
INSTRUCTION = re.compile(r'Enter the username "([^"]+)" and the password "([^"]+)" into the text fields and press login')
REWARD_CEILING_S = 10.0


@pytest.fixture
def case() -> dict[str, Any]:
    return {}


@given(parsers.parse('the recipe "{name}" compiled'))
def compiled(case: dict[str, Any], name: str) -> None:
    path = recipe_path(name)
    recipe, registry = load_recipe_with_registry(path.read_text(encoding="utf-8"), str(path), recipe_path=path)
    case["plan"] = compile_recipe(recipe, registry)


@when("its plan is judged for a way to log in")
def judged(case: dict[str, Any]) -> None:
    case["means"] = login_means(case["plan"])


@then(parsers.parse('the way to log in is the step "{step}"'))
def the_way(case: dict[str, Any], step: str) -> None:
    means = case["means"]
    if step == "none":
        assert means is None, means
    else:
        assert means is not None and means.state_id == step, means
        assert step in means.reason


# ---------------------------------------------------------------------- the scripted model


def _page_says(request: RecordedRequest) -> tuple[str, str]:
    """The username and password of the instruction, from what the model was shown of the page."""
    shown = request.system_instruction + " ".join(str(r.get("response")) for r in request.function_responses())
    found = INSTRUCTION.findall(shown)
    assert found, f"the instruction is nowhere in the prompt:\n{shown}"
    return found[-1]


def _script_login(gemini: GeminiServer, wrong_password: bool) -> None:
    gemini.enqueue(function_call_reply("browser_snapshot", {}))

    def type_username(request: RecordedRequest) -> ScriptedReply:
        username, _ = _page_says(request)
        return function_call_reply("browser_type", {"target": {"css": "#username"}, "text": username})

    def type_password(request: RecordedRequest) -> ScriptedReply:
        _, password = _page_says(request)
        return function_call_reply("browser_type", {"target": {"css": "#password"}, "text": password + ("-wrong" if wrong_password else "")})

    gemini.enqueue(type_username, type_password)
    gemini.enqueue(function_call_reply("browser_click", {"target": {"role": "button", "name": "Login"}}))
    gemini.enqueue(function_call_reply("close", {"summary": "logged in"}))


@given("the model will log in with the credentials the page shows")
def will_log_in(gemini: GeminiServer) -> None:
    _script_login(gemini, wrong_password=False)


@given("the model will log in with the page's username and a wrong password")
def will_log_in_wrongly(gemini: GeminiServer) -> None:
    _script_login(gemini, wrong_password=True)


# ---------------------------------------------------------------------- runs


@when(parsers.parse('I run "{name}" on login-user with seed {seed:d}'))
def run_login_user(runner: ExecRunner, miniwob_site: MiniwobSite, case: dict[str, Any], name: str, seed: int) -> None:
    episode = miniwob_site.new_episode()
    case["episode"] = episode
    runner.wait(runner.start(name, {"base": miniwob_site.base(episode), "seed": str(seed)}), timeout=90)


def _reward(miniwob_site: MiniwobSite, case: dict[str, Any]) -> Any:
    reward = miniwob_site.reward(case["episode"], timeout=REWARD_CEILING_S)
    assert reward is not None and reward.task == "login-user.html", reward
    return reward


@then("the task awarded a reward above 0")
def rewarded(miniwob_site: MiniwobSite, case: dict[str, Any]) -> None:
    reward = _reward(miniwob_site, case)
    assert reward.reward > 0 and reward.raw_reward == 1, reward


@then(parsers.parse("the task awarded a reward of {value:d}"))
def rewarded_exactly(miniwob_site: MiniwobSite, case: dict[str, Any], value: int) -> None:
    reward = _reward(miniwob_site, case)
    assert reward.raw_reward == value and reward.reward == value, reward


@then(parsers.parse('the login page was validated because step "{step}" logs in'))
def login_page_validated(runner: ExecRunner, step: str) -> None:
    validations = [r for r in runner.last.file("executions.json") if r["kind"] == "data.validate-target"]
    assert validations, runner.last.file("executions.json")
    first = validations[0]
    assert first["outcome"] == "valid", first
    login_page = first["evidence"]["login_page"]
    assert "password field" in login_page["detected"], login_page
    assert login_page["run_logs_in"]["state"] == step, login_page


@then("the blocked page's evidence names no step that logs in")
def blocked_without_means(runner: ExecRunner) -> None:
    blocked = [r for r in runner.last.file("executions.json") if r["kind"] == "data.validate-target"]
    assert blocked and all(r["outcome"] == "blocked" and r["blocker_kind"] == "login_required" for r in blocked), blocked
    assert all("login_page" not in r["evidence"] for r in blocked)
    assert "password field" in blocked[0]["observation_summary"], blocked[0]
