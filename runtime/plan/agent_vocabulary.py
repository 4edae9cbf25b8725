"""What an agent state's model may name, in the recipe language's terms, for the executor (which
reads plans, never the recipe): tools (an old name means its new one) and targets.

A target is what a plan step's locator is: one way to find an element, resolved by the driver as
a plan step's is. A model writes it as one string, a ref or a one-line locator
(recipe/locator_syntax.py); an object with a locator's keys, the form agents sent before, is
checked by the same Locator model.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from runtime.recipe.locator_syntax import SYNTAX_HINT, LocatorSyntaxError, locator_data, parse_locator
from runtime.recipe.locators import Locator
from runtime.recipe.tool_names import TOOL_ALIASES, canonical_tool
from runtime.recipe.tool_registry import UPLOAD_TOOL
from runtime.recipe.upload_files import UploadRefused, confined_file

__all__ = [
    "TOOL_ALIASES",
    "UPLOAD_TOOL",
    "TargetInvalid",
    "UploadRefused",
    "agent_target",
    "canonical_tool",
    "confined_file",
]


class TargetInvalid(ValueError):
    """A target the model wrote that names no element in the recipe's terms; says what is wrong."""


def agent_target(value: Any, argument: str = "target") -> dict[str, Any]:
    """The locator (as plan params carry one) a model's `argument` names; TargetInvalid otherwise."""
    if isinstance(value, str):
        try:
            return locator_data(parse_locator(value))
        except LocatorSyntaxError as error:
            raise TargetInvalid(f"{argument}: {error}") from None
    if isinstance(value, dict):
        data = dict(value)
        if "item" in data:
            raise TargetInvalid(f"{argument}.item: `item` names a for_each loop's element; give {SYNTAX_HINT}")
        if "index" in data and "nth" not in data:
            index = data.pop("index")
            # Gemini may send integral numbers as floats (1.0).
            data["nth"] = int(index) if isinstance(index, float) and index.is_integer() else index
        try:
            return locator_data(Locator.model_validate(data))
        except ValidationError as error:
            first = error.errors(include_url=False)[0]
            where = ".".join(str(part) for part in first["loc"])
            raise TargetInvalid(f"{argument}{'.' + where if where else ''}: {str(first['msg']).removeprefix('Value error, ')}") from None
    raise TargetInvalid(f"{argument} must be a string: {SYNTAX_HINT}")
