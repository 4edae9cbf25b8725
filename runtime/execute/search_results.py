"""Reading a fallback search page's results: wait until they are there, then read their links.

Search pages often draw their results with script after the page loaded (Sphinx's JS search reads
searchindex.js, then adds the results one by one). So the links are read only once:

- `fallback.wait_for` holds (the page shows a text, a CSS selector is visible, or the network is
  idle), or, by default,
- the page is network-idle and the result links have stopped changing for STABLE_MS (and, with a
  `result_selector`, at least one result is there).

`fallback.result_selector` picks the result links (anchors, or containers of one) so a page's own
navigation (genindex.html, py-modindex.html) is never taken for a result.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any
from urllib.parse import urljoin, urlsplit

from runtime.execute.context import RunContext

STABLE_MS = 1000
POLL_SECONDS = 0.25


def link_selector(result_selector: str | None) -> str:
    """The CSS that finds result anchors: the selector's anchors, and anchors inside its elements."""
    if not result_selector:
        return "a[href]"
    return f":is({result_selector}):is(a[href]), :is({result_selector}) a[href]"


async def read_search_results(ctx: RunContext, fallback: dict[str, Any], timeout_ms: int) -> tuple[list[str], str]:
    """The result links (absolute http(s), page order, no repeats) and how the wait ended."""
    selector = link_selector(fallback.get("result_selector"))
    wait_for = fallback.get("wait_for")
    deadline = time.monotonic() + timeout_ms / 1000
    if wait_for:
        kind, value = _wait_kind(ctx, wait_for)
        waited = await ctx.browser.run_action(
            "wait", f"wait for search results ({kind})", lambda s, a: s.wait(kind, value, action_id=a, timeout_ms=timeout_ms)
        )
        links = await _links(ctx, selector, timeout_ms)
        how = f"{kind} seen" if waited.ok else f"{kind} not seen: {waited.error.message if waited.error else ''}"
        return links, how
    idle = await ctx.browser.run_action(
        "wait", "wait for the search page to go network-idle", lambda s, a: s.wait("network_idle", None, action_id=a, timeout_ms=timeout_ms)
    )
    previous: list[str] | None = None
    stable_since = time.monotonic()
    while True:
        links = await _links(ctx, selector, timeout_ms)
        now = time.monotonic()
        if links != previous:
            previous, stable_since = links, now
        settled = (now - stable_since) * 1000 >= STABLE_MS and (links or not fallback.get("result_selector"))
        if settled:
            return links, f"links stable for {STABLE_MS} ms" + ("" if idle.ok else " (the page never went network-idle)")
        if now >= deadline:
            return links, "links still changing when the time ran out"
        await asyncio.sleep(POLL_SECONDS)


def _wait_kind(ctx: RunContext, wait_for: dict[str, Any]) -> tuple[str, Any]:
    if wait_for.get("text") is not None:
        return "text_includes", ctx.values.text(wait_for["text"])
    if wait_for.get("selector") is not None:
        return "selector", wait_for["selector"]
    return "network_idle", None


async def _links(ctx: RunContext, selector: str, timeout_ms: int) -> list[str]:
    fields = {"links": {"selector": selector, "attr": "href", "all": True}}
    found = await ctx.browser.run_action("extract", "read search result links", lambda s, a: s.extract(fields, action_id=a, timeout_ms=timeout_ms))
    if not found.ok:
        return []
    base = str(found.data.get("url", ""))
    links: list[str] = []
    for href in found.data.get("fields", {}).get("links") or []:
        if not href or href.startswith(("#", "javascript:")):
            continue
        absolute = urljoin(base, href)
        if urlsplit(absolute).scheme in ("http", "https") and absolute not in links:
            links.append(absolute)
    return links
