"""Which tools a recipe's steps need, read from the one step->tool table (tool_registry.STEP_TOOLS).

The plan compiler gives each plan state its tool from here, and the run-time tool gate checks that
tool against tools.allow; the validator asks the same question before the run, so a recipe whose
tools.allow leaves a tool out is refused with the step that needs it instead of stopping mid-run.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from runtime.recipe.model import Recipe
from runtime.recipe.steps import FOR_EACH, Step
from runtime.recipe.step_graph import body_ids
from runtime.recipe.templated import all_steps
from runtime.recipe.steps import ACT, AGENT, AGENT_CLOSE_TOOL, OBSERVATION_KINDS
from runtime.recipe.tool_registry import SEARCH_TOOL, STEP_TOOLS, UNGATED_STEP_TOOLS

PathParts = tuple[str | int, ...]


def step_tool(step: Step) -> str | None:
    """The tool a step's own plan state runs (an act's tool depends on its action); None for
    plan machinery (variables, loops), which touches no tool."""
    return STEP_TOOLS.get(f"{ACT}.{step.act.action}" if step.act else step.kind)


def replan_tool(recipe: Recipe) -> str | None:
    """The tool an observation's replan runs: the fallback search, when the recipe can search at all
    (without fallback.search_url, or with no replans, the replan touches nothing)."""
    return SEARCH_TOOL if recipe.fallback.search_url and recipe.guards.max_replans > 0 else None


@dataclass(frozen=True)
class ToolNeed:
    path: PathParts  # the recipe field that makes the run use the tool
    step_id: str
    tool: str
    why: str  # "act click", "replan search", ...


def tool_needs(recipe: Recipe) -> Iterator[ToolNeed]:
    """Every tool the run-time gate would check for each step, with the step that needs it."""
    ids = _step_ids(recipe)
    search = replan_tool(recipe)
    for path, step in all_steps(recipe):
        step_id, kind = ids[path], step.kind
        tool = step_tool(step)
        if tool is not None and tool not in UNGATED_STEP_TOOLS:
            why = f"act {step.act.action}" if step.act else kind
            yield ToolNeed(path + (kind,), step_id, tool, why)
        if kind == AGENT:
            yield ToolNeed(path + (kind,), step_id, AGENT_CLOSE_TOOL, "agent (its model ends the step with close)")
        if kind in OBSERVATION_KINDS and step.validate_target and search is not None:
            yield ToolNeed(path + (kind,), step_id, search, f"{kind}'s replan (fallback.search_url) when the page is not the target")


def _step_ids(recipe: Recipe) -> dict[PathParts, str]:
    """Each step's id by its path, as the plan names it (loop bodies included)."""
    ids: dict[PathParts, str] = {}
    plan_ids = recipe.step_ids()
    for i, step in enumerate(recipe.plan):
        ids[("plan", i)] = plan_ids[i]
        if step.for_each is not None:
            for j, inner_id in enumerate(body_ids(plan_ids[i], step.for_each.do)):
                ids[("plan", i, FOR_EACH, "do", j)] = inner_id
    return ids
