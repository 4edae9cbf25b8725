"""Details of the recipe language that the scenarios do not spell out."""

from __future__ import annotations

import pytest

from runtime.recipe import RecipeInvalid, load_recipe_text
from runtime.recipe.domains import url_allowed
from runtime.recipe.placeholders import fill, placeholder_names

MINIMAL = """\
name: minimal
goal: {goal}
target:
  start_url: "http://127.0.0.1:8000/"
plan:
  - navigate: "{{start_url}}"
"""


def test_chinese_goal_and_keywords_load() -> None:
    recipe = load_recipe_text(MINIMAL.format(goal="用浏览器 打开 报价页面") + "intent:\n  keywords: [用浏览器]\n")
    assert recipe.intent.keywords == ["用浏览器"]


@pytest.mark.parametrize(
    ("url", "patterns", "allowed"),
    [
        ("http://127.0.0.1:8000/x", ["127.0.0.1"], True),
        ("http://127.0.0.1:8000/x", ["127.0.0.1:9000"], False),
        ("http://127.0.0.1:9000/x", ["127.0.0.1:9000"], True),
        ("https://quotes.example.com/", ["*.example.com"], True),
        ("https://example.com/", ["*.example.com"], False),
        ("https://badexample.com/", ["*.example.com"], False),
        ("https://example.com.evil.net/", ["example.com"], False),
        ("https://anything.net/", [], True),
    ],
)
def test_url_allowed(url: str, patterns: list[str], allowed: bool) -> None:
    assert url_allowed(url, patterns) is allowed


def test_placeholders_escape_literal_braces() -> None:
    assert placeholder_names("{a} {{b}}") == ["a"]
    assert fill("{a} {{b}}", {"a": "x"}) == "x {b}"


def test_not_a_mapping() -> None:
    with pytest.raises(RecipeInvalid) as error:
        load_recipe_text("- just\n- a list\n", "list.yaml")
    assert [p.code for p in error.value.problems] == ["not_a_mapping"]


def test_missing_required_keys_point_at_the_parent() -> None:
    with pytest.raises(RecipeInvalid) as error:
        load_recipe_text("name: x\ngoal: g\ntarget: {}\nplan:\n  - close:\n", "m.yaml")
    problems = {(p.path, p.code, p.line) for p in error.value.problems}
    assert ("target.start_url", "missing_key", 3) in problems


def test_empty_file() -> None:
    with pytest.raises(RecipeInvalid) as error:
        load_recipe_text("", "empty.yaml")
    assert error.value.problems[0].code == "empty"
