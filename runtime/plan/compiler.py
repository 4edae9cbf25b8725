"""Compile a Recipe into a Plan. Pure and deterministic: no clock, no I/O, no randomness."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from runtime.outcomes import StopReason, TaskState
from runtime.plan.model import Limits, Plan, State, Terminal, ToolPolicy, Transition
from runtime.plan.state_kinds import (
    BODY,
    CHECKED_OBSERVATION_ROUTES,
    COMPLETION,
    DONE,
    FAIL,
    FIRST_STEP,
    GUARDED,
    LATEST_REPLAN,
    NEXT,
    OUTPUT,
    PREFLIGHT,
    REPAIR,
    REPLAN,
    REPLANS_EXHAUSTED,
    REPLANS_LEFT,
    STATE_KINDS,
    TARGET_CHECK_CHAIN,
    TERMINAL,
    WHEN,
    At,
    Route,
    StateKindRow,
    repair_routes,
)
from runtime.recipe.model import Recipe
from runtime.recipe.repair import repair_conditions
from runtime.recipe.step_graph import body_ids
from runtime.recipe.step_tools import replan_tool
from runtime.recipe.steps import AGENT_CLOSE_TOOL, Step
from runtime.recipe.tool_registry import AGENT_DEFAULT_TOOLS, UPLOAD_TOOL, ToolRegistry, load_tool_registry



def terminal_id(reason: StopReason) -> str:
    """Generated state ids always contain a dot; recipe step ids cannot, so the two never collide."""
    return f"end.{reason.value}"


DONE_ID = terminal_id(StopReason.COMPLETED)


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

    @property
    def step_id(self) -> str:
        return self.ids[self.index]


def _placed_steps(recipe: Recipe, ids: list[str]) -> list[_Placed]:
    """Every step in document order, each body right after its loop step."""
    placed: list[_Placed] = []
    for i, step in enumerate(recipe.plan):
        placed.append(_Placed(recipe.plan, ids, i, COMPLETION, None, i))
        if step.for_each is not None:
            body, loop_id = step.for_each.do, ids[i]
            placed += [_Placed(body, body_ids(loop_id, body), j, loop_id, loop_id, i) for j in range(len(body))]
    return placed


class _Compiler:
    """One recipe's plan states, each made from its kind's row (state_kinds.py): the compiler
    knows where the routes lead, the rows say which routes a kind has."""

    def __init__(self, recipe: Recipe, registry: ToolRegistry) -> None:
        self.recipe = recipe
        self.registry = registry
        self.ids = recipe.step_ids()
        self.needs_approval = frozenset(recipe.tools.needs_approval) | {t.name for t in registry.tools.values() if t.needs_approval}
        # Without a search page (or replans) the replan touches nothing: it reports exhausted.
        self.search_tool = replan_tool(recipe)
        placed = _placed_steps(recipe, self.ids)
        # A step with `when` is entered through its `<id>.when` state; every jump goes there.
        when = STATE_KINDS[WHEN]
        self.entries = {p.step_id: when.state_id(At(recipe, p.step, p.step_id)) for p in placed if p.step.when is not None}
        self.placed = placed
        self.last_observation: str | None = None

    def states(self) -> list[State]:
        run = At(self.recipe)
        states = [self._state(STATE_KINDS[PREFLIGHT], run, None)]
        for placed in self.placed:
            states += self._step_states(placed)
        states += [self._state(STATE_KINDS[COMPLETION], run, None), self._state(STATE_KINDS[OUTPUT], run, None)]
        states.append(State(id=DONE_ID, kind=TERMINAL, terminal=Terminal(status=TaskState.COMPLETED, stop_reason=StopReason.COMPLETED)))
        referenced = {t.to for s in states for t in s.transitions}
        for reason in StopReason:
            if reason is not StopReason.COMPLETED and terminal_id(reason) in referenced:
                states.append(State(id=terminal_id(reason), kind=TERMINAL, terminal=Terminal(status=reason.final_state, stop_reason=reason)))
        return states

    def _step_states(self, placed: _Placed) -> list[State]:
        step, step_id = placed.step, placed.step_id
        kind = STATE_KINDS[step.kind]
        at = At(self.recipe, step, step_id, self._agent_tools(step), self.search_tool)
        states = [self._state(STATE_KINDS[WHEN], at, placed)] if step.when is not None else []
        if kind.observation and step.validate_target:
            self.last_observation = step_id
            states.append(self._state(kind, at, placed, CHECKED_OBSERVATION_ROUTES))
            return states + [self._state(STATE_KINDS[name], at, placed) for name in TARGET_CHECK_CHAIN]
        if kind.observation:
            self.last_observation = None
        repair = at.repair
        if repair is None or repair_conditions(step.kind, at.body) is None:
            return states + [self._state(kind, at, placed)]
        # Each failure the repair is for leads to `<id>.repair`, an agent judged by the step's own
        # verification; the repair's own failures end the run as the step's would have.
        repairing = At(self.recipe, step, step_id, self._agent_tools(step, default=True), self.search_tool)
        repair_kind = STATE_KINDS[REPAIR]
        unrepaired = tuple(r for r in repair_kind.routes if r.outcome == "repaired" or r.outcome in repair.on)
        return states + [self._state(kind, at, placed, repair_routes(kind.name, kind.routes, repair)), self._state(repair_kind, repairing, placed, unrepaired)]

    def _state(self, kind: StateKindRow, at: At, placed: _Placed | None, routes: tuple[Route, ...] | None = None) -> State:
        tool = kind.tool(at)
        return State(
            id=kind.state_id(at),
            kind=kind.name,
            step=placed.recipe_index if placed else None,
            loop=placed.loop if placed else None,
            tool=tool,
            needs_approval=self._approval(kind, at, tool),
            timeout_ms=kind.timeout(at),
            params=kind.params(at),
            transitions=[t for route in (routes or kind.routes) for t in self._transitions(route, placed)],
            # Every state of a step acts in the step's tab; the step's own state names what it opens.
            tab=at.step.tab if at.step is not None else None,
            names_tab=at.step.as_ if at.step is not None and kind.recipe is not None else None,
        )

    def _approval(self, kind: StateKindRow, at: At, tool: str | None) -> bool:
        """Whether a person confirms the state's tool first: a step's own `needs_approval`, else
        the tool policy (tools.needs_approval and the registry)."""
        if not kind.asks_approval:
            return False
        if kind.recipe is not None and at.step is not None and at.step.needs_approval is not None:
            return at.step.needs_approval
        return tool in self.needs_approval

    def _agent_tools(self, step: Step, default: bool = False) -> list[str] | None:
        """The tools an agent step's model may call: its own list, else seed 002's minimal set as
        far as the recipe allows it (`default`: that set, for a step's repair). `close` is always
        offered: it is how the model finishes."""
        if step.agent is None and not default:
            return None
        if step.agent is not None and step.agent.tools is not None:
            return sorted(set(step.agent.tools) | {AGENT_CLOSE_TOOL})
        allowed = set(self.recipe.tools.allow) if self.recipe.tools.allow is not None else set(self.registry.names)
        if not self.recipe.files:
            allowed.discard(UPLOAD_TOOL)  # nothing it could upload: not worth its declaration
        return sorted({name for name in AGENT_DEFAULT_TOOLS if name in allowed} | {AGENT_CLOSE_TOOL})

    def _entry(self, step_id: str) -> str:
        return self.entries.get(step_id, step_id)

    def _transitions(self, route: Route, placed: _Placed | None) -> list[Transition]:
        if route.to == LATEST_REPLAN:
            assert placed is not None
            return self._blocked(route.outcome, placed)
        return [Transition(on=route.outcome, to=self._target(route, placed), guard=route.guard)]

    def _target(self, route: Route, placed: _Placed | None) -> str:
        if route.to == FAIL:
            assert route.reason is not None
            return self._on_failure(placed, route.reason)
        if route.to == FIRST_STEP:
            return self._entry(self.ids[0])
        if route.to == DONE:
            return DONE_ID
        if route.to in STATE_KINDS:
            return STATE_KINDS[route.to].state_id(At(self.recipe, step_id=placed.step_id if placed else ""))
        assert placed is not None
        if route.to == NEXT:
            return self._after(placed)
        if route.to == GUARDED:
            return placed.step_id
        assert route.to == BODY and placed.step.for_each is not None
        return self._entry(body_ids(placed.step_id, placed.step.for_each.do)[0])

    def _after(self, placed: _Placed) -> str:
        """Where the flow goes after a step succeeds (or is skipped)."""
        step = placed.step
        if step.next is not None:
            return self._entry(step.next)
        if placed.index + 1 < len(placed.steps):
            return self._entry(placed.ids[placed.index + 1])
        return placed.end

    def _on_failure(self, placed: _Placed | None, reason: StopReason) -> str:
        target = placed.step.on_failure if placed else None
        return self._entry(target) if target is not None else terminal_id(reason)

    def _blocked(self, outcome: str, placed: _Placed) -> list[Transition]:
        """Where a step goes when the page it reads is a blocker (a required field missing, or a
        new document that failed revalidation): the latest observation's replan while replans
        are left, then on_failure."""
        if self.last_observation is None:
            return [Transition(on=outcome, to=self._on_failure(placed, StopReason.EXECUTE_ERROR))]
        replan = STATE_KINDS[REPLAN].state_id(At(self.recipe, step_id=self.last_observation))
        return [
            Transition(on=outcome, to=replan, guard=REPLANS_LEFT),
            Transition(on=outcome, to=self._on_failure(placed, StopReason.REPLANS_EXHAUSTED), guard=REPLANS_EXHAUSTED),
        ]


def compile_recipe(recipe: Recipe, registry: ToolRegistry | None = None) -> Plan:
    registry = registry or load_tool_registry(None)
    compiler = _Compiler(recipe, registry)
    states = compiler.states()
    needs_approval = compiler.needs_approval
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
            allowed=sorted(set(recipe.tools.allow)) if recipe.tools.allow is not None else None,
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
        switches=recipe.switches.model_dump(mode="json", exclude_defaults=True),
        initial=PREFLIGHT,
        states=states,
    )
