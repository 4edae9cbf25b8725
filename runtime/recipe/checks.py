"""Checks that need the whole recipe: regexes, domains, placeholders, reachability, tools, schemas.

Each check yields (path, message, code); the loader turns paths into file:line:col.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from pathlib import Path

import jsonschema

from runtime.recipe.domains import domain_pattern_problem
from runtime.recipe.model import Condition, Expect, Locator, Recipe
from runtime.recipe.placeholders import BUILTIN_PLACEHOLDERS, placeholder_names
from runtime.recipe.tool_registry import ToolRegistry

PathParts = tuple[str | int, ...]
Finding = tuple[PathParts, str, str]


def did_you_mean(word: str, choices: list[str] | set[str]) -> str:
    close = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def check_recipe(recipe: Recipe, registry: ToolRegistry) -> Iterator[Finding]:
    yield from _regexes(recipe)
    yield from _domains(recipe)
    yield from _placeholders(recipe)
    yield from _flow(recipe)
    yield from _tools(recipe, registry)
    yield from _fields(recipe)
    yield from _inputs(recipe)
    yield from _fallback_and_output(recipe)


def _conditions_of(step, base: PathParts) -> Iterator[tuple[PathParts, list[Condition]]]:
    """The condition lists of a step: a verify step's, and an agent step's `done_when`."""
    if step.verify:
        yield base + ("verify",), step.verify
    if step.agent:
        yield base + ("agent", "done_when"), step.agent.done_when


def _regex_problem(pattern: str) -> str | None:
    try:
        re.compile(pattern)
    except re.error as error:
        return f"bad regular expression {pattern!r}: {error}"
    return None


def _regexes(recipe: Recipe) -> Iterator[Finding]:
    candidates: list[tuple[PathParts, str]] = [(("intent", "patterns", i), p) for i, p in enumerate(recipe.intent.patterns)]
    for i, step in enumerate(recipe.plan):
        base: PathParts = ("plan", i)
        if step.act and step.act.expect and step.act.expect.url_matches:
            candidates.append((base + ("act", "expect", "url_matches"), step.act.expect.url_matches))
        if step.extract:
            for name, spec in step.extract.fields.items():
                if spec.pattern is not None:
                    candidates.append((base + ("extract", "fields", name, "pattern"), spec.pattern))
        for conditions_path, conditions in _conditions_of(step, base):
            for j, condition in enumerate(conditions):
                if condition.url_matches is not None:
                    candidates.append((conditions_path + (j, "url_matches"), condition.url_matches))
                for field_name, pattern in (condition.field_matches or {}).items():
                    candidates.append((conditions_path + (j, "field_matches", field_name), pattern))
    for path, pattern in candidates:
        problem = _regex_problem(pattern)
        if problem:
            yield path, problem, "bad_regex"


def _domains(recipe: Recipe) -> Iterator[Finding]:
    for i, pattern in enumerate(recipe.target.allowed_domains):
        problem = domain_pattern_problem(pattern)
        if problem:
            yield ("target", "allowed_domains", i), problem, "bad_domain_pattern"


def _locator_texts(locator: Locator | None, path: PathParts) -> Iterator[tuple[PathParts, str]]:
    if locator is None:
        return
    for key in ("name", "text", "css", "xpath"):
        value = getattr(locator, key)
        if value is not None:
            yield path + (key,), value


def _templated(recipe: Recipe) -> Iterator[tuple[PathParts, str]]:
    """Every string that may hold {placeholders}. Regexes are not templated (they use braces)."""
    yield ("goal",), recipe.goal
    yield ("target", "start_url"), recipe.target.start_url
    for i, word in enumerate(recipe.target.validation_keywords):
        yield ("target", "validation_keywords", i), word
    for i, step in enumerate(recipe.plan):
        base: PathParts = ("plan", i)
        if step.navigate is not None:
            yield (base + ("navigate",) if isinstance(step.navigate, str) else base + ("navigate", "url")), step.navigate_url or ""
        if step.act:
            act = step.act
            for key in ("click", "type", "select"):
                yield from _locator_texts(getattr(act, key), base + ("act", key))
            for key in ("text", "value"):
                if getattr(act, key) is not None:
                    yield base + ("act", key), getattr(act, key)
            if act.expect:
                yield from _expect_texts(act.expect, base + ("act", "expect"))
        if step.wait:
            for key in ("text", "url"):
                if getattr(step.wait, key) is not None:
                    yield base + ("wait", key), getattr(step.wait, key)
        if step.extract:
            for name, spec in step.extract.fields.items():
                yield from _locator_texts(spec, base + ("extract", "fields", name))
        for conditions_path, conditions in _conditions_of(step, base):
            for j, condition in enumerate(conditions):
                yield from _condition_texts(condition, conditions_path + (j,))
        if step.agent:
            yield base + ("agent", "task"), step.agent.task
        if step.close and step.close.summary:
            yield base + ("close", "summary"), step.close.summary


def _expect_texts(expect: Expect, path: PathParts) -> Iterator[tuple[PathParts, str]]:
    for key in ("url_includes", "text_includes"):
        if getattr(expect, key) is not None:
            yield path + (key,), getattr(expect, key)
    yield from _locator_texts(expect.element, path + ("element",))


def _condition_texts(condition: Condition, path: PathParts) -> Iterator[tuple[PathParts, str]]:
    for key in ("text_includes", "title_includes"):
        if getattr(condition, key) is not None:
            yield path + (key,), getattr(condition, key)
    yield from _locator_texts(condition.element, path + ("element",))


def _placeholders(recipe: Recipe) -> Iterator[Finding]:
    known = set(recipe.inputs) | set(BUILTIN_PLACEHOLDERS)
    templated = list(_templated(recipe))
    if recipe.fallback.search_url is not None:
        templated.append((("fallback", "search_url"), recipe.fallback.search_url))
    for i, query in enumerate(recipe.fallback.queries or []):
        templated.append((("fallback", "queries", i), query))
    for path, text in templated:
        allowed = known | ({"query"} if path == ("fallback", "search_url") else set())
        if path == ("target", "start_url"):
            allowed = allowed - {"start_url"}
        try:
            names = placeholder_names(text)
        except ValueError as error:
            yield path, f"{error} (write {{{{ and }}}} for literal braces)", "bad_placeholder"
            continue
        for name in names:
            if name not in allowed:
                yield path, f"placeholder {{{name}}} names no input{did_you_mean(name, allowed)}", "unknown_placeholder"


def _flow(recipe: Recipe) -> Iterator[Finding]:
    ids = recipe.step_ids()
    index_of: dict[str, int] = {}
    for i, step_id in enumerate(ids):
        if step_id in index_of:
            yield ("plan", i, "id"), f"step id {step_id!r} is already used by plan[{index_of[step_id]}]", "duplicate_step_id"
        else:
            index_of[step_id] = i
    successors: list[set[int]] = []
    for i, step in enumerate(recipe.plan):
        following: set[int] = set()
        for key in ("next", "on_failure"):
            target = getattr(step, key)
            if target is None:
                continue
            if target not in index_of:
                yield ("plan", i, key), f"no step has id {target!r}{did_you_mean(target, set(index_of))}", "unknown_step"
            else:
                following.add(index_of[target])
        if step.next is None and step.kind != "close" and i + 1 < len(recipe.plan):
            following.add(i + 1)
        successors.append(following)
    reached, frontier = {0}, [0]
    while frontier:
        for nxt in successors[frontier.pop()]:
            if nxt not in reached:
                reached.add(nxt)
                frontier.append(nxt)
    for i in range(len(recipe.plan)):
        if i not in reached:
            before = recipe.plan[i - 1]
            if i - 1 not in reached:
                why = f"only the unreachable step {ids[i - 1]!r} leads to it"
            elif before.kind == "close":
                why = "it follows a `close` step"
            else:
                why = f"plan[{i - 1}] jumps elsewhere with `next`"
            yield ("plan", i), f"step {ids[i]!r} is unreachable: {why} and no step names it in `next` or `on_failure`", "unreachable_step"


def _tools(recipe: Recipe, registry: ToolRegistry) -> Iterator[Finding]:
    for key in ("allow", "needs_approval"):
        for i, name in enumerate(getattr(recipe.tools, key) or []):
            if name not in registry:
                yield ("tools", key, i), f"unknown tool {name!r}{did_you_mean(name, set(registry.names))}", "unknown_tool"
    allowed = set(recipe.tools.allow) if recipe.tools.allow is not None else None
    for i, step in enumerate(recipe.plan):
        for j, name in enumerate((step.agent.tools if step.agent else None) or []):
            path = ("plan", i, "agent", "tools", j)
            if name not in registry:
                yield path, f"unknown tool {name!r}{did_you_mean(name, set(registry.names))}", "unknown_tool"
            elif allowed is not None and name not in allowed:
                yield path, f"tool {name!r} is not in tools.allow, so the model could never use it", "tool_not_allowed"


def _fields(recipe: Recipe) -> Iterator[Finding]:
    extracted: set[str] = set()
    for step in recipe.plan:
        if step.extract:
            extracted |= set(step.extract.fields)
            if step.extract.readable_text:
                extracted.add("text")
    for i, step in enumerate(recipe.plan):
        for j, condition in enumerate(step.verify or []):
            names = [condition.field_present] if condition.field_present else list(condition.field_matches or {})
            key = "field_present" if condition.field_present else "field_matches"
            for name in names:
                if name not in extracted:
                    yield ("plan", i, "verify", j, key), f"field {name!r} is not extracted by any step{did_you_mean(name, extracted)}", "unknown_field"


_INPUT_TYPES = {"string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,)}


def _inputs(recipe: Recipe) -> Iterator[Finding]:
    for name, spec in recipe.inputs.items():
        default = spec.default
        if default is None:
            continue
        wanted = _INPUT_TYPES[spec.type]
        if not isinstance(default, wanted) or (spec.type != "boolean" and isinstance(default, bool)):
            yield ("inputs", name, "default"), f"default {default!r} is not a {spec.type}", "bad_default"


def _fallback_and_output(recipe: Recipe) -> Iterator[Finding]:
    url = recipe.fallback.search_url
    if url is not None and "{query}" not in url:
        yield ("fallback", "search_url"), "search_url must contain {query}", "bad_search_url"
    try:
        jsonschema.Draft202012Validator.check_schema(recipe.output.schema_)
    except jsonschema.SchemaError as error:
        where: PathParts = ("output", "schema") + tuple(error.path)
        yield where, f"not a valid JSON Schema: {error.message}", "bad_output_schema"


def registry_dir(recipe: Recipe, recipe_path: Path | None) -> Path | None:
    if recipe.tools.registry is None:
        return None
    base = recipe_path.parent if recipe_path else Path.cwd()
    return (base / recipe.tools.registry).resolve()
