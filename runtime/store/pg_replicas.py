"""What replicas of `verity serve` sharing one PostgreSQL run store tell each other, through it.

Tables (beside the store's runs, events and artifacts; migrated by this module, recorded in
`replica_schema_migrations`, so the run store's own versions stay its own):
- `replicas`: one row per live server, with a lease it renews. Expiry is judged by the database's
  clock, so the replicas' clocks never have to agree.
- `run_placements`: where each run is. A queued run has no replica yet and carries the request it
  is started from (dropped when a replica claims it: it may hold secret inputs). A replica claims
  the oldest queued run with `FOR UPDATE SKIP LOCKED`, so two replicas never claim one run and
  neither waits for the other.
- `run_commands`: StopRun / ConfirmAction for a run another replica runs. The owner handles each
  and writes its outcome; the asking replica waits for that outcome.

A run's verdict, once stored, is final (a trigger keeps its row as it ended): a replica that was
taken for dead while it was only paused cannot reopen a run another replica has closed.

Wake-ups travel as NOTIFY, sent when their transaction commits: a run's progress ("run_id seq",
from a trigger on the run row's last_seq, whoever writes it), a queued run, a command for a
replica, a command answered. A notification only says "look": the rows are the truth, so a missed
one costs a poll interval, never an event.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

from runtime.events import Event
from runtime.events.model import payload_from_dict
from runtime.outcomes import TaskState
from runtime.store.records import RunRecord
from runtime.store.run_keys import CLAIM_KEY, FIND_KEY, PRUNE_KEYS, KeyHolder, RunKey, holder_from_row, key_params
from runtime.store.run_rows import RUN_COLUMNS, run_row

CHANNEL_RUN_PROGRESS = "verity_run_progress"
CHANNEL_RUN_QUEUED = "verity_run_queued"
CHANNEL_COMMAND = "verity_run_command"
CHANNEL_COMMAND_ANSWERED = "verity_run_command_answered"
CHANNELS = (CHANNEL_RUN_PROGRESS, CHANNEL_RUN_QUEUED, CHANNEL_COMMAND, CHANNEL_COMMAND_ANSWERED)

IN_FLIGHT = [state.value for state in TaskState if not state.is_final]

# Append only, as the run store's migrations. Needs the run store's `runs` table (its version 1).
REPLICA_MIGRATIONS: tuple[tuple[int, str, str], ...] = (
    (
        1,
        "replicas with leases, run placements and the run queue, commands to a run's replica",
        f"""
        CREATE TABLE replicas (
            replica_id       TEXT COLLATE "C" PRIMARY KEY,
            target           TEXT NOT NULL DEFAULT '',
            started_at       TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
            lease_expires_at TIMESTAMPTZ NOT NULL
        );
        CREATE TABLE run_placements (
            run_id       TEXT COLLATE "C" PRIMARY KEY,
            queued_ns    BIGINT NOT NULL,
            request_json TEXT,
            replica_id   TEXT COLLATE "C",
            claimed_at   TIMESTAMPTZ
        );
        CREATE INDEX run_placements_queue ON run_placements (queued_ns, run_id) WHERE replica_id IS NULL;
        CREATE INDEX run_placements_by_replica ON run_placements (replica_id);
        CREATE TABLE run_commands (
            command_id   BIGSERIAL PRIMARY KEY,
            run_id       TEXT COLLATE "C" NOT NULL,
            replica_id   TEXT COLLATE "C" NOT NULL,
            kind         TEXT NOT NULL,
            request_json TEXT NOT NULL,
            outcome_json TEXT,
            created_at   TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
        );
        CREATE INDEX run_commands_open ON run_commands (replica_id) WHERE outcome_json IS NULL;
        CREATE FUNCTION verity_notify_run_progress() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('{CHANNEL_RUN_PROGRESS}', NEW.run_id || ' ' || NEW.last_seq);
            RETURN NULL;
        END $$;
        CREATE TRIGGER runs_notify_progress AFTER UPDATE OF last_seq ON runs FOR EACH ROW
            WHEN (NEW.last_seq > OLD.last_seq) EXECUTE FUNCTION verity_notify_run_progress();
        CREATE FUNCTION verity_keep_run_verdict() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            NEW.status := OLD.status;
            NEW.stop_reason := OLD.stop_reason;
            NEW.verified := OLD.verified;
            NEW.summary := OLD.summary;
            NEW.ended_ns := OLD.ended_ns;
            NEW.last_seq := OLD.last_seq;
            NEW.updated_ns := OLD.updated_ns;
            RETURN NEW;
        END $$;
        CREATE TRIGGER runs_keep_verdict BEFORE UPDATE ON runs FOR EACH ROW
            WHEN (OLD.ended_ns IS NOT NULL) EXECUTE FUNCTION verity_keep_run_verdict();
        """,
    ),
)
_MIGRATION_LOCK = 0x7265706C  # "repl": replicas starting together migrate one at a time

_MIGRATIONS_TABLE = """
CREATE TABLE IF NOT EXISTS replica_schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
)
"""


@dataclass(frozen=True)
class ClaimedRun:
    run_id: str
    request: dict[str, Any]


@dataclass(frozen=True)
class Placement:
    """Where a run is: `replica_id` None while queued; `replica_alive` whether its lease holds."""

    replica_id: str | None
    replica_alive: bool


@dataclass(frozen=True)
class RunCommand:
    command_id: int
    run_id: str
    kind: str
    request: dict[str, Any]


class ReplicaDatabase:
    """One replica's side of the coordination tables, on an asyncio connection pool."""

    def __init__(self, url: str, replica_id: str, *, lease_seconds: float, pool_size: int = 8) -> None:
        self.url = url
        self.replica_id = replica_id
        self.lease_seconds = lease_seconds
        self._pool = AsyncConnectionPool(
            url, min_size=1, max_size=pool_size, open=False, name="verity-replica", kwargs={"autocommit": True}
        )

    async def open(self) -> None:
        await self._pool.open(wait=True, timeout=10.0)
        await self._migrate()

    async def close(self) -> None:
        await self._pool.close()

    async def _migrate(self) -> None:
        async with self._pool.connection() as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
            await conn.execute(_MIGRATIONS_TABLE)
            applied = {row[0] for row in await (await conn.execute("SELECT version FROM replica_schema_migrations")).fetchall()}
            for version, name, sql in REPLICA_MIGRATIONS:
                if version not in applied:
                    await conn.execute(sql)
                    await conn.execute(
                        "INSERT INTO replica_schema_migrations (version, name) VALUES (%s, %s)", (version, name)
                    )

    async def listen(self) -> psycopg.AsyncConnection[Any]:
        """A connection listening on every channel; read it with `notifies()`."""
        conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
        for channel in CHANNELS:
            await conn.execute(f"LISTEN {channel}")
        return conn

    # --- leases ---------------------------------------------------------------------------------

    async def register(self, target: str = "") -> None:
        async with self._pool.connection() as conn:
            await conn.execute(
                "INSERT INTO replicas (replica_id, target, lease_expires_at) "
                "VALUES (%s, %s, clock_timestamp() + make_interval(secs => %s)) "
                "ON CONFLICT (replica_id) DO UPDATE SET target = EXCLUDED.target, lease_expires_at = EXCLUDED.lease_expires_at",
                (self.replica_id, target, self.lease_seconds),
            )

    async def renew(self) -> bool:
        """Extend this replica's lease; False when its row is gone (others took its runs for dead)."""
        async with self._pool.connection() as conn:
            cursor = await conn.execute(
                "UPDATE replicas SET lease_expires_at = clock_timestamp() + make_interval(secs => %s) WHERE replica_id = %s",
                (self.lease_seconds, self.replica_id),
            )
            return cursor.rowcount == 1

    async def leave(self) -> bool:
        """Remove this replica's row unless runs placed here are still in flight (they are then
        closed by another replica once the lease expires). True when it left."""
        async with self._pool.connection() as conn:
            cursor = await conn.execute(
                "DELETE FROM replicas WHERE replica_id = %s AND NOT EXISTS ("
                " SELECT 1 FROM run_placements p JOIN runs r USING (run_id)"
                " WHERE p.replica_id = %s AND r.status = ANY(%s))",
                (self.replica_id, self.replica_id, IN_FLIGHT),
            )
            return cursor.rowcount == 1

    @asynccontextmanager
    async def orphaned_runs(self, limit: int = 50) -> AsyncIterator[list[str]]:
        """In-flight runs placed on a replica whose lease expired (or that is gone), locked for
        the caller until the block ends, so two replicas never close one run. Dead replicas left
        with nothing in flight are forgotten when the block ends."""
        async with self._pool.connection() as conn, conn.transaction():
            rows = await (
                await conn.execute(
                    "SELECT p.run_id FROM run_placements p JOIN runs r USING (run_id) "
                    "LEFT JOIN replicas x ON x.replica_id = p.replica_id "
                    "WHERE p.replica_id IS NOT NULL AND r.status = ANY(%s) "
                    "AND (x.replica_id IS NULL OR x.lease_expires_at < clock_timestamp()) "
                    "ORDER BY p.run_id LIMIT %s FOR UPDATE OF p SKIP LOCKED",
                    (IN_FLIGHT, limit),
                )
            ).fetchall()
            yield [row[0] for row in rows]
            await conn.execute(
                "DELETE FROM replicas x WHERE x.lease_expires_at < clock_timestamp() AND NOT EXISTS ("
                " SELECT 1 FROM run_placements p JOIN runs r USING (run_id)"
                " WHERE p.replica_id = x.replica_id AND r.status = ANY(%s))",
                (IN_FLIGHT,),
            )

    # --- placing and claiming runs ---------------------------------------------------------------

    async def queue_run(self, record: RunRecord, request: dict[str, Any], key: RunKey | None = None) -> KeyHolder | None:
        """Record a run no replica runs yet, with the request a replica starts it from. With `key`:
        unless another run holds it (returned; nothing is recorded then)."""
        return await self._insert_run(record, request_json=json.dumps(request), replica_id=None, key=key)

    async def place_run(self, record: RunRecord, key: RunKey | None = None) -> KeyHolder | None:
        """Record a run this replica runs from the start (with `key`, as `queue_run`)."""
        return await self._insert_run(record, request_json=None, replica_id=self.replica_id, key=key)

    async def _insert_run(self, record: RunRecord, *, request_json: str | None, replica_id: str | None, key: RunKey | None) -> KeyHolder | None:
        async with self._pool.connection() as conn, conn.transaction():
            if key is not None:
                # The run store's claim (postgres.claim_run_key), on this replica's async connection.
                params = key_params(key, record.run_id)
                await conn.execute(PRUNE_KEYS, params)
                if await (await conn.execute(CLAIM_KEY, params)).fetchone() is None:
                    return holder_from_row(await (await conn.execute(FIND_KEY, params)).fetchone())
            await conn.execute(f"INSERT INTO runs ({RUN_COLUMNS}) VALUES ({', '.join(['%s'] * 15)})", run_row(record))
            await conn.execute(
                "INSERT INTO run_placements (run_id, queued_ns, request_json, replica_id, claimed_at) "
                "VALUES (%s, %s, %s, %s, CASE WHEN %s::text IS NULL THEN NULL ELSE clock_timestamp() END)",
                (record.run_id, record.created_ns, request_json, replica_id, replica_id),
            )
            if replica_id is None:
                await conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL_RUN_QUEUED, record.run_id))
        return None

    async def claim_next(self) -> ClaimedRun | None:
        """Take the oldest queued run for this replica, or None when none is queued."""
        async with self._pool.connection() as conn:
            row = await (
                await conn.execute(
                    "WITH next AS (SELECT run_id, request_json FROM run_placements WHERE replica_id IS NULL "
                    " ORDER BY queued_ns, run_id LIMIT 1 FOR UPDATE SKIP LOCKED) "
                    "UPDATE run_placements p SET replica_id = %s, claimed_at = clock_timestamp(), request_json = NULL "
                    "FROM next WHERE p.run_id = next.run_id RETURNING p.run_id, next.request_json",
                    (self.replica_id,),
                )
            ).fetchone()
        return ClaimedRun(row[0], json.loads(row[1] or "{}")) if row else None

    async def claim_queued(self, run_id: str) -> bool:
        """Take this one queued run for this replica (to end it unstarted); False when it is not queued."""
        async with self._pool.connection() as conn:
            cursor = await conn.execute(
                "UPDATE run_placements SET replica_id = %s, claimed_at = clock_timestamp(), request_json = NULL "
                "WHERE run_id = %s AND replica_id IS NULL",
                (self.replica_id, run_id),
            )
            return cursor.rowcount == 1

    async def placement(self, run_id: str) -> Placement | None:
        async with self._pool.connection() as conn:
            row = await (
                await conn.execute(
                    "SELECT p.replica_id, x.lease_expires_at >= clock_timestamp() FROM run_placements p "
                    "LEFT JOIN replicas x ON x.replica_id = p.replica_id WHERE p.run_id = %s",
                    (run_id,),
                )
            ).fetchone()
        return Placement(row[0], bool(row[1])) if row else None

    async def placed_runs(self) -> dict[str, str | None]:
        """Every placed run and its replica (None: queued). For tests and the benchmark."""
        async with self._pool.connection() as conn:
            rows = await (await conn.execute("SELECT run_id, replica_id FROM run_placements")).fetchall()
        return {run_id: replica_id for run_id, replica_id in rows}

    # --- commands to a run's replica ---------------------------------------------------------------

    async def send_command(self, run_id: str, replica_id: str, kind: str, request: dict[str, Any]) -> int:
        async with self._pool.connection() as conn, conn.transaction():
            row = await (
                await conn.execute(
                    "INSERT INTO run_commands (run_id, replica_id, kind, request_json) VALUES (%s, %s, %s, %s) "
                    "RETURNING command_id",
                    (run_id, replica_id, kind, json.dumps(request)),
                )
            ).fetchone()
            await conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL_COMMAND, replica_id))
        assert row is not None
        return int(row[0])

    async def open_commands(self) -> list[RunCommand]:
        """Commands sent to this replica that it has not answered, oldest first."""
        async with self._pool.connection() as conn:
            rows = await (
                await conn.execute(
                    "SELECT command_id, run_id, kind, request_json FROM run_commands "
                    "WHERE replica_id = %s AND outcome_json IS NULL ORDER BY command_id",
                    (self.replica_id,),
                )
            ).fetchall()
        return [RunCommand(int(row[0]), row[1], row[2], json.loads(row[3])) for row in rows]

    async def answer_command(self, command_id: int, outcome: dict[str, Any]) -> None:
        async with self._pool.connection() as conn, conn.transaction():
            await conn.execute(
                "UPDATE run_commands SET outcome_json = %s WHERE command_id = %s", (json.dumps(outcome), command_id)
            )
            await conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL_COMMAND_ANSWERED, str(command_id)))

    async def command_outcome(self, command_id: int) -> dict[str, Any] | None:
        async with self._pool.connection() as conn:
            row = await (
                await conn.execute("SELECT outcome_json FROM run_commands WHERE command_id = %s", (command_id,))
            ).fetchone()
        return json.loads(row[0]) if row and row[0] is not None else None

    # --- reading a run's progress ------------------------------------------------------------------

    async def last_seq(self, run_id: str) -> int | None:
        async with self._pool.connection() as conn:
            row = await (await conn.execute("SELECT last_seq FROM runs WHERE run_id = %s", (run_id,))).fetchone()
        return int(row[0]) if row else None

    async def read_events(self, run_id: str, after_seq: int, limit: int, before_seq: int | None = None) -> list[Event]:
        """A run's stored events with after_seq < seq (< before_seq), in seq order."""
        async with self._pool.connection() as conn:
            rows = await (
                await conn.execute(
                    "SELECT seq, timestamp_ns, trace_id, kind, payload_json FROM events "
                    "WHERE run_id = %s AND seq > %s AND seq < %s ORDER BY seq LIMIT %s",
                    (run_id, after_seq, before_seq if before_seq is not None else 2**62, limit),
                )
            ).fetchall()
        return [
            Event(seq=seq, run_id=run_id, timestamp_ns=timestamp_ns, trace_id=trace_id, payload=payload_from_dict(kind, json.loads(payload)))
            for seq, timestamp_ns, trace_id, kind, payload in rows
        ]
