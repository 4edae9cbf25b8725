"""Reading a fallback search page's results: wait until they are there, then read their links.

Search pages often draw their results with script after the page loaded (Sphinx's JS search reads
searchindex.js, then adds the results one by one). So the links are read only once:

- `fallback.wait_for` holds (the page shows a text, a CSS selector is visible, or the network is
  idle), or, by default,
- the page is network-idle and the page's links have stopped changing for STABLE_MS (and, with a
  `result_selector`, at least one result is there).

`fallback.result_selector` picks the result links (anchors, or containers of one), in page order.
Without it the links are ranked (`rank_links`), so a page's own navigation (genindex.html,
py-modindex.html, a header's menu) comes after what the search produced:

1. links the page's script drew or changed: present now but not in the HTML the server sent
   (read again with the page's own `fetch`, so the answer does not hang on when a snapshot was
   taken relative to the script);
2. links of the page's content (outside nav/header/footer/aside and their ARIA roles, Sphinx's
   sidebar and related bars);
3. the page's navigation, and links to index pages or to the search page itself.

Within each group a link whose text (and, less, URL path) shares more words with the query and
the target's validation keywords comes first; ties keep page order.
"""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit

from runtime.execute.context.run_context import RunContext

STABLE_MS = 1000
POLL_SECONDS = 0.25

# Words too common to say which link is a result.
STOPWORDS = frozenset(
    "a an and are as at be by for from how in into is it of on or the this to with what when where which who why".split()
)

# Landmarks that hold a page's own navigation, by tag, ARIA role and the class names of the
# common documentation themes (Sphinx's `related` bar and `sphinxsidebar`).
NAVIGATION_CSS = (
    "nav, header, footer, aside, [role=navigation], [role=banner], [role=contentinfo], [role=complementary], "
    ".related, .sphinxsidebar, .sidebar, .footer, .breadcrumbs, .breadcrumb"
)

_INDEX_PAGE = re.compile(r"(^|/)(gen|py-mod|mod)index\.html$")


@dataclass(frozen=True)
class RankedLink:
    url: str
    text: str
    group: int  # 0 drawn by script, 1 content, 2 navigation
    score: int
    why: str

    def as_evidence(self) -> dict[str, Any]:
        return {"url": self.url, "text": self.text[:120], "score": self.score, "why": self.why}


@dataclass(frozen=True)
class SearchResults:
    links: list[str]
    settled: str
    ranked: list[RankedLink]


def link_selector(result_selector: str | None) -> str:
    """The CSS that finds result anchors: the selector's anchors, and anchors inside its elements."""
    if not result_selector:
        return "a[href]"
    return f":is({result_selector}):is(a[href]), :is({result_selector}) a[href]"


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 1 and w not in STOPWORDS}


def search_terms(query: str, keywords: list[str]) -> set[str]:
    """The words a result should share: the query's (without `site:` filters) and the keywords'."""
    query_words = " ".join(part for part in query.split() if not part.lower().startswith("site:"))
    return words(query_words) | words(" ".join(keywords))


def rank_links(page_url: str, live: list[dict[str, Any]], served: list[str] | None, terms: set[str]) -> list[RankedLink]:
    """The page's http(s) links, once each, best result first (see the module's docstring)."""
    served_keys = set(served) if served is not None else None
    page = urlsplit(page_url)
    ranked: list[tuple[int, int, int, RankedLink]] = []
    for order, link in enumerate(live):
        url = _absolute(page_url, str(link.get("href") or ""))
        if url is None:
            continue
        text = str(link.get("text") or "")
        parts = urlsplit(url)
        index_like = bool(_INDEX_PAGE.search(parts.path)) or (parts.netloc, parts.path) == (page.netloc, page.path)
        drawn = served_keys is not None and str(link.get("key")) not in served_keys
        if index_like:
            group, why = 2, "an index page or the search page itself"
        elif drawn:
            group, why = 0, "drawn by the page's script"
        elif link.get("navigation"):
            group, why = 2, "the page's navigation"
        else:
            group, why = 1, "in the page's content"
        score = 2 * len(terms & words(text)) + len(terms & words(parts.path))
        if not link.get("visible", True):
            why += ", hidden"
        ranked.append((group, -score, order, RankedLink(url, text, group, score, why)))
    ranked.sort(key=lambda r: r[:3])
    best: dict[str, RankedLink] = {}
    for *_, link in ranked:  # a page both in the menu and among the results (or at two #anchors) counts once, at its best
        best.setdefault(same_page(link.url), link)
    return list(best.values())


