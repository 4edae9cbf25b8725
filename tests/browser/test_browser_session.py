"""Session guarantees: timeouts, idempotency, serial execution, isolation, the observation
context, and what Chromium builds for a session. A session's tabs are in test_browser_tabs.py;
finding, attaching to and losing Chromium in test_browser_chromium.py."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator
from pathlib import Path

from pytest_bdd import given, parsers, scenarios, then, when

from tests.browser.harness import SessionHarness, page_text, remember
from runtime.artifacts import ArtifactStore
from runtime.browser import Action, Browser, ObservationContext, open_session
from tests.fixtures.site_server import FixtureSite

scenarios("browser_session.feature")


# --- timeouts ----------------------------------------------------------------------------------------


@when(parsers.parse('I open "{path}" with a timeout of {ms:d} ms'))
def _open_with_timeout(harness: SessionHarness, site: FixtureSite, path: str, ms: int) -> None:
    remember(harness, harness.run(harness.session.open_url(site.url(path), timeout_ms=ms)))
    harness.results["timeout_ms"] = ms


# A page that hangs is caught by the harness's own ceiling; what is checked here is that the
# navigation gave up by itself, inside the action's budget, and said so.
@then("the error says the page did not finish loading within the timeout")
def _gave_up_within(harness: SessionHarness) -> None:
    error = harness.results["last"].error
    found = re.search(r"did not finish loading within (\d+) ms", error.message)
    assert found and 0 < int(found.group(1)) <= harness.results["timeout_ms"], error


# --- idempotency and serial execution --------------------------------------------------------------------


@when(parsers.parse('I perform click on "{name}" with action_id "{action_id}"'))
def _click_with_id(harness: SessionHarness, name: str, action_id: str) -> None:
    action = Action(name="act", action_id=action_id,
                    params={"kind": "click", "target": {"role": "button", "name": name}})
    harness.results.setdefault("performed", []).append(harness.run(harness.session.perform(action)))


@then("the second result is a replay of the first")
def _replayed(harness: SessionHarness) -> None:
    first, second = harness.results["performed"]
    assert first.ok and not first.replayed
    assert second.replayed and second.data == first.data


@when(parsers.parse('I submit five clicks on "{name}" at once'))
def _five_at_once(harness: SessionHarness, name: str) -> None:
    async def click(index: int) -> tuple[float, object]:
        result = await harness.session.click({"role": "button", "name": name}, action_id=f"burst-{index}")
        return time.perf_counter(), result

    async def burst() -> list[tuple[float, object]]:
        return list(await asyncio.gather(*(click(i) for i in range(5))))

    harness.results["burst"] = harness.run(burst())


@then("all five succeed without overlapping")
def _no_overlap(harness: SessionHarness) -> None:
    finished = harness.results["burst"]
    assert all(result.ok for _, result in finished)
    ends = [end for end, _ in finished]
    assert ends == sorted(ends), "results came back out of submission order"
    for (previous_end, _), (end, result) in zip(finished, finished[1:]):
        started = end - result.duration_ms / 1000
        assert started >= previous_end - 0.005, "two actions of one session ran at the same time"


# --- isolation -------------------------------------------------------------------------------------------


@given(parsers.parse('a second browser session showing "{path}"'), target_fixture="second")
def _second(harness: SessionHarness, shared_browser: Browser, site: FixtureSite, path: str,
            tmp_path: Path) -> Iterator[SessionHarness]:
    session = harness.run(open_session(shared_browser, artifacts=ArtifactStore(tmp_path / "second")))
    assert harness.run(session.open_url(site.url(path))).ok
    yield SessionHarness(harness.loop_thread, session, harness.artifacts, [])
    harness.run(session.stop())


@when(parsers.parse('the first session stores "{value}" in localStorage'))
def _store(harness: SessionHarness, value: str) -> None:
    harness.run(harness.session.tab().evaluate(f"localStorage.setItem('k', '{value}')"))
    assert harness.run(harness.session.tab().evaluate("localStorage.getItem('k')")) == value


@then("the second session's localStorage has no value")
def _isolated(second: SessionHarness) -> None:
    assert second.run(second.session.tab().evaluate("localStorage.getItem('k')")) is None


# --- observation context ----------------------------------------------------------------------------------


@given("an observation context", target_fixture="context")
def _context() -> ObservationContext:
    return ObservationContext()


@when(parsers.parse('I add observe "o1", snapshot "s1", snapshot "s2", observe "o2" and snapshot "s3" of {size:d} characters'))
def _fill_context(context: ObservationContext, size: int) -> None:
    context.add_observe("o1", "O1 " + "x" * size)
    context.add_snapshot("s1", "S1 " + "y" * size)
    context.add_snapshot("s2", "S2 " + "z" * size)
    context.add_observe("o2", "O2 " + "w" * size)
    context.add_snapshot("s3", "S3 " + "v" * size)


@then(parsers.parse('the rendered context shows "o1" and "s1" as placeholders'))
def _placeholders(context: ObservationContext) -> None:
    rendered = {entry.label: entry.text for entry in context.render()}
    assert rendered["o1"] == "[older observe o1 omitted]"
    assert rendered["s1"] == "[older snapshot s1 omitted]"


@then(parsers.parse('it keeps "s2", "o2" and "s3", each at most {limit:d} characters'))
def _kept(context: ObservationContext, limit: int) -> None:
    rendered = {entry.label: entry.text for entry in context.render()}
    for label in ("s2", "o2", "s3"):
        assert rendered[label].startswith(label.upper()) and len(rendered[label]) <= limit
        assert "[cut " in rendered[label]
    assert [entry.label for entry in context.render()] == ["o1", "s1", "s2", "o2", "s3"]


# --- what Chromium builds for a session ------------------------------------------------------------------


@then("the browser has no browser interface target, in the session's context or any other")
def _no_browser_ui(harness: SessionHarness) -> None:
    # Every kind of target, the hidden ones too (an empty filter entry matches all).
    targets = harness.run(harness.session.browser.send("Target.getTargets", {"filter": [{}]}))["targetInfos"]
    context_id = harness.session.tab().page.target._targetInfo["browserContextId"]
    listed = "\n".join(f"{t['type']} {t.get('browserContextId', '')} {t['url']}" for t in targets)
    assert not [t for t in targets if t["type"] == "browser_ui"], listed
    mine = [t for t in targets if t.get("browserContextId") == context_id]
    assert {t["type"] for t in mine} == {"tab", "page"} and len(mine) == 2, listed


def test_page_text_of_the_primary_tab(harness: SessionHarness, site: FixtureSite) -> None:
    harness.run(harness.session.open_url(site.url("/popups.html")))
    assert "Popups" in page_text(harness)
