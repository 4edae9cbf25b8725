"""Steps shared by the execute features that load a recipe of tests/fixtures/recipes/ and read its
problems. Test modules bind them with `from tests.execute.recipe_problem_steps import *`, which
brings pytest-bdd's step fixtures into the module."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_bdd import given, parsers, then, when

from runtime.recipe import RecipeInvalid, load_recipe_file
from runtime.recipe.problems import format_path

RECIPES = Path(__file__).resolve().parents[1] / "fixtures" / "recipes"

@pytest.fixture
def case() -> dict:
    return {}


@given(parsers.parse('the recipe "{name}"'))
def given_recipe(case: dict, name: str) -> None:
    case["path"] = RECIPES / f"{name}.yaml"


@when("I validate it")
def validate(case: dict) -> None:
    try:
        load_recipe_file(case["path"])
    except RecipeInvalid as error:
        case["problems"] = error.problems
    else:
        case["problems"] = []


@then(parsers.parse('the problems are "{listed}"'))
def problems_are(case: dict, listed: str) -> None:
    got = [f"{p.path}: {p.code}" for p in case["problems"]]
    assert got == listed.split(", "), [(p.path, p.code, p.message) for p in case["problems"]]
    assert all(p.line > 0 and "Traceback" not in p.message for p in case["problems"])
    assert format_path(("plan", 1, "set", "total")) == "plan[1].set.total"
