"""The recipe language: what a person writes in YAML, as pydantic models.

The same models produce `recipes/recipe.schema.json` (for editors) and validate loaded YAML, so the
editor's view of the language and the runtime's cannot drift apart. Semantic checks that need the
whole recipe (placeholders, reachability, regexes, wildcards) live in checks.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from runtime.outcomes import BlockerKind
from runtime.recipe.tool_registry import STEP_TOOLS
from runtime.recipe.flow_steps import (
    FOR_EACH_DEFAULT_ITEMS,
    FOR_EACH_MAX_ITEMS,
    EvaluateStep,
    SetBody,
    ValueEquals,
    ValueIn,
    ValueMatches,
    VarName,
)

StepId = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]{0,63}$", description="A step id: lowercase letters, digits, '-' or '_'.")]
Milliseconds = Annotated[int, Field(ge=100, le=600_000, description="A duration in milliseconds (100 to 600000).")]


class Strict(BaseModel):
    """Base for every recipe mapping: unknown keys are errors (reported with a did-you-mean)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


# --- identity -------------------------------------------------------------------------------------


class InputSpec(Strict):
    type: Literal["string", "integer", "number", "boolean"] = Field(default="string", description="The input's type; `--input` text is converted to it.")
    description: str = Field(default="", description="What the input is for, for people running the recipe.")
    default: str | int | float | bool | None = Field(default=None, description="The value used when the input is not given; must be of `type`.")
    required: bool = Field(default=True, description="An input without a default must be given at run time.")
    secret: bool = Field(
        default=False,
        description="The value is a secret (a password, an API key): it is used where the recipe types it and shown as «secret:<name>» everywhere else (events, run files, report, traces, logs, model requests).",
    )


# --- intent and guards ------------------------------------------------------------------------------


class Intent(Strict):
    kind: Literal["auto", "browser_access", "general"] = Field(
        default="auto",
        description="`auto` detects the intent from the goal with `keywords` / `patterns` (or the model detector).",
    )
    keywords: list[str] = Field(
        default_factory=lambda: ["用浏览器", "浏览器访问", "open in browser", "use the browser", "in the browser"],
        description="Phrases that mark a browser task (matched case-insensitively in the goal).",
    )
    patterns: list[str] = Field(default_factory=list, description="Python regular expressions that mark a browser task.")


class IntentGuardBrowser(Strict):
    noFallback: bool = Field(default=True, description="Fail at preflight with intent_execution_failed when no browser tool is available.")
    networkAdjacentOnly: bool = Field(default=True, description="Allow only network-adjacent tools besides the browser, and only softBlockAfter times.")
    failTaskIfUnmet: bool = Field(default=True, description="Fail with intent_execution_failed when no browser tool succeeded by completion.")


class IntentGuard(Strict):
    enabled: bool = Field(default=True, description="Turn the intent guard on or off.")
    detector: Literal["heuristic", "model"] = Field(
        default="heuristic", description="How a browser task is detected: `heuristic` (keywords and patterns) or `model` (Gemini, falling back to the heuristic)."
    )
    softBlockAfter: int = Field(default=2, ge=0, le=100, description="How many network-adjacent tool calls a browser task may make.")
    browser: IntentGuardBrowser = Field(default_factory=IntentGuardBrowser, description="What the guard enforces once a task is a browser task.")


class Timeouts(Strict):
    step_ms: Milliseconds = Field(default=15_000, description="How long one step may take, in milliseconds (a step's `timeout_ms` overrides it).")
    verify_ms: Milliseconds = Field(default=5_000, description="How long a verification or a target check may take, in milliseconds.")
    click_result_ms: Milliseconds = Field(default=60_000, description="How long a search result click may take to reach an allowed domain.")
    run_ms: Annotated[int, Field(ge=1_000, le=3_600_000)] = Field(
        default=300_000, description="How long the whole run may take, in milliseconds (1000 to 3600000); then it stops with `timeout`."
    )


