"""`ExternalProtocolWatch`: every attempt of a tab's pages to hand a URL to a program outside the
browser (issue 33), recorded with the run's blocked requests.

A frame, link, form or script may navigate to a scheme Chromium does not handle itself (`mailto:`,
`ssh:`, `ircs:`, `tel:` ...). No request reaches the proxy: Chromium asks the desktop for the
scheme's handler instead. For Verity's own Chromium no handler can start (launch/desktop_handlers.py);
what a page attempted is still evidence. Every such navigation is announced over CDP first, in any
frame, with or without a gesture (measured on 156: `Page.frameRequestedNavigation` for an iframe's
`mailto:` and `ssh:` sources, reason `initialFrameNavigation`), and a window opened on one is
announced to its opener (`Page.windowOpen`: measured for a clicked `window.open('mailto:...')`,
which Chromium handed to xdg-open from the new window). A window that navigates itself there (or
is navigated by its opener) is heard from its first moment: the browser holds a new tab of a
watched run paused until a watch is on its flat session (launch/target_gate.py), and the tab's
own watch takes over once it is adopted. Each attempt becomes a
`BlockedRequest` of method `EXTERNAL_PROTOCOL` (kind `external_protocol` in verdict.json).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from runtime.outcomes import BlockerKind
from runtime.policy import EXTERNAL_PROTOCOL, BlockedRequest

# The schemes Chromium handles itself; a navigation to any other one goes to the desktop.
BROWSER_SCHEMES = frozenset({
    "http", "https", "ws", "wss", "about", "data", "blob", "javascript", "file", "filesystem", "view-source",
    "chrome", "chrome-error", "chrome-untrusted", "chrome-extension", "devtools",
})
# Only recent attempts matter for telling one attempt from the events that repeat it.
_REMEMBERED = 256


class ExternalProtocolWatch:
    """Follows one tab's frames; `record` gets one `BlockedRequest` per external URL per frame."""

    def __init__(self, record: Callable[[BlockedRequest], None], opened: set[str] | None = None,
                 seen: dict[tuple[str, str], None] | None = None) -> None:
        self._record = record
        # Attempts heard already, by frame and URL: shared with the watch that heard a popup from
        # its first moment (session/tab_tracking.py), so the tab's own watch does not count them again.
        self._seen: dict[tuple[str, str], None] = seen if seen is not None else {}
        # URLs a page of the session opened a window on, recorded from the opener: shared by the
        # session's watches, so the new window's own navigation there, when its watch hears it,
        # is not a second attempt.
        self._opened = opened if opened is not None else set()

    async def start(self, cdp: Any) -> None:
        cdp.on("Page.frameRequestedNavigation", self._on_navigation)
        cdp.on("Page.frameStartedNavigating", self._on_navigation)
        # A window a page opens on such a URL (window.open, a target=_blank link or form) hands it
        # over from a new target, before any watch of ours is attached there; the opener hears it.
        cdp.on("Page.windowOpen", self._on_window_open)
        await cdp.send("Page.enable")

    def _on_window_open(self, params: dict[str, Any]) -> None:
        url = str(params.get("url", ""))
        if _external_scheme(url):
            self._opened.add(url)
        self._on_navigation({"url": url, "frameId": "window-open", "reason": "window.open"})

    def _on_navigation(self, params: dict[str, Any]) -> None:
        url = str(params.get("url", ""))
        scheme = _external_scheme(url)
        if not scheme:
            return
        key = (str(params.get("frameId", "")), url)
        if key in self._seen:  # the same attempt, announced as requested and then as started
            return
        self._seen[key] = None
        if len(self._seen) > _REMEMBERED:
            self._seen.pop(next(iter(self._seen)))
        if params.get("frameId") != "window-open" and url in self._opened:
            self._opened.discard(url)  # the opened window's own first navigation, recorded already
            return
        reason = f"a page asked Chromium to hand {scheme}: to a program outside the browser ({params.get('reason') or 'navigation'}); none was started"
        self._record(BlockedRequest(time.time(), EXTERNAL_PROTOCOL, url, BlockerKind.SCHEME_NOT_ALLOWED, reason))


def _external_scheme(url: str) -> str:
    """The URL's scheme when Chromium would hand it to the desktop, else ""."""
    scheme = url.partition(":")[0].lower() if ":" in url else ""
    return "" if scheme in BROWSER_SCHEMES else scheme
