"""Binds features/verdict_churn_ledger.feature: acts with no `expect` run for real (Chromium, pages
on loopback, the executor as users run it) beside changes slower than the baseline watch, judged
with the churn ledger (churn_ledger.py, effects.py). The recipes wait for what the page shows
(its clocks ticked twice), never for time, so each verdict holds on every run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.browser import Browser
from runtime.execute import BrowserProvider
from tests.execute.conftest import ExecRunner, RunRecord
from tests.fixtures.browser_loop import LoopThread
from tests.fixtures.site_server import FixtureSite

scenarios("verdict_churn_ledger.feature")


@pytest.fixture
def runner(loop_thread: LoopThread, shared_browser: Browser, tmp_path: Path) -> ExecRunner:
    return ExecRunner(loop_thread, BrowserProvider(browser=shared_browser), tmp_path / "runs")


@pytest.fixture
def case() -> dict[str, Any]:
    return {"records": []}


@given(parsers.parse('the churn page "{page}"'))
def the_page(case: dict[str, Any], site: FixtureSite, page: str) -> None:
    case["start_url"] = site.url(f"/act_effects/{page}")


def _start(runner: ExecRunner, case: dict[str, Any], tmp_path: Path, shown: str, locator: str, clicks: int, number: int) -> RunRecord:
    """Start a run that opens the page, waits until it shows `shown`, then clicks `clicks` times with no expectation."""
    acts = [{"id": f"act{n}", "act": {"click": json.loads(locator)}} for n in range(1, clicks + 1)]
    recipe = {
        "name": "churn-ledger-case",
        "goal": "用浏览器 click beside what the page changes by itself",
        "target": {"start_url": case["start_url"], "allow_private_network": True},
        "plan": [{"id": "open", "navigate": "{start_url}"}, {"id": "shown", "wait": {"text": shown}}, *acts, {"close": None}],
    }
    path = tmp_path / f"case{number}.yaml"
    path.write_text(yaml.safe_dump(recipe, allow_unicode=True), encoding="utf-8")
    # An absolute name: ExecRunner joins it to its recipe folder, which keeps it as it is.
    return runner.start(str(path.with_suffix("")), {})


@when(parsers.parse('{runs:d} runs each wait for "{shown}" and click {locator} with no expectation'))
def runs_click(runner: ExecRunner, case: dict[str, Any], tmp_path: Path, runs: int, shown: str, locator: str) -> None:
    # The runs go side by side, each in its own tab: most of a run is the page's clocks ticking,
    # and each tab's verdict is its own (the primary tab of a run is kept in front).
    started = [_start(runner, case, tmp_path, shown, locator, 1, number) for number in range(runs)]
    case["records"] += [runner.wait(record, timeout=60) for record in started]


@when(parsers.parse('a run waits for "{shown}" and clicks {locator} {clicks:d} times with no expectation'))
def run_clicks(runner: ExecRunner, case: dict[str, Any], tmp_path: Path, shown: str, locator: str, clicks: int) -> None:
    case["records"].append(runner.wait(_start(runner, case, tmp_path, shown, locator, clicks, 0), timeout=60))


@when(
    "a run starts the page's episode by a page script, selects all with an expectation, then clicks "
    '{"css": "#bold"} with no expectation'
)
def run_own_steps(runner: ExecRunner, case: dict[str, Any], tmp_path: Path) -> None:
    recipe = {
        "name": "churn-own-steps",
        "goal": "用浏览器 make the editor's text bold",
        "target": {"start_url": case["start_url"], "allow_private_network": True},
        "tools": {"allow": ["open_url", "browser_wait", "browser_evaluate", "browser_click", "browser_verify", "close"]},
        "plan": [
            {"id": "open", "navigate": "{start_url}"},
            {"id": "drawn", "wait": {"text": "hello world"}},
            {"id": "episode", "evaluate": {"world": "main", "script": "startEpisode();"}},
            {"id": "started", "wait": {"text": "episode started"}},
            {"id": "select", "act": {"click": {"css": "#select"}, "expect": {"element": {"css": "#selected", "state": "visible"}}}},
            {"id": "act1", "act": {"click": {"css": "#bold"}}},
            {"close": None},
        ],
    }
    path = tmp_path / "own-steps.yaml"
    path.write_text(yaml.safe_dump(recipe, allow_unicode=True), encoding="utf-8")
    case["records"].append(runner.wait(runner.start(str(path.with_suffix("")), {}), timeout=60))


def _last_act_evidence(record: RunRecord) -> str:
    """The checks of the run's last act (message and what was observed)."""
    acts = [r for r in record.file("executions.json") if str(r.get("state_id", "")).startswith("act")]
    assert acts, record.verdict.summary
    checks = (acts[-1].get("evidence") or {}).get("checks") or []
    assert checks, acts[-1]
    return json.dumps([{"message": c["message"], "observed": c["observed"]} for c in checks], ensure_ascii=False)


@then(parsers.parse('every run ends "{reason}"'))
def every_run_ends(case: dict[str, Any], reason: str) -> None:
    records: list[RunRecord] = case["records"]
    assert records
    ended = [(r.verdict.stop_reason.value, r.verdict.summary) for r in records]
    print(f"churn ledger runs: {[stop for stop, _ in ended]}")
    assert all(stop == reason for stop, _ in ended), ended
    assert all((r.verdict.status.value == "completed") == (reason == "completed") for r in records), ended


@then(parsers.parse("every run's evidence says \"{words}\""))
def every_evidence_says(case: dict[str, Any], words: str) -> None:
    records: list[RunRecord] = case["records"]
    assert records
    for record in records:
        evidence = _last_act_evidence(record)
        assert words in evidence, evidence
