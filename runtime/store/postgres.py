"""The run store on PostgreSQL: the same runs, events and artifact index as the SQLite store.

Like every `RunStore` it is called from one dedicated thread (`BufferedRunStore`), so it uses
psycopg's synchronous API over a small `psycopg_pool.ConnectionPool`: the pool is what survives the
database restarting or a connection being cut. A connection that broke during a write is thrown
away and the next attempt (BufferedRunStore retries the held batch) gets a fresh one. Every write
waits at most `lock_timeout` for another session's lock, then fails and is retried, as the SQLite
store's busy timeout does.

The schema is versioned: `MIGRATIONS` are applied at start-up, each once and in its own
transaction, recorded in `schema_migrations`; servers starting at the same time serialise on an
advisory lock. A database migrated by a newer Verity is refused.

Identifiers are compared as bytes (COLLATE "C"), as SQLite does, so listings order and page
identically on both stores.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from runtime.events import Event
from runtime.events.model import payload_from_dict
from runtime.store.action_cache import ACTION_CACHE_TABLE
from runtime.store.interface import StoreError
from runtime.store.location import PostgresUrl, redact_url, url_passwords
from runtime.store.payload_json import payload_json
from runtime.store.pending_webhooks import PENDING_WEBHOOKS_TABLE
from runtime.store.records import ArtifactRecord, RunCursor, RunFilter, RunRecord, WriteBatch
from runtime.store.run_keys import CLAIM_KEY, FIND_KEY, PRUNE_KEYS, RUN_KEYS_TABLE, KeyHolder, RunKey, holder_from_row, key_params
from runtime.store.run_rows import RUN_COLUMNS, artifact_row, newest_event_rows, run_from_row, run_row, run_update_row

_log = logging.getLogger(__name__)

# (version, what it does, its SQL). Append only: a released migration never changes.
MIGRATIONS: tuple[tuple[int, str, str], ...] = (
    (
        1,
        "runs, their events and the artifact index",
        """
        CREATE TABLE runs (
            run_id         TEXT COLLATE "C" PRIMARY KEY,
            recipe_name    TEXT NOT NULL,
            recipe_version TEXT NOT NULL,
            status         TEXT NOT NULL,
            stop_reason    TEXT,
            verified       INTEGER NOT NULL DEFAULT 0,
            summary        TEXT NOT NULL DEFAULT '',
            trace_id       TEXT NOT NULL,
            inputs_json    TEXT NOT NULL DEFAULT '{}',
            labels_json    TEXT NOT NULL DEFAULT '{}',
            created_ns     BIGINT NOT NULL,
            updated_ns     BIGINT NOT NULL,
            ended_ns       BIGINT,
            last_seq       BIGINT NOT NULL DEFAULT 0,
            earliest_seq   BIGINT NOT NULL DEFAULT 1
        );
        CREATE INDEX runs_by_created ON runs (created_ns DESC, run_id DESC);
        CREATE INDEX runs_by_status ON runs (status);
        CREATE TABLE events (
            run_id       TEXT COLLATE "C" NOT NULL,
            seq          BIGINT NOT NULL,
            timestamp_ns BIGINT NOT NULL,
            trace_id     TEXT NOT NULL,
            kind         TEXT NOT NULL,
            payload_json TEXT NOT NULL,
            PRIMARY KEY (run_id, seq)
        );
        CREATE TABLE artifacts (
            run_id        TEXT COLLATE "C" NOT NULL,
            artifact_id   TEXT COLLATE "C" NOT NULL,
            artifact_kind TEXT NOT NULL,
            path          TEXT NOT NULL,
            media_type    TEXT NOT NULL,
            size          BIGINT NOT NULL,
            sha256        TEXT NOT NULL,
            seq           BIGINT NOT NULL,
            PRIMARY KEY (run_id, artifact_id)
        );
        """,
    ),
)
MIGRATIONS += (
    (
        2,
        "artifact bytes, content-addressed and shared by every server on the database",
        """
        CREATE TABLE blobs (
            sha256 TEXT COLLATE "C" PRIMARY KEY,
            size   BIGINT NOT NULL,
            data   BYTEA NOT NULL
        );
        """,
    ),
)
MIGRATIONS += ((3, "idempotency keys of started runs", RUN_KEYS_TABLE),)
MIGRATIONS += ((4, "the verified action cache, shared by every server on the database", ACTION_CACHE_TABLE),)
MIGRATIONS += ((5, "webhook deliveries not yet finished, resumed by whichever server holds their lease", PENDING_WEBHOOKS_TABLE),)
SCHEMA_VERSION = MIGRATIONS[-1][0]
# pg_advisory_xact_lock key: servers migrating one database at the same moment take turns.
_MIGRATION_LOCK = 0x76657269  # "veri"

_MIGRATIONS_TABLE = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
)
"""


