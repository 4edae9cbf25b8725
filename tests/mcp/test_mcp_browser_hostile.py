"""Bindings of features/mcp_browser_hostile.feature: sessions of the SDK's own client drive `verity
mcp --http --allowed-domains 127.0.0.1` through pages of the hostile corpus (tests/fixtures/hostile),
whose off-domain host (evil.localhost, on loopback) counts every connection it receives, and
through the WebRTC fence page (tests/fixtures/webrtc), whose UDP peers count every datagram."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import mcp_types as types
import pytest
from pytest_bdd import given, parsers, scenarios, then, when
from tests.fixtures.hostile.site import HostileSite
from tests.fixtures.webrtc.site import WebRtcSite
from tests.mcp.mcp_harness import HeldClient, call_tool, client_page, page_text, ref_in, tool_result

scenarios("mcp_browser_hostile.feature")

# The off-domain host's answer to every page; a page that shows it has read past the fence.
OFF_DOMAIN_QUOTE = "Q-6666"


@pytest.fixture(scope="module")
def hostile() -> Iterator[HostileSite]:
    with HostileSite() as site:
        yield site


@pytest.fixture(scope="module")
def webrtc() -> Iterator[WebRtcSite]:
    with WebRtcSite() as site:
        yield site


@pytest.fixture
def context() -> dict[str, Any]:
    return {}


def _open(sessions: dict[str, HeldClient], hostile: HostileSite, context: dict[str, Any], path: str) -> types.CallToolResult:
    context["answer"] = call_tool(sessions["hostile"], "browser_navigate", {"url": hostile.allowed_url(hostile.fill(path))})
    context.setdefault("answers", []).append(context["answer"])
    return context["answer"]


# --- given / when ------------------------------------------------------------------------------


@given(
    '"verity mcp --http" with the browser toolset on 127.0.0.1, and the hostile corpus with its counting off-domain host',
    target_fixture="url",
)
def _http(http_mcp: str, hostile: HostileSite) -> str:
    hostile.counter.reset()
    return http_mcp


@when("a session opens the allowed page that redirects to the off-domain host")
def _redirect(sessions: dict[str, HeldClient], hostile: HostileSite, context: dict[str, Any]) -> None:
    _open(sessions, hostile, context, "/redirect/302?to=http://__OFF__/quote.html")


@when("a session opens the page whose link opens the off-domain host in a new tab")
def _popup_page(sessions: dict[str, HeldClient], hostile: HostileSite, context: dict[str, Any]) -> None:
    _open(sessions, hostile, context, "/pages/popup-blank-link-click.html")


@when("the session clicks that link by its ref")
def _click_popup_link(sessions: dict[str, HeldClient], context: dict[str, Any]) -> None:
    context["answer"] = call_tool(sessions["hostile"], "browser_click", {"target": ref_in(context["answer"], "link", "more")})


@when("a session opens the page that sends a beacon to the off-domain host on load")
def _beacon(sessions: dict[str, HeldClient], hostile: HostileSite, context: dict[str, Any]) -> None:
    _open(sessions, hostile, context, "/pages/beacon-on-load.html")


@when("the session opens the page with an iframe from the off-domain host")
def _iframe(sessions: dict[str, HeldClient], hostile: HostileSite, context: dict[str, Any]) -> None:
    _open(sessions, hostile, context, "/pages/iframe-offdomain.html")


@when(parsers.parse("{who} opens the WebRTC page whose {kind} attempt starts on load"))
def _webrtc_page(sessions: dict[str, HeldClient], webrtc: WebRtcSite, context: dict[str, Any], who: str, kind: str) -> None:
    answer = call_tool(sessions["webrtc"], "browser_navigate", {"url": webrtc.page_url(kind.lower(), now=True, page="spent.html")})
    assert answer.is_error is False and tool_result(answer)["page"]["valid"] is True, answer.content[0]
    context["kind"] = kind.lower()


@when("the session waits until the page says its attempt is spent")
def _webrtc_spent(sessions: dict[str, HeldClient], context: dict[str, Any]) -> None:
    answer = call_tool(sessions["webrtc"], "browser_wait_for", {"text": f"attempt spent: {context['kind']}"})
    assert answer.is_error is False, answer.content[0]
    assert f"attempt spent: {context['kind']}, gathering complete" in client_page(answer), client_page(answer)


# --- then --------------------------------------------------------------------------------------


@then("the answer is domain_not_allowed")
def _refused(context: dict[str, Any]) -> None:
    answer: types.CallToolResult = context["answer"]
    result = tool_result(answer)
    assert answer.is_error is True and result["error"]["code"] == "domain_not_allowed", result
    assert result["page"]["valid"] is False and result["page"]["blocker_kind"] == "domain_not_allowed", result
    assert OFF_DOMAIN_QUOTE not in page_text(answer), page_text(answer)


@then("the answer says the click was refused and had no effect")
def _click_refused(hostile: HostileSite, context: dict[str, Any]) -> None:
    answer: types.CallToolResult = context["answer"]
    result = tool_result(answer)
    assert answer.is_error is True and result["page_changed"] is False, result
    assert result["error"]["code"] == "blocked_url", result
    assert f"goes to {hostile.off_url('/quote.html')} (domain_not_allowed)" in result["error"]["message"], result
    assert f"url: {hostile.allowed_url('/pages/popup-blank-link-click.html')}" in client_page(answer), client_page(answer)


@then("every tab the page opened on the off-domain host shows Verity's block page")
def _popup_tabs(sessions: dict[str, HeldClient]) -> None:
    listed = tool_result(call_tool(sessions["hostile"], "browser_tabs", {"action": "list"}))
    for tab in listed["tabs"]:
        if tab["primary"]:
            continue
        call_tool(sessions["hostile"], "browser_tabs", {"action": "select", "index": tab["index"]})
        # A fresh snapshot: the select's own answer still shows the tab it left; a snapshot is asked for.
        shown = client_page(call_tool(sessions["hostile"], "browser_snapshot", {}))
        assert f"url: {tab['url']}" in shown, shown
        assert "Blocked by Verity's network policy (domain_not_allowed)" in shown and OFF_DOMAIN_QUOTE not in shown, shown


@then("both pages are valid, and the iframe shows nothing of the off-domain host")
def _valid_pages(context: dict[str, Any]) -> None:
    for answer in context["answers"]:
        result = tool_result(answer)
        assert answer.is_error is False and result["page"]["valid"] is True, result
        assert "Q-2" in page_text(answer) and OFF_DOMAIN_QUOTE not in page_text(answer), page_text(answer)


@then("the off-domain host received nothing")
def _nothing_received(hostile: HostileSite) -> None:
    count = hostile.counter.snapshot()
    assert count.total == 0, count


@then("no WebRTC peer received a datagram")
def _no_datagrams(webrtc: WebRtcSite) -> None:
    assert webrtc.datagrams() == {"stun": 0, "turn": 0, "peer": 0}
