"""Fan-out of one run's live events to its stream subscribers.

A run must never wait for a watcher, and one slow watcher must not hold back the others. Every
subscriber gets a bounded buffer; `publish` only appends to it. A subscriber whose buffer is full
is cut off (it will be told to resume from the last seq it received) instead of slowing anyone.
Only durable events are published (see hosting.py), one committed batch at a time.
"""

from __future__ import annotations

import asyncio
from collections import deque

from runtime.events import Event


class SubscriberLagging(Exception):
    """This subscriber fell `capacity` events behind the run and was cut off."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        super().__init__(f"subscriber fell more than {capacity} events behind the run")


class Subscription:
    """One subscriber's bounded buffer of live events; read it with `next_batch`."""

    def __init__(self, broadcast: RunBroadcast, capacity: int) -> None:
        self._broadcast = broadcast
        self._capacity = capacity
        self._buffer: deque[Event] = deque()
        self._ready = asyncio.Event()
        self.lagging = False

    def _offer(self, events: list[Event]) -> None:
        if self.lagging:
            return
        # Events become visible a committed batch at a time; a subscriber that had read everything
        # is not behind, however large the batch, so only unread events count against it.
        if self._buffer and len(self._buffer) + len(events) > self._capacity:
            self.lagging = True
            self._buffer.clear()
        else:
            self._buffer.extend(events)
        self._ready.set()

    async def next_batch(self, max_events: int) -> list[Event]:
        """Wait for live events and return up to `max_events` of them, oldest first."""
        while not self._buffer:
            if self.lagging:
                raise SubscriberLagging(self._capacity)
            self._ready.clear()
            await self._ready.wait()
        batch = [self._buffer.popleft() for _ in range(min(max_events, len(self._buffer)))]
        return batch

    def close(self) -> None:
        self._broadcast.unsubscribe(self)


class RunBroadcast:
    """The live subscribers of one run. Call `publish` on the event loop; it never waits."""

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._subscribers: list[Subscription] = []

    @property
    def subscriber_count(self) -> int:
        return len(self._subscribers)

    @property
    def unread_by_slowest(self) -> int:
        """Events published that the slowest subscriber has not taken yet (0 without subscribers)."""
        return max((len(subscription._buffer) for subscription in self._subscribers), default=0)

    def subscribe(self) -> Subscription:
        subscription = Subscription(self, self._capacity)
        self._subscribers.append(subscription)
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        if subscription in self._subscribers:
            self._subscribers.remove(subscription)

    def publish(self, events: list[Event]) -> None:
        """Offer `events` (in seq order) to every subscriber."""
        for subscription in self._subscribers:
            subscription._offer(events)
