"""Binds features/execute_miniwob.feature: MiniWoB++ recipes in recipes/miniwob/, one seed per
task, against the instrumented pages (tests/fixtures/miniwob_server.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from tests.execute.conftest import ExecRunner
from tests.execute.miniwob_runs import Judged, judge
from tests.fixtures.miniwob_server import MiniwobSite, SUITE_EPISODE_MS

scenarios("execute_miniwob.feature")


@pytest.fixture(scope="module")
def miniwob_site() -> Iterator[MiniwobSite]:
    with MiniwobSite(episode_ms=SUITE_EPISODE_MS) as served:
        yield served


@pytest.fixture
def case() -> dict:
    return {}


@given("the MiniWoB++ pages on loopback")
def pages(miniwob_site: MiniwobSite) -> None:
    assert miniwob_site.port > 0


@when(parsers.parse('I run the recipe for "{task}" with seed {seed:d}'))
def run_task(runner: ExecRunner, miniwob_site: MiniwobSite, case: dict, task: str, seed: int) -> None:
    episode = miniwob_site.new_episode()
    record = runner.wait(runner.start(f"recipes/miniwob/{task}", {"base": miniwob_site.base(episode), "seed": str(seed)}), timeout=120)
    case["judged"] = judge(miniwob_site, episode, task, seed, record.verdict)
    case["summary"] = record.verdict.summary


@then("a completed run ended the task's episode")
def episode_ended(case: dict) -> None:
    judged: Judged = case["judged"]
    if judged.completed:
        assert judged.reward is not None, f"completed, but the episode never ended: {case['summary']}"
    if judged.reward is not None:
        assert judged.reward.task == f"{judged.task}.html" and judged.reward.seed == str(judged.seed)


@then("the verdict agrees with the reward")
def agrees(case: dict) -> None:
    judged: Judged = case["judged"]
    assert judged.agrees, f"{judged.disagreement}: verdict {judged.stop_reason}, reward {judged.reward}; {case['summary']}"
