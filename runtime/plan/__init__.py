"""Plans: recipes compiled into explicit, pure-data state machines."""

from runtime.plan.compiler import compile_recipe, query_ladder
from runtime.plan.mermaid import to_mermaid
from runtime.plan.model import GUARDS, PLAN_FORMAT, Plan, State, Transition

__all__ = ["GUARDS", "PLAN_FORMAT", "Plan", "State", "Transition", "compile_recipe", "query_ladder", "to_mermaid"]