class Guards(Strict):
    max_steps: int = Field(default=50, ge=1, le=1000, description="Executed states at most, replans included.")
    max_replans: int = Field(default=3, ge=0, le=20, description="Searches for another page (the fallback ladder) before the run stops with replans_exhausted.")
    no_progress_window: int = Field(
        default=3, ge=2, le=50, description="Stop with no_progress when the last N actions repeat one signature or alternate A-B-A-B."
    )
    timeouts: Timeouts = Field(default_factory=Timeouts, description="Time limits for steps, verifications, search result clicks and the whole run.")
    intentGuard: IntentGuard = Field(default_factory=IntentGuard, description="The intent guard: detect browser tasks and keep them on browser tools.")


# --- target -----------------------------------------------------------------------------------------


class Target(Strict):
    start_url: str = Field(description="Where the run starts; may use {placeholders}.")
    allowed_domains: list[str] = Field(
        default_factory=list,
        description="Hosts the run may visit. `*.example.com` matches subdomains only, not example.com itself.",
    )
    validation_keywords: list[str] = Field(default_factory=list, description="Words the target page must contain (title or text).")
    expected_status: int = Field(default=200, ge=100, le=599, description="The HTTP status the target page must answer with.")
    allow_private_network: bool = Field(
        default=False,
        description=(
            "Let the run reach private addresses (loopback, RFC 1918, link-local, cloud metadata) that allowed_domains admits. "
            "An allowed_domains entry that is itself an IP literal or a localhost name needs no switch. "
            "Over gRPC the server's allow_private_network decides instead."
        ),
    )


# --- tools ------------------------------------------------------------------------------------------


class Tools(Strict):
    allow: list[str] | None = Field(default=None, description="Tools the run may use; all registered tools when omitted.")
    needs_approval: list[str] = Field(default_factory=list, description="Tools that wait for a person's confirmation.")
    registry: str | None = Field(default=None, description="A directory of JSON/YAML tool descriptors, relative to the recipe.")


# --- plan steps -------------------------------------------------------------------------------------


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


ACT_KINDS = ("click", "hover", "type", "select", "press", "scroll", "drag", "select_text")
# Every key of an act that holds a locator: the element acted on, and where a drag ends.
ACT_LOCATOR_KEYS = ("click", "hover", "type", "select", "drag", "to", "select_text")


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


class AgentStep(Strict):
    """Let the model (Gemini) choose browser actions, one tool call per turn, inside the recipe's
    guardrails. It ends when the model calls `close`; it is done only when `done_when` verifies."""

    task: str = Field(description="What the model should achieve, in plain words; may use {placeholders}.")
    tools: list[str] | None = Field(default=None, description="Tools the model may call; the recipe's browser tools when omitted.")
    max_steps: int = Field(default=12, ge=1, le=50, description="Tool calls at most (seed 002 suggests 10 to 15).")
    done_when: Annotated[list[Condition], Field(min_length=1)] = Field(
        description="Conditions checked after the model closes; the step counts as done only when all pass."
    )
    model: str | None = Field(default=None, description="Gemini model name; VERITY_GEMINI_MODEL or the default when omitted.")


class NavigateStep(Strict):
    url: str = Field(description="The URL to open; may use {placeholders}.")


class CloseStep(Strict):
    summary: str = Field(default="", description="A closing summary for the verdict; may use {placeholders}.")


# Each step kind's tool, from the one step->tool table, for the schema's descriptions.
_ACT_TOOLS = ", ".join(f"{key.removeprefix('act.')} {tool}" for key, tool in STEP_TOOLS.items() if key.startswith("act."))

STEP_KINDS = ("navigate", "observe", "act", "wait", "extract", "verify", "agent", "close", "evaluate", "set", "for_each")


class ForEach(Strict):
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


