"""Closed shadow roots, found through DevTools and handed to the isolated world's page judgments.

A page can draw what it shows (a sign-in wall, a quote) inside a closed shadow root, which no
script sees, the driver's isolated world included. DevTools sees every root. Reading the whole
pierced DOM (`DOM.getDocument` with `pierce`) costs 1.5 s on a page of 35,000 elements, so it
is asked only when a cheap count says there is something to find: `DOM.performSearch` for "<"
counts every element (and every text or comment holding "<") of the composed tree, closed roots
included, in 0.03 s on that page; the isolated world counts what it reaches the same way
(page_reads.js's `reachableNodes`). Equal counts: no closed root is unread, and nothing more is
asked. Fewer reached: the pierced DOM is read once, each closed root of the top document and of
its frames' documents is resolved into the isolated world and adopted there (`verity.closedRoots`;
a frame's root in the frame's own world too, where the frame is judged), and every later read of
that document sees it. Locators and snapshots do not: they keep to open roots, as Playwright's
do.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from runtime.browser.tab.worlds import FrameWorlds, call_page_script
from runtime.browser.vocabulary.document import DocumentIdentity

# Every element's name starts with "", so DevTools' plain-text search for "<" (a start tag with no
# name) matches every element of the composed tree.
EVERY_ELEMENT = "<"
OBJECT_GROUP = "verity-closed-roots"
# A search's results (a pointer per node) are kept by the DOM agent until it is given the next
# document or is disabled; those of a page this small are left to that rather than dropped by a
# message of their own on every search (a third of a search's cost).
KEPT_RESULTS = 2000


@dataclass(frozen=True)
class NodeCounts:
    """A document's nodes as DevTools' search counted them and as the isolated world reached them."""

    searched: int
    reached: int


class ClosedRoots:
    """A tab's adoption of closed roots: one at a time, and the counts of the last whole read of
    its top document. The DOM agent stays enabled between searches (enabling it per search costs
    two more round trips on every read) and is disabled after a whole read, which drops the node
    map that read built: an enabled agent sends mutation events only for nodes it was given."""

    def __init__(self, cdp: Any) -> None:
        self._cdp = cdp
        self._lock = asyncio.Lock()
        self._enabled = False
        self._read: tuple[DocumentIdentity, NodeCounts] | None = None

    async def adopt(self, worlds: FrameWorlds, document: DocumentIdentity) -> int:
        """Hand the unread closed shadow roots of `document`, the tab's top document, to its
        isolated world; returns how many (0, after one search, on a page that has none unread).
        When both counts are those of the last whole read of this document, nothing has changed
        that a read could find (a closed root inside a frame's document, or a frame of another
        origin in this process, keeps the counts apart for good): the DOM is not read again."""
        async with self._lock:
            cdp = self._cdp
            context_id = await worlds.top_context()
            search, reached = await asyncio.gather(self._search(), _reached(cdp, context_id))
            if int(search["resultCount"]) > KEPT_RESULTS:
                await cdp.send("DOM.discardSearchResults", {"searchId": search["searchId"]})
            counts = NodeCounts(int(search["resultCount"]), reached)
            last = self._read[1] if self._read is not None and self._read[0].same_document(document) else None
            if counts.searched <= counts.reached or counts == last:
                return 0
            try:
                adopted = await _adopt_from_whole_dom(cdp, worlds, context_id)
            finally:
                await cdp.send("DOM.disable", {})
                self._enabled = False
            self._read = (document, NodeCounts(counts.searched, await _reached(cdp, context_id) if adopted else counts.reached))
            return adopted

    async def _search(self) -> dict[str, Any]:
        """DevTools' count of the composed tree's nodes (`resultCount`) and its search id."""
        params = {"query": EVERY_ELEMENT, "includeUserAgentShadowDOM": False}
        if self._enabled:
            try:
                return await self._cdp.send("DOM.performSearch", params)  # type: ignore[no-any-return]
            except Exception as exc:  # noqa: BLE001 - the agent was left disabled (a renderer swap)
                if "not enabled" not in str(exc):
                    raise
        await self._cdp.send("DOM.enable", {})
        self._enabled = True
        return await self._cdp.send("DOM.performSearch", params)  # type: ignore[no-any-return]


async def _adopt_from_whole_dom(cdp: Any, worlds: FrameWorlds, context_id: int) -> int:
    """Read the whole DOM, closed roots included, and adopt each closed root in the isolated world
    `context_id` of the top document; one inside a frame's document is adopted in that frame's
    world too, which judges the frame (a sign-in wall drawn in a closed root of a frame over a
    teaser price). Returns how many roots were adopted."""
    document = (await cdp.send("DOM.getDocument", {"depth": -1, "pierce": True}))["root"]
    adopted = 0
    frames: dict[str, dict[str, Any]] | None = None
    try:
        for frame_id, backend_id in _closed_roots(document):
            contexts = [context_id]
            if frame_id is not None:
                frames = frames if frames is not None else {frame["id"]: frame for frame in await worlds.frames()}
                if frame_id in frames:
                    contexts.insert(0, await worlds.context_for(frames[frame_id]))
            for context in contexts:
                try:
                    node = await cdp.send("DOM.resolveNode", {"backendNodeId": backend_id, "executionContextId": context, "objectGroup": OBJECT_GROUP})
                except Exception:  # noqa: BLE001 - a root the page removed since the DOM was read
                    continue
                object_id = (node.get("object") or {}).get("objectId")
                if object_id is not None:  # none in the top's world for a frame of another origin
                    await call_page_script(cdp, {"objectId": object_id}, "adoptClosedRoot", ())
            adopted += 1
    finally:
        await cdp.send("Runtime.releaseObjectGroup", {"objectGroup": OBJECT_GROUP})
    return adopted


async def _reached(cdp: Any, context_id: int) -> int:
    """The isolated world's count (page_reads.js's `reachableNodes`); a failed count is 0, so the
    DOM is read whole rather than a closed root left unread."""
    reply = await call_page_script(cdp, {"executionContextId": context_id}, "reachableNodes", ())
    return int((reply.get("result") or {}).get("value") or 0)


def _closed_roots(document: dict[str, Any]) -> Iterator[tuple[str | None, int]]:
    """The closed shadow roots in `document` and in its frames' documents: the frame id of the
    document each is in (None: the top document) and its backend id; iterative, as a page's DOM
    may be deeper than Python's recursion."""
    pending: list[tuple[dict[str, Any], str | None]] = [(document, None)]
    while pending:
        node, frame_id = pending.pop()
        for root in node.get("shadowRoots") or ():
            if root.get("shadowRootType") == "closed":
                yield frame_id, int(root["backendNodeId"])
            pending.append((root, frame_id))
        pending.extend((child, frame_id) for child in node.get("children") or ())
        if node.get("contentDocument"):
            pending.append((node["contentDocument"], str(node.get("frameId") or "")))
