"""Binds features/recipe_tooling.feature."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.recipe import RecipeInvalid, load_recipe_file, load_recipe_with_registry, resolve_inputs
from runtime.recipe.schema import recipe_json_schema
from runtime.recipe.source import read_yaml

scenarios("recipe_tooling.feature")

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "runtime" / "demo" / "demo-quote.yaml"

RECIPE_WITH_REGISTRY = """\
name: registry
goal: use the browser with extra tools
target:
  start_url: "http://127.0.0.1/"
tools:
  registry: tools.d
  allow: [open_url, quote_lookup, price_http_fetch]
  needs_approval: [quote_lookup]
plan:
  - navigate: "{start_url}"
"""


@pytest.fixture
def case() -> dict:
    return {}


@given("a recipe whose registry directory holds a JSON and a YAML descriptor")
def registry_recipe(case: dict, tmp_path: Path) -> None:
    (tmp_path / "tools.d").mkdir()
    (tmp_path / "tools.d" / "guardrails.json").write_text(
        json.dumps({"name": "quote_lookup", "description": "Look a quote up in the browser", "scope": "browser", "needs_approval": True})
    )
    (tmp_path / "tools.d" / "more.yaml").write_text(
        "tools:\n  - name: price_http_fetch\n    description: Fetch a price over HTTP\n"
    )
    case["path"] = tmp_path / "recipe.yaml"
    case["path"].write_text(RECIPE_WITH_REGISTRY)


@given("a recipe whose registry directory holds a descriptor with an unknown scope")
def bad_registry_recipe(case: dict, tmp_path: Path) -> None:
    (tmp_path / "tools.d").mkdir()
    (tmp_path / "tools.d" / "bad.yaml").write_text("name: quote_lookup\ndescription: x\nscope: everywhere\n")
    case["path"] = tmp_path / "recipe.yaml"
    case["path"].write_text(RECIPE_WITH_REGISTRY.replace(", price_http_fetch", ""))


@given("the demo recipe")
def demo_recipe(case: dict) -> None:
    case["recipe"] = load_recipe_file(DEMO)


@when("I validate it")
def validate(case: dict) -> None:
    try:
        case["recipe"], case["registry"] = load_recipe_with_registry(case["path"].read_text(), str(case["path"]), recipe_path=case["path"])
        case["problems"] = []
    except RecipeInvalid as error:
        case["problems"] = error.problems


@then("it is valid")
def is_valid(case: dict) -> None:
    assert case["problems"] == []


@then("the registry offers the built-in tools and both added tools with their scopes")
def registry_merged(case: dict) -> None:
    registry = case["registry"]
    assert "browser_click" in registry and "open_url" in registry
    assert registry.get("quote_lookup").scope.value == "browser"
    assert registry.get("quote_lookup").needs_approval
    # No scope declared: classified by name, as seed 000 does.
    assert registry.get("price_http_fetch").scope.value == "network_adjacent"


@then("a problem names the descriptor file with line and column")
def descriptor_problem(case: dict) -> None:
    problems = [p for p in case["problems"] if p.source.endswith("bad.yaml")]
    assert [(p.line, p.col, p.path, p.code) for p in problems] == [(3, 8, "scope", "bad_descriptor")]


@when("I generate the recipe JSON Schema", target_fixture="schema")
def generate_schema() -> dict:
    return recipe_json_schema()


@then("it equals recipes/recipe.schema.json")
def schema_current(schema: dict) -> None:
    published = json.loads((REPO / "recipes" / "recipe.schema.json").read_text())
    assert published == schema, "run: uv run verity recipe schema --write recipes/recipe.schema.json"


def _properties(node: object, where: str) -> list[tuple[str, dict]]:
    """(place, property schema) for every property declared anywhere in a schema."""
    found: list[tuple[str, dict]] = []
    if isinstance(node, dict):
        for name, prop in (node.get("properties") or {}).items():
            found.append((f"{where}.{name}", prop))
        for key, value in node.items():
            found += _properties(value, f"{where}.{key}" if key != "properties" else where)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _properties(value, f"{where}[{index}]")
    return found


@then("every property in it has a description")
def every_property_described(schema: dict) -> None:
    properties = _properties(schema, "recipe")
    assert len(properties) > 100  # the walk really reached the language, not an empty corner of it
    undescribed = [where for where, prop in properties if not str(prop.get("description", "")).strip()]
    assert undescribed == [], f"add Field(description=...) in runtime/recipe/model.py for: {undescribed}"


@then("every shipped recipe satisfies it")
def shipped_satisfy(schema: dict) -> None:
    shipped = [DEMO, *sorted((REPO / "recipes").rglob("*.yaml"))]  # recipes/miniwob/ too
    for path in shipped:
        doc, problems = read_yaml(path.read_text(), str(path))
        assert not problems
        jsonschema.Draft202012Validator(schema).validate(doc.data)
        load_recipe_file(path)  # and the loader's whole-recipe checks (references, flow, tools) pass
    broken, _ = read_yaml("name: x\ngoal: g\ntarget: {start_url: u}\nplan: [{clik: {}}]\n", "b")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(schema).validate(broken.data)


@when(parsers.parse('I run "verity recipe validate --json" on a valid and a broken recipe'), target_fixture="cli")
def run_validate_json() -> subprocess.CompletedProcess:
    broken = REPO / "tests" / "recipe" / "broken" / "unknown-keys.yaml"
    return subprocess.run(
        [sys.executable, "-m", "runtime.cli.main", "recipe", "validate", "--json", str(DEMO), str(broken)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )


@then(parsers.parse("the exit code is {code:d}"))
def exit_code(cli: subprocess.CompletedProcess, code: int) -> None:
    assert cli.returncode == code, cli.stderr
    assert "Traceback" not in cli.stderr


@then("the JSON report marks the valid recipe valid and lists the broken recipe's problems with line and column")
def json_report(cli: subprocess.CompletedProcess) -> None:
    report = json.loads(cli.stdout)
    assert report["valid"] is False
    demo, broken = report["files"]
    assert demo["valid"] is True and demo["problems"] == []
    assert broken["valid"] is False
    assert {(p["line"], p["col"], p["path"]) for p in broken["problems"]} >= {(7, 1, "tartget")}


@when(parsers.parse('I resolve the inputs "{pairs}"'))
def resolve(case: dict, pairs: str) -> None:
    raw = dict(pair.split("=", 1) for pair in pairs.split(","))
    try:
        case["inputs"] = resolve_inputs(case["recipe"], raw)
        case["problems"] = []
    except RecipeInvalid as error:
        case["problems"] = error.problems


@then(parsers.parse('the input problems are "{expected}"'))
def input_problems(case: dict, expected: str) -> None:
    got = ", ".join(f"{p.path} {p.code}" for p in case["problems"])
    assert got == expected
