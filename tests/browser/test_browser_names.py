"""Binds features/browser_names.feature: accessible names and roles, CSS through shadow roots and
the reasons a click is refused (by an action and in a run), in real Chromium against the pages under
tests/fixtures/site/names/ (each page says its expected verdict in a comment)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pytest_bdd import parsers, scenarios, then, when

from runtime.browser import ActionErrorCode, Browser, Target
from runtime.execute import BrowserProvider
from tests.browser.harness import SessionHarness, last, remember
from tests.execute.conftest import ExecRunner
from tests.fixtures.browser_loop import LoopThread
from tests.fixtures.site_server import FixtureSite

scenarios("browser_names.feature")


@when(parsers.parse("I resolve the locator {locator}"))
def resolve(harness: SessionHarness, locator: str) -> None:
    tab = harness.session.tab()

    async def find() -> object:
        try:
            return await tab.resolve(Target.from_params(json.loads(locator)))
        except Exception as exc:  # noqa: BLE001 - the Then step reads what was raised
            return exc

    harness.results["resolved"] = harness.run(find())


@when(parsers.parse("I click the locator {locator}"))
def click(harness: SessionHarness, locator: str) -> None:
    remember(harness, harness.run(harness.session.click(json.loads(locator))))


@then(parsers.parse('it finds the element marked "{mark}" as {role} "{name}" among {count:d} match'))
def found_marked(harness: SessionHarness, mark: str, role: str, name: str, count: int) -> None:
    resolved = harness.results["resolved"]
    assert not isinstance(resolved, Exception), resolved
    chosen = resolved.how["chosen"]
    assert (chosen["role"], resolved.how["matches"]) == (role, count), resolved.how
    # The listing caps a name at 120 characters; the match above compared the whole name.
    assert chosen["name"] == name[:120], resolved.how
    marked = harness.run(harness.session.tab().call_on(resolved, "function() { return this.dataset.case || null; }"))
    assert marked == mark, f"the locator found the element marked {marked!r}, not {mark!r}"


@then(parsers.parse('the snapshot shows one {role} "{name}"'))
def snapshot_shows(harness: SessionHarness, role: str, name: str) -> None:
    result = harness.run(harness.session.snapshot())
    assert result.ok, result.error
    shown = [e for e in result.value.elements if e.role == role and e.name == name[:120]]
    listed = "\n".join(e.describe() for e in result.value.elements)
    assert len(shown) == 1, f"{len(shown)} {role} {name!r} in the snapshot:\n{listed}"


@then(parsers.parse('the action failed with "{code}" listing {count:d} candidates'))
def failed_listing(harness: SessionHarness, code: str, count: int) -> None:
    result = last(harness)
    assert not result.ok and result.error is not None and result.error.code.value == code, result
    assert result.error.details["count"] == count and len(result.error.details["candidates"]) == count, result.error


@then(parsers.parse("the candidates are {candidates}"))
def candidates_are(harness: SessionHarness, candidates: str) -> None:
    error = last(harness).error
    assert error is not None and error.code is ActionErrorCode.AMBIGUOUS_TARGET, error
    listed = ", ".join(f'{c["role"]} "{c["name"]}"' for c in error.details["candidates"])
    assert listed == candidates, listed


@then(parsers.parse('the action failed with "{code}" saying "{why}"'))
def failed_saying(harness: SessionHarness, code: str, why: str) -> None:
    result = last(harness)
    assert not result.ok and result.error is not None and result.error.code.value == code, result
    assert f"is {why};" in result.error.message, result.error.message
    assert result.error.details["state"] == why.replace(" ", "_"), result.error.details


@then(parsers.parse('the page says it clicked "{mark}"'))
def page_says_clicked(harness: SessionHarness, mark: str) -> None:
    result = last(harness)
    assert result.ok, result.error
    said = harness.run(harness.session.tab().evaluate("document.getElementById('said').textContent"))
    assert said == f"clicked {mark}", said


@then("the page says nothing was clicked")
def nothing_clicked(harness: SessionHarness) -> None:
    said = harness.run(harness.session.tab().evaluate("document.getElementById('said').textContent"))
    assert said == "", said


@pytest.fixture
def runner(loop_thread: LoopThread, shared_browser: Browser, tmp_path: Path) -> ExecRunner:
    return ExecRunner(loop_thread, BrowserProvider(browser=shared_browser), tmp_path / "runs")


@when(parsers.parse('I run the recipe "{name}" against the fixture site'))
def run_recipe(runner: ExecRunner, site: FixtureSite, name: str) -> None:
    runner.wait(runner.start(name, {"site": site.base_url}), timeout=120)


@then(parsers.parse('the run ends "{status}" with stop reason "{reason}"'))
def run_ends(runner: ExecRunner, status: str, reason: str) -> None:
    verdict = runner.last.verdict
    assert (verdict.status.value, verdict.stop_reason.value) == (status, reason), verdict


def _record(runner: ExecRunner, state_id: str) -> dict:
    [record] = [e for e in runner.last.file("executions.json") if e["state_id"] == state_id]
    return record


@then(parsers.parse('the state "{state_id}" failed with "{code}" saying "{why}"'))
def state_failed_saying(runner: ExecRunner, state_id: str, code: str, why: str) -> None:
    record = _record(runner, state_id)
    assert record["outcome"] == "error" and record["error"] == code, record
    assert f"is {why};" in json.dumps(record), record


@then(parsers.parse('the state "{state_id}" ended "{outcome}"'))
def state_ended(runner: ExecRunner, state_id: str, outcome: str) -> None:
    record = _record(runner, state_id)
    assert record["outcome"] == outcome, record
