"""The recipe language's flow steps: page scripts (`evaluate`), variables (`set`) and bounded loops
(`for_each`), plus the value conditions `when:` and `verify` may use.

They live apart from model.py so the step vocabulary can grow without one file growing with it;
model.py wires them into `Step` and `Condition`. How values are named (`{steps.<id>.<field>}`,
`{vars.<name>}`) is in references.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

if TYPE_CHECKING:
    from runtime.recipe.model import Locator, Step

# JSON text an `evaluate` step may bring back; past it the step fails with `result_too_large`.
EVALUATE_RESULT_MAX_BYTES = 64 * 1024
FOR_EACH_DEFAULT_ITEMS = 10
FOR_EACH_MAX_ITEMS = 100

VarName = Annotated[str, Field(pattern=r"^[a-z_][a-z0-9_]{0,63}$", description="A variable name: lowercase letters, digits and '_'.")]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class EvaluateStep(_Strict):
    """Run a script in the page and keep its JSON result as `{steps.<id>.result}`."""

    script: str = Field(
        description=(
            "The body of an async JavaScript function: `return` gives the result (JSON: null, booleans, numbers, "
            "strings, lists, objects); `args` holds the step's `args`. Not templated: pass values through `args`."
        )
    )
    args: dict[str, Any] = Field(
        default_factory=dict, description="Values handed to the script as `args`; strings may use {placeholders}, kept typed when one placeholder is the whole string."
    )
    world: Literal["isolated", "main"] = Field(
        default="isolated",
        description="`isolated` (default): a world of its own that sees the DOM but not the page's scripts; `main`: the page's own world, its globals included.",
    )
    fields: list[VarName] = Field(
        default_factory=list,
        description="Keys the result object must have; each is also `{steps.<id>.<key>}`. A result without one fails the step.",
    )


class ForEach(_Strict):
    """Run `do` once per item, at most `max_items` times: over the elements a locator matches, or
    over a list value. Inside `do`, `{vars.<as>}` is the item (an element's text) and
    `{vars.<as>_index}` its 0-based position; `{item: <as>}` as a locator is the element itself."""

    elements: Locator | None = Field(default=None, description="Iterate over the elements this locator matches, counted when the loop starts.")
    values: str | None = Field(
        default=None, description="Iterate over a list value: one placeholder such as `{steps.parse.names}` whose value is a list."
    )
    as_: VarName = Field(default="item", alias="as", description="The loop variable's name: `{vars.<as>}` inside `do`.")
    max_items: int = Field(
        default=FOR_EACH_DEFAULT_ITEMS,
        ge=1,
        le=FOR_EACH_MAX_ITEMS,
        description=f"Items run at most (1 to {FOR_EACH_MAX_ITEMS}, default {FOR_EACH_DEFAULT_ITEMS}); later items are left out and the loop says how many.",
    )
    do: Annotated[list[Step], Field(min_length=1)] = Field(description="The steps run for each item, in order; their ids share the recipe's namespace.")

    @model_validator(mode="after")
    def _one_source(self) -> ForEach:
        given = [k for k in ("elements", "values") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"for_each needs exactly one of elements, values (got {', '.join(given) or 'none'})")
        return self


class ValueEquals(_Strict):
    value: str = Field(description="The value to test; may use {placeholders} such as `{vars.x}` or `{steps.read.price}`.")
    to: str = Field(description="What it must equal, compared as text after filling; may use {placeholders}.")


class ValueMatches(_Strict):
    value: str = Field(description="The value to test; may use {placeholders}.")
    pattern: str = Field(description="A regular expression (Python syntax, searched) the value's text must match; not templated.")


class ValueIn(_Strict):
    value: str = Field(description="The value to test; may use {placeholders}.")
    list: str = Field(description="One placeholder whose value is a list, such as `{steps.parse.names}`; the value must be one of its items (as text).")


SetBody = Annotated[
    dict[VarName, Any],
    Field(
        min_length=1,
        description="Variable name -> value: `{vars.<name>}` after this step. Strings may use {placeholders}; one placeholder as the whole string keeps the value's type (a number, a list).",
    ),
]


def rebuild(step: type[Step], locator: type[Locator]) -> None:
    """Resolve the forward references to Step and Locator once model.py has defined them."""
    ForEach.model_rebuild(_types_namespace={"Step": step, "Locator": locator})


__all__ = ["EvaluateStep", "ForEach", "SetBody", "ValueEquals", "ValueIn", "ValueMatches", "rebuild", "EVALUATE_RESULT_MAX_BYTES"]
