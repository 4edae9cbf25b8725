"""Every kind of plan state, one row each: the recipe's step kinds (named in recipe/steps.py) and
the plan's own states (preflight, an observation's target check, evaluation and replan, a step's
`when`, completion, output).

A row says what the compiler gives a state of its kind (its tool, params and timeout) and the
outcomes its handler may name, each with the route it takes by default; a step kind's row holds
the recipe's row of the kind too (its body model, tool and description, recipe/steps.py). A route leads to a
state kind (the one of the same step: an observation's `ok` goes to its target check) or to a
place the compiler knows:

    NEXT           where success goes: the step's `next`, the following step, its loop or completion
    FAIL           the step's `on_failure`, else the terminal of the route's stop reason
    LATEST_REPLAN  a blocked page: the latest observation's replan while replans are left, then
                   FAIL (replans_exhausted); without an observation to replan, FAIL (execute_error)
    BODY           a loop's first body step
    FIRST_STEP     the recipe's first step
    GUARDED        the step a `when` guards
    DONE           the completed terminal

A step with `repair` (recipe/repair.py) routes each failure the ADR lists to its `<id>.repair`
state instead: its FAIL routes whose stop reason is a repair trigger, and `no_progress`, which
the walker turns from a stop into an outcome only when the state routes it.

The executor registers one handler per row under the same name (runtime/execute/states/): a new
capability is a row here, a body in recipe/step_bodies.py and a handler file. What the executor
reads of the recipe language is carried here too, so it needs nothing from recipe/.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from runtime.outcomes import StopReason
from runtime.recipe.model import Recipe
from runtime.recipe.repair import REPAIR_TRIGGERS, Repair, repair_conditions, repair_of
from runtime.recipe.step_bodies import ACT_LOCATOR_KEYS, EVALUATE_RESULT_MAX_BYTES, AgentModel
from runtime.recipe.step_tools import step_tool
from runtime.recipe.steps import (
    ACT,
    AGENT,
    CLOSE,
    EVALUATE,
    EXTRACT,
    FOR_EACH,
    NAVIGATE,
    OBSERVATION_KINDS,
    OBSERVE,
    SET,
    STEP_KIND_ROWS,
    STEP_KINDS,
    SWITCH_TAB,
    CLOSE_TAB,
    TABS_TOOL,
    NEW_TAB,
    PRIMARY_TAB,
    VERIFY,
    WAIT,
    Step,
    StepKind,
)
from runtime.recipe.tool_registry import AGENT_CLOSE_TOOL, EVALUATION_TOOL, PLAN_CHECK_TOOLS, TARGET_CHECK_TOOL

PREFLIGHT = "intent.preflight"
TARGET_CHECK = TARGET_CHECK_TOOL  # a plan check is named after its tool
EVALUATION = EVALUATION_TOOL
REPLAN = "replan.search"
WHEN = "when"
REPAIR = "repair"
COMPLETION = "intent.completion"
OUTPUT = "output.validate"
TERMINAL = "terminal"  # the walker's own: a terminal ends the run, no handler runs it

NEXT, FAIL, LATEST_REPLAN, BODY, FIRST_STEP, GUARDED, DONE = "next", "fail", "latest_replan", "body", "first_step", "guarded", "done"

# Guard names a transition may carry (plan/model.py says what each means).
REPLANS_LEFT = "replans_left"
REPLANS_EXHAUSTED = "replans_exhausted"


@dataclass(frozen=True)
class At:
    """Where one state is compiled: the recipe, and the step it comes from (None for the run's
    own states) with its id, the tools its agent may call, and the fallback search's tool."""

    recipe: Recipe
    step: Step | None = None
    step_id: str = ""
    agent_tools: list[str] | None = None
    search_tool: str | None = None

    @property
    def body(self) -> Any:
        assert self.step is not None
        return getattr(self.step, self.step.kind)

    @property
    def repair(self) -> Repair | None:
        """The repair the step has (its own, else the recipe's), or None."""
        return repair_of(self.recipe.repair, self.step) if self.step is not None else None


@dataclass(frozen=True)
class Route:
    """An outcome and where it leads by default: a route word (NEXT, FAIL ...) or a state kind."""

    outcome: str
    to: str
    reason: StopReason | None = None  # FAIL's stop reason
    guard: str | None = None


def _none(at: At) -> Any:
    return None


