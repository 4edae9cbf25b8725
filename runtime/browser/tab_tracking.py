"""`TabTracker`: the tabs of one browser context, the sticky primary tab, and the popups it opens.

The primary tab is the context's first page and stays the default target for the session's life.
Tabs a page opens (target=_blank, window.open) are adopted as they appear and announced as
`TabEvent`s; tabs that close are marked closed. How a new tab is noticed (pyppeteer's
targetcreated, then a short settle after a gesture) is this module's business alone.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from runtime.browser.actions import ActionName
from runtime.browser.errors import ActionErrorCode, BrowserActionError
from runtime.browser.observation import TabEvent
from runtime.browser.tab import Tab, TabHooks

if TYPE_CHECKING:
    import pyppeteer.target

# Popups come from user gestures, so only these actions wait for them to settle before reporting
# `opened_tabs`; a tab a page opens on its own later is still tracked and announced as a TabEvent.
ACTIONS_THAT_MAY_OPEN_TABS = frozenset({
    ActionName.ACT.value,
    ActionName.BROWSER_CLICK.value,
    ActionName.BROWSER_TYPE.value,
})


@dataclass
class TabInfo:
    """What the session knows about one of its tabs."""

    tab_id: str
    url: str
    opener_tab_id: str | None
    closed: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"tab_id": self.tab_id, "url": self.url, "opener_tab_id": self.opener_tab_id, "closed": self.closed}


class TabTracker:
    """Every tab of one context by tab id, live or closed; `tab()` resolves the live ones."""

    def __init__(self, session_id: str, on_tab_event: Callable[[TabEvent], None] | None) -> None:
        self._session_id = session_id
        self._on_tab_event = on_tab_event
        self._tabs: dict[str, Tab] = {}
        self._tab_info: dict[str, TabInfo] = {}
        self._tab_by_target: dict[int, str] = {}
        self._tab_counter = itertools.count(1)
        self._snapshot_counter = itertools.count(1)
        self._primary_tab_id: str | None = None
        self._opened_since_mark: list[TabInfo] = []
        self._pending_tab_setups: set[asyncio.Task[None]] = set()
        self._watching = True
        self._hooks = TabHooks(next_snapshot_id=self._next_snapshot_id, url_changed=self._update_url)

    async def open_primary(self, context: Any) -> Tab:
        """Open the context's first page as the primary tab, then watch the context for more."""
        page = await context.newPage()
        primary = await Tab.attach(self._next_tab_id(), page, opener_tab_id=None, hooks=self._hooks)
        self._register(primary, announce=False)
        self._primary_tab_id = primary.tab_id
        context.on("targetcreated", self._on_target_created)
        context.on("targetdestroyed", self._on_target_destroyed)
        return primary

    def stop_watching(self) -> None:
        """Adopt no more tabs (the context is closing)."""
        self._watching = False

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

    # ----------------------------------------------------------------- popups

    def mark(self) -> None:
        """Start collecting the tabs opened from now on (an action is about to run)."""
        self._opened_since_mark = []

    async def settle_new_tabs(self, settle_ms: int) -> list[TabInfo]:
        """The tabs opened since `mark()`, once the ones a gesture just opened have been adopted."""
        # Popups announce themselves a few milliseconds after the click that opened them.
        await asyncio.sleep(settle_ms / 1000)
        if self._pending_tab_setups:
            await asyncio.wait(set(self._pending_tab_setups), timeout=5)
        return list(self._opened_since_mark)

    def _on_target_created(self, target: pyppeteer.target.Target) -> None:
        if target.type != "page" or not self._watching:
            return
        task = asyncio.ensure_future(self._adopt_target(target))
        self._pending_tab_setups.add(task)
        task.add_done_callback(self._pending_tab_setups.discard)

    async def _adopt_target(self, target: pyppeteer.target.Target) -> None:
        if id(target) in self._tab_by_target:
            return
        opener = target.opener
        opener_tab_id = self._tab_by_target.get(id(opener)) if opener is not None else None
        try:
            page = await target.page()
        except Exception:  # noqa: BLE001 - the popup may close before we attach; nothing to adopt
            return
        if page is None or id(target) in self._tab_by_target:
            return
        tab = await Tab.attach(self._next_tab_id(), page, opener_tab_id=opener_tab_id, hooks=self._hooks)
        self._register(tab, announce=True)

    def _on_target_destroyed(self, target: pyppeteer.target.Target) -> None:
        tab_id = self._tab_by_target.get(id(target))
        if tab_id is None or tab_id not in self._tabs:
            return
        self._tabs.pop(tab_id)
        info = self._tab_info[tab_id]
        info.closed = True
        self._emit(TabEvent("closed", self._session_id, tab_id, info.url, info.opener_tab_id))

    # ----------------------------------------------------------------- bookkeeping

    def _register(self, tab: Tab, *, announce: bool) -> None:
        self._tabs[tab.tab_id] = tab
        info = TabInfo(tab_id=tab.tab_id, url=tab.page.url, opener_tab_id=tab.opener_tab_id)
        self._tab_info[tab.tab_id] = info
        self._tab_by_target[id(tab.page.target)] = tab.tab_id
        if announce:
            self._opened_since_mark.append(info)
            self._emit(TabEvent("opened", self._session_id, tab.tab_id, info.url, tab.opener_tab_id))

    def _next_tab_id(self) -> str:
        return f"t{next(self._tab_counter)}"

    def _next_snapshot_id(self) -> str:
        # Unique across the context's tabs, so a ref names its tab's snapshot.
        return f"s{next(self._snapshot_counter)}"

    def _update_url(self, tab_id: str, url: str) -> None:
        if tab_id in self._tab_info:
            self._tab_info[tab_id].url = url

    def _emit(self, event: TabEvent) -> None:
        if self._on_tab_event is not None:
            self._on_tab_event(event)
