"""A step's conditions judged on a validated document, by a check the run does itself (never by a
model's word): a repair's judge of the step it repaired, and a replayed cached path's judge of
the agent step it stood in for. A document replaced while the conditions were read is checked
and read again, as any read is (reads/provenance.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from runtime.events import ToolUsed
from runtime.execute.context.run_context import RunContext
from runtime.execute.judges.conditions import check_all, describe_failures
from runtime.execute.reads.provenance import READ_ATTEMPTS, current_document, read_from

OBSERVED_CHARS = 80


@dataclass(frozen=True)
class ConditionsJudged:
    checks: list[dict[str, Any]]
    held: bool
    # One line a person reads: which conditions of the step hold, or which fail and why.
    judged: str
    provenance: dict[str, Any] = field(default_factory=dict)


async def judge_conditions(ctx: RunContext, state_id: str, timeout: int, conditions: list[dict[str, Any]], owner: str, about: str) -> ConditionsJudged:
    """Whether all `conditions` of the step `owner` (unfilled: the judge fills them) hold on the
    tab's validated document; `about` says in the verify events what is being judged."""
    for _ in range(READ_ATTEMPTS):
        document = await current_document(ctx, state_id, timeout)
        if document.blocked is not None:
            return ConditionsJudged([], False, f"the page is blocked: {document.blocked.summary}")
        action_id = ctx.browser.new_action_id("verify")
        ctx.events.emit(ToolUsed(tool="verify", action_id=action_id, phase="start", summary=f"{about}: {len(conditions)} condition(s)", tab_id=ctx.browser.tabs.acting_id))
        checks = await check_all(await ctx.probe(timeout), conditions, action_id)
        if all(read_from(document.provenance, c.document) for c in checks):
            break
    held = all(c.passed for c in checks)
    ctx.events.emit(ToolUsed(tool="verify", action_id=action_id, phase="success", summary=f"{sum(c.passed for c in checks)}/{len(checks)} passed", tab_id=ctx.browser.tabs.acting_id))
    judged = f"all {len(checks)} condition(s) of {owner} hold" if held else f"{owner}'s conditions fail: {describe_failures(checks, OBSERVED_CHARS)}"
    return ConditionsJudged([c.to_dict() for c in checks], held, judged, dict(document.provenance or {}))
