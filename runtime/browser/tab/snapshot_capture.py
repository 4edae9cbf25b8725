"""Collecting element candidates from every frame of a tab, with roles, names and live handles.

The walk runs in each frame's isolated world (page scripts cannot see or tamper with it:
runtime/browser/scripts/snapshot.js) and keeps every candidate in that world: a ref resolves to
the very object the walk saw, so a re-rendered or removed element can never stand in for it. The
walk computes no accessible name and no layout box: a page of the snapshot (`describe_frame`)
describes only the elements it shows, so every element of a 17,000-link page has a ref for the
cost of one pass over its DOM.

Why not `DOMSnapshot.captureSnapshot`: on a 10,000-element page it costs ~600 ms in Chromium
plus ~250 ms of decoding in Python; the in-page walker returns only counts, a page only its
elements.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from runtime.browser.tab.snapshot_pages import PAGE_FRAME_CHARS, RefParts, SnapshotQuery, fitting_prefix, plan_page, ref_text
from runtime.browser.tab.worlds import FrameWorlds
from runtime.browser.vocabulary.errors import ActionErrorCode, BrowserActionError
from runtime.browser.vocabulary.observation import BoundingBox, Snapshot, SnapshotElement


@dataclass
class Candidate:
    """A described element of a snapshot page: interactive, or visible with its own text.
    `local_index` is its place among its frame's refs (document order)."""

    tag: str
    role: str
    name: str
    text: str
    bbox: BoundingBox
    interactive: bool
    in_shadow: bool
    attributes: dict[str, str]
    seen_before: bool
    connected: bool
    local_index: int


@dataclass(frozen=True)
class Landmark:
    """A landmark region of a frame (banner, navigation, main, ...) and how many refs it holds."""

    role: str
    name: str
    elements: int

    def label(self) -> str:
        return f'{self.role} "{self.name}"' if self.name else self.role


@dataclass
class FrameCapture:
    """One frame's part of a snapshot: its place `index` in the tab's frames names its refs
    (`s3:e12` in the top document, `s3:f2e4` in the third frame); a walk gave `total` of them."""

    frame_id: str
    label: str
    url: str
    context_id: int
    total: int
    interactive: int
    index: int
    offset: tuple[float, float]
    landmarks: list[Landmark]
    parent_id: str | None = None


@dataclass
class Capture:
    url: str
    title: str
    frames: list[FrameCapture]
    notes: list[str] = field(default_factory=list)
    # A tree snapshot (snapshot_tree.py): refs are given as the tree is written, not by a walk.
    tree: bool = False

    @property
    def total(self) -> int:
        return sum(frame.total for frame in self.frames)

    @property
    def interactive(self) -> int:
        return sum(frame.interactive for frame in self.frames)


async def capture_candidates(cdp: Any, worlds: FrameWorlds, *, snapshot_id: str) -> Capture:
    """Run the walker in every frame: every candidate gets a ref (registered in the frame's
    isolated world); nothing is described yet (`describe_frame` does it for a page)."""
    capture = Capture(url="", title="", frames=[])
    frames = await worlds.frames()
    for position, frame in enumerate(frames):
        label = "main" if position == 0 else frame.get("url", "")
        reply: dict[str, Any] | None = None
        for attempt in range(2):
            try:
                context_id = await worlds.context_for(frame)
                reply = await worlds.call(context_id, "captureSnapshot", snapshot_id)
                break
            except Exception as exc:  # noqa: BLE001 - a frame may navigate or detach mid-capture
                worlds.forget(frame)
                if attempt == 1:
                    capture.notes.append(f"frame {label} not captured: {str(exc).splitlines()[0]}")
        if reply is None:
            continue
        if "exceptionDetails" in reply:
            capture.notes.append(f"frame {label} not captured: {reply['exceptionDetails'].get('text', 'script error')}")
            continue
        value = reply["result"]["value"]
        if position == 0:
            capture.url = value.get("url", frame.get("url", ""))
            capture.title = value.get("title", "")
        offset = (0.0, 0.0) if position == 0 else await _frame_offset(cdp, frame["id"])
        landmarks = [Landmark(role, name, count) for role, name, count in value["landmarks"]]
        capture.frames.append(
            FrameCapture(frame["id"], label, frame.get("url", ""), context_id, value["total"], value["interactive"], len(capture.frames), offset, landmarks, frame.get("parentId"))
        )
    return capture


class FrameGone(Exception):
    """The frame's world no longer holds the snapshot (it navigated, or a newer walk replaced it)."""


