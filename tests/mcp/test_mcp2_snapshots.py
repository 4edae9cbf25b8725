"""Bindings of features/mcp2_snapshots.feature: one session of `verity mcp --http` (incremental
snapshots, the default) on a loopback page whose button changes its heading, then the stdio
server (`--snapshot-mode full`) on the same page. Sizes and refs are read off the answers as sent:
`page_text` is what the server sent, never the page the test's client pieced together."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import mcp_types as types
import pytest
from pytest_bdd import given, parsers, scenarios, then, when
from tests.mcp.pages_site import PagesSite
from tests.mcp.mcp_harness import TOKEN, HeldClient, call_tool, page_text, ref_in, tool_result


scenarios("mcp2_snapshots.feature")

HEADING_PAGE = """<!doctype html><html><head><title>Heading page</title></head><body>
<h1 id="heading">Old heading</h1>
<button type="button" onclick="document.getElementById('heading').textContent = 'New heading'">Change the heading</button>
</body></html>"""
TREE_ID = re.compile(r"^\[snapshot (s\d+)\]$", re.MULTILINE)


class HeadingSite(PagesSite):
    """The heading page at /heading.html; any other path is a 404 page."""

    def __init__(self) -> None:
        super().__init__({"/heading.html": HEADING_PAGE}, "mcp2-heading-site")


@pytest.fixture(scope="module")
def site() -> Iterator[HeadingSite]:
    with HeadingSite() as running:
        yield running


@pytest.fixture
def context() -> dict[str, Any]:
    return {}


def _tree_id(answer: types.CallToolResult) -> str:
    found = TREE_ID.search(page_text(answer))
    assert found is not None, f"no tree in the answer's page:\n{page_text(answer)}"
    return found[1]


def _all_text(answer: types.CallToolResult) -> str:
    return "\n".join(block.text for block in answer.content if isinstance(block, types.TextContent))


@given(parsers.parse('"verity mcp --http" with the token "{token}" and the browser toolset on 127.0.0.1'), target_fixture="url")
def _http(http_mcp: str, token: str) -> str:
    assert token == TOKEN
    return http_mcp


@when("session U opens a page whose button changes its heading")
def _open(sessions: dict[str, HeldClient], site: HeadingSite, context: dict[str, Any]) -> None:
    opened = call_tool(sessions["U"], "browser_navigate", {"url": site.url("/heading.html")})
    assert opened.is_error is False, opened.content[0]
    assert 'heading "Old heading"' in page_text(opened), page_text(opened)
    context["opened"], context["first_id"] = opened, _tree_id(opened)


@when("session U takes a snapshot")
def _snapshot(sessions: dict[str, HeldClient], context: dict[str, Any]) -> None:
    context["answer"] = call_tool(sessions["U"], "browser_snapshot", {})


@then("the snapshot answers in one line that the page is unchanged since the navigate's snapshot")
def _unchanged(context: dict[str, Any]) -> None:
    answer: types.CallToolResult = context["answer"]
    first = context["first_id"]
    result = tool_result(answer)
    assert set(result) == {"ok", "snapshot_id", "lines"} and result["ok"] is True and result["snapshot_id"] == first, result
    assert page_text(answer) == f"### Page unchanged since snapshot {first} (URL, tab, tree): its refs still hold"
    assert "[ref=" not in _all_text(answer) and len(_all_text(answer)) < len(page_text(context["opened"])), _all_text(answer)


@when("session U waits for the heading it already shows")
def _wait_shown(sessions: dict[str, HeldClient], context: dict[str, Any]) -> None:
    context["answer"] = call_tool(sessions["U"], "browser_wait_for", {"text": "Old heading"})


@then("the wait's answer says the page is unchanged too")
def _wait_unchanged(context: dict[str, Any]) -> None:
    answer: types.CallToolResult = context["answer"]
    assert tool_result(answer)["ok"] is True, tool_result(answer)
    assert page_text(answer).startswith(f"### Page unchanged since snapshot {context['first_id']} "), page_text(answer)


@when("session U clicks the heading's button by its ref from the navigate's answer")
def _click_change(sessions: dict[str, HeldClient], context: dict[str, Any]) -> None:
    ref = ref_in(context["opened"], "button", "Change the heading")
    assert ref.startswith(f"{context['first_id']}:"), ref  # a ref of the tree the snapshot said still holds
    context["answer"] = call_tool(sessions["U"], "browser_click", {"target": ref})


@then("the click acts, and its answer sends the changed tree")
def _changed(context: dict[str, Any]) -> None:
    answer: types.CallToolResult = context["answer"]
    assert tool_result(answer)["ok"] is True and tool_result(answer)["effect"] is True, tool_result(answer)
    page = page_text(answer)
    assert 'heading "New heading"' in page and "unchanged" not in page, page
    context["changed_id"] = _tree_id(answer)
    assert context["changed_id"] != context["first_id"], page


@when("session U takes a snapshot with full true")
def _snapshot_full(sessions: dict[str, HeldClient], context: dict[str, Any]) -> None:
    context["answer"] = call_tool(sessions["U"], "browser_snapshot", {"full": True})


@then("the answer sends the whole page again, under the same snapshot id")
def _full(site: HeadingSite, context: dict[str, Any]) -> None:
    answer: types.CallToolResult = context["answer"]
    page = page_text(answer)
    assert f"url: {site.url('/heading.html')}" in page and 'heading "New heading"' in page and "unchanged" not in page, page
    assert tool_result(answer)["snapshot_id"] == _tree_id(answer) == context["changed_id"], (tool_result(answer), page)


@when("session U opens a page that is not found, and takes a snapshot of it")
def _missing(sessions: dict[str, HeldClient], site: HeadingSite, context: dict[str, Any]) -> None:
    context["missing"] = call_tool(sessions["U"], "browser_navigate", {"url": site.url("/gone.html")})
    context["answer"] = call_tool(sessions["U"], "browser_snapshot", {})


@then("both answers say the page is not the target, the snapshot's with its tree left out")
def _blocked(site: HeadingSite, context: dict[str, Any]) -> None:
    missing, answer = context["missing"], context["answer"]
    said = "NOT the target (page_not_found)"
    assert missing.is_error is True and said in page_text(missing) and 'heading "Not found"' in page_text(missing), page_text(missing)
    page = page_text(answer)
    assert said in page and f"url: {site.url('/gone.html')}" in page, page
    assert f"[tree unchanged since snapshot {_tree_id(missing)}: its refs still hold]" in page and "[ref=" not in page, page


@when("the stdio server, started with --snapshot-mode full, opens the page and takes a snapshot")
def _stdio_full(stdio_mcp: HeldClient, site: HeadingSite, context: dict[str, Any]) -> None:
    opened = call_tool(stdio_mcp, "browser_navigate", {"url": site.url("/heading.html")})
    assert opened.is_error is False, opened.content[0]
    context["answer"] = call_tool(stdio_mcp, "browser_snapshot", {})


@then("the snapshot's answer sends the whole page")
def _stdio_whole(site: HeadingSite, context: dict[str, Any]) -> None:
    answer: types.CallToolResult = context["answer"]
    page = page_text(answer)
    assert f"url: {site.url('/heading.html')}" in page and 'heading "Old heading"' in page and "unchanged" not in page, page
    assert tool_result(answer)["snapshot_id"] == _tree_id(answer), (tool_result(answer), page)