# Per session, emptied at every commit (and by a rollback, which also undoes its creation).
_EVENTS_STAGING = """
CREATE TEMP TABLE IF NOT EXISTS events_staging (LIKE events INCLUDING DEFAULTS) ON COMMIT DELETE ROWS
"""


class PostgresRunStore:
    """`RunStore` on PostgreSQL. Opening it connects and migrates; a failure is a StoreError."""

    def __init__(
        self,
        location: PostgresUrl,
        *,
        lock_timeout_seconds: float = 5.0,
        connect_timeout_seconds: float = 10.0,
        artifact_root: Path | None = None,
    ) -> None:
        self.location = location
        # The runs directory: a committed artifact row's bytes are copied from its run's directory
        # into `blobs`, so any server on this database can serve them once this one is gone.
        self._artifact_root = artifact_root
        lock_timeout_ms = max(1, round(lock_timeout_seconds * 1000))
        self._pool = ConnectionPool(
            location.url,
            # One thread uses the store, one statement at a time: one connection, replaced when it breaks.
            min_size=1,
            max_size=1,
            open=False,
            name="verity-store",
            # client_min_messages: no "already exists, skipping" notice for every batch (_EVENTS_STAGING).
            kwargs={"autocommit": True, "options": f"-c lock_timeout={lock_timeout_ms} -c client_min_messages=warning"},
            # How long a write waits for a connection (the database down or restarting) before it fails and is retried.
            timeout=connect_timeout_seconds,
        )
        try:
            # One direct connection first: an unreachable or refusing server fails here at once,
            # with its reason, instead of after the pool's retries.
            with psycopg.connect(location.url, connect_timeout=max(1, round(connect_timeout_seconds))) as conn:
                self._migrate(conn)
            self._pool.open(wait=True, timeout=connect_timeout_seconds)
        except (psycopg.Error, PoolTimeout) as error:
            self._pool.close()
            raise StoreError(f"{location.shown}: cannot open the PostgreSQL run store: {self._scrub(str(error).strip())}") from None
        except StoreError:
            self._pool.close()
            raise

    def _migrate(self, conn: psycopg.Connection[Any]) -> None:
        conn.autocommit = True
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
            conn.execute(_MIGRATIONS_TABLE)
            applied = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
        newer = sorted(version for version in applied if version > SCHEMA_VERSION)
        if newer:
            raise StoreError(
                f"{self.location.shown}: the database's schema is at version {newer[-1]}, newer than this "
                f"Verity knows (up to {SCHEMA_VERSION}): run a newer Verity, or give another --store"
            )
        for version, name, sql in MIGRATIONS:
            if version in applied:
                continue
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
                # Another server may have applied it while this one waited for the lock.
                if conn.execute("SELECT 1 FROM schema_migrations WHERE version = %s", (version,)).fetchone():
                    continue
                conn.execute(sql)
                conn.execute("INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", (version, name))

    def applied_migrations(self) -> list[int]:
        return [row[0] for row in self._read("SELECT version FROM schema_migrations ORDER BY version", ())]

    def write_batch(self, batch: WriteBatch) -> None:
        if not batch:
            return
        with self._pool.connection() as conn, conn.transaction(), conn.cursor() as cur:
            if batch.new_runs:
                cur.executemany(
                    f"INSERT INTO runs ({RUN_COLUMNS}) VALUES ({', '.join(['%s'] * 15)})",
                    [_without_nul(run_row(run)) for run in batch.new_runs],
                )
            if batch.events:
                # COPY into a session-local staging table, then one INSERT that skips a seq already
                # stored (a batch retried after a commit whose answer was lost): a group commit
                # carries thousands of events, and COPY moves them several times faster than
                # row-by-row INSERTs.
                cur.execute(_EVENTS_STAGING)
                with cur.copy(
                    "COPY events_staging (run_id, seq, timestamp_ns, trace_id, kind, payload_json) FROM STDIN"
                ) as copy:
                    for e in batch.events:
                        copy.write_row((e.run_id, e.seq, e.timestamp_ns, e.trace_id, e.kind, payload_json(e)))
                cur.execute("INSERT INTO events SELECT * FROM events_staging ON CONFLICT (run_id, seq) DO NOTHING")
            if batch.artifacts:
                # The newest row of an artifact wins, as SQLite's INSERT OR REPLACE; one statement
                # may not touch a row twice, so repeats within the batch are folded first.
                newest = {(a.run_id, a.artifact_id): a for a in batch.artifacts}
                cur.executemany(
                    "INSERT INTO artifacts (run_id, artifact_id, artifact_kind, path, media_type, size, sha256, seq) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (run_id, artifact_id) DO UPDATE SET "
                    "artifact_kind = EXCLUDED.artifact_kind, path = EXCLUDED.path, media_type = EXCLUDED.media_type, "
                    "size = EXCLUDED.size, sha256 = EXCLUDED.sha256, seq = EXCLUDED.seq",
                    [
                        _without_nul(artifact_row(a)) for a in newest.values()
                    ],
                )
                if self._artifact_root is not None:
                    self._store_blobs(cur, list(newest.values()))
            if batch.run_updates:
                cur.executemany(
                    "UPDATE runs SET status = %s, stop_reason = %s, verified = %s, summary = %s, updated_ns = %s, "
                    "ended_ns = %s, last_seq = GREATEST(last_seq, %s), trace_id = %s WHERE run_id = %s",
                    [_without_nul(run_update_row(u)) for u in batch.run_updates.values()],
                )
            if newest_events := newest_event_rows(batch.events):
                cur.executemany(
                    "UPDATE runs SET last_seq = GREATEST(last_seq, %s), updated_ns = GREATEST(updated_ns, %s), "
                    "trace_id = CASE WHEN %s = '' THEN trace_id ELSE %s END WHERE run_id = %s",
                    newest_events,
                )

    def create_keyed_run(self, run: RunRecord, key: RunKey) -> KeyHolder:
        with self._pool.connection() as conn, conn.transaction(), conn.cursor() as cur:
            holder = claim_run_key(cur, run.run_id, key)
            if holder is None:
                cur.execute(f"INSERT INTO runs ({RUN_COLUMNS}) VALUES ({', '.join(['%s'] * 15)})", _without_nul(run_row(run)))
                return KeyHolder(run.run_id, key.fingerprint)
            return holder

    def find_key(self, key: RunKey) -> KeyHolder | None:
        with self._pool.connection() as conn:
            return holder_from_row(conn.execute(FIND_KEY, key_params(key)).fetchone())

    def get_run(self, run_id: str) -> RunRecord | None:
        rows = self._read(f"SELECT {RUN_COLUMNS} FROM runs WHERE run_id = %s", (run_id,))
        return run_from_row(rows[0]) if rows else None

    def list_runs(self, run_filter: RunFilter, limit: int, after: RunCursor | None = None) -> list[RunRecord]:
        clauses: list[str] = []
        params: list[object] = []
        if run_filter.statuses:
            clauses.append("status = ANY(%s)")
            params.append([s.value for s in run_filter.statuses])
        if run_filter.recipe_name:
            clauses.append("recipe_name = %s")
            params.append(run_filter.recipe_name)
        if after is not None:
            clauses.append("(created_ns, run_id) < (%s, %s)")
            params.extend((after.created_ns, after.run_id))
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self._read(
            f"SELECT {RUN_COLUMNS} FROM runs {where} ORDER BY created_ns DESC, run_id DESC LIMIT %s", (*params, limit)
        )
        return [run_from_row(row) for row in rows]

    def read_events(self, run_id: str, after_seq: int = 0, limit: int | None = None) -> list[Event]:
        rows = self._read(
            "SELECT seq, timestamp_ns, trace_id, kind, payload_json FROM events "
            "WHERE run_id = %s AND seq > %s ORDER BY seq LIMIT %s",
            (run_id, after_seq, limit),
        )
        return [
            Event(
                seq=seq,
                run_id=run_id,
                timestamp_ns=timestamp_ns,
                trace_id=trace_id,
                payload=payload_from_dict(kind, json.loads(payload)),
            )
            for seq, timestamp_ns, trace_id, kind, payload in rows
        ]

    def list_artifacts(self, run_id: str) -> list[ArtifactRecord]:
        rows = self._read(
            "SELECT run_id, artifact_id, artifact_kind, path, media_type, size, sha256, seq "
            "FROM artifacts WHERE run_id = %s ORDER BY seq, artifact_id",
            (run_id,),
        )
        return [ArtifactRecord(*row) for row in rows]

    def trim_events(self, run_id: str, keep_from_seq: int) -> int:
        with self._pool.connection() as conn, conn.transaction():
            deleted = conn.execute("DELETE FROM events WHERE run_id = %s AND seq < %s", (run_id, keep_from_seq)).rowcount
            conn.execute(
                "UPDATE runs SET earliest_seq = GREATEST(earliest_seq, %s) WHERE run_id = %s", (keep_from_seq, run_id)
            )
        return deleted

    def read_blob(self, sha256: str) -> bytes | None:
        rows = self._read("SELECT data FROM blobs WHERE sha256 = %s", (sha256,))
        return bytes(rows[0][0]) if rows else None

    def _store_blobs(self, cur: psycopg.Cursor[Any], artifacts: list[ArtifactRecord]) -> None:
        """Copy the bytes of these artifacts into `blobs`, once per content: a file already stored
        (the same screenshot twice, the same report in another run) is not even read again."""
        wanted = {a.sha256: a for a in artifacts}
        cur.execute("SELECT sha256 FROM blobs WHERE sha256 = ANY(%s)", (list(wanted),))
        for (stored,) in cur.fetchall():
            wanted.pop(stored, None)
        for sha256, artifact in wanted.items():
            data = self._artifact_bytes(artifact)
            if data is not None:
                cur.execute(
                    "INSERT INTO blobs (sha256, size, data) VALUES (%s, %s, %s) ON CONFLICT (sha256) DO NOTHING",
                    (sha256, len(data), data),
                )

    def _artifact_bytes(self, artifact: ArtifactRecord) -> bytes | None:
        """The artifact's file when it lies inside its run's directory and still holds the recorded
        bytes; otherwise None (it is then served from the run directory or not at all, as on SQLite)."""
        assert self._artifact_root is not None
        run_dir = (self._artifact_root / artifact.run_id).resolve()
        path = (run_dir / artifact.path).resolve()
        if not path.is_relative_to(run_dir):
            return None
        try:
            data = path.read_bytes()
        except OSError as error:
            _log.warning("run store: artifact %s of run %s not copied to the database: %s", artifact.artifact_id, artifact.run_id, error)
            return None
        if len(data) != artifact.size or hashlib.sha256(data).hexdigest() != artifact.sha256:
            _log.warning(
                "run store: artifact %s of run %s not copied to the database: its file no longer holds the recorded bytes",
                artifact.artifact_id, artifact.run_id,
            )
            return None
        return data

    def close(self) -> None:
        self._pool.close()

    def _read(self, sql: str, params: tuple[object, ...]) -> list[tuple[Any, ...]]:
        with self._pool.connection() as conn:
            return conn.execute(sql, params).fetchall()

    def _scrub(self, message: str) -> str:
        """`message` without the URL's password, should a driver ever quote it."""
        return _scrubbed(message, self.location.url)


def claim_run_key(cur: psycopg.Cursor[Any], run_id: str, key: RunKey) -> KeyHolder | None:
    """Within the caller's transaction: claim `key` for `run_id`, or return the run that holds it
    (the caller then records nothing). A concurrent claim of the same key waits for this one."""
    params = key_params(key, run_id)
    cur.execute(PRUNE_KEYS, params)
    if cur.execute(CLAIM_KEY, params).fetchone() is not None:
        return None
    holder = holder_from_row(cur.execute(FIND_KEY, params).fetchone())
    assert holder is not None, "a key that could not be claimed has a live holder"
    return holder


def _without_nul(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """`row` with NUL characters in its text replaced by U+FFFD. PostgreSQL text cannot hold NUL
    (SQLite's can); a run summary quoting a page could carry one, and a batch the database refuses
    would be retried forever, holding every later event. Event payloads need nothing: their JSON
    writes NUL as \\u0000."""
    return tuple(value.replace("\x00", "\ufffd") if isinstance(value, str) and "\x00" in value else value for value in row)


def _scrubbed(message: str, url: str) -> str:
    message = message.replace(url, redact_url(url))
    for password in url_passwords(url):
        message = message.replace(password, "***")
    return message
