"""How a recipe finds an element, in Playwright's vocabulary: `Locator`, and `ElementCheck` (an
element that must be in a state or hold a value)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from runtime.recipe.strict import Strict

LOCATOR_KINDS = ("role", "text", "label", "placeholder", "alt", "title", "test_id", "css", "xpath", "ref", "item")


class Locator(Strict):
    """How to find an element, in Playwright's vocabulary. Give exactly one way: role (with an
    optional name), text, label, placeholder, alt, title, test_id, css, xpath, ref or item; then
    narrow with has_text, within or frame. Strict: when several visible elements match, the step
    fails with `ambiguous_target` (listing them) unless nth or first says which one."""

    role: str | None = Field(default=None, description="An ARIA role such as button, link or textbox (implicit roles count); `name` narrows it.")
    name: str | None = Field(default=None, description="The accessible name that goes with `role`; may use {placeholders}.")
    text: str | None = Field(default=None, description="Text the element shows (the innermost element that shows it); may use {placeholders}.")
    label: str | None = Field(default=None, description="The label of a form field: its <label>, aria-labelledby or aria-label text; may use {placeholders}.")
    placeholder: str | None = Field(default=None, description="The field's placeholder attribute; may use {placeholders}.")
    alt: str | None = Field(default=None, description="The alt text of an image; may use {placeholders}.")
    title: str | None = Field(default=None, description="The element's title attribute; may use {placeholders}.")
    test_id: str | None = Field(default=None, description="The element's data-testid attribute, compared exactly; may use {placeholders}.")
    css: str | None = Field(default=None, description="A CSS selector; may use {placeholders}.")
    xpath: str | None = Field(default=None, description="An XPath expression; may use {placeholders}.")
    ref: str | None = Field(default=None, description="An element ref from the latest snapshot (as agents use them).")
    item: str | None = Field(default=None, description="Inside a `for_each` over elements: the current element of the loop whose `as` is this name.")
    exact: bool | None = Field(
        default=None,
        description="Compare name, text, label, placeholder, alt and title whole and case-sensitively (the default); "
        "false compares case-insensitively and also accepts a part, whole matches first.",
    )
    nth: int | None = Field(default=None, ge=-1000, le=1000, description="Which of several matches to take: 0 is the first in document order, -1 the last.")
    first: bool | None = Field(default=None, description="Take the first of several matches (the same as nth: 0).")
    has_text: str | None = Field(default=None, description="Keep only matches whose text contains this (case-insensitive); may use {placeholders}.")
    within: Locator | None = Field(default=None, description="Search only inside the one element this locator finds (a form, a dialog, a card).")
    frame: Locator | str | None = Field(default=None, description="Search inside the document of the iframe this locator (or CSS selector) finds.")

    @model_validator(mode="after")
    def _one_locator(self) -> Locator:
        given = [k for k in LOCATOR_KINDS if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one of {', '.join(LOCATOR_KINDS)} (got {', '.join(given) or 'none'})")
        if self.name is not None and self.role is None:
            raise ValueError("`name` goes with `role`")
        if self.nth is not None and self.first:
            raise ValueError("give `nth` or `first`, not both")
        if given[0] in ("ref", "item") and (self.within or self.frame or self.has_text or self.nth is not None or self.first):
            raise ValueError(f"`{given[0]}` names one element already: it takes no within, frame, has_text, nth or first")
        return self


class ElementCheck(Locator):
    state: Literal["present", "visible", "hidden", "absent", "enabled", "checked", "selected"] = Field(
        default="visible",
        description="The state the element must be in. `selected`: an <option> that is chosen (or an element with aria-selected=true); a chosen <option> is `checked` too.",
    )
    value: str | None = Field(default=None, description="The value a form field must hold (instead of `state`); may use {placeholders}.")
