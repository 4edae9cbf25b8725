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

Each endpoint has an id and labels (endpoint_specs.py); a run may be pinned to either, and only
endpoints matching its pin take it. An endpoint with a capacity hosts at most that many sessions:
when every matching healthy endpoint is full, the run waits its turn (waiting_line.py), told
through `on_wait`, and takes the first slot that frees on a matching endpoint.
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
from runtime.browser.supply.endpoint_specs import BrowserDescription, BrowserPin, BrowserState, EndpointSpec, parse_endpoint_specs
from runtime.browser.supply.provider import BrowserProvider, provider_state
from runtime.browser.supply.retry_schedule import RETRY_DELAYS
from runtime.browser.supply.waiting_line import BrowserUnavailable, WaitingLine, WaitLimits
from runtime.policy import NetworkPolicy, OnBlocked

_log = logging.getLogger(__name__)


@dataclass
class PoolEndpoint:
    """One attached browser of the pool and the sessions it gives."""

    index: int
    spec: EndpointSpec
    provider: BrowserProvider
    # Sessions being opened on it right now: counted before the first await, so runs opening at
    # the same moment spread instead of all seeing the same loads.
    opening: int = 0
    sessions: list[BrowserSession] = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.spec.url

    @property
    def shown(self) -> str:
        return redact_endpoint(self.url)

    @property
    def healthy(self) -> bool:
        return self.provider.available is True

    @property
    def full(self) -> bool:
        return bool(self.spec.capacity) and self.active_runs() >= self.spec.capacity

    def described(self) -> BrowserDescription:
        state = provider_state(self.provider, lost_until_started=True)
        if state is BrowserState.READY and self.full:
            state = BrowserState.BUSY
        spec = self.spec
        return BrowserDescription(spec.browser_id, spec.labels, state, self.active_runs(), spec.capacity, self.shown)

    def active_runs(self) -> int:
        """Sessions opening or open on its current browser; stopped ones and those of a browser it
        has since replaced are forgotten here."""
        current = self.provider.browser
        self.sessions = [s for s in self.sessions if not s.stopped and s.browser is current]
        return self.opening + len(self.sessions)


class BrowserPool:
    def __init__(
        self, endpoints: Sequence[str], *, retry_delays: Sequence[float] = RETRY_DELAYS, wait_limits: WaitLimits = WaitLimits()
    ) -> None:
        """`endpoints`: each a DevTools URL, optionally with id=, labels=, capacity= (endpoint_specs.py)."""
        if not endpoints:
            raise ValueError("a browser pool needs at least one endpoint")
        self.endpoints = [
            PoolEndpoint(index, spec, BrowserProvider(ws_endpoint=spec.url, supervise=True, retry_delays=retry_delays))
            for index, spec in enumerate(parse_endpoint_specs(list(endpoints)))
        ]
        self.waiting: WaitingLine[PoolEndpoint] = WaitingLine(wait_limits, what="a browser", give_back=self._give_back)
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
        if available:
            self.waiting.offer()
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

    def describe(self) -> list[BrowserDescription]:
        return [endpoint.described() for endpoint in self.endpoints]

    def choose(self, tried: set[int], candidates: list[PoolEndpoint] | None = None) -> PoolEndpoint | None:
        """The endpoint a new session goes to: the healthy one with room and the fewest active
        sessions (the earlier listed on a tie); when none is healthy, the next one not yet tried,
        in list order. None also when every healthy one is full (the run then waits its turn)."""
        untried = [e for e in (self.endpoints if candidates is None else candidates) if e.index not in tried]
        healthy = [e for e in untried if e.healthy]
        if healthy:
            roomy = [e for e in healthy if not e.full]
            return min(roomy, key=lambda e: (e.active_runs(), e.index)) if roomy else None
        return untried[0] if untried else None

    def _candidates(self, pin: BrowserPin | None) -> list[PoolEndpoint]:
        if not pin:
            return self.endpoints
        matching = [e for e in self.endpoints if pin.matches(e.spec.browser_id, e.spec.labels)]
        if not matching:
            known = ", ".join(f"{e.spec.browser_id} [{','.join(e.spec.labels)}]" for e in self.endpoints)
            raise BrowserUnavailable(f"no browser of this server has {pin} (its browsers: {known}; see ListBrowsers)")
        return matching

    def _take_roomy(self, candidates: list[PoolEndpoint], tried: set[int]) -> PoolEndpoint | None:
        """For a waiting run: a healthy endpoint with room, its slot held (counted as opening)."""
        roomy = [e for e in candidates if e.index not in tried and e.healthy and not e.full]
        if not roomy:
            return None
        endpoint = min(roomy, key=lambda e: (e.active_runs(), e.index))
        endpoint.opening += 1
        return endpoint

    def _give_back(self, endpoint: PoolEndpoint) -> None:
        endpoint.opening -= 1
        self.waiting.offer()

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
        """A fresh incognito session on the chosen endpoint (see `choose`) among those matching
        `pin`; an endpoint that cannot give one is passed over for the next. When every matching
        healthy endpoint is full, waits its turn (`on_wait` hears it). Raises `BrowserUnavailable`
        when none matches or the wait's bounds are met, else the last `BrowserLaunchError` when
        none can give a session."""
        candidates = self._candidates(pin)
        tried: set[int] = set()
        failures: list[str] = []
        last: BrowserLaunchError | None = None
        while True:
            endpoint = self.choose(tried, candidates)
            if endpoint is not None:
                endpoint.opening += 1
            elif any(e.healthy and e.index not in tried for e in candidates):
                wanted = f"every browser{f' with {pin}' if pin else ''} is busy"
                endpoint = await self.waiting.wait(lambda: self._take_roomy(candidates, tried), on_wait=on_wait or _unheard, detail=wanted)
            else:
                break
            tried.add(endpoint.index)
            try:
                session = await endpoint.provider.open_session(run_dir, session_id=session_id, network=network, on_blocked=on_blocked)
            except BaseException as error:
                self._give_back(endpoint)
                if not isinstance(error, BrowserLaunchError):
                    raise
                last = error
                failures.append(error.message)
                continue
            endpoint.opening -= 1  # now counted as an open session, with no await in between
            endpoint.sessions.append(session)
            session.browser_id = endpoint.spec.browser_id
            session.on_closed = self.waiting.offer  # its slot is free for the next waiting run
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


def _unheard(detail: str) -> None:
    """Nobody listens for the wait (a caller that did not ask to hear it)."""
