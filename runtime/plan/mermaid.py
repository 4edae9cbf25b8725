"""Render a Plan as a Mermaid state diagram."""

from __future__ import annotations

from runtime.plan.model import Plan


def _label(text: str) -> str:
    # Mermaid labels cannot hold these characters unescaped.
    return text.replace('"', "'").replace(":", " ").replace(";", ",")


def to_mermaid(plan: Plan) -> str:
    alias = {state.id: f"s{i}" for i, state in enumerate(plan.states)}
    lines = ["stateDiagram-v2", f"    %% plan of recipe {plan.recipe['name']} {plan.recipe['version']}"]
    for state in plan.states:
        title = state.id if state.kind in (state.id, "terminal") else f"{state.id} ({state.kind})"
        lines.append(f'    state "{_label(title)}" as {alias[state.id]}')
    lines.append(f"    [*] --> {alias[plan.initial]}")
    for state in plan.states:
        for transition in state.transitions:
            label = transition.on + (f" [{transition.guard}]" if transition.guard else "")
            lines.append(f"    {alias[state.id]} --> {alias[transition.to]} : {_label(label)}")
        if state.terminal is not None:
            lines.append(f"    {alias[state.id]} --> [*]")
    return "\n".join(lines) + "\n"
