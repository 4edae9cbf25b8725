"""Compile a Recipe into a Plan. Pure and deterministic: no clock, no I/O, no randomness."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from runtime.outcomes import StopReason, TaskState
from runtime.plan.flow_states import conditions_of, loop_params, when_state
from runtime.plan.model import OBSERVATION_KINDS, Limits, Plan, State, Terminal, ToolPolicy, Transition
from runtime.recipe.model import Recipe
from runtime.recipe.steps import Step
from runtime.recipe.step_graph import body_ids
from runtime.recipe.step_tools import replan_tool, step_tool
from runtime.recipe.tool_registry import AGENT_DEFAULT_TOOLS, ToolRegistry, load_tool_registry

# Generated state ids always contain a dot; recipe step ids cannot, so the two never collide.
DONE = "end.completed"


def failed(reason: StopReason) -> str:
    return f"end.{reason.value}"


def query_ladder(recipe: Recipe) -> list[str]:
    """Seed 001's search ladder, strict to loose: site-restricted, domain keyword, keywords, goal.

    Queries stay templates ({placeholders}); the executor fills them with the run's inputs.
    """
    if recipe.fallback.queries:
        return list(recipe.fallback.queries)
    keywords = " ".join(recipe.target.validation_keywords)
    hosts: list[str] = []
    for pattern in recipe.target.allowed_domains:
        host = pattern.removeprefix("*.").split(":")[0]
        if host not in hosts:
            hosts.append(host)
    ladder: list[str] = []
    if keywords:
        ladder += [f"{keywords} site:{host}" for host in hosts]
        ladder += [f"{keywords} {host}" for host in hosts[:1]]
        ladder.append(keywords)
    ladder += ["{goal}", "{goal} latest"]
    return list(dict.fromkeys(ladder))


def _step_params(step: Step, tools_for_agent: list[str] | None = None) -> dict[str, Any]:
    if step.kind == "navigate":
        return {"url": step.navigate_url}
    body = getattr(step, step.kind)
    if step.kind == "verify":
        return {"conditions": conditions_of(body)}
    if step.kind == "set":
        return {"values": dict(body)}
    if step.kind == "for_each":
        return loop_params(body)
    if step.kind == "agent":
        return {
            "task": body.task,
            "tools": tools_for_agent,
            "max_steps": body.max_steps,
            "done_when": conditions_of(body.done_when),
            "model": body.model,
        }
    if step.kind == "observe":
        return dict(body)
    return body.model_dump(mode="json", exclude_none=True, by_alias=True)


@dataclass(frozen=True)
class _Placed:
    """A step in its list: the plan, or a loop body (`loop` = the loop's id; its end is the loop)."""

    steps: list[Step]
    ids: list[str]
    index: int
    end: str
    loop: str | None
    recipe_index: int  # the index in recipe.plan (a body step counts as its loop's)

    @property
    def step(self) -> Step:
        return self.steps[self.index]


def _placed_steps(recipe: Recipe, ids: list[str]) -> list[_Placed]:
    """Every step in document order, each body right after its loop step."""
    placed: list[_Placed] = []
    for i, step in enumerate(recipe.plan):
        placed.append(_Placed(recipe.plan, ids, i, "intent.completion", None, i))
        if step.for_each is not None:
            body, loop_id = step.for_each.do, ids[i]
            placed += [_Placed(body, body_ids(loop_id, body), j, loop_id, loop_id, i) for j in range(len(body))]
    return placed


def _all_steps(recipe: Recipe) -> list[tuple[str, Step]]:
    return [(p.ids[p.index], p.step) for p in _placed_steps(recipe, recipe.step_ids())]


def compile_recipe(recipe: Recipe, registry: ToolRegistry | None = None) -> Plan:
    registry = registry or load_tool_registry(None)
    ids = recipe.step_ids()
    needs_approval = set(recipe.tools.needs_approval) | {t.name for t in registry.tools.values() if t.needs_approval}

    def agent_tools(step: Step) -> list[str] | None:
        """The tools an agent step's model may call: its own list, else seed 002's minimal set as
        far as the recipe allows it. `close` is always offered: it is how the model finishes."""
        if step.agent is None:
            return None
        if step.agent.tools is not None:
            return sorted(set(step.agent.tools) | {"close"})
        allowed = set(recipe.tools.allow) if recipe.tools.allow is not None else set(registry.names)
        return sorted({name for name in AGENT_DEFAULT_TOOLS if name in allowed} | {"close"})

    # A step with `when` is entered through its `<id>.when` state; every jump goes there.
    entries = {step_id: f"{step_id}.when" for step_id, step in _all_steps(recipe) if step.when is not None}

    def entry(step_id: str) -> str:
        return entries.get(step_id, step_id)

    scope: dict[str, Any] = {}

    def after(i: int) -> str:
        """Where the flow goes after step i of the current list succeeds (or is skipped)."""
        steps, scope_ids, end = scope["steps"], scope["ids"], scope["end"]
        step = steps[i]
        if step.next is not None:
            return entry(step.next)
        if i + 1 < len(steps):
            return entry(scope_ids[i + 1])
        return end

    def on_failure(i: int, reason: StopReason) -> str:
        target = scope["steps"][i].on_failure
        return entry(target) if target is not None else failed(reason)

    def blocked_routes(i: int, observation: str | None) -> list[Transition]:
        """Where a step goes when the page it reads is a blocker (a required field missing, or a
        new document that failed revalidation): the latest observation's replan while replans
        are left, then on_failure."""
        if observation is None:
            return [Transition(on="blocked", to=on_failure(i, StopReason.EXECUTE_ERROR))]
        return [
            Transition(on="blocked", to=f"{observation}.replan", guard="replans_left"),
            Transition(on="blocked", to=on_failure(i, StopReason.REPLANS_EXHAUSTED), guard="replans_exhausted"),
        ]

    states: list[State] = [
        State(
            id="intent.preflight",
            kind="intent.preflight",
            transitions=[Transition(on="ok", to=entry(ids[0])), Transition(on="blocked", to=failed(StopReason.INTENT_EXECUTION_FAILED))],
        )
    ]
    last_observation: str | None = None
    # Without a search page (or replans) the replan touches nothing: it reports exhausted.
    search_tool = replan_tool(recipe)
    for placed in _placed_steps(recipe, ids):
        scope.update(steps=placed.steps, ids=placed.ids, end=placed.end)
        i, step, step_id, loop = placed.index, placed.step, placed.ids[placed.index], placed.loop
        tool = step_tool(step)
        approval = step.needs_approval if step.needs_approval is not None else tool in needs_approval
        timeout = step.timeout_ms or recipe.guards.timeouts.step_ms
        index = placed.recipe_index
        common = {"step": index, "loop": loop, "tool": tool, "needs_approval": approval, "timeout_ms": timeout, "params": _step_params(step, agent_tools(step))}
        if step.when is not None:
            states.append(when_state(step_id, index, loop, step.when, holds=step_id, skipped=after(i)))
        if step.kind in OBSERVATION_KINDS and step.validate_target:
            last_observation = step_id
            validate, evaluate, replan = f"{step_id}.validate-target", f"{step_id}.evaluate", f"{step_id}.replan"
            states.append(
                State(id=step_id, kind=step.kind, **common, transitions=[Transition(on="ok", to=validate), Transition(on="error", to=validate)])
            )
            states.append(
                State(
                    id=validate,
                    kind="data.validate-target",
                    step=index,
                    loop=loop,
                    tool="data.validate-target",
                    timeout_ms=recipe.guards.timeouts.verify_ms,
                    params={"observation": step_id},
                    transitions=[Transition(on="valid", to=evaluate), Transition(on="blocked", to=evaluate)],
                )
            )
            states.append(
                State(
                    id=evaluate,
                    kind="agent.evaluate",
                    step=index,
                    loop=loop,
                    tool="agent.evaluate",
                    params={"observation": step_id},
                    transitions=[
                        Transition(on="valid", to=after(i)),
                        Transition(on="blocked", to=replan, guard="replans_left"),
                        Transition(on="blocked", to=on_failure(i, StopReason.REPLANS_EXHAUSTED), guard="replans_exhausted"),
                    ],
                )
            )
            states.append(
                State(
                    id=replan,
                    kind="replan.search",
                    step=index,
                    loop=loop,
                    tool=search_tool,
                    needs_approval=search_tool in needs_approval,
                    timeout_ms=recipe.guards.timeouts.click_result_ms,
                    params={"observation": step_id},
                    transitions=[
                        Transition(on="found", to=validate),
                        Transition(on="exhausted", to=on_failure(i, StopReason.REPLANS_EXHAUSTED)),
                    ],
                )
            )
            continue
        if step.kind in OBSERVATION_KINDS:
            last_observation = None
            transitions = [Transition(on="ok", to=after(i)), Transition(on="error", to=on_failure(i, StopReason.EXECUTE_ERROR))]
        elif step.kind == "act":
            transitions = [
                Transition(on="verified", to=after(i)),
                Transition(on="unverified", to=on_failure(i, StopReason.VERIFICATION_FAILED)),
                *blocked_routes(i, last_observation),
                Transition(on="error", to=on_failure(i, StopReason.EXECUTE_ERROR)),
            ]
        elif step.kind == "wait":
            transitions = [Transition(on="ok", to=after(i)), Transition(on="timeout", to=on_failure(i, StopReason.TIMEOUT))]
        elif step.kind == "extract":
            transitions = [Transition(on="ok", to=after(i)), *blocked_routes(i, last_observation), Transition(on="error", to=on_failure(i, StopReason.EXECUTE_ERROR))]
        elif step.kind == "verify":
            transitions = [
                Transition(on="passed", to=after(i)),
                Transition(on="failed", to=on_failure(i, StopReason.VERIFICATION_FAILED)),
                *blocked_routes(i, last_observation),
            ]
        elif step.kind == "agent":
            transitions = [
                Transition(on="verified", to=after(i)),
                Transition(on="unverified", to=on_failure(i, StopReason.VERIFICATION_FAILED)),
                *blocked_routes(i, last_observation),
                Transition(on="exhausted", to=on_failure(i, StopReason.MAX_STEPS_EXCEEDED)),
                Transition(on="error", to=on_failure(i, StopReason.EXECUTE_ERROR)),
            ]
        elif step.kind in ("evaluate", "set"):
            transitions = [Transition(on="ok", to=after(i)), Transition(on="error", to=on_failure(i, StopReason.EXECUTE_ERROR))]
        elif step.kind == "for_each":
            assert step.for_each is not None
            first = entry(body_ids(step_id, step.for_each.do)[0])
            transitions = [
                Transition(on="item", to=first),
                Transition(on="done", to=after(i)),
                Transition(on="error", to=on_failure(i, StopReason.EXECUTE_ERROR)),
            ]
        else:  # close
            transitions = [Transition(on="ok", to="intent.completion")]
        states.append(State(id=step_id, kind=step.kind, **common, transitions=transitions))

    states.append(
        State(
            id="intent.completion",
            kind="intent.completion",
            transitions=[Transition(on="ok", to="output.validate"), Transition(on="unmet", to=failed(StopReason.INTENT_EXECUTION_FAILED))],
        )
    )
    states.append(
        State(
            id="output.validate",
            kind="output.validate",
            params={"schema": "output_schema"},
            transitions=[Transition(on="valid", to=DONE), Transition(on="invalid", to=failed(StopReason.OUTPUT_INVALID))],
        )
    )
    states.append(State(id=DONE, kind="terminal", terminal=Terminal(status=TaskState.COMPLETED, stop_reason=StopReason.COMPLETED)))
    referenced = {t.to for s in states for t in s.transitions}
    for reason in StopReason:
        if reason is not StopReason.COMPLETED and failed(reason) in referenced:
            states.append(State(id=failed(reason), kind="terminal", terminal=Terminal(status=reason.final_state, stop_reason=reason)))

    tool_names = sorted(set(recipe.tools.allow or registry.names) | {s.tool for s in states if s.tool})
    recipe_json = json.dumps(recipe.model_dump(mode="json", by_alias=True), sort_keys=True, ensure_ascii=False)
    timeouts = recipe.guards.timeouts
    return Plan(
        recipe={"name": recipe.name, "version": recipe.version, "digest": "sha256:" + hashlib.sha256(recipe_json.encode()).hexdigest()},
        goal=recipe.goal,
        inputs={name: spec.model_dump(mode="json") for name, spec in recipe.inputs.items()},
        intent=recipe.intent.model_dump(mode="json"),
        intent_guard=recipe.guards.intentGuard.model_dump(mode="json"),
        target=recipe.target.model_dump(mode="json"),
        limits=Limits(
            max_steps=recipe.guards.max_steps,
            max_replans=recipe.guards.max_replans,
            no_progress_window=recipe.guards.no_progress_window,
            step_timeout_ms=timeouts.step_ms,
            verify_timeout_ms=timeouts.verify_ms,
            click_result_timeout_ms=timeouts.click_result_ms,
            run_timeout_ms=timeouts.run_ms,
        ),
        tools=ToolPolicy(
            allowed=sorted(recipe.tools.allow) if recipe.tools.allow is not None else None,
            needs_approval=sorted(needs_approval),
            scopes={name: registry.scope_of(name).value for name in tool_names},
        ),
        fallback={
            "search_url": recipe.fallback.search_url,
            "queries": query_ladder(recipe),
            "max_results": recipe.fallback.max_results,
            "result_selector": recipe.fallback.result_selector,
            "wait_for": recipe.fallback.wait_for.model_dump(mode="json", exclude_none=True) if recipe.fallback.wait_for else None,
        },
        output_schema=recipe.output.schema_,
        output_values=recipe.output.values,
        initial="intent.preflight",
        states=states,
    )
