"""Fixtures and shared steps of the login area: runs on the shared Chromium through the executor's
runner (tests/execute/conftest.py), the scripted Gemini server and the MiniWoB++ pages."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, then

from runtime.browser import Browser
from runtime.execute import BrowserProvider
from tests.execute.conftest import ExecRunner
from tests.fixtures.browser_loop import LoopThread
from tests.fixtures.gemini_fixtures import FIXTURE_API_KEY
from tests.fixtures.miniwob_server import MiniwobSite, SUITE_EPISODE_MS


@pytest.fixture
def runner(loop_thread: LoopThread, shared_browser: Browser, tmp_path: Path) -> ExecRunner:
    return ExecRunner(loop_thread, BrowserProvider(browser=shared_browser), tmp_path / "runs")


@pytest.fixture(scope="module")
def miniwob_site() -> Iterator[MiniwobSite]:
    with MiniwobSite(episode_ms=SUITE_EPISODE_MS) as served:
        yield served


@given("the MiniWoB++ pages on loopback")
def miniwob_pages(miniwob_site: MiniwobSite) -> None:
    assert miniwob_site.port > 0


@given("a Gemini server on loopback and an API key in the environment")
def gemini_ready(gemini_env: dict[str, str]) -> None:
    assert gemini_env["GEMINI_API_KEY"] == FIXTURE_API_KEY


@then(parsers.parse('the run ends "{status}" with stop reason "{reason}"'))
def run_ends(runner: ExecRunner, status: str, reason: str) -> None:
    record = runner.last
    assert record is not None and record.verdict is not None
    assert (record.verdict.status.value, record.verdict.stop_reason.value) == (status, reason), record.verdict.summary


@then(parsers.parse('the verdict names blocker "{blocker}"'))
def verdict_blocker(runner: ExecRunner, blocker: str) -> None:
    verdict = runner.last.verdict
    assert verdict.blocker_kind is not None and verdict.blocker_kind.value == blocker, verdict
