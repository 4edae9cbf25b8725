"""`evaluate` (tool browser_evaluate): run the step's script in the page, keep its JSON result as
`{steps.<id>.result}` and, for each key the step declares in `fields`, `{steps.<id>.<key>}`.

Its result is a value read from the page like an extract's: the script runs only on a document
that would pass validation now (reads/provenance.py: a page rewritten into a wall, a new document
or a refused page path stops the step with that blocker), and the result keeps its provenance."""

from __future__ import annotations

from runtime.execute.context.run_context import RunContext
from runtime.execute.reads.provenance import current_document
from runtime.execute.reads.refused_path import stop_refused_path
from runtime.execute.step_outcome import StepResult
from runtime.plan.model import State
from runtime.plan.state_kinds import EVALUATE_RESULT_MAX_BYTES


async def evaluate(ctx: RunContext, state: State) -> StepResult:
    params = state.params
    timeout = ctx.timeout_for(state)
    try:
        args = ctx.values.value(params.get("args", {}))
    except KeyError as missing:
        return StepResult("error", False, summary=f"evaluate: no value {missing} yet", error="missing_value")
    world = params.get("world", "isolated")
    document = await current_document(ctx, state.id, timeout)
    if document.blocked is not None:
        return document.blocked
    ran = await ctx.browser.run_action(
        "browser_evaluate",
        f"run a page script in the {world} world",
        lambda s, a: s.evaluate(params["script"], args=args, world=world, max_bytes=EVALUATE_RESULT_MAX_BYTES, action_id=a, timeout_ms=timeout),
    )
    if not ran.ok:
        assert ran.error is not None
        return StepResult("error", False, summary=f"evaluate failed: {ran.error.code.value}: {ran.error.message}", error=ran.error.code.value, evidence={"error": ran.error.to_dict()})
    refused = stop_refused_path(ctx, state.id)
    if refused is not None:  # the script's page path was refused while it ran: keep nothing
        return refused
    result = ran.data.get("result")
    declared = list(params.get("fields", []))
    if declared and (not isinstance(result, dict) or any(key not in result for key in declared)):
        keys = sorted(result) if isinstance(result, dict) else type(result).__name__
        return StepResult(
            "error", False, summary=f"evaluate: the result lacks declared field(s) {declared} (got {keys})", error="missing_field", evidence={"result": result}
        )
    values = {"result": result, **{key: result[key] for key in declared}}
    ctx.values.record_step(state, values, {"url": ran.data.get("url", ""), "world": world, "document": document.provenance.get("document")})
    shown = repr(result)
    return StepResult(
        "ok", True, verified=True, summary=f"script ran in the {world} world: {shown[:160]}",
        evidence={"result": result, "size": ran.data.get("size"), "world": world, "provenance": document.provenance},
    )
