"""Durable storage of runs, their events and the artifact index (SQLite by default, or PostgreSQL)."""

from runtime.store.buffered import BufferedRunStore
from runtime.store.interface import RunStore, StoreError, StoreWriteError
from runtime.store.records import ArtifactRecord, RunCursor, RunFilter, RunRecord, RunUpdate, WriteBatch
from runtime.store.sqlite import SqliteRunStore

__all__ = [
    "ArtifactRecord",
    "BufferedRunStore",
    "RunCursor",
    "RunFilter",
    "RunRecord",
    "RunStore",
    "RunUpdate",
    "SqliteRunStore",
    "StoreError",
    "StoreWriteError",
    "WriteBatch",
]
