"""One handler per plan state kind, registered under the kind's name from the table of state
kinds (runtime/plan/state_kinds.py), as the browser registers its actions. Each handler's file is
named after the kind it handles.

A handler is `async (ctx: RunContext, state: State) -> StepResult`: it does the state's work with
what the run context offers, names an outcome the plan routes on, or raises `RunStopped`. The
walker looks the handler up, runs it and follows the transition; `terminal` states are the
walker's own (they end the run).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from runtime.execute.context.run_context import RunContext
from runtime.execute.states.act import act
from runtime.execute.states.agent import agent
from runtime.execute.states.agent_evaluate import agent_evaluate
from runtime.execute.states.close import close
from runtime.execute.states.close_tab import close_tab
from runtime.execute.states.completion import completion
from runtime.execute.states.evaluate import evaluate
from runtime.execute.states.extract import extract
from runtime.execute.states.for_each import for_each
from runtime.execute.states.navigate import navigate
from runtime.execute.states.observe import observe
from runtime.execute.states.output import validate_output
from runtime.execute.states.preflight import preflight
from runtime.execute.states.repair import repair
from runtime.execute.states.replan import replan_search
from runtime.execute.states.set_values import set_values
from runtime.execute.states.switch_tab import switch_tab
from runtime.execute.states.validate_target import validate
from runtime.execute.states.verify import verify
from runtime.execute.states.wait import wait
from runtime.execute.states.when import when
from runtime.execute.step_outcome import StepResult
from runtime.plan.model import State
from runtime.plan.state_kinds import (
    ACT,
    AGENT,
    CLOSE,
    CLOSE_TAB,
    COMPLETION,
    EVALUATE,
    EVALUATION,
    EXTRACT,
    FOR_EACH,
    NAVIGATE,
    OBSERVE,
    OUTPUT,
    PREFLIGHT,
    REPAIR,
    REPLAN,
    SET,
    SWITCH_TAB,
    TARGET_CHECK,
    VERIFY,
    WAIT,
    WHEN,
)

StateHandler = Callable[[RunContext, State], Awaitable[StepResult]]

HANDLERS: dict[str, StateHandler] = {
    PREFLIGHT: preflight,
    NAVIGATE: navigate,
    OBSERVE: observe,
    TARGET_CHECK: validate,
    EVALUATION: agent_evaluate,
    REPLAN: replan_search,
    REPAIR: repair,
    ACT: act,
    WAIT: wait,
    EXTRACT: extract,
    VERIFY: verify,
    AGENT: agent,
    CLOSE: close,
    EVALUATE: evaluate,
    SET: set_values,
    WHEN: when,
    FOR_EACH: for_each,
    SWITCH_TAB: switch_tab,
    CLOSE_TAB: close_tab,
    COMPLETION: completion,
    OUTPUT: validate_output,
}

__all__ = ["HANDLERS", "StateHandler"]
