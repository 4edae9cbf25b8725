"""Binds features/recipe_repair.feature: `repair` as written (positions of its problems) and as
compiled (which failures lead to a step's repair state)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.plan import compile_recipe
from runtime.plan.model import Plan
from runtime.recipe import RecipeInvalid, load_recipe_file, load_recipe_text
from tests.recipe.test_recipe_validation import BROKEN, expected_problems

scenarios("recipe_repair.feature")

REPAIRED = """
name: repaired
goal: use the browser to save
target:
  start_url: "http://127.0.0.1/"
  allowed_domains: ["127.0.0.1"]
tools:
  allow: [open_url, browser_click, browser_snapshot, browser_verify, close]
repair: {with: agent}
plan:
  - navigate: "{start_url}"
  - id: save
    act: {click: {css: "#save"}, expect: {text_includes: Saved, url_includes: /saved}}
  - id: plain
    act: {click: {css: "#plain"}}
  - id: check
    verify: [{text_includes: Saved}]
    repair: {with: agent, on: [verification_failed], max_attempts: 2}
    on_failure: retry
  - close:
  - id: retry
    navigate: "{start_url}"
  - close:
"""


@pytest.fixture
def case() -> dict[str, Any]:
    return {}


@given(parsers.parse('the broken repair recipe "{name}"'))
def broken(case: dict[str, Any], name: str) -> None:
    case["path"] = BROKEN / name


@when("I validate the repair recipe")
def validate(case: dict[str, Any]) -> None:
    with pytest.raises(RecipeInvalid) as raised:
        load_recipe_file(case["path"])
    case["problems"] = raised.value.problems


@then("the repair problems are exactly those listed in its expect comments")
def exact(case: dict[str, Any]) -> None:
    path: Path = case["path"]
    assert {(p.line, p.col, p.path, p.code) for p in case["problems"]} == expected_problems(path)


@when("I compile a recipe whose steps have repairs", target_fixture="plan")
def compiled() -> Plan:
    return compile_recipe(load_recipe_text(REPAIRED))


def _routes(plan: Plan, state_id: str) -> list[tuple[str, str]]:
    return [(t.on, t.to) for t in plan.state(state_id).transitions]


@then(parsers.parse('the act "save" routes "error", "unverified" and "no_progress" to "save.repair" and "blocked" to the replan'))
def act_routes(plan: Plan) -> None:
    routes = _routes(plan, "save")
    assert {on for on, to in routes if to == "save.repair"} == {"error", "unverified", "no_progress"}, routes
    assert [to for on, to in routes if on == "blocked"] == ["step-1.replan", "end.replans_exhausted"], routes
    assert ("verified", "plain") in routes


@then(parsers.parse('the verify step "check" routes only "failed" to "check.repair", which fails over to its on_failure "retry"'))
def verify_routes(plan: Plan) -> None:
    routes = _routes(plan, "check")
    assert [on for on, to in routes if to == "check.repair"] == ["failed"], routes
    assert _routes(plan, "check.repair") == [("repaired", "step-5"), ("verification_failed", "retry")]
    assert plan.state("check.repair").params["max_attempts"] == 2


@then(parsers.parse('the act "plain" without an expect has no repair state'))
def plain_has_none(plan: Plan) -> None:
    assert all(s.id != "plain.repair" for s in plan.states)
    assert ("error", "end.execute_error") in _routes(plan, "plain")


@then(parsers.parse('the repair of "save" is judged by the act\'s expect and offered only the tools the recipe allows'))
def repair_params(plan: Plan) -> None:
    params = plan.state("save.repair").params
    assert params["conditions"] == [{"url_includes": "/saved"}, {"text_includes": "Saved"}]
    # The recipe's tools.allow, as an agent step's default set is (open_url by its new name).
    assert params["tools"] == ["browser_click", "browser_navigate", "browser_snapshot", "browser_verify", "close"], params["tools"]
    assert params["on"] == ["execute_error", "verification_failed", "no_progress"] and params["repairs"] == "save"
