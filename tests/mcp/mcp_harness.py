"""The SDK's own MCP client, held open on an event loop of its own thread, so the steps of several
scenarios share one `verity mcp` (one Chromium) while each step stays a plain function.

The client is entered and left in one task (the SDK's transports hold anyio task groups, which
must be), and every call is a coroutine run on that loop.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

REPO = Path(__file__).resolve().parents[2]
SECRET_VALUE = "mcp-secret-value-4417"
TOKEN = "mcp-token-5d1e"

ARTICLE = """\
name: mcp-article
description: Read the harbour article
goal: 用浏览器 read the harbour article
inputs:
  site: {{type: string, description: Base URL of the fixture site}}
  token: {{type: string, secret: true, required: false, description: An API token}}
target:
  start_url: "{{site}}/article.html"
  allowed_domains: ["127.0.0.1"]
  validation_keywords: ["harbour"]
plan:
  - id: open
    navigate: "{{start_url}}"
    needs_approval: {approval}
  - id: read
    extract: {{fields: {{title: {{css: "h1"}}}}}}
  - id: check
    verify: [{{field_present: title}}]
  - id: done
    close: {{summary: read the article}}
output:
  schema: {{type: object, required: [title], properties: {{title: {{type: string}}}}}}
"""
HANG = """\
name: mcp-hang
goal: 用浏览器 open a page that never answers
inputs:
  site: {type: string}
target: {start_url: "{site}/hang", allowed_domains: ["127.0.0.1"]}
plan:
  - {id: open, navigate: "{start_url}"}
"""
ARRAY = """\
name: mcp-array
goal: 用浏览器 list the links
target: {start_url: "http://127.0.0.1:9/", allowed_domains: ["127.0.0.1"]}
plan:
  - {id: open, navigate: "{start_url}"}
output:
  schema: {type: array}
"""

T = TypeVar("T")
CALL_CEILING_SECONDS = 90.0


class HeldClient:
    """`HeldClient(lambda: Client(...))`: `run(body)` runs `body(client)` on the client's loop and
    returns its result; `close()` leaves the client (which stops a stdio server)."""

    def __init__(self, make_client: Callable[[], Client]) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="mcp-client", daemon=True)
        self._thread.start()
        self._make_client = make_client
        self._client: Client | None = None
        # The page as this client holds it: the latest page section sent, with the trees the server
        # left out of answers that said they were unchanged (client_page below).
        self.page = ""
        self._ready = asyncio.Event()
        self._leave = asyncio.Event()
        self._holding: asyncio.Task[None] | None = None
        try:
            asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(CALL_CEILING_SECONDS)
        except BaseException:
            self._stop_loop()
            raise

    async def _start(self) -> None:
        self._holding = asyncio.ensure_future(self._hold())
        ready = asyncio.ensure_future(self._ready.wait())
        await asyncio.wait({self._holding, ready}, return_when=asyncio.FIRST_COMPLETED)
        ready.cancel()
        if self._holding.done():
            self._holding.result()  # entering failed: say why

    async def _hold(self) -> None:
        async with self._make_client() as client:
            self._client = client
            self._ready.set()
            await self._leave.wait()

    def run(self, body: Callable[[Client], Coroutine[Any, Any, T]], ceiling: float = CALL_CEILING_SECONDS) -> T:
        assert self._client is not None
        return asyncio.run_coroutine_threadsafe(body(self._client), self.loop).result(ceiling)

    def close(self) -> None:
        async def leave() -> None:
            self._leave.set()
            if self._holding is not None:
                await self._holding

        try:
            asyncio.run_coroutine_threadsafe(leave(), self.loop).result(CALL_CEILING_SECONDS)
        finally:
            self._stop_loop()

    def _stop_loop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)


# --- a browser session's calls, as the tests make them -------------------------------------------


def authorized(url: str) -> Any:
    """The SDK's Streamable HTTP transport to `url` with the test server's bearer token."""
    return streamable_http_client(url, http_client=create_mcp_http_client(headers={"Authorization": f"Bearer {TOKEN}"}))


# Each answer's page as the client that got it holds it (client_page), by the answer's id.
_HELD_PAGES: dict[int, str] = {}
_UNCHANGED = re.compile(r"unchanged since snapshot (s\d+)")


def call_tool(held: HeldClient, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
    answer = held.run(lambda client: client.call_tool(tool, arguments))
    _HELD_PAGES[id(answer)] = held.page = _holding(held.page, page_text(answer))
    return answer


def _holding(held: str, sent: str) -> str:
    """The page a client holds after it was sent `sent`, as a client keeping its context does: an
    answer that says its tree is unchanged is the held page's trees under what it did send."""
    kept = _UNCHANGED.search(sent)
    if kept is None:
        return sent or held
    trees = held.find(f"[snapshot {kept[1]}")
    # The server says unchanged only of the very tree it sent this client last.
    assert trees >= 0, f"the answer says {kept[0]}, which this client was never sent:\n{sent}\nheld:\n{held}"
    if sent.startswith("### Page unchanged"):
        return held
    return sent[: sent.index("\n[tree unchanged")] + "\n" + held[trees:]


def client_page(answer: types.CallToolResult) -> str:
    """The page section of `answer` as the client that got it holds it (call_tool)."""
    return _HELD_PAGES.get(id(answer), page_text(answer))


def tool_result(answer: types.CallToolResult) -> dict[str, Any]:
    """A browser tool's result (its first content block, JSON)."""
    return json.loads(answer.content[0].text)


def page_text(answer: types.CallToolResult) -> str:
    """The page section of a browser tool's answer (its text block after the result), or ""."""
    return next((block.text for block in answer.content[1:] if isinstance(block, types.TextContent)), "")


def ref_in(answer: types.CallToolResult, role: str, name: str) -> str:
    """The ref the page of `answer` gives the element of `role` named `name` (as its client holds
    it: an answer whose tree was unchanged refers to the tree sent before, client_page)."""
    found = re.search(rf'{role} "{re.escape(name)}" \[ref=(s\d+:e\d+)\]', client_page(answer))
    assert found is not None, f"no {role} {name!r} with a ref in the page:\n{client_page(answer)}"
    return found[1]