def _no_params(at: At) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class StateKindRow:
    """One kind of plan state. `suffix`: a state of a step's own chain is `<step id><suffix>`
    (a step kind's state is the step id itself, a run state its kind's name). `fills_*`: the
    params the run fills with its values as the state acts (texts, locators, name -> locator
    maps); the plan keeps their `{placeholders}`, so it is the same for every input."""

    name: str
    routes: tuple[Route, ...]
    recipe: StepKind | None = None  # a recipe step kind's own row: its body model, tool and description
    tool: Callable[[At], str | None] = _none
    params: Callable[[At], dict[str, Any]] = _no_params
    timeout: Callable[[At], int | None] = _none
    suffix: str | None = None  # a state of a step's chain (see above)
    asks_approval: bool = False  # needs_approval applies to its tool (a step may override it)
    observation: bool = False  # the page it leaves is checked against the target
    verifying: bool = False  # its outcome says whether it verified
    recoverable: bool = False  # its failure may lead on through the step's on_failure
    fills_texts: tuple[str, ...] = ()
    fills_locators: tuple[str, ...] = ()
    fills_locator_maps: tuple[str, ...] = ()

    def state_id(self, at: At) -> str:
        if self.suffix is not None:
            return at.step_id + self.suffix
        return at.step_id if self.recipe is not None else self.name


def conditions_of(conditions: list[Any]) -> list[dict[str, Any]]:
    """Conditions as plan params: the recipe's keys (`not`, not the model's `not_`)."""
    return [condition.model_dump(mode="json", exclude_none=True, by_alias=True) for condition in conditions]


def _as_written(at: At) -> dict[str, Any]:
    return at.body.model_dump(mode="json", exclude_none=True, by_alias=True)


def _agent_params(at: At) -> dict[str, Any]:
    body = at.body
    # The plan is pure data: a {provider, name} model stays a mapping (execute reads both shapes).
    model = body.model.model_dump(exclude_none=True) if isinstance(body.model, AgentModel) else body.model
    return {"task": body.task, "tools": at.agent_tools, "max_steps": body.max_steps, "done_when": conditions_of(body.done_when), "model": model, "vision": body.vision}


def _loop_params(at: At) -> dict[str, Any]:
    loop = at.body
    params: dict[str, Any] = {"as": loop.as_, "max_items": loop.max_items}
    if loop.elements is not None:
        params["elements"] = loop.elements.model_dump(mode="json", exclude_none=True)
    else:
        params["values"] = loop.values
    return params


def _when_params(at: At) -> dict[str, Any]:
    assert at.step is not None and at.step.when is not None
    conditions = at.step.when if isinstance(at.step.when, list) else [at.step.when]
    return {"conditions": conditions_of(conditions), "guards": at.step_id}


def _step_timeout(at: At) -> int:
    assert at.step is not None
    return at.step.timeout_ms or at.recipe.guards.timeouts.step_ms


def _observed(at: At) -> dict[str, Any]:
    return {"observation": at.step_id}


def _repair_goal(at: At) -> str:
    """What the failed step meant to do, for the repairing model (placeholders left as written)."""
    assert at.step is not None
    body = at.body
    if at.step.kind == AGENT:
        return str(body.task)
    if at.step.kind == ACT:
        written = body.model_dump(mode="json", exclude_none=True, exclude_defaults=True, by_alias=True, exclude={"expect"})
        return f"act {json.dumps(written, ensure_ascii=False, sort_keys=True)}"
    return "make the page satisfy the step's conditions"


def _repair_params(at: At) -> dict[str, Any]:
    repair = at.repair
    assert at.step is not None and repair is not None
    return {
        "repairs": at.step_id,
        "step_kind": at.step.kind,
        "goal": _repair_goal(at),
        "on": list(repair.on),
        "max_attempts": repair.max_attempts,
        "max_steps": repair.max_steps,
        "tools": at.agent_tools,
        "conditions": repair_conditions(at.step.kind, at.body),
    }


# A step's failure a repair may take over, by the stop reason of its FAIL route; `no_progress` is
# a stop (not an outcome) that the walker routes only where a repair waits for it.
REPAIRED_REASONS = {StopReason(trigger): trigger for trigger in REPAIR_TRIGGERS}
NO_PROGRESS_OUTCOME = "no_progress"
NO_PROGRESS_KINDS = (ACT, AGENT)


