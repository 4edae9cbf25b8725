"""`replan.search`: seed 001's recovery. Summarize the blocker, walk the fallback's search ladder
(strict to loose), and follow the first untried result on an allowed domain; the page it lands
on is validated again by the plan. Each try is a plan repair in plans.json."""

from __future__ import annotations

import asyncio
from urllib.parse import quote_plus

from runtime.events import Replanned
from runtime.execute.context.run_context import RunContext
from runtime.execute.reads.search_results import read_search_results, same_page
from runtime.execute.step_outcome import StepResult
from runtime.outcomes import BlockerKind
from runtime.plan.model import State
from runtime.policy import judge_url


async def replan_search(ctx: RunContext, state: State) -> StepResult:
    recovery, plan = ctx.recovery, ctx.plan
    recovery.replans_used += 1
    attempt = recovery.replans_used
    ctx.progress.reset()
    blocker_kind = recovery.blocker_kind
    summary_text = recovery.failure_summary()
    recovery.last_failure_summary = summary_text
    search_template = plan.fallback.get("search_url")
    queries = [ctx.values.text(q) or "" for q in plan.fallback.get("queries") or []]
    if not search_template:
        recovery.record_repair(ctx.files, attempt, "", "", "no fallback.search_url: nothing to search")
        ctx.findings.note_failure("no fallback.search_url to search with")
        return StepResult("exhausted", False, summary="no fallback.search_url; cannot search", blocker_kind=blocker_kind)
    timeout = state.timeout_ms or plan.limits.click_result_timeout_ms
    max_results = int(plan.fallback.get("max_results", 5))
    while recovery.query_cursor < len(queries):
        query = queries[recovery.query_cursor]
        recovery.query_cursor += 1
        search_url = ctx.values.with_extra(search_template, query=quote_plus(query))
        ctx.events.emit(Replanned(attempt=attempt, blocker_kind=blocker_kind, failure_summary=summary_text, query=query, url=search_url))
        waited, why = recovery.retry_after_wait(search_url, min(timeout, ctx.budget.run_ms_left(plan.limits.run_timeout_ms)) / 1000)
        if waited < 0:
            recovery.record_repair(ctx.files, attempt, query, search_url, f"not asked: {why}")
            continue
        if waited:
            await asyncio.sleep(waited)
            recovery.record_repair(ctx.files, attempt, query, search_url, why)
        searchable = judge_url(search_url, ctx.network.browser)
        if not searchable.allowed:
            recovery.record_repair(ctx.files, attempt, query, search_url, f"search page refused: {searchable.reason}")
            continue
        page = await ctx.browser.open_and_prepare(state.id, search_url, timeout)
        if page.error_code:
            recovery.record_repair(ctx.files, attempt, query, search_url, f"search page failed: {page.error_code}")
            continue
        found = await read_search_results(ctx, plan.fallback, timeout, query)
        results, settled = found.links, found.settled
        considered = results[:max_results]
        judged = {u: ctx.network.judge(u) for u in considered}
        # A page opened before is tried before, whichever #anchor a result points at.
        opened = {same_page(u) for u in ctx.browser.opened_urls}
        candidates = [u for u in considered if judged[u].allowed and same_page(u) not in opened]
        skipped = {u: ("tried before" if judged[u].allowed else "not allowed") for u in considered if u not in candidates}
        if not candidates:
            recovery.record_repair(ctx.files, attempt, query, search_url, f"no untried result on an allowed domain ({settled})", skipped=skipped)
            continue
        chosen = candidates[0]
        ctx.page.saw(await ctx.browser.open_and_prepare(state.id, chosen, timeout))
        recovery.record_repair(ctx.files, attempt, query, search_url, f"followed {chosen}", chosen=chosen, skipped=skipped)
        summary = f"query {query!r}: followed {chosen}" + (f" (skipped {len(skipped)})" if skipped else "")
        return StepResult(
            "found",
            True,
            summary=summary,
            blocker_kind=blocker_kind,
            thinking=summary_text,
            evidence={
                "query": query,
                "search_url": search_url,
                "followed": chosen,
                "skipped": skipped,
                # Without a result_selector: the best-ranked links and why (see reads/search_results.py).
                "ranked": [link.as_evidence() for link in found.ranked[:max_results]],
            },
        )
    failure = f"searched {len(queries)} quer{'y' if len(queries) == 1 else 'ies'} without an untried allowed-domain result"
    ctx.findings.note_failure(failure)
    return StepResult("exhausted", False, summary=failure, blocker_kind=blocker_kind or BlockerKind.NO_SEARCH_RESULTS, thinking=summary_text)

