"""Driving the honesty corpus for real: every labelled case run end to end in Chromium against the
corpus site, and each verdict scored against its label.

    outcomes = run_corpus(loop_thread, provider, site, labels, runs_dir)
    tally = Tally.of(outcomes)      # false successes, false failures, kind accuracy

A few runs go at once (each has its own incognito context in the one shared Chromium); no case
depends on timing (labels rule 8), so running them side by side changes no verdict.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from runtime.events import EventLog, FinalVerdict
from runtime.execute import BrowserProvider, start_run
from runtime.outcomes import StopReason
from runtime.plan import prepare_run
from runtime.recipe import load_recipe_with_registry
from tests.fixtures.browser_loop import LoopThread
from tests.fixtures.honesty.site import HonestySite
from tests.verdict.honesty_corpus import Label

RUNS_AT_ONCE = 4
RUN_CEILING_SECONDS = 120


@dataclass
class CaseOutcome:
    """One case's run next to its label."""

    label: Label
    stop_reason: str
    blocker_kind: str | None
    evidence: dict[str, Any]
    output: dict[str, Any]
    run_dir: Path
    summary: str
    problems: list[str] = field(default_factory=list)

    @property
    def completed(self) -> bool:
        return self.stop_reason == StopReason.COMPLETED.value

    @property
    def false_success(self) -> bool:
        return self.completed and self.label.stop_reason != StopReason.COMPLETED.value

    @property
    def false_failure(self) -> bool:
        return self.label.benign and not self.completed

    @property
    def kind_right(self) -> bool:
        return self.stop_reason == self.label.stop_reason and self.blocker_kind == self.label.blocker_kind

    def describe(self) -> str:
        return (
            f"{self.label.id}: got {self.stop_reason}/{self.blocker_kind}, label {self.label.stop_reason}/{self.label.blocker_kind}"
            f"; {'; '.join(self.problems)}; summary: {self.summary[:300]}"
        )


def _score(outcome: CaseOutcome) -> CaseOutcome:
    """Every way the run disagrees with its label, in words."""
    label = outcome.label
    if outcome.stop_reason != label.stop_reason:
        outcome.problems.append(f"stop reason {outcome.stop_reason} != {label.stop_reason}")
    if outcome.blocker_kind != label.blocker_kind:
        outcome.problems.append(f"blocker kind {outcome.blocker_kind} != {label.blocker_kind}")
    for key, value in (label.output or {}).items():
        if outcome.output.get(key) != value:
            outcome.problems.append(f"output {key}={outcome.output.get(key)!r}, expected {value!r}")
    for key, value in (label.evidence or {}).items():
        if outcome.evidence.get(key) != value:
            outcome.problems.append(f"evidence {key}={outcome.evidence.get(key)!r}, expected {value!r}")
    if label.source_path is not None and outcome.completed:
        # Each value's provenance names the validated document it was read from.
        provenance = outcome.evidence.get("provenance") or {}
        for key in label.output or {}:
            record = provenance.get(key) or {}
            url = (record.get("document") or {}).get("url", "")
            if urlsplit(url).path != label.source_path or not record.get("document_validated"):
                outcome.problems.append(f"{key} came from {url or 'no recorded document'} (validated: {record.get('document_validated')}), expected {label.source_path}")
    return outcome


async def _run_case(label: Label, site: HonestySite, provider: BrowserProvider, runs_dir: Path) -> CaseOutcome:
    text = label.recipe.read_text(encoding="utf-8")
    recipe, registry = load_recipe_with_registry(text, str(label.recipe), recipe_path=label.recipe)
    run_dir = runs_dir / label.id
    inputs = {name: value for name, value in site.inputs.items() if name in recipe.inputs}
    order = prepare_run(recipe, inputs, registry=registry, run_id=label.id, run_dir=run_dir)
    events = EventLog(label.id)
    handle = start_run(order, events=events, browser=provider)
    verdict: FinalVerdict = await asyncio.wait_for(asyncio.shield(handle.task), RUN_CEILING_SECONDS)
    output = json.loads((run_dir / "output.json").read_text(encoding="utf-8")).get("data") or {}
    return _score(
        CaseOutcome(
            label=label,
            stop_reason=verdict.stop_reason.value,
            blocker_kind=verdict.blocker_kind.value if verdict.blocker_kind else None,
            evidence=dict(verdict.evidence),
            output=output,
            run_dir=run_dir,
            summary=verdict.summary,
        )
    )


def run_corpus(loop_thread: LoopThread, provider: BrowserProvider, site: HonestySite, labels: list[Label], runs_dir: Path) -> list[CaseOutcome]:
    """Run every case (RUNS_AT_ONCE at a time) and score it against its label."""

    async def run_all() -> list[CaseOutcome]:
        slots = asyncio.Semaphore(RUNS_AT_ONCE)

        async def one(label: Label) -> CaseOutcome:
            async with slots:
                return await _run_case(label, site, provider, runs_dir)

        return list(await asyncio.gather(*(one(label) for label in labels)))

    return loop_thread.run(run_all(), timeout=RUN_CEILING_SECONDS * len(labels))


@dataclass(frozen=True)
class Tally:
    cases: int
    false_successes: int
    false_failures: int
    kinds_right: int
    benign: int

    @classmethod
    def of(cls, outcomes: list[CaseOutcome]) -> Tally:
        return cls(
            cases=len(outcomes),
            false_successes=sum(o.false_success for o in outcomes),
            false_failures=sum(o.false_failure for o in outcomes),
            kinds_right=sum(o.kind_right for o in outcomes),
            benign=sum(o.label.benign for o in outcomes),
        )

    @property
    def kind_accuracy(self) -> float:
        return self.kinds_right / self.cases if self.cases else 0.0

    def line(self) -> str:
        return (
            f"honesty corpus: {self.cases} cases, false successes {self.false_successes}, "
            f"false failures {self.false_failures} of {self.benign} benign, "
            f"kind accuracy {self.kinds_right}/{self.cases} ({self.kind_accuracy:.1%})"
        )
