"""Binds features/recipe_tools.feature: tools.allow is checked for every step before a run."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.recipe import RecipeInvalid, load_recipe_text
from runtime.recipe.schema import recipe_json_schema
from runtime.recipe.tool_registry import STEP_TOOLS

scenarios("recipe_tools.feature")

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "recipes"

SEARCHING_RECIPE = """\
name: searching
goal: read the quote
target:
  start_url: "http://127.0.0.1/quote"
  validation_keywords: [quote]
tools:
  allow: [open_url, close]
plan:
  - navigate: "{start_url}"
  - close:
"""


@pytest.fixture
def case() -> dict:
    return {}


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "runtime.cli.main", *args], capture_output=True, text=True, timeout=120, cwd=REPO)


@given(parsers.parse('the recipe "{name}" whose tools.allow names only open_url'))
def fixture_recipe(case: dict, name: str) -> None:
    case["path"] = FIXTURES / f"{name}.yaml"
    assert "allow: [open_url]" in case["path"].read_text()


@when("I validate it with the CLI")
def validate_cli(case: dict) -> None:
    case["result"] = _cli("recipe", "validate", str(case["path"]))


@when("I run it with the CLI")
def run_cli(case: dict, tmp_path: Path) -> None:
    case["out"] = tmp_path / "run"
    case["result"] = _cli("run", str(case["path"]), "--input", "site=http://127.0.0.1:9", "--out", str(case["out"]))


@then(parsers.parse("the CLI exits with status {code:d}"))
def exit_status(case: dict, code: int) -> None:
    assert case["result"].returncode == code, case["result"].stdout + case["result"].stderr


@then(parsers.parse('it reports "{path}" at {line:d}:{col:d} with "{fix}"'))
def reports(case: dict, path: str, line: int, col: int, fix: str) -> None:
    text = case["result"].stdout + case["result"].stderr
    wanted = f"{case['path']}:{line}:{col}: {path}: "
    lines = [row for row in text.splitlines() if row.startswith(wanted)]
    assert lines, text
    assert fix in lines[0] and "[tool_not_allowed]" in lines[0]


@then("it says nothing was run")
def nothing_run(case: dict) -> None:
    assert "nothing was run" in case["result"].stderr
    assert not case["out"].exists()  # no run directory: no browser was started, no step ran


@given("a recipe whose tools.allow names open_url and close, with a navigate step checked against the target")
def searching_recipe(case: dict) -> None:
    case["text"] = SEARCHING_RECIPE


@when("the recipe names fallback.search_url")
def with_search_url(case: dict) -> None:
    text = case["text"] + 'fallback:\n  search_url: "http://127.0.0.1/search?q={query}"\n'
    with pytest.raises(RecipeInvalid) as raised:
        load_recipe_text(text, "searching.yaml")
    case["problems"] = raised.value.problems


@then(parsers.parse('validation reports "{path}" needing "{tool}"'))
def needs_tool(case: dict, path: str, tool: str) -> None:
    assert [(p.path, p.code) for p in case["problems"]] == [(path, "tool_not_allowed")]
    assert f"add {tool} to tools.allow" in case["problems"][0].message
    assert (case["problems"][0].line, case["problems"][0].col) == (9, 15)  # the navigate value


@then("without fallback.search_url it is valid")
def valid_without_search(case: dict) -> None:
    recipe = load_recipe_text(case["text"], "searching.yaml")
    assert recipe.fallback.search_url is None


@when("I generate the recipe JSON Schema", target_fixture="schema")
def schema() -> dict:
    return recipe_json_schema()


def _expected_tools() -> dict[str, set[str]]:
    """Each step kind's tools, as the one table says (an act's by action)."""
    expected: dict[str, set[str]] = {}
    for key, tool in STEP_TOOLS.items():
        kind = key.split(".")[0]
        if kind != "search":
            expected.setdefault(kind, set()).add(tool)
    expected["agent"] = {STEP_TOOLS["close"]}  # agent.act is bookkeeping; close is what the gate checks
    return expected


@then("each step kind's description names the tool the step->tool table gives it")
def schema_names_tools(schema: dict) -> None:
    step = schema["$defs"]["Step"]["properties"]
    for kind, tools in _expected_tools().items():
        description = step[kind]["description"]
        for tool in tools:
            assert re.search(rf"\b{re.escape(tool)}\b", description), f"{kind}: {description}"
    for kind in ("set", "for_each"):
        assert "no tool" in step[kind]["description"].lower()


@then("the docs' step table gives each step kind the same tool")
def docs_name_tools() -> None:
    page = (REPO / "docs" / "reference" / "recipe-schema.md").read_text(encoding="utf-8")
    table = page.split("| step | tool `tools.allow` must name |", 1)[1].split("\n\n", 1)[0]
    rows = {}
    for row in table.splitlines()[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        rows[cells[0]] = set(re.findall(r"`([a-z_.]+)`", cells[1]))
    for kind, tools in _expected_tools().items():
        row = next((tools_of for name, tools_of in rows.items() if name.startswith(f"`{kind}`")), None)
        assert row is not None and tools <= row, f"docs step table: {kind} should name {sorted(tools)}"
    search_row = next(tools_of for name, tools_of in rows.items() if "fallback.search_url" in name)
    assert STEP_TOOLS["search"] in search_row
