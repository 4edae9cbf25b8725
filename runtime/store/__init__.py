"""Durable storage of runs, their events and the artifact index (SQLite by default, or PostgreSQL).

The names below are imported on first use, not with the package: reading a store's location
(runtime.store.location, which `verity serve` checks before it starts anything) does not open
the SQLite store's modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from runtime.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from runtime.store.buffered import BufferedRunStore
    from runtime.store.interface import RunStore, StoreError, StoreWriteError
    from runtime.store.records import ArtifactRecord, RunCursor, RunFilter, RunRecord, RunUpdate, WriteBatch
    from runtime.store.sqlite import SqliteRunStore

# Each exported name, by the module of runtime.store that defines it.
_EXPORTED_FROM = {
    "buffered": ("BufferedRunStore",),
    "interface": ("RunStore", "StoreError", "StoreWriteError"),
    "records": ("ArtifactRecord", "RunCursor", "RunFilter", "RunRecord", "RunUpdate", "WriteBatch"),
    "sqlite": ("SqliteRunStore",),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTED_FROM, globals())

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
