"""Browser-area fixtures and the steps shared by the browser feature files.

The shared Chromium, its loop thread and the fixture site come from tests/fixtures/browser_loop.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, then, when

from runtime.artifacts import ArtifactStore
from runtime.browser import Browser, TabEvent, open_session
from tests.browser.harness import SessionHarness, find_element, last, page_text, remember
from tests.fixtures.browser_loop import LoopThread
from tests.fixtures.site_server import FixtureSite


@pytest.fixture
def harness(loop_thread: LoopThread, shared_browser: Browser, tmp_path: Path) -> Iterator[SessionHarness]:
    if shared_browser.crashed:
        pytest.fail(f"the shared browser crashed in an earlier test (Chromium pid {shared_browser.pid}, exit status {shared_browser.exit_code})")
    artifacts = ArtifactStore(tmp_path / "run")
    events: list[TabEvent] = []
    session = loop_thread.run(open_session(shared_browser, artifacts=artifacts, on_tab_event=events.append))
    yield SessionHarness(loop_thread, session, artifacts, events)
    loop_thread.run(session.stop())


# --- steps shared by the browser feature files ---------------------------------------------------

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
