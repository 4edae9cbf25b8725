"""`verity recipe freeze RUN_DIR`: a plain recipe from a verified run, so a person can read,
review and commit what an agent learned.

The recipe is the path the run took (executions.json), step by step, each as its plan state says
(plans.json): the run's own steps as written, and in place of each verified agent step (and each
repair that held) the deterministic steps its tool calls performed (plan/learned_steps.py), with
its `done_when` (or the repaired step's verification) kept as a verify step. The rest of the
recipe (goal, inputs, target, guards, tools, fallback, output) comes from the compiled plan.
Secret inputs stay inputs: a typed secret is its `{name}` placeholder, never its value.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from runtime.plan.learned_steps import NotReplayable, learned_steps
from runtime.plan.model import Plan, State
from runtime.plan.state_kinds import (
    ACT,
    AGENT,
    CLOSE,
    CLOSE_TAB,
    EVALUATE,
    EXTRACT,
    NAVIGATE,
    OBSERVE,
    REPAIR,
    SET,
    SWITCH_TAB,
    TARGET_CHECK,
    VERIFY,
    WAIT,
)
from runtime.plan.compiler import query_ladder
from runtime.recipe import RecipeInvalid, load_recipe_text
from runtime.recipe.model import InputSpec, Recipe
from runtime.recipe.tool_registry import EVALUATE_TOOL
from runtime.run_layout import EXECUTIONS_FILE, PLANS_FILE, VERDICT_FILE

# A plain step's body from its state's params (the compiler keeps most as written).
_BODIES = {
    NAVIGATE: lambda params: params["url"],
    OBSERVE: dict,
    ACT: dict,
    WAIT: dict,
    EXTRACT: dict,
    EVALUATE: dict,
    CLOSE: dict,
    VERIFY: lambda params: params["conditions"],
    SET: lambda params: params["values"],
    SWITCH_TAB: lambda params: params["tab"],
    CLOSE_TAB: lambda params: params["tab"],
}


class FreezeRefused(ValueError):
    """A run that cannot be frozen into a recipe; the message says why and what to do."""


def freeze_run(run_dir: Path, *, name: str | None = None, goal: str | None = None) -> str:
    """The frozen recipe of the verified run in `run_dir`, as YAML text that validates; `name`
    and `goal`, when given, replace the run's recipe's (an MCP browser session saved as a recipe)."""
    verdict = _read(run_dir, VERDICT_FILE)
    if verdict.get("stop_reason") != "completed" or verdict.get("verified") is not True:
        raise FreezeRefused(f"{run_dir} did not complete verified (stop reason {verdict.get('stop_reason')}): only a verified run is frozen")
    plans = _read(run_dir, PLANS_FILE)
    if plans.get("plan_repairs"):
        raise FreezeRefused(f"{run_dir} replanned through a search: the page it used came from the search, not the recipe; freeze a run that did not replan")
    plan = Plan.model_validate(plans["plan"])
    steps = _FrozenSteps(plan).steps(_read(run_dir, EXECUTIONS_FILE))
    recipe = _recipe(plan, steps)
    recipe.update({key: value for key, value in (("name", name), ("goal", goal)) if value is not None})
    text = _header(plan, run_dir) + _yaml(recipe)
    try:
        load_recipe_text(text, f"{run_dir.name} (frozen)")
    except RecipeInvalid as invalid:  # a defect of freezing, said as such: nothing is written
        problems = "; ".join(str(p) for p in invalid.problems)
        raise FreezeRefused(f"the recipe frozen from {run_dir} does not validate: {problems}") from None
    return text


def _read(run_dir: Path, name: str) -> Any:
    path = run_dir / name
    if not path.is_file():
        raise FreezeRefused(f"{path} is missing: give the directory of a finished run")
    return json.loads(path.read_text(encoding="utf-8"))


class _FrozenSteps:
    """The steps of the path one run took, in order, each with its own id."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.ids: set[str] = set()

    def steps(self, executions: list[dict[str, Any]]) -> list[dict[str, Any]]:
        steps: list[dict[str, Any]] = []
        for record in executions:
            if not record.get("ok"):
                continue  # a failed step the run recovered from, or a repaired one: not on the path
            state = self.plan.state(str(record["state_id"]).split("[")[0])
            if state.loop is not None:
                raise FreezeRefused(f"{state.id} ran inside a for_each loop: freezing a loop's iterations is not supported yet")
            if state.kind in _BODIES:
                steps.append(self._plain(state))
            elif state.kind in (AGENT, REPAIR):
                steps += self._learned(state, record)
        return steps

    def _own_id(self, wanted: str) -> str:
        chosen, n = wanted, 1
        while chosen in self.ids:
            n += 1
            chosen = f"{wanted}-{n}"
        self.ids.add(chosen)
        return chosen

    def _plain(self, state: State) -> dict[str, Any]:
        if state.id in self.ids:
            raise FreezeRefused(f"step {state.id} ran more than once (a `next` or `on_failure` loop): such a run is not frozen")
        step: dict[str, Any] = {"id": self._own_id(state.id), state.kind: _BODIES[state.kind](state.params)}
        if state.kind == NAVIGATE and not any(s.kind == TARGET_CHECK and s.id == f"{state.id}.validate-target" for s in self.plan.states):
            step["validate_target"] = False
        if state.timeout_ms is not None and state.timeout_ms != self.plan.limits.step_timeout_ms and state.kind != CLOSE:
            step["timeout_ms"] = state.timeout_ms
        if state.tab is not None:
            step["tab"] = state.tab
        if state.names_tab is not None:
            step["as"] = state.names_tab
        return step

    def _learned(self, state: State, record: dict[str, Any]) -> list[dict[str, Any]]:
        """An agent's (or a repair's) tool calls as steps, then its conditions as a verify step.
        The step's id goes to the first extract (whose fields later steps read as
        `{steps.<id>.<field>}`), else to the verify step."""
        step_id = str(state.params.get("repairs") or state.id)
        conditions = state.params.get("conditions") if state.kind == REPAIR else state.params.get("done_when")
        turns = list(record.get("agent_turns") or [])
        if state.kind == REPAIR:  # only the attempt that held: each attempt's turns count from 1
            starts = [i for i, turn in enumerate(turns) if turn.get("turn") == 1]
            turns = turns[starts[-1] :] if starts else turns
        try:
            learned = learned_steps(turns)
        except NotReplayable as why:
            raise FreezeRefused(f"{step_id}: {why}") from None
        named = next((s for s in learned if "extract" in s), None)
        steps = []
        for n, step in enumerate(learned, 1):
            steps.append({"id": self._own_id(step_id if step is named else f"{step_id}-{n}"), **step})
        steps.append({"id": self._own_id(step_id if named is None else f"{step_id}-done"), "verify": conditions})
        return steps


