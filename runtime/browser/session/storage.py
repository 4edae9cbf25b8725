"""`SessionStorage`: one session's cookies and localStorage, set before a run and read after it.

Cookies go through the browser-level Storage domain with the session's browserContextId, so they
belong to that incognito context only. localStorage has no CDP setter for an origin no frame
shows yet (DOMStorage.setDOMStorageItem wants a frame), so it is seeded by a script that runs
before the page's own on every new document of the primary tab: the first document of a seeded
origin writes its entries (a sessionStorage mark keeps later documents from writing them again
over the page's own changes). What localStorage holds at the end is followed as it changes
(DOMStorage events of the primary tab: the seeded entries and every change the pages made) and,
for the origin the tab shows at the end, read whole. Popups' own localStorage changes are not
followed.

Values pass through here and nowhere else: nothing in this module logs or reports them.
"""

from __future__ import annotations

import json
from typing import Any

from runtime.browser.launch.browser import Browser
from runtime.browser.scripts.loader import main_world_script
from runtime.browser.tab.tab import Tab

# The sessionStorage key that marks an origin's entries as written in this tab.
SEEDED_MARK = "__verity_storage_state_seeded"
_EVENTS = ("domStorageItemAdded", "domStorageItemUpdated", "domStorageItemRemoved", "domStorageItemsCleared")


class SessionStorage:
    def __init__(self, browser: Browser, context_id: str, tab: Tab) -> None:
        self._browser = browser
        self._context_id = context_id
        self._tab = tab
        self._local: dict[str, dict[str, str]] = {}
        self._following = False

    async def follow(self, seed: dict[str, dict[str, str]]) -> None:
        """Seed localStorage (origin -> entries) for the tab's next documents and follow every
        change from now on. Call before the first navigation."""
        self._local = {origin: dict(entries) for origin, entries in seed.items()}
        if not self._following:
            for name in _EVENTS:
                self._tab.cdp.on(f"DOMStorage.{name}", self._on_change)
            await self._tab.cdp.send("DOMStorage.enable")
            self._following = True
        if seed:
            await self._tab.cdp.send("Page.addScriptToEvaluateOnNewDocument", {"source": _seed_script(seed)})

    async def set_cookies(self, cookies: list[dict[str, Any]]) -> None:
        """Cookies as CDP CookieParam objects, into this session's context only."""
        if cookies:
            await self._browser.send("Storage.setCookies", {"cookies": cookies, "browserContextId": self._context_id})

    async def cookies(self) -> list[dict[str, Any]]:
        reply = await self._browser.send("Storage.getCookies", {"browserContextId": self._context_id})
        return list(reply.get("cookies", []))

    async def local_storage(self) -> dict[str, dict[str, str]]:
        """origin -> entries, as the pages of the primary tab left them."""
        origin = await self._tab.call_script("origin")
        if isinstance(origin, str) and origin.startswith(("http://", "https://")):
            try:
                reply = await self._tab.cdp.send("DOMStorage.getDOMStorageItems", {"storageId": {"securityOrigin": origin, "isLocalStorage": True}})
                self._local[origin] = {str(k): str(v) for k, v in reply.get("entries", [])}
            except Exception:  # noqa: BLE001 - no frame of that origin any more: the followed entries stand
                pass
        return {origin: dict(entries) for origin, entries in self._local.items()}

    def _on_change(self, event: dict[str, Any]) -> None:
        storage_id = event.get("storageId") or {}
        origin = storage_id.get("securityOrigin")
        if not storage_id.get("isLocalStorage") or not isinstance(origin, str):
            return
        entries = self._local.setdefault(origin, {})
        if "newValue" in event:
            entries[str(event.get("key"))] = str(event["newValue"])
        elif "key" in event:
            entries.pop(str(event["key"]), None)
        else:
            entries.clear()


def _seed_script(seed: dict[str, dict[str, str]]) -> str:
    """main_world/storage_seed.js applied to `seed` and the mark, as one statement."""
    # json.dumps output is a valid JavaScript literal; "</script>" cannot end anything here (no HTML).
    return f"({main_world_script('storage_seed')})({json.dumps(seed)}, {json.dumps(SEEDED_MARK)});"
