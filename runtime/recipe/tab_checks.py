"""Checks of the tabs a recipe names, before anything runs.

A step's `tab`, a `switch_tab` and a `close_tab` name a tab: `primary`, `new` (the tab opened most
recently) or a name a step gave with `as`. `new` needs a step that may open a tab (an act, an
agent or an evaluate step) and a name needs the step that gives it, on every path that reaches
the step using it: the same must-be-defined dataflow the reference check runs (step_graph.py). A
step that fails, or that its `when` skips, opens nothing.
"""

from __future__ import annotations

from collections.abc import Iterator

from runtime.recipe.model import Recipe
from runtime.recipe.problems import did_you_mean
from runtime.recipe.references_check import defined_before
from runtime.recipe.step_graph import StepGraph, StepNode, step_graph
from runtime.recipe.steps import CLOSE_TAB, NEW_TAB, PRIMARY_TAB, SWITCH_TAB, TAB_KINDS, TAB_OPENING_KINDS, Step

PathParts = tuple[str | int, ...]
Finding = tuple[PathParts, str, str]

TAB_WORDS = (NEW_TAB, PRIMARY_TAB)


def opened_tabs(node: StepNode) -> set[str]:
    """The tabs a step may have opened once it succeeded: `new`, and the name it gives."""
    step = node.step
    if step.kind not in TAB_OPENING_KINDS:
        return set()
    return {NEW_TAB} | ({step.as_} if step.as_ else set())


def named_tabs(step: Step, path: PathParts) -> Iterator[tuple[PathParts, str]]:
    """The tabs a step names, with the path of each name."""
    if step.tab is not None and step.kind in TAB_KINDS:  # elsewhere `tab` is refused as misplaced
        yield path + ("tab",), step.tab
    for kind in (SWITCH_TAB, CLOSE_TAB):
        name = getattr(step, kind)
        if name is not None:
            yield path + (kind,), name


def check_tabs(recipe: Recipe) -> Iterator[Finding]:
    graph = step_graph(recipe)
    yield from _placement(graph)
    defined, _ = defined_before(graph, opened_tabs)
    givers = _givers(graph)
    for step_id in graph.order:
        node = graph.nodes[step_id]
        if step_id not in defined:
            continue  # unreachable: the flow check says so
        for path, name in named_tabs(node.step, node.path):
            if name == PRIMARY_TAB:
                if path[-1] == SWITCH_TAB:
                    yield path, "the primary tab is already where steps act: switch to `new` or a name a step gave with `as`", "bad_tab"
                continue
            if name in defined[step_id]:
                continue
            yield path, _undefined(name, step_id, graph, givers), "undefined_tab" if name == NEW_TAB or name in givers else "unknown_tab"


def _placement(graph: StepGraph) -> Iterator[Finding]:
    """`tab` only on steps that act in a page; `as` only on steps that may open a tab, never a tab word."""
    for step_id in graph.order:
        node = graph.nodes[step_id]
        step, path = node.step, node.path
        if step.tab is not None and step.kind not in TAB_KINDS:
            yield path + ("tab",), f"`tab` goes on steps that act in a page ({', '.join(TAB_KINDS)}), not on {step.kind}", "bad_tab"
        if step.as_ is None:
            continue
        if step.kind not in TAB_OPENING_KINDS:
            kinds = ", ".join(TAB_OPENING_KINDS)
            yield path + ("as",), f"`as` names the tab a step opens, and only {kinds} steps open tabs; {step.kind} does not", "bad_tab"
        elif step.as_ in TAB_WORDS:
            yield path + ("as",), f"{step.as_!r} already means a tab ({', '.join(TAB_WORDS)}): give this one another name", "bad_tab"


def _givers(graph: StepGraph) -> dict[str, list[str]]:
    """Tab name -> the steps that give it with `as`."""
    found: dict[str, list[str]] = {}
    for step_id in graph.order:
        node = graph.nodes[step_id]
        if node.step.as_ is not None and node.step.kind in TAB_OPENING_KINDS:
            found.setdefault(node.step.as_, []).append(step_id)
    return found


def _undefined(name: str, step_id: str, graph: StepGraph, givers: dict[str, list[str]]) -> str:
    if name == NEW_TAB:
        openers = [s for s in graph.order if graph.nodes[s].step.kind in TAB_OPENING_KINDS]
        if not openers:
            return f"`new` is the tab a step opened, and no step of this recipe can open one ({', '.join(TAB_OPENING_KINDS)} steps can)"
        return f"`new` may be used before any step opened a tab: a path reaches step {step_id!r} without passing {', '.join(map(repr, openers))}"
    if name not in givers:
        return f"no step names a tab {name!r} with `as`{did_you_mean(name, set(givers))}"
    steps = ", ".join(repr(s) for s in givers[name])
    return f"tab {name!r} may be used before it is opened: a path reaches step {step_id!r} without passing {steps}"
