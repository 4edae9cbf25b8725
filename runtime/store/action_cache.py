"""The verified action cache (issue 34): the steps a verified agent step took, kept in the run
store so every process on it (a CLI run, the replicas of a server) replays them.

An entry is stored only after an agent step's `done_when` held; it is replaced only after another
verified execution of the same step. Its key is a digest of the step's identity (recipe and step
id), the normalised URL the step started on, the names of the inputs the step reads (never their
values) and the model/prompt/tool signature: a changed prompt, tool list or model is a new key.
Entries hold recipe steps (runtime/plan/learned_steps.py), in which a secret is only ever its
`{input}` placeholder.

SQLite keeps the table in the run store's file (created on first use); PostgreSQL gets it from
the store's migration 4 (runtime/store/postgres.py), applied when a server opens the store.
`open_action_cache` (runtime/store/opening.py) opens either.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from runtime.store.side_tables import PostgresSideTable, SideTable, SqliteSideTable
from runtime.store.location import PostgresUrl

# The table, in SQL both engines read (PostgreSQL gets it by migration, SQLite on first use).
ACTION_CACHE_TABLE = """
CREATE TABLE IF NOT EXISTS action_cache (
    key_digest  TEXT PRIMARY KEY,
    recipe_name TEXT NOT NULL,
    step_id     TEXT NOT NULL,
    start_url   TEXT NOT NULL,
    input_names TEXT NOT NULL,
    signature   TEXT NOT NULL,
    steps_json  TEXT NOT NULL,
    run_id      TEXT NOT NULL,
    stored_ns   BIGINT NOT NULL,
    replays     BIGINT NOT NULL DEFAULT 0
)
"""
_COLUMNS = "key_digest, recipe_name, step_id, start_url, input_names, signature, steps_json, run_id, stored_ns, replays"


@dataclass(frozen=True)
class CacheKey:
    """What a cached path is for; `digest` is the entry's id."""

    recipe: str
    step: str
    start_url: str
    input_names: tuple[str, ...]
    signature: str

    @property
    def digest(self) -> str:
        identity = [self.recipe, self.step, self.start_url, sorted(self.input_names), self.signature]
        return hashlib.sha256(json.dumps(identity, separators=(",", ":")).encode()).hexdigest()[:24]


@dataclass(frozen=True)
class CacheEntry:
    key: CacheKey
    steps: list[dict[str, Any]]
    run_id: str
    stored_ns: int = field(default_factory=time.time_ns)
    replays: int = 0

    def to_data(self) -> dict[str, Any]:
        """The entry as `verity cache show` prints it."""
        key = self.key
        return {
            "key": key.digest, "recipe": key.recipe, "step": key.step, "start_url": key.start_url, "inputs": list(key.input_names),
            "signature": key.signature, "learned_in_run": self.run_id, "stored_ns": self.stored_ns, "replays": self.replays, "steps": self.steps,
        }  # fmt: skip


class ActionCache(Protocol):
    def find(self, key: CacheKey) -> CacheEntry | None: ...

    def put(self, entry: CacheEntry) -> None:
        """Store `entry`, replacing the one under its key."""

    def note_replay(self, key: CacheKey) -> None:
        """Count one verified replay of the entry under `key`."""

    def entries(self, recipe: str | None = None) -> list[CacheEntry]:
        """Entries newest first, of one recipe or all."""

    def entry(self, digest_prefix: str) -> list[CacheEntry]:
        """The entries whose key starts with `digest_prefix`."""

    def clear(self, recipe: str | None = None, digest_prefix: str | None = None) -> int:
        """Delete entries (all, one recipe's, or those a key prefix names); how many went."""

    def close(self) -> None: ...


class _SqlActionCache(SideTable):
    """The queries, written once (runtime/store/side_tables.py executes them on each engine)."""

    def find(self, key: CacheKey) -> CacheEntry | None:
        rows = self._run(self._sql(f"SELECT {_COLUMNS} FROM action_cache WHERE key_digest = ?"), (key.digest,))
        return _entry(rows[0]) if rows else None

    def put(self, entry: CacheEntry) -> None:
        key = entry.key
        self._run(
            self._sql(
                f"INSERT INTO action_cache ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0) ON CONFLICT (key_digest) DO UPDATE SET "
                "steps_json = excluded.steps_json, run_id = excluded.run_id, stored_ns = excluded.stored_ns, replays = 0"
            ),
            (key.digest, key.recipe, key.step, key.start_url, json.dumps(list(key.input_names)), key.signature, json.dumps(entry.steps, ensure_ascii=False), entry.run_id, entry.stored_ns),
        )  # fmt: skip

    def note_replay(self, key: CacheKey) -> None:
        self._run(self._sql("UPDATE action_cache SET replays = replays + 1 WHERE key_digest = ?"), (key.digest,))

    def entries(self, recipe: str | None = None) -> list[CacheEntry]:
        where, params = ("WHERE recipe_name = ?", (recipe,)) if recipe else ("", ())
        return [_entry(row) for row in self._run(self._sql(f"SELECT {_COLUMNS} FROM action_cache {where} ORDER BY stored_ns DESC, key_digest"), params)]

    def entry(self, digest_prefix: str) -> list[CacheEntry]:
        rows = self._run(self._sql(f"SELECT {_COLUMNS} FROM action_cache WHERE key_digest LIKE ? ORDER BY key_digest"), (_prefix(digest_prefix),))
        return [_entry(row) for row in rows]

    def clear(self, recipe: str | None = None, digest_prefix: str | None = None) -> int:
        clauses, params = [], []
        if recipe:
            clauses.append("recipe_name = ?")
            params.append(recipe)
        if digest_prefix:
            clauses.append("key_digest LIKE ?")
            params.append(_prefix(digest_prefix))
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        return self._changed(self._sql(f"DELETE FROM action_cache {where}"), tuple(params))


class SqliteActionCache(_SqlActionCache, SqliteSideTable):
    """The cache in a SQLite run store's file (its own table; the runs' tables are left alone)."""

    def __init__(self, path: Path, busy_timeout_seconds: float = 5.0) -> None:
        SqliteSideTable.__init__(self, path, ACTION_CACHE_TABLE, "action cache", busy_timeout_seconds)


class PostgresActionCache(_SqlActionCache, PostgresSideTable):
    """The cache in a PostgreSQL run store, shared by every server on the database. The table
    comes from the store's migrations: open the run store (PostgresRunStore) first."""

    def __init__(self, location: PostgresUrl) -> None:
        PostgresSideTable.__init__(self, location, "action cache")



def _prefix(digest_prefix: str) -> str:
    return "".join(c for c in digest_prefix.lower() if c in "0123456789abcdef") + "%"


def _entry(row: tuple[Any, ...]) -> CacheEntry:
    digest, recipe, step, start_url, input_names, signature, steps_json, run_id, stored_ns, replays = row
    key = CacheKey(recipe, step, start_url, tuple(json.loads(input_names)), signature)
    assert key.digest == digest, "an entry's key digest is computed from its columns"
    return CacheEntry(key, json.loads(steps_json), run_id, int(stored_ns), int(replays))