def repair_routes(kind_name: str, routes: tuple[Route, ...], repair: Repair) -> tuple[Route, ...]:
    """A repaired step's routes: each failure `repair.on` names leads to its repair state."""
    routed = tuple(Route(r.outcome, REPAIR) if r.to == FAIL and REPAIRED_REASONS.get(r.reason) in repair.on else r for r in routes)  # type: ignore[arg-type]
    if NO_PROGRESS_OUTCOME in repair.on and kind_name in NO_PROGRESS_KINDS:
        routed += (Route(NO_PROGRESS_OUTCOME, REPAIR),)
    return routed


_RECIPE_ROWS = {kind.name: kind for kind in STEP_KIND_ROWS}


def _step(name: str, routes: tuple[Route, ...], params: Callable[[At], dict[str, Any]] = _as_written, **flags: Any) -> StateKindRow:
    """A recipe step kind's row: the recipe's row of the kind, its tool from the step->tool table
    (an act's by action), its own timeout; a person may have to approve it, and its on_failure
    may recover it."""
    return StateKindRow(
        name, routes, _RECIPE_ROWS[name], tool=lambda at: step_tool(at.step), params=params, timeout=_step_timeout, asks_approval=True, recoverable=True, **flags
    )


def _fail(outcome: str, reason: StopReason, guard: str | None = None) -> Route:
    return Route(outcome, FAIL, reason, guard)


OK_OR_ERROR = (Route("ok", NEXT), _fail("error", StopReason.EXECUTE_ERROR))
BLOCKED = Route("blocked", LATEST_REPLAN)
# An observation whose page is checked against the target leads to its check either way; the
# check, its evaluation and the replan follow it, in this order.
CHECKED_OBSERVATION_ROUTES = (Route("ok", TARGET_CHECK), Route("error", TARGET_CHECK))
TARGET_CHECK_CHAIN = (TARGET_CHECK, EVALUATION, REPLAN)

