"""Launching: a spawned Chromium (`StartingChromium`) connected to when its taker wants it, and
`launch_browser()` that does both at once."""

from __future__ import annotations

import asyncio
import logging
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import runtime.browser.launch.transport  # noqa: F401 - pyppeteer patched before it is used
import pyppeteer

from runtime.browser.launch.browser import Browser
from runtime.browser.launch.chromium_start import LaunchOptions, SpawnedChromium, spawn
from runtime.browser.vocabulary.errors import BrowserLaunchError, LaunchErrorCode

_log = logging.getLogger(__name__)


class StartingChromium:
    """A spawned Chromium (`chromium_start.spawn`), not yet taken by anyone.

    Starting is split from connecting so that `verity run` can start the browser first and load
    its recipe (and the rest of its code) while Chromium starts on another core. `connect()`
    hands the process over to a `Browser` whose taker owns it; `discard()` (or, when nothing was
    begun, `abandon()`) ends it when no run will use it (a bad recipe). `begin_head_start()`
    connects early and prepares the browser for its taker (`verity run` reserves the first
    session's context while its executor is imported); the taker collects that with `prepared()`.
    """

    def __init__(self, spawned: SpawnedChromium) -> None:
        self.spawned = spawned
        self._connecting: asyncio.Future[Browser] | None = None
        self._head_start: asyncio.Future[Any] | None = None
        self._taken = False

    async def connect(self) -> Browser:
        """The `Browser` on this process, once it listens for DevTools; the caller owns it from
        then on. On failure the process is killed, its profile removed, and `BrowserLaunchError`
        raised."""
        self._taken = True
        return await self._connected()

    def _connected(self) -> asyncio.Future[Browser]:
        if self._connecting is None:
            self._connecting = asyncio.ensure_future(self._connect())
        return self._connecting

    async def _connect(self) -> Browser:
        spawned = self.spawned
        spawned.claim()
        process, profile, executable, timeout_s = spawned.process, spawned.profile, spawned.executable, spawned.timeout_s
        try:
            ws_endpoint = await _devtools_endpoint(Path(spawned.user_data_dir), process, timeout_s, executable)
            if profile is not None:
                profile.record_browser(process)
            raw = await asyncio.wait_for(pyppeteer.connect(browserWSEndpoint=ws_endpoint), timeout_s)
        except BaseException as error:
            await asyncio.to_thread(spawned.end)
            if isinstance(error, BrowserLaunchError):
                raise
            if isinstance(error, asyncio.TimeoutError):
                raise BrowserLaunchError(
                    LaunchErrorCode.LAUNCH_FAILED, f"Chromium at {executable} did not answer within {timeout_s * 1000:.0f} ms"
                ) from None
            if isinstance(error, Exception):
                raise BrowserLaunchError(LaunchErrorCode.LAUNCH_FAILED, f"could not start Chromium at {executable}: {error}") from error
            raise
        return Browser(raw, launched=True, ws_endpoint=ws_endpoint, process=process, profile=profile)

    def begin_head_start(self, prepare: Callable[[Browser], Awaitable[Any]]) -> None:
        """Connect now, in the background, and then run `prepare` on the browser; its result
        waits for the taker (`prepared()`)."""

        async def head_start() -> Any:
            return await prepare(await self._connected())

        self._head_start = asyncio.ensure_future(head_start())

    async def prepared(self) -> Any:
        """What the head start prepared, handed over once; None when nothing was begun or the
        preparing failed (the browser is then used as it is, and a failed connect is raised by
        `connect()` itself)."""
        head_start, self._head_start = self._head_start, None
        if head_start is None:
            return None
        try:
            return await head_start
        except Exception as error:  # noqa: BLE001 - a head start is an optimisation; the run goes on without it
            _log.debug("the browser's head start failed: %s", error)
            return None

    async def discard(self) -> None:
        """End this Chromium if nobody took it: one connected early is closed (killed, its
        profile removed), one never connected is abandoned. Nothing once it was taken."""
        if self._taken:
            return
        self._taken = True
        if self._head_start is not None:
            self._head_start.cancel()
            await asyncio.gather(self._head_start, return_exceptions=True)
        if self._connecting is None:
            await asyncio.to_thread(self.spawned.abandon)
            return
        connected = (await asyncio.gather(self._connecting, return_exceptions=True))[0]
        if isinstance(connected, Browser):
            await connected.close()

    def abandon(self) -> None:
        """Kill the process (its whole group) and remove the profile we made for it; nothing
        once it was connected to (whoever connected closes it then)."""
        self.spawned.abandon()


def start_chromium(options: LaunchOptions | None = None) -> StartingChromium:
    """Spawn a headless Chromium (`chromium_start.spawn`) to connect to later."""
    return StartingChromium(spawn(options))


async def launch_browser(options: LaunchOptions | None = None) -> Browser:
    """Start a headless Chromium (`start_chromium`) and connect to it."""
    return await start_chromium(options).connect()


async def _devtools_endpoint(user_data_dir: Path, process: subprocess.Popen[bytes], timeout: float, executable: str) -> str:
    """The browser's DevTools websocket, from the DevToolsActivePort file it writes once listening."""
    marker = user_data_dir / "DevToolsActivePort"
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        try:
            port, path = marker.read_text().split()[:2]
            return f"ws://127.0.0.1:{int(port)}{path}"
        except (OSError, ValueError):
            pass  # not written yet, or half written
        if process.poll() is not None:
            raise BrowserLaunchError(
                LaunchErrorCode.LAUNCH_FAILED, f"Chromium at {executable} exited with code {process.returncode} while starting"
            )
        if asyncio.get_running_loop().time() > deadline:
            raise BrowserLaunchError(LaunchErrorCode.LAUNCH_FAILED, f"Chromium at {executable} did not start within {timeout * 1000:.0f} ms")
        await asyncio.sleep(0.02)
