"""What an MCP browser session's client was last shown of its page, so that a page it already
holds is not sent again (`verity mcp --snapshot-mode incremental`, the default).

An answer's page section (browser_session.py) is its head (url, tab, title, open tabs, and the
target check's verdict on a page that is not the target) and then its trees (`[snapshot s4]` and
the tree's lines, a part asked for, why a tree could not be read). When the trees read exactly as
the ones last shown, they are of the same snapshot id (the session's agent step keeps a tree's id
while its page reads the same: page_view.KEEP_SAME_PARAM), so every ref the client holds still
acts: the answer then says so in one line instead of sending them again. The head is small and is
sent whenever it changed, so a new URL, tab or verdict is never hidden, and on a page that is not
the target it is sent every time (the verdict is never left to memory); trees that changed are
sent whole. `full` (browser_snapshot's `full: true`, `--snapshot-mode full`) always sends all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

INCREMENTAL = "incremental"
FULL = "full"
SNAPSHOT_MODES = (INCREMENTAL, FULL)
# The line that opens a tree in the page section: `[snapshot s4]`, `[snapshot s4 under s4:e2]`.
_TREE_LINE = re.compile(r"^\[snapshot (?P<id>s\d+)\b[^\]\n]*\]$", re.MULTILINE)
# How the page section says the target check's verdict on a page that is not the target
# (runtime/execute/agent/page_view.py page_section; a valid page's goes unsaid).
_VERDICT_LINE = "[other page check]"


@dataclass(frozen=True)
class PageParts:
    """A page section cut where its first tree starts."""

    head: str
    trees: str
    snapshot_id: str

    @classmethod
    def of(cls, page: str) -> PageParts:
        found = _TREE_LINE.search(page)
        if found is None:
            return cls(page, "", "")
        return cls(page[: found.start()].rstrip("\n"), page[found.start() :], found["id"])


class ShownPage:
    """The head and trees one session's client was last sent."""

    def __init__(self) -> None:
        self.head = ""
        self.trees = ""

    def fold(self, page: str, full: bool) -> tuple[str, str]:
        """An answer's page section as the client is sent it, and the snapshot id of the trees
        left out of it ("" when none is): they are left out when the client was last sent those
        very trees, unless `full`."""
        parts = PageParts.of(page)
        if full or not parts.trees or parts.trees != self.trees:
            self.head, self.trees = parts.head, parts.trees
            return page, ""
        if parts.head == self.head and _VERDICT_LINE not in parts.head:
            return "", parts.snapshot_id
        self.head = parts.head
        return parts.head, parts.snapshot_id
