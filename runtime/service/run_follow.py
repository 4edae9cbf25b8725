"""StreamRun's reading side: a run's durable events after a seq, stored ones first, then live ones.

Resuming is exact because only durable events are ever sent (see supervisor.py): the seq a client
last received is always in the store, so `after_seq` = that seq yields the rest of the run. An
`after_seq` beyond the run's last event is answered, never met with a silent empty stream:
- the run has ended: OUT_OF_RANGE `BEYOND_LAST_SEQ` with `last_seq` (the client holds seqs this
  server never sent, e.g. from another store);
- the run is live: the stream waits for the events after `after_seq`, and if the run ends before
  reaching it, OUT_OF_RANGE `BEYOND_LAST_SEQ` as above.
`after_seq` equal to an ended run's last seq is an empty stream: the client has everything.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc

from runtime.events import Event
from runtime.service.fanout import SubscriberLagging
from runtime.service.live_run import LiveRun
from runtime.service.rich_errors import ServiceError, run_not_found
from runtime.store import BufferedRunStore


def beyond_last_seq(run_id: str, after_seq: int, last_seq: int) -> ServiceError:
    return ServiceError(
        grpc.StatusCode.OUT_OF_RANGE,
        f"run {run_id!r} ended at seq {last_seq}; there is no seq {after_seq} to stream after. "
        f"Stream with after_seq <= {last_seq}",
        reason="BEYOND_LAST_SEQ",
        metadata={"last_seq": str(last_seq), "after_seq": str(after_seq)},
    )


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
                raise ServiceError(
                    grpc.StatusCode.ABORTED,
                    f"this stream fell more than {lagging.capacity} events behind run {live.run_id!r} and was "
                    f"cut off; resume with StreamRun(after_seq={last_seq})",
                    reason="SUBSCRIBER_LAGGING",
                    metadata={"resume_after_seq": str(last_seq), "buffer_events": str(lagging.capacity)},
                ) from None
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
        raise run_not_found(run_id)
    if after_seq + 1 < record.earliest_seq and after_seq < record.last_seq:
        raise ServiceError(
            grpc.StatusCode.OUT_OF_RANGE,
            f"events of run {run_id!r} before seq {record.earliest_seq} were trimmed; the earliest "
            f"available is {record.earliest_seq}: stream with after_seq >= {record.earliest_seq - 1}",
            reason="HISTORY_TRIMMED",
            metadata={"earliest_seq": str(record.earliest_seq), "last_seq": str(record.last_seq)},
        )
    if record.is_final:
        _check_not_beyond(run_id, after_seq, record.last_seq)
    cursor = after_seq
    while True:
        batch = await store.read_events(run_id, cursor, batch_size)
        if not batch:
            return
        yield batch
        cursor = batch[-1].seq
        if batch[-1].is_final:
            return


def _check_not_beyond(run_id: str, after_seq: int, last_seq: int) -> None:
    if after_seq > last_seq:
        raise beyond_last_seq(run_id, after_seq, last_seq)
