"""Every recipe string that may hold {placeholders}: the one list the checks walk and the run fills.

Regexes (`url_matches`, `pattern`, `field_matches`) use braces themselves: only their
`{= expressions}` are filled, so only those are listed (as a text of expressions alone). An
`expression` condition is listed as the one expression it is.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from runtime.template.expressions import EXPRESSION_OPEN, ExpressionError, split_text
from runtime.recipe.conditions import Condition, Expect
from runtime.recipe.locators import ElementCheck, Locator
from runtime.recipe.model import Recipe
from runtime.recipe.step_bodies import ACT_LOCATOR_KEYS
from runtime.recipe.steps import ACT, AGENT, CLOSE, EVALUATE, EXTRACT, FOR_EACH, NAVIGATE, SET, VERIFY, WAIT, Step

PathParts = tuple[str | int, ...]
Templated = tuple[PathParts, str]

_LOCATOR_TEXTS = ("name", "text", "label", "placeholder", "alt", "title", "test_id", "css", "xpath", "has_text")


def templated_fields(recipe: Recipe) -> Iterator[Templated]:
    """(path, text) for every templated string of the recipe, in document order."""
    yield ("goal",), recipe.goal
    yield ("target", "start_url"), recipe.target.start_url
    for i, word in enumerate(recipe.target.validation_keywords):
        yield ("target", "validation_keywords", i), word
    for path, step in all_steps(recipe):
        yield from step_texts(step, path)
    if recipe.fallback.search_url is not None:
        yield ("fallback", "search_url"), recipe.fallback.search_url
    for i, query in enumerate(recipe.fallback.queries or []):
        yield ("fallback", "queries", i), query
    if recipe.fallback.wait_for is not None and recipe.fallback.wait_for.text is not None:
        yield ("fallback", "wait_for", "text"), recipe.fallback.wait_for.text
    for key, value in (recipe.output.values or {}).items():
        yield from json_texts(value, ("output", "values", key))


def json_texts(value: Any, path: PathParts) -> Iterator[Templated]:
    """Every string inside a JSON-like value (a `set` value, an `evaluate` arg, an output value)."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from json_texts(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from json_texts(item, path + (index,))


def when_conditions(step: Step, base: PathParts) -> list[tuple[PathParts, Condition]]:
    """A step's `when` as (path, condition) pairs: one condition, or each of a list."""
    if step.when is None:
        return []
    if isinstance(step.when, Condition):
        return [(base + ("when",), step.when)]
    return [(base + ("when", j), condition) for j, condition in enumerate(step.when)]


def all_steps(recipe: Recipe) -> Iterator[tuple[PathParts, Step]]:
    """Every step with its path, loop bodies included (after their loop step)."""
    for i, step in enumerate(recipe.plan):
        yield ("plan", i), step
        if step.for_each is not None:
            for j, inner in enumerate(step.for_each.do):
                yield ("plan", i, FOR_EACH, "do", j), inner


def condition_lists(step: Step, base: PathParts) -> Iterator[tuple[PathParts, list[Condition]]]:
    """The condition lists of a step: a verify step's, and an agent step's `done_when`."""
    if step.verify:
        yield base + (VERIFY,), step.verify
    if step.agent:
        yield base + (AGENT, "done_when"), step.agent.done_when


