"""An asyncio front for a `RunStore`: buffered writes flushed in batches, reads off the loop.

A run emits events synchronously and must never wait for the disk, so `append_event` only appends
to an in-memory batch; a writer task commits the batch every `flush_interval` seconds in one
transaction on a dedicated thread. Reads go through the same thread after a flush, so a reader
always sees everything appended before it asked.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from runtime.events import Event
from runtime.store.interface import RunStore
from runtime.store.records import ArtifactRecord, RunCursor, RunFilter, RunRecord, RunUpdate, WriteBatch

_log = logging.getLogger(__name__)

T = TypeVar("T")


class BufferedRunStore:
    def __init__(self, store: RunStore, *, flush_interval: float = 0.005) -> None:
        self._store = store
        self._flush_interval = flush_interval
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="verity-store")
        self._pending = WriteBatch()
        self._write_lock = asyncio.Lock()
        self._wakeup = asyncio.Event()
        self._closed = False
        self._writer_task = asyncio.get_running_loop().create_task(self._write_periodically(), name="verity-store-writer")

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

    async def create_run(self, run: RunRecord) -> None:
        """Record a new run and return once it is committed; raises if the store refuses it."""
        async with self._write_lock:
            batch, self._pending = self._pending, WriteBatch()
            if batch:
                await self._on_thread(self._write_salvaging, batch)
            await self._on_thread(self._store.write_batch, WriteBatch(new_runs=[run]))

    async def flush(self) -> None:
        """Commit everything buffered so far."""
        async with self._write_lock:
            batch, self._pending = self._pending, WriteBatch()
            if batch:
                await self._on_thread(self._write_salvaging, batch)

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

    async def close(self) -> None:
        """Flush what is buffered, stop the writer and close the store."""
        if self._closed:
            return
        self._closed = True
        self._wakeup.set()
        await self._writer_task
        await self.flush()
        await self._on_thread(self._store.close)
        self._thread.shutdown(wait=True)

    def _write_salvaging(self, batch: WriteBatch) -> None:
        """Write a batch; if the store rejects it, write its rows one by one and lose only the bad ones."""
        try:
            self._store.write_batch(batch)
            return
        except Exception:
            _log.exception("run store: a batch of %d events was rejected; retrying row by row", len(batch.events))
        singles = [
            *(WriteBatch(new_runs=[run]) for run in batch.new_runs),
            *(WriteBatch(events=[event]) for event in batch.events),
            *(WriteBatch(artifacts=[artifact]) for artifact in batch.artifacts),
            *(WriteBatch(run_updates={run_id: update}) for run_id, update in batch.run_updates.items()),
        ]
        for single in singles:
            try:
                self._store.write_batch(single)
            except Exception:
                _log.exception("run store: dropped a row the store rejects: %r", single)

    async def _write_periodically(self) -> None:
        while not self._closed:
            await self._wakeup.wait()
            self._wakeup.clear()
            if self._closed:
                break
            # Let a burst of events accumulate so one transaction carries many of them.
            await asyncio.sleep(self._flush_interval)
            try:
                await self.flush()
            except Exception:
                # The disk or database itself failed; keep the writer alive for later batches.
                _log.exception("run store: writing a batch failed")

    async def _on_thread(self, function: Callable[..., T], *args: object) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._thread, function, *args)
