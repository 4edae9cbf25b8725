"""Checking `{steps.<id>.<field>}` and `{vars.<name>}` references before anything runs.

Each reference must name a step (or variable) that exists, a value that step gives, and it must be
defined on EVERY path that reaches the place it is used: a must-be-defined dataflow over the step
graph (step_graph.py). A step defines its values only when it succeeds; a step its `when` skips,
a failure path and a loop that ran zero times define nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from runtime.recipe.model import Recipe
from runtime.recipe.steps import Step
from runtime.template.placeholders import placeholder_names
from runtime.recipe.problems import did_you_mean
from runtime.template.references import STEPS, Reference, is_reference, parse_reference
from runtime.recipe.step_graph import END, StepGraph, StepNode, step_graph
from runtime.recipe.templated import json_texts, step_texts

PathParts = tuple[str | int, ...]
Finding = tuple[PathParts, str, str]

ANY_FIELD = "*"  # an agent step's model may extract any field


def step_values(step_id: str, step: Step) -> set[str]:
    """What a step defines when it succeeds, as reference texts (`steps.read.price`, `vars.x`)."""
    if step.extract is not None:
        names = set(step.extract.fields) | ({"text"} if step.extract.readable_text else set())
        return {f"{STEPS}.{step_id}.{name}" for name in names}
    if step.evaluate is not None:
        return {f"{STEPS}.{step_id}.{name}" for name in ("result", *step.evaluate.fields)}
    if step.agent is not None:
        return {f"{STEPS}.{step_id}.{ANY_FIELD}"}
    if step.act is not None and step.act.read_at_press:
        return {f"{STEPS}.{step_id}.{name}" for name in step.act.read_at_press}
    if step.set is not None:
        return {f"vars.{name}" for name in step.set}
    return set()


def loop_values(node: StepNode) -> tuple[set[str], set[str]]:
    """A for_each step's values: inside its body (the item), and after it (the count)."""
    assert node.step.for_each is not None
    name = node.step.for_each.as_
    return {f"vars.{name}", f"vars.{name}_index"}, {f"{STEPS}.{node.id}.count"}


def defined_before(
    graph: StepGraph, gives: Callable[[StepNode], set[str]] | None = None
) -> tuple[dict[str, frozenset[str]], frozenset[str] | None]:
    """For each reachable step, the values defined on every path to it; and those at the end
    (None when no path reaches the end). `gives`: what a step defines when it succeeds, instead
    of its values (the tab check asks which tabs a step opens)."""
    incoming: dict[str, list[frozenset[str]]] = {}
    state: dict[str, frozenset[str]] = {graph.first: frozenset()}
    changed = True
    while changed:
        changed = False
        incoming = {graph.first: [frozenset()]}
        for step_id, before in list(state.items()):
            node = graph.nodes[step_id]
            for target, carried in _edges(node, before, gives):
                incoming.setdefault(target, []).append(carried)
        for target, sets in incoming.items():
            if target == END or target not in graph:
                continue
            meet = frozenset.intersection(*sets)
            if state.get(target) != meet:
                state[target] = meet
                changed = True
    at_end = incoming.get(END)
    return state, frozenset.intersection(*at_end) if at_end else None


def _edges(node: StepNode, before: frozenset[str], gives: Callable[[StepNode], set[str]] | None) -> Iterator[tuple[str, frozenset[str]]]:
    step = node.step
    if step.for_each is not None:
        inside, after = loop_values(node) if gives is None else (set(), gives(node))
        assert node.body_entry is not None
        yield node.body_entry, before | inside
        yield node.after, before | after
    else:
        yield node.after, before | (step_values(node.id, step) if gives is None else gives(node))
        if step.when is not None:
            yield node.after, before
    if node.failure is not None:
        yield node.failure, before


def check_references(recipe: Recipe) -> Iterator[Finding]:
    graph = step_graph(recipe)
    defined, at_end = defined_before(graph)
    definers = _definers(graph)
    for step_id in graph.order:
        node = graph.nodes[step_id]
        if step_id not in defined:
            continue  # unreachable: the flow check says so
        for path, text in step_texts(node.step, node.path):
            yield from _check_text(path, text, defined[step_id], graph, definers, where=f"step {step_id!r}")
    for key, value in (recipe.output.values or {}).items():
        for path, text in json_texts(value, ("output", "values", key)):
            yield from _check_text(path, text, at_end or frozenset(), graph, definers, where="the output")


def _definers(graph: StepGraph) -> dict[str, list[str]]:
    """Variable reference -> the steps that give it (set steps and loops)."""
    found: dict[str, list[str]] = {}
    for step_id in graph.order:
        node = graph.nodes[step_id]
        names = loop_values(node)[0] if node.step.for_each is not None else step_values(step_id, node.step)
        for name in names:
            if name.startswith("vars."):
                found.setdefault(name, []).append(step_id)
    return found


def _check_text(
    path: PathParts, text: str, defined: frozenset[str], graph: StepGraph, definers: dict[str, list[str]], *, where: str
) -> Iterator[Finding]:
    try:
        names = placeholder_names(text)
    except ValueError:
        return  # the placeholder check reports malformed braces and names
    for name in names:
        if not is_reference(name):
            continue
        reference = parse_reference(name)
        problem = _unknown(reference, graph, definers)
        if problem is not None:
            yield path, problem[0], problem[1]
            continue
        wildcard = f"{STEPS}.{reference.step}.{ANY_FIELD}"
        if name not in defined and wildcard not in defined:
            yield path, _not_defined_message(reference, graph, definers, where), "undefined_reference"


def _unknown(reference: Reference, graph: StepGraph, definers: dict[str, list[str]]) -> tuple[str, str] | None:
    if reference.scope != STEPS:
        if f"vars.{reference.name}" not in definers:
            known = {name.removeprefix("vars.") for name in definers}
            return f"no `set` step or `for_each` loop gives {{vars.{reference.name}}}{did_you_mean(reference.name, known)}", "unknown_variable"
        return None
    if reference.step not in graph:
        return f"no step has id {reference.step!r}{did_you_mean(reference.step, set(graph.nodes))}", "unknown_step"
    node = graph.nodes[reference.step]
    gives = step_values(node.id, node.step) if node.step.for_each is None else loop_values(node)[1]
    fields = {value.rsplit(".", 1)[1] for value in gives if value.startswith(STEPS + ".")}
    if ANY_FIELD in fields or reference.field in fields:
        return None
    if not fields:
        return f"step {reference.step!r} ({node.step.kind}) gives no values; extract, evaluate, agent and for_each steps do", "unknown_field"
    return f"step {reference.step!r} gives no {reference.field!r}; it gives {', '.join(sorted(fields))}{did_you_mean(reference.field, fields)}", "unknown_field"


def _not_defined_message(reference: Reference, graph: StepGraph, definers: dict[str, list[str]], where: str) -> str:
    if reference.scope == STEPS:
        node = graph.nodes[reference.step]
        how = " (its `when` may skip it)" if node.step.when is not None else ""
        if node.loop is not None:
            how += f"; it runs inside loop {node.loop!r}, which may run no item"
        return f"{{{reference.text}}} may be used before step {reference.step!r} has given it: a path reaches {where} without running it{how}"
    steps = ", ".join(repr(s) for s in definers.get(f"vars.{reference.name}", []))
    return f"{{vars.{reference.name}}} may be used before it is given: a path reaches {where} without passing {steps}"
