"""A tab's accessibility tree for a model, across its frames (the page side is
runtime/browser/scripts/tree.js and tree_render.js).

A tree snapshot walks nothing up front: each frame's isolated world starts an empty ref registry
for the snapshot (`beginTreeSnapshot`), and refs are given as lines are written, so the refs a
model reads are short and in reading order. Each frame writes its own document; an iframe's line
is followed by its frame's document, written by that frame's world one level deeper, with refs
qualified by the frame (`s3:f1e4`). An iframe's element is matched to its frame by the frame's
owner (DOM.getFrameOwner), resolved in the parent frame's world.

The budget is shared in document order: the top document keeps some room for each iframe it
writes (tree_render.js FRAME_CHARS), and each frame gets that room plus whatever the frames
before it left.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, replace
from typing import Any

from runtime.browser.tab.snapshot_capture import Capture, FrameCapture
from runtime.browser.tab.snapshot_pages import RefParts, frame_prefix, ref_text
from runtime.browser.tab.worlds import FrameWorlds, call_on_frame_owner
from runtime.browser.vocabulary.errors import ActionErrorCode, BrowserActionError
from runtime.browser.vocabulary.tree import FoundNodes, SnapshotTree

# A tree's budget unless a caller gives one: about 150 lines of a page, the page section of one
# model request (BENCHMARKS.md, "What the model sees").
DEFAULT_TREE_CHARS = 6_000
# Below this, an iframe's document is not written (its line says how to see it).
MIN_FRAME_CHARS = 200
# The objects the driver resolves to match iframes to frames, released after each read.
OBJECT_GROUP = "verity-tree"
_REGEX = re.compile(r"^/(.+)/([a-z]*)$", re.DOTALL)


def _invalid(message: str) -> BrowserActionError:
    return BrowserActionError(ActionErrorCode.INVALID_PARAMS, message)


def _optional_count(params: dict[str, Any], key: str, minimum: int) -> int | None:
    value = params.get(key)
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise _invalid(f"params.{key} must be an integer >= {minimum}, got {value!r}")
    return value


@dataclass(frozen=True)
class TreeQuery:
    """Which part of the tree, and how much of it: under the element `ref` (None: the page),
    `depth` levels at most, from the root's child `start` on (its runs then not collapsed), in at
    most `max_chars` characters."""

    ref: RefParts | None = None
    depth: int | None = None
    start: int | None = None
    max_chars: int = DEFAULT_TREE_CHARS
    # A whole tree written exactly as the tab's latest keeps the latest's id, so the refs a
    # client already holds stay valid (same_tree below); otherwise older refs become stale.
    keep_same: bool = False

    @classmethod
    def from_params(cls, params: dict[str, Any], default_chars: int) -> TreeQuery:
        ref = params.get("ref")
        parts = None
        if ref is not None and ref != "":
            parts = RefParts.parse(str(ref))
            if parts is None:
                raise _invalid(f"params.ref {ref!r} is not a snapshot ref like 's3:e12' (or 's3:f1e4' in a frame)")
        chars = _optional_count(params, "max_chars", 200)
        keep_same = bool(params.get("keep_same"))
        return cls(parts, _optional_count(params, "depth", 1), _optional_count(params, "start", 0), chars or default_chars, keep_same)


@dataclass(frozen=True)
class TextPattern:
    """What a search looks for: text (ignoring case and spacing) or, written `/.../flags`, a
    JavaScript regular expression."""

    text: str
    regex: bool = False
    flags: str = ""

    @classmethod
    def parse(cls, written: Any) -> TextPattern:
        if not isinstance(written, str) or not written.strip():
            raise _invalid("params.text must be the text to find, or a regular expression written /like this/i")
        match = _REGEX.match(written.strip())
        if match is not None:
            if set(match.group(2)) - set("imsu"):
                raise _invalid(f"flags of {written!r} must be among i, m, s, u")
            return cls(match.group(1), True, match.group(2))
        return cls(" ".join(written.split()))

    def for_page(self) -> Any:
        return {"source": self.text, "flags": self.flags} if self.regex else self.text


async def begin_tree(cdp: Any, worlds: FrameWorlds, snapshot_id: str) -> Capture:
    """Start snapshot `snapshot_id` in every frame's world (an empty ref registry each)."""
    capture = Capture(url="", title="", frames=[], tree=True)
    for position, frame in enumerate(await worlds.frames()):
        label = "main" if position == 0 else frame.get("url", "")
        try:
            context_id = await worlds.context_for(frame)
            reply = await worlds.call(context_id, "beginTreeSnapshot", snapshot_id)
        except Exception as exc:  # noqa: BLE001 - a frame may navigate or detach meanwhile
            worlds.forget(frame)
            capture.notes.append(f"frame {label} not read: {str(exc).splitlines()[0]}")
            continue
        if "exceptionDetails" in reply:
            capture.notes.append(f"frame {label} not read: {reply['exceptionDetails'].get('text', 'script error')}")
            continue
        value = reply["result"]["value"]
        if position == 0:
            capture.url, capture.title = str(value.get("url", "")), str(value.get("title", ""))
        capture.frames.append(
            FrameCapture(frame["id"], label, frame.get("url", ""), context_id, 0, 0, len(capture.frames), (0.0, 0.0), [], frame.get("parentId"))
        )
    return capture


