"""Details of the recipe language that the scenarios do not spell out."""

from __future__ import annotations

import warnings

import pytest

from runtime.recipe import RecipeInvalid, load_recipe_text
from runtime.recipe.domains import url_allowed
from runtime.template.placeholders import fill, placeholder_names, placeholder_values

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


def _problems(text: str) -> list:
    with pytest.raises(RecipeInvalid) as error:
        load_recipe_text(text, "r.yaml")
    return error.value.problems


def test_reused_anchor_is_a_problem_not_a_library_warning() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        problems = _problems(MINIMAL.format(goal="&g gold") + "description: &g again\n")
    assert caught == []
    assert [(p.line, p.path, p.code) for p in problems] == [(7, "description", "duplicate_anchor")]


def test_a_key_with_a_lone_surrogate_is_named_with_escapes() -> None:
    (problem,) = _problems(MINIMAL.format(goal="g") + '"\\udc00": 1\n')
    assert (problem.line, problem.col, problem.path, problem.code) == (7, 1, "'\\udc00'", "bad_character")
    str(problem).encode("utf-8")


def test_merge_keys_are_reported_at_the_key() -> None:
    problems = _problems(MINIMAL.format(goal="g") + "guards: {<<: {max_steps: 3}}\n")
    assert [(p.path, p.code) for p in problems] == [("guards.<<", "merge_key")]


def test_placeholder_values_fill_start_url_before_goal() -> None:
    values = placeholder_values({"site": "http://a/"}, start_url="{site}x", goal="open {start_url}")
    assert values == {"site": "http://a/", "start_url": "http://a/x", "goal": "open http://a/x"}


def test_goal_may_use_start_url_and_later_fields_may_use_goal() -> None:
    recipe = load_recipe_text(MINIMAL.format(goal='"open {start_url}"') + '  - close: {summary: "{goal} done"}\n')
    assert recipe.goal == "open {start_url}"


def test_output_schema_is_checked_by_the_draft_it_names() -> None:
    draft4 = '{"$schema": "http://json-schema.org/draft-04/schema#", "type": "number", "exclusiveMaximum": 5}'
    problems = _problems(MINIMAL.format(goal="g") + f"output: {{schema: {draft4}}}\n")
    assert [(p.path, p.code) for p in problems] == [("output.schema.exclusiveMaximum", "bad_output_schema")]
    unknown = _problems(MINIMAL.format(goal="g") + 'output: {schema: {$schema: "https://example.com/mine"}}\n')
    assert [(p.path, p.code) for p in unknown] == [("output.schema.$schema", "bad_output_schema")]


def test_a_registry_path_the_file_system_refuses_is_a_problem() -> None:
    (problem,) = _problems(MINIMAL.format(goal="g") + f"tools: {{registry: {'x' * 5000}}}\n")
    assert (problem.path, problem.code) == ("tools.registry", "registry_unreadable")
    assert (problem.line, problem.col) == (7, 19)
