"""Plans: recipes compiled into explicit, pure-data state machines, and the run orders built
from them (order.py: `prepare_run`). The kinds of plan state, one row each, are state_kinds.py."""

from runtime.plan.compiler import compile_recipe, query_ladder
from runtime.plan.mermaid import to_mermaid
from runtime.plan.model import GUARDS, PLAN_FORMAT, Plan, State, Transition
from runtime.plan.order import RunOrder, prepare_run

__all__ = ["GUARDS", "PLAN_FORMAT", "Plan", "RunOrder", "State", "Transition", "compile_recipe", "prepare_run", "query_ladder", "to_mermaid"]
