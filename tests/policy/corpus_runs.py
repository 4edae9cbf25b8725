"""Running the hostile corpus through Verity's run API and comparing each page with its labels.

Pages run a few at a time on one browser (each run is its own session: a browser context with its
own policy proxy), with the off-domain host's count taken per batch. A batch that leaves the count
at 0 proves 0 for each of its pages; a batch that does not is run again page by page, so every
leak is named by its page.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runtime.events import Event, EventLog, FinalVerdict
from runtime.execute import BrowserProvider, start_run
from runtime.plan import prepare_run
from runtime.recipe import RecipeInvalid, load_recipe_with_registry
from tests.fixtures.browser_loop import LoopThread
from tests.fixtures.hostile.site import HostileSite, LabelledPage

CONCURRENT_RUNS = 4
# A refused top-frame navigation (labels.yaml rule 1) and who can have caught it (TopFrameBlock.seen_by).
TOP_FRAME_KINDS = frozenset({"domain_not_allowed", "scheme_not_allowed"})
TOP_FRAME_WATCHERS = frozenset({"judge", "proxy", "commit"})
# Ceilings for a run and for the counter's barrier on a loaded machine, not expected durations.
RUN_CEILING_SECONDS = 120.0
BARRIER_CEILING_SECONDS = 30.0


@dataclass
class PageRun:
    """How one labelled page ended, and what reached the off-domain host while it ran."""

    page: LabelledPage
    stop_reason: str
    blocker_kind: str | None
    value: str | None
    blocked_requests: int
    verdict: dict[str, Any]
    off_domain: int = 0
    off_domain_lines: list[str] = field(default_factory=list)

    def mismatches(self) -> list[str]:
        expect, problems = self.page.expect, []
        if (self.stop_reason, self.blocker_kind) != (expect.stop_reason, expect.blocker_kind):
            problems.append(f"ended {self.stop_reason}/{self.blocker_kind}, labelled {expect.stop_reason}/{expect.blocker_kind}")
        if expect.stop_reason == "completed" and self.value != expect.value:
            problems.append(f"value {self.value!r}, labelled {expect.value!r}")
        bounds = expect.blocked_requests
        if self.refusals < bounds.min or (bounds.max is not None and self.refusals > bounds.max):
            problems.append(
                f"{self.blocked_requests} blocked requests (refusals counted: {self.refusals}), "
                f"labelled {bounds.min}..{bounds.max if bounds.max is not None else ''}"
            )
        if self.off_domain != expect.off_domain_requests:
            problems.append(f"{self.off_domain} connections/requests at the off-domain host: {self.off_domain_lines[:5]}")
        return [f"{self.page.id}: {problem} ({self.verdict.get('summary', '')[:240]})" for problem in problems]

    @property
    def refusals(self) -> int:
        """The refusals labels.yaml rule 5 counts: the proxy's blocked requests, or, for a page
        labelled with a refused top-frame navigation (rule 1), that navigation as the verdict's
        evidence names it. The proxy and the tab's top-frame watch both refuse it; whichever acts
        first ends the path, and the run may close its context before the request ever reaches
        the proxy (refresh-header once did), so either one is the refusal, never both counted."""
        if self.blocked_requests or self.page.expect.blocker_kind not in TOP_FRAME_KINDS:
            return self.blocked_requests
        evidence = self.verdict.get("evidence") or {}
        named = (
            self.stop_reason == self.page.expect.stop_reason
            and evidence.get("blocker_kind") == self.page.expect.blocker_kind
            and evidence.get("seen_by") in TOP_FRAME_WATCHERS
            and bool(evidence.get("url"))
        )
        return 1 if named else 0

    @property
    def false_success(self) -> bool:
        return self.stop_reason == "completed" and self.page.expect.stop_reason != "completed"

    @property
    def kind_right(self) -> bool:
        return self.blocker_kind == self.page.expect.blocker_kind


@dataclass(frozen=True)
class CorpusTotals:
    pages: int
    off_domain_requests: int
    false_successes: int
    kinds_right: int

    @classmethod
    def of(cls, runs: Sequence[PageRun]) -> CorpusTotals:
        return cls(len(runs), sum(r.off_domain for r in runs), sum(r.false_success for r in runs), sum(r.kind_right for r in runs))

    def describe(self, where: str) -> str:
        accuracy = 100 * self.kinds_right / self.pages if self.pages else 0.0
        return (
            f"hostile corpus on {where}: {self.pages} pages, off-domain requests {self.off_domain_requests}, "
            f"false successes {self.false_successes}, blocker kind accuracy {self.kinds_right}/{self.pages} ({accuracy:.1f}%)"
        )


class CorpusRunner:
    """Runs labelled pages of `site` on the browser of `provider`, from synchronous tests."""

    def __init__(self, loop: LoopThread, provider: BrowserProvider, site: HostileSite, runs_dir: Path) -> None:
        self.loop = loop
        self.provider = provider
        self.site = site
        self.runs_dir = runs_dir
        self.recipe_text = site.recipe_text()
        self._count = 0

    def run_all(self, pages: Sequence[LabelledPage]) -> list[PageRun]:
        runs: list[PageRun] = []
        for start in range(0, len(pages), CONCURRENT_RUNS):
            batch = list(pages[start : start + CONCURRENT_RUNS])
            self.site.counter.reset()
            done = self.loop.run(self._run_together(batch), RUN_CEILING_SECONDS * 2)
            leaked = settled_off_domain_count(self.site)
            if leaked.total and len(batch) > 1:
                done = [self.run_one(page) for page in batch]  # name the page that leaked
            elif leaked.total:
                done[0].off_domain, done[0].off_domain_lines = leaked.total, leaked.request_lines
            runs.extend(done)
        return runs

    def run_one(self, page: LabelledPage) -> PageRun:
        self.site.counter.reset()
        run = self.loop.run(self._run(page), RUN_CEILING_SECONDS)
        leaked = settled_off_domain_count(self.site)
        run.off_domain, run.off_domain_lines = leaked.total, leaked.request_lines
        return run

    async def _run_together(self, batch: list[LabelledPage]) -> list[PageRun]:
        return list(await asyncio.gather(*(self._run(page) for page in batch)))

    async def _run(self, page: LabelledPage) -> PageRun:
        self._count += 1
        try:
            done = await run_recipe(self.provider, self.recipe_text, self.site.start_url(page), self.runs_dir / f"{page.id}-{self._count}")
        except RecipeInvalid as refused:
            # The start URL the input gives is no web page: refused when the run starts, before any
            # browser work (invalid_input, each problem coded with the judge's kind).
            codes = {problem.code for problem in refused.problems}
            return PageRun(
                page=page, stop_reason="invalid_input", blocker_kind=codes.pop() if len(codes) == 1 else str(sorted(codes)),
                value=None, blocked_requests=0, verdict={"summary": "; ".join(str(p) for p in refused.problems)},
            )
        return PageRun(
            page=page,
            stop_reason=done.verdict.stop_reason.value,
            blocker_kind=done.verdict.blocker_kind.value if done.verdict.blocker_kind else None,
            value=done.value,
            blocked_requests=int(done.written["blocked_requests"]["count"]),
            verdict=done.written,
        )


@dataclass
class RecipeRun:
    """One finished run: its FinalVerdict, verdict.json, the value read, and every event."""

    verdict: FinalVerdict
    written: dict[str, Any]
    value: str | None
    events: list[Event]


async def run_recipe(
    provider: BrowserProvider, recipe_text: str, page_url: str, run_dir: Path, *, allow_private_network: bool | None = None
) -> RecipeRun:
    """Run a corpus-shaped recipe (input `page_url`, field `quote`) through start_run."""
    recipe, registry = load_recipe_with_registry(recipe_text, "tests/fixtures/hostile/recipe.yaml")
    order = prepare_run(recipe, {"page_url": page_url}, registry=registry, run_id=run_dir.name, run_dir=run_dir)
    events = EventLog(run_dir.name)
    heard: list[Event] = []
    events.add_listener(heard.append)
    handle = start_run(order, events=events, browser=provider, allow_private_network=allow_private_network)
    verdict = await asyncio.wait_for(handle.task, RUN_CEILING_SECONDS)
    written = json.loads((run_dir / "verdict.json").read_text(encoding="utf-8"))
    output = json.loads((run_dir / "output.json").read_text(encoding="utf-8"))
    return RecipeRun(verdict, written, (output.get("data") or {}).get("quote"), heard)


@dataclass(frozen=True)
class Leak:
    total: int
    request_lines: list[str]


def settled_off_domain_count(site: HostileSite) -> Leak:
    """What reached the off-domain host, once every connection made before now was counted: a
    connection of our own on each of its listeners is accepted after the earlier ones, so when
    the count includes ours, theirs are in it too."""
    barrier = site.counter.snapshot().connections
    families = [("127.0.0.1", socket.AF_INET)] + ([("::1", socket.AF_INET6)] if site.off_domain.listens_on_ipv6 else [])
    for host, family in families:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.connect((host, site.off_port))
        barrier += 1
    assert site.counter.wait_for_connections(barrier, BARRIER_CEILING_SECONDS), "the off-domain host never counted the barrier"
    count = site.counter.snapshot()
    return Leak(count.total - len(families), count.request_lines)
