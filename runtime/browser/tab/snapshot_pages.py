"""Pages of a snapshot: which of its refs one view shows.

A snapshot gives every candidate element of the tab a ref in one walk; what a caller reads is a
page of it. A view is the snapshot's elements matching a query (roles, a text in the name or the
content, a region: a landmark or a ref's subtree), interactive elements first, each kind in
document order across frames. A page starts at `start` in that order and holds at most
`max_elements`, and no more than its lines fit in `max_chars`: it is the longest prefix that fits,
so following `next_start` from 0 shows every matching element exactly once. Within the page,
elements are listed in document order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from runtime.browser.vocabulary.errors import ActionErrorCode, BrowserActionError

# A ref names its snapshot, its frame (none: the top document; `f2`: the tab's third frame) and
# its element's number there: `s3:e12`, `s3:f2e4`.
REF_PATTERN = re.compile(r"^(s\d+):(?:f(\d+))?e(\d+)$")


@dataclass(frozen=True)
class RefParts:
    """A ref taken apart: its snapshot, its frame's place in the tab's frame list, and its
    element's local index in that frame (the number less one)."""

    snapshot_id: str
    frame_index: int
    local_index: int

    @classmethod
    def parse(cls, ref: str) -> RefParts | None:
        match = REF_PATTERN.match(ref)
        if match is None or int(match.group(3)) < 1:
            return None
        return cls(match.group(1), int(match.group(2) or 0), int(match.group(3)) - 1)


def ref_text(snapshot_id: str, frame_index: int, local_index: int) -> str:
    """The ref of local index `local_index` in frame `frame_index` of snapshot `snapshot_id`."""
    return f"{snapshot_id}:{frame_prefix(frame_index)}e{local_index + 1}"


def frame_prefix(frame_index: int) -> str:
    return f"f{frame_index}" if frame_index else ""
LANDMARK_ROLES = ("banner", "navigation", "main", "complementary", "contentinfo", "search", "form", "region")
_LANDMARK = re.compile(r'^([a-z]+)(?:\s+"(.*)")?$', re.DOTALL)
# Room kept in a page's character budget for its header, view line and notes.
PAGE_FRAME_CHARS = 700


def _invalid(message: str) -> BrowserActionError:
    return BrowserActionError(ActionErrorCode.INVALID_PARAMS, message)


@dataclass(frozen=True)
class SnapshotQuery:
    """What one page of a snapshot shows. `within` is a ref of the snapshot (its subtree) or a
    landmark role, optionally with its name in double quotes (`navigation "Docs"`)."""

    start: int = 0
    max_elements: int = 400
    roles: tuple[str, ...] = ()
    text: str = ""
    within: str = ""

    @classmethod
    def from_params(cls, params: dict[str, Any], default_max_elements: int) -> SnapshotQuery:
        start = params.get("start", 0)
        if start is None:
            start = 0
        if not isinstance(start, int) or isinstance(start, bool) or start < 0:
            raise _invalid(f"params.start must be an integer >= 0 (the first element of the page), got {start!r}")
        size = params.get("max_elements", default_max_elements)
        if size is None:
            size = default_max_elements
        if not isinstance(size, int) or isinstance(size, bool) or size < 1:
            raise _invalid(f"params.max_elements must be an integer >= 1, got {size!r}")
        return cls(start, size, _roles(params.get("role")), _text(params.get("text")), _within(params.get("within")))

    @property
    def filtered(self) -> bool:
        return bool(self.roles or self.text or self.within)

    def within_ref(self) -> RefParts | None:
        """The ref when the region is a ref's subtree."""
        return RefParts.parse(self.within)

    def landmark(self) -> tuple[str, str | None] | None:
        if not self.within or self.within_ref():
            return None
        match = _LANDMARK.match(self.within)
        assert match is not None  # checked by from_params
        return match.group(1), match.group(2)

    def filters(self) -> dict[str, Any]:
        """The query's filters as the result shows them (none: the whole snapshot)."""
        out: dict[str, Any] = {}
        if self.roles:
            out["role"] = list(self.roles)
        if self.text:
            out["text"] = self.text
        if self.within:
            out["within"] = self.within
        return out

    def in_frame(self, frame_index: int, within_at: tuple[int, int] | None) -> dict[str, Any]:
        """The query as the page script of one frame reads it; `within_at` is the (frame index,
        local index) of a `within` ref."""
        query: dict[str, Any] = {"roles": list(self.roles), "text": self.text}
        if within_at is not None:
            if within_at[0] != frame_index:
                return {"none": True}
            query["within_index"] = within_at[1]
        landmark = self.landmark()
        if landmark is not None:
            query["landmark"], query["landmark_name"] = landmark
        return query


def _roles(value: Any) -> tuple[str, ...]:
    if value is None or value == "":
        return ()
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list | tuple) or not all(isinstance(item, str) for item in items):
        raise _invalid(f"params.role must be a role or a list of roles (link, button, textbox, ...), got {value!r}")
    return tuple(item.strip().lower() for item in items if item.strip())


def _text(value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _invalid(f"params.text must be a string (matched in names and texts, ignoring case), got {type(value).__name__}")
    return " ".join(value.split())


def _within(value: Any) -> str:
    if value is None or value == "":
        return ""
    if not isinstance(value, str):
        raise _invalid(f"params.within must be a string, got {type(value).__name__}")
    value = value.strip()
    if REF_PATTERN.match(value):
        return value
    match = _LANDMARK.match(value)
    if match is None or match.group(1) not in LANDMARK_ROLES:
        raise _invalid(
            f"params.within must be a ref of the snapshot like 's3:e12' (or 's3:f1e4' in a frame) or a landmark ({', '.join(LANDMARK_ROLES)}), "
            f'optionally with its name in double quotes like \'navigation "Docs"\'; got {value!r}'
        )
    return value


def plan_page(counts: Sequence[tuple[int, int]], start: int, size: int) -> tuple[list[tuple[int, int, int, int] | None], int]:
    """Which slice of each frame's matching lists (interactive, other) a page covers.

    `counts[f]` is frame f's (interactive, other) matches; the view is every frame's interactive
    matches in frame order, then every frame's other matches. Returns per frame the slice bounds
    (interactive from, to, other from, to) or None, and how many elements match in all."""
    segments = [(f, 0, n) for f, (n, _) in enumerate(counts)] + [(f, 1, n) for f, (_, n) in enumerate(counts)]
    bounds: list[list[int]] = [[0, 0, 0, 0] for _ in counts]
    position = 0
    end = start + size
    for frame, kind, count in segments:
        low, high = max(start, position), min(end, position + count)
        if low < high:
            bounds[frame][2 * kind] = low - position
            bounds[frame][2 * kind + 1] = high - position
        position += count
    ranges: list[tuple[int, int, int, int] | None] = [
        (b[0], b[1], b[2], b[3]) if b[1] > b[0] or b[3] > b[2] else None for b in bounds
    ]
    return ranges, position


def fitting_prefix(lines: Sequence[str], budget: int) -> int:
    """How many of `lines` (in view order) fit in `budget` characters, one newline each; at least
    one, so paging always moves on."""
    used = 0
    for count, line in enumerate(lines):
        used += len(line) + 1
        if used > budget:
            return max(1, count)
    return len(lines)
