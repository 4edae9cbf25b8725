"""Open the run store a location names: a SQLite file or a PostgreSQL database."""

from __future__ import annotations

from pathlib import Path

from runtime.store.action_cache import ActionCache, PostgresActionCache, SqliteActionCache
from runtime.store.interface import RunStore
from runtime.store.location import PostgresUrl, StoreLocation


def open_run_store(
    location: StoreLocation,
    *,
    busy_timeout_seconds: float = 5.0,
    synchronous: str = "normal",
    runs_dir: Path | None = None,
) -> RunStore:
    """The store at `location`, schema ready. `busy_timeout_seconds` is how long a write waits for
    another writer's lock before it fails (and is retried); `synchronous` is SQLite's only (a
    PostgreSQL commit is durable once it returns). A PostgreSQL store given `runs_dir` copies each
    recorded artifact's bytes from there into the database. Raises StoreError when it cannot be opened."""
    if isinstance(location, PostgresUrl):
        from runtime.store.postgres import PostgresRunStore  # psycopg is loaded only for PostgreSQL

        return PostgresRunStore(location, lock_timeout_seconds=busy_timeout_seconds, artifact_root=runs_dir)
    from runtime.store.sqlite import SqliteRunStore

    return SqliteRunStore(Path(location), busy_timeout_seconds=busy_timeout_seconds, synchronous=synchronous)


def open_action_cache(location: StoreLocation, *, migrated: bool = False) -> ActionCache:
    """The verified action cache in the run store at `location`; a PostgreSQL store is migrated
    first, unless the caller opened it as a run store already (`migrated`)."""
    if isinstance(location, PostgresUrl):
        if not migrated:
            from runtime.store.postgres import PostgresRunStore

            PostgresRunStore(location).close()  # applies the migration that creates the table
        return PostgresActionCache(location)
    return SqliteActionCache(Path(location))