async def describe_frame(
    worlds: FrameWorlds, frame: FrameCapture, snapshot_id: str, query: dict[str, Any], ranges: tuple[int, int, int, int] | None
) -> tuple[tuple[int, int], list[Candidate]]:
    """The counts of the frame's elements matching `query` (interactive, other) and, for
    `ranges` (slices of those two lists), their descriptions."""
    try:
        reply = await worlds.call(frame.context_id, "describeSnapshot", snapshot_id, query, list(ranges) if ranges else None)
    except Exception as exc:  # noqa: BLE001 - the frame's world went with its document
        if "context" in str(exc).lower():
            raise FrameGone(str(exc)) from None
        raise
    if "exceptionDetails" in reply:
        raise RuntimeError(f"snapshot page script failed in frame {frame.label}: {reply['exceptionDetails'].get('text', 'script error')}")
    value = reply["result"]["value"]
    if value.get("stale"):
        raise FrameGone(f"frame {frame.label} no longer holds snapshot {snapshot_id}")
    offset_x, offset_y = frame.offset
    candidates = [
        Candidate(
            tag=item[1],
            role=item[2],
            name=item[3],
            text=item[4],
            bbox=BoundingBox(round(item[5] + offset_x, 1), round(item[6] + offset_y, 1), item[7], item[8]),
            interactive=item[9],
            in_shadow=item[10],
            attributes=item[11],
            seen_before=item[12],
            connected=item[13],
            local_index=item[0],
        )
        for item in value["items"]
    ]
    counts = value["counts"]
    return (int(counts[0]), int(counts[1])), candidates


async def _frame_offset(cdp: Any, frame_id: str) -> tuple[float, float]:
    """Top-left of an iframe's content box in the top-level viewport (CSS px)."""
    try:
        owner = await cdp.send("DOM.getFrameOwner", {"frameId": frame_id})
        box = await cdp.send("DOM.getBoxModel", {"backendNodeId": owner["backendNodeId"]})
        content = box["model"]["content"]
        return float(content[0]), float(content[1])
    except Exception:  # noqa: BLE001 - an offset is cosmetic; never fail a snapshot for it
        return 0.0, 0.0


async def show_page(
    worlds: FrameWorlds,
    capture: Capture,
    snapshot_id: str,
    tab_id: str,
    query: SnapshotQuery,
    within_at: tuple[int, int] | None,
    max_chars: int | None,
    started: float,
    *,
    had_previous: bool,
) -> Snapshot:
    """The page of snapshot `snapshot_id` (`capture`) that `query` asks for, fitted to `max_chars`:
    its elements described, interactive ones first, and what was left off said. `within_at` is
    where the query's `within` ref is (frame index, local index); `had_previous` whether the tab
    took a snapshot before this one (else nothing is "new")."""
    frames = capture.frames
    queries = [query.in_frame(index, within_at) for index in range(len(frames))]
    try:
        if query.filtered:
            counts = [(await describe_frame(worlds, f, snapshot_id, q, None))[0] for f, q in zip(frames, queries, strict=True)]
        else:
            counts = [(f.interactive, f.total - f.interactive) for f in frames]
        ranges, matching = plan_page(counts, query.start, query.max_elements)
        interactive: list[SnapshotElement] = []
        others: list[SnapshotElement] = []
        for frame, frame_query, frame_range in zip(frames, queries, ranges, strict=True):
            if frame_range is None:
                continue
            _, described = await describe_frame(worlds, frame, snapshot_id, frame_query, frame_range)
            for candidate in described:
                element = SnapshotElement(
                    ref=ref_text(snapshot_id, frame.index, candidate.local_index),
                    role=candidate.role,
                    name=candidate.name,
                    text=candidate.text,
                    tag=candidate.tag,
                    bbox=candidate.bbox,
                    visible=candidate.connected and candidate.bbox.w > 0 and candidate.bbox.h > 0,
                    interactive=candidate.interactive,
                    # With no earlier snapshot on this tab nothing is "new" to the reader yet.
                    new=had_previous and not candidate.seen_before,
                    frame=frame.label,
                    in_shadow=candidate.in_shadow,
                    attributes=candidate.attributes,
                )
                (interactive if candidate.interactive else others).append(element)
    except FrameGone as gone:
        raise BrowserActionError(
            ActionErrorCode.STALE_REF, f"snapshot {snapshot_id} no longer matches the page ({gone}); take a new snapshot"
        ) from None
    in_view_order = interactive + others
    budget = (max_chars if max_chars is not None else 1 << 30) - PAGE_FRAME_CHARS
    kept = in_view_order[: fitting_prefix([e.describe() for e in in_view_order], budget)]
    end = query.start + len(kept)
    next_start = end if end < matching else None
    cut: list[str] = []
    if next_start is not None or (query.start > 0 and matching):
        cut.append(
            f"{matching - len(kept)} of {matching} elements not on this page (max_elements={query.max_elements}"
            + (f", max_chars={max_chars}" if max_chars is not None else "")
            + "; interactive elements are listed first)"
            + (f"; next page: start={next_start}" if next_start is not None else "")
        )
    # Refs number frames in order, each in document order: the page reads top to bottom.
    shown = sorted(kept, key=lambda e: _ref_number(e.ref))
    snapshot = Snapshot(
        snapshot_id=snapshot_id,
        tab_id=tab_id,
        url=capture.url,
        title=capture.title,
        elements=shown,
        total_candidates=capture.total,
        truncated=bool(cut),
        cut=cut + capture.notes,
        capture_ms=(time.perf_counter() - started) * 1000,
        start=query.start,
        next_start=next_start,
        matching=matching,
        interactive_total=capture.interactive,
        filters=query.filters(),
        landmarks=[f"{landmark.label()} ({landmark.elements})" for frame in frames for landmark in frame.landmarks],
    )
    return snapshot


def _ref_number(ref: str) -> tuple[int, int]:
    parts = RefParts.parse(ref)
    assert parts is not None
    return parts.frame_index, parts.local_index
