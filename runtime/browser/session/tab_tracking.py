"""`TabTracker`: the tabs of one browser context, the sticky primary tab, and the popups it opens.

The primary tab is the context's first page and stays the default target until the session is
told to make another tab primary (`make_primary`, seed 004: on purpose, never by focus or a
popup). Tabs a page opens (target=_blank, window.open) are adopted as they appear; every change
(opened, navigated, closed, primary) is announced as a `TabEvent` to each listener.

Only the tab in front paints: a hidden tab's screenshot waits forever and its timers are
throttled. So the tab an action runs on is brought to the front first (`bring_to_front`), and a
popup, which takes the front as it opens, gives it back to the tab that had it.

A new tab is noticed by the browser's own `Target.targetCreated` event, heard as it arrives
(pyppeteer's `targetcreated` comes later: it waits for the new target's first URL). Chromium
creates a popup's target while the page's click handler is still running, so the event reaches
us before the reply to the input that caused it; one more browser round trip after an action
flushes any event sent before it. So `opened_since_mark()` knows every tab an action opened
without waiting for time to pass.

With a judge (the session has a network policy) each tab also gets a `TopFrameWatch`: which
navigations of its top frame the policy refused; and a `SentRequestWatch`: every request of its
frames the policy refused, with what it carried, told to each `listen_to_sent_requests` listener.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from runtime.browser.vocabulary.actions import ActionName
from runtime.browser.vocabulary.errors import ActionErrorCode, BrowserActionError
from runtime.browser.launch.browser import Browser
from runtime.browser.launch.transport import FlatSession
from runtime.browser.vocabulary.observation import TabEvent
from runtime.browser.tab.tab import Tab, TabHooks
from runtime.browser.tab.external_protocols import ExternalProtocolWatch
from runtime.browser.tab.sent_requests import SentRequest, SentRequestWatch
from runtime.browser.tab.top_frame import Judge, RefusalLookup, TopFrameBlock, TopFrameWatch
from runtime.browser.tab.worker_requests import DedicatedWorkerWatch
from runtime.policy import BlockedRequest

# Popups come from user gestures (and a recipe's page scripts), so only these actions report the
# tabs they opened in `opened_tabs`, each announced before the action ends; a tab a page opens on
# its own later is still tracked and announced as a TabEvent.
ACTIONS_THAT_MAY_OPEN_TABS = frozenset({
    ActionName.ACT.value,
    ActionName.BROWSER_CLICK.value,
    ActionName.BROWSER_TYPE.value,
    ActionName.BROWSER_EVALUATE.value,
})
# A ceiling for attaching to a popup the browser has already announced, not a wait for it to appear.
ADOPTION_CEILING_SECONDS = 10.0
# Workers of the browser (not of one tab) whose requests a run's context may make.
WORKER_TARGETS = frozenset({"shared_worker", "service_worker"})


@dataclass
class TabInfo:
    """What the session knows about one of its tabs."""

    tab_id: str
    url: str
    opener_tab_id: str | None
    closed: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"tab_id": self.tab_id, "url": self.url, "opener_tab_id": self.opener_tab_id, "closed": self.closed}


@dataclass(frozen=True)
class NetworkWatch:
    """What a tab's watches need from the session: the URL judge, the proxy's log to look a refusal
    up in, and where to record an attempt to start a program outside the browser."""

    judge: Judge
    refusal_for: RefusalLookup
    record_external: Callable[[BlockedRequest], None]


class TabTracker:
    """Every tab of one context by tab id, live or closed; `tab()` resolves the live ones."""

    def __init__(
        self, session_id: str, browser: Browser, on_tab_event: Callable[[TabEvent], None] | None, network: NetworkWatch | None = None
    ) -> None:
        self._session_id = session_id
        self._browser = browser
        self._listeners: list[Callable[[TabEvent], None]] = [on_tab_event] if on_tab_event is not None else []
        self._sent_listeners: list[Callable[[SentRequest], None]] = []
        self._network = network
        self._context_id: str | None = None
        self._tabs: dict[str, Tab] = {}
        self._tab_info: dict[str, TabInfo] = {}
        self._top_frames: dict[str, TopFrameWatch] = {}
        self._tab_by_target: dict[str, str] = {}  # CDP target id -> tab id
        self._adoptions: dict[str, asyncio.Task[None]] = {}  # CDP target id -> its adoption
        self._created_since_mark: list[str] = []
        self._opened_external: set[str] = set()  # shared by the tabs' ExternalProtocolWatch
        self._external_seen: dict[tuple[str, str], None] = {}  # likewise
        self._first_watches: dict[str, FlatSession] = {}  # CDP target id -> a new tab's flat session
        self._tab_counter = itertools.count(1)
        self._snapshot_counter = itertools.count(1)
        self._primary_tab_id: str | None = None
        self._front: str | None = None  # the tab in front, as far as this tracker made it so
        self._watching = True
        self._hooks = TabHooks(next_snapshot_id=self._next_snapshot_id, url_changed=self._update_url)

    async def open_primary(self, context: Any, page: Any = None) -> Tab:
        """Open the context's first page (or take `page`, one it has already opened) as the
        primary tab, then watch the context for more."""
        if page is None:
            page = await context.newPage()
        primary = await self._attach(page, opener_tab_id=None)
        self._register(primary, announce=False)
        self._primary_tab_id = self._front = primary.tab_id
        self._context_id = context._id
        self._browser.on_cdp_event("Target.targetCreated", self._on_target_created)
        self._browser.on_cdp_event("Target.targetDestroyed", self._on_target_destroyed)
        if self._network is not None:
            # A new tab of the context (a popup) runs only once a watch of its hand-offs to the
            # desktop is on, and a shared or service worker only once its requests are watched.
            await self._browser.target_gate.claim(self._gate_key, self._claim_new_target)
        return primary

    def listen(self, listener: Callable[[TabEvent], None]) -> None:
        """Hear every later tab change too."""
        self._listeners.append(listener)

    def listen_to_sent_requests(self, listener: Callable[[SentRequest], None]) -> None:
        """Hear every later request of any tab that the network policy refused."""
        self._sent_listeners.append(listener)

    def _sent_request(self, send: SentRequest) -> None:
        for listener in self._sent_listeners:
            listener(send)

    def stop_watching(self) -> None:
        """Adopt no more tabs (the context is closing)."""
        self._watching = False
        self._browser.off_cdp_event("Target.targetCreated", self._on_target_created)
        self._browser.off_cdp_event("Target.targetDestroyed", self._on_target_destroyed)
        self._browser.target_gate.drop(self._gate_key)
        for target_id in list(self._first_watches):
            asyncio.ensure_future(self._end_first_watch(target_id))

    @property
    def _gate_key(self) -> str:
        return f"tabs:{self._session_id}:{id(self)}"

    def _claim_new_target(self, info: dict[str, Any], session: FlatSession) -> asyncio.Future[Any] | None:
        """What a new target of this context waits for before it runs (None: nothing): a shared or
        service worker's request watch, or a new tab's watch of hand-offs to the desktop on its
        flat session, kept until the tab is adopted (its adoption cannot be the wait: pyppeteer's
        set-up of a page waits for the target to run, 10 s a popup when it was)."""
        if info.get("browserContextId") != self._context_id or self._network is None:
            return None
        if info.get("type") in WORKER_TARGETS:
            return asyncio.ensure_future(self._watch_worker(info, session))
        if info.get("type") == "page":
            return asyncio.ensure_future(self._watch_first(str(info.get("targetId", "")), session))
        return None

    async def _watch_first(self, target_id: str, session: FlatSession) -> bool:
        """A popup's hand-offs to the desktop heard from its first script (a window whose head
        script sets location to an ssh: URL), until its own tab's watch takes over. The watch's
        Page.enable is answered only once the target runs, so it is sent, not awaited: a session's
        commands are handled in the order sent, so it takes effect before the gate's
        Runtime.runIfWaitingForDebugger lets the target run (as Puppeteer's attach relies on)."""
        assert self._network is not None
        self._first_watches[target_id] = session
        watch = ExternalProtocolWatch(self._network.record_external, self._opened_external, self._external_seen)
        started = asyncio.ensure_future(watch.start(session))
        started.add_done_callback(lambda done: done.cancelled() or done.exception())  # a tab gone meanwhile
        await asyncio.sleep(0)  # its listeners on and its Page.enable on the wire, ahead of the release
        return True

    async def _end_first_watch(self, target_id: str) -> None:
        session = self._first_watches.pop(target_id, None)
        if session is None:
            return
        with contextlib.suppress(Exception):  # the tab may have closed: its session went with it
            await session.detach()

    async def _watch_worker(self, info: dict[str, Any], session: FlatSession) -> bool:
        """A shared or service worker sends as the pages that gave it data do: its requests are
        judged by a SentRequestWatch of its own, on the gate's flat session of it, kept while the
        worker lives (True: the gate does not detach it)."""
        assert self._network is not None
        # Not a tab: its requests are named after the primary tab and the worker's kind.
        tab_id = f"{self._primary_tab_id}/{info.get('type')}"
        await SentRequestWatch(tab_id, self._network.judge, self._network.refusal_for, self._sent_request).start(session)
        return True

    @property
    def primary_tab_id(self) -> str:
        assert self._primary_tab_id is not None
        return self._primary_tab_id

    @property
    def tabs(self) -> dict[str, TabInfo]:
        return dict(self._tab_info)

    def tab(self, tab_id: str | None = None) -> Tab:
        """The live `Tab` for `tab_id` (default: primary). Raises `BrowserActionError(tab_closed)`."""
        resolved = tab_id or self.primary_tab_id
        tab = self._tabs.get(resolved)
        if tab is None:
            if resolved in self._tab_info:
                raise BrowserActionError(ActionErrorCode.TAB_CLOSED, f"tab {resolved} was closed")
            raise BrowserActionError(
                ActionErrorCode.INVALID_PARAMS,
                f"unknown tab_id {resolved!r}; this session's tabs: {sorted(self._tab_info)}",
            )
        return tab

    def top_frame(self, tab_id: str | None = None) -> TopFrameWatch | None:
        """The tab's TopFrameWatch; None without a network policy (or for an unknown tab)."""
        return self._top_frames.get(tab_id or self.primary_tab_id)

    def top_frame_blocks(self, tab_id: str | None = None) -> list[TopFrameBlock]:
        """Every refused navigation of the tab's top frame so far, oldest first."""
        watch = self.top_frame(tab_id)
        return list(watch.blocks) if watch is not None else []

    # ----------------------------------------------------------------- popups

    def mark(self) -> None:
        """Start collecting the tabs opened from now on (an action is about to run)."""
        self._created_since_mark = []

    async def opened_since_mark(self) -> list[TabInfo]:
        """The tabs opened since `mark()`: one browser round trip flushes their announcements,
        then each announced tab is waited for until it is attached."""
        await self._browser.round_trip()
        pending = [self._adoptions[t] for t in self._created_since_mark if not self._adoptions[t].done()]
        if pending:
            await asyncio.wait(pending, timeout=ADOPTION_CEILING_SECONDS)
        opened = [self._tab_by_target.get(target_id) for target_id in self._created_since_mark]
        return [self._tab_info[tab_id] for tab_id in opened if tab_id is not None]

    def _on_target_created(self, event: dict[str, Any]) -> None:
        info = event.get("targetInfo") or {}
        target_id = str(info.get("targetId", ""))
        if (
            not self._watching
            or info.get("type") != "page"
            or info.get("browserContextId") != self._context_id
            or target_id in self._tab_by_target
            or target_id in self._adoptions
        ):
            return
        self._created_since_mark.append(target_id)
        self._adoptions[target_id] = asyncio.ensure_future(self._adopt(target_id, info.get("openerId"), str(info.get("url") or "")))

    async def _adopt(self, target_id: str, opener_id: str | None, url: str) -> None:
        # pyppeteer files the target in a task it scheduled for the same event, before this one.
        target = self._browser.raw._targets.get(target_id)
        if target is None:
            return
        try:
            page = await target.page()
            if page is None:
                return
            tab = await self._attach(page, opener_tab_id=self._tab_by_target.get(opener_id or ""))
        except Exception:  # noqa: BLE001 - the popup may close before we attach; nothing to adopt
            return
        # Its own watches are on: the one that heard it from its first moment ends.
        await self._end_first_watch(target_id)
        if not self._watching:
            return
        self._register(tab, announce=True, url=url)
        # A popup comes to the front and hides the tab that had it, the one the run reads.
        front, self._front = self._front, None
        await self.bring_to_front(front if front in self._tabs else self.primary_tab_id)

    async def bring_to_front(self, tab_id: str) -> None:
        """Make `tab_id` the tab in front (a no-op when it is already)."""
        tab = self._tabs.get(tab_id)
        if tab is None or self._front == tab_id:
            return
        try:
            await tab.page.bringToFront()
            self._front = tab_id
        except Exception:  # noqa: BLE001 - the tab may be closing; nothing to keep visible
            pass

    # ----------------------------------------------------------------- tab actions

    def make_primary(self, tab_id: str) -> TabInfo:
        """Make a live tab the session's primary tab: the default target of later actions."""
        self.tab(tab_id)
        if tab_id != self._primary_tab_id:
            self._primary_tab_id = tab_id
            info = self._tab_info[tab_id]
            self._emit(TabEvent("primary", self._session_id, tab_id, info.url, info.opener_tab_id))
        return self._tab_info[tab_id]

    async def close(self, tab_id: str) -> TabInfo:
        """Close a live tab. The primary tab passes to the tab that opened it (else the first
        open tab) before it closes; the session's last tab is not closed."""
        tab = self.tab(tab_id)
        others = [other for other in self._tabs if other != tab_id]
        if not others:
            raise BrowserActionError(ActionErrorCode.INVALID_PARAMS, f"tab {tab_id} is the session's only open tab; it stays open")
        if tab_id == self._primary_tab_id:
            self.make_primary(tab.opener_tab_id if tab.opener_tab_id in self._tabs else others[0])
        self._forget(tab_id)
        try:
            await tab.page.close()
        except Exception:  # noqa: BLE001 - a tab that closed on its own meanwhile is closed all the same
            pass
        return self._tab_info[tab_id]

    async def open_new(self) -> TabInfo:
        """A new blank tab in the session's context, in the background; adopted like a popup
        (the same fence, the same top-frame watch), with no opener."""
        created = await self._browser.send("Target.createTarget", {"url": "about:blank", "browserContextId": self._context_id, "background": True})
        target_id = str(created.get("targetId", ""))
        await self._browser.round_trip()
        adoption = self._adoptions.get(target_id)
        if adoption is not None:
            await asyncio.wait({adoption}, timeout=ADOPTION_CEILING_SECONDS)
        tab_id = self._tab_by_target.get(target_id)
        if tab_id is None:
            raise BrowserActionError(ActionErrorCode.TIMEOUT, "the new tab was not ready in time")
        return self._tab_info[tab_id]

    def _on_target_destroyed(self, event: dict[str, Any]) -> None:
        tab_id = self._tab_by_target.get(str(event.get("targetId", "")))
        if tab_id is not None and tab_id in self._tabs:
            self._forget(tab_id)

    def _forget(self, tab_id: str) -> None:
        self._tabs.pop(tab_id)
        info = self._tab_info[tab_id]
        info.closed = True
        self._emit(TabEvent("closed", self._session_id, tab_id, info.url, info.opener_tab_id))

    # ----------------------------------------------------------------- bookkeeping

    async def _attach(self, page: Any, *, opener_tab_id: str | None) -> Tab:
        tab = await Tab.attach(self._next_tab_id(), page, opener_tab_id=opener_tab_id, hooks=self._hooks)
        if self._network is not None:
            watch = TopFrameWatch(tab.tab_id, self._network.judge, self._network.refusal_for)
            await watch.start(tab.cdp)
            self._top_frames[tab.tab_id] = watch
            await ExternalProtocolWatch(self._network.record_external, self._opened_external, self._external_seen).start(tab.cdp)
            await SentRequestWatch(tab.tab_id, self._network.judge, self._network.refusal_for, self._sent_request).start(tab.cdp)
            await DedicatedWorkerWatch(tab.tab_id, self._network.judge, self._network.refusal_for, self._sent_request).start(tab.cdp)
        return tab

    def _register(self, tab: Tab, *, announce: bool, url: str = "") -> None:
        self._tabs[tab.tab_id] = tab
        # The URL the browser announced the target with (where a link opens) until it navigates.
        info = TabInfo(tab_id=tab.tab_id, url=url or tab.page.url, opener_tab_id=tab.opener_tab_id)
        self._tab_info[tab.tab_id] = info
        # pyppeteer keeps the CDP target id private; it is the key the browser's events use.
        self._tab_by_target[tab.page.target._targetId] = tab.tab_id
        if announce:
            self._emit(TabEvent("opened", self._session_id, tab.tab_id, info.url, tab.opener_tab_id))

    def _next_tab_id(self) -> str:
        # Counted from 1 per session, and open_primary attaches the first: PRIMARY_TAB_ID.
        return f"t{next(self._tab_counter)}"

    def _next_snapshot_id(self) -> str:
        # Unique across the context's tabs, so a ref names its tab's snapshot.
        return f"s{next(self._snapshot_counter)}"

    def _update_url(self, tab_id: str, url: str) -> None:
        info = self._tab_info.get(tab_id)
        if info is None or info.closed or info.url == url:
            return
        info.url = url
        self._emit(TabEvent("navigated", self._session_id, tab_id, url, info.opener_tab_id))

    def _emit(self, event: TabEvent) -> None:
        event = replace(event, primary_tab_id=self._primary_tab_id)
        for listener in self._listeners:
            listener(event)
