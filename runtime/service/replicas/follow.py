"""StreamRun on one replica for a run another replica runs: its events as the shared store has them.

The owner commits each event before anyone may see it (runs/hosting.py), and the commit notifies
"run_id seq" (pg_replicas.py). Here one `RunTail` per watched run reads what a notification
announces from the events table, once for all of this replica's watchers of the run, and offers it
to their bounded buffers (runs/fanout.py). A slow safety poll covers a missed notification.

No gap and no duplicate, whatever the timing: a watcher's cursor is the last seq it sent. It first
reads the table after its `after_seq` until it has caught up, with its subscription already
buffering; then it takes the tail's batches, drops what it already sent, and reads from the table
whatever lies between its cursor and a batch (the seam). A watcher that falls behind the tail's
buffer goes back to reading the table. The table is the truth throughout; the tail only saves the
readers a query each.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable

from runtime.events import Event
from runtime.service.runs.errors import BeyondLastSeq
from runtime.service.runs.fanout import RunBroadcast, SubscriberLagging, Subscription

_log = logging.getLogger(__name__)

ReadEvents = Callable[[str, int, int], Awaitable[list[Event]]]
ReadEventsBefore = Callable[[str, int, int, int], Awaitable[list[Event]]]


class RunTail:
    """One run's events read from the table as they are announced, offered to its watchers here."""

    def __init__(self, run_id: str, cursor: int, read: ReadEvents, *, capacity: int, batch: int, poll_seconds: float) -> None:
        self.run_id = run_id
        self.cursor = cursor  # the newest seq offered to the watchers
        self.broadcast = RunBroadcast(capacity)
        self.watchers = 0
        self.ended = False
        self._read = read
        self._batch = batch
        self._poll_seconds = poll_seconds
        self._wake = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._follow(), name=f"tail-{run_id}")

    def announce(self, seq: int) -> None:
        if seq > self.cursor:
            self._wake.set()

    async def _follow(self) -> None:
        while not self.ended:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self._poll_seconds)
            self._wake.clear()
            try:
                while not self.ended:
                    events = await self._read(self.run_id, self.cursor, self._batch)
                    if not events:
                        break
                    self.cursor = events[-1].seq
                    self.ended = events[-1].is_final
                    self.broadcast.publish(events)
            except Exception:  # noqa: BLE001 - the store may be away for a moment; the poll retries
                _log.warning("run %s: reading its events failed; retrying", self.run_id, exc_info=True)

    def close(self) -> None:
        self._task.cancel()


class RunTails:
    """This replica's tails of runs other replicas run, by run id, shared by their watchers."""

    def __init__(self, read: ReadEvents, last_seq: Callable[[str], Awaitable[int | None]], *, capacity: int, batch: int, poll_seconds: float) -> None:
        self._read = read
        self._last_seq = last_seq
        self._capacity = capacity
        self._batch = batch
        self._poll_seconds = poll_seconds
        self._tails: dict[str, RunTail] = {}

    def announce(self, run_id: str, seq: int) -> None:
        tail = self._tails.get(run_id)
        if tail is not None:
            tail.announce(seq)

    async def subscribe(self, run_id: str) -> tuple[RunTail, Subscription]:
        tail = self._tails.get(run_id)
        if tail is None:
            cursor = await self._last_seq(run_id) or 0
            tail = self._tails.get(run_id)  # another watcher may have made it meanwhile
            if tail is None:
                tail = self._tails[run_id] = RunTail(
                    run_id, cursor, self._read, capacity=self._capacity, batch=self._batch, poll_seconds=self._poll_seconds
                )
        tail.watchers += 1
        return tail, tail.broadcast.subscribe()

    def unsubscribe(self, tail: RunTail, subscription: Subscription) -> None:
        subscription.close()
        tail.watchers -= 1
        if tail.watchers == 0 and self._tails.get(tail.run_id) is tail:
            del self._tails[tail.run_id]
            tail.close()

    def close(self) -> None:
        for tail in self._tails.values():
            tail.close()
        self._tails.clear()


async def follow_tailed(
    tails: RunTails,
    read_before: ReadEventsBefore,
    final_seq: Callable[[str], Awaitable[int | None]],
    run_id: str,
    after_seq: int,
    batch_size: int,
) -> AsyncIterator[list[Event]]:
    """The run's events with seq > after_seq in batches, to its final verdict. `final_seq` tells
    the seq of the run's verdict once it has one (it may end between the caller's look and here)."""
    tail, subscription = await tails.subscribe(run_id)
    sent = after_seq
    unbounded = 2**62
    first_catch_up = True
    try:
        while True:
            # Catch up from the table (the subscription buffers meanwhile).
            while True:
                events = await read_before(run_id, sent, batch_size, unbounded)
                if not events:
                    break
                yield events
                sent = events[-1].seq
                if events[-1].is_final:
                    return
            if first_catch_up:
                first_catch_up = False
                ended_at = await final_seq(run_id)
                if ended_at is not None and sent >= ended_at:
                    if after_seq > ended_at:
                        raise BeyondLastSeq(run_id, after_seq, ended_at)
                    return
            # Live: the tail's batches, with the seam read from the table.
            try:
                while True:
                    batch = await subscription.next_batch(batch_size)
                    fresh = [event for event in batch if event.seq > sent]
                    final = next((event for event in batch if event.is_final), None)
                    if not fresh:
                        if final is not None:
                            if after_seq > final.seq:
                                raise BeyondLastSeq(run_id, after_seq, final.seq)
                            return
                        continue
                    while fresh[0].seq > sent + 1:
                        between = await read_before(run_id, sent, batch_size, fresh[0].seq)
                        if not between:
                            break
                        yield between
                        sent = between[-1].seq
                    yield fresh
                    sent = fresh[-1].seq
                    if fresh[-1].is_final:
                        return
            except SubscriberLagging:
                # Fell behind the tail: read the table again from where this stream is.
                tails.unsubscribe(tail, subscription)
                tail, subscription = await tails.subscribe(run_id)
    finally:
        tails.unsubscribe(tail, subscription)