async def write_tree(
    cdp: Any, worlds: FrameWorlds, capture: Capture, snapshot_id: str, tab_id: str, query: TreeQuery, started: float
) -> SnapshotTree:
    """The part of snapshot `snapshot_id` (`capture`) that `query` asks for."""
    writer = TreeWriter(cdp, worlds, capture, snapshot_id)
    lines = await writer.write(query)
    root = ref_text(snapshot_id, query.ref.frame_index, query.ref.local_index) if query.ref is not None else ""
    return SnapshotTree(
        snapshot_id, tab_id, capture.url, capture.title, tuple(lines), root, query.start, query.depth, tuple(writer.notes),
        (time.perf_counter() - started) * 1000,
    )  # fmt: skip


async def find_in_tree(cdp: Any, worlds: FrameWorlds, capture: Capture, snapshot_id: str, tab_id: str, pattern: TextPattern, limit: int) -> FoundNodes:
    """The nodes of snapshot `snapshot_id` whose line matches `pattern`."""
    writer = TreeWriter(cdp, worlds, capture, snapshot_id)
    matches, total = await writer.find(pattern, limit)
    query = f"/{pattern.text}/{pattern.flags}" if pattern.regex else repr(pattern.text)
    return FoundNodes(snapshot_id, tab_id, query, tuple(matches), total, tuple(writer.notes))


async def same_tree(worlds: FrameWorlds, capture: Capture, earlier: SnapshotTree, written: SnapshotTree) -> SnapshotTree | None:
    """`written` as the tab's `earlier` whole tree when it is that tree line for line, refs aside:
    each frame's world then holds the new writing under the earlier id (its elements are the ones
    at those very lines), so the earlier refs act on them. None when anything differs, or a frame
    could not be told (the new id's refs hold then, the earlier ones are stale)."""
    shape = (earlier.url, earlier.root, earlier.start, earlier.depth, earlier.notes)
    if shape != (written.url, written.root, written.start, written.depth, written.notes) or len(earlier.lines) != len(written.lines):
        return None
    new_ref = re.compile(rf"(?<=ref=){re.escape(written.snapshot_id)}:")
    if tuple(new_ref.sub(f"{earlier.snapshot_id}:", line) for line in written.lines) != earlier.lines:
        return None
    for frame in capture.frames:
        try:
            reply = await worlds.call(frame.context_id, "renameSnapshot", written.snapshot_id, earlier.snapshot_id)
        except Exception:  # noqa: BLE001 - a frame that went away: the new refs are the ones that hold
            return None
        if not (reply.get("result") or {}).get("value"):
            return None
    return replace(written, snapshot_id=earlier.snapshot_id, lines=earlier.lines)


async def holds_tree(worlds: FrameWorlds, capture: Capture, snapshot_id: str | None) -> bool:
    """Whether the top document's world still holds tree snapshot `snapshot_id`."""
    if not capture.frames:
        return False
    try:
        reply = await worlds.call(capture.frames[0].context_id, "holdsSnapshot", snapshot_id)
    except Exception:  # noqa: BLE001 - its world went with its document
        return False
    return bool((reply.get("result") or {}).get("value"))