def step_texts(step: Step, base: PathParts) -> Iterator[Templated]:
    for path, condition in when_conditions(step, base):
        yield from _condition_texts(condition, path)
    if step.evaluate:
        yield from json_texts(step.evaluate.args, base + (EVALUATE, "args"))
    if step.set:
        yield from json_texts(step.set, base + (SET,))
    if step.for_each:
        if step.for_each.values is not None:
            yield base + (FOR_EACH, "values"), step.for_each.values
        yield from _locator_texts(step.for_each.elements, base + (FOR_EACH, "elements"))
    if step.wait and step.wait.selector is not None:
        yield base + (WAIT, "selector"), step.wait.selector
    if step.navigate is not None:
        yield (base + (NAVIGATE,) if isinstance(step.navigate, str) else base + (NAVIGATE, "url")), step.navigate_url or ""
    if step.act:
        act = step.act
        for key in ACT_LOCATOR_KEYS:
            yield from _locator_texts(getattr(act, key), base + (ACT, key))
        for name, locator in (act.read_at_press or {}).items():
            yield from _locator_texts(locator, base + (ACT, "read_at_press", name))
        for key in ("text", "value", "press"):
            if getattr(act, key) is not None:
                yield base + (ACT, key), getattr(act, key)
        if act.expect:
            yield from _expect_texts(act.expect, base + (ACT, "expect"))
    if step.wait and step.wait.until is not None:
        yield from _condition_texts(step.wait.until, base + (WAIT, "until"))
    if step.wait:
        for key in ("text", "url"):
            if getattr(step.wait, key) is not None:
                yield base + (WAIT, key), getattr(step.wait, key)
    if step.extract:
        for name, spec in step.extract.fields.items():
            yield from _locator_texts(spec, base + (EXTRACT, "fields", name))
            yield from _pattern_texts(spec.pattern, base + (EXTRACT, "fields", name, "pattern"))
    if step.act and step.act.expect:
        yield from _pattern_texts(step.act.expect.url_matches, base + (ACT, "expect", "url_matches"))
    for conditions_path, conditions in condition_lists(step, base):
        for j, condition in enumerate(conditions):
            yield from _condition_texts(condition, conditions_path + (j,))
    if step.agent:
        yield base + (AGENT, "task"), step.agent.task
    if step.close and step.close.summary:
        yield base + (CLOSE, "summary"), step.close.summary


def _locator_texts(locator: Locator | None, path: PathParts) -> Iterator[Templated]:
    if locator is None:
        return
    for key in _LOCATOR_TEXTS:
        value = getattr(locator, key)
        if value is not None:
            yield path + (key,), value
    yield from _locator_texts(locator.within, path + ("within",))
    if isinstance(locator.frame, str):
        yield path + ("frame",), locator.frame
    else:
        yield from _locator_texts(locator.frame, path + ("frame",))


def _element_texts(element: ElementCheck | None, path: PathParts) -> Iterator[Templated]:
    if element is None:
        return
    yield from _locator_texts(element, path)
    if element.value is not None:
        yield path + ("value",), element.value


def _expect_texts(expect: Expect, path: PathParts) -> Iterator[Templated]:
    for key in ("url_includes", "text_includes"):
        if getattr(expect, key) is not None:
            yield path + (key,), getattr(expect, key)
    yield from _element_texts(expect.element, path + ("element",))


def _condition_texts(condition: Condition, path: PathParts) -> Iterator[Templated]:
    for key in ("text_includes", "title_includes"):
        if getattr(condition, key) is not None:
            yield path + (key,), getattr(condition, key)
    yield from _element_texts(condition.element, path + ("element",))
    for key, parts in (("value_equals", ("value", "to")), ("value_matches", ("value",)), ("value_in", ("value", "list"))):
        check = getattr(condition, key)
        for part in parts if check is not None else ():
            yield path + (key, part), getattr(check, part)
    if condition.expression is not None:
        yield path + ("expression",), EXPRESSION_OPEN + condition.expression + "}"
    yield from _pattern_texts(condition.url_matches, path + ("url_matches",))
    if condition.value_matches is not None:
        yield from _pattern_texts(condition.value_matches.pattern, path + ("value_matches", "pattern"))
    for name, pattern in (condition.field_matches or {}).items():
        yield from _pattern_texts(pattern, path + ("field_matches", name))
    if condition.not_ is not None:
        yield from _condition_texts(condition.not_, path + ("not",))


def _pattern_texts(pattern: str | None, path: PathParts) -> Iterator[Templated]:
    """A regular expression's `{= expressions}`, as a text of those expressions alone."""
    if pattern is None or EXPRESSION_OPEN not in pattern:
        return
    try:
        expressions = [expression for _literal, expression in split_text(pattern) if expression is not None]
    except ExpressionError:
        yield path, pattern  # an unclosed `{=`: the placeholder check reports it
        return
    yield path, "".join(EXPRESSION_OPEN + expression + "}" for expression in expressions)
