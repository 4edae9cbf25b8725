"""The compiled plan: an explicit state machine as pure, serialisable data.

Nothing here runs anything. The executor walks `states` from `initial`, performs each state's
work, names the outcome, and follows the first transition whose `on` matches and whose `guard`
holds. Guards are names from a small fixed vocabulary (see GUARDS), never code.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from runtime.outcomes import StopReason, TaskState
from runtime.plan.state_kinds import REPLANS_EXHAUSTED, REPLANS_LEFT, STATE_KIND_ROWS, TERMINAL

PLAN_FORMAT = "verity.plan/v1"

# A state's kind: a row of the table of state kinds, or a terminal.
StateKind = Literal[tuple(kind.name for kind in STATE_KIND_ROWS) + (TERMINAL,)]  # type: ignore[valid-type]

# Guard names a transition may carry, and what they mean. The executor implements exactly these.
GUARDS: dict[str, str] = {
    REPLANS_LEFT: "fewer replans used than limits.max_replans",
    REPLANS_EXHAUSTED: "limits.max_replans replans already used",
}


class PlanModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Transition(PlanModel):
    on: str = Field(description="The outcome of the state's work that takes this transition.")
    to: str
    guard: str | None = None


class Terminal(PlanModel):
    status: TaskState
    stop_reason: StopReason


class State(PlanModel):
    id: str
    kind: StateKind
    step: int | None = Field(default=None, description="Index of the recipe plan step this state comes from.")
    loop: str | None = Field(default=None, description="The for_each state whose body this state belongs to; its executions are recorded as `<id>[<item>]`.")
    tool: str | None = None
    needs_approval: bool = False
    timeout_ms: int | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    transitions: list[Transition] = Field(default_factory=list)
    terminal: Terminal | None = None
    tab: str | None = Field(
        default=None, description="The tab the state acts in: `new`, `primary` or a name a step gave (its step's `tab`); the primary tab when None."
    )
    names_tab: str | None = Field(default=None, description="The name the tab this state opens is given (its step's `as`).")

    def next_for(self, outcome: str, guards: dict[str, bool] | None = None) -> str | None:
        """The target of the first transition matching `outcome` whose guard holds."""
        for transition in self.transitions:
            if transition.on == outcome and (transition.guard is None or (guards or {}).get(transition.guard, False)):
                return transition.to
        return None


class Limits(PlanModel):
    max_steps: int
    max_replans: int
    no_progress_window: int
    step_timeout_ms: int
    verify_timeout_ms: int
    click_result_timeout_ms: int
    run_timeout_ms: int


class ToolPolicy(PlanModel):
    allowed: list[str] | None
    needs_approval: list[str]
    scopes: dict[str, str]


class Plan(PlanModel):
    format: str = PLAN_FORMAT
    recipe: dict[str, str]
    goal: str
    inputs: dict[str, dict[str, Any]]
    intent: dict[str, Any]
    intent_guard: dict[str, Any]
    target: dict[str, Any]
    limits: Limits
    tools: ToolPolicy
    fallback: dict[str, Any]
    output_schema: dict[str, Any]
    output_values: dict[str, Any] | None = None
    switches: dict[str, Any] = Field(default_factory=dict, description="The recipe's switches set otherwise than by default (runtime/plan/switches.py).")
    initial: str
    states: list[State]

    def state(self, state_id: str) -> State:
        for state in self.states:
            if state.id == state_id:
                return state
        raise KeyError(state_id)

    def to_json(self) -> str:
        """Canonical JSON: the same recipe always gives byte-identical output."""
        return json.dumps(self.to_data(), indent=2, ensure_ascii=False) + "\n"

    def to_data(self) -> dict[str, Any]:
        """The plan as JSON values, keys sorted as `to_json` writes them (sorted by json's C
        encoder: the indented text is laid out by the pure-Python one, which a caller that only
        needs the values should not pay for)."""
        return json.loads(json.dumps(self.model_dump(mode="json"), ensure_ascii=False, sort_keys=True))  # type: ignore[no-any-return]

    @classmethod
    def from_json(cls, text: str) -> Plan:
        return cls.model_validate_json(text)
