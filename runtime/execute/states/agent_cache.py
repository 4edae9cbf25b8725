"""An agent step through the verified action cache (issue 34): the path a verified execution of
the step took replays without the model, judged as the step itself is judged.

Each cached step runs as the same step written in a recipe runs (plan/learned_steps.py compiles
it), so an act must show its own effect (or its `expect`), a wait must end, an extract must find
its fields; then the step's `done_when` is read on a validated document. The first thing that
does not hold (an exception, a proof that fails, a `done_when` unmet: a click that landed on the
wrong element is caught here even when it did something) hands the step to its model from that
point, which is told what the replay did. Only a verified execution is learned: its path (the
replayed steps that held, then the model's) replaces the entry. A secret is in an entry only as
its `{input}` placeholder; a text the model typed that is the value of an input the step names
becomes that input's placeholder, so the path replays with other values.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from typing import Any

from runtime.events import StepFinished
from runtime.execute.agent.fixed_part import declaration_payload
from runtime.execute.agent.offered_tools import TARGET_HELP, offered_tools
from runtime.execute.context.action_cache import normalised_url
from runtime.execute.context.run_context import RunContext
from runtime.execute.reads.judged_conditions import judge_conditions
from runtime.execute.states.act import act
from runtime.execute.states.extract import extract
from runtime.execute.states.navigate import navigate
from runtime.execute.states.wait import wait
from runtime.execute.step_outcome import RunStopped, StepResult
from runtime.llm import build_agent_prompt
from runtime.outcomes import StopReason
from runtime.plan.learned_steps import NotReplayable, learned_steps, placeholders_in, recipe_text, replay_states
from runtime.plan.model import State
from runtime.plan.state_kinds import ACT, EXTRACT, NAVIGATE, WAIT
from runtime.store.action_cache import CacheEntry, CacheKey
from runtime.template.expressions import ExpressionError

_HANDLERS = {ACT: act, WAIT: wait, EXTRACT: extract, NAVIGATE: navigate}


@dataclass
class Replay:
    """How a cached path went: `result` when it verified the step; else `briefing` tells the model
    where the replay stopped. `kept` are the cached steps that held before it stopped."""

    result: StepResult | None = None
    briefing: str = ""
    kept: list[dict[str, Any]] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)


class CachedAgentStep:
    """One execution of one agent state, as the run's cache lets it: `replay()` before its model,
    `learn()` after a verified execution."""

    def __init__(self, ctx: RunContext, state: State) -> None:
        self.ctx = ctx
        self.state = state
        self.cache = ctx.action_cache
        self.key: CacheKey | None = None

    async def replay(self) -> Replay | None:
        """The cached path replayed, or None when there is none to replay (or the switch says not to)."""
        cache, state = self.cache, self.state
        if cache.store is None or self.ctx.model.driven is not None:
            # A model its client drives (verity mcp's browser sessions) is that client's own
            # session, call by call: it is neither replayed nor learned.
            return None
        self.key = self._key()
        if not cache.reads:
            cache.note(state.id, outcome=cache.mode, key=self.key.digest)
            return None
        entry = await cache.find(state.id, self.key)
        if entry is None:
            cache.note(state.id, outcome="missed", key=self.key.digest)
            self._report("missed", True, f"no cached path for {state.id} (key {self.key.digest}): its model will act")
            return None
        return await self._replay(entry)

    async def learn(self, result: StepResult, replay: Replay | None, turns: list[dict[str, Any]]) -> None:
        """Store the path of a verified execution (and only of one) under the step's key."""
        cache, state = self.cache, self.state
        if not result.verified or not cache.writes or self.key is None:
            return
        try:
            steps = (replay.kept if replay is not None else []) + self._generalised(learned_steps(turns))
            replay_states(steps, self.ctx.plan, state)  # only a path that compiles and fills only inputs is kept
        except NotReplayable as why:
            cache.note(state.id, learned=False, not_learned=str(why))
            return
        if any(value and value in json.dumps(steps, ensure_ascii=False) for value in self.ctx.secrets.values()):
            # learned_steps writes a typed secret as its placeholder; a value anywhere else is refused.
            cache.note(state.id, learned=False, not_learned="the path holds a secret value")
            return
        if await cache.remember(state.id, CacheEntry(self.key, steps, self.ctx.events.run_id)):
            cache.note(state.id, learned=True, learned_steps=len(steps))
            self._report("learned", True, f"learned {len(steps)} step(s) of {state.id} into the action cache (key {self.key.digest})")

    def _key(self) -> CacheKey:
        ctx, state = self.ctx, self.state
        params = state.params
        ctx.model.require()
        settings = ctx.model.settings[state.id]
        tools = offered_tools(params.get("tools"), ctx.uploads.names)
        # The model, the prompt's fixed part, the tools it is offered and the step as written.
        signature = {
            "model": [settings.provider, settings.model],
            "prompt": build_agent_prompt("", tools, tool_notes=TARGET_HELP),
            "tools": declaration_payload(tools),
            "step": {key: params.get(key) for key in ("task", "done_when", "max_steps", "tools")},
        }
        digest = hashlib.sha256(json.dumps(signature, sort_keys=True, default=str).encode()).hexdigest()[:16]
        return CacheKey(ctx.plan.recipe["name"], state.id, normalised_url(self._start_url()), tuple(sorted(self._input_names())), digest)

    def _start_url(self) -> str:
        session = self.ctx.browser.current
        tab = session.tabs.get(self.ctx.browser.tabs.acting_id) if session is not None else None
        return tab.url if tab is not None and tab.url else str(self.ctx.values.values.get("start_url", ""))

    def _input_names(self) -> set[str]:
        """The inputs the step's task and done_when name (names only: values never key a path)."""
        named = placeholders_in([self.state.params.get("task"), self.state.params.get("done_when")])
        return set(named) & set(self.ctx.plan.inputs)

    def _generalised(self, steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Texts equal to the value of an input the step names become that input's placeholder."""
        values = {recipe_text(str(v)): "{" + name + "}" for name in sorted(self._input_names()) if (v := self.ctx.values.values.get(name)) not in (None, "")}

        def general(value: Any) -> Any:
            if isinstance(value, str):
                return values.get(value, value)
            if isinstance(value, dict):
                return {k: general(v) for k, v in value.items()}
            if isinstance(value, list):
                return [general(v) for v in value]
            return value

        return [general(step) for step in steps]

    async def _replay(self, entry: CacheEntry) -> Replay:
        ctx, state = self.ctx, self.state
        assert self.key is not None
        began = time.perf_counter()
        try:
            states = replay_states(entry.steps, ctx.plan, state)
        except NotReplayable as why:
            return self._fell_back(Replay(), 0, len(entry.steps), str(why))
        replay = Replay()
        blocker, failure = ctx.recovery.blocker, (ctx.findings.failure, dict(ctx.findings.failure_evidence))
        try:
            for n, (body, replayed) in enumerate(zip(entry.steps, states, strict=True), 1):
                result = await self._run_one(replayed)
                self._report(result.outcome, result.ok, f"cached step {n}/{len(states)}: {result.summary}", replayed.id)
                if not result.ok:
                    return self._fell_back(replay, n, len(states), f"cached step {n} ({replayed.kind}) failed: {result.summary}")
                replay.kept.append(body)
            judged = await judge_conditions(ctx, state.id, ctx.timeout_for(state), list(state.params.get("done_when", [])), state.id, f"the cached path of {state.id}")
        finally:
            # A replayed step speaks for the agent step only through it: its own findings go.
            for replayed in states:
                ctx.findings.verified(replayed.id)
            ctx.recovery.blocker = blocker
            ctx.findings.failure, ctx.findings.failure_evidence = failure
        if not judged.held:
            return self._fell_back(replay, len(states), len(states), f"every cached step held, but {judged.judged}")
        await self.cache.replayed(self.key)
        ctx.findings.verified(state.id)
        elapsed = round((time.perf_counter() - began) * 1000, 1)
        replay.facts = {"outcome": "replayed", "key": self.key.digest, "steps": len(states), "model_calls": 0, "learned_in_run": entry.run_id}
        self.cache.note(state.id, **replay.facts)
        summary = f"replayed {len(states)} cached step(s) without the model in {elapsed} ms, and {judged.judged}"
        self._report("replayed", True, summary)
        evidence = {"action_cache": replay.facts, "conditions": judged.checks, "provenance": judged.provenance}
        replay.result = StepResult("verified", True, verified=True, summary=summary, evidence=evidence)
        return replay

    async def _run_one(self, replayed: State) -> StepResult:
        """One cached step, through the guards a model's call passes (tools.allow, the intent
        guard, approvals, the step budget), then its handler; a no_progress stop is its failure."""
        ctx = self.ctx
        tool = replayed.tool
        if tool is not None:
            ctx.tools.authorize(tool, self.state.id)
            if tool in ctx.plan.tools.needs_approval:
                await ctx.tools.approve_state(replayed, ctx.values.params(replayed))
        ctx.budget.ensure_left(f"the cached step {replayed.id} was next")
        ctx.budget.agent_calls += 1
        try:
            result = await _HANDLERS[replayed.kind](ctx, replayed)
        except RunStopped as stopped:
            if stopped.reason is not StopReason.NO_PROGRESS:
                raise
            result = StepResult("no_progress", False, summary=stopped.detail, evidence=stopped.evidence)
        except ExpressionError as failed:
            result = StepResult("error", False, summary=f"an expression failed: {failed}", error="expression_failed")
        if tool is not None:
            ctx.guard.on_settled(tool, result.ok)
        if result.ok and replayed.kind == EXTRACT:  # the fields are the agent step's, as its model's extract makes them
            fields = result.evidence.get("fields") or {}
            ctx.values.record_step(self.state, {name: read.get("value") for name, read in fields.items()}, {"url": result.evidence.get("url"), "cached": True})
        return result

    def _fell_back(self, replay: Replay, at: int, total: int, why: str) -> Replay:
        """The cached path stopped at step `at`: the model takes the step over from the page as it is."""
        assert self.key is not None
        self.ctx.progress.reset()  # the replay's signatures are not the model's
        replay.facts = {"outcome": "fell_back", "key": self.key.digest, "failed_at": at, "steps": total, "reason": why}
        self.cache.note(self.state.id, **replay.facts)
        self._report("fell_back", False, f"the cached path of {self.state.id} fell back to its model: {why}")
        done = f"its first {len(replay.kept)} step(s) held and are done; " if replay.kept else ""
        replay.briefing = (
            f"A path cached from an earlier run was replayed for this step and did not verify: {done}{why}.\n"
            "Continue from the page as it is now; the step's own checks judge the page when you close."
        )
        return replay

    def _report(self, outcome: str, ok: bool, summary: str, state_id: str | None = None) -> None:
        if state_id is None and outcome in ("replayed", "fell_back", "missed") and self.ctx.recorder.span is not None:
            self.ctx.spans.note_action_cache(self.ctx.recorder.span, outcome)
        self.ctx.events.emit(
            StepFinished(state_id=state_id or self.state.id, step_kind="agent.cache", outcome=outcome, ok=ok, verified=False, duration_ms=0.0, observation_summary=summary)
        )

