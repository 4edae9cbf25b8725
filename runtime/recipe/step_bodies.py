"""The body each step kind takes, one model (or type) per kind: what a recipe writes under
`act:`, `wait:`, `extract:`, `agent:`, `navigate:`, `close:`, `evaluate:` and `set:`. steps.py
puts them in the table of step kinds; `verify` takes a list of conditions (conditions.py) and
`for_each` a sub-plan (steps.py).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from runtime.outcomes import BlockerKind
from runtime.recipe.conditions import Condition, Expect
from runtime.recipe.locators import Locator
from runtime.recipe.strict import Strict, VarName
from runtime.recipe.tool_names import canonical_tools

# JSON text an `evaluate` step may bring back; past it the step fails with `result_too_large`.
EVALUATE_RESULT_MAX_BYTES = 64 * 1024

ACT_KINDS = ("click", "hover", "type", "select", "press", "scroll", "drag", "select_text", "check", "uncheck", "upload")
# Every key of an act that holds a locator: the element acted on, and where a drag ends.
ACT_LOCATOR_KEYS = ("click", "hover", "type", "select", "drag", "to", "select_text", "check", "uncheck", "upload")
# A name under the recipe's `files:` (and in an upload's `files`).
FileName = Annotated[str, Field(pattern=r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$")]


class ActStep(Strict):
    click: Locator | None = Field(default=None, description="Click the element this locator finds.")
    hover: Locator | None = Field(
        default=None, description="Put the pointer on the element this locator finds (a menu that opens on hover); give `expect` for what the hover shows."
    )
    type: Locator | None = Field(
        default=None,
        description="Type `text` into the element this locator finds (inserted as text; `keys: true` types key by key). "
        "A date or time field takes it as a person writes it (see README).",
    )
    select: Locator | None = Field(
        default=None,
        description="Choose `value` in the select element this locator finds (the only chosen option); in a `<select multiple>`, `add: true` adds it to the chosen ones and `remove: true` takes it out.",
    )
    press: str | None = Field(
        default=None, description="A key or chord: a key name such as Enter, Escape, ArrowDown or a, or a chord such as Control+a or Shift+Tab; may use {placeholders}."
    )
    scroll: Literal["up", "down", "top", "bottom"] | None = Field(default=None, description="Scroll the page.")
    drag: Locator | None = Field(
        default=None,
        description="Drag the element this locator finds onto the element `to` finds, with the mouse: press on it, move in small steps, release on `to`. "
        "Verified like a click: by an effect of its own, or by `expect`.",
    )
    to: Locator | None = Field(default=None, description="With `drag`: the element the drag ends on (the pointer is released on its visible centre).")
    select_text: Locator | None = Field(
        default=None,
        description="Select `text` inside the element this locator finds (an editor, a paragraph) by dragging the mouse over it, its first occurrence; "
        "without `text`, all of the element's text. Verified by the page's selection holding that text.",
    )
    check: Locator | None = Field(
        default=None,
        description="Check the checkbox, radio or switch this locator finds (or the one its label names); one already checked is left as it is. Verified by its checked state.",
    )
    uncheck: Locator | None = Field(
        default=None, description="Uncheck the checkbox or switch this locator finds; one already unchecked is left as it is. Verified by its checked state."
    )
    upload: Locator | None = Field(
        default=None,
        description="Put the files `files` names into the file input this locator finds (or the one its label names). Verified by the input holding them.",
    )
    files: Annotated[list[FileName], Field(min_length=1)] | None = Field(
        default=None, description="With `upload`: names of files the recipe declares under `files:` (never a path)."
    )
    text: str | None = Field(default=None, description="Text to type (with `type`), or to select (with `select_text`).")
    value: str | None = Field(default=None, description="Option value or label (with `select`).")
    submit: bool = Field(default=False, description="Press Enter after typing (with `type`).")
    add: bool = Field(default=False, description="With `select` on a `<select multiple>`: add the option to those already chosen.")
    remove: bool = Field(default=False, description="With `select` on a `<select multiple>`: take the option out of those chosen, leaving the others.")
    keys: bool = Field(
        default=False,
        description="With `type`: type the text key by key (keydown, keypress, input, keyup per character) for pages that listen to keys (a terminal, an editor, a masked input).",
    )
    key_delay_ms: Annotated[int, Field(ge=0, le=1000)] | None = Field(default=None, description="With `keys: true`: milliseconds between key presses (0 to 1000).")
    read_at_press: dict[Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")], Locator] | None = Field(
        default=None,
        description="Name -> element whose text is read at the instant the act's gesture reaches the page (its keydown, mouseup or click), "
        "as the page's own handler sees it; kept as `steps.<id>.<name>` (null when no gesture arrived). For a page that judges what it shows when pressed (a price that ticks).",
    )
    expect: Expect | None = Field(
        default=None,
        description="What must hold after the act for it to count; by default an effect of the act's own (its target, form, dialog or what it controls changed, a navigation, a new tab).",
    )

    @model_validator(mode="after")
    def _one_action(self) -> ActStep:
        given = [k for k in ACT_KINDS if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one of {', '.join(ACT_KINDS)} (got {', '.join(given) or 'none'})")
        if (self.keys or self.key_delay_ms is not None) and given[0] != "type":
            raise ValueError("`keys` and `key_delay_ms` go with `type`")
        if (given[0] == "drag") != (self.to is not None):
            raise ValueError("`drag` needs `to`, and `to` goes with `drag`")
        if self.read_at_press and given[0] not in ("click", "press", "drag"):
            raise ValueError("`read_at_press` goes with `click`, `press` or `drag`")
        if self.text is not None and given[0] not in ("type", "select_text"):
            raise ValueError("`text` goes with `type` or `select_text`")
        if given[0] == "type" and self.text is None:
            raise ValueError("`type` needs `text`")
        if given[0] == "select" and self.value is None:
            raise ValueError("`select` needs `value`")
        if (self.add or self.remove) and given[0] != "select":
            raise ValueError("`add` and `remove` go with `select`")
        if self.add and self.remove:
            raise ValueError("give `add` or `remove`, not both")
        if (given[0] == "upload") != (self.files is not None):
            raise ValueError("`upload` needs `files`, and `files` goes with `upload`")
        return self

    @property
    def action(self) -> str:
        return next(k for k in ACT_KINDS if getattr(self, k) is not None)


class WaitStep(Strict):
    load: bool | None = Field(default=None, description="Wait for the page to finish loading.")
    text: str | None = Field(default=None, description="Wait until the page shows this text (with `gone: true`, until it no longer does); may use {placeholders}.")
    url: str | None = Field(default=None, description="Wait until the page URL contains this text; may use {placeholders}.")
    selector: str | None = Field(
        default=None, description="Wait until an element matching this CSS selector is visible (or in `state`); may use {placeholders}."
    )
    timeout_ms: Annotated[int, Field(ge=0, le=600_000)] | None = Field(default=None, description="Wait this many milliseconds (0 to 600000).")
    until: Condition | None = Field(
        default=None,
        description="Wait until this condition holds (any `when`/`verify` condition), judged every `every_ms`, for at most the step's timeout.",
    )
    state: Literal["visible", "hidden", "attached", "detached"] | None = Field(
        default=None,
        description="With `selector`: the state to wait for. `hidden`: no matching element is visible (or none exists); `detached`: none exists; `attached`: one exists. Default `visible`.",
    )
    gone: bool | None = Field(default=None, description="With `text`: wait until the page no longer shows it (a closing picker, a spinner's message).")
    every_ms: Annotated[int, Field(ge=50, le=60_000)] | None = Field(
        default=None, description="With `until`: how often the condition is judged, in milliseconds (50 to 60000, default 250)."
    )

    @model_validator(mode="after")
    def _one_condition(self) -> WaitStep:
        given = [k for k in ("load", "text", "url", "selector", "timeout_ms", "until") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one of load, text, url, selector, timeout_ms, until (got {', '.join(given) or 'none'})")
        for key, goes_with in (("state", "selector"), ("gone", "text"), ("every_ms", "until")):
            if getattr(self, key) is not None and given[0] != goes_with:
                raise ValueError(f"`{key}` goes with `{goes_with}`")
        return self


class FieldSpec(Locator):
    attr: str | None = Field(
        default=None,
        description="Read this attribute instead of the element's text. `attr: value` on an input, textarea or select reads what the field holds now (as `value: true`), not the markup's initial value.",
    )
    value: bool | None = Field(
        default=None,
        description="Read what a form field holds now: an input's or textarea's value, a select's chosen option value (a multiple select's chosen values, joined by ', '). The default for form fields; true insists on it (a field that is not a form control then reads as missing).",
    )
    trim: bool = Field(default=True, description="Trim the text and collapse its runs of whitespace; false keeps it exactly as read (a trailing space, a line break).")
    type: Literal["string", "number", "integer", "boolean"] = Field(default="string", description="The value's type; the text read is converted to it.")
    required: bool = Field(default=True, description="A required field that cannot be read blocks the step (see `blocker_kind`).")
    pattern: str | None = Field(default=None, description="A regular expression the value must match; its first group is kept when it has one.")

    @model_validator(mode="after")
    def _one_reading(self) -> FieldSpec:
        if self.value is not None and self.attr is not None:
            raise ValueError("give `attr` or `value`, not both")
        return self


class ExtractStep(Strict):
    fields: dict[str, FieldSpec] = Field(default_factory=dict, description="Field name -> where to read it on the page.")
    readable_text: bool = Field(default=False, description="Also keep the page's readable text as `text`.")
    blocker_kind: BlockerKind = Field(default=BlockerKind.EXTRACTION_FAILED, description="The blocker reported when a required field is missing.")

    @model_validator(mode="after")
    def _something(self) -> ExtractStep:
        if not self.fields and not self.readable_text:
            raise ValueError("extract needs `fields` or `readable_text: true`")
        return self


class AgentModel(Strict):
    """The model an agent step talks to, through its provider's official SDK (runtime/llm)."""

    provider: Literal["gemini", "openai", "anthropic"] = Field(
        description="gemini (google-genai), openai (OpenAI or any server speaking its Chat Completions API: OPENAI_BASE_URL) or anthropic."
    )
    name: str | None = Field(default=None, description="The model's name at that provider; the provider's default (VERITY_MODEL's name for the same provider) when omitted.")


