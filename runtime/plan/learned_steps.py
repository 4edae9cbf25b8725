"""What an agent did, as deterministic recipe steps: the one conversion of a verified agent's
tool calls into steps that run again without a model. `verity recipe freeze` writes them into a
recipe (runtime/learn/); an action cache may store and replay the same steps.

The input is an agent step's turns as executions.json records them: each successful call's
`performed` holds the act (or wait, navigation, read) it ran and how its locator resolved. A
snapshot ref lives only as long as its snapshot, so a ref becomes the role and accessible name
of the element it resolved to. Text the model wrote is kept as text (braces escaped, so it is
never read as a placeholder); a secret it typed is in the record only as its marker, and becomes
the recipe's `{input}` placeholder: the value itself is never known here.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError

from runtime.plan.compiler import compile_recipe
from runtime.plan.model import Plan, State
from runtime.plan.state_kinds import ACT, EXTRACT, NAVIGATE, WAIT
from runtime.recipe.model import Recipe
from runtime.recipe.step_bodies import ACT_LOCATOR_KEYS
from runtime.template.placeholders import placeholder_names

_SECRET_MARKER = re.compile(r"«secret:([a-z_][a-z0-9_]*)»")
# Act keys that hold text a recipe fills; locators are handled on their own.
_ACT_TEXTS = ("text", "value", "press")
# What an act's params hold by default: left out of a step, so it reads as a person writes it.
_ACT_DEFAULTS = {"submit": False, "keys": False, "add": False, "remove": False}
# The plan states a learned step compiles to (a navigate's target checks are left out: a replay's
# pages are judged as the agent's are, by the done_when read on a validated document).
_REPLAYED_KINDS = (ACT, WAIT, EXTRACT, NAVIGATE)


class NotReplayable(ValueError):
    """A call that no deterministic step can repeat; the message says which and why."""


def recipe_text(text: str) -> str:
    """Text as a recipe writes it: braces doubled, a secret's marker its input's placeholder."""
    escaped = text.replace("{", "{{").replace("}", "}}")
    return _SECRET_MARKER.sub(lambda match: "{" + match.group(1) + "}", escaped)


def stable_locator(given: dict[str, Any], resolved: dict[str, Any] | None = None) -> dict[str, Any]:
    """The locator a replay finds the element with: the one the model gave, or for a snapshot
    ref the role and accessible name of the element it resolved to (else its shown text)."""
    if "ref" not in given:
        return {key: recipe_text(value) if isinstance(value, str) else value for key, value in given.items()}
    chosen = (resolved or {}).get("chosen") or {}
    role, name, text = chosen.get("role"), chosen.get("name"), chosen.get("text")
    if role and name:
        return {"role": role, "name": recipe_text(name), "exact": True}
    if text:
        return {"text": recipe_text(text), "exact": True}
    raise NotReplayable(f"ref {given['ref']} resolved to an element with no role, name or text to find it by again")


def learned_steps(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The steps the successful calls of an agent's turns performed, in order. An act that had no
    effect of its own is left out (its replay would fail its own verification); reads of the tree
    (snapshot, find, the model's own verify) and `close` leave nothing to repeat."""
    steps: list[dict[str, Any]] = []
    for turn in turns:
        performed = turn.get("performed")
        if not turn.get("ok") or not performed:
            continue
        if "act" in performed:
            step = _act_step(performed, turn)
            if step is not None:
                steps.append(step)
        elif "navigate" in performed:
            steps.append({"navigate": recipe_text(str(performed["navigate"]))})
        elif "wait" in performed:
            steps.append({"wait": dict(performed["wait"])})  # already recipe text (acting.py)
        elif "extract" in performed:
            fields = performed["extract"]["fields"]
            steps.append({"extract": {"fields": {name: _field(name, spec, turn) for name, spec in fields.items()}}})
    return steps


def _act_step(performed: dict[str, Any], turn: dict[str, Any]) -> dict[str, Any] | None:
    params = dict(performed["act"])
    action = next(key for key in params if key in ACT_LOCATOR_KEYS or key in ("press", "scroll"))
    if not performed.get("effect") and action not in ("check", "uncheck"):
        return None
    if params.get("target") is not None:
        raise NotReplayable(f"turn {turn.get('turn')}: {action} on a target element has no recipe act (press and scroll act on the page)")
    params.pop("target", None)
    resolved = performed.get("resolved")
    body: dict[str, Any] = {}
    for key, value in params.items():
        if _ACT_DEFAULTS.get(key) == value:
            continue
        if key in ACT_LOCATOR_KEYS and isinstance(value, dict):
            # The act's own target resolved as `resolved` says; a drag's `to` keeps what was given.
            body[key] = stable_locator(value, resolved if key == action else None)
        elif key in _ACT_TEXTS and isinstance(value, str):
            body[key] = recipe_text(value)
        else:
            body[key] = value
    return {"act": body}


def _field(name: str, spec: dict[str, Any], turn: dict[str, Any]) -> dict[str, Any]:
    if "ref" in spec:
        raise NotReplayable(f"turn {turn.get('turn')}: field {name!r} was read by a snapshot ref, which no later page has")
    return stable_locator(spec)


def replay_states(steps: list[dict[str, Any]], plan: Plan, agent_state: State) -> list[State]:
    """The plan states that run `steps` (learned_steps' output, as the action cache keeps them)
    in place of `agent_state`: compiled as a recipe of those steps would be, so a replay runs
    exactly what the same steps written by hand run, each in the agent step's tab and time.
    Raises NotReplayable when the steps no longer compile (a recipe changed since they were
    learned), or fill a placeholder that is no input of the plan (a password the session learned
    as it was typed, whose value no later run is given)."""
    unknown = sorted(set(placeholders_in(steps)) - set(plan.inputs) - {"start_url", "goal"})
    if unknown:
        raise NotReplayable(f"the steps of {agent_state.id} fill {', '.join('{' + name + '}' for name in unknown)}, which no input of the recipe gives")
    recipe = {"name": plan.recipe["name"], "goal": plan.goal, "inputs": plan.inputs, "target": plan.target, "plan": [*steps, {"close": {}}]}
    try:
        compiled = compile_recipe(Recipe.model_validate(recipe))
    except (ValidationError, ValueError) as invalid:
        raise NotReplayable(f"the cached steps of {agent_state.id} do not compile: {invalid}") from None
    replayed = [s for s in compiled.states if s.kind in _REPLAYED_KINDS]
    timeout = agent_state.timeout_ms
    return [s.model_copy(update={"id": f"{agent_state.id}.cached-{n}", "timeout_ms": timeout, "tab": agent_state.tab}) for n, s in enumerate(replayed, 1)]


def placeholders_in(value: Any) -> list[str]:
    """The placeholder names the texts inside `value` fill (steps, or a step's params as written);
    a text that does not parse names none."""
    if isinstance(value, dict):
        return [name for item in value.values() for name in placeholders_in(item)]
    if isinstance(value, list):
        return [name for item in value for name in placeholders_in(item)]
    if isinstance(value, str):
        try:
            return placeholder_names(value)
        except ValueError:
            return []
    return []
