"""`BrowserProvider`: one Chromium shared by every run of a process; each run gets its own session.

    async with BrowserProvider() as browsers:                      # launches headless Chromium
    async with BrowserProvider(ws_endpoint="ws://...") as browsers:  # attaches (--browser-ws)
        session = await browsers.open_session(run_dir, session_id=run_id)

A session is an incognito context, so concurrent runs never share cookies, storage or tabs; with
a network policy the context sends every request through the session's own policy proxy, on a
launched Chromium and on one attached with --browser-ws alike.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import TracebackType

from runtime.artifacts import ArtifactStore
from runtime.browser import Browser, BrowserSession, LaunchOptions, SessionPolicy, connect_browser, launch_browser, open_session
from runtime.policy import NetworkPolicy, OnBlocked


class BrowserProvider:
    def __init__(
        self,
        *,
        ws_endpoint: str | None = None,
        launch_options: LaunchOptions | None = None,
        browser: Browser | None = None,
    ) -> None:
        """Launch (default), connect to `ws_endpoint`, or wrap an already started `browser`
        (which the provider then does not close)."""
        self._ws_endpoint = ws_endpoint
        self._launch_options = launch_options
        self._browser = browser
        self._owns_browser = browser is None
        self._start_lock = asyncio.Lock()

    @property
    def browser(self) -> Browser | None:
        return self._browser

    async def start(self) -> Browser:
        """Launch or connect once; later calls return the same browser."""
        async with self._start_lock:
            if self._browser is None:
                if self._ws_endpoint:
                    self._browser = await connect_browser(self._ws_endpoint)
                else:
                    self._browser = await launch_browser(self._launch_options)
            return self._browser

    async def open_session(
        self, run_dir: Path, *, session_id: str | None = None, network: NetworkPolicy | None = None, on_blocked: OnBlocked | None = None
    ) -> BrowserSession:
        """A fresh incognito session whose artifacts go under `run_dir/artifacts`; with `network`,
        every request of its context is judged by that policy before it leaves the browser, and
        `on_blocked` hears each refusal."""
        browser = await self.start()
        policy = SessionPolicy(network=network)
        return await open_session(browser, session_id, artifacts=ArtifactStore(run_dir), policy=policy, on_blocked=on_blocked)

    async def close(self) -> None:
        if self._browser is not None and self._owns_browser:
            await self._browser.close()

    async def __aenter__(self) -> BrowserProvider:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()
