"""A table of its own in the run store, beside the runs' tables (the action cache, the pending
webhook deliveries): one connection to SQLite or PostgreSQL, used by one thread at a time.

A table's queries are written once, with `?` marks (`_sql` turns them into the engine's); the
SQLite class creates the table on first use, PostgreSQL has it from the store's migrations (open
the run store, PostgresRunStore, first).
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

from runtime.store.interface import StoreError
from runtime.store.location import PostgresUrl


class SideTable:
    """The queries' side: each engine's class below executes them."""

    mark = "?"

    def _sql(self, sql: str) -> str:
        return sql.replace("?", self.mark)

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    def _changed(self, sql: str, params: tuple[Any, ...] = ()) -> int:
        """Execute a statement that writes; how many rows it changed."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class SqliteSideTable(SideTable):
    """The table in a SQLite run store's file, created by `table_sql` if missing; `what` names it
    in errors."""

    def __init__(self, path: Path, table_sql: str, what: str, busy_timeout_seconds: float = 5.0) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # One connection, used by one thread at a time (its callers go through asyncio.to_thread).
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=busy_timeout_seconds)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            # As the run store's default: a commit survives a killed process, not a power loss.
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(table_sql)
        except sqlite3.DatabaseError as error:
            self._db.close()
            raise StoreError(f"{self.path}: cannot open the {what}: {error}") from error

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    def _changed(self, sql: str, params: tuple[Any, ...] = ()) -> int:
        with self._lock:
            return int(self._db.execute(sql, params).rowcount)

    def close(self) -> None:
        self._db.close()


class PostgresSideTable(SideTable):
    """The table in a PostgreSQL run store, shared by every server on the database."""

    mark = "%s"

    def __init__(self, location: PostgresUrl, what: str) -> None:
        import psycopg

        self._lock = threading.Lock()
        try:
            self._conn = psycopg.connect(location.url, autocommit=True, connect_timeout=10)
        except psycopg.Error:
            raise StoreError(f"{location.shown}: cannot open the {what}") from None

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            cursor = self._conn.execute(sql, params)
            return cursor.fetchall() if cursor.description is not None else []

    def _changed(self, sql: str, params: tuple[Any, ...] = ()) -> int:
        with self._lock:
            return int(self._conn.execute(sql, params).rowcount)

    def close(self) -> None:
        self._conn.close()
