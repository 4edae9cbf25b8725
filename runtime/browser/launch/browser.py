"""The `Browser` that owns one Chromium's connection (launched: `starting.py`; attached: `attach.py`).

Finding Chromium, its command line and the spawn are `chromium_start`; pyppeteer carries the CDP
transport (`transport.py`); everything above it is ours.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from collections.abc import Awaitable, Callable
from typing import Any

import runtime.browser.launch.transport  # noqa: F401 - pyppeteer patched before it is used
import pyppeteer.browser

from runtime.browser.launch.chromium_process import ChromiumProfile
from runtime.browser.launch.endpoints import redact_endpoint
from runtime.browser.launch.target_gate import TargetGate

# How long a browser that is asked whether it is still there may take to answer one command.
GONE_CHECK_CEILING_S = 10.0


class Browser:
    """One Chromium (launched or connected), shared by many runs.

    It owns the connection and nothing above it: whatever a run opens on it (an incognito context
    with its tabs) registers a stop callback with `on_close`, and `close()` calls them before the
    browser goes. `close()` is safe to call twice. If the Chromium process dies or the connection
    drops, `crashed` becomes True; callers watch `disconnected` to fail their pending work.
    """

    def __init__(
        self,
        raw: pyppeteer.browser.Browser,
        *,
        launched: bool,
        ws_endpoint: str,
        process: subprocess.Popen[bytes] | None = None,
        profile: ChromiumProfile | None = None,
    ) -> None:
        self._raw = raw
        self._launched = launched
        self.ws_endpoint = ws_endpoint
        self._process = process
        self._profile = profile
        self._closing = False
        self._closed = False
        # Latched once the browser is found dead (the connection dropped, or the process exited)
        # before anyone asked it to close: closing it afterwards (a provider replacing it) must
        # not turn the crash back into "closed on purpose" for a run still looking at it.
        self._lost = False
        self.disconnected = asyncio.Event()
        # New targets wait for the run that claims them (a popup for its tab's watches).
        self.target_gate = TargetGate(raw._connection)
        self._stop_on_close: dict[str, Callable[[], Awaitable[object]]] = {}
        raw.on("disconnected", self._on_disconnected)

    @property
    def raw(self) -> pyppeteer.browser.Browser:
        """The pyppeteer browser, for transport-level needs (CDP sessions, targets)."""
        return self._raw

    @property
    def attached_endpoint(self) -> str | None:
        """The DevTools URL this browser was attached at (`redact_endpoint`ed); None when launched."""
        return None if self._launched else redact_endpoint(self.ws_endpoint)

    @property
    def pid(self) -> int | None:
        """The Chromium process id when we launched it; None when connected."""
        return self._process.pid if self._process is not None else None

    @property
    def exit_code(self) -> int | None:
        """The launched Chromium's exit status once it has exited (negative: the signal that ended
        it); None while it runs, and when connected."""
        return self._process.poll() if self._process is not None else None

    @property
    def crashed(self) -> bool:
        """True when the connection dropped (or the process died) before `close()` was asked for."""
        return self._lost or (self.disconnected.is_set() and not self._closing)

    @property
    def process_died(self) -> bool:
        """True when we launched Chromium and its process has exited."""
        return self._process is not None and self._process.poll() is not None

    def _on_disconnected(self, *_: object) -> None:
        if not self._closing:
            self._lost = True
        self.disconnected.set()

    async def create_context(self, *, proxy_server: str | None = None, proxy_bypass_list: str = "") -> pyppeteer.browser.BrowserContext:
        """A fresh incognito browser context; with `proxy_server`, every request of every target
        in it (frames, popups, workers, WebSocket) goes through that proxy.

        pyppeteer's createIncognitoBrowserContext has no proxy option, so the context is created
        with raw CDP and wrapped in pyppeteer's BrowserContext, registered where pyppeteer files
        the contexts it made itself (its targets then find their context).
        """
        params: dict[str, object] = {"disposeOnDetach": True}
        if proxy_server is not None:
            params.update(proxyServer=proxy_server, proxyBypassList=proxy_bypass_list)
        reply = await self._raw._connection.send("Target.createBrowserContext", params)
        context_id = reply["browserContextId"]
        context = pyppeteer.browser.BrowserContext(self._raw, context_id)
        self._raw._contexts[context_id] = context
        return context

    async def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """One browser-level CDP command (Storage.setCookies with a browserContextId ...)."""
        return await self._raw._connection.send(method, params or {})

    async def round_trip(self) -> None:
        """One browser-level command and its reply. CDP sends a connection's messages in order,
        so when this returns, every event the browser emitted before it (a popup's
        Target.targetCreated) has been dispatched."""
        await self._raw._connection.send("Browser.getVersion")

    async def is_gone(self, ceiling_s: float = GONE_CHECK_CEILING_S) -> bool:
        """Is this browser dead or unreachable? Asked when an action or a step failed, before the
        failure is classified: a wait that "timed out" because Chromium was killed under it is a
        crash, whichever of the timeout and the disconnect notice came first. A live browser
        answers one command; a killed one cannot (its connection fails or stays silent)."""
        if self.crashed or self.process_died:
            return True
        if self._closing:
            return False  # closed on purpose while it was alive (a shutdown): not a crash
        answer = asyncio.ensure_future(self.round_trip())
        dropped = asyncio.ensure_future(self.disconnected.wait())
        try:
            done, _ = await asyncio.wait({answer, dropped}, timeout=ceiling_s, return_when=asyncio.FIRST_COMPLETED)
        finally:
            dropped.cancel()
            if not answer.done():
                answer.cancel()
        if answer in done and answer.exception() is None:
            return self.crashed
        # The command failed, or the connection dropped, or nothing answered within the ceiling.
        return not self._closing

    def on_cdp_event(self, method: str, listener: Callable[[dict[str, Any]], None]) -> None:
        """Hear a browser-level CDP event (Target.targetCreated ...) as soon as it arrives."""
        self._raw._connection.on(method, listener)

    def off_cdp_event(self, method: str, listener: Callable[[dict[str, Any]], None]) -> None:
        self._raw._connection.remove_listener(method, listener)

    def on_close(self, key: str, stop: Callable[[], Awaitable[object]]) -> None:
        """Call `stop()` (given at most 5 s) when this browser closes, unless `drop_on_close(key)`."""
        self._stop_on_close[key] = stop

    def drop_on_close(self, key: str) -> None:
        self._stop_on_close.pop(key, None)

    async def close(self) -> None:
        """Stop what registered `on_close`, then end Chromium: one we launched in a profile of our own
        is killed with its process group and the profile removed, one in a named profile is closed,
        one we connected to is disconnected from and left running."""
        if self._closed:
            return
        if self.disconnected.is_set() or self.process_died:
            self._lost = True  # it was dead before this close: a crash, whoever closes it now
        self._closing = True
        self._closed = True
        for stop in list(self._stop_on_close.values()):
            try:
                await asyncio.wait_for(stop(), timeout=5)
            except Exception:  # noqa: BLE001 - closing must proceed even if one stop is wedged
                pass
        # A Chromium in a profile of our own is killed, not asked to close: on a close it writes
        # its profile out (history, preferences, caches), which is removed right after, and that
        # took most of the run's end (BENCHMARKS.md, "Run start"). A profile the caller named is
        # theirs to keep: that Chromium closes the ordinary way.
        throwaway = self._launched and self._profile is not None
        try:
            if self._launched and not throwaway:
                await asyncio.wait_for(self._raw.close(), timeout=10)
            else:
                await asyncio.wait_for(self._raw.disconnect(), timeout=10)
        except Exception:  # noqa: BLE001 - the process may already be gone; kill below
            pass
        process = self._process
        if process is not None and throwaway:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)  # the browser leads its own process group
        if process is not None:
            if not await _exited(process, seconds=10):
                # The browser leads its own process group: take its helpers with it.
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                await _exited(process, seconds=10)
        if self._profile is not None:
            # Hundreds of files: removed on a worker thread, so the loop goes on meanwhile.
            await asyncio.to_thread(self._profile.remove)


async def _exited(process: subprocess.Popen[bytes], *, seconds: float) -> bool:
    """Wait up to `seconds` for `process` to exit (and reap it), without blocking the loop."""
    deadline = asyncio.get_running_loop().time() + seconds
    while process.poll() is None:
        if asyncio.get_running_loop().time() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True