class Step(Strict):
    """One plan step: an optional id and flow keys, plus exactly one step kind."""

    id: StepId | None = Field(default=None, description="A name for the step, for `next` and `on_failure`; `step-N` when omitted.")
    next: StepId | None = Field(default=None, description="Go to this step after success instead of the following one.")
    on_failure: StepId | None = Field(default=None, description="Go to this step when the step fails instead of stopping the run.")
    needs_approval: bool | None = Field(default=None, description="Ask a person before this step acts; overrides the tool policy.")
    validate_target: bool = Field(default=True, description="After navigate/observe: check the page against the target (data.validate-target).")
    timeout_ms: Milliseconds | None = Field(default=None, description="How long this step may take, in milliseconds; guards.timeouts.step_ms when omitted.")
    when: Condition | list[Condition] | None = Field(
        default=None,
        description="Run the step only when this condition (or every one of a list) holds, judged just before it; otherwise it is skipped, with the reason recorded, and the flow goes on as after success.",
    )

    navigate: str | NavigateStep | None = Field(default=None, description=f"Open a URL (may use {{placeholders}}), then check the page against the target. Tool: {STEP_TOOLS['navigate']}.")
    observe: dict[str, Any] | None = Field(default=None, description=f"Read the current page (`max_elements` caps its snapshot), then check it against the target. Tool: {STEP_TOOLS['observe']}.")
    act: ActStep | None = Field(default=None, description=f"Click, hover, type, select, press a key, scroll, drag or select text, then verify the effect. Tool, by action: {_ACT_TOOLS}.")
    wait: WaitStep | None = Field(
        default=None,
        description=f"Wait for one condition: load, text (or its going), url, a selector's state, any condition (`until`) or a fixed time. Tool: {STEP_TOOLS['wait']}.",
    )
    extract: ExtractStep | None = Field(default=None, description=f"Read named fields (and optionally the readable text) from the page. Tool: {STEP_TOOLS['extract']}.")
    verify: list[Condition] | None = Field(default=None, description=f"Checks that must all pass for the run to go on. Tool: {STEP_TOOLS['verify']}.")
    agent: AgentStep | None = Field(default=None, description=f"Hand a task to the model, inside the recipe's guardrails. Each call the model makes is checked on its own; it ends the step with {STEP_TOOLS['close']}, which tools.allow must name.")
    close: CloseStep | None = Field(default=None, description=f"End the plan here; the run then checks completion and the output. Tool: {STEP_TOOLS['close']}.")
    evaluate: EvaluateStep | None = Field(
        default=None, description=f"Run a script in the page (tool {STEP_TOOLS['evaluate']}, which tools.allow must name) and keep its JSON result as `{{steps.<id>.result}}`."
    )
    set: SetBody | None = Field(default=None, description="Give variables values: `{vars.<name>}` in later steps. No tool.")
    for_each: ForEach | None = Field(default=None, description="Run a sub-plan once per element a locator matches, or per item of a list value, at most `max_items` times. No tool of its own.")

    @model_validator(mode="before")
    @classmethod
    def _empty_bodies(cls, data: Any) -> Any:
        # `- observe:` and `- close:` read naturally with no body; YAML gives None for them.
        if isinstance(data, dict):
            data = dict(data)
            for kind in ("observe", "close"):
                if kind in data and data[kind] is None:
                    data[kind] = {}
        return data

    @model_validator(mode="after")
    def _one_kind(self) -> Step:
        given = [k for k in STEP_KINDS if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"a step needs exactly one of {', '.join(STEP_KINDS)} (got {', '.join(given) or 'none'})")
        return self

    @property
    def kind(self) -> str:
        return next(k for k in STEP_KINDS if getattr(self, k) is not None)

    @property
    def navigate_url(self) -> str | None:
        if isinstance(self.navigate, NavigateStep):
            return self.navigate.url
        return self.navigate


# --- fallback and output ----------------------------------------------------------------------------


