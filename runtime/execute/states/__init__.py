"""One handler per plan state kind, registered by kind (as the browser registers its actions).

A handler is `async (ctx: RunContext, state: State) -> StepResult`: it does the state's work with
what the run context offers, names an outcome the plan routes on, or raises `RunStopped`. The
walker looks the handler up, runs it and follows the transition; `terminal` states are the
walker's own (they end the run).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from runtime.execute.context import RunContext
from runtime.execute.states.act import act
from runtime.execute.states.agent import agent
from runtime.execute.states.close import close
from runtime.execute.states.completion import completion
from runtime.execute.states.evaluate import evaluate
from runtime.execute.states.extract import extract
from runtime.execute.states.for_each import for_each
from runtime.execute.states.navigate import navigate
from runtime.execute.states.observe import observe
from runtime.execute.states.output import validate_output
from runtime.execute.states.page_script import evaluate_script
from runtime.execute.states.preflight import preflight
from runtime.execute.states.replan import replan_search
from runtime.execute.states.set_values import set_values
from runtime.execute.states.validate_target import validate
from runtime.execute.states.verify import verify
from runtime.execute.states.wait import wait
from runtime.execute.states.when import when
from runtime.execute.step_outcome import StepResult
from runtime.plan.model import State

StateHandler = Callable[[RunContext, State], Awaitable[StepResult]]

HANDLERS: dict[str, StateHandler] = {
    "intent.preflight": preflight,
    "navigate": navigate,
    "observe": observe,
    "data.validate-target": validate,
    "agent.evaluate": evaluate,
    "replan.search": replan_search,
    "act": act,
    "wait": wait,
    "extract": extract,
    "verify": verify,
    "agent": agent,
    "close": close,
    "evaluate": evaluate_script,
    "set": set_values,
    "when": when,
    "for_each": for_each,
    "intent.completion": completion,
    "output.validate": validate_output,
}

__all__ = ["HANDLERS", "StateHandler"]
