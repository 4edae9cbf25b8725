"""Checks of `for_each` loops: one level deep, no `close` inside, a list value given as one
placeholder, and `{item: <as>}` locators only inside the element loop that names them."""

from __future__ import annotations

from collections.abc import Iterator

from runtime.recipe.conditions import Condition
from runtime.recipe.locators import Locator
from runtime.recipe.model import Recipe
from runtime.recipe.step_bodies import ACT_LOCATOR_KEYS
from runtime.recipe.steps import ACT, EXTRACT, FOR_EACH, Step
from runtime.template.references import single_placeholder
from runtime.recipe.templated import all_steps, condition_lists, when_conditions

PathParts = tuple[str | int, ...]
Finding = tuple[PathParts, str, str]


def check_loops(recipe: Recipe) -> Iterator[Finding]:
    for i, step in enumerate(recipe.plan):
        base: PathParts = ("plan", i)
        loop = step.for_each
        if loop is None:
            continue
        if loop.values is not None and single_placeholder(loop.values) is None:
            yield base + (FOR_EACH, "values"), "give the list as one placeholder, such as \"{steps.parse.names}\"", "bad_loop_values"
        for j, inner in enumerate(loop.do):
            path = base + (FOR_EACH, "do", j)
            if inner.for_each is not None:
                yield path, "loops do not nest: move the inner loop into a step of its own plan", "nested_loop"
            if inner.close is not None:
                yield path, "a loop body cannot end the plan: put `close` after the loop", "close_in_loop"
    element_loops = {
        (("plan", i), step.for_each.as_) for i, step in enumerate(recipe.plan) if step.for_each is not None and step.for_each.elements is not None
    }
    for path, step in all_steps(recipe):
        for locator_path, locator in step_locators(step, path):
            if locator.item is None:
                continue
            loop_path = path[:2]
            if len(path) < 5 or (loop_path, locator.item) not in element_loops:
                yield (
                    locator_path + ("item",),
                    f"`item: {locator.item}` names the element of a for_each over `elements` whose `as` is {locator.item!r}; use it inside that loop's `do`",
                    "bad_item_locator",
                )


def step_locators(step: Step, base: PathParts) -> Iterator[tuple[PathParts, Locator]]:
    """Every locator a step holds, with its path."""
    if step.act is not None:
        for key in ACT_LOCATOR_KEYS:
            locator = getattr(step.act, key)
            if locator is not None:
                yield base + (ACT, key), locator
        for name, read in (step.act.read_at_press or {}).items():
            yield base + (ACT, "read_at_press", name), read
        if step.act.expect is not None and step.act.expect.element is not None:
            yield base + (ACT, "expect", "element"), step.act.expect.element
    if step.extract is not None:
        for name, spec in step.extract.fields.items():
            yield base + (EXTRACT, "fields", name), spec
    if step.for_each is not None and step.for_each.elements is not None:
        yield base + (FOR_EACH, "elements"), step.for_each.elements
    for conditions_path, conditions in condition_lists(step, base):
        for j, condition in enumerate(conditions):
            yield from _condition_locators(condition, conditions_path + (j,))
    for path, condition in when_conditions(step, base):
        yield from _condition_locators(condition, path)


def _condition_locators(condition: Condition, path: PathParts) -> Iterator[tuple[PathParts, Locator]]:
    if condition.element is not None:
        yield path + ("element",), condition.element
    if condition.not_ is not None:
        yield from _condition_locators(condition.not_, path + ("not",))
