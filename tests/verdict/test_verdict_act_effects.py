"""Binds features/verdict_act_effects.feature: acts with no `expect` run for real (Chromium, pages
on loopback, the executor as users run it) and judged by the act's own effect (effects.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.browser import Browser
from runtime.execute import BrowserProvider
from tests.execute.conftest import ExecRunner, RunRecord
from tests.execute.miniwob_runs import Judged, judge
from tests.fixtures.browser_loop import LoopThread
from tests.fixtures.miniwob_server import MiniwobSite, SUITE_EPISODE_MS
from tests.fixtures.site_server import FixtureSite

scenarios("verdict_act_effects.feature")

RECIPES = Path(__file__).resolve().parents[1] / "fixtures" / "recipes" / "act_effects"


@pytest.fixture
def runner(loop_thread: LoopThread, shared_browser: Browser, tmp_path: Path) -> ExecRunner:
    return ExecRunner(loop_thread, BrowserProvider(browser=shared_browser), tmp_path / "runs")


@pytest.fixture(scope="module")
def miniwob_site() -> Iterator[MiniwobSite]:
    with MiniwobSite(episode_ms=SUITE_EPISODE_MS) as served:
        yield served


@pytest.fixture
def case() -> dict[str, Any]:
    return {}


@given(parsers.parse('the act-effects page "{page}"'))
def the_page(case: dict[str, Any], site: FixtureSite, page: str) -> None:
    case["start_url"] = site.url(f"/act_effects/{page}")


def _run_act(runner: ExecRunner, case: dict[str, Any], tmp_path: Path, act: dict[str, Any]) -> None:
    """A recipe that opens the page and makes the one act, with no expectation: the default check."""
    recipe = {
        "name": "act-effects-case",
        "goal": "用浏览器 act once on the page",
        "target": {"start_url": case["start_url"], "allow_private_network": True},
        # The act's effect is judged after its settle (effects.py), before the first check: a
        # later re-check sees nothing new on these pages. 1.5 s (the honesty corpus's window)
        # instead of the default 5 s the unverified cases would wait out.
        "guards": {"timeouts": {"verify_ms": 1500}},
        "plan": [{"id": "open", "navigate": "{start_url}"}, {"id": "act", "act": act}, {"close": None}],
    }
    path = tmp_path / "case.yaml"
    path.write_text(yaml.safe_dump(recipe, allow_unicode=True), encoding="utf-8")
    # An absolute name: ExecRunner joins it to its recipe folder, which keeps it as it is.
    case["record"] = runner.wait(runner.start(str(path.with_suffix("")), {}), timeout=60)


@when(parsers.parse("a run clicks {locator} with no expectation"))
def run_click(runner: ExecRunner, case: dict[str, Any], tmp_path: Path, locator: str) -> None:
    _run_act(runner, case, tmp_path, {"click": json.loads(locator)})


@when(parsers.parse('a run types "{text}" into {locator} with no expectation'))
def run_type(runner: ExecRunner, case: dict[str, Any], tmp_path: Path, text: str, locator: str) -> None:
    _run_act(runner, case, tmp_path, {"type": json.loads(locator), "text": text})


@when(parsers.parse('a run selects "{value}" in {locator} with no expectation'))
def run_select(runner: ExecRunner, case: dict[str, Any], tmp_path: Path, value: str, locator: str) -> None:
    _run_act(runner, case, tmp_path, {"select": json.loads(locator), "value": value})


def _act_record(case: dict[str, Any]) -> dict[str, Any]:
    record: RunRecord = case["record"]
    acts = [r for r in record.file("executions.json") if r.get("state_id") == "act"]
    assert len(acts) == 1, acts
    return acts[0]


def _act_evidence(case: dict[str, Any]) -> str:
    act = _act_record(case)
    checks = (act.get("evidence") or {}).get("checks") or []
    assert checks, act
    return json.dumps([{"message": c["message"], "observed": c["observed"]} for c in checks], ensure_ascii=False) + act.get("observation_summary", "")


@then(parsers.parse('the run ends "{reason}"'))
def run_ends(case: dict[str, Any], reason: str) -> None:
    verdict = case["record"].verdict
    assert verdict.stop_reason.value == reason, verdict.summary
    assert (verdict.status.value == "completed") == (reason == "completed"), verdict


@then(parsers.parse('the act\'s evidence says "{words}"'))
def evidence_says(case: dict[str, Any], words: str) -> None:
    assert words in _act_evidence(case), _act_evidence(case)


@then(parsers.parse('the act\'s evidence does not say "{words}"'))
def evidence_does_not_say(case: dict[str, Any], words: str) -> None:
    assert words not in _act_evidence(case), _act_evidence(case)


@then(parsers.parse('the act\'s evidence and result do not say "{secret}"'))
def secret_not_shown(case: dict[str, Any], secret: str) -> None:
    act = _act_record(case)
    shown = json.dumps({k: v for k, v in act.items() if k != "params"}, ensure_ascii=False)
    assert "value_changed" in shown or "changed" in shown, shown
    assert "character" not in shown, shown  # not even the secret's length
    assert secret not in shown, shown
    results = [line for line in case["record"].event_lines() if line.get("kind") == "tool_used" and "act" in json.dumps(line)]
    assert results and not any(secret in json.dumps(line.get("payload", {}).get("summary", "")) for line in results), results


@given("the MiniWoB++ pages on loopback")
def miniwob_pages(miniwob_site: MiniwobSite) -> None:
    assert miniwob_site.port > 0


@when(parsers.parse('I run the act-effects recipe "{recipe}" for "{task}" with seed {seed:d}'))
def run_miniwob(runner: ExecRunner, miniwob_site: MiniwobSite, case: dict[str, Any], recipe: str, task: str, seed: int) -> None:
    episode = miniwob_site.new_episode()
    record = runner.wait(runner.start(str(RECIPES / recipe), {"base": miniwob_site.base(episode), "seed": str(seed)}), timeout=120)
    case["record"] = record
    case["judged"] = judge(miniwob_site, episode, task, seed, record.verdict)


@then("the verdict agrees with the task's reward")
def agrees_with_reward(case: dict[str, Any]) -> None:
    judged: Judged = case["judged"]
    assert judged.agrees, f"{judged.disagreement}: {judged.stop_reason}, reward {judged.reward}; {case['record'].verdict.summary}"


@then("a run that did not complete names the value the time field holds")
def names_held_time(case: dict[str, Any]) -> None:
    judged: Judged = case["judged"]
    print(f"enter-time as written: {judged.stop_reason}, reward {judged.reward}; {case['record'].verdict.summary}")
    if judged.completed:
        return
    act = [r for r in case["record"].file("executions.json") if r.get("state_id") == "time"]
    assert act and act[0]["outcome"] == "unverified", act
    message = act[0]["evidence"]["checks"][0]["message"]
    assert message.startswith("the time field ") and "it holds ''" in message, message


@then("the run completed with raw reward 1")
def completed_with_reward(case: dict[str, Any]) -> None:
    judged: Judged = case["judged"]
    # The task's raw reward: 1 for the right time (the reward it reports is discounted by time taken).
    assert judged.completed and judged.reward is not None and judged.reward.raw_reward == 1, (judged, case["record"].verdict.summary)