def same_page(url: str) -> str:
    """`url` without its #fragment: two anchors of one page are one page to open."""
    return urldefrag(url).url


async def read_search_results(ctx: RunContext, fallback: dict[str, Any], timeout_ms: int, query: str = "") -> SearchResults:
    """The result links (absolute http(s), no repeats, best first) and how the wait ended."""
    result_selector = fallback.get("result_selector")
    wait_for = fallback.get("wait_for")
    deadline = time.monotonic() + timeout_ms / 1000
    if wait_for:
        kind, value = _wait_kind(ctx, wait_for)
        waited = await ctx.browser.run_action(
            "wait", f"wait for search results ({kind})", lambda s, a: s.wait(kind, value, action_id=a, timeout_ms=timeout_ms)
        )
        settled = f"{kind} seen" if waited.ok else f"{kind} not seen: {waited.error.message if waited.error else ''}"
    else:
        idle = await ctx.browser.run_action(
            "wait", "wait for the search page to go network-idle", lambda s, a: s.wait("network_idle", None, action_id=a, timeout_ms=timeout_ms)
        )
        settled = await _until_links_settle(ctx, link_selector(result_selector), bool(result_selector), deadline, timeout_ms)
        settled += "" if idle.ok else " (the page never went network-idle)"
    if result_selector:
        return SearchResults(await _links(ctx, link_selector(result_selector), timeout_ms), settled, [])
    keywords = [ctx.values.text(k) or "" for k in ctx.plan.target.get("validation_keywords", [])]
    ranked = await _ranked_links(ctx, search_terms(query, keywords), timeout_ms)
    return SearchResults([r.url for r in ranked], settled, ranked)


async def _until_links_settle(ctx: RunContext, selector: str, need_one: bool, deadline: float, timeout_ms: int) -> str:
    previous: list[str] | None = None
    stable_since = time.monotonic()
    while True:
        links = await _links(ctx, selector, timeout_ms)
        now = time.monotonic()
        if links != previous:
            previous, stable_since = links, now
        if (now - stable_since) * 1000 >= STABLE_MS and (links or not need_one):
            return f"links stable for {STABLE_MS} ms"
        if now >= deadline:
            return "links still changing when the time ran out"
        await asyncio.sleep(POLL_SECONDS)


def _wait_kind(ctx: RunContext, wait_for: dict[str, Any]) -> tuple[str, Any]:
    if wait_for.get("text") is not None:
        return "text_includes", ctx.values.text(wait_for["text"])
    if wait_for.get("selector") is not None:
        return "selector", wait_for["selector"]
    return "network_idle", None


async def _ranked_links(ctx: RunContext, terms: set[str], timeout_ms: int) -> list[RankedLink]:
    # Every link with what ranking needs, and the links of the HTML the server sent for this URL
    # (runtime/browser/scripts/search_links.js), so a link a script drew can be told apart.
    read = await ctx.browser.run_action(
        "read_links", "read and rank the search page's links", lambda s, a: s.read_links(NAVIGATION_CSS, served=True, action_id=a, timeout_ms=timeout_ms)
    )
    if not read.ok:
        return []
    found = read.data
    return rank_links(str(found.get("url", "")), list(found.get("live") or []), found.get("served"), terms)


async def _links(ctx: RunContext, selector: str, timeout_ms: int) -> list[str]:
    fields = {"links": {"selector": selector, "attr": "href", "all": True}}
    found = await ctx.browser.run_action("extract", "read search result links", lambda s, a: s.extract(fields, action_id=a, timeout_ms=timeout_ms))
    if not found.ok:
        return []
    base = str(found.data.get("url", ""))
    links: list[str] = []
    for href in found.data.get("fields", {}).get("links") or []:
        url = _absolute(base, href or "")
        if url is not None and url not in links:
            links.append(url)
    return links


def _absolute(base: str, href: str) -> str | None:
    if not href or href.startswith(("#", "javascript:")):
        return None
    absolute = urljoin(base, href)
    return absolute if urlsplit(absolute).scheme in ("http", "https") else None
