"""Binds features/verdict_honesty_runs.feature: every honesty corpus case run for real (Chromium,
the corpus site on loopback, the executor as users run it) and scored against its label."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.browser import Browser
from runtime.execute import BrowserProvider
from tests.fixtures.browser_loop import LoopThread
from tests.fixtures.honesty.site import HonestySite
from tests.verdict.honesty_corpus import load_labels
from tests.verdict.honesty_runs import CaseOutcome, Tally, run_corpus

scenarios("verdict_honesty_runs.feature")

# A ceiling of its own, not an expected duration: every corpus case is a real run: about 50 s on an idle machine with four workers, several minutes on a loaded one.
pytestmark = pytest.mark.timeout(900)


@pytest.fixture
def corpus() -> dict[str, Any]:
    return {}


@given("the honesty corpus")
def the_corpus(corpus: dict[str, Any]) -> None:
    corpus["labels"] = load_labels()


@given(parsers.parse('the honesty corpus\'s "{prefix}" cases'))
def cases_named(corpus: dict[str, Any], prefix: str) -> None:
    # One class of page, several pages: the cases whose id starts with `prefix`.
    corpus["labels"] = [label for label in load_labels() if label.id.startswith(prefix)]
    assert len(corpus["labels"]) >= 2, prefix


@pytest.fixture(scope="module")
def honesty_site() -> Iterator[HonestySite]:
    with HonestySite() as site:
        yield site


@pytest.fixture(scope="module")
def ran() -> dict[str, CaseOutcome]:
    """The outcome of each case already run by this worker, by case id: the class scenarios check
    cases the whole-corpus scenario runs too, and a case's run does not depend on who asked."""
    return {}


@when("every case runs in Chromium against the corpus site")
def run_every_case(
    corpus: dict[str, Any], loop_thread: LoopThread, shared_browser: Browser, honesty_site: HonestySite, tmp_path: Path,
    ran: dict[str, CaseOutcome],
) -> None:
    missing = [label for label in corpus["labels"] if label.id not in ran]
    for outcome in [] if not missing else run_corpus(loop_thread, BrowserProvider(browser=shared_browser), honesty_site, missing, tmp_path / "runs"):
        ran[outcome.label.id] = outcome
    corpus["outcomes"] = [ran[label.id] for label in corpus["labels"]]


def _outcomes(corpus: dict[str, Any]) -> list[CaseOutcome]:
    return corpus["outcomes"]


@then("the totals are printed")
def totals_printed(corpus: dict[str, Any], request: pytest.FixtureRequest) -> None:
    tally = Tally.of(_outcomes(corpus))
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    lines = [tally.line(), *(f"  {o.describe()}" for o in _outcomes(corpus) if o.problems)]
    for line in lines:
        if reporter is not None:
            reporter.write_line(line)
        else:
            print(line)
    assert tally.cases == len(corpus["labels"]) >= 45


@then("no case ends completed against its label")
def no_false_success(corpus: dict[str, Any]) -> None:
    wrong = [o.describe() for o in _outcomes(corpus) if o.false_success]
    assert not wrong, "\n".join(wrong)


@then("no benign case fails")
def no_false_failure(corpus: dict[str, Any]) -> None:
    wrong = [o.describe() for o in _outcomes(corpus) if o.false_failure]
    assert not wrong, "\n".join(wrong)


@then("every case ends with its labelled stop reason, blocker kind, evidence and values")
def exact(corpus: dict[str, Any]) -> None:
    wrong = [o.describe() for o in _outcomes(corpus) if o.problems]
    assert not wrong, "\n".join(wrong)
