"""Bindings of features/browser_tabs.feature: popups tracked with their opener while the primary
tab stays the default, and switch_tab, close_tab and new_tab moving it on purpose."""

from __future__ import annotations

import re

from pytest_bdd import parsers, scenarios, then, when

from tests.browser.harness import SessionHarness, last
from tests.fixtures.site_server import FixtureSite

scenarios("browser_tabs.feature")


# --- popups ----------------------------------------------------------------------------------------


@then("the result reports a new tab opened by the primary tab")
def _new_tab(harness: SessionHarness) -> None:
    opened = last(harness).data["opened_tabs"]
    assert len(opened) == 1, opened
    assert opened[0]["opener_tab_id"] == harness.session.primary_tab_id
    assert opened[0]["tab_id"] != harness.session.primary_tab_id
    harness.results["new_tab"] = opened[0]["tab_id"]


@then(parsers.parse('a tab event "{kind}" was emitted for it'))
def _tab_event(harness: SessionHarness, kind: str) -> None:
    assert any(e.kind == kind and e.tab_id == harness.results["new_tab"] for e in harness.tab_events)


@then(parsers.parse('the new tab shows "{text}"'))
def _new_tab_shows(harness: SessionHarness, text: str) -> None:
    tab_id = harness.results["new_tab"]
    result = harness.run(harness.session.wait("text_includes", text, tab_id=tab_id, timeout_ms=5000))
    assert result.ok, result.error
    # The default target is still the primary tab, not the popup that just opened.
    assert harness.run(harness.session.snapshot()).value.tab_id == harness.session.primary_tab_id


@then(parsers.parse("the new tab's URL contains \"{fragment}\""))
def _new_tab_url(harness: SessionHarness, fragment: str) -> None:
    tab_id = harness.results["new_tab"]
    result = harness.run(harness.session.wait("url", fragment, tab_id=tab_id, timeout_ms=5000))
    assert result.ok, result.error


# --- moving and closing tabs (BROWSER-041) --------------------------------------------------------------


@when("I make the new tab the primary tab")
def _switch(harness: SessionHarness) -> None:
    result = harness.run(harness.session.switch_tab(harness.results["new_tab"]))
    assert result.ok and result.data["primary_tab_id"] == harness.results["new_tab"], result


@then("an action that names no tab acts in the new tab")
def _acts_in_new(harness: SessionHarness) -> None:
    assert harness.session.primary_tab_id == harness.results["new_tab"]
    snapshot = harness.run(harness.session.snapshot()).value
    assert (snapshot.tab_id, snapshot.title) == (harness.results["new_tab"], "Popup target")


@when("I close the new tab")
def _close_new(harness: SessionHarness) -> None:
    result = harness.run(harness.session.close_tab(harness.results["new_tab"]))
    assert result.ok and result.data["closed"] is True, result
    harness.results["closed"] = result


@then("the first tab is the primary tab again and an action that names no tab acts in it")
def _first_again(harness: SessionHarness) -> None:
    first = harness.results["closed"].data["opener_tab_id"]
    assert harness.session.primary_tab_id == first == harness.results["closed"].data["primary_tab_id"]
    snapshot = harness.run(harness.session.snapshot()).value
    assert (snapshot.tab_id, snapshot.title) == (first, "Popups")
    assert harness.session.tabs[harness.results["new_tab"]].closed


@then(parsers.re(r"the tab events were (?P<kinds>.*), each naming the primary tab after it$"))
def _tab_events_in_order(harness: SessionHarness, kinds: str) -> None:
    new, first = harness.results["new_tab"], harness.session.primary_tab_id
    seen = [(e.kind, e.tab_id, e.primary_tab_id) for e in harness.tab_events if e.kind != "navigated"]
    assert [kind for kind, _, _ in seen] == re.findall(r'"([^"]*)"', kinds)
    assert seen == [("opened", new, first), ("primary", new, new), ("primary", first, first), ("closed", new, first)]


@then(parsers.parse("closing the session's only open tab fails with \"{code}\""))
def _last_tab_stays(harness: SessionHarness, code: str) -> None:
    result = harness.run(harness.session.close_tab(harness.session.primary_tab_id))
    assert not result.ok and result.error.code.value == code, result
    assert harness.run(harness.session.snapshot()).value.title == "Popups"


@when("I open a new tab")
def _open_new_tab(harness: SessionHarness) -> None:
    result = harness.run(harness.session.new_tab())
    assert result.ok, result.error
    harness.results["new_tab"] = result.data["tab_id"]
    assert result.data["primary_tab_id"] == harness.session.primary_tab_id != result.data["tab_id"]
    # The session's own incognito context: its policy proxy and storage, not the browser's default.
    context = harness.session.tab(result.data["tab_id"]).page.target.browserContext
    assert context is harness.session.tab().page.target.browserContext and context._id


@then(parsers.parse('a tab event "{kind}" was emitted for it with no opener'))
def _opened_without_opener(harness: SessionHarness, kind: str) -> None:
    assert [(e.kind, e.opener_tab_id) for e in harness.tab_events if e.tab_id == harness.results["new_tab"]] == [(kind, None)]


@then(parsers.parse('opening "{path}" in the new tab shows "{title}" there and leaves the primary tab on "{primary_title}"'))
def _open_in_new_tab(harness: SessionHarness, site: FixtureSite, path: str, title: str, primary_title: str) -> None:
    tab_id = harness.results["new_tab"]
    opened = harness.run(harness.session.in_tab(tab_id).open_url(site.url(path)))
    assert opened.ok and opened.tab_id == tab_id, opened
    assert harness.run(harness.session.in_tab(tab_id).snapshot()).value.title == title
    assert harness.run(harness.session.snapshot()).value.title == primary_title


@then(parsers.parse('the tab event "{kind}" names the new tab at "{path}"'))
def _navigated_event(harness: SessionHarness, kind: str, path: str) -> None:
    urls = [e.url for e in harness.tab_events if e.kind == kind and e.tab_id == harness.results["new_tab"]]
    assert urls and urls[-1].endswith(path), urls
