"""StreamRun's reading side: a run's durable events after a seq, stored ones first, then live ones.

Resuming is exact because only durable events are ever sent (see hosting.py): the seq a client
last received is always in the store, so `after_seq` = that seq yields the rest of the run. An
`after_seq` beyond the run's last event is answered, never met with a silent empty stream:
- the run has ended: `BeyondLastSeq` with `last_seq` (the client holds seqs this server never
  sent, e.g. from another store);
- the run is live: the stream waits for the events after `after_seq`, and if the run ends before
  reaching it, `BeyondLastSeq` as above.
`after_seq` equal to an ended run's last seq is an empty stream: the client has everything.
A stream ends with the run's final verdict; the events recorded after it (its webhook deliveries,
runs/webhooks.py) are streamed from `after_seq` = the verdict's seq.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from runtime.events import Event
from runtime.service.runs.errors import BeyondLastSeq, HistoryTrimmed, RunNotFound, WatcherLagging
from runtime.service.runs.fanout import SubscriberLagging
from runtime.service.runs.live_run import LiveRun
from runtime.store import BufferedRunStore


async def follow_live(live: LiveRun, after_seq: int, batch_size: int) -> AsyncIterator[list[Event]]:
    # Subscribe before taking the backlog (no await in between): an event made durable later lands
    # in the buffer, and the seq check drops what the backlog already had.
    subscription = live.broadcast.subscribe()
    last_seq = after_seq
    try:
        backlog = live.durable_after(after_seq)
        # Taken with the backlog: events made durable while the backlog is sent go to the buffer.
        whole_run_durable = live.final_durable.is_set()
        for start in range(0, len(backlog), batch_size):
            batch = backlog[start : start + batch_size]
            yield batch
            last_seq = batch[-1].seq
            if batch[-1].is_final:
                return
        if whole_run_durable:  # and the backlog was empty: the run ends at or before after_seq
            _check_not_beyond(live.run_id, after_seq, live.durable[-1].seq)
            return
        while True:
            try:
                batch = await subscription.next_batch(batch_size)
            except SubscriberLagging as lagging:
                raise WatcherLagging(live.run_id, lagging.capacity, last_seq) from None
            fresh = [e for e in batch if e.seq > last_seq]
            if fresh:
                yield fresh
                last_seq = fresh[-1].seq
            final = next((e for e in batch if e.is_final), None)
            if final is not None:
                _check_not_beyond(live.run_id, after_seq, final.seq)
                return
    finally:
        subscription.close()


async def follow_stored(store: BufferedRunStore, run_id: str, after_seq: int, batch_size: int) -> AsyncIterator[list[Event]]:
    record = await store.get_run(run_id)
    if record is None:
        raise RunNotFound(run_id)
    if after_seq + 1 < record.earliest_seq and after_seq < record.last_seq:
        raise HistoryTrimmed(run_id, record.earliest_seq, record.last_seq)
    if record.is_final:
        _check_not_beyond(run_id, after_seq, record.last_seq)
    cursor = after_seq
    while True:
        batch = await store.read_events(run_id, cursor, batch_size)
        if not batch:
            return
        final_at = next((index for index, event in enumerate(batch) if event.is_final), None)
        if final_at is not None:
            # The stream ends with the verdict; what follows it (webhook attempts) is read after it.
            yield batch[: final_at + 1]
            return
        yield batch
        cursor = batch[-1].seq


def _check_not_beyond(run_id: str, after_seq: int, last_seq: int) -> None:
    if after_seq > last_seq:
        raise BeyondLastSeq(run_id, after_seq, last_seq)
