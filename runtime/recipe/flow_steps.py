"""The recipe language's flow steps: page scripts (`evaluate`), variables (`set`) and bounded loops
(`for_each`), plus the value conditions `when:` and `verify` may use.

They live apart from model.py so the step vocabulary can grow without one file growing with it;
model.py wires them into `Step` and `Condition`; `for_each` itself lives in model.py, since its
body is a list of steps (the recursion stays inside one module). How values are named (`{steps.<id>.<field>}`,
`{vars.<name>}`) is in references.py.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

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


class ValueEquals(_Strict):
    value: str = Field(description="The value to test; may use {placeholders} such as `{vars.x}` or `{steps.read.price}`.")
    to: str = Field(description="What it must equal, compared as text after filling; may use {placeholders}.")


class ValueMatches(_Strict):
    value: str = Field(description="The value to test; may use {placeholders}.")
    pattern: str = Field(
        description="A regular expression (Python syntax, searched) the value's text must match; only `{= expressions}` are filled in it (its own braces are quantifiers)."
    )


class ValueIn(_Strict):
    value: str = Field(description="The value to test; may use {placeholders}.")
    list: str = Field(description="One placeholder whose value is a list, such as `{steps.parse.names}`; the value must be one of its items (as text).")


SetBody = Annotated[
    dict[VarName, Any],
    Field(
        min_length=1,
        description="Variable name -> value: `{vars.<name>}` after this step. Strings may use {placeholders}; one placeholder or one `{= expression}` as the whole string keeps the value's type (a number, a list, true/false).",
    ),
]


__all__ = ["EvaluateStep", "SetBody", "ValueEquals", "ValueIn", "ValueMatches", "VarName", "EVALUATE_RESULT_MAX_BYTES", "FOR_EACH_DEFAULT_ITEMS", "FOR_EACH_MAX_ITEMS"]
