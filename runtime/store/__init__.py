"""Durable storage of runs, their events and the artifact index (SQLite by default, or PostgreSQL).

The names below are imported on first use, not with the package: reading a store's location
(runtime.store.location, which `verity serve` checks before it starts anything) does not open
the SQLite store's modules.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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
_MODULE_OF = {name: module for module, names in _EXPORTED_FROM.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'runtime.store' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"runtime.store.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_MODULE_OF})


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
