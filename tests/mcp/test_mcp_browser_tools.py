"""Bindings of features/mcp_browser_tools.feature: MCP sessions of the SDK's own client (protocol
2025-11-25 over Streamable HTTP, which gives each session an id) drive `verity mcp --http
--allowed-domains 127.0.0.1` on pages of a loopback site that records every request it gets."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, TypeVar

import mcp_types as types
import pytest
from mcp import Client, MCPError
from pytest_bdd import given, parsers, scenarios, then, when
from tests.mcp.mcp_harness import TOKEN, HeldClient, authorized, call_tool, client_page, page_text, ref_in, tool_result

from runtime.cli.main import main
from runtime.demo.loopback import LoopbackSite
from runtime.store.opening import open_run_store

scenarios("mcp_browser_tools.feature")

BEACON_PAGE = """<!doctype html><html><head><title>Beacon page</title></head><body>
<h1>Beacon page</h1>
<button type="button">Nothing happens</button>
<a href="/cookie.html?owner=a">Cookie page</a>
<img src="http://localhost:{port}/pixel.png" alt="">
<script>
navigator.sendBeacon("http://localhost:{port}/beacon", "x");
fetch("http://localhost:{port}/fetch").catch(() => {{}});
</script>
</body></html>"""
# Says which cookie the page met, then leaves its owner's cookie for the next visit.
COOKIE_PAGE = """<!doctype html><html><head><title>Cookie page</title></head><body>
<h1>Cookie page</h1>
<p id="seen">waiting</p>
<script>
const owner = new URLSearchParams(location.search).get("owner") || "nobody";
const before = document.cookie || "none";
if (!document.cookie) document.cookie = "owner=" + owner + "; path=/";
document.getElementById("seen").textContent = "cookie before: " + before;
</script>
</body></html>"""


class RecordingSite(LoopbackSite):
    """The two pages above on 127.0.0.1 (and, as another origin, localhost), and every request's Host and path."""

    thread_name = "mcp-recording-site"

    def __init__(self) -> None:
        self.requests: list[tuple[str, str]] = []
        self._lock = threading.Lock()
        site = self

        class Page(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
                pass

            def _answer(self) -> None:
                with site._lock:
                    site.requests.append((self.headers.get("Host", ""), self.path))
                path = self.path.split("?")[0]
                html = {"/beacon.html": BEACON_PAGE.format(port=site.port), "/cookie.html": COOKIE_PAGE}.get(path, "")
                payload = html.encode("utf-8")
                self.send_response(200 if html else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = _answer  # noqa: N815 - stdlib names
            do_POST = _answer  # noqa: N815

        super().__init__(handler=Page)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def hosts(self) -> set[str]:
        with self._lock:
            return {host.split(":")[0] for host, _ in self.requests}


@pytest.fixture(scope="module")
def pages() -> Iterator[RecordingSite]:
    with RecordingSite() as site:
        yield site


@pytest.fixture
def context() -> dict[str, Any]:
    return {}


# --- given / when ------------------------------------------------------------------------------


@given(parsers.parse('"verity mcp --http" with the token "{token}" and the browser toolset on 127.0.0.1'), target_fixture="url")
def _http(http_mcp: str, token: str) -> str:
    assert token == TOKEN
    return http_mcp


@when("session A opens the page with the beacon")
def _open_beacon(sessions: dict[str, HeldClient], pages: RecordingSite, context: dict[str, Any]) -> None:
    context["answer"] = call_tool(sessions["A"], "browser_navigate", {"url": f"{pages.base_url}/beacon.html"})


@when(parsers.parse('session A clicks the "{name}" button by its ref'))
def _click_button(sessions: dict[str, HeldClient], context: dict[str, Any], name: str) -> None:
    context["answer"] = call_tool(sessions["A"], "browser_click", {"target": ref_in(context["answer"], "button", name)})


@when(parsers.parse("session A clicks the \"{name}\" link by Playwright's ref argument"))
def _click_link(sessions: dict[str, HeldClient], context: dict[str, Any], name: str) -> None:
    ref = ref_in(context["answer"], "link", name)
    context["answer"] = call_tool(sessions["A"], "browser_click", {"element": f"{name} link", "ref": ref})


@when("session A navigates to localhost")
def _leave(sessions: dict[str, HeldClient], pages: RecordingSite, context: dict[str, Any]) -> None:
    context["before"] = page_text(context["answer"])
    context["answer"] = call_tool(sessions["A"], "browser_navigate", {"url": f"http://localhost:{pages.port}/cookie.html"})


@when("session A and session B each open the cookie page as its owner")
def _two_sessions(sessions: dict[str, HeldClient], pages: RecordingSite, context: dict[str, Any]) -> None:
    seen: dict[str, list[str]] = {"A": [], "B": []}
    # Interleaved, both sessions open at once: each visit sets or meets only its own cookie.
    for _ in range(2):
        for name in ("A", "B"):
            answer = call_tool(sessions[name], "browser_navigate", {"url": f"{pages.base_url}/cookie.html?owner={name.lower()}"})
            assert not answer.is_error, answer.content[0]
            seen[name].append(page_text(answer))
    context["seen"] = seen
    context["run_ids"] = {name: re.search(r"session run (run-\w+)", seen[name][-1])[1] for name in seen}


TEN = tuple(f"t{n}" for n in range(10))
T = TypeVar("T")


def _at_once(sessions: dict[str, HeldClient], body: Callable[[str, HeldClient], T]) -> dict[str, T]:
    """`body` for each of the ten sessions, all in flight together (each client has its own loop)."""
    held = {name: sessions[name] for name in TEN}
    with ThreadPoolExecutor(len(TEN)) as pool:
        running = {name: pool.submit(body, name, client) for name, client in held.items()}
        return {name: future.result() for name, future in running.items()}


@when("ten sessions at once each open the cookie page as its owner, twice")
def _ten_sessions(sessions: dict[str, HeldClient], pages: RecordingSite, context: dict[str, Any]) -> None:
    def visit(name: str, held: HeldClient) -> str:
        answer = call_tool(held, "browser_navigate", {"url": f"{pages.base_url}/cookie.html?owner={name}"})
        assert not answer.is_error, answer.content[0]
        return page_text(answer)

    # The second round meets the cookie each session's first visit left, and only that one.
    context["seen"] = [_at_once(sessions, visit) for _ in range(2)]
    context["closed"] = _at_once(sessions, lambda name, held: call_tool(held, "browser_close", {}))


@when("session C opens the cookie page and closes the browser")
def _close(sessions: dict[str, HeldClient], pages: RecordingSite, context: dict[str, Any]) -> None:
    opened = call_tool(sessions["C"], "browser_navigate", {"url": f"{pages.base_url}/cookie.html?owner=c"})
    context["run_id"] = re.search(r"session run (run-\w+)", page_text(opened))[1]
    context["answer"] = call_tool(sessions["C"], "browser_close", {})


# --- then --------------------------------------------------------------------------------------


@then("the listed tools include the browser tools and browser_close")
def _listed(sessions: dict[str, HeldClient], context: dict[str, Any]) -> None:
    listed = sessions["A"].run(lambda client: client.list_tools())
    tools = {tool.name: tool for tool in listed.tools}
    context["tools"] = tools
    expected = {"browser_navigate", "browser_navigate_back", "browser_snapshot", "browser_click", "browser_type", "browser_hover",
                "browser_select_option", "browser_press_key", "browser_wait_for", "browser_tabs", "browser_close"}  # fmt: skip
    assert expected <= set(tools), sorted(expected - set(tools))
    # The recipes are still tools beside them.
    assert {"mcp-article", "mcp-approval"} <= set(tools)
    assert "close" not in tools


@then("browser_click takes a target and says how to write one")
def _click_schema(context: dict[str, Any]) -> None:
    click = context["tools"]["browser_click"]
    assert click.input_schema["required"] == ["target"] and click.input_schema["properties"]["target"] == {"type": "string"}
    assert "A target is a snapshot ref (s3:e12)" in (click.description or "")
    assert tuple(context["tools"]["browser_navigate"].input_schema["required"]) == ("url",)


@then('"verity mcp --allowed-domains" with a URL instead of a host exits 2, saying what to give')
def _bad_domain(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["mcp", "--allowed-domains", "127.0.0.1,http://shop.example/"])
    said = capsys.readouterr().err
    assert code == 2, said
    assert "verity mcp: --allowed-domains: target.allowed_domains[1]: 'http://shop.example/' is a URL; give a host" in said, said


@then("the answer is the valid page with its aria-YAML tree and refs")
def _valid_page(pages: RecordingSite, context: dict[str, Any]) -> None:
    answer: types.CallToolResult = context["answer"]
    result = tool_result(answer)
    assert answer.is_error is False and result["ok"] is True and result["page_changed"] is True, result
    assert result["page"]["valid"] is True and result["page"]["url"] == f"{pages.base_url}/beacon.html", result
    page = page_text(answer)
    assert f"url: {pages.base_url}/beacon.html" in page and "title: Beacon page" in page, page
    assert re.search(r'- heading "Beacon page" \[level=1\] \[ref=s\d+:e\d+\]', page), page
    assert re.search(r'- button "Nothing happens" \[ref=s\d+:e\d+\]', page), page


@then("the answer says the click had no effect")
def _no_effect(context: dict[str, Any]) -> None:
    result = tool_result(context["answer"])
    assert result["ok"] is True and result["effect"] is False and result["page_changed"] is False, result


@then("the answer proves a new document with the page changed")
def _new_document(pages: RecordingSite, context: dict[str, Any]) -> None:
    result = tool_result(context["answer"])
    assert result["effect"] is True and result["page_changed"] is True, result
    assert result["seen"] == f"a new document: {pages.base_url}/beacon.html -> {pages.base_url}/cookie.html?owner=a", result["seen"]
    assert result["page"]["valid"] is True


@then("the answer is domain_not_allowed with the page unchanged")
def _refused(pages: RecordingSite, context: dict[str, Any]) -> None:
    answer: types.CallToolResult = context["answer"]
    result = tool_result(answer)
    assert answer.is_error is True and result["error"]["code"] == "domain_not_allowed" and result["page_changed"] is False, result
    assert f"url: {pages.base_url}/cookie.html?owner=a" in client_page(answer), client_page(answer)


@then("no request of the session reached localhost")
def _fenced(pages: RecordingSite) -> None:
    assert pages.requests, "the site saw no request at all"
    assert pages.hosts() == {"127.0.0.1"}, pages.requests


@then("each session's page shows only its own cookie")
def _own_cookies(context: dict[str, Any]) -> None:
    seen = context["seen"]
    for name in ("A", "B"):
        first, second = seen[name]
        assert "cookie before: none" in first, first
        assert f"cookie before: owner={name.lower()}" in second, second


@then("each session is its own run")
def _own_runs(context: dict[str, Any]) -> None:
    run_ids = context["run_ids"]
    assert run_ids["A"] != run_ids["B"], run_ids


@then("a 2026-07-28 client calling browser_navigate is refused because it has no MCP session")
def _sessionless(url: str, pages: RecordingSite) -> None:
    held = HeldClient(lambda: Client(authorized(url), mode="2026-07-28"))
    try:
        with pytest.raises(MCPError) as refused:
            call_tool(held, "browser_navigate", {"url": f"{pages.base_url}/cookie.html"})
    finally:
        held.close()
    assert "the browser tools need an MCP session" in str(refused.value), str(refused.value)


@then("the answer is the completed verdict of the session's run, which the store records")
def _closed(served: dict[str, Path], context: dict[str, Any]) -> None:
    answer: types.CallToolResult = context["answer"]
    text = answer.content[0].text
    assert answer.is_error is False and text.startswith("the session's browser is closed: "), text
    verdict = json.loads(text.split(": ", 1)[1])
    assert verdict["run_id"] == context["run_id"] and verdict["stop_reason"] == "completed", verdict
    store = open_run_store(served["home"] / "http" / "verity.db")
    try:
        record = store.get_run(context["run_id"])
    finally:
        store.close()
    assert record is not None and record.recipe_name == "mcp-browser-session" and record.stop_reason.value == "completed", record


@then("session C's next call runs in a new run")
def _next_run(sessions: dict[str, HeldClient], pages: RecordingSite, context: dict[str, Any]) -> None:
    answer = call_tool(sessions["C"], "browser_navigate", {"url": f"{pages.base_url}/cookie.html?owner=c"})
    run_id = re.search(r"session run (run-\w+)", page_text(answer))[1]
    assert run_id != context["run_id"]
    # A new run is a new browser context: the cookie of the closed one is gone.
    assert "cookie before: none" in page_text(answer), page_text(answer)


@then("each of the ten pages shows only its own session's cookie and URL")
def _ten_own_cookies(pages: RecordingSite, context: dict[str, Any]) -> None:
    first, second = context["seen"]
    for name in TEN:
        assert "cookie before: none" in first[name], first[name]
        met = re.search(r"cookie before: ([^\n\"]*)", second[name])
        assert met is not None and met[1] == f"owner={name}", second[name]
        assert f"url: {pages.base_url}/cookie.html?owner={name}" in second[name], second[name]


@then("the ten sessions are ten runs, each closed by its own browser_close")
def _ten_runs(context: dict[str, Any]) -> None:
    first, second = context["seen"]
    run_ids = {name: re.search(r"session run (run-\w+)", second[name])[1] for name in TEN}
    assert len(set(run_ids.values())) == len(TEN), run_ids
    assert all(run_ids[name] in first[name] for name in TEN), "a session's second visit ran in another run"
    for name in TEN:
        answer: types.CallToolResult = context["closed"][name]
        text = answer.content[0].text
        assert answer.is_error is False and text.startswith("the session's browser is closed: "), text
        verdict = json.loads(text.split(": ", 1)[1])
        assert verdict["run_id"] == run_ids[name] and verdict["stop_reason"] == "completed", (name, verdict)
