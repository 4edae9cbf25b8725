"""What the policy proxy refused: a bounded list of samples, counters, and a hook for events."""

from __future__ import annotations

import asyncio

import logging
from collections import Counter, deque
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from runtime.outcomes import BlockerKind
from runtime.policy.urls import UrlError, parse_url

_log = logging.getLogger(__name__)

DEFAULT_SAMPLE_LIMIT = 200
# The method of a "request" that never was one: a page's navigation to a scheme Chromium hands to a
# program outside the browser (runtime/browser/tab/external_protocols.py).
EXTERNAL_PROTOCOL = "EXTERNAL_PROTOCOL"


@dataclass(frozen=True)
class BlockedRequest:
    """One refused request. `target` is the absolute URL, or `host:port` for a CONNECT tunnel;
    `sec_fetch` holds the request's Sec-Fetch-Dest/Mode/Site/User headers when they were visible
    (plain HTTP; a CONNECT tunnel shows none)."""

    at: float
    method: str
    target: str
    blocker_kind: BlockerKind
    reason: str
    host: str | None = None
    port: int | None = None
    private_class: str | None = None
    sec_fetch: dict[str, str] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        """What verdict.json counts it as: its blocker kind, or `external_protocol`."""
        return "external_protocol" if self.method == EXTERNAL_PROTOCOL else self.blocker_kind.value

    def to_dict(self) -> dict[str, Any]:
        shown = asdict(self)
        shown["blocker_kind"] = self.blocker_kind.value
        return shown


@dataclass
class ProxyCounters:
    """Every request the proxy saw, by what became of it."""

    requests: int = 0
    allowed: int = 0
    blocked: int = 0
    malformed: int = 0
    upstream_failed: int = 0
    blocked_by_kind: Counter[str] = field(default_factory=Counter)

    def to_dict(self) -> dict[str, Any]:
        shown = asdict(self)
        shown["blocked_by_kind"] = dict(self.blocked_by_kind)
        return shown


OnBlocked = Callable[[BlockedRequest], Awaitable[None]]


class BlockedLog:
    """Keeps the last `limit` refusals (the count goes on past it) and tells `on_blocked`."""

    def __init__(self, limit: int = DEFAULT_SAMPLE_LIMIT, on_blocked: OnBlocked | None = None) -> None:
        self._samples: deque[BlockedRequest] = deque(maxlen=limit)
        self.counters = ProxyCounters()
        self.on_blocked = on_blocked
        self._recording: set[asyncio.Task[None]] = set()

    @property
    def samples(self) -> list[BlockedRequest]:
        return list(self._samples)

    @property
    def blocked_requests(self) -> int:
        return self.counters.blocked

    async def record(self, blocked: BlockedRequest) -> None:
        """Count and keep the refusal, then await the hook. A failing hook is logged, never raised:
        the refusal stands whatever the listener does."""
        self._samples.append(blocked)
        self.counters.blocked += 1
        self.counters.blocked_by_kind[blocked.kind] += 1
        if self.on_blocked is None:
            return
        try:
            await self.on_blocked(blocked)
        except Exception:  # noqa: BLE001 - a listener's bug must not open or break the proxy
            _log.exception("the on_blocked listener failed for %s", blocked.target)

    def record_soon(self, blocked: BlockedRequest) -> None:
        """`record` from a synchronous caller (a CDP event handler), on the running loop."""
        task = asyncio.get_running_loop().create_task(self.record(blocked))
        self._recording.add(task)
        task.add_done_callback(self._recording.discard)

    def refusal_of(self, url: str) -> BlockedRequest | None:
        """The latest kept refusal of `url`: that very request, or the CONNECT tunnel it needed
        (an https or WebSocket URL shows the proxy only its host and port)."""
        try:
            parsed = parse_url(url)
        except UrlError:
            return None
        host = parsed.host.name if parsed.host is not None else None
        for blocked in reversed(self._samples):
            if blocked.target == url or (blocked.method == "CONNECT" and (blocked.host, blocked.port) == (host, parsed.effective_port)):
                return blocked
        return None

    def summary(self) -> dict[str, Any]:
        """`blocked_requests` with samples, as verdict.json shows them."""
        return {
            "blocked_requests": self.counters.blocked,
            "by_kind": dict(self.counters.blocked_by_kind),
            "samples": [b.to_dict() for b in self._samples],
        }
