"""Idempotency keys of started runs: the same table and statements on every store.

A client that lost the reply to a start may send it again with the same key: the key's row says
which run it started, and the request's fingerprint whether the retry is the same request. The
row is written in the transaction that records the run, so a key never names a run that was not
recorded, and two starts racing with one key (on one server or on two replicas) record one run.
A key older than the retention counts as unused: a new start replaces it, and old rows are pruned
as new keys are claimed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class RunKey:
    """A key a start claims: `fingerprint` identifies the request (never its values), and a row
    created before `kept_since_ns` has expired."""

    key: str
    fingerprint: str
    created_ns: int
    kept_since_ns: int


@dataclass(frozen=True)
class KeyHolder:
    """The run a key started, and the fingerprint of the request that started it."""

    run_id: str
    fingerprint: str


# The SQL below is written with psycopg's named placeholders; `for_sqlite` rewrites them.
RUN_KEYS_TABLE = """
CREATE TABLE IF NOT EXISTS run_keys (
    idempotency_key TEXT COLLATE "C" PRIMARY KEY,
    fingerprint     TEXT NOT NULL,
    run_id          TEXT NOT NULL,
    created_ns      BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS run_keys_by_age ON run_keys (created_ns);
"""
SQLITE_RUN_KEYS_TABLE = RUN_KEYS_TABLE.replace(' COLLATE "C"', "").replace("BIGINT", "INTEGER")

# A row is taken over only when it has expired; no row back means another run holds the key.
CLAIM_KEY = """
INSERT INTO run_keys (idempotency_key, fingerprint, run_id, created_ns)
VALUES (%(key)s, %(fingerprint)s, %(run_id)s, %(created_ns)s)
ON CONFLICT (idempotency_key) DO UPDATE SET
    fingerprint = excluded.fingerprint, run_id = excluded.run_id, created_ns = excluded.created_ns
WHERE run_keys.created_ns < %(kept_since_ns)s
RETURNING run_id
"""
FIND_KEY = "SELECT run_id, fingerprint FROM run_keys WHERE idempotency_key = %(key)s AND created_ns >= %(kept_since_ns)s"
# Expired rows go a few at a time as keys are claimed; on PostgreSQL rows another start holds are
# skipped, so two starts pruning at once never wait on (or deadlock with) each other.
PRUNE_KEYS = (
    "DELETE FROM run_keys WHERE idempotency_key IN (SELECT idempotency_key FROM run_keys "
    "WHERE created_ns < %(kept_since_ns)s LIMIT 500 FOR UPDATE SKIP LOCKED)"
)
SQLITE_PRUNE_KEYS = (
    "DELETE FROM run_keys WHERE idempotency_key IN (SELECT idempotency_key FROM run_keys "
    "WHERE created_ns < :kept_since_ns LIMIT 500)"
)


def key_params(key: RunKey, run_id: str = "") -> dict[str, object]:
    return {
        "key": key.key,
        "fingerprint": key.fingerprint,
        "run_id": run_id,
        "created_ns": key.created_ns,
        "kept_since_ns": key.kept_since_ns,
    }


def for_sqlite(sql: str) -> str:
    """`sql` with sqlite3's named placeholders (`:name`) in place of psycopg's (`%(name)s`)."""
    return re.sub(r"%\((\w+)\)s", r":\1", sql)


def holder_from_row(row: tuple[object, ...] | None) -> KeyHolder | None:
    return KeyHolder(str(row[0]), str(row[1])) if row else None
