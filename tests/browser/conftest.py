"""Browser-area fixtures: one real Chromium per test session, a fresh incognito session per test.

The browser lives on an asyncio loop in a background thread; tests call `run(coro)` so plain
(synchronous) pytest-bdd steps can drive the async driver.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from runtime.artifacts import ArtifactStore  # noqa: E402
from runtime.browser import Browser, BrowserSession, TabEvent, launch_browser  # noqa: E402
from tests.fixtures.site_server import FixtureSite  # noqa: E402

T = TypeVar("T")


class LoopThread:
    """An asyncio loop in a daemon thread; `run` blocks the caller until a coroutine finishes."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="browser-loop", daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 60) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)


@pytest.fixture(scope="session")
def loop_thread() -> Iterator[LoopThread]:
    runner = LoopThread()
    yield runner
    runner.stop()


@pytest.fixture(scope="session")
def site() -> Iterator[FixtureSite]:
    with FixtureSite() as served:
        yield served


@pytest.fixture(scope="session")
def shared_browser(loop_thread: LoopThread) -> Iterator[Browser]:
    browser = loop_thread.run(launch_browser())
    yield browser
    loop_thread.run(browser.close())


class SessionHarness:
    """What a test holds: the session, its artifact store, tab events seen, and `run`."""

    def __init__(self, loop_thread: LoopThread, session: BrowserSession, artifacts: ArtifactStore,
                 tab_events: list[TabEvent]) -> None:
        self.loop_thread = loop_thread
        self.session = session
        self.artifacts = artifacts
        self.tab_events = tab_events
        self.results: dict[str, Any] = {}

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 60) -> T:
        return self.loop_thread.run(coro, timeout)


@pytest.fixture
def harness(loop_thread: LoopThread, shared_browser: Browser, tmp_path: Path) -> Iterator[SessionHarness]:
    if shared_browser.crashed:
        pytest.fail("the shared browser crashed in an earlier test")
    artifacts = ArtifactStore(tmp_path / "run")
    events: list[TabEvent] = []
    session = loop_thread.run(shared_browser.open_session(artifacts=artifacts, on_tab_event=events.append))
    yield SessionHarness(loop_thread, session, artifacts, events)
    loop_thread.run(session.stop())


# --- steps shared by the browser feature files ---------------------------------------------------

from pytest_bdd import given, parsers, then, when  # noqa: E402

from runtime.browser import ActionResult, Snapshot, SnapshotElement  # noqa: E402


def remember(harness: SessionHarness, result: ActionResult) -> ActionResult:
    harness.results["last"] = result
    return result


def last(harness: SessionHarness) -> ActionResult:
    return harness.results["last"]


def find_element(snapshot: Snapshot, role: str, name: str) -> SnapshotElement:
    for element in snapshot.elements:
        if element.role == role and element.name == name:
            return element
    listed = "\n".join(e.describe() for e in snapshot.elements)
    raise AssertionError(f"snapshot {snapshot.snapshot_id} has no {role} {name!r}:\n{listed}")


def page_text(harness: SessionHarness, tab_id: str | None = None) -> str:
    tab = harness.session.tab(tab_id)
    return str(harness.run(tab.evaluate("document.body.innerText")))


@given("a browser session")
def _session(harness: SessionHarness) -> None:
    assert harness.session.primary_tab_id


@given(parsers.parse('a browser session showing "{path}"'))
def _session_showing(harness: SessionHarness, site: FixtureSite, path: str) -> None:
    result = harness.run(harness.session.open_url(site.url(path)))
    assert result.ok, result.error


@when(parsers.parse('I open "{path}"'))
def _open(harness: SessionHarness, site: FixtureSite, path: str) -> None:
    remember(harness, harness.run(harness.session.open_url(site.url(path))))


@given("I take a snapshot")
@given("I take another snapshot")
@when("I take a snapshot")
def _snapshot(harness: SessionHarness) -> None:
    result = remember(harness, harness.run(harness.session.snapshot()))
    assert result.ok, result.error
    harness.results["snapshot"] = result.value


@given(parsers.parse('I take a snapshot and remember the ref of {role} "{name}" as "{label}"'))
def _snapshot_remember(harness: SessionHarness, role: str, name: str, label: str) -> None:
    _snapshot(harness)
    harness.results[f"ref:{label}"] = find_element(harness.results["snapshot"], role, name).ref


@when(parsers.parse('I click the remembered ref "{label}"'))
def _click_remembered(harness: SessionHarness, label: str) -> None:
    remember(harness, harness.run(harness.session.click(harness.results[f"ref:{label}"])))


@given(parsers.parse('I click the element with role "{role}" and name "{name}"'))
@when(parsers.parse('I click the element with role "{role}" and name "{name}"'))
def _click_role(harness: SessionHarness, role: str, name: str) -> None:
    result = remember(harness, harness.run(harness.session.click({"role": role, "name": name})))
    assert result.ok, result.error


@when(parsers.re(r'I click the element with (?P<kind>text|css|xpath) "(?P<value>[^"]*)"'))
def _click_by(harness: SessionHarness, kind: str, value: str) -> None:
    remember(harness, harness.run(harness.session.click({kind: value})))


@when(parsers.parse('I click the snapshot element {role} "{name}"'))
def _click_snapshot_element(harness: SessionHarness, role: str, name: str) -> None:
    ref = find_element(harness.results["snapshot"], role, name).ref
    remember(harness, harness.run(harness.session.click(ref)))


@then("the action succeeds")
def _succeeds(harness: SessionHarness) -> None:
    result = last(harness)
    assert result.ok, result.error


@then(parsers.parse('the action fails with "{code}"'))
def _fails_with(harness: SessionHarness, code: str) -> None:
    result = last(harness)
    assert not result.ok, f"expected {code}, got ok with {result.data}"
    assert result.error is not None and result.error.code.value == code, result.error


@then(parsers.parse('the page shows "{text}"'))
@then(parsers.parse('the page still shows "{text}"'))
def _page_shows(harness: SessionHarness, text: str) -> None:
    assert text in page_text(harness)


@when(parsers.parse('I wait until the page shows "{text}"'))
def _wait_text(harness: SessionHarness, text: str) -> None:
    result = remember(harness, harness.run(harness.session.wait("text_includes", text, timeout_ms=5000)))
    assert result.ok, result.error
