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
from typing import TYPE_CHECKING

from runtime.execute.context.run_context import RunContext
from runtime.execute.step_outcome import StepResult
from runtime.lazy_exports import LazyHandlers
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

if TYPE_CHECKING:
    # The handlers' modules, named for readers and the import graph (tests/architecture); each
    # is imported when a state of its kind first runs (HANDLERS).
    from runtime.execute.states import (  # noqa: F401
        act,
        agent,
        agent_evaluate,
        close,
        close_tab,
        completion,
        evaluate,
        extract,
        for_each,
        navigate,
        observe,
        output,
        preflight,
        repair,
        replan,
        set_values,
        switch_tab,
        validate_target,
        verify,
        wait,
        when,
    )

StateHandler = Callable[[RunContext, State], Awaitable[StepResult]]

# Each kind's handler as (module of this package, function). A plan imports only the handlers of
# the kinds it has: one without an agent step never loads the agent loop, the model's messages
# or the action cache (BENCHMARKS.md, "Run start").
HANDLERS: LazyHandlers[StateHandler] = LazyHandlers(
    __name__,
    {
        PREFLIGHT: ("preflight", "preflight"),
        NAVIGATE: ("navigate", "navigate"),
        OBSERVE: ("observe", "observe"),
        TARGET_CHECK: ("validate_target", "validate"),
        EVALUATION: ("agent_evaluate", "agent_evaluate"),
        REPLAN: ("replan", "replan_search"),
        REPAIR: ("repair", "repair"),
        ACT: ("act", "act"),
        WAIT: ("wait", "wait"),
        EXTRACT: ("extract", "extract"),
        VERIFY: ("verify", "verify"),
        AGENT: ("agent", "agent"),
        CLOSE: ("close", "close"),
        EVALUATE: ("evaluate", "evaluate"),
        SET: ("set_values", "set_values"),
        WHEN: ("when", "when"),
        FOR_EACH: ("for_each", "for_each"),
        SWITCH_TAB: ("switch_tab", "switch_tab"),
        CLOSE_TAB: ("close_tab", "close_tab"),
        COMPLETION: ("completion", "completion"),
        OUTPUT: ("output", "validate_output"),
    },
)

__all__ = ["HANDLERS", "StateHandler"]
