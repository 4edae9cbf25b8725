"""Run inputs: `--input k=v` strings checked and converted against the recipe's declared inputs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from runtime.recipe.problems import did_you_mean
from runtime.recipe.model import Recipe
from runtime.template.placeholders import placeholder_values
from runtime.recipe.problems import Problem, RecipeInvalid
from runtime.recipe.url_checks import url_problems_at_start
from runtime.secrets import env_input_names, read_env_inputs

_TRUE = {"true", "yes", "1", "on"}
_FALSE = {"false", "no", "0", "off"}


def _convert(kind: str, raw: Any) -> Any:
    if not isinstance(raw, str):
        return raw
    if kind == "integer":
        return int(raw)
    if kind == "number":
        return float(raw)
    if kind == "boolean":
        lowered = raw.strip().lower()
        if lowered in _TRUE | _FALSE:
            return lowered in _TRUE
        raise ValueError(raw)
    return raw


def secret_input_names(recipe: Recipe, raw: Mapping[str, Any]) -> set[str]:
    """The inputs whose values are secret: marked `secret: true`, or given as `@env:NAME`."""
    return {name for name, spec in recipe.inputs.items() if spec.secret} | (env_input_names(raw) & set(recipe.inputs))


def resolve_inputs(
    recipe: Recipe, raw: Mapping[str, Any], source: str = "inputs", *, environ: Mapping[str, str] | None = None, env_prefix: str = ""
) -> dict[str, Any]:
    """Defaults filled in, values converted to their declared types; every problem reported at once.

    With `environ`, a value `@env:NAME` is read from it (only names starting with `env_prefix`
    when one is given); a missing variable is a problem naming it, never a value."""
    problems: list[Problem] = []
    env_names = env_input_names(raw)
    if environ is not None:
        raw, env_problems = read_env_inputs(raw, environ, env_prefix)
        problems += [Problem(source, 0, 0, f"inputs.{e.input_name}", str(e), "missing_env") for e in env_problems]
    values: dict[str, Any] = {}
    for name in raw:
        if name not in recipe.inputs:
            hint = did_you_mean(name, set(recipe.inputs)) or f" (this recipe takes: {', '.join(recipe.inputs) or 'no inputs'})"
            problems.append(Problem(source, 0, 0, f"inputs.{name}", f"unknown input {name!r}{hint}", "unknown_input"))
    for name, spec in recipe.inputs.items():
        if name in raw:
            try:
                values[name] = _convert(spec.type, raw[name])
            except ValueError:
                shown = "the secret value" if spec.secret or name in env_names else repr(raw[name])
                problems.append(Problem(source, 0, 0, f"inputs.{name}", f"{shown} is not a {spec.type}", "bad_input"))
        elif spec.default is not None:
            values[name] = spec.default
        elif spec.required:
            problems.append(Problem(source, 0, 0, f"inputs.{name}", f"input {name!r} is required ({spec.type})", "missing_input"))
        else:
            values[name] = None
    if not problems:
        # A URL whose scheme an input gives is judged now, before the run opens anything.
        filled = placeholder_values(values, start_url=recipe.target.start_url, goal=recipe.goal)
        problems = url_problems_at_start(recipe, filled, source)
    if problems:
        raise RecipeInvalid(problems)
    return values
