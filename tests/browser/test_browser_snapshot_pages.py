"""Snapshot pages: a ref for every element, pages within budget, paging, filters, the readable-text limit."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.artifacts import ArtifactStore
from runtime.browser import Browser, PreparedPage, Snapshot, SessionPolicy, open_session
from tests.browser.harness import SessionHarness, find_element, remember
from tests.fixtures.browser_loop import LoopThread

scenarios("browser_snapshot_pages.feature")


@pytest.fixture
def pages() -> list[tuple[Snapshot, str, int]]:
    """Every page shown in a scenario: the snapshot page, its rendered text, the max_chars asked."""
    return []


def _show(harness: SessionHarness, pages: list[tuple[Snapshot, str, int]], max_chars: int, **params: object) -> Snapshot:
    result = remember(harness, harness.run(harness.session.snapshot(max_chars=max_chars, **params)))  # type: ignore[arg-type]
    assert result.ok, result.error
    pages.append((result.value, str(result.data["rendered"]), max_chars))
    harness.results["snapshot"] = result.value
    return result.value


@when(parsers.parse("I take a snapshot with at most {count:d} elements and {chars:d} characters"))
def _take(harness: SessionHarness, pages: list, count: int, chars: int) -> None:
    _show(harness, pages, chars, max_elements=count)
    harness.results["first"] = harness.results["snapshot"]


@then(parsers.parse("the snapshot has refs for {total:d} elements, {interactive:d} of them interactive"))
def _refs_for_all(harness: SessionHarness, total: int, interactive: int) -> None:
    snapshot = harness.results["snapshot"]
    assert (snapshot.total_candidates, snapshot.interactive_total, snapshot.matching) == (total, interactive, total)


@then(parsers.parse("the page shows {count:d} elements, interactive first, and says the next page starts at {start:d}"))
def _page_of(harness: SessionHarness, pages: list, count: int, start: int) -> None:
    snapshot, rendered, _ = pages[-1]
    assert len(snapshot.elements) == count and all(e.interactive for e in snapshot.elements)
    assert snapshot.next_start == start and f"next page: start={start}" in rendered
    assert [e.ref for e in snapshot.elements] == [f"{snapshot.snapshot_id}:e{n}" for n in sorted(int(e.ref.split(":e")[1]) for e in snapshot.elements)]


@then(parsers.parse("the page shows fewer than {count:d} elements in at most {chars:d} characters and says where the next page starts"))
def _page_within_chars(harness: SessionHarness, pages: list, count: int, chars: int) -> None:
    snapshot, rendered, _ = pages[-1]
    assert 0 < len(snapshot.elements) < count and len(rendered) <= chars
    assert snapshot.next_start == len(snapshot.elements) and f"next page: start={snapshot.next_start}" in rendered
    # Everything the page holds is in its rendered text: nothing is cut after the page was fitted.
    assert all(e.ref in rendered for e in snapshot.elements) and "beyond" not in rendered


@when("I page through the same snapshot to its end")
def _page_to_end(harness: SessionHarness, pages: list) -> None:
    first, _, chars = pages[-1]
    while pages[-1][0].next_start is not None:
        assert len(pages) < 500, "paging does not end"
        _show(harness, pages, chars, max_elements=400, start=pages[-1][0].next_start, snapshot_id=first.snapshot_id)


@when(parsers.parse('I page through the same snapshot until it shows {role} "{name}"'))
def _page_until(harness: SessionHarness, pages: list, role: str, name: str) -> None:
    first, _, chars = pages[-1]
    while not any(e.role == role and e.name == name for e in pages[-1][0].elements):
        assert pages[-1][0].next_start is not None, f"no page showed {role} {name!r}"
        _show(harness, pages, chars, max_elements=400, start=pages[-1][0].next_start, snapshot_id=first.snapshot_id)
    assert len(pages) > 2, "the element should be on a later page"


@then(parsers.parse("the pages showed {count:d} refs, each exactly once"))
def _each_once(pages: list, count: int) -> None:
    refs = [e.ref for snapshot, _, _ in pages for e in snapshot.elements]
    assert len({snapshot.snapshot_id for snapshot, _, _ in pages}) == 1
    assert len(refs) == count and len(set(refs)) == count


@then(parsers.parse('the pages showed link "Entry 0" to link "Entry {last:d}", link "{named}" and button "{button}"'))
def _showed_all(pages: list, last: int, named: str, button: str) -> None:
    seen = {(e.role, e.name) for snapshot, _, _ in pages for e in snapshot.elements}
    missing = [i for i in range(last + 1) if i != 7 and ("link", f"Entry {i}") not in seen]
    assert not missing, missing[:10]
    assert ("link", named) in seen and ("button", button) in seen


@then(parsers.parse("every page stayed within {chars:d} characters"))
def _within_chars(pages: list, chars: int) -> None:
    assert len(pages) > 5
    assert all(len(rendered) <= chars and all(e.ref in rendered for e in snapshot.elements) for snapshot, rendered, _ in pages)


@when(parsers.parse('I click the ref of {role} "{name}" from the pages'))
def _click_from_pages(harness: SessionHarness, pages: list, role: str, name: str) -> None:
    ref = next(e.ref for snapshot, _, _ in pages for e in snapshot.elements if e.role == role and e.name == name)
    result = remember(harness, harness.run(harness.session.click(ref)))
    assert result.ok, result.error


@when(parsers.parse('I show the same snapshot with {key} "{value}"'))
def _filtered(harness: SessionHarness, pages: list, key: str, value: str) -> None:
    first = harness.results["first"]
    _show(harness, pages, 1_000_000, max_elements=5000, snapshot_id=first.snapshot_id, **{key: value.replace('\\"', '"')})


@when(parsers.parse('I show the same snapshot within the paragraph starting "{text}"'))
def _within_ref(harness: SessionHarness, pages: list, text: str) -> None:
    first = harness.results["first"]
    whole = _show(harness, pages, 1_000_000, max_elements=5000, snapshot_id=first.snapshot_id, role="paragraph")
    paragraph = next(e for e in whole.elements if e.text.startswith(text))
    _show(harness, pages, 1_000_000, max_elements=5000, within=paragraph.ref)


@then(parsers.parse('it lists {count:d} elements, all of role "{role}"'))
def _lists_role(harness: SessionHarness, count: int, role: str) -> None:
    snapshot = harness.results["snapshot"]
    assert len(snapshot.elements) == count == snapshot.matching and snapshot.next_start is None
    assert {e.role for e in snapshot.elements} == {role}


@then(parsers.re(r"it lists (?P<count>\d+) elements$"))
def _lists(harness: SessionHarness, count: str) -> None:
    snapshot = harness.results["snapshot"]
    assert len(snapshot.elements) == int(count) == snapshot.matching, [e.describe() for e in snapshot.elements]


@then(parsers.re(r'it lists (?P<role>[a-z]+) "(?P<name>[^"]*)"$'))
def _lists_one(harness: SessionHarness, role: str, name: str) -> None:
    find_element(harness.results["snapshot"], role, name)


@then(parsers.re(r'it lists (?P<role>[a-z]+) "(?P<name>[^"]*)" and (?P<other_role>[a-z]+) "(?P<other>[^"]*)"$'))
def _lists_two(harness: SessionHarness, role: str, name: str, other_role: str, other: str) -> None:
    find_element(harness.results["snapshot"], role, name)
    find_element(harness.results["snapshot"], other_role, other)


@then(parsers.parse('the snapshot lists the region {label} with {count:d} elements'))
def _region_listed(harness: SessionHarness, pages: list, label: str, count: int) -> None:
    snapshot, rendered, _ = pages[-1]
    assert f"{label} ({count})" in snapshot.landmarks and f"{label} ({count})" in rendered, snapshot.landmarks


# --- the readable-text limit ------------------------------------------------------------------------

@pytest.fixture
def limited(loop_thread: LoopThread, shared_browser: Browser, tmp_path: Path) -> Iterator[dict[str, object]]:
    holder: dict[str, object] = {}
    yield holder
    session = holder.get("session")
    if session is not None:
        loop_thread.run(session.stop())  # type: ignore[attr-defined]


@given(parsers.parse("a browser session whose readable text limit is {limit:d} bytes of HTML"), target_fixture="harness")
def _limited_session(loop_thread: LoopThread, shared_browser: Browser, tmp_path: Path, limited: dict, limit: int) -> SessionHarness:
    policy = SessionPolicy(readable_html_limit_bytes=limit)
    session = loop_thread.run(open_session(shared_browser, artifacts=ArtifactStore(tmp_path / "run"), policy=policy))
    limited["session"] = session
    return SessionHarness(loop_thread, session, ArtifactStore(tmp_path / "run"), [])


@when("I prepare the page")
def _prepare(harness: SessionHarness) -> None:
    result = remember(harness, harness.run(harness.session.prepare_page()))
    assert result.ok, result.error
    harness.results["prepared"] = result


@then(parsers.parse('the readable text is the visible text, with "{text}" in it'))
def _visible_text(harness: SessionHarness, text: str) -> None:
    prepared: PreparedPage = harness.results["prepared"].value
    assert prepared.text_source == "inner_text" and text in prepared.text


@then(parsers.parse("the prepared page says its HTML is over readable_html_limit_bytes={limit}"))
def _says_limit(harness: SessionHarness, limit: str) -> None:
    data = harness.results["prepared"].data
    assert f"readable_html_limit_bytes={limit}" in data["text_note"] and "trafilatura not run" in data["text_note"], data["text_note"]


@then("the prepared page has no readable-text note")
def _no_note(harness: SessionHarness) -> None:
    data = harness.results["prepared"].data
    assert data["text_note"] == "" and data["text"], data
