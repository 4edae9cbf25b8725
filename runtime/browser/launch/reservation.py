"""A session's browser context made ahead of the session: `verity run`'s head start.

Opening a session's incognito context and first tab costs Chromium about 0.15 s (a renderer
process for the new context), nearly all of it waiting. `verity run` reserves that context while
its executor is still being imported (BENCHMARKS.md, "Run start"), before anyone knows the run's
network policy. So the context is created with the address of a loopback socket that is bound
and listening but served by no one yet, and `open_session(..., reservation=...)` serves exactly
that socket with the session's policy proxy: the context's requests go through the session's
proxy as they would had the context been made with the session. A request made before the
session (none is expected: the tab shows about:blank) waits in the socket's backlog until that
proxy judges it; it has nowhere else to go.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from dataclasses import dataclass
from typing import Any

from runtime.browser.launch.browser import Browser
from runtime.policy import PROXY_BYPASS_LIST

# How long releasing an unused reservation may wait for its context to close.
RELEASE_CEILING_S = 5.0


@dataclass
class ContextReservation:
    """An incognito context of `browser` whose proxy address is `listener`, and its first page."""

    browser: Browser
    context: Any  # pyppeteer's BrowserContext
    page: Any  # pyppeteer's Page: the context's first tab, on about:blank
    listener: socket.socket

    async def release(self) -> None:
        """Close the context and the socket: no session will take them."""
        await _close_quietly(self.context)
        self.listener.close()


async def reserve_context(browser: Browser) -> ContextReservation:
    """A fresh incognito context with its first tab, its proxy address reserved on loopback."""
    listener = socket.create_server(("127.0.0.1", 0))
    try:
        context = await browser.create_context(
            proxy_server=f"http://127.0.0.1:{listener.getsockname()[1]}", proxy_bypass_list=PROXY_BYPASS_LIST
        )
        try:
            page = await context.newPage()
        except BaseException:
            await _close_quietly(context)
            raise
    except BaseException:
        listener.close()
        raise
    return ContextReservation(browser, context, page, listener)


async def _close_quietly(context: Any) -> None:
    """Close an unused context; a browser that is gone or slow to answer leaves nothing to do."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(context.close(), RELEASE_CEILING_S)
