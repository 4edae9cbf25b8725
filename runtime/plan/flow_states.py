"""The plan states of the recipe's flow keys: a step's `when` becomes a `<id>.when` state in front
of it (holds -> the step, skipped -> where success would go), and a `for_each` a loop state whose
`item` outcome enters the body and whose `done` outcome goes on. Pure data, like the compiler."""

from __future__ import annotations

from typing import Any

from runtime.plan.model import State, Transition
from runtime.recipe.conditions import Condition
from runtime.recipe.steps import ForEach

# Step kinds that touch no tool: the run's own bookkeeping of values and loops.
INTERNAL_KINDS = ("set", "for_each")


def conditions_of(conditions: list[Condition]) -> list[dict[str, Any]]:
    """Conditions as plan params: the recipe's keys (`not`, not the model's `not_`)."""
    return [condition.model_dump(mode="json", exclude_none=True, by_alias=True) for condition in conditions]


def when_state(step_id: str, index: int, loop: str | None, when: Condition | list[Condition], *, holds: str, skipped: str) -> State:
    conditions = when if isinstance(when, list) else [when]
    return State(
        id=f"{step_id}.when",
        kind="when",
        step=index,
        loop=loop,
        params={"conditions": conditions_of(conditions), "guards": step_id},
        transitions=[Transition(on="holds", to=holds), Transition(on="skipped", to=skipped)],
    )


def loop_params(loop: ForEach) -> dict[str, Any]:
    params: dict[str, Any] = {"as": loop.as_, "max_items": loop.max_items}
    if loop.elements is not None:
        params["elements"] = loop.elements.model_dump(mode="json", exclude_none=True)
    else:
        params["values"] = loop.values
    return params
