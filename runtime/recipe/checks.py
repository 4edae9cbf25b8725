"""Checks that need the whole recipe: regexes, domains, placeholders, reachability, tools, schemas.

Each check yields (path, message, code); the loader turns paths into file:line:col.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any


from runtime.recipe.domains import domain_pattern_problem
from runtime.recipe.model import ANY_OBJECT_SCHEMA, Recipe
from runtime.recipe.problems import did_you_mean, format_path
from runtime.recipe.loop_checks import check_loops
from runtime.recipe.references_check import check_references
from runtime.recipe.repair import check_repairs
from runtime.recipe.tab_checks import check_tabs
from runtime.recipe.step_graph import body_ids
from runtime.recipe.step_tools import tool_needs
from runtime.recipe.upload_files import check_upload_files
from runtime.recipe.url_checks import check_urls
from runtime.recipe.templated import all_steps, condition_lists, templated_fields, when_conditions
from runtime.recipe.tool_registry import EVALUATE_TOOL, ToolRegistry
from runtime.recipe.steps import ACT, AGENT, CLOSE, EXTRACT, FOR_EACH, VERIFY, WAIT
from runtime.template.expressions import ExpressionError, split_text
from runtime.template.placeholders import BUILTIN_ORDER, BUILTIN_PLACEHOLDERS, SEARCH_QUERY, placeholder_names
from runtime.template.references import is_reference

PathParts = tuple[str | int, ...]
Finding = tuple[PathParts, str, str]

# The fields whose values the built-ins are: neither may use itself, nor a built-in filled after it.
_DEFINED_AT: dict[tuple[str, ...], str] = {("target", "start_url"): "start_url", ("goal",): "goal"}


def builtin_defined_at(path: PathParts) -> str | None:
    """The built-in whose value the field at `path` is (`goal`, `start_url`), if any."""
    return _DEFINED_AT.get(tuple(str(part) for part in path))


def builtins_usable_at(path: PathParts) -> set[str]:
    """The built-ins a field may use: all of them, except in the fields that define them."""
    defined = builtin_defined_at(path)
    return set(BUILTIN_ORDER if defined is None else BUILTIN_ORDER[: BUILTIN_ORDER.index(defined)])


def check_recipe(recipe: Recipe, registry: ToolRegistry) -> Iterator[Finding]:
    yield from _regexes(recipe)
    yield from _domains(recipe)
    yield from _placeholders(recipe)
    yield from _flow(recipe)
    yield from _tools(recipe, registry)
    yield from _fields(recipe)
    yield from _inputs(recipe)
    yield from _fallback_and_output(recipe)
    yield from check_loops(recipe)
    yield from check_references(recipe)
    yield from check_tabs(recipe)
    yield from check_urls(recipe)
    yield from check_upload_files(recipe)
    yield from check_repairs(all_steps(recipe))


def _regex_problem(pattern: str) -> str | None:
    try:
        # Each `{= expression}` stands for text the run fills in (checked as an expression).
        re.compile(_without_expressions(pattern))
    except re.error as error:
        return f"bad regular expression {pattern!r}: {error}"
    return None


def _without_expressions(pattern: str) -> str:
    try:
        return "".join(literal + ("x" if expression is not None else "") for literal, expression in split_text(pattern))
    except ExpressionError:
        return pattern


def _regexes(recipe: Recipe) -> Iterator[Finding]:
    candidates: list[tuple[PathParts, str]] = [(("intent", "patterns", i), p) for i, p in enumerate(recipe.intent.patterns)]
    for base, step in all_steps(recipe):
        for path, condition in when_conditions(step, base):
            candidates += _condition_regexes(condition, path)
        if step.wait and step.wait.until is not None:
            candidates += _condition_regexes(step.wait.until, base + (WAIT, "until"))
        if step.act and step.act.expect and step.act.expect.url_matches:
            candidates.append((base + (ACT, "expect", "url_matches"), step.act.expect.url_matches))
        if step.act and step.act.expect and step.act.expect.not_ is not None:
            candidates += _condition_regexes(step.act.expect.not_, base + (ACT, "expect", "not"))
        if step.extract:
            for name, spec in step.extract.fields.items():
                if spec.pattern is not None:
                    candidates.append((base + (EXTRACT, "fields", name, "pattern"), spec.pattern))
        for conditions_path, conditions in condition_lists(step, base):
            for j, condition in enumerate(conditions):
                candidates += _condition_regexes(condition, conditions_path + (j,))
    for path, pattern in candidates:
        problem = _regex_problem(pattern)
        if problem:
            yield path, problem, "bad_regex"


def _condition_regexes(condition: Any, path: PathParts) -> list[tuple[PathParts, str]]:
    found: list[tuple[PathParts, str]] = []
    if condition.url_matches is not None:
        found.append((path + ("url_matches",), condition.url_matches))
    for field_name, pattern in (condition.field_matches or {}).items():
        found.append((path + ("field_matches", field_name), pattern))
    if condition.value_matches is not None:
        found.append((path + ("value_matches", "pattern"), condition.value_matches.pattern))
    if condition.not_ is not None:
        found += _condition_regexes(condition.not_, path + ("not",))
    return found


def _domains(recipe: Recipe) -> Iterator[Finding]:
    for i, pattern in enumerate(recipe.target.allowed_domains):
        problem = domain_pattern_problem(pattern)
        if problem:
            yield ("target", "allowed_domains", i), problem, "bad_domain_pattern"


def _placeholders(recipe: Recipe) -> Iterator[Finding]:
    for path, text in templated_fields(recipe):
        try:
            names = placeholder_names(text)
        except ExpressionError as error:
            yield path, str(error), "bad_expression"
            continue
        except ValueError as error:
            yield path, f"{error} (write {{{{ and }}}} for literal braces)", "bad_placeholder"
            continue
        usable = set(recipe.inputs) | builtins_usable_at(path) | ({SEARCH_QUERY} if path == ("fallback", "search_url") else set())
        for name in names:
            if name in usable:
                continue
            if is_reference(name):
                if path[0] not in ("plan", "output"):
                    yield path, f"{{{name}}} names a value found during the run; only plan steps and output.values may use one", "reference_not_allowed"
                continue  # references_check.py checks the rest
            defined = builtin_defined_at(path)
            if name in BUILTIN_PLACEHOLDERS and defined is not None:
                why = "it would refer to itself" if name == defined else f"{{{name}}} is only known once {{{defined}}} is filled"
                yield path, f"`{format_path(path)}` cannot use {{{name}}}: {why}", "cyclic_placeholder"
            else:
                yield path, f"placeholder {{{name}}} names no input{did_you_mean(name, usable)}", "unknown_placeholder"


def _flow(recipe: Recipe) -> Iterator[Finding]:
    """Unique ids across the plan and loop bodies; jumps stay in their own list; every step reachable."""
    seen: dict[str, PathParts] = {}
    for path, step in all_steps(recipe):
        if step.id is None:
            continue
        if step.id in seen:
            yield path + ("id",), f"step id {step.id!r} is already used by {format_path(seen[step.id])}", "duplicate_step_id"
        else:
            seen[step.id] = path
    yield from _scope_flow(recipe.plan, recipe.step_ids(), ("plan",), "the plan")
    for i, step in enumerate(recipe.plan):
        if step.for_each is not None:
            loop_id = recipe.step_ids()[i]
            yield from _scope_flow(step.for_each.do, body_ids(loop_id, step.for_each.do), ("plan", i, FOR_EACH, "do"), f"loop {loop_id!r}")


def _scope_flow(steps: list[Any], ids: list[str], base: PathParts, scope: str) -> Iterator[Finding]:
    """One list of steps (the plan, or a loop body): its jumps name steps of the same list, and
    every step is reachable from its first."""
    index_of: dict[str, int] = {}
    for i, step_id in enumerate(ids):
        index_of.setdefault(step_id, i)
    successors: list[set[int]] = []
    for i, step in enumerate(steps):
        following: set[int] = set()
        for key in ("next", "on_failure"):
            target = getattr(step, key)
            if target is None:
                continue
            if target not in index_of:
                yield base + (i, key), f"no step of {scope} has id {target!r}{did_you_mean(target, set(index_of))}", "unknown_step"
            else:
                following.add(index_of[target])
        if step.next is None and step.kind != CLOSE and i + 1 < len(steps):
            following.add(i + 1)
        successors.append(following)
    reached, frontier = {0}, [0]
    while frontier:
        for nxt in successors[frontier.pop()]:
            if nxt not in reached:
                reached.add(nxt)
                frontier.append(nxt)
    for i in range(len(steps)):
        if i not in reached:
            before = steps[i - 1]
            if i - 1 not in reached:
                why = f"only the unreachable step {ids[i - 1]!r} leads to it"
            elif before.kind == CLOSE:
                why = "it follows a `close` step"
            else:
                why = f"{format_path(base + (i - 1,))} jumps elsewhere with `next`"
            yield base + (i,), f"step {ids[i]!r} is unreachable: {why} and no step names it in `next` or `on_failure`", "unreachable_step"


def _tools(recipe: Recipe, registry: ToolRegistry) -> Iterator[Finding]:
    for key in ("allow", "needs_approval"):
        for i, name in enumerate(getattr(recipe.tools, key) or []):
            if name not in registry:
                yield ("tools", key, i), f"unknown tool {name!r}{did_you_mean(name, set(registry.names))}", "unknown_tool"
    allowed = set(recipe.tools.allow) if recipe.tools.allow is not None else None
    for base, step in all_steps(recipe):
        for j, name in enumerate((step.agent.tools if step.agent else None) or []):
            path = base + (AGENT, "tools", j)
            if name not in registry:
                yield path, f"unknown tool {name!r}{did_you_mean(name, set(registry.names))}", "unknown_tool"
            elif name == EVALUATE_TOOL and (allowed is None or EVALUATE_TOOL not in allowed):
                yield path, f"an agent step offering {EVALUATE_TOOL!r} runs scripts in the page: name it in tools.allow to let it (page scripts are never allowed implicitly)", "tool_not_allowed"
            elif allowed is not None and name not in allowed:
                yield path, f"tool {name!r} is not in tools.allow, so the model could never use it", "tool_not_allowed"
    # The same question the run-time tool gate asks, for every step at once, before the run. Page
    # scripts are the one tool a recipe must name even when it omits tools.allow.
    for need in tool_needs(recipe):
        if need.tool == EVALUATE_TOOL and (allowed is None or EVALUATE_TOOL not in allowed):
            message = f"an evaluate step runs a script in the page: name {EVALUATE_TOOL!r} in tools.allow to let it (page scripts are never allowed implicitly)"
            yield need.path, message, "tool_not_allowed"
        elif allowed is not None and need.tool not in allowed:
            message = f"step {need.step_id!r} ({need.why}) uses the tool {need.tool!r}, which tools.allow leaves out: add {need.tool} to tools.allow"
            yield need.path, message, "tool_not_allowed"


def _fields(recipe: Recipe) -> Iterator[Finding]:
    extracted: set[str] = set()
    for _path, step in all_steps(recipe):
        if step.extract:
            extracted |= set(step.extract.fields)
            if step.extract.readable_text:
                extracted.add("text")
    for base, step in all_steps(recipe):
        for j, condition in enumerate(step.verify or []):
            names = [condition.field_present] if condition.field_present else list(condition.field_matches or {})
            key = "field_present" if condition.field_present else "field_matches"
            for name in names:
                if name not in extracted:
                    yield base + (VERIFY, j, key), f"field {name!r} is not extracted by any step{did_you_mean(name, extracted)}", "unknown_field"


_INPUT_TYPES = {"string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,)}


def _inputs(recipe: Recipe) -> Iterator[Finding]:
    for name, spec in recipe.inputs.items():
        if name in (*BUILTIN_PLACEHOLDERS, SEARCH_QUERY):
            yield ("inputs", name), f"{{{name}}} is a built-in placeholder; give this input another name", "reserved_input"
        default = spec.default
        if default is None:
            continue
        wanted = _INPUT_TYPES[spec.type]
        if not isinstance(default, wanted) or (spec.type != "boolean" and isinstance(default, bool)):
            yield ("inputs", name, "default"), f"default {default!r} is not a {spec.type}", "bad_default"


def _fallback_and_output(recipe: Recipe) -> Iterator[Finding]:
    url = recipe.fallback.search_url
    if url is not None and SEARCH_QUERY not in _names_or_none(url):
        yield ("fallback", "search_url"), "search_url must contain {query}", "bad_search_url"
    yield from _output_schema(recipe.output.schema_)


def _names_or_none(text: str) -> list[str]:
    try:
        return placeholder_names(text)
    except ValueError:
        return [SEARCH_QUERY]  # unbalanced braces: _placeholders reports them already


def _output_schema(schema: dict[str, Any]) -> Iterator[Finding]:
    """Checked by the validator a run will use (the one its `$schema` names, else 2020-12), with
    every `$ref` resolved: a run never fetches a schema, and a dangling one would fail at its end."""
    if schema == ANY_OBJECT_SCHEMA:
        # The default is valid and refers to nothing; jsonschema's import (0.1-0.2 s of CPU) is
        # paid only by a recipe with a schema of its own.
        return
    import jsonschema
    from referencing import Registry, Resource
    from referencing.exceptions import Unresolvable
    from referencing.jsonschema import DRAFT202012

    base: PathParts = ("output", "schema")
    validator: Any = jsonschema.Draft202012Validator
    declared = schema.get("$schema")
    if isinstance(declared, str):
        validator = jsonschema.validators.validator_for(schema, default=None)
        if validator is None:
            yield base + ("$schema",), f"unknown $schema {declared!r}: leave it out, or name a JSON Schema draft", "bad_output_schema"
            return
    try:
        validator.check_schema(schema)
    except jsonschema.SchemaError as error:
        yield base + tuple(error.path), f"not a valid JSON Schema: {error.message}", "bad_output_schema"
        return
    resolver = Registry().resolver_with_root(Resource.from_contents(schema, default_specification=DRAFT202012))
    for path, reference in _references(schema, ()):
        try:
            resolver.lookup(reference)
        except Unresolvable:
            yield base + path, f"$ref {reference!r} points to nothing in this schema (runs never fetch schemas)", "bad_output_schema"


_DATA_KEYWORDS = {"const", "enum", "default", "examples"}  # their values are data, not schemas


def _references(node: Any, path: PathParts) -> Iterator[tuple[PathParts, str]]:
    """Every `$ref` that resolves against the root (subschemas with their own `$id` are left alone)."""
    if isinstance(node, dict):
        if path and "$id" in node:
            return
        if isinstance(node.get("$ref"), str):
            yield path + ("$ref",), node["$ref"]
        for key, value in node.items():
            if key not in _DATA_KEYWORDS:
                yield from _references(value, path + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _references(value, path + (index,))


def registry_dir(recipe: Recipe, recipe_path: Path | None) -> Path | None:
    if recipe.tools.registry is None:
        return None
    base = recipe_path.parent if recipe_path else Path.cwd()
    return Path(os.path.abspath(base / recipe.tools.registry))  # abspath: no file system access, so nothing to fail here
