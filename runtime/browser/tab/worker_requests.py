"""`DedicatedWorkerWatch`: a tab's dedicated workers send requests as the page does, and are judged so.

A page can hand what the run typed to a worker and have the worker send it (issue 33, wave 9:
a dedicated worker's fetch of the token to an off-domain address ended `completed`). Chromium
reports a worker's requests on the worker's own target, not the page's: the tab's
`SentRequestWatch` never heard them. The tab's session attaches each dedicated worker paused
(`Target.setAutoAttach` with `waitForDebuggerOnStart`), a `SentRequestWatch` of the tab is started
on the worker's session, and only then does the worker run, so its first request is heard too.
Shared and service workers are targets of the browser, not of a tab; the tab tracker claims them
through the browser's target gate (session/tab_tracking.py).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from runtime.browser.tab.sent_requests import SentRequest, SentRequestWatch
from runtime.browser.tab.top_frame import Judge, RefusalLookup


class DedicatedWorkerWatch:
    """Starts a `SentRequestWatch` on each dedicated worker of one tab before the worker runs."""

    def __init__(self, tab_id: str, judge: Judge, refusal_for: RefusalLookup, record: Callable[[SentRequest], None]) -> None:
        self._tab_id = tab_id
        self._judge = judge
        self._refusal_for = refusal_for
        self._record = record
        self._cdp: Any = None

    async def start(self, cdp: Any) -> None:
        self._cdp = cdp
        cdp.on("Target.attachedToTarget", self._on_attached)
        # pyppeteer's page asked for its workers without a pause; the same call with one replaces it.
        await cdp.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": False})

    def _on_attached(self, event: dict[str, Any]) -> None:
        if (event.get("targetInfo") or {}).get("type") != "worker":
            return  # pyppeteer detaches anything else, which lets it run
        # pyppeteer's page made the worker's session in its own listener, called before this one.
        session = self._cdp._sessions.get(event.get("sessionId"))
        if session is not None:
            asyncio.ensure_future(self._watch(session))

    async def _watch(self, session: Any) -> None:
        try:
            await SentRequestWatch(self._tab_id, self._judge, self._refusal_for, self._record).start(session)
        finally:
            with contextlib.suppress(Exception):  # the worker may have ended already
                await session.send("Runtime.runIfWaitingForDebugger")
