"""The conditions a recipe judges: a `verify` step's checks, a step's `when`, a wait's `until`, an
agent's `done_when` (`Condition`); the value conditions among them; and what must hold after an
act (`Expect`)."""

from __future__ import annotations

from pydantic import Field, model_validator

from runtime.recipe.locators import ElementCheck
from runtime.recipe.strict import Strict


class ValueEquals(Strict):
    value: str = Field(description="The value to test; may use {placeholders} such as `{vars.x}` or `{steps.read.price}`.")
    to: str = Field(description="What it must equal, compared as text after filling; may use {placeholders}.")


class ValueMatches(Strict):
    value: str = Field(description="The value to test; may use {placeholders}.")
    pattern: str = Field(
        description="A regular expression (Python syntax, searched) the value's text must match; only `{= expressions}` are filled in it (its own braces are quantifiers)."
    )


class ValueIn(Strict):
    value: str = Field(description="The value to test; may use {placeholders}.")
    list: str = Field(description="One placeholder whose value is a list, such as `{steps.parse.names}`; the value must be one of its items (as text).")


class Condition(Strict):
    """One verification. Give exactly one check."""

    text_includes: str | None = Field(default=None, description="Text the page must show; may use {placeholders}.")
    title_includes: str | None = Field(default=None, description="Text the page title must contain; may use {placeholders}.")
    url_matches: str | None = Field(default=None, description="A regular expression the page URL must match.")
    field_present: str | None = Field(default=None, description="An extracted field that must have a non-empty value.")
    field_matches: dict[str, str] | None = Field(default=None, description="Field name -> regular expression.")
    element: ElementCheck | None = Field(default=None, description="An element that must be in a given state or hold a value.")
    value_equals: ValueEquals | None = Field(default=None, description="A value (such as `{vars.x}`) must equal another, as text.")
    value_matches: ValueMatches | None = Field(default=None, description="A value (such as `{steps.read.code}`) must match a regular expression.")
    value_in: ValueIn | None = Field(default=None, description="A value must be one of the items of a list value.")
    expression: str | None = Field(
        default=None,
        description="Holds when this expression is true, such as `number(steps.read.price) < 30` (the `{= ...}` language without its braces; see README, Expressions).",
    )
    not_: Condition | None = Field(default=None, alias="not", description="Holds when the condition it holds does not.")

    @model_validator(mode="after")
    def _one_check(self) -> Condition:
        given = [k for k in type(self).model_fields if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one check (got {', '.join(given) or 'none'})")
        return self


class Expect(Strict):
    """What must hold after an act for it to count as progress. Without any: an effect of the act's own."""

    url_includes: str | None = Field(default=None, description="Text the page URL must contain; may use {placeholders}.")
    url_matches: str | None = Field(default=None, description="A regular expression the page URL must match.")
    text_includes: str | None = Field(default=None, description="Text the page must show; may use {placeholders}.")
    element: ElementCheck | None = Field(default=None, description="An element that must be in a given state or hold a value.")
    page_changed: bool | None = Field(
        default=None, description="Whether the page must change; true when no other expectation is given, add it to require both."
    )
    not_: Condition | None = Field(
        default=None, alias="not", description="A condition (any `verify` condition) that must not hold after the act, such as `{not: {element: {css: '#opt', state: selected}}}`."
    )


Condition.model_rebuild()
