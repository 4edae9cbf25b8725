"""The recipe's steps as a graph: every step (loop bodies included) with its id, its path in the
recipe, and where the flow goes after it. The flow checks and the reference check walk this graph;
the compiler follows the same rules when it writes transitions.

Rules: a step goes on (after success, or when its `when` skips it) to its `next`, else the
following step of its list; the last step of the plan goes to the end, the last step of a loop
body back to its loop. `on_failure` names where a failure goes. A `close` ends the plan. A
`for_each` step goes into its body (once per item) or, when the items are done, on.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from runtime.recipe.model import Recipe
from runtime.recipe.steps import FOR_EACH, Step

PathParts = tuple[str | int, ...]

END = "<end>"  # intent.completion: the plan's end


@dataclass(frozen=True)
class StepNode:
    id: str
    step: Step
    path: PathParts
    loop: str | None  # the for_each step whose body holds this step
    after: str  # where success (or a skip) leads: a step id, the loop's id, or END
    failure: str | None  # on_failure's step id
    body_entry: str | None = None  # for a for_each step: its body's first step


@dataclass
class StepGraph:
    nodes: dict[str, StepNode] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # document order
    first: str = ""

    def __contains__(self, step_id: object) -> bool:
        return step_id in self.nodes


def body_ids(loop_id: str, body: list[Step]) -> list[str]:
    """The ids of a loop body's steps: their own, or `<loop>.do-N` (1-based) when they have none."""
    return [step.id or f"{loop_id}.do-{j + 1}" for j, step in enumerate(body)]


def step_graph(recipe: Recipe) -> StepGraph:
    graph = StepGraph()
    _add_scope(graph, recipe.plan, recipe.step_ids(), ("plan",), loop=None, end=END)
    graph.first = recipe.step_ids()[0]
    return graph


def _add_scope(graph: StepGraph, steps: list[Step], ids: list[str], base: PathParts, *, loop: str | None, end: str) -> None:
    for i, step in enumerate(steps):
        step_id = ids[i]
        path = base + (i,)
        if step.close is not None:
            after = END
        elif step.next is not None:
            after = step.next
        else:
            after = ids[i + 1] if i + 1 < len(steps) else end
        body_entry = None
        if step.for_each is not None:
            inner_ids = body_ids(step_id, step.for_each.do)
            body_entry = inner_ids[0]
        node = StepNode(step_id, step, path, loop, after, step.on_failure, body_entry)
        if step_id not in graph.nodes:  # a duplicate id is reported by the flow check
            graph.nodes[step_id] = node
            graph.order.append(step_id)
        if step.for_each is not None and loop is None:  # nested loops are refused by the flow check
            _add_scope(graph, step.for_each.do, body_ids(step_id, step.for_each.do), path + (FOR_EACH, "do"), loop=step_id, end=step_id)


def successors(node: StepNode) -> list[str]:
    """Every step (or END) the flow may reach right after this one."""
    following = [node.after]
    if node.failure is not None:
        following.append(node.failure)
    if node.body_entry is not None:
        following.append(node.body_entry)
    return following
