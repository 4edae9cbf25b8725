"""Binds features/plan_compiler.feature."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.browser import launch_browser
from runtime.plan import Plan, compile_recipe
from runtime.plan.mermaid import to_mermaid
from runtime.recipe import load_recipe_file

scenarios("plan_compiler.feature")

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "runtime" / "demo" / "demo-quote.yaml"
MERMAID_JS = REPO / ".cache" / "mermaid-11.12.3" / "mermaid.min.js"


@pytest.fixture
def case() -> dict:
    return {}


@given("the demo recipe")
def demo(case: dict) -> None:
    case["recipe"] = load_recipe_file(DEMO)


@given(parsers.parse('the recipe "{name}"'))
def fixture_recipe(case: dict, name: str) -> None:
    case["recipe"] = load_recipe_file(REPO / "tests" / "fixtures" / "recipes" / name)


@when("I compile it")
def compile_once(case: dict) -> None:
    case["plan"] = compile_recipe(case["recipe"])


@when("I compile it twice")
def compile_twice(case: dict) -> None:
    # The second compile starts from a fresh load, so no cached object can make them agree.
    case["first"] = compile_recipe(case["recipe"]).to_json()
    case["second"] = compile_recipe(load_recipe_file(DEMO)).to_json()


@then("both plans are byte-identical")
def identical(case: dict) -> None:
    assert case["first"].encode() == case["second"].encode()


@then("the plan JSON loads back into the same plan")
def round_trip(case: dict) -> None:
    assert Plan.from_json(case["first"]).to_json() == case["first"]


@then("every navigate or observe state goes to its data.validate-target state")
def observation_then_validate(case: dict) -> None:
    plan: Plan = case["plan"]
    observations = [s for s in plan.states if s.kind in ("navigate", "observe")]
    assert observations
    for state in observations:
        targets = {t.to for t in state.transitions}
        assert targets == {f"{state.id}.validate-target"}
        assert plan.state(f"{state.id}.validate-target").kind == "data.validate-target"


@then("every data.validate-target state goes only to its agent.evaluate state")
def validate_then_evaluate(case: dict) -> None:
    plan: Plan = case["plan"]
    for state in (s for s in plan.states if s.kind == "data.validate-target"):
        observation = state.params["observation"]
        assert {t.to for t in state.transitions} == {f"{observation}.evaluate"}
        assert plan.state(f"{observation}.evaluate").kind == "agent.evaluate"


@then(parsers.parse('"{state_id}" on "{outcome}" goes to "{target}" while replans are left'))
def while_replans_left(case: dict, state_id: str, outcome: str, target: str) -> None:
    state = case["plan"].state(state_id)
    assert state.next_for(outcome, {"replans_left": True, "replans_exhausted": False}) == target


@then(parsers.parse('"{state_id}" on "{outcome}" goes to "{target}" when replans are exhausted'))
def when_exhausted(case: dict, state_id: str, outcome: str, target: str) -> None:
    state = case["plan"].state(state_id)
    assert state.next_for(outcome, {"replans_left": False, "replans_exhausted": True}) == target
    assert case["plan"].state(target).terminal is not None


@then(parsers.parse('"{state_id}" on "{outcome}" goes to "{target}"'))
def goes_to(case: dict, state_id: str, outcome: str, target: str) -> None:
    assert case["plan"].state(state_id).next_for(outcome) == target


@then(parsers.parse("the search queries are {queries}"))
def ladder(case: dict, queries: str) -> None:
    expected = json.loads(f"[{queries}]")
    assert case["plan"].fallback["queries"] == expected


@when(parsers.parse('I run "verity recipe compile --format mermaid" on it'))
def compile_mermaid(case: dict) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "runtime.cli.main", "recipe", "compile", str(DEMO), "--format", "mermaid"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    case["mermaid"] = result.stdout
    case["plan"] = compile_recipe(case["recipe"])


async def _render(diagram: str) -> dict:
    browser = await launch_browser()
    try:
        page = await browser.raw.newPage()
        await page.setContent("<!doctype html><html><body></body></html>")
        await page.addScriptTag(path=str(MERMAID_JS))
        return await page.evaluate(
            """async (source) => {
                mermaid.initialize({startOnLoad: false});
                try {
                    const {svg} = await mermaid.render('plan', source);
                    const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
                    const labels = [...doc.querySelectorAll('g.node, g.stateGroup, g[id*="state-"]')].length;
                    return {ok: true, svg: svg.length, nodes: labels, text: doc.documentElement.textContent};
                } catch (e) {
                    return {ok: false, error: String(e && e.message || e)};
                }
            }""",
            diagram,
        )
    finally:
        await browser.close()


@then("Mermaid renders the diagram to SVG in Chromium with a node for every state")
def renders(case: dict) -> None:
    assert MERMAID_JS.exists(), "mermaid.js missing: run tools/bootstrap --with-test-assets"
    result = asyncio.run(_render(case["mermaid"]))
    assert result["ok"], result.get("error")
    for state in case["plan"].states:
        assert state.id in result["text"], f"state {state.id} not drawn"
    # A broken diagram must fail to render, or this check proves nothing.
    broken = asyncio.run(_render(case["mermaid"].replace("-->", "-=>", 1)))
    assert not broken["ok"]


@then(parsers.parse('the only state leading to "{target}" is "{source}"'))
def only_source(case: dict, target: str, source: str) -> None:
    leading = {s.id for s in case["plan"].states for t in s.transitions if t.to == target}
    assert leading == {source}


@then(parsers.parse('every terminal state other than "{success}" names a failing stop reason'))
def failures_named(case: dict, success: str) -> None:
    terminals = [s for s in case["plan"].states if s.kind == "terminal"]
    assert len(terminals) > 1
    for state in terminals:
        assert state.terminal is not None
        if state.id == success:
            assert state.terminal.stop_reason.value == "completed"
        else:
            assert state.terminal.stop_reason.value != "completed"
            assert state.id == f"end.{state.terminal.stop_reason.value}"


@then(parsers.parse('the agent step "{state_id}" offers the model "{tools}"'))
def agent_tools(case: dict, state_id: str, tools: str) -> None:
    state = case["plan"].state(state_id)
    assert state.kind == "agent" and state.tool == "agent.act"
    assert state.params["tools"] == [t.strip() for t in tools.split(",")]
    assert state.params["done_when"], "an agent step always carries its verification"


@when("I compile it to Mermaid")
def compile_to_mermaid(case: dict) -> None:
    case["plan"] = compile_recipe(case["recipe"])
    case["mermaid"] = to_mermaid(case["plan"])


@then(parsers.parse('no state jumps straight to "{step_id}" but its when'))
def only_through_when(case: dict, step_id: str) -> None:
    sources = {s.id for s in case["plan"].states for t in s.transitions if t.to == step_id}
    assert sources == {f"{step_id}.when"}


@then(parsers.parse('the Mermaid diagram names "{label}"'))
def mermaid_names(case: dict, label: str) -> None:
    assert f'"{label}"' in to_mermaid(case["plan"])


@then(parsers.parse('the states "{state_ids}" belong to loop "{loop}"'))
def belong_to_loop(case: dict, state_ids: str, loop: str) -> None:
    plan: Plan = case["plan"]
    for state_id in state_ids.split(", "):
        assert plan.state(state_id).loop == loop, state_id
    assert plan.state(loop).kind == "for_each" and plan.state(loop).loop is None
