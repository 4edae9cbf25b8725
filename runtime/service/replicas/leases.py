"""What keeps the replicas of one store in touch: each one's lease, the runs of a replica whose
lease expired, and the notifications that wake them.

A replica renews its lease a third of the way through it. Once a replica's lease has expired, the
others close its runs as `interrupted`, exactly as a restarted single server closes what its killed
predecessor left (runs/recovery.py). A replica that finds its own lease expired (a pause longer
than the lease) was taken for dead: its runs were closed, so their engines here stop too, and it
joins again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from runtime.service.runs.event_bounds import EventLimits
from runtime.service.runs.recovery import close_run_left_in_flight
from runtime.store import BufferedRunStore
from runtime.store.pg_replicas import ReplicaDatabase

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ReplicaTimings:
    # A replica whose lease is this old is taken for dead and its runs are interrupted.
    lease_seconds: float = 15.0
    # How often to look for work a notification should have announced (queued runs, commands,
    # expired leases, new events of a watched run).
    poll_seconds: float = 2.0


class Leases:
    """This replica's lease, and the closing of the runs of replicas whose lease expired."""

    def __init__(
        self, database: ReplicaDatabase, store: BufferedRunStore, *, runs_dir: Path, event_limits: EventLimits, timings: ReplicaTimings
    ) -> None:
        self._database = database
        self._store = store
        self._runs_dir = runs_dir
        self._event_limits = event_limits
        self._timings = timings

    async def keep(self, interrupt_runs_here: Callable[[], None]) -> None:
        """Renew the lease until cancelled; when it had expired, interrupt this replica's runs and join again."""
        while True:
            await asyncio.sleep(self._timings.lease_seconds / 3)
            try:
                if not await self._database.renew():
                    # Taken for dead (a pause longer than the lease): others closed its runs, whose
                    # stored verdicts nothing changes now; their engines stop here too.
                    _log.error("replica %s: its lease had expired and its runs were interrupted; joining again", self._database.replica_id)
                    interrupt_runs_here()
                    await self._database.register()
            except Exception:  # noqa: BLE001 - retried at the next renewal, well within the lease
                _log.warning("replica %s: renewing the lease failed", self._database.replica_id, exc_info=True)

    async def reap_periodically(self) -> None:
        while True:
            await asyncio.sleep(min(self._timings.poll_seconds, self._timings.lease_seconds / 2))
            try:
                await self.close_orphans()
            except Exception:  # noqa: BLE001 - tried again at the next round
                _log.warning("replica %s: closing dead replicas' runs failed", self._database.replica_id, exc_info=True)

    async def close_orphans(self) -> list[str]:
        """Close the runs of replicas whose lease expired, as `interrupted`."""
        closed: list[str] = []
        while True:
            async with self._database.orphaned_runs() as run_ids:
                for run_id in run_ids:
                    record = await self._store.get_run(run_id)
                    if record is not None and not record.is_final:
                        await close_run_left_in_flight(self._store, self._runs_dir, self._event_limits, record)
                        closed.append(run_id)
            if not run_ids:
                break
        if closed:
            _log.warning("replica %s: interrupted %d run(s) of replicas whose lease expired", self._database.replica_id, len(closed))
        return closed


async def dispatch_notifications(database: ReplicaDatabase, handlers: Mapping[str, Callable[[str], None]], on_connected: Callable[[], None]) -> None:
    """Hand each NOTIFY to its channel's handler until cancelled. After a lost connection it
    reconnects and calls `on_connected` again: what was missed meanwhile is in the rows."""
    delay = 0.1
    while True:
        try:
            conn = await database.listen()
            try:
                on_connected()
                delay = 0.1
                async for notify in conn.notifies():
                    handler = handlers.get(notify.channel)
                    if handler is not None:
                        handler(notify.payload)
            finally:
                await conn.close()
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - reconnect; the polls cover the gap
            _log.warning("replica %s: listening for notifications failed; reconnecting", database.replica_id, exc_info=True)
            await asyncio.sleep(delay)
            delay = min(2.0, delay * 2)
