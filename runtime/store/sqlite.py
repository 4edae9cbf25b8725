"""The default run store: one SQLite file holding runs, events and the artifact index."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from runtime.events import Event
from runtime.events.model import payload_from_dict
from runtime.store.interface import StoreError
from runtime.store.payload_json import payload_json
from runtime.store.records import ArtifactRecord, RunCursor, RunFilter, RunRecord, WriteBatch
from runtime.store.run_keys import (
    CLAIM_KEY,
    FIND_KEY,
    SQLITE_PRUNE_KEYS,
    SQLITE_RUN_KEYS_TABLE,
    KeyHolder,
    RunKey,
    for_sqlite,
    holder_from_row,
    key_params,
)
from runtime.store.run_rows import RUN_COLUMNS, artifact_row, newest_event_rows, run_from_row, run_row, run_update_row

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id         TEXT PRIMARY KEY,
    recipe_name    TEXT NOT NULL,
    recipe_version TEXT NOT NULL,
    status         TEXT NOT NULL,
    stop_reason    TEXT,
    verified       INTEGER NOT NULL DEFAULT 0,
    summary        TEXT NOT NULL DEFAULT '',
    trace_id       TEXT NOT NULL,
    inputs_json    TEXT NOT NULL DEFAULT '{}',
    labels_json    TEXT NOT NULL DEFAULT '{}',
    created_ns     INTEGER NOT NULL,
    updated_ns     INTEGER NOT NULL,
    ended_ns       INTEGER,
    last_seq       INTEGER NOT NULL DEFAULT 0,
    earliest_seq   INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX IF NOT EXISTS runs_by_created ON runs (created_ns DESC, run_id DESC);
CREATE INDEX IF NOT EXISTS runs_by_status ON runs (status);
CREATE TABLE IF NOT EXISTS events (
    run_id       TEXT NOT NULL,
    seq          INTEGER NOT NULL,
    timestamp_ns INTEGER NOT NULL,
    trace_id     TEXT NOT NULL,
    kind         TEXT NOT NULL,
    payload_json TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS artifacts (
    run_id        TEXT NOT NULL,
    artifact_id   TEXT NOT NULL,
    artifact_kind TEXT NOT NULL,
    path          TEXT NOT NULL,
    media_type    TEXT NOT NULL,
    size          INTEGER NOT NULL,
    sha256        TEXT NOT NULL,
    seq           INTEGER NOT NULL,
    PRIMARY KEY (run_id, artifact_id)
) WITHOUT ROWID;
"""

