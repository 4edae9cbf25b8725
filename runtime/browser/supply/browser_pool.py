"""`BrowserPool`: several attached Chromiums (`verity serve --browser-ws` given more than once) as one
provider of sessions.

    pool = BrowserPool(["ws://10.0.0.5:9222/devtools/browser/A", "ws://10.0.0.6:9222/..."])
    refused = await pool.start_all()       # each endpoint connected and probed for the UDP fence
    session = await pool.open_session(run_dir, session_id=run_id, network=...)

Each endpoint is a supervised `BrowserProvider` of its own: it is connected and probed for the
UDP fence (udp_fence.py) before it takes a run, and when it cannot be connected, drops or fails
the probe it is out of the pool while it reconnects with growing delays (RETRY_DELAYS), probed
again on each connection. A new session goes to the healthy endpoint with the fewest active
sessions, the earlier listed one on a tie. When none is healthy, each endpoint is tried once more
as the single attached browser is, and a session that none can give fails with the last error
(a run then ends browser_crashed). The pool is available (health SERVING) while any endpoint is.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from runtime.browser.session.browser_session import BrowserSession
from runtime.browser.vocabulary.errors import BrowserLaunchError, LaunchErrorCode
from runtime.browser.launch.endpoints import redact_endpoint
from runtime.browser.supply.provider import RETRY_DELAYS, BrowserProvider
from runtime.policy import NetworkPolicy, OnBlocked

_log = logging.getLogger(__name__)


@dataclass
class PoolEndpoint:
    """One attached browser of the pool and the sessions it gives."""

    index: int
    url: str
    provider: BrowserProvider
    # Sessions being opened on it right now: counted before the first await, so runs opening at
    # the same moment spread instead of all seeing the same loads.
    opening: int = 0
    sessions: list[BrowserSession] = field(default_factory=list)

    @property
    def shown(self) -> str:
        return redact_endpoint(self.url)

    @property
    def healthy(self) -> bool:
        return self.provider.available is True

    def active_runs(self) -> int:
        """Sessions opening or open on its current browser; stopped ones and those of a browser it
        has since replaced are forgotten here."""
        current = self.provider.browser
        self.sessions = [s for s in self.sessions if not s.stopped and s.browser is current]
        return self.opening + len(self.sessions)


class BrowserPool:
    def __init__(self, endpoints: Sequence[str], *, retry_delays: Sequence[float] = RETRY_DELAYS) -> None:
        if not endpoints:
            raise ValueError("a browser pool needs at least one endpoint")
        self.endpoints = [
            PoolEndpoint(index, url, BrowserProvider(ws_endpoint=url, supervise=True, retry_delays=retry_delays))
            for index, url in enumerate(endpoints)
        ]
        self._available: bool | None = None
        self._availability_listeners: list[Callable[[bool], None]] = []
        for endpoint in self.endpoints:
            endpoint.provider.on_availability(lambda available, endpoint=endpoint: self._endpoint_changed(endpoint, available))

    @property
    def available(self) -> bool | None:
        """Whether any endpoint can give a session: None until they were started."""
        return self._available

    def on_availability(self, listener: Callable[[bool], None]) -> None:
        """Call `listener(available)` whenever that changes (on the event loop)."""
        self._availability_listeners.append(listener)

    def _endpoint_changed(self, endpoint: PoolEndpoint, available: bool) -> None:
        _log.log(
            logging.INFO if available else logging.WARNING,
            "browser endpoint %s %s", endpoint.shown, "in the pool" if available else "out of the pool until it reconnects",
        )
        states = [e.provider.available for e in self.endpoints]
        pooled = True if True in states else (None if all(s is None for s in states) else False)
        if pooled is None or pooled == self._available:
            return
        self._available = pooled
        for listener in self._availability_listeners:
            listener(pooled)

    async def start_all(self) -> list[tuple[PoolEndpoint, BrowserLaunchError]]:
        """Connect and probe every endpoint at once; the ones that failed, with why. A failed one
        keeps reconnecting in the background (its provider's backoff)."""

        async def start(endpoint: PoolEndpoint) -> BrowserLaunchError | None:
            try:
                await endpoint.provider.start()
            except BrowserLaunchError as error:
                return error
            return None

        errors = await asyncio.gather(*(start(e) for e in self.endpoints))
        return [(endpoint, error) for endpoint, error in zip(self.endpoints, errors) if error is not None]

    def choose(self, tried: set[int]) -> PoolEndpoint | None:
        """The endpoint a new session goes to: the healthy one with the fewest active sessions (the
        earlier listed on a tie); when none is healthy, the next one not yet tried, in list order."""
        untried = [e for e in self.endpoints if e.index not in tried]
        healthy = [e for e in untried if e.healthy]
        if healthy:
            return min(healthy, key=lambda e: (e.active_runs(), e.index))
        return untried[0] if untried else None

    async def open_session(
        self, run_dir: Path, *, session_id: str | None = None, network: NetworkPolicy | None = None, on_blocked: OnBlocked | None = None
    ) -> BrowserSession:
        """A fresh incognito session on the chosen endpoint (see `choose`); an endpoint that cannot
        give one is passed over for the next. Raises the last `BrowserLaunchError` when none can."""
        tried: set[int] = set()
        failures: list[str] = []
        last: BrowserLaunchError | None = None
        while (endpoint := self.choose(tried)) is not None:
            tried.add(endpoint.index)
            endpoint.opening += 1
            try:
                session = await endpoint.provider.open_session(run_dir, session_id=session_id, network=network, on_blocked=on_blocked)
            except BrowserLaunchError as error:
                last = error
                failures.append(error.message)
                continue
            finally:
                endpoint.opening -= 1
            endpoint.sessions.append(session)
            return session
        if last is not None and len(self.endpoints) == 1:
            raise last  # one attached browser fails as it always has
        code = last.code if last is not None else LaunchErrorCode.CONNECT_FAILED
        raise BrowserLaunchError(code, "no browser endpoint of the pool can be had: " + "; ".join(failures))

    async def close(self) -> None:
        for endpoint in self.endpoints:
            try:
                await endpoint.provider.close()
            except Exception:  # noqa: BLE001 - one dead endpoint must not keep the others attached
                _log.exception("closing browser endpoint %s failed", endpoint.shown)