def _without_defaults(value: Any, default: Any) -> Any:
    """`value` less what equals the recipe language's default, so the recipe reads as written."""
    if isinstance(value, dict) and isinstance(default, dict):
        kept = {k: _without_defaults(v, default[k]) if k in default else v for k, v in value.items() if k not in default or v != default[k]}
        return {k: v for k, v in kept.items() if v != {}}
    return value


def _recipe(plan: Plan, steps: list[dict[str, Any]]) -> dict[str, Any]:
    written = _written(plan, steps)
    defaults = Recipe.model_validate({"name": "x", "goal": "x", "target": {"start_url": "x"}, "plan": [{"close": {}}]}).model_dump(mode="json", by_alias=True)
    recipe = {key: _without_defaults(value, defaults.get(key)) for key, value in written.items()}
    recipe["inputs"] = {name: _without_defaults(spec, InputSpec().model_dump(mode="json")) for name, spec in written["inputs"].items()}
    # A query ladder the compiler would generate again from the target is left to it.
    generated = query_ladder(Recipe.model_validate({**recipe, "fallback": {}, "plan": [{"close": {}}]}))
    if recipe.get("fallback", {}).get("queries") == generated:
        del recipe["fallback"]["queries"]
    return {key: value for key, value in recipe.items() if value != {} or key == "inputs" and value}


def _written(plan: Plan, steps: list[dict[str, Any]]) -> dict[str, Any]:
    limits = plan.limits
    recipe: dict[str, Any] = {
        "name": plan.recipe["name"],
        "version": plan.recipe["version"],
        "goal": plan.goal,
        "inputs": {name: {k: v for k, v in spec.items() if v is not None} for name, spec in plan.inputs.items()},
        "intent": plan.intent,
        "target": plan.target,
        "guards": {
            "max_steps": limits.max_steps,
            "max_replans": limits.max_replans,
            "no_progress_window": limits.no_progress_window,
            "timeouts": {"step_ms": limits.step_timeout_ms, "verify_ms": limits.verify_timeout_ms, "click_result_ms": limits.click_result_timeout_ms, "run_ms": limits.run_timeout_ms},
            "intentGuard": plan.intent_guard,
        },
        "tools": {"needs_approval": plan.tools.needs_approval, **({"allow": _allowed(plan.tools.allowed, steps)} if plan.tools.allowed is not None else {})},
        "fallback": {k: v for k, v in plan.fallback.items() if v is not None},
        "plan": steps,
        "output": {"schema": plan.output_schema, **({"values": plan.output_values} if plan.output_values is not None else {})},
    }
    return recipe


def _allowed(allowed: list[str], steps: list[dict[str, Any]]) -> list[str]:
    """tools.allow as the run had it, plus the verify tool when an agent's done_when became a
    verify step (the agent judged it through close, which needs no entry). Page scripts are
    never allowed implicitly: the frozen recipe allows them only when it runs one (an agent's
    evaluated functions are not among the steps it learned)."""
    needed = {"browser_verify"} if any("verify" in step for step in steps) else set()
    kept = {name for name in allowed if name != EVALUATE_TOOL or any(EVALUATE in step for step in steps)}
    return sorted(kept | needed)


def _header(plan: Plan, run_dir: Path) -> str:
    return (
        f"# Frozen by `verity recipe freeze` from the verified run {run_dir.name} of {plan.recipe['name']} "
        f"({plan.recipe['digest']}).\n# Agent steps are the steps their model took, each followed by its done_when as a verify step.\n"
    )


def _yaml(data: dict[str, Any]) -> str:
    yaml = YAML()
    yaml.default_flow_style = False
    yaml.width = 4096
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()
