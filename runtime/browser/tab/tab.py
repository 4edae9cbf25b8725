"""One tab: its pyppeteer page, a raw CDP session, and its snapshot refs.

Refs are bound to DOM node identity (the element object registered by the snapshot walker in an
isolated world) and to the tab's latest snapshot: a ref is resolved only if it belongs to that
snapshot and the very node it named is still connected.
Anything else is `stale_ref` - the driver never re-finds "a similar element" behind a ref.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from runtime.browser.vocabulary.actions import Target
from runtime.browser.vocabulary.document import DocumentIdentity
from runtime.browser.tab.closed_roots import ClosedRoots
from runtime.browser.tab.document_tracking import DocumentTracker
from runtime.browser.vocabulary.errors import ActionErrorCode, BrowserActionError, document_replaced
from runtime.browser.vocabulary.observation import Snapshot
from runtime.browser.tab.locate import locate
from runtime.browser.scripts.loader import WORLD_NAME, new_document_source
from runtime.browser.tab.snapshot_capture import Capture, capture_candidates, show_page
from runtime.browser.tab.worlds import FrameWorlds, call_page_script
from runtime.browser.tab.snapshot_pages import RefParts, SnapshotQuery, ref_text
from runtime.browser.tab.snapshot_tree import TextPattern, TreeQuery, begin_tree, find_in_tree, holds_tree, same_tree, write_tree
from runtime.browser.vocabulary.tree import FoundNodes, SnapshotTree

if TYPE_CHECKING:
    from pyppeteer.page import Page

T = TypeVar("T")

# How long (x 10 ms) a gesture's navigation request may take to be reported.
NAVIGATION_NOTICE_POLLS = 5
# How long a requested navigation that neither loads nor commits is waited for.
NAVIGATION_COMMIT_SECONDS = 2.0


@dataclass(frozen=True)
class ResolvedElement:
    """A live element handle (CDP RemoteObject id) plus how it was found, for results."""

    object_id: str
    how: dict[str, Any]
    context_id: int | None = None  # the isolated world it was found in, when known


@dataclass(frozen=True)
class TabHooks:
    """What a tab needs from whoever keeps track of it, as plain callables.

    `next_snapshot_id` names each snapshot (unique across the tabs that share it, so a ref names
    its tab's snapshot); `url_changed(tab_id, url)` hears every new URL of the top document.
    """

    next_snapshot_id: Callable[[], str]
    url_changed: Callable[[str, str], None]


class Tab:
    """One page driven over CDP. Knows its own page only; ids and URL bookkeeping go through `hooks`."""

    def __init__(self, tab_id: str, page: Page, cdp: Any, opener_tab_id: str | None, hooks: TabHooks) -> None:
        self.hooks = hooks
        self.tab_id = tab_id
        self.page = page
        self.cdp = cdp
        self.opener_tab_id = opener_tab_id
        self.last_status: int | None = None
        self.deadline: float = 0.0
        self.latest_snapshot: Snapshot | None = None
        self.worlds = FrameWorlds(cdp, lambda: self.documents.frame_id)
        self.closed_roots = ClosedRoots(cdp)
        self.documents = DocumentTracker(tab_id, cdp)
        # What the latest act watches for its own effect (action_handlers/effects.py sets it).
        self.effect_watch: Any = None
        # The latest snapshot's capture (where its refs live) and whether one came before it.
        self._captured: Capture | None = None
        self._captured_id: str | None = None
        self._had_previous = False
        # The latest whole tree taken (take_tree), which a tree reading the same may stand for.
        self._whole_tree: SnapshotTree | None = None

    @classmethod
    async def attach(cls, tab_id: str, page: Page, *, opener_tab_id: str | None, hooks: TabHooks) -> Tab:
        # The tab's reads, worlds and document tracking share the page's own CDP session, the one
        # pyppeteer drives it with, which already has the Page, Network and Runtime events on. A
        # session of its own made the browser send each of those events twice, and the run
        # decode them twice (BENCHMARKS.md, "Tenth sitting").
        cdp = page._client
        tab = cls(tab_id, page, cdp, opener_tab_id, hooks)
        page.on("response", tab._on_response)
        page.on("framenavigated", tab._on_frame_navigated)
        await tab.documents.start()
        # Every document of the tab gets the page scripts in the world the driver reads from, and
        # keeps its churn ledger from its first moment (an act's judge asks it what changed by itself).
        await cdp.send("Page.addScriptToEvaluateOnNewDocument", {"source": new_document_source(), "worldName": WORLD_NAME})
        return tab

    def document(self) -> DocumentIdentity:
        """The document the top frame shows now (as of the last CDP event received)."""
        return self.documents.current()

    def _on_response(self, response: Any) -> None:
        # Only the top document's status classifies a navigation (404 -> page_not_found).
        request = response.request
        if request.resourceType == "document" and request.frame is self.page.mainFrame:
            self.last_status = response.status

    def _on_frame_navigated(self, frame: Any) -> None:
        if frame is self.page.mainFrame:
            self.note_url(frame.url)

    def note_url(self, url: str) -> None:
        """Tell the tracker the top document now shows `url`."""
        self.hooks.url_changed(self.tab_id, url)

    def remaining_ms(self) -> float:
        return max(0.0, (self.deadline - time.monotonic()) * 1000)

    # ----------------------------------------------------------------- scripting

    async def evaluate(self, expression: str) -> Any:
        """Evaluate `expression` in the top document's isolated world and return its JSON value
        (a promise is awaited). What the driver itself asks goes through `call_script`."""
        return await self._in_top_world(lambda context_id: self.worlds.evaluate(context_id, expression, await_promise=True))

    async def call_script(self, name: str, *args: Any) -> Any:
        """The JSON value of the page scripts' function `name` (runtime/browser/scripts) called
        with JSON `args` in the top document's isolated world (a promise is awaited). The isolated
        world has the DOM without the page's own scripts: a page that redefines `document.title`,
        `innerText` or `querySelectorAll` for its scripts cannot change what Verity reads, checks
        and reports (features/verdict_honesty_runs.feature)."""
        return await self._in_top_world(lambda context_id: self.worlds.call(context_id, name, *args))

    async def _in_top_world(self, send: Callable[[int], Awaitable[dict[str, Any]]]) -> Any:
        """The JSON value of what `send` asks the top document's isolated world (by its context id)."""
        async def in_top_world() -> dict[str, Any]:
            return await send(await self.worlds.top_context())

        return _script_value(await self._in_live_worlds(in_top_world))

    async def adopt_closed_roots(self) -> int:
        """Hand the top document's unread closed shadow roots to its isolated world, where the
        page's judgments read them (closed_roots.py); returns how many."""
        return await self._in_live_worlds(lambda: self.closed_roots.adopt(self.worlds, self.document()))

    async def ready_state(self) -> str:
        """`document.readyState`, read in the page's own world: the one read that is not
        evidence. A page that lies about it only makes Verity wait, or read a document whose
        reads are then tied to their document anyway; and it is the read through which a page's
        own script can replace the document mid-read (tests/fixtures/site/moves_on.html)."""
        reply = await self.cdp.send(
            "Runtime.evaluate",
            {"expression": "document.readyState", "returnByValue": True, "awaitPromise": True},
        )
        return str(_script_value(reply))

    async def _in_live_worlds(self, operation: Callable[[], Awaitable[T]]) -> T:
        """`operation`, run once more on fresh isolated worlds when a world it used went with a
        document replaced in place (a javascript: URL keeps the loader id the worlds are keyed by)."""
        try:
            return await operation()
        except BrowserActionError:
            raise
        except Exception as exc:  # noqa: BLE001 - the frame's world went with its document
            if "context" not in str(exc).lower():
                raise
        self.worlds.reset()
        return await operation()

    async def call_script_on(self, element: ResolvedElement, name: str, *args: Any) -> Any:
        """The page scripts' function `name` called with `this` = the element (in the world it
        was found in) and JSON `args`; returns its JSON value (a promise is awaited)."""
        return _script_value(await call_page_script(self.cdp, {"objectId": element.object_id}, name, args))

    async def call_on(self, element: ResolvedElement, function: str, *args: Any) -> Any:
        """Call the function declaration `function` with `this` = the element and JSON `args`;
        returns its JSON value. What the driver itself asks goes through `call_script_on`."""
        reply = await self.cdp.send(
            "Runtime.callFunctionOn",
            {
                "objectId": element.object_id,
                "functionDeclaration": function,
                "arguments": [{"value": arg} for arg in args],
                "returnByValue": True,
                "awaitPromise": True,
            },
        )
        return _script_value(reply)

    async def settle_navigation(self, started_before: int, before: DocumentIdentity) -> dict[str, Any]:
        """After a gesture: when it started a navigation of the top frame, wait (within the
        action's deadline) until the new document has committed and loaded. The old document's
        context is gone then, so nothing is evaluated in it; a context lost mid-way is asked
        again. A navigation that never commits (Chromium refuses some) is waited for only
        while it loads, or NAVIGATION_COMMIT_SECONDS at most; the run's next read sees it anyway."""
        # The gesture's navigation request arrives as a CDP event just after the gesture returns.
        for _ in range(NAVIGATION_NOTICE_POLLS):
            if self.documents.navigations_started != started_before:
                break
            await asyncio.sleep(0.01)
        else:
            return {}
        requested_at = time.monotonic()
        while self.remaining_ms() > 200:
            committed = not self.document().same_document(before)
            if not committed and not self.documents.loading and time.monotonic() - requested_at > NAVIGATION_COMMIT_SECONDS:
                return {"navigated": False, "navigation_requested": True}
            if committed and not self.documents.loading:
                try:
                    if await self.ready_state() == "complete":
                        break
                except Exception as exc:  # noqa: BLE001 - the context went with the old document
                    if not document_replaced(exc):
                        raise
            await asyncio.sleep(0.05)
        return {"navigated": True, "url": self.documents.url, "loaded": not self.documents.loading}

    async def active_element(self) -> ResolvedElement:
        """The focused element of the top document (the body when nothing has focus), in the
        driver's isolated world."""
        context_id = await self.worlds.top_context()
        reply = await self.worlds.call(context_id, "activeElement", by_value=False)
        return ResolvedElement(reply["result"]["objectId"], {"focused": True})

    async def current_url(self) -> str:
        return str(await self.call_script("url"))

    async def title(self) -> str:
        """The document's title as the page shows it (the isolated world's `document.title`)."""
        return str(await self.call_script("title") or "")

    # ----------------------------------------------------------------- snapshots

    async def take_snapshot(self, max_elements: int, query: SnapshotQuery | None = None, max_chars: int | None = None) -> Snapshot:
        """Capture (every candidate gets a ref; older refs become stale), then show the page
        `query` asks for (default: the first `max_elements`)."""
        started = time.perf_counter()
        snapshot_id = self.hooks.next_snapshot_id()
        self._had_previous = self._captured is not None
        # Refs of the previous snapshot go stale from here on, whatever happens next.
        self._captured, self._captured_id = None, snapshot_id
        self._captured = await capture_candidates(self.cdp, self.worlds, snapshot_id=snapshot_id)
        return await self._show(query or SnapshotQuery(max_elements=max_elements), max_chars, started)

    async def show_snapshot(self, snapshot_id: str, query: SnapshotQuery, max_chars: int | None = None) -> Snapshot:
        """Another page of the tab's latest snapshot: no new capture, every ref stays valid."""
        if snapshot_id != self._captured_id or self._captured is None:
            raise BrowserActionError(
                ActionErrorCode.STALE_REF,
                f"snapshot {snapshot_id} is not tab {self.tab_id}'s latest ({self._captured_id or 'none'}); take a new snapshot",
                latest_snapshot_id=self._captured_id,
            )
        return await self._show(query, max_chars, time.perf_counter())

    async def _show(self, query: SnapshotQuery, max_chars: int | None, started: float) -> Snapshot:
        capture, snapshot_id = self._captured, self._captured_id
        assert capture is not None and snapshot_id is not None
        snapshot = await show_page(
            self.worlds, capture, snapshot_id, self.tab_id, query, self._within_location(query, snapshot_id), max_chars, started,
            had_previous=self._had_previous,
        )  # fmt: skip
        self.latest_snapshot = snapshot
        return snapshot

    def _within_location(self, query: SnapshotQuery, snapshot_id: str) -> tuple[int, int] | None:
        """(frame index, local index) of the query's `within` ref, which must be of this snapshot."""
        named = query.within_ref()
        if named is None:
            return None
        if named.snapshot_id != snapshot_id:
            raise BrowserActionError(
                ActionErrorCode.STALE_REF, f"within={query.within} is not a ref of snapshot {snapshot_id}", ref=query.within
            )
        if not self._holds(named):
            raise BrowserActionError(ActionErrorCode.NOT_FOUND, f"snapshot {snapshot_id} has no element {query.within}", ref=query.within)
        return named.frame_index, named.local_index

    def _holds(self, parts: RefParts) -> bool:
        """Whether the latest snapshot can have the element `parts` names: its frame was read, and
        a walk's snapshot gave that many refs there (a tree's gives them as it is written)."""
        if self._captured is None or parts.frame_index >= len(self._captured.frames):
            return False
        return self._captured.tree or parts.local_index < self._captured.frames[parts.frame_index].total

    # ----------------------------------------------------------------- the tree for a model

    async def take_tree(self, query: TreeQuery) -> SnapshotTree:
        """A new tree snapshot (older refs become stale), written as `query` asks (no `ref`); with
        `query.keep_same`, one that reads exactly as the latest tree keeps its id and refs."""
        started = time.perf_counter()
        earlier = self._whole_tree if self._whole_tree is not None and self._whole_tree.snapshot_id == self._captured_id else None
        await self._begin_tree()
        assert self._captured is not None and self._captured_id is not None
        written = await write_tree(self.cdp, self.worlds, self._captured, self._captured_id, self.tab_id, query, started)
        kept = await same_tree(self.worlds, self._captured, earlier, written) if query.keep_same and earlier is not None else None
        if kept is not None:
            self._captured_id = kept.snapshot_id
        self._whole_tree = kept or written
        return self._whole_tree

    async def show_tree(self, query: TreeQuery) -> SnapshotTree:
        """The part of the latest tree snapshot under `query.ref`: every ref stays valid."""
        assert query.ref is not None
        ref = query.ref
        written = ref_text(ref.snapshot_id, ref.frame_index, ref.local_index)
        if ref.snapshot_id != self._captured_id or self._captured is None or not self._captured.tree:
            raise BrowserActionError(
                ActionErrorCode.STALE_REF,
                f"ref {written} is not from tab {self.tab_id}'s latest snapshot ({self._captured_id or 'none'}); take a new snapshot",
                ref=written, latest_snapshot_id=self._captured_id,
            )  # fmt: skip
        if not self._holds(ref):
            raise BrowserActionError(ActionErrorCode.NOT_FOUND, f"snapshot {ref.snapshot_id} has no frame f{ref.frame_index}", ref=written)
        return await write_tree(self.cdp, self.worlds, self._captured, ref.snapshot_id, self.tab_id, query, time.perf_counter())

    async def find_nodes(self, pattern: TextPattern, limit: int) -> FoundNodes:
        """The nodes of the latest tree snapshot whose line matches `pattern`; a new tree
        snapshot when the latest is not one, or its document is gone."""
        if self._captured is None or not self._captured.tree or not await holds_tree(self.worlds, self._captured, self._captured_id):
            await self._begin_tree()
        assert self._captured is not None and self._captured_id is not None
        return await find_in_tree(self.cdp, self.worlds, self._captured, self._captured_id, self.tab_id, pattern, limit)

    async def _begin_tree(self) -> None:
        snapshot_id = self.hooks.next_snapshot_id()
        self._had_previous = self._captured is not None
        # Refs of the previous snapshot go stale from here on, whatever happens next.
        self._captured, self._captured_id = None, snapshot_id
        self._captured = await self._in_live_worlds(lambda: begin_tree(self.cdp, self.worlds, snapshot_id))

    # ----------------------------------------------------------------- targets

    async def resolve(self, target: Target) -> ResolvedElement:
        """Find the one element a target names (locate.py: strict), or raise `stale_ref` /
        `not_found` / `ambiguous_target` / `invalid_params`."""
        if target.ref:
            return await self._resolve_ref(target.ref)
        found = await self._in_live_worlds(lambda: locate(self.worlds, self.cdp, target))
        return ResolvedElement(found.object_id, found.how, found.context_id)

    async def _resolve_ref(self, ref: str) -> ResolvedElement:
        parts = RefParts.parse(ref)
        if parts is None:
            raise BrowserActionError(
                ActionErrorCode.INVALID_PARAMS, f"ref {ref!r} is not a snapshot ref like 's3:e12' (or 's3:f1e4' in a frame)"
            )
        latest = self._captured_id
        if parts.snapshot_id != latest:
            raise BrowserActionError(
                ActionErrorCode.STALE_REF,
                f"ref {ref} is not from tab {self.tab_id}'s latest snapshot ({latest or 'none'}); "
                "take a new snapshot and use its refs",
                ref=ref,
                latest_snapshot_id=latest,
            )
        if self._captured is None or not self._holds(parts):
            raise BrowserActionError(ActionErrorCode.NOT_FOUND, f"snapshot {latest} has no element {ref}", ref=ref)
        stale = BrowserActionError(
            ActionErrorCode.STALE_REF,
            f"the element behind {ref} was removed, re-rendered or navigated away since snapshot {latest}; "
            "take a new snapshot",
            ref=ref,
        )
        frame_index, local_index = parts.frame_index, parts.local_index
        context_id = self._captured.frames[frame_index].context_id
        try:
            reply = await self.worlds.call(context_id, "snapshotElement", latest, local_index, by_value=False)
        except Exception as exc:  # noqa: BLE001 - the frame's world is gone: it navigated
            if "context" in str(exc).lower():
                raise stale from None
            raise
        result = reply.get("result", {})
        if "exceptionDetails" in reply or result.get("subtype") != "node":
            raise stale
        element = ResolvedElement(result["objectId"], {"ref": ref})
        if not await self.call_script_on(element, "isConnected"):
            raise stale
        # How the element could be found again without the snapshot (a frozen recipe's act).
        return ResolvedElement(element.object_id, {"ref": ref, "chosen": await self.call_script_on(element, "refTarget")}, context_id)


def _script_value(reply: dict[str, Any]) -> Any:
    """The JSON value a Runtime.evaluate / callFunctionOn reply returned, or its exception as
    script_failed."""
    if "exceptionDetails" in reply:
        raise BrowserActionError(ActionErrorCode.SCRIPT_FAILED, _exception_text(reply["exceptionDetails"]))
    return reply["result"].get("value")


def _exception_text(details: dict[str, Any]) -> str:
    exception = details.get("exception") or {}
    return str(exception.get("description") or details.get("text") or "script error").splitlines()[0]
