"""Plain tests for details the scenarios do not spell out: params errors, artifacts, targets."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.browser.harness import SessionHarness
from runtime.artifacts import ArtifactError, ArtifactStore
from runtime.browser import Action, ActionErrorCode, BrowserActionError, ObservationContext, Target
from tests.fixtures.site_server import FixtureSite


def test_artifacts_are_content_addressed_and_checked(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path)
    first = store.put("text", b"hello", "text/plain")
    again = store.put("text", b"hello", "text/plain")
    other = store.put("text", b"world", "text/plain")
    assert first == again and first.id != other.id
    assert first.id.startswith("text-") and first.size == 5 and store.read(first.id) == b"hello"
    Path(first.path).write_bytes(b"tampered")
    with pytest.raises(ArtifactError, match="sha256"):
        store.read(first)
    with pytest.raises(ArtifactError, match="invalid artifact kind"):
        store.put("Bad Kind", b"x", "text/plain")


def test_a_target_needs_exactly_one_way_to_find_the_element() -> None:
    with pytest.raises(BrowserActionError) as none_given:
        Target.from_params({})
    assert none_given.value.error.code is ActionErrorCode.INVALID_PARAMS
    with pytest.raises(BrowserActionError, match="unknown keys"):
        Target.from_params({"ref": "s1:e1", "colour": "red"})
    assert Target.from_params("s2:e3").ref == "s2:e3"
    assert Target.from_params({"role": "button", "name": "Save"}).kind == "role"


def test_observation_context_with_a_tiny_budget_still_cuts(tmp_path: Path) -> None:
    context = ObservationContext(max_chars=5)
    context.add_snapshot("s1", "abcdefghij")
    assert context.render_text() == "abcde"


def test_bad_actions_get_typed_errors(harness: SessionHarness, site: FixtureSite) -> None:
    session = harness.session
    unknown = harness.run(session.perform(Action(name="teleport", action_id="a1")))
    assert unknown.error is not None and unknown.error.code is ActionErrorCode.UNKNOWN_ACTION
    missing_url = harness.run(session.perform(Action(name="open_url", action_id="a2")))
    assert missing_url.error is not None and missing_url.error.code is ActionErrorCode.INVALID_PARAMS
    assert "params.url" in missing_url.error.message
    wrong_session = harness.run(session.perform(Action(name="snapshot", action_id="a3", session_id="other")))
    assert wrong_session.error is not None and wrong_session.error.code is ActionErrorCode.INVALID_PARAMS
    bad_tab = harness.run(session.perform(Action(name="snapshot", action_id="a4", tab_id="t99")))
    assert bad_tab.error is not None and "t99" in bad_tab.error.message
    reused = harness.run(session.perform(Action(name="observe", action_id="a1")))
    assert reused.error is not None and "already used" in reused.error.message
    bad_ref = harness.run(session.click("not-a-ref"))
    assert bad_ref.error is not None and bad_ref.error.code is ActionErrorCode.INVALID_PARAMS


def test_select_reports_the_available_options(harness: SessionHarness, site: FixtureSite) -> None:
    harness.run(harness.session.open_url(site.url("/form.html")))
    result = harness.run(harness.session.select({"css": "#colour"}, label="Purple cover"))
    assert result.error is not None and result.error.code is ActionErrorCode.NOT_FOUND
    assert {"value": "blue", "label": "Blue cover"} in result.error.details["options"]


def test_stopped_session_refuses_actions(harness: SessionHarness, site: FixtureSite) -> None:
    closed = harness.run(harness.session.close("done"))
    assert closed.ok and closed.data["summary"] == "done"
    after = harness.run(harness.session.snapshot())
    assert after.error is not None and after.error.code is ActionErrorCode.SESSION_CLOSED


def test_large_readable_text_goes_to_an_artifact(harness: SessionHarness, site: FixtureSite) -> None:
    harness.run(harness.session.open_url(site.url("/article.html")))
    # 300 KB of article text: above the 256 KB inline limit.
    script = ("(() => { const p = document.querySelector('article p'); "
              "p.textContent = 'Harbour tides and patient fishermen. '.repeat(8500); })()")
    harness.run(harness.session.tab().evaluate(script))
    result = harness.run(harness.session.prepare_page())
    assert result.ok, result.error
    prepared = result.value
    assert prepared.text == "" and prepared.text_artifact is not None
    assert prepared.html_artifact is not None
    assert b"patient fishermen" in harness.artifacts.read(prepared.text_artifact)


def test_reads_use_the_world_chromium_announced_for_the_document(harness: SessionHarness, site: FixtureSite) -> None:
    """A loaded document's driver world is known from Chromium's own events: preparing the page,
    extracting from it and fingerprinting it ask Chromium neither for the frame tree nor for a
    world (each read used to cost a Page.getFrameTree round trip first)."""
    session = harness.session
    assert harness.run(session.open_url(site.url("/article.html"))).ok
    tab = session.tab()
    sent: list[str] = []
    send = tab.cdp.send

    def counting_send(method: str, params: dict[str, Any] | None = None) -> Any:
        sent.append(method)
        return send(method, params)

    tab.cdp.send = counting_send
    try:
        prepared = harness.run(session.prepare_page())
        extracted = harness.run(session.extract({"heading": {"target": {"css": "h1"}}}))
        fingerprint = harness.run(session.fingerprint())
    finally:
        tab.cdp.send = send
    assert prepared.ok and prepared.data["title"] == "The quiet harbour"
    assert extracted.ok and extracted.data["fields"] == {"heading": "The quiet harbour"}
    assert fingerprint.ok and fingerprint.data["url"] == site.url("/article.html")
    assert "Runtime.evaluate" in sent
    assert "Page.getFrameTree" not in sent and "Page.createIsolatedWorld" not in sent, sent


def test_a_read_after_going_back_sees_the_document_shown(harness: SessionHarness, site: FixtureSite) -> None:
    """Going back may restore the earlier document from the back-forward cache, world and all;
    the announced world follows it, so what is read is the document the tab shows."""
    session = harness.session
    assert harness.run(session.open_url(site.url("/article.html"))).ok
    assert harness.run(session.open_url(site.url("/index.html"))).ok
    tab = session.tab()

    async def go_back() -> tuple[str, str]:
        history = await tab.cdp.send("Page.getNavigationHistory")
        earlier = history["entries"][history["currentIndex"] - 1]
        await tab.cdp.send("Page.navigateToHistoryEntry", {"entryId": earlier["id"]})
        while tab.documents.url != site.url("/article.html"):
            await asyncio.sleep(0.02)
        while await tab.ready_state() != "complete":
            await asyncio.sleep(0.02)
        return await tab.title(), await tab.current_url()

    title, url = harness.run(go_back(), timeout=30)
    assert (title, url) == ("The quiet harbour", site.url("/article.html"))
    assert harness.run(session.prepare_page()).data["title"] == "The quiet harbour"
