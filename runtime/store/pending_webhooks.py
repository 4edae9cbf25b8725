"""Webhook deliveries not yet finished, kept in the run store so that they outlive their server.

A run's row is written when the run is recorded (before its verdict can exist), so a server
killed at any moment after it leaves the delivery to the next one; it is deleted when the
delivery finishes (delivered, failed after its last attempt, or refused), and with it the URL.
The URL is kept whole, token and all, as the run store keeps the rest of the server's data: only
this table has it, never an event or a run row.

A server works on a delivery only while it holds the row's lease. On a PostgreSQL store shared by
replicas the lease is what makes exactly one of them resume a delivery whose server died: the
others take it over only once the lease has expired. A SQLite store has one server at a time,
which takes every row over at start-up.

SQLite keeps the table in the run store's file (created on first use); PostgreSQL gets it from
the store's migration 5 (runtime/store/postgres.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from runtime.store.side_tables import PostgresSideTable, SideTable, SqliteSideTable
from runtime.store.location import PostgresUrl, StoreLocation

# In SQL both engines read (the `runs` table is the run store's own).
PENDING_WEBHOOKS_TABLE = """
CREATE TABLE IF NOT EXISTS pending_webhooks (
    run_id         TEXT COLLATE "C" PRIMARY KEY,
    url            TEXT NOT NULL,
    attempts_made  BIGINT NOT NULL DEFAULT 0,
    next_due_ns    BIGINT NOT NULL DEFAULT 0,
    owner          TEXT NOT NULL,
    lease_until_ns BIGINT NOT NULL DEFAULT 0
)
"""
# Every lease is taken before this in a SQLite store: its one server owns every row.
ALL_LEASES_EXPIRED_NS = 2**62


@dataclass(frozen=True)
class PendingWebhook:
    """What resuming a delivery needs: where it goes (the whole URL), how many attempts were made
    (an attempt counts once it was begun) and when the next one is due (ns since the epoch)."""

    run_id: str
    url: str = ""
    attempts_made: int = 0
    next_due_ns: int = 0


class PendingWebhooks(Protocol):
    def expect(self, run_id: str, url: str, owner: str) -> None:
        """The run's terminal state will go to `url`; `owner` hosts the run (and leases nothing yet)."""

    def claimable(self, owner: str, now_ns: int, ended_before_ns: int, limit: int = 100) -> list[str]:
        """Runs that have ended whose delivery is `owner`'s, or nobody's: its lease expired
        before `now_ns`, or it never had one and its run ended before `ended_before_ns` (the run's
        own server claims it as the run ends)."""

    def claim(self, run_id: str, owner: str, now_ns: int, lease_until_ns: int) -> PendingWebhook | None:
        """Lease the delivery to `owner`, unless another owner's lease runs past `now_ns`."""

    def progress(self, pending: PendingWebhook, owner: str, lease_until_ns: int) -> bool:
        """Record attempts made and the next due time, renewing the lease; False when `owner`
        lost the lease (another server took the delivery over)."""

    def release(self, run_id: str, owner: str) -> None:
        """Let any server take the delivery over now (this one shuts down): an expired lease."""

    def finish(self, run_id: str) -> None:
        """The delivery ended: forget it and its URL."""

    def close(self) -> None: ...


class _SqlPendingWebhooks(SideTable):
    """The queries, written once (runtime/store/side_tables.py executes them on each engine)."""

    def expect(self, run_id: str, url: str, owner: str) -> None:
        self._run(
            self._sql("INSERT INTO pending_webhooks (run_id, url, owner) VALUES (?, ?, ?) ON CONFLICT (run_id) DO NOTHING"),
            (run_id, url, owner),
        )

    def claimable(self, owner: str, now_ns: int, ended_before_ns: int, limit: int = 100) -> list[str]:
        rows = self._run(
            self._sql(
                "SELECT w.run_id FROM pending_webhooks w JOIN runs r ON r.run_id = w.run_id WHERE r.ended_ns IS NOT NULL AND "
                "(w.owner = ? OR (w.lease_until_ns > 0 AND w.lease_until_ns < ?) OR (w.lease_until_ns = 0 AND r.ended_ns < ?)) "
                "ORDER BY r.ended_ns, w.run_id LIMIT ?"
            ),
            (owner, now_ns, ended_before_ns, limit),
        )
        return [str(row[0]) for row in rows]

    def claim(self, run_id: str, owner: str, now_ns: int, lease_until_ns: int) -> PendingWebhook | None:
        rows = self._run(
            self._sql(
                "UPDATE pending_webhooks SET owner = ?, lease_until_ns = ? WHERE run_id = ? AND (owner = ? OR lease_until_ns < ?) "
                "RETURNING url, attempts_made, next_due_ns"
            ),
            (owner, lease_until_ns, run_id, owner, now_ns),
        )
        if not rows:
            return None
        url, attempts_made, next_due_ns = rows[0]
        return PendingWebhook(run_id, str(url), int(attempts_made), int(next_due_ns))

    def progress(self, pending: PendingWebhook, owner: str, lease_until_ns: int) -> bool:
        rows = self._run(
            self._sql(
                "UPDATE pending_webhooks SET attempts_made = ?, next_due_ns = ?, lease_until_ns = ? WHERE run_id = ? AND owner = ? "
                "RETURNING run_id"
            ),
            (pending.attempts_made, pending.next_due_ns, lease_until_ns, pending.run_id, owner),
        )
        return bool(rows)

    def release(self, run_id: str, owner: str) -> None:
        self._run(self._sql("UPDATE pending_webhooks SET lease_until_ns = 1 WHERE run_id = ? AND owner = ?"), (run_id, owner))

    def finish(self, run_id: str) -> None:
        self._run(self._sql("DELETE FROM pending_webhooks WHERE run_id = ?"), (run_id,))


class SqlitePendingWebhooks(_SqlPendingWebhooks, SqliteSideTable):
    """The table in a SQLite run store's file, beside the runs' tables."""

    def __init__(self, path: Path, busy_timeout_seconds: float = 5.0) -> None:
        table = PENDING_WEBHOOKS_TABLE.replace(' COLLATE "C"', "").replace("BIGINT", "INTEGER")
        SqliteSideTable.__init__(self, path, table, "pending webhooks", busy_timeout_seconds)


class PostgresPendingWebhooks(_SqlPendingWebhooks, PostgresSideTable):
    """The table in a PostgreSQL run store (from its migrations: open the run store first)."""

    def __init__(self, location: PostgresUrl) -> None:
        PostgresSideTable.__init__(self, location, "pending webhooks")


def open_pending_webhooks(location: StoreLocation) -> PendingWebhooks:
    """The pending deliveries of the run store at `location` (a PostgreSQL one already migrated)."""
    if isinstance(location, PostgresUrl):
        return PostgresPendingWebhooks(location)
    return SqlitePendingWebhooks(Path(location))
