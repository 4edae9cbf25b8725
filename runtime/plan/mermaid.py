"""Render a Plan as a Mermaid state diagram."""

from __future__ import annotations

from typing import Any

from runtime.plan.model import Plan
from runtime.plan.state_kinds import TERMINAL, WHEN


def _label(text: str) -> str:
    # Mermaid labels cannot hold these characters unescaped.
    return text.replace('"', "'").replace(":", " ").replace(";", ",")


def _condition_words(condition: dict[str, Any]) -> str:
    """A condition's check and, for a negation, what it negates: `not value_equals`."""
    key = next(iter(condition), "")
    return f"not {_condition_words(condition[key])}" if key == "not" else key


def to_mermaid(plan: Plan) -> str:
    alias = {state.id: f"s{i}" for i, state in enumerate(plan.states)}
    lines = ["stateDiagram-v2", f"    %% plan of recipe {plan.recipe['name']} {plan.recipe['version']}"]
    for state in plan.states:
        title = state.id if state.kind in (state.id, TERMINAL) else f"{state.id} ({state.kind})"
        if state.kind == WHEN:
            title = f"{state.id} (when {' and '.join(_condition_words(c) for c in state.params.get('conditions', []))})"
        if state.loop:
            title += f" for each item of {state.loop}"
        lines.append(f'    state "{_label(title)}" as {alias[state.id]}')
    lines.append(f"    [*] --> {alias[plan.initial]}")
    for state in plan.states:
        for transition in state.transitions:
            label = transition.on + (f" [{transition.guard}]" if transition.guard else "")
            lines.append(f"    {alias[state.id]} --> {alias[transition.to]} : {_label(label)}")
        if state.terminal is not None:
            lines.append(f"    {alias[state.id]} --> [*]")
    return "\n".join(lines) + "\n"
