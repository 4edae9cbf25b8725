"""`WaitingLine`: runs waiting their turn for something scarce (a browser of the pool, a run slot
of the server), served in order of arrival, within bounds the operator sets.

    line = WaitingLine(WaitLimits(queue_length=16, wait_seconds=300), what="a browser")
    endpoint = await line.wait(take, on_wait=announce, detail="every browser is busy")
    ...
    line.offer()          # something may be free now: the waiters take it, first come first

`take()` tries to take one now and returns it (or None); the line calls it for the first waiter
first, so a later arrival never takes what an earlier one could use. A waiter that cannot use what
is free (a run pinned to a busy browser) lets the next one try. A run that finds the line full, or
has waited `wait_seconds`, gets `BrowserUnavailable` saying which bound it met.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")

DEFAULT_QUEUE_LENGTH = 64
DEFAULT_WAIT_SECONDS = 300.0


class BrowserUnavailable(Exception):
    """No browser (or run slot) a run may use can be had; `message` says why and what to change."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class WaitLimits:
    # How many runs may wait at once (0: none; a run that finds no free one ends at once).
    queue_length: int = DEFAULT_QUEUE_LENGTH
    # How long one run may wait.
    wait_seconds: float = DEFAULT_WAIT_SECONDS


@dataclass
class _Waiter(Generic[T]):
    take: Callable[[], T | None]
    got: asyncio.Future[T]


class WaitingLine(Generic[T]):
    def __init__(self, limits: WaitLimits, *, what: str, give_back: Callable[[T], None]) -> None:
        self.limits = limits
        self._what = what
        # Returns what a waiter took but can no longer use (it was stopped as it got it).
        self._give_back = give_back
        self._waiters: list[_Waiter[T]] = []

    def __len__(self) -> int:
        return len(self._waiters)

    async def wait(self, take: Callable[[], T | None], *, on_wait: Callable[[str], None], detail: str) -> T:
        """What `take` takes, now when nobody waits ahead and it can, else in turn. `on_wait` hears
        `detail` (with the run's place in the line) once, when the run starts waiting."""
        if not self._waiters and (got := take()) is not None:
            return got
        limits = self.limits
        if len(self._waiters) >= limits.queue_length:
            raise BrowserUnavailable(
                f"no {self._what} is free and {len(self._waiters)} runs already wait for one, as many as the server queues "
                f"(browser_queue_length {limits.queue_length})"
            )
        waiter = _Waiter(take, asyncio.get_running_loop().create_future())
        ahead = len(self._waiters)
        self._waiters.append(waiter)
        on_wait(f"waiting for {self._what}: {detail} ({ahead} run{'s' if ahead != 1 else ''} ahead)")
        self.offer()  # what is free may suit this run though it does not suit those ahead
        try:
            await asyncio.wait_for(asyncio.shield(waiter.got), limits.wait_seconds)
        except asyncio.TimeoutError:
            if not waiter.got.done():
                waiter.got.cancel()
                raise BrowserUnavailable(
                    f"waited {limits.wait_seconds:g} s for {self._what} and none came free ({detail}; browser_wait_seconds)"
                ) from None
        except asyncio.CancelledError:
            if waiter.got.done() and not waiter.got.cancelled():
                self._give_back(waiter.got.result())
            waiter.got.cancel()
            raise
        finally:
            if waiter in self._waiters:
                self._waiters.remove(waiter)
        return waiter.got.result()

    def offer(self) -> None:
        """Something may have come free: each waiter, in order, takes what it can use."""
        for waiter in list(self._waiters):
            if waiter.got.done():
                continue
            got = waiter.take()
            if got is not None:
                self._waiters.remove(waiter)
                waiter.got.set_result(got)
