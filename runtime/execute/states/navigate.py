"""`navigate`: open the step's URL and prepare the page; the observation is what later states read."""

from __future__ import annotations

from runtime.execute.context.run_context import RunContext
from runtime.execute.step_outcome import StepResult
from runtime.execute.judges.target_check import PageObservation
from runtime.plan.model import State


async def navigate(ctx: RunContext, state: State) -> StepResult:
    url = ctx.values.text(state.params["url"]) or ""
    judgement = ctx.network.judge(url)
    if not judgement.allowed:  # judged before Chromium is asked: a refused URL never loads
        return observed(ctx, ctx.browser.refuse(state.id, url, judgement), thinking=f"judge {url} before opening it")
    observation = await ctx.browser.open_and_prepare(state.id, url, ctx.timeout_for(state))
    return observed(ctx, observation, thinking=f"open {url} and prepare the page")


def observed(ctx: RunContext, observation: PageObservation, thinking: str) -> StepResult:
    """Keep a fresh observation as the run's page, and say what it shows (or why it failed)."""
    ctx.page.saw(observation)
    if observation.error_code:
        summary = f"could not load {observation.url}: {observation.error_code}: {observation.error_message}"
        return StepResult("error", False, summary=summary, thinking=thinking, error=observation.error_code, evidence=observation.evidence())
    summary = f"{observation.url} HTTP {observation.status} {observation.title!r}: {observation.snippet[:120]}"
    return StepResult("ok", True, summary=summary, thinking=thinking, evidence=observation.evidence())
