"""Binds features/policy_corpus.feature: the labelled hostile corpus through the run API, on the
suite's launched Chromium and on a second Chromium attached through its DevTools websocket, and
the same kind of pages without a network policy (so the corpus could fail)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, scenario, scenarios, then, when

from runtime.artifacts import ArtifactStore
from runtime.browser import Browser, open_session
from runtime.execute import BrowserProvider
from tests.fixtures.browser_loop import LoopThread
from tests.fixtures.external_chromium import external_chromium
from tests.fixtures.hostile.site import HostileSite, LabelledPage, load_labels
from tests.policy.corpus_runs import CorpusRunner, CorpusTotals, PageRun



# 90 runs on each browser: about a minute and a half on a quiet machine, several on a loaded one,
# so these two scenarios get a generous ceiling of their own.
@pytest.mark.timeout(900)
@scenario("policy_corpus.feature", "Every hostile page ends as labelled on a launched Chromium")
def test_every_hostile_page_ends_as_labelled_on_a_launched_chromium() -> None:
    pass


@pytest.mark.timeout(900)
@scenario("policy_corpus.feature", "Every hostile page ends as labelled on a Chromium attached through --browser-ws")
def test_every_hostile_page_ends_as_labelled_on_a_chromium_attached_through_browser_ws() -> None:
    pass


scenarios("policy_corpus.feature")

# A ceiling for a page without a policy to reach the counting host, not an expected duration.
LEAK_CEILING_SECONDS = 20.0


@pytest.fixture
def corpus() -> dict[str, object]:
    return {}


@given("the hostile corpus and its labels", target_fixture="labels")
def _labels(hostile: HostileSite) -> list[LabelledPage]:
    labels = load_labels()
    assert labels and hostile.counter.snapshot().total == 0
    return labels


@given("a Chromium started with a remote debugging port, attached the way --browser-ws attaches", target_fixture="attached")
def _attached(loop_thread: LoopThread, tmp_path: Path) -> Iterator[BrowserProvider]:
    with external_chromium(tmp_path / "external-profile") as ws_endpoint:
        provider = BrowserProvider(ws_endpoint=ws_endpoint)
        loop_thread.run(provider.start())
        yield provider
        loop_thread.run(provider.close())


@when("every labelled page runs on the launched Chromium")
def _run_launched(loop_thread: LoopThread, shared_browser: Browser, hostile: HostileSite, labels: list[LabelledPage],
                  tmp_path: Path, corpus: dict[str, object]) -> None:
    runner = CorpusRunner(loop_thread, BrowserProvider(browser=shared_browser), hostile, tmp_path / "runs")
    corpus["runs"], corpus["where"] = runner.run_all(labels), "a launched Chromium"


@when("every labelled page runs on the attached Chromium")
def _run_attached(loop_thread: LoopThread, attached: BrowserProvider, hostile: HostileSite, labels: list[LabelledPage],
                  tmp_path: Path, corpus: dict[str, object]) -> None:
    runner = CorpusRunner(loop_thread, attached, hostile, tmp_path / "runs")
    corpus["runs"], corpus["where"] = runner.run_all(labels), "a Chromium attached through --browser-ws"


def _runs(corpus: dict[str, object]) -> list[PageRun]:
    runs = corpus["runs"]
    assert isinstance(runs, list) and runs
    return runs


@then("every page ends with its labelled stop reason, blocker kind and value")
def _outcomes(corpus: dict[str, object]) -> None:
    wrong = [problem for run in _runs(corpus) for problem in run.mismatches() if "blocked requests" not in problem and "off-domain" not in problem]
    assert not wrong, "\n".join(wrong)


@then("every page refused as many requests as its labels say")
def _blocked(corpus: dict[str, object]) -> None:
    wrong = [problem for run in _runs(corpus) for problem in run.mismatches() if "blocked requests" in problem]
    assert not wrong, "\n".join(wrong)


@then("the off-domain host received nothing during any page")
def _nothing_leaked(corpus: dict[str, object]) -> None:
    leaked = [f"{run.page.id}: {run.off_domain} ({run.off_domain_lines[:3]})" for run in _runs(corpus) if run.off_domain]
    assert not leaked, "\n".join(leaked)


@then("the totals are printed: off-domain requests, false successes and blocker kind accuracy")
def _totals(corpus: dict[str, object]) -> None:
    totals = CorpusTotals.of(_runs(corpus))
    print(totals.describe(str(corpus["where"])))
    assert (totals.off_domain_requests, totals.false_successes, totals.kinds_right) == (0, 0, totals.pages), totals


# --- without a network policy ---------------------------------------------------------------------------


@when(parsers.parse('the corpus page "{page_id}" is opened in a browser session without a network policy'))
def _open_without_policy(loop_thread: LoopThread, shared_browser: Browser, hostile: HostileSite, page_id: str, tmp_path: Path) -> None:
    page = next(p for p in load_labels() if p.id == page_id)
    session = loop_thread.run(open_session(shared_browser, artifacts=ArtifactStore(tmp_path / "unguarded")))
    try:
        loop_thread.run(session.open_url(hostile.start_url(page), timeout_ms=20_000))
        loop_thread.run(session.open_url("about:blank"))  # pagehide: the unload beacons go now
        hostile.counter.wait_for_connections(1, LEAK_CEILING_SECONDS)
    finally:
        loop_thread.run(session.stop())


@then("the off-domain host received at least one connection")
def _leaked(hostile: HostileSite) -> None:
    count = hostile.counter.snapshot()
    assert count.connections >= 1, count
