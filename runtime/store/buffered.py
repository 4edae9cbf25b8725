"""An asyncio front for a `RunStore`: group-committed writes, reads off the loop.

A run emits events synchronously and must never wait for the disk, so `append_event` only appends
to an in-memory batch. A writer task commits what is pending in one transaction on a dedicated
thread; whatever arrives while that commit is in flight waits and goes into the next one (group
commit), so a burst of events costs a few commits, not one each. After every commit the batch is
handed to the commit listeners on the event loop: that is the moment its rows became durable, and
the only moment anything may show them to a client. Reads go through the same thread after a
flush, so a reader always sees everything appended before it asked.

When the store cannot commit (disk full, I/O error, the file locked by another process), the rows
stay buffered in order and the writer retries with a backoff; `flush` and every read raise
`StoreWriteError` meanwhile, so callers report the outage instead of reading stale data. Rows that
still cannot be written when the store closes are reported by `close`, never dropped silently.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from runtime.events import Event
from runtime.store.interface import RunStore, StoreWriteError
from runtime.store.run_keys import KeyHolder, RunKey
from runtime.store.records import ArtifactRecord, RunCursor, RunFilter, RunRecord, RunUpdate, WriteBatch

_log = logging.getLogger(__name__)

T = TypeVar("T")

RETRY_FIRST_DELAY_SECONDS = 0.05
RETRY_MAX_DELAY_SECONDS = 2.0


class BufferedRunStore:
    def __init__(self, store: RunStore, *, flush_interval: float = 0.0) -> None:
        self._store = store
        # Extra time to gather a batch before committing it; group commit batches without it.
        self._flush_interval = flush_interval
        self._commit_listeners: list[Callable[[WriteBatch], None]] = []
        # Transactions committed and the events they carried (the benchmark reports the batching).
        self.commits = 0
        self.committed_events = 0
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="verity-store")
        self._pending = WriteBatch()
        self._write_lock = asyncio.Lock()
        self._wakeup = asyncio.Event()
        self._closing = asyncio.Event()
        self._closed = False
        # The current outage, if the last write failed.
        self.write_failure: StoreWriteError | None = None
        self._writer_task = asyncio.get_running_loop().create_task(self._write_periodically(), name="verity-store-writer")

    def add_commit_listener(self, listener: Callable[[WriteBatch], None]) -> None:
        """Call `listener(batch)` on the event loop after each batch is committed, in commit order."""
        self._commit_listeners.append(listener)

    # Buffered writes: cheap, synchronous, never touch the disk on the caller's stack.

    def append_event(self, event: Event) -> None:
        self._pending.events.append(event)
        self._wakeup.set()

    def add_artifact(self, artifact: ArtifactRecord) -> None:
        self._pending.artifacts.append(artifact)
        self._wakeup.set()

    def update_run(self, update: RunUpdate) -> None:
        self._pending.run_updates[update.run_id] = update
        self._wakeup.set()

    # Durable writes and reads.

    async def create_run(self, run: RunRecord, key: RunKey | None = None) -> KeyHolder | None:
        """Record a new run and return once it is committed; raises if the store refuses it.
        With an idempotency `key` another run holds, nothing is recorded and that holder is returned."""
        async with self._write_lock:
            await self._commit_pending()
            batch = WriteBatch(new_runs=[run])
            try:
                if key is None:
                    await self._on_thread(self._store.write_batch, batch)
                else:
                    holder = await self._on_thread(self._store.create_keyed_run, run, key)
                    if holder.run_id != run.run_id:
                        return holder
            except Exception as error:
                raise self._outage(error, batch) from error
            self._committed(batch)
            return None

    async def find_key(self, key: RunKey) -> KeyHolder | None:
        """The run an unexpired idempotency key started, if any."""
        await self.flush()
        return await self._on_thread(self._store.find_key, key)

    async def flush(self) -> None:
        """Commit everything buffered so far; raises StoreWriteError (the rows stay buffered) if it cannot."""
        async with self._write_lock:
            await self._commit_pending()

    async def get_run(self, run_id: str) -> RunRecord | None:
        await self.flush()
        return await self._on_thread(self._store.get_run, run_id)

    async def list_runs(self, run_filter: RunFilter, limit: int, after: RunCursor | None = None) -> list[RunRecord]:
        await self.flush()
        return await self._on_thread(self._store.list_runs, run_filter, limit, after)

    async def read_events(self, run_id: str, after_seq: int = 0, limit: int | None = None) -> list[Event]:
        await self.flush()
        return await self._on_thread(self._store.read_events, run_id, after_seq, limit)

    async def list_artifacts(self, run_id: str) -> list[ArtifactRecord]:
        await self.flush()
        return await self._on_thread(self._store.list_artifacts, run_id)

    async def trim_events(self, run_id: str, keep_from_seq: int) -> int:
        await self.flush()
        return await self._on_thread(self._store.trim_events, run_id, keep_from_seq)

    async def read_blob(self, sha256: str) -> bytes | None:
        await self.flush()
        return await self._on_thread(self._store.read_blob, sha256)

    async def close(self) -> None:
        """Flush what is buffered, stop the writer and close the store.

        Raises StoreWriteError naming the events that could not be written: they are lost.
        """
        if self._closed:
            return
        self._closed = True
        self._closing.set()
        self._wakeup.set()
        await self._writer_task
        try:
            await self.flush()
        except StoreWriteError as failure:
            message = (
                f"run store: {failure.held_events} event(s) of run(s) {', '.join(failure.run_ids) or '-'} "
                f"could not be written before closing and are lost: {failure.__cause__ or failure}"
            )
            _log.error("%s", message)
            raise StoreWriteError(message, held_events=failure.held_events, run_ids=failure.run_ids) from None
        finally:
            await self._on_thread(self._store.close)
            self._thread.shutdown(wait=True)

    async def _commit_pending(self) -> None:
        batch, self._pending = self._pending, WriteBatch()
        if not batch:
            return
        try:
            await self._on_thread(self._store.write_batch, batch)
        except Exception as error:
            # A batch is one transaction, so nothing of it was written: put it back in front of
            # what arrived meanwhile and keep the order.
            self._pending = batch.followed_by(self._pending)
            raise self._outage(error, self._pending) from error
        if self.write_failure is not None:
            _log.warning("run store: writing works again; committed %d held event(s)", len(batch.events))
            self.write_failure = None
        self._committed(batch)

    def _committed(self, batch: WriteBatch) -> None:
        self.commits += 1
        self.committed_events += len(batch.events)
        for listener in self._commit_listeners:
            try:
                listener(batch)
            except Exception:  # noqa: BLE001 - a listener's bug must not undo a commit or stop the writer
                _log.exception("run store: a commit listener failed")

    def _outage(self, error: Exception, held: WriteBatch) -> StoreWriteError:
        failure = StoreWriteError(
            f"the run store cannot write ({type(error).__name__}: {error}); {len(held.events)} event(s) are "
            "held in memory and retried",
            held_events=len(held.events),
            run_ids=held.run_ids,
        )
        if self.write_failure is None:  # report an outage once, not on every retry
            _log.error("%s", failure)
        self.write_failure = failure
        return failure

    async def _write_periodically(self) -> None:
        retry_delay = 0.0
        while not self._closed:
            if retry_delay:
                # Held rows are retried even when no new event arrives.
                try:
                    await asyncio.wait_for(self._closing.wait(), retry_delay)
                except asyncio.TimeoutError:
                    pass
            else:
                await self._wakeup.wait()
            self._wakeup.clear()
            if self._closed:
                break
            if self._flush_interval:
                await asyncio.sleep(self._flush_interval)
            try:
                await self.flush()
                retry_delay = 0.0
            except StoreWriteError:
                retry_delay = min(RETRY_MAX_DELAY_SECONDS, max(RETRY_FIRST_DELAY_SECONDS, retry_delay * 2))

    async def _on_thread(self, function: Callable[..., T], *args: object) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._thread, function, *args)
