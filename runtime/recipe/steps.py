"""The step kinds of the recipe language, one row each, and `Step`, which is made from the rows.

A row says the key a recipe writes (`navigate:`, `act:` ...), the body that key takes
(step_bodies.py), the tool the step's plan state runs and what the step does, as the schema and
editors show it. A step kind's name is written here once; every other module names it by its
constant. The plan compiler's own table (runtime/plan/state_kinds.py) adds what a kind compiles
to: its params and its outcomes with their routes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import Field, create_model, model_validator

from runtime.recipe.conditions import Condition
from runtime.recipe.locators import Locator
from runtime.recipe.repair import Repair
from runtime.recipe.step_bodies import ACT_KINDS, ActStep, AgentStep, CloseStep, EvaluateStep, ExtractStep, NavigateStep, SetBody, WaitStep
from runtime.recipe.strict import Milliseconds, StepId, Strict, TabName, VarName

NAVIGATE = "navigate"
OBSERVE = "observe"
ACT = "act"
WAIT = "wait"
EXTRACT = "extract"
VERIFY = "verify"
AGENT = "agent"
CLOSE = "close"
EVALUATE = "evaluate"
SET = "set"
FOR_EACH = "for_each"
SWITCH_TAB = "switch_tab"
CLOSE_TAB = "close_tab"

# The tab words a step's `tab` (and switch_tab, close_tab) may use besides a name a step gave.
NEW_TAB = "new"
PRIMARY_TAB = "primary"
# The tool of the tab steps, and of an agent's tab tool (Playwright MCP's name).
TABS_TOOL = "browser_tabs"

FOR_EACH_DEFAULT_ITEMS = 10
FOR_EACH_MAX_ITEMS = 100

# The tool an agent step's model ends the step with (the `close` step's own): always offered.
AGENT_CLOSE_TOOL = "close"
# The tool an act runs, by its action.
ACT_TOOLS: dict[str, str] = {
    "click": "browser_click",
    "hover": "browser_hover",
    "type": "browser_type",
    "select": "browser_select_option",
    "press": "browser_press_key",
    "scroll": "browser_scroll",
    "drag": "browser_drag",
    "select_text": "browser_select_text",
    "check": "browser_check",
    "uncheck": "browser_uncheck",
    "upload": "browser_file_upload",
}
assert tuple(ACT_TOOLS) == ACT_KINDS


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


@dataclass(frozen=True)
class StepKind:
    """One step kind. `does` is its description, `{tool}` standing for its tool (an act's tools
    by action); `tool` None: plan machinery (values, loops) that touches no tool. `bare`: the key
    may be written without a body (`- observe:`), which YAML reads as None."""

    name: str
    body: Any
    does: str
    tool: str | None = None
    bare: bool = False

    @property
    def description(self) -> str:
        tools = ", ".join(f"{action} {tool}" for action, tool in ACT_TOOLS.items()) if self.name == ACT else str(self.tool)
        return self.does.replace("{tool}", tools)


STEP_KIND_ROWS: tuple[StepKind, ...] = (
    StepKind(NAVIGATE, str | NavigateStep, "Open a URL (may use {placeholders}), then check the page against the target. Tool: {tool}.", "browser_navigate"),
    StepKind(
        OBSERVE,
        dict[str, Any],
        "Read the current page (`max_elements` caps its snapshot), then check it against the target. Tool: {tool}.",
        "browser_snapshot",
        bare=True,
    ),
    StepKind(
        ACT,
        ActStep,
        "Click, hover, type, select, press a key, scroll, drag, select text, check, uncheck or upload, then verify the effect. Tool, by action: {tool}.",
    ),
    StepKind(
        WAIT,
        WaitStep,
        "Wait for one condition: load, text (or its going), url, a selector's state, any condition (`until`) or a fixed time. Tool: {tool}.",
        "browser_wait_for",
    ),
    StepKind(EXTRACT, ExtractStep, "Read named fields (and optionally the readable text) from the page. Tool: {tool}.", "browser_extract"),
    StepKind(VERIFY, list[Condition], "Checks that must all pass for the run to go on. Tool: {tool}.", "browser_verify"),
    StepKind(
        AGENT,
        AgentStep,
        "Hand a task to the model, inside the recipe's guardrails. Each call the model makes is checked on its own; "
        f"it ends the step with {AGENT_CLOSE_TOOL}, which tools.allow must name.",
        "agent.act",
    ),
    StepKind(CLOSE, CloseStep, "End the plan here; the run then checks completion and the output. Tool: {tool}.", AGENT_CLOSE_TOOL, bare=True),
    StepKind(
        EVALUATE,
        EvaluateStep,
        "Run a script in the page (tool {tool}, which tools.allow must name) and keep its JSON result as `{steps.<id>.result}`.",
        "browser_evaluate",
    ),
    StepKind(SET, SetBody, "Give variables values: `{vars.<name>}` in later steps. No tool."),
    StepKind(
        FOR_EACH,
        ForEach,
        "Run a sub-plan once per element a locator matches, or per item of a list value, at most `max_items` times. No tool of its own.",
    ),
    StepKind(
        SWITCH_TAB,
        TabName,
        "Make a tab the primary tab, the one later steps act in unless they name another: `new` or a name a step gave with `as`. Tool: {tool}.",
        TABS_TOOL,
    ),
    StepKind(
        CLOSE_TAB,
        TabName,
        "Close a tab: `new`, `primary` or a name a step gave with `as`; closing the primary tab makes the tab that opened it primary. Tool: {tool}.",
        TABS_TOOL,
    ),
)
STEP_KINDS: tuple[str, ...] = tuple(kind.name for kind in STEP_KIND_ROWS)
# Steps after which the page is checked against the target, and a failed check replans.
OBSERVATION_KINDS = (NAVIGATE, OBSERVE)
# Steps that act in a page, and so may name the tab they act in; and those that may open a tab
# (a click on a target=_blank link, a page script, a model), and so may name it with `as`.
TAB_KINDS = (NAVIGATE, OBSERVE, ACT, WAIT, EXTRACT, VERIFY, AGENT, EVALUATE)
TAB_OPENING_KINDS = (ACT, AGENT, EVALUATE)


class StepFlow(Strict):
    """A step's flow keys; `Step` adds one field per step kind."""

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
    tab: TabName | None = Field(
        default=None,
        description="The tab this step acts in: `new` (the tab opened most recently), `primary`, or a name a step gave with `as`; "
        "the primary tab when omitted. Later steps go back to the primary tab.",
    )
    repair: Repair | None = Field(
        default=None,
        description="Let an agent repair this step when it ends in execute_error, verification_failed or no_progress; overrides the recipe's `repair`.",
    )
    as_: TabName | None = Field(
        default=None,
        alias="as",
        description="A name for the tab this step opens (a target=_blank link, a popup), for later steps' `tab`, `switch_tab` and `close_tab`.",
    )

    @model_validator(mode="before")
    @classmethod
    def _empty_bodies(cls, data: Any) -> Any:
        # `- observe:` and `- close:` read naturally with no body; YAML gives None for them.
        if isinstance(data, dict):
            data = dict(data)
            for kind in STEP_KIND_ROWS:
                if kind.bare and kind.name in data and data[kind.name] is None:
                    data[kind.name] = {}
        return data

    @model_validator(mode="after")
    def _one_kind(self) -> StepFlow:
        given = [k for k in STEP_KINDS if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"a step needs exactly one of {', '.join(STEP_KINDS)} (got {', '.join(given) or 'none'})")
        return self

    @property
    def kind(self) -> str:
        return next(k for k in STEP_KINDS if getattr(self, k) is not None)

    @property
    def navigate_url(self) -> str | None:
        body = getattr(self, NAVIGATE)
        return body.url if isinstance(body, NavigateStep) else body


# One optional field per step kind, after the flow keys: `step.act` is the act's body or None.
Step = create_model(
    "Step",
    __base__=StepFlow,
    __doc__="One plan step: an optional id and flow keys, plus exactly one step kind.",
    __module__=__name__,
    **{kind.name: (kind.body | None, Field(default=None, description=kind.description)) for kind in STEP_KIND_ROWS},
)

ForEach.model_rebuild()