class AgentStep(Strict):
    """Let a model choose browser actions, one tool call per turn, inside the recipe's
    guardrails. It ends when the model calls `close`; it is done only when `done_when` verifies."""

    task: str = Field(description="What the model should achieve, in plain words; may use {placeholders}.")
    tools: list[str] | None = Field(
        default=None, description="Tools the model may call (old names mean their new ones); the recipe's browser tools when omitted."
    )
    max_steps: int = Field(default=12, ge=1, le=50, description="Tool calls at most (seed 002 suggests 10 to 15).")
    done_when: Annotated[list[Condition], Field(min_length=1)] = Field(
        description="Conditions checked after the model closes; the step counts as done only when all pass."
    )
    model: str | AgentModel | None = Field(
        default=None,
        description="The model: {provider, name}, or 'provider:name', or a bare name for the default provider; VERITY_MODEL (else Gemini's default) when omitted.",
    )
    vision: Literal["auto", "on", "off"] = Field(
        default="auto",
        description="Send the model the page's screenshot: auto (for models known to take images: Gemini, gpt-4o/4.1/5, o3/o4, claude-3 and later), on or off; VERITY_MODEL_VISION=on|off overrides.",
    )

    @field_validator("tools", mode="after")
    @classmethod
    def _new_names(cls, names: list[str] | None) -> list[str] | None:
        return canonical_tools(names)


class NavigateStep(Strict):
    url: str = Field(description="The URL to open; may use {placeholders}.")


class CloseStep(Strict):
    summary: str = Field(default="", description="A closing summary for the verdict; may use {placeholders}.")


class EvaluateStep(Strict):
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


SetBody = Annotated[
    dict[VarName, Any],
    Field(
        min_length=1,
        description="Variable name -> value: `{vars.<name>}` after this step. Strings may use {placeholders}; one placeholder or one `{= expression}` as the whole string keeps the value's type (a number, a list, true/false).",
    ),
]
