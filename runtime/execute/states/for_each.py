"""`for_each`: the loop head. On entry it counts the items (a list value, or the elements a
locator matches, at most `max_items`); each visit then starts the next item (`item`: the body
runs with `{vars.<as>}` and `{vars.<as>_index}`) until none is left (`done`: the flow goes on, and
`{steps.<loop>.count}` says how many ran). Body states are recorded as `<id>[<item>]`."""

from __future__ import annotations

from typing import Any

from runtime.execute.context.run_context import RunContext
from runtime.execute.context.loops import LoopFrame
from runtime.execute.step_outcome import StepResult
from runtime.plan.model import State


async def for_each(ctx: RunContext, state: State) -> StepResult:
    params = state.params
    name = params["as"]
    frame = ctx.loops.frames.get(state.id)
    if frame is None:
        started = await _start(ctx, state)
        if isinstance(started, StepResult):
            return started
        frame = ctx.loops.frames[state.id] = started
    frame.index += 1
    store = ctx.values.store
    if frame.index < len(frame.items):
        item = frame.items[frame.index]
        store.set_var(name, item, {"state": state.id, "item": frame.index})
        store.set_var(f"{name}_index", frame.index, {"state": state.id, "item": frame.index})
        if frame.targets:
            store.elements[name] = frame.targets[frame.index]
        return StepResult("item", True, verified=True, summary=f"item {frame.index + 1} of {len(frame.items)}: {item!r}"[:200], evidence={"index": frame.index, "item": item})
    del ctx.loops.frames[state.id]
    store.elements.pop(name, None)
    ctx.values.record_step(state, {"count": len(frame.items)}, {})
    cut = f" ({frame.matched} matched; max_items {params['max_items']} left {frame.matched - len(frame.items)} out)" if frame.matched > len(frame.items) else ""
    return StepResult("done", True, verified=True, summary=f"ran {len(frame.items)} item(s){cut}", evidence={"count": len(frame.items), "matched": frame.matched})


async def _start(ctx: RunContext, state: State) -> LoopFrame | StepResult:
    params = state.params
    limit = int(params["max_items"])
    if "values" in params:
        try:
            items = ctx.values.value(params["values"])
        except KeyError as missing:
            return StepResult("error", False, summary=f"for_each: no value {missing} yet", error="missing_value")
        if not isinstance(items, list):
            return StepResult("error", False, summary=f"for_each: {params['values']} is {type(items).__name__}, not a list", error="not_a_list")
        return LoopFrame(items=list(items[:limit]), matched=len(items))
    locator = ctx.values.locator(params["elements"]) or {}
    texts = await _element_texts(ctx, state, locator, limit)
    if isinstance(texts, StepResult):
        return texts
    kept = texts[:limit]
    return LoopFrame(items=kept, matched=len(texts), targets=[{**locator, "index": i} for i in range(len(kept))])


async def _element_texts(ctx: RunContext, state: State, locator: dict[str, Any], limit: int) -> list[str] | StepResult:
    """The matching elements' texts in document order; one more than `limit` at most for locators
    the driver reads one by one (enough to say the loop was cut)."""
    timeout = ctx.timeout_for(state)
    if set(locator) == {"css"}:
        fields = {"items": {"selector": locator["css"], "all": True}}
        found = await ctx.browser.run_action("extract", f"count {locator}", lambda s, a: s.extract(fields, action_id=a, timeout_ms=timeout))
        if not found.ok:
            assert found.error is not None
            return StepResult("error", False, summary=f"for_each could not read {locator}: {found.error.message}", error=found.error.code.value)
        return [str(text) for text in found.data.get("fields", {}).get("items") or []]
    texts: list[str] = []
    for index in range(limit + 1):
        fields = {"item": {"target": {**locator, "index": index}}}
        found = await ctx.browser.run_action("extract", f"read {locator} #{index}", lambda s, a: s.extract(fields, action_id=a, timeout_ms=timeout))
        if not found.ok:
            assert found.error is not None
            return StepResult("error", False, summary=f"for_each could not read {locator}: {found.error.message}", error=found.error.code.value)
        value = found.data.get("fields", {}).get("item")
        if value is None:
            break
        texts.append(str(value))
    return texts
