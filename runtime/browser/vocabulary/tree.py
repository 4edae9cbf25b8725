"""What the driver reports of a page to a model: its accessibility tree, and the nodes a search
found in it. Plain data; the page side is runtime/browser/scripts/tree.js and tree_render.js, the
stitching of frames runtime/browser/tab/snapshot_tree.py."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class SnapshotTree:
    """A tab's accessibility tree (or the part under `root`, from its child `start`), written in
    the YAML lines of Playwright's `ariaSnapshot({mode: "ai"})` within a character budget.

    Every element line carries a ref (`[ref=s3:e12]`, `[ref=s3:f1e4]` in the tab's second frame)
    that acts on that very element while `snapshot_id` is the tab's latest snapshot. A line ending
    in `: … (12 link)` has content not shown, and a `- … N more` line counts siblings not shown;
    both say how to see them. `notes` says what could not be read at all (a frame that went away).
    """

    snapshot_id: str
    tab_id: str
    url: str
    title: str
    lines: tuple[str, ...]
    root: str = ""
    start: int | None = None
    depth: int | None = None
    notes: tuple[str, ...] = ()
    capture_ms: float = 0.0

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def label(self) -> str:
        """Which view of which snapshot this is: `s3`, `s3 under s3:e40 from 5, depth 2`."""
        parts = [self.snapshot_id]
        if self.root:
            parts.append(f"under {self.root}")
        if self.start:
            parts.append(f"from {self.start}")
        label = " ".join(parts)
        return f"{label}, depth {self.depth}" if self.depth is not None else label

    def render(self) -> str:
        body = self.text or "(nothing shown: the page holds no visible content here)"
        notes = "".join(f"\n[{note}]" for note in self.notes)
        return f"{body}{notes}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "snapshot_id": self.snapshot_id,
            "tab_id": self.tab_id,
            "url": self.url,
            "title": self.title,
            "root": self.root,
            "start": self.start,
            "depth": self.depth,
            "lines": len(self.lines),
            "chars": len(self.text),
            "notes": list(self.notes),
            "capture_ms": round(self.capture_ms, 1),
        }


@dataclass(frozen=True)
class FoundNodes:
    """The nodes of snapshot `snapshot_id` whose line matches `query`, each written as its path
    of ancestors ending in the node (`main > list [ref=s3:e4] > link "json" [ref=s3:e9]`); the
    first of `total`."""

    snapshot_id: str
    tab_id: str
    query: str
    matches: tuple[str, ...]
    total: int
    notes: tuple[str, ...] = field(default_factory=tuple)

    def render(self) -> str:
        if not self.matches:
            lines = [f"no node of snapshot {self.snapshot_id} matches {self.query}"]
        else:
            lines = [f"- {match}" for match in self.matches]
            if self.total > len(self.matches):
                lines.append(f"- … {self.total - len(self.matches)} more matches: search for something narrower")
        return "\n".join(lines + [f"[{note}]" for note in self.notes])

    def to_dict(self) -> dict[str, Any]:
        return {
            "snapshot_id": self.snapshot_id,
            "tab_id": self.tab_id,
            "query": self.query,
            "matches": list(self.matches),
            "total": self.total,
            "notes": list(self.notes),
        }
