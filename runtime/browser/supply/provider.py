"""`BrowserProvider`: one Chromium shared by every run of a process; each run gets its own session.

    async with BrowserProvider() as browsers:                      # launches headless Chromium
    async with BrowserProvider(ws_endpoint="ws://...") as browsers:  # attaches (--browser-ws)
        session = await browsers.open_session(run_dir, session_id=run_id)

A session is an incognito context, so concurrent runs never share cookies, storage or tabs; with
a network policy the context sends every request through the session's own policy proxy, on a
launched Chromium and on one attached with --browser-ws alike.

`supervise=True` (the gRPC server) keeps a browser available for the next run: when the one it
has dies or its connection drops, the runs on it end `browser_crashed` and the provider replaces
it at once, relaunching or reconnecting with backoff until it succeeds, and tells its
availability listeners (the health service) whether a browser can be had meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType

from runtime.artifacts import ArtifactStore
from runtime.browser.launch.attach import connect_browser, discover_ws_endpoint
from runtime.browser.launch.browser import Browser
from runtime.browser.launch.chromium_start import LaunchOptions
from runtime.browser.launch.reservation import ContextReservation
from runtime.browser.launch.starting import StartingChromium, launch_browser
from runtime.browser.session.browser_session import BrowserSession, open_session
from runtime.browser.vocabulary.errors import FENCE_REFUSALS, BrowserLaunchError, LaunchErrorCode
from runtime.browser.vocabulary.policy import SessionPolicy
from runtime.browser.supply.dns_fence import require_dns_fence
from runtime.browser.supply.handler_fence import require_handler_fence
from runtime.browser.supply.endpoint_specs import LOCAL_BROWSER_ID, BrowserDescription, BrowserPin, BrowserState
from runtime.browser.supply.udp_fence import require_udp_fence
from runtime.browser.supply.retry_schedule import RETRY_DELAYS
from runtime.browser.supply.waiting_line import BrowserUnavailable
from runtime.policy import NetworkPolicy, OnBlocked

_log = logging.getLogger(__name__)

class BrowserProvider:
    def __init__(
        self,
        *,
        ws_endpoint: str | None = None,
        launch_options: LaunchOptions | None = None,
        browser: Browser | None = None,
        supervise: bool = False,
        retry_delays: Sequence[float] = RETRY_DELAYS,
        starting: StartingChromium | None = None,
    ) -> None:
        """Launch (default), connect to `ws_endpoint`, or wrap an already started `browser`
        (which the provider then neither closes nor replaces). `starting` is a Chromium already
        started for this provider (`start_chromium`), used for its first browser instead of a
        launch; the provider owns it from then on (closes it, or discards it unused). A context
        its head start reserved (`verity run`'s) becomes the first session's."""
        self._ws_endpoint = ws_endpoint
        self._launch_options = launch_options
        self._browser = browser
        self._owns_browser = browser is None
        self._supervise = supervise and self._owns_browser
        self._retry_delays = tuple(retry_delays)
        self._start_lock = asyncio.Lock()
        self._closed = False
        self._replacing: asyncio.Task[None] | None = None
        self._available: bool | None = None
        self._availability_listeners: list[Callable[[bool], None]] = []
        self._starting = starting
        self._reservation: ContextReservation | None = None
        # Why the last attempt to start a browser failed (None once one started): ListBrowsers
        # tells a fence refusal from a lost connection by it.
        self.last_error: BrowserLaunchError | None = None
        self._sessions: list[BrowserSession] = []

    @property
    def browser(self) -> Browser | None:
        return self._browser

    @property
    def available(self) -> bool | None:
        """Whether a browser can be had: None until the first one is started."""
        return self._available

    def on_availability(self, listener: Callable[[bool], None]) -> None:
        """Call `listener(available)` whenever that changes (on the event loop)."""
        self._availability_listeners.append(listener)

    async def start(self) -> Browser:
        """The live browser: launched or connected on first use, and again when it has died."""
        async with self._start_lock:
            if self._closed:
                raise BrowserLaunchError(LaunchErrorCode.LAUNCH_FAILED, "the browser provider is closed")
            dead = self._browser
            if dead is not None and self._owns_browser and (dead.crashed or dead.process_died):
                self._browser = None
                with contextlib.suppress(Exception):
                    await dead.close()  # its leftovers and profile go with it
            if self._browser is None:
                try:
                    self._browser = await self._open()
                except BrowserLaunchError as error:
                    self.last_error = error
                    self._set_available(False)
                    self._replace_soon()
                    raise
                self.last_error = None
                self._watch(self._browser)
            self._set_available(True)
            return self._browser

    async def _open(self) -> Browser:
        if self._starting is not None:
            starting, self._starting = self._starting, None
            browser = await starting.connect()
            self._reservation = await starting.prepared()
            return browser
        if not self._ws_endpoint:
            return await launch_browser(self._launch_options)
        try:
            browser = await connect_browser(self._ws_endpoint)
        except BrowserLaunchError:
            # A restarted Chromium listens on the same address under a new browser id.
            current = await discover_ws_endpoint(self._ws_endpoint)
            if current is None or current == self._ws_endpoint:
                raise
            browser = await connect_browser(current)
        # Someone else started it: it must look up no name itself, its pages must start no
        # program outside it, and they must not reach past the fence over WebRTC UDP (the only
        # check that opens a page: it comes last).
        try:
            await require_dns_fence(browser)
            await require_handler_fence(browser)
            await require_udp_fence(browser)
        except BrowserLaunchError:
            await browser.close()  # disconnects; that Chromium keeps running
            raise
        return browser

    def _watch(self, browser: Browser) -> None:
        if not self._supervise:
            return

        def lost(_: object) -> None:
            if browser is self._browser and browser.crashed and not self._closed:
                _log.warning("the browser died or its connection dropped; replacing it")
                self._set_available(False)
                self._replace_soon()

        asyncio.ensure_future(browser.disconnected.wait()).add_done_callback(lost)

    def _replace_soon(self) -> None:
        if self._supervise and not self._closed and self._replacing is None:
            self._replacing = asyncio.ensure_future(self._replace())

    async def _replace(self) -> None:
        """Start a browser until one starts (start() failing inside does not schedule another)."""
        try:
            for delay in itertools.chain(self._retry_delays, itertools.repeat(self._retry_delays[-1])):
                if self._closed:
                    return
                try:
                    await self.start()
                    return
                except BrowserLaunchError as error:
                    _log.warning("no browser can be had (%s); trying again in %.1f s", error.message, delay)
                await asyncio.sleep(delay)
        finally:
            self._replacing = None

    def _set_available(self, available: bool) -> None:
        if available == self._available:
            return
        self._available = available
        for listener in self._availability_listeners:
            listener(available)

    def active_runs(self) -> int:
        """Sessions open on its current browser."""
        self._sessions = [s for s in self._sessions if not s.stopped and s.browser is self._browser]
        return len(self._sessions)

    def describe(self) -> list[BrowserDescription]:
        """The one browser it gives, as ListBrowsers shows it (a launched one has no limit of its own)."""
        return [BrowserDescription(LOCAL_BROWSER_ID, (), provider_state(self), self.active_runs(), 0)]

    async def open_session(
        self,
        run_dir: Path,
        *,
        session_id: str | None = None,
        network: NetworkPolicy | None = None,
        on_blocked: OnBlocked | None = None,
        pin: BrowserPin | None = None,
        on_wait: Callable[[str], None] | None = None,
    ) -> BrowserSession:
        """A fresh incognito session whose artifacts go under `run_dir/artifacts`; with `network`,
        every request of its context is judged by that policy before it leaves the browser, and
        `on_blocked` hears each refusal. Its one browser (id "local") never makes a run wait
        (`on_wait` is for the pool's sake); a `pin` it does not match raises BrowserUnavailable."""
        if pin and not pin.matches(LOCAL_BROWSER_ID, ()):
            raise BrowserUnavailable(f"no browser of this server has {pin} (it has one browser, id {LOCAL_BROWSER_ID!r}, no labels)")
        session = await self._open_session(run_dir, session_id, network, on_blocked)
        self._sessions.append(session)
        return session

    async def _open_session(
        self, run_dir: Path, session_id: str | None, network: NetworkPolicy | None, on_blocked: OnBlocked | None
    ) -> BrowserSession:
        browser = await self.start()
        policy = SessionPolicy(network=network)
        reservation, self._reservation = self._reservation, None
        try:
            return await open_session(
                browser, session_id, artifacts=ArtifactStore(run_dir), policy=policy, on_blocked=on_blocked, reservation=reservation
            )
        except Exception:
            # The browser died while the session opened (its death not yet seen when start()
            # handed it out): a browser of our own is replaced and the session opened once more
            # there. Anything else, or a browser that is still alive, is the caller's error.
            if not (self._owns_browser and await _died(browser)):
                raise
        browser = await self.start()
        return await open_session(browser, session_id, artifacts=ArtifactStore(run_dir), policy=policy, on_blocked=on_blocked)

    async def close(self) -> None:
        self._closed = True
        if self._starting is not None:
            starting, self._starting = self._starting, None
            await starting.discard()
        if self._reservation is not None:
            reservation, self._reservation = self._reservation, None
            await reservation.release()
        if self._replacing is not None:
            self._replacing.cancel()
        if self._browser is not None and self._owns_browser:
            await self._browser.close()

    async def __aenter__(self) -> BrowserProvider:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()


# How long a session that failed to open waits to see its browser's connection drop, when that is
# why it failed (a ceiling: a killed Chromium's websocket closes at once).
DEATH_NOTICE_SECONDS = 5.0


async def _died(browser: Browser) -> bool:
    if browser.crashed or browser.process_died:
        return True
    try:
        await asyncio.wait_for(browser.disconnected.wait(), DEATH_NOTICE_SECONDS)
    except asyncio.TimeoutError:
        return False
    return browser.crashed or browser.process_died


def provider_state(provider: BrowserProvider, *, lost_until_started: bool = False) -> BrowserState:
    """What ListBrowsers says of a provider's browser (before capacity: the pool adds `busy`). A
    launched one not started yet is ready (it starts on the first run); an attached one is lost
    until it connects."""
    if provider.available is True or (provider.available is None and not lost_until_started):
        return BrowserState.READY
    error = provider.last_error
    if error is not None and error.code in FENCE_REFUSALS:
        return BrowserState.REFUSED_BY_FENCE_PROBE
    return BrowserState.LOST
