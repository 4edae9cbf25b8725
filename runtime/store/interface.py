"""The storage interface of the service, implemented by SQLite (the embedded default) and PostgreSQL.

Methods are synchronous and called from one dedicated thread (see `BufferedRunStore`), so an
implementation may hold a single connection and never has to think about the event loop.
"""

from __future__ import annotations

from typing import Protocol

from runtime.events import Event
from runtime.store.run_keys import KeyHolder, RunKey
from runtime.store.records import ArtifactRecord, RunCursor, RunFilter, RunRecord, WriteBatch


class StoreError(Exception):
    """The store cannot be used (wrong schema version, not a database, the server unreachable, ...)."""


class StoreWriteError(StoreError):
    """Buffered rows could not be committed (disk full, I/O error, the file locked by another
    process). The rows stay buffered and are retried; the message says how many and why."""

    def __init__(self, message: str, *, held_events: int, run_ids: tuple[str, ...]) -> None:
        super().__init__(message)
        self.held_events = held_events
        self.run_ids = run_ids


class RunStore(Protocol):
    def write_batch(self, batch: WriteBatch) -> None:
        """Apply a batch atomically: new runs, then events, artifacts and run updates; each run's
        last_seq, updated_ns and trace_id then follow its newest event in the batch."""

    def create_keyed_run(self, run: RunRecord, key: RunKey) -> KeyHolder:
        """Record `run` and its idempotency key in one transaction, unless a live (unexpired) row
        holds the key: then write nothing and return that holder. Returns the new run's holder
        when it was recorded."""

    def find_key(self, key: RunKey) -> KeyHolder | None:
        """The live holder of `key.key`, or None when it is unused or expired."""

    def get_run(self, run_id: str) -> RunRecord | None: ...

    def list_runs(self, run_filter: RunFilter, limit: int, after: RunCursor | None = None) -> list[RunRecord]:
        """Runs newest first (created_ns, then run_id, descending), strictly after `after`."""

    def read_events(self, run_id: str, after_seq: int = 0, limit: int | None = None) -> list[Event]:
        """Stored events of a run with seq > after_seq, in seq order."""

    def list_artifacts(self, run_id: str) -> list[ArtifactRecord]: ...

    def trim_events(self, run_id: str, keep_from_seq: int) -> int:
        """Delete a run's events with seq < keep_from_seq; returns how many were deleted."""

    def read_blob(self, sha256: str) -> bytes | None:
        """The artifact bytes stored under this sha256, or None when the store keeps no copy of
        them (SQLite: the run directory is their only home)."""

    def close(self) -> None: ...
