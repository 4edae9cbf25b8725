"""Binds features/recipe_validation.feature: broken recipes report exactly their problems."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.recipe import RecipeInvalid, load_recipe_file
from runtime.recipe.domains import url_allowed

scenarios("recipe_validation.feature")

BROKEN = Path(__file__).parent / "broken"
EXPECT = re.compile(r"^# expect: (\d+):(\d+) (\S+) (\S+)$")


def expected_problems(path: Path) -> set[tuple[int, int, str, str]]:
    found = set()
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        match = EXPECT.match(line)
        if match:
            line_no, col, field, code = match.groups()
            found.add((int(line_no), int(col), "" if field == "-" else field, code))
    assert found, f"{path.name} has no '# expect:' lines"
    return found


@pytest.fixture
def case() -> dict:
    return {}


@given(parsers.parse('the broken recipe "{name}"'))
def given_broken(case: dict, name: str) -> None:
    case["path"] = BROKEN / name


@when("I validate it")
def validate(case: dict) -> None:
    try:
        load_recipe_file(case["path"])
    except RecipeInvalid as error:
        case["problems"] = error.problems
    else:
        case["problems"] = []


@then("the problems are exactly those listed in its expect comments")
def exact_problems(case: dict) -> None:
    got = {(p.line, p.col, p.path, p.code) for p in case["problems"]}
    assert got == expected_problems(case["path"])
    for problem in case["problems"]:
        assert problem.source == str(case["path"])
        assert problem.message and "Traceback" not in problem.message


@then("no object was constructed from the tagged values")
def nothing_constructed(case: dict) -> None:
    # The loader never builds Python objects from tags: the goal stays plain data and the
    # problem names the tag rather than any constructed value.
    messages = [p.message for p in case["problems"] if p.code == "unknown_tag"]
    assert any("!!python/object/apply:os.system" in m for m in messages)
    assert all("posix" not in m and "function" not in m for m in messages)


def _problem_at(case: dict, path: str):
    matches = [p for p in case["problems"] if p.path == path]
    assert matches, f"no problem at {path}: {[str(p) for p in case['problems']]}"
    return matches[0]


@then(parsers.parse('the problem at "{path}" suggests "{word}"'))
def suggests(case: dict, path: str, word: str) -> None:
    assert f"did you mean {word!r}?" in _problem_at(case, path).message


@then(parsers.parse('the problem at "{path}" says "{text}"'))
def says(case: dict, path: str, text: str) -> None:
    assert text in _problem_at(case, path).message


@then("no problem quotes the YAML library's own wording")
def our_words(case: dict) -> None:
    for problem in case["problems"]:
        text = str(problem)
        assert "position" not in text and "<unicode string>" not in text and "ruamel" not in text, text
        assert "max_depth" not in text and "unacceptable character" not in text, text


@then(parsers.parse('the allowed domains "{pattern}" allow "{good}" but not "{bad}"'))
def wildcard_semantics(pattern: str, good: str, bad: str) -> None:
    assert url_allowed(good, [pattern])
    assert not url_allowed(bad, [pattern])