class TreeWriter:
    """Writes (or searches) one snapshot's tree across the frames of its capture."""

    def __init__(self, cdp: Any, worlds: FrameWorlds, capture: Capture, snapshot_id: str) -> None:
        self.cdp = cdp
        self.worlds = worlds
        self.capture = capture
        self.snapshot_id = snapshot_id
        self.notes: list[str] = list(capture.notes)
        # Per parent frame: its iframes' local indexes and the frames they hold.
        self._owners: dict[str, dict[int, FrameCapture]] = {}

    async def write(self, query: TreeQuery) -> list[str]:
        """The tree `query` asks for, as lines."""
        try:
            if query.ref is None:
                lines, _ = await self._frame(self._frame_at(0), None, 0, query.depth, query.start, query.max_chars, "")
                return lines
            frame = self._frame_at(query.ref.frame_index)
            lines, _ = await self._frame(frame, query.ref.local_index, 0, query.depth, query.start, query.max_chars, "")
            return lines
        finally:
            await self._release()

    async def find(self, pattern: TextPattern, limit: int) -> tuple[list[str], int]:
        """The paths of the first `limit` matching nodes, frames after the document holding them,
        and how many matched in all."""
        try:
            return await self._find(self._frame_at(0), pattern, limit, "")
        finally:
            await self._release()

    def _frame_at(self, index: int) -> FrameCapture:
        if index >= len(self.capture.frames):
            raise BrowserActionError(ActionErrorCode.NOT_FOUND, f"snapshot {self.snapshot_id} has no frame f{index}")
        return self.capture.frames[index]

    async def _call(self, frame: FrameCapture, name: str, *args: Any) -> dict[str, Any]:
        try:
            reply = await self.worlds.call(frame.context_id, name, *args)
        except Exception as exc:  # noqa: BLE001 - the frame's world went with its document
            if "context" in str(exc).lower():
                raise self._stale(frame) from None
            raise
        if "exceptionDetails" in reply:
            details = reply["exceptionDetails"]
            text = str((details.get("exception") or {}).get("description") or details.get("text") or "script error").splitlines()[0]
            if "SyntaxError" in text and name == "findInTree":
                raise _invalid(f"not a regular expression: {text}")
            raise RuntimeError(f"{name} failed in frame {frame.label}: {text}")
        value: dict[str, Any] = reply["result"]["value"]
        if value.get("stale"):
            raise self._stale(frame)
        return value

    def _stale(self, frame: FrameCapture) -> BrowserActionError:
        return BrowserActionError(
            ActionErrorCode.STALE_REF,
            f"snapshot {self.snapshot_id} no longer matches the page (frame {frame.label} was replaced, or its element removed); take a new snapshot",
        )

    async def _frame(
        self, frame: FrameCapture, root: int | None, level: int, depth: int | None, start: int | None, budget: int, root_ref: str
    ) -> tuple[list[str], int]:
        """One frame's lines (under its local index `root`, or all its document) and the
        characters they took, its iframes' documents written in."""
        options = {"prefix": f"{self.snapshot_id}:{frame_prefix(frame.index)}", "level": level, "depth": depth, "start": start,
                   "budget": budget, "rootRef": root_ref}  # fmt: skip
        value = await self._call(frame, "renderTree", self.snapshot_id, root, options)
        if value.get("frame"):
            assert root is not None
            inner = await self._child_at(frame, root)
            if inner is None:
                return [f"- iframe [ref={ref_text(self.snapshot_id, frame.index, root)}]: … (its document could not be read)"], 0
            return await self._frame(inner, None, level, depth, start, budget, ref_text(self.snapshot_id, frame.index, root))
        lines: list[str] = list(value["lines"])
        used = int(value["used"])
        if not value["frames"]:
            return lines, used
        spare = max(0, budget - used)
        out: list[str] = []
        cursor = 0
        for marker in value["frames"]:
            at = int(marker["at"])
            out.extend(lines[cursor : at + 1])
            cursor = at + 1
            iframe_ref = ref_text(self.snapshot_id, frame.index, int(marker["index"]))
            chars = int(marker["chars"]) + spare
            child = await self._child_at(frame, int(marker["index"]))
            if child is None:
                out[-1] += ": … (its document could not be read)"
                continue
            depth_left = None if marker["depth"] is None else int(marker["depth"])
            if (depth_left is not None and depth_left < 1) or chars < MIN_FRAME_CHARS:
                out[-1] += f": … (its document: browser_snapshot ref={iframe_ref})"
                continue
            inner, took = await self._frame(child, None, int(marker["level"]) + 1, depth_left, None, chars, iframe_ref)
            out[-1] += ":" if inner else ": (empty)"
            out.extend(inner)
            used += took
            spare = max(0, chars - took)
        out.extend(lines[cursor:])
        return out, used

    async def _find(self, frame: FrameCapture, pattern: TextPattern, limit: int, above: str) -> tuple[list[str], int]:
        prefix = f"{self.snapshot_id}:{frame_prefix(frame.index)}"
        value = await self._call(frame, "findInTree", self.snapshot_id, pattern.for_page(), pattern.regex, limit, prefix)
        matches = [above + match for match in value["matches"]]
        total = int(value["total"])
        for marker in value["frames"]:
            child = await self._child_at(frame, int(marker["index"]))
            if child is None:
                self.notes.append(f"frame {marker['path']} not searched: its document could not be read")
                continue
            found, count = await self._find(child, pattern, max(0, limit - len(matches)), f"{above}{marker['path']} > ")
            matches += found
            total += count
        return matches, total

    async def _child_at(self, parent: FrameCapture, local_index: int) -> FrameCapture | None:
        """The frame whose owner is the parent frame's element at `local_index`."""
        if parent.frame_id not in self._owners:
            owners: dict[int, FrameCapture] = {}
            for child in self.capture.frames:
                if child.parent_id == parent.frame_id:
                    index = await self._owner_index(child, parent)
                    if index is not None:
                        owners[index] = child
            self._owners[parent.frame_id] = owners
        return self._owners[parent.frame_id].get(local_index)

    async def _owner_index(self, child: FrameCapture, parent: FrameCapture) -> int | None:
        try:
            reply = await call_on_frame_owner(self.cdp, child.frame_id, parent.context_id, "refIndexOfThis", [self.snapshot_id], object_group=OBJECT_GROUP)
        except Exception:  # noqa: BLE001 - a frame that went away has no owner to match
            return None
        value = (reply.get("result") or {}).get("value")
        return int(value) if isinstance(value, int) else None

    async def _release(self) -> None:
        try:
            await self.cdp.send("Runtime.releaseObjectGroup", {"objectGroup": OBJECT_GROUP})
        except Exception:  # noqa: BLE001 - releasing is housekeeping; a closed tab holds nothing
            pass