STATE_KIND_ROWS: tuple[StateKindRow, ...] = (
    StateKindRow(PREFLIGHT, (Route("ok", FIRST_STEP), _fail("blocked", StopReason.INTENT_EXECUTION_FAILED))),
    _step(NAVIGATE, OK_OR_ERROR, lambda at: {"url": at.step.navigate_url}, observation=True, fills_texts=("url",)),
    _step(OBSERVE, OK_OR_ERROR, lambda at: dict(at.body), observation=True),
    StateKindRow(
        TARGET_CHECK,
        (Route("valid", EVALUATION), Route("blocked", EVALUATION)),
        tool=lambda at: TARGET_CHECK_TOOL,
        params=_observed,
        timeout=lambda at: at.recipe.guards.timeouts.verify_ms,
        suffix=".validate-target",
    ),
    StateKindRow(
        EVALUATION,
        (Route("valid", NEXT), Route("blocked", REPLAN, guard=REPLANS_LEFT), _fail("blocked", StopReason.REPLANS_EXHAUSTED, REPLANS_EXHAUSTED)),
        tool=lambda at: EVALUATION_TOOL,
        params=_observed,
        suffix=".evaluate",
        recoverable=True,
    ),
    StateKindRow(
        REPLAN,
        (Route("found", TARGET_CHECK), _fail("exhausted", StopReason.REPLANS_EXHAUSTED)),
        tool=lambda at: at.search_tool,
        params=_observed,
        timeout=lambda at: at.recipe.guards.timeouts.click_result_ms,
        suffix=".replan",
        asks_approval=True,
        recoverable=True,
    ),
    _step(
        ACT,
        (Route("verified", NEXT), _fail("unverified", StopReason.VERIFICATION_FAILED), BLOCKED, _fail("error", StopReason.EXECUTE_ERROR)),
        verifying=True,
        fills_locators=ACT_LOCATOR_KEYS,
        fills_locator_maps=("read_at_press",),
        fills_texts=("text", "value", "press"),
    ),
    _step(WAIT, (Route("ok", NEXT), _fail("timeout", StopReason.TIMEOUT))),
    _step(EXTRACT, (Route("ok", NEXT), BLOCKED, _fail("error", StopReason.EXECUTE_ERROR))),
    _step(VERIFY, (Route("passed", NEXT), _fail("failed", StopReason.VERIFICATION_FAILED), BLOCKED), lambda at: {"conditions": conditions_of(at.body)}, verifying=True),
    _step(
        AGENT,
        (
            Route("verified", NEXT),
            _fail("unverified", StopReason.VERIFICATION_FAILED),
            BLOCKED,
            _fail("exhausted", StopReason.MAX_STEPS_EXCEEDED),
            _fail("error", StopReason.EXECUTE_ERROR),
        ),
        _agent_params,
        verifying=True,
    ),
    _step(CLOSE, (Route("ok", COMPLETION),)),
    # A script's result is a value read from the page: a page that fails validation blocks it.
    _step(EVALUATE, (Route("ok", NEXT), BLOCKED, _fail("error", StopReason.EXECUTE_ERROR))),
    _step(SET, OK_OR_ERROR, lambda at: {"values": dict(at.body)}),
    StateKindRow(
        REPAIR,
        (Route("repaired", NEXT), *(_fail(trigger, StopReason(trigger)) for trigger in REPAIR_TRIGGERS)),
        params=_repair_params,
        timeout=_step_timeout,
        suffix=".repair",
        recoverable=True,
    ),
    StateKindRow(WHEN, (Route("holds", GUARDED), Route("skipped", NEXT)), params=_when_params, suffix=".when"),
    _step(FOR_EACH, (Route("item", BODY), Route("done", NEXT), _fail("error", StopReason.EXECUTE_ERROR)), _loop_params),
    _step(SWITCH_TAB, OK_OR_ERROR, lambda at: {"tab": at.body}),
    _step(CLOSE_TAB, OK_OR_ERROR, lambda at: {"tab": at.body}),
    StateKindRow(COMPLETION, (Route("ok", OUTPUT), _fail("unmet", StopReason.INTENT_EXECUTION_FAILED))),
    StateKindRow(OUTPUT, (Route("valid", DONE), _fail("invalid", StopReason.OUTPUT_INVALID)), params=lambda at: {"schema": "output_schema"}),
)
STATE_KINDS: dict[str, StateKindRow] = {kind.name: kind for kind in STATE_KIND_ROWS}
# The repair trigger a step's failed outcome is (the same for every kind that names it).
TRIGGER_OF_OUTCOME: dict[str, str] = {NO_PROGRESS_OUTCOME: NO_PROGRESS_OUTCOME} | {
    route.outcome: REPAIRED_REASONS[route.reason]
    for kind in STATE_KIND_ROWS
    if kind.recipe is not None
    for route in kind.routes
    if route.to == FAIL and route.reason in REPAIRED_REASONS
}
assert set(STEP_KINDS) == {kind.name for kind in STATE_KIND_ROWS if kind.recipe is not None}, "every recipe step kind has its row"
assert {kind.name for kind in STATE_KIND_ROWS if kind.observation} == set(OBSERVATION_KINDS)

# The states a step is entered through (an on_failure path leads to one), those whose outcome
# says whether they verified, and those whose failure an on_failure path may recover.
STEP_ENTRY_KINDS = frozenset(STEP_KINDS) | {WHEN}
VERIFYING_KINDS = frozenset(kind.name for kind in STATE_KIND_ROWS if kind.verifying)
RECOVERABLE_KINDS = frozenset(kind.name for kind in STATE_KIND_ROWS if kind.recoverable)

__all__ = [
    "ACT",
    "AGENT",
    "AGENT_CLOSE_TOOL",
    "CLOSE",
    "COMPLETION",
    "EVALUATE",
    "EVALUATE_RESULT_MAX_BYTES",
    "EVALUATION",
    "EXTRACT",
    "FOR_EACH",
    "NAVIGATE",
    "OBSERVE",
    "OUTPUT",
    "PLAN_CHECK_TOOLS",
    "PREFLIGHT",
    "RECOVERABLE_KINDS",
    "REPAIR",
    "REPLAN",
    "SET",
    "NEW_TAB",
    "PRIMARY_TAB",
    "CLOSE_TAB",
    "SWITCH_TAB",
    "TABS_TOOL",
    "STATE_KINDS",
    "STATE_KIND_ROWS",
    "STEP_ENTRY_KINDS",
    "STEP_KINDS",
    "TARGET_CHECK",
    "TERMINAL",
    "TRIGGER_OF_OUTCOME",
    "VERIFY",
    "VERIFYING_KINDS",
    "WAIT",
    "WHEN",
]
