"""The run's placeholder values and the one way recipe text is filled with them.

Plan params keep their `{placeholders}`: the plan stays the same for every input, and each run
fills what it needs at the moment it acts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from runtime.execute.values.value_store import FillValues, ValueStore
from runtime.plan.model import State
from runtime.template.expressions import evaluate, single_expression
from runtime.plan.state_kinds import STATE_KINDS
from runtime.template.placeholders import fill, fill_pattern
from runtime.template.references import single_placeholder

LOCATOR_KEYS = (
    "role", "name", "text", "label", "placeholder", "alt", "title", "test_id", "css", "xpath", "ref", "item",
    "exact", "nth", "first", "has_text", "within", "frame",
)  # fmt: skip
# Locator parts that are text a recipe may template; role and ref are names, never filled.
_FILLED_LOCATOR_KEYS = ("name", "text", "label", "placeholder", "alt", "title", "test_id", "css", "xpath", "has_text")
# Locator kinds whose text is compared by `exact`: exact (whole, case-sensitive) unless the recipe says not.
_NAMED_KINDS = ("role", "name", "text", "label", "placeholder", "alt", "title")


def locator_of(spec: dict[str, Any]) -> dict[str, Any]:
    """The locator part of a recipe mapping that also carries other keys (state, attr, type, ...)."""
    return {k: v for k, v in spec.items() if k in LOCATOR_KEYS}


class RunValues:
    """The inputs plus `start_url` and `goal`, and the values the run found (`store`: references
    such as `{steps.read.price}`), as `{placeholders}` see them."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.values = values
        self.store = ValueStore()

    def get(self, name: str, default: Any = None) -> Any:
        return self.values.get(name, default)

    def text(self, text: str | None) -> str | None:
        return None if text is None else fill(text, FillValues(self.values, self.store))

    def pattern(self, pattern: str | None) -> str | None:
        """A regular expression with its `{= expressions}` filled (its own braces untouched)."""
        return None if pattern is None else fill_pattern(pattern, FillValues(self.values, self.store))

    def expression(self, expression: str) -> Any:
        """The value of a bare expression (an `expression` condition's text)."""
        return evaluate(expression, FillValues(self.values, self.store))

    def with_extra(self, text: str, **extra: Any) -> str:
        """Fill `text` with the run's values plus a few of the caller's own (a search `query`)."""
        return fill(text, FillValues({**self.values, **extra}, self.store))

    def value(self, template: Any) -> Any:
        """A JSON-like recipe value filled: one placeholder as a whole string keeps the value's
        type (a number, a list); other strings are filled as text; lists and mappings item by item."""
        if isinstance(template, str):
            expression = single_expression(template)
            if expression is not None:
                return evaluate(expression, FillValues(self.values, self.store))
            name = single_placeholder(template)
            if name is not None:
                return FillValues(self.values, self.store)[name]
            return self.text(template)
        if isinstance(template, Mapping):
            return {key: self.value(item) for key, item in template.items()}
        if isinstance(template, list):
            return [self.value(item) for item in template]
        return template

    def sources(self, templates: Mapping[str, Any]) -> dict[str, Any]:
        """For each key whose template is one reference, the source record of its value."""
        found: dict[str, Any] = {}
        for key, template in templates.items():
            name = single_placeholder(template) if isinstance(template, str) else None
            if name is not None and name not in self.values:
                found[key] = self.store.lookup(name).source
        return found

    def record_step(self, state: State, values: Mapping[str, Any], source: Mapping[str, Any]) -> None:
        """A state's values as `{steps.<step id>.<name>}` (a loop's item `[i]` left off the id)."""
        self.store.record_step(state.id.partition("[")[0], values, {"state": state.id, **source})

    def record_step_fields(self, state: State, values: Mapping[str, tuple[Any, Mapping[str, Any]]]) -> None:
        """A state's values each with a source of its own (an agent reads its fields on several pages)."""
        self.store.record_step_fields(state.id.partition("[")[0], {name: (value, {"state": state.id, **source}) for name, (value, source) in values.items()})

    def locator(self, locator: dict[str, Any] | None) -> dict[str, Any] | None:
        if locator is None:
            return None
        if locator.get("item") is not None:
            # The current element of a for_each over elements: the loop's own target, by position.
            return dict(self.store.elements[locator["item"]])
        filled = {k: (self.text(v) if k in _FILLED_LOCATOR_KEYS and isinstance(v, str) else v) for k, v in locator.items()}
        for scope in ("within", "frame"):
            if isinstance(filled.get(scope), dict):
                filled[scope] = self.locator(filled[scope])
            elif isinstance(filled.get(scope), str):
                filled[scope] = self.text(filled[scope])
        if filled.get("exact") is None and any(filled.get(k) is not None for k in _NAMED_KINDS):
            filled["exact"] = True  # a recipe's names are exact unless it says `exact: false`
        return filled

    def params(self, state: State) -> dict[str, Any]:
        """A state's params with the placeholders its action reads filled in (the params its kind's
        row says it fills: navigate's url, act's targets, text and value); everything else as the
        plan has it."""
        params = dict(state.params)
        kind = STATE_KINDS.get(state.kind)
        if kind is None:
            return params
        for key in kind.fills_locators:
            if key in params:
                params[key] = self.locator(params[key])
        for key in kind.fills_locator_maps:
            if params.get(key):
                params[key] = {name: self.locator(locator) for name, locator in params[key].items()}
        for key in kind.fills_texts:
            if key in params:
                params[key] = self.text(params[key])
        return params
