"""Closed shadow roots, found through DevTools and handed to the isolated world's page judgments.

A page can draw what it shows (a sign-in wall, a quote) inside a closed shadow root, which no
script sees, the driver's isolated world included. DevTools sees every root. Reading the whole
pierced DOM (`DOM.getDocument` with `pierce`) costs 1.5 s on a page of 88,000 nodes, so it is
asked only when a cheap count says there is something to find: `DOM.performSearch` for "<"
counts every element (and every text or comment holding "<") of the composed tree, closed roots
included, in 0.03 s on that page; the isolated world counts what it reaches the same way
(page_reads.js's `reachableNodes`). Equal counts: no closed root is unread, and nothing more is
asked. Fewer reached: the pierced DOM is read once, each closed root of the top document is
resolved into the isolated world and adopted there (`verity.closedRoots`), and every later read
of that document sees it. Locators and snapshots do not: they keep to open roots, as Playwright's
do.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from runtime.browser.tab.worlds import call_page_script

# Every element's name starts with "", so DevTools' plain-text search for "<" (a start tag with no
# name) matches every element of the composed tree.
EVERY_ELEMENT = "<"
OBJECT_GROUP = "verity-closed-roots"


async def adopt_closed_roots(cdp: Any, context_id: int) -> int:
    """Hand the top document's unread closed shadow roots to its isolated world (`context_id`);
    returns how many were adopted (0, after one search, on a page that has none unread)."""
    await cdp.send("DOM.enable", {})
    try:
        search = await cdp.send("DOM.performSearch", {"query": EVERY_ELEMENT, "includeUserAgentShadowDOM": False})
        await cdp.send("DOM.discardSearchResults", {"searchId": search["searchId"]})
        reached = await call_page_script(cdp, {"executionContextId": context_id}, "reachableNodes", ())
        if int(search["resultCount"]) <= int((reached.get("result") or {}).get("value") or 0):
            return 0
        document = (await cdp.send("DOM.getDocument", {"depth": -1, "pierce": True}))["root"]
        adopted = 0
        for backend_id in _closed_roots(document):
            try:
                node = await cdp.send("DOM.resolveNode", {"backendNodeId": backend_id, "executionContextId": context_id, "objectGroup": OBJECT_GROUP})
            except Exception:  # noqa: BLE001 - a root the page removed since the DOM was read
                continue
            await call_page_script(cdp, {"objectId": node["object"]["objectId"]}, "adoptClosedRoot", ())
            adopted += 1
        return adopted
    finally:
        # The DOM agent is left as it was found: no node map kept, no mutation events sent.
        await cdp.send("DOM.disable", {})
        await cdp.send("Runtime.releaseObjectGroup", {"objectGroup": OBJECT_GROUP})


def _closed_roots(document: dict[str, Any]) -> Iterator[int]:
    """The backend ids of the closed shadow roots in `document` (a frame's document is read in its
    own world, so its content is left out); iterative, as a page's DOM may be deeper than Python's
    recursion."""
    pending = [document]
    while pending:
        node = pending.pop()
        for root in node.get("shadowRoots") or ():
            if root.get("shadowRootType") == "closed":
                yield int(root["backendNodeId"])
            pending.append(root)
        pending.extend(node.get("children") or ())