class SqliteRunStore:
    """`RunStore` on SQLite in WAL mode. Use it from one thread at a time."""

    def __init__(self, path: Path | str, *, busy_timeout_seconds: float = 5.0, synchronous: str = "normal") -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # check_same_thread=False: the connection is opened on the caller's thread and then used
        # only from BufferedRunStore's single writer thread. The busy timeout is how long a write
        # waits for another process's lock before it fails (and is retried later).
        self._db = sqlite3.connect(
            self.path, check_same_thread=False, isolation_level=None, timeout=busy_timeout_seconds
        )
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            # In WAL mode a commit appends to the WAL file with write(): once COMMIT returns, the
            # kernel holds the pages, so a killed process (kill -9, OOM) loses nothing committed.
            # NORMAL skips the fsync per commit; only a power loss or OS crash may then lose the
            # last commits. FULL fsyncs the WAL on every commit and survives those too.
            if synchronous not in ("normal", "full"):
                raise StoreError(f"synchronous must be 'normal' or 'full', got {synchronous!r}")
            self._db.execute(f"PRAGMA synchronous={synchronous.upper()}")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version not in (0, SCHEMA_VERSION):
                raise StoreError(
                    f"{self.path}: store schema version {version} is not supported "
                    f"(this Verity reads version {SCHEMA_VERSION}); use a new --store path"
                )
            # The keys table came later; IF NOT EXISTS adds it to a store of the same version.
            self._db.executescript(_SCHEMA + SQLITE_RUN_KEYS_TABLE)
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as error:
            self._db.close()
            raise StoreError(f"{self.path}: cannot open the run store: {error}") from error

    def write_batch(self, batch: WriteBatch) -> None:
        if not batch:
            return
        db = self._db
        db.execute("BEGIN")
        try:
            db.executemany(
                f"INSERT INTO runs ({RUN_COLUMNS}) VALUES ({', '.join('?' * 15)})",
                [run_row(run) for run in batch.new_runs],
            )
            db.executemany(
                "INSERT OR IGNORE INTO events (run_id, seq, timestamp_ns, trace_id, kind, payload_json) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (
                        e.run_id,
                        e.seq,
                        e.timestamp_ns,
                        e.trace_id,
                        e.kind,
                        payload_json(e),
                    )
                    for e in batch.events
                ],
            )
            db.executemany(
                "INSERT OR REPLACE INTO artifacts "
                "(run_id, artifact_id, artifact_kind, path, media_type, size, sha256, seq) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [artifact_row(a) for a in batch.artifacts],
            )
            db.executemany(
                "UPDATE runs SET status = ?, stop_reason = ?, verified = ?, summary = ?, updated_ns = ?, "
                "ended_ns = ?, last_seq = MAX(last_seq, ?), trace_id = ? WHERE run_id = ?",
                [run_update_row(u) for u in batch.run_updates.values()],
            )
            db.executemany(
                "UPDATE runs SET last_seq = MAX(last_seq, ?), updated_ns = MAX(updated_ns, ?), "
                "trace_id = CASE WHEN ? = '' THEN trace_id ELSE ? END WHERE run_id = ?",
                newest_event_rows(batch.events),
            )
            db.execute("COMMIT")
        except BaseException:
            self._roll_back()
            raise

    def create_keyed_run(self, run: RunRecord, key: RunKey) -> KeyHolder:
        db = self._db
        params = key_params(key, run.run_id)
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute(SQLITE_PRUNE_KEYS, params)
            if db.execute(for_sqlite(CLAIM_KEY), params).fetchone() is None:
                holder = holder_from_row(db.execute(for_sqlite(FIND_KEY), params).fetchone())
                db.execute("ROLLBACK")
                assert holder is not None, "a key that could not be claimed has a live holder"
                return holder
            db.execute(f"INSERT INTO runs ({RUN_COLUMNS}) VALUES ({', '.join('?' * 15)})", run_row(run))
            db.execute("COMMIT")
        except BaseException:
            self._roll_back()
            raise
        return KeyHolder(run.run_id, key.fingerprint)

    def find_key(self, key: RunKey) -> KeyHolder | None:
        return holder_from_row(self._db.execute(for_sqlite(FIND_KEY), key_params(key)).fetchone())

    def get_run(self, run_id: str) -> RunRecord | None:
        row = self._db.execute(f"SELECT {RUN_COLUMNS} FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        return run_from_row(row) if row else None

    def list_runs(self, run_filter: RunFilter, limit: int, after: RunCursor | None = None) -> list[RunRecord]:
        clauses: list[str] = []
        params: list[object] = []
        if run_filter.statuses:
            clauses.append(f"status IN ({', '.join('?' * len(run_filter.statuses))})")
            params.extend(s.value for s in run_filter.statuses)
        if run_filter.recipe_name:
            clauses.append("recipe_name = ?")
            params.append(run_filter.recipe_name)
        if after is not None:
            clauses.append("(created_ns < ? OR (created_ns = ? AND run_id < ?))")
            params.extend((after.created_ns, after.created_ns, after.run_id))
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self._db.execute(
            f"SELECT {RUN_COLUMNS} FROM runs {where} ORDER BY created_ns DESC, run_id DESC LIMIT ?",
            (*params, limit),
        ).fetchall()
        return [run_from_row(row) for row in rows]

    def read_events(self, run_id: str, after_seq: int = 0, limit: int | None = None) -> list[Event]:
        rows = self._db.execute(
            "SELECT seq, timestamp_ns, trace_id, kind, payload_json FROM events "
            "WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?",
            (run_id, after_seq, -1 if limit is None else limit),
        ).fetchall()
        return [
            Event(
                seq=seq,
                run_id=run_id,
                timestamp_ns=timestamp_ns,
                trace_id=trace_id,
                payload=payload_from_dict(kind, json.loads(payload_json)),
            )
            for seq, timestamp_ns, trace_id, kind, payload_json in rows
        ]

    def list_artifacts(self, run_id: str) -> list[ArtifactRecord]:
        rows = self._db.execute(
            "SELECT run_id, artifact_id, artifact_kind, path, media_type, size, sha256, seq "
            "FROM artifacts WHERE run_id = ? ORDER BY seq, artifact_id",
            (run_id,),
        ).fetchall()
        return [ArtifactRecord(*row) for row in rows]

    def trim_events(self, run_id: str, keep_from_seq: int) -> int:
        db = self._db
        db.execute("BEGIN")
        try:
            deleted = db.execute("DELETE FROM events WHERE run_id = ? AND seq < ?", (run_id, keep_from_seq)).rowcount
            db.execute(
                "UPDATE runs SET earliest_seq = MAX(earliest_seq, ?) WHERE run_id = ?", (keep_from_seq, run_id)
            )
            db.execute("COMMIT")
        except BaseException:
            self._roll_back()
            raise
        return deleted

    def read_blob(self, sha256: str) -> bytes | None:
        return None  # artifact bytes stay in the run directories; this store keeps no copy

    def close(self) -> None:
        self._db.close()

    def _roll_back(self) -> None:
        # A failed COMMIT (the file locked, the disk full) leaves the transaction open; close it so
        # the next write can begin one.
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")