class SearchWait(Strict):
    """One signal that a search page has drawn its results."""

    text: str | None = Field(default=None, description="The results page shows this text; may use {placeholders}.")
    selector: str | None = Field(default=None, description="An element matching this CSS selector is visible.")
    network_idle: bool | None = Field(default=None, description="The page has loaded and fetched nothing new for half a second.")

    @model_validator(mode="after")
    def _one_signal(self) -> SearchWait:
        given = [k for k in ("text", "selector", "network_idle") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one of text, selector, network_idle (got {', '.join(given) or 'none'})")
        return self


class Fallback(Strict):
    search_url: str | None = Field(default=None, description="A search page URL template containing {query}.")
    queries: list[str] | None = Field(default=None, description="The query ladder, strict to loose; generated when omitted.")
    max_results: int = Field(default=5, ge=1, le=50, description="Search results considered per query.")
    result_selector: str | None = Field(
        default=None, description="A CSS selector for the result links (`a` elements or elements containing one); every link of the page when omitted."
    )
    wait_for: SearchWait | None = Field(
        default=None, description="What shows that the results are there before links are read; by default the result links must stop changing."
    )


class Session(Strict):
    """Cookies and localStorage carried between runs, in Playwright's storageState JSON shape
    ({cookies: [...], origins: [{origin, localStorage: [{name, value}]}]}). Both files are
    secrets: only counts and the path ever reach events, run files or reports."""

    storage_state: str | None = Field(
        default=None,
        description="A storage-state file loaded before the run (relative to the recipe); cookies and origins outside allowed_domains are left out.",
    )
    save_storage_state: str | None = Field(
        default=None,
        description="Where a completed run writes its cookies and localStorage (relative to the recipe; created owner-only, 0600).",
    )


class Output(Strict):
    schema_: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object"}, alias="schema", description="A JSON Schema the structured result must satisfy."
    )
    values: dict[Annotated[str, Field(min_length=1, max_length=100)], Any] | None = Field(
        default=None,
        description=(
            "The result, key by key: each value may use {placeholders} such as `{steps.read.price}` (one placeholder as the whole "
            "string keeps the value's type). Every extracted field when omitted."
        ),
    )


# --- the recipe -------------------------------------------------------------------------------------


class Recipe(Strict):
    name: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9._-]{0,99}$", description="Lowercase name, used to start runs by name.")]
    version: str = Field(default="1", description="The recipe's own version, recorded in every plan.")
    description: str = Field(default="", description="What the recipe does, for people choosing one.")
    goal: str = Field(description="What the run is for, in the user's words; may use {placeholders}.")
    inputs: dict[Annotated[str, Field(pattern=r"^[a-z_][a-z0-9_]*$")], InputSpec] = Field(
        default_factory=dict, description="Named inputs, given with `--input name=value`; {name} uses one in a templated field."
    )
    intent: Intent = Field(default_factory=Intent, description="How a browser task is recognised in the goal.")
    target: Target = Field(description="Where the run starts and which pages count as the right ones.")
    guards: Guards = Field(default_factory=Guards, description="Limits and guardrails: steps, replans, no-progress, timeouts, the intent guard.")
    tools: Tools = Field(default_factory=Tools, description="Which tools the run may use and which need a person's approval.")
    plan: Annotated[list[Step], Field(min_length=1)] = Field(description="The steps, run in order unless `next` or `on_failure` say otherwise.")
    fallback: Fallback = Field(default_factory=Fallback, description="The search used to find another page when the target is blocked.")
    output: Output = Field(default_factory=Output, description="The structured result the run brings back.")
    session: Session = Field(default_factory=Session, description="Cookies and localStorage loaded before the run and saved after it.")
    # The directory of the recipe's file, when it came from one: relative session files resolve there.
    _directory: Path | None = PrivateAttr(default=None)

    @property
    def directory(self) -> Path | None:
        return self._directory

    def step_ids(self) -> list[str]:
        """Every step's id: its own, or `step-N` (1-based) when it has none."""
        return [step.id or f"step-{i + 1}" for i, step in enumerate(self.plan)]


Expect.model_rebuild()
WaitStep.model_rebuild()
ForEach.model_rebuild()
Condition.model_rebuild()
