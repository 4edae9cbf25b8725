"""Several `verity serve` replicas on one PostgreSQL run store: any of them serves any run.

- StartRun queues the run in the database (its record says `created` until a replica starts it:
  the state a run waiting for its engine has always had). Each replica claims queued runs while it
  has a free slot (`max_concurrent_runs`), woken by NOTIFY, with a slow poll as a safety net.
- StreamRun, GetRun and ListRuns read the shared tables; live events of a run another replica runs
  reach this replica's watchers through NOTIFY and the events table (follow.py).
- StopRun and ConfirmAction for a run another replica runs go to it as a command row; it answers
  with the outcome (the same record or error its own call gives: commands.py).
- Each replica renews a lease. Once a replica's lease has expired, the others close its runs as
  `interrupted`, exactly as a restarted single server closes what its killed predecessor left.
- A graceful shutdown stops claiming, drains its runs as a single server does, then leaves.

The tables and their notifications are in runtime/store/pg_replicas.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import socket
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from opentelemetry import trace

from runtime.events import ConfirmationRequested, Event, StatusChanged
from runtime.outcomes import StopReason, TaskState
from runtime.plan.order import RunOrder, prepare_run
from runtime.recipe import RecipeInvalid
from runtime.service.replicas.commands import ReplicaCommands, answered_error
from runtime.service.replicas.follow import RunTails, follow_tailed
from runtime.service.replicas.leases import Leases, ReplicaTimings, dispatch_notifications
from runtime.service.runs.errors import ConfirmationNotPending, InvalidRequest, ReplicaUnavailable, RunError, RunNotFound, ServerShuttingDown
from runtime.service.runs.hosting import SupervisorLimits
from runtime.service.runs.ledger import recorded_inputs
from runtime.service.runs.live_run import LiveRun
from runtime.service.runs.recipe_catalog import RecipeCatalog, RecipeRequest
from runtime.service.runs.sent_recipes import SERVER_ENV_PREFIX
from runtime.service.runs.supervisor import RunSupervisor
from runtime.service.runs.tracing import RunTracer
from runtime.store import ArtifactRecord, BufferedRunStore, RunRecord
from runtime.store.run_keys import KeyHolder, RunKey
from runtime.store.pg_replicas import (
    CHANNEL_COMMAND,
    CHANNEL_COMMAND_ANSWERED,
    CHANNEL_RUN_PROGRESS,
    CHANNEL_RUN_QUEUED,
    ClaimedRun,
    ReplicaDatabase,
)

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class QueuedRun:
    """What StartRun answers for a run it queued (a replica with a free slot will start it)."""

    run_id: str
    record: RunRecord


def new_replica_id() -> str:
    return f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}"


class ReplicaSupervisor(RunSupervisor):
    def __init__(
        self,
        store: BufferedRunStore,
        tracer: RunTracer,
        *,
        database: ReplicaDatabase,
        catalog: RecipeCatalog,
        runs_dir: Path,
        limits: SupervisorLimits = SupervisorLimits(),
        timings: ReplicaTimings = ReplicaTimings(),
        browser: Any = None,
    ) -> None:
        super().__init__(store, tracer, runs_dir=runs_dir, limits=limits, browser=browser)
        self.database = database
        self.replica_id = database.replica_id
        self._catalog = catalog
        self.timings = timings
        self._tails = RunTails(
            self._read_events_after, database.last_seq,
            capacity=limits.subscriber_buffer, batch=limits.stream_batch, poll_seconds=timings.poll_seconds,
        )
        self._claim_wake = asyncio.Event()
        # Its own stop and confirm, not the overrides below: a command is for a run hosted here.
        self._commands = ReplicaCommands(
            database, answer_wait_seconds=limits.stop_wait_seconds, poll_seconds=timings.poll_seconds,
            stop=lambda run_id, reason: RunSupervisor.stop(self, run_id, reason),
            confirm=lambda run_id, request_id, approve, reason: RunSupervisor.confirm(self, run_id, request_id, approve, reason),
        )
        self._leases = Leases(database, store, runs_dir=runs_dir, event_limits=self.event_limits, timings=timings)
        self._claiming = 0  # claims taken but not yet hosted: they hold a slot
        self._tasks: list[asyncio.Task[None]] = []
        self._claimer: asyncio.Task[None] | None = None

    # --- joining and leaving ------------------------------------------------------------------------

    async def interrupt_stored_in_flight(self) -> list[str]:
        """At startup: join the replicas (a lease), and close the runs of replicas whose lease
        expired. Runs of live replicas, and queued runs, are theirs and the queue's."""
        await self.database.register()
        closed = await self._leases.close_orphans()
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._listen(), name="replica-listen"),
            loop.create_task(self._leases.keep(self._interrupt_runs_here), name="replica-lease"),
            loop.create_task(self._leases.reap_periodically(), name="replica-reaper"),
            loop.create_task(self._commands.answer_commands(), name="replica-commands"),
        ]
        return closed

    async def serving(self, target: str) -> None:
        await self.database.register(target)
        self._claimer = asyncio.get_running_loop().create_task(self._claim_queued(), name="replica-claim")

    def stop_accepting(self) -> None:
        super().stop_accepting()
        self._claim_wake.set()  # the claimer ends; a claim it has in hand is hosted and drained

    async def drain(self, grace_seconds: float, interrupt_wait_seconds: float = 5.0) -> None:
        self.stop_accepting()
        if self._claimer is not None:
            await asyncio.gather(self._claimer, return_exceptions=True)
        await super().drain(grace_seconds, interrupt_wait_seconds)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tails.close()
        try:
            if not await self.database.leave():
                _log.warning("replica %s leaves runs in flight: another replica closes them once its lease expires", self.replica_id)
        except Exception:  # noqa: BLE001 - the lease then expires and the others act on it
            _log.exception("replica %s: leaving failed", self.replica_id)
        await self.database.close()

    # --- starting: queue, claim, host ---------------------------------------------------------------

    async def start(
        self,
        order: RunOrder,
        *,
        raw_inputs: dict[str, str],
        timeout_seconds: float | None = None,
        source: RecipeRequest | None = None,
        existing: RunRecord | None = None,
        key: RunKey | None = None,
        driven_model: Any = None,
        webhook_url: str | None = None,
        turns: Any = None,
    ) -> Any:
        if turns is not None:
            # A conversation's messages would have to reach the replica hosting its browser.
            raise InvalidRequest("options.conversation", "this server is a replica on a shared store; conversations run only on a single server")
        if existing is not None or source is None:
            # A run without a request to load it from (verity mcp's) runs here, never queued.
            return await super().start(
                order, raw_inputs=raw_inputs, timeout_seconds=timeout_seconds, existing=existing, key=key,
                driven_model=driven_model, webhook_url=webhook_url,
            )
        if not self._accepting:
            raise ServerShuttingDown()
        recipe, labels = order.plan.recipe, order.labels
        now = time.time_ns()
        # The run's trace is chosen now, so StartRun can answer with it: the caller's when it sent
        # traceparent, else a new one. The engine joins it by its id on whichever replica claims the run.
        caller = trace.get_current_span().get_span_context()
        trace_id = caller.trace_id if caller.is_valid else random.getrandbits(128) or 1
        record = RunRecord(
            run_id=f"run-{uuid.uuid4().hex[:16]}",
            recipe_name=recipe["name"],
            recipe_version=recipe["version"],
            status=TaskState.CREATED,
            trace_id=format(trace_id, "032x"),
            created_ns=now,
            updated_ns=now,
            inputs=recorded_inputs(order.plan, raw_inputs),
            labels=dict(labels or {}),
        )
        request = {
            "which": source.which,
            "recipe_yaml": source.recipe_yaml,
            "recipe_name": source.recipe_name,
            "raw_inputs": raw_inputs,
            "labels": dict(labels or {}),
            "timeout_seconds": timeout_seconds,
            "browser": {"id": order.browser_id, "label": order.browser_label},
            "webhook_url": webhook_url,
            "switches": dict(order.switches),
        }
        holder = await self.database.queue_run(record, request, key)
        if holder is not None:
            assert key is not None
            return await self._started_before(holder, key)
        return QueuedRun(record.run_id, record)

    async def _record_new_run(self, record: RunRecord, key: RunKey | None) -> KeyHolder | None:
        # A run opened here (not queued) is placed here from the start, in the same transaction.
        return await self.database.place_run(record, key)

    def _free_slots(self) -> int:
        return self.limits.max_concurrent_runs - self.live_run_count - self._claiming

    async def _claim_queued(self) -> None:
        while self._accepting:
            self._claim_wake.clear()
            claimed: ClaimedRun | None = None
            if self._free_slots() > 0:
                self._claiming += 1
                try:
                    claimed = await self.database.claim_next()
                    if claimed is not None:
                        await self._start_claimed(claimed)
                except asyncio.CancelledError:
                    raise
                except Exception:  # noqa: BLE001 - the database may be away a moment; the poll retries
                    _log.exception("replica %s: claiming a queued run failed", self.replica_id)
                finally:
                    self._claiming -= 1
            if claimed is None:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._claim_wake.wait(), self.timings.poll_seconds)

    async def _start_claimed(self, claimed: ClaimedRun) -> None:
        record = await self._store.get_run(claimed.run_id)
        if record is None or record.is_final:
            return
        request = claimed.request
        source = RecipeRequest(request.get("which"), request.get("recipe_yaml", ""), request.get("recipe_name", ""))
        raw_inputs = dict(request.get("raw_inputs") or {})
        try:
            loaded = self._catalog.recipe_from_request(source.which, source.recipe_yaml, source.recipe_name)
            order = prepare_run(
                loaded.recipe,
                raw_inputs,
                registry=loaded.registry,
                labels=dict(request.get("labels") or {}),
                environ=os.environ,
                env_prefix=SERVER_ENV_PREFIX,
                switches=dict(request.get("switches") or {}),
            )
            pin = request.get("browser") or {}
            order = replace(order, browser_id=pin.get("id", ""), browser_label=pin.get("label", ""))
        except (RecipeInvalid, RunError) as error:
            # Checked by the replica that queued it; this one's recipes or environment differ.
            live = await self.open_run(record.recipe_name, record.recipe_version, {}, {}, existing=record)
            self._end_without_engine(live, StopReason.INVALID_INPUT, f"replica {self.replica_id} cannot start the run: {error}")
            return
        await super().start(
            order, raw_inputs=raw_inputs, timeout_seconds=request.get("timeout_seconds"), existing=record, webhook_url=request.get("webhook_url")
        )

    async def _finalize(self, live: LiveRun) -> None:
        await super()._finalize(live)
        self._claim_wake.set()  # a slot is free

    # --- watching any run --------------------------------------------------------------------------

    async def follow(self, run_id: str, after_seq: int) -> AsyncIterator[list[Event]]:
        if self.live_run(run_id) is None and after_seq >= 0:
            record = await self._store.get_run(run_id)
            if record is not None and not record.is_final:
                async for batch in follow_tailed(
                    self._tails, self.database.read_events, self._final_seq, run_id, after_seq, self.limits.stream_batch
                ):
                    yield batch
                return
        async for batch in super().follow(run_id, after_seq):
            yield batch

    async def _read_events_after(self, run_id: str, after_seq: int, limit: int) -> list[Event]:
        return await self.database.read_events(run_id, after_seq, limit)

    async def _final_seq(self, run_id: str) -> int | None:
        record = await self._store.get_run(run_id)
        return record.last_seq if record is not None and record.is_final else None

    async def get(self, run_id: str) -> tuple[RunRecord, list[ArtifactRecord], list[ConfirmationRequested]]:
        if self.live_run(run_id) is not None:
            return await super().get(run_id)
        record, artifacts, _ = await super().get(run_id)
        pending: list[ConfirmationRequested] = []
        if record.status is TaskState.WAITING_FOR_USER_CONFIRMATION:
            pending = await self._pending_confirmations(run_id)
        return record, artifacts, pending

    async def _pending_confirmations(self, run_id: str) -> list[ConfirmationRequested]:
        """As the events show them: requests since the run last changed to another state."""
        pending: dict[str, ConfirmationRequested] = {}
        cursor = 0
        while batch := await self.database.read_events(run_id, cursor, 1000):
            for event in batch:
                if isinstance(event.payload, ConfirmationRequested):
                    pending[event.payload.request_id] = event.payload
                elif isinstance(event.payload, StatusChanged) and event.payload.status is not TaskState.WAITING_FOR_USER_CONFIRMATION:
                    pending.clear()
            cursor = batch[-1].seq
        return list(pending.values())

    # --- steering any run -----------------------------------------------------------------------------

    async def stop(self, run_id: str, reason: StopReason = StopReason.MANUAL_STOP) -> RunRecord:
        while self.live_run(run_id) is None:
            placement = await self.database.placement(run_id)
            record = await self._store.get_run(run_id)
            if record is None:
                raise RunNotFound(run_id)
            if placement is None or record.is_final:
                return record
            if placement.replica_id is None:
                if await self.database.claim_queued(run_id):
                    # Ended here, unstarted: its verdict goes through the same path as any run's.
                    live = await self.open_run(record.recipe_name, record.recipe_version, {}, {}, existing=record)
                    self._end_without_engine(live, reason, "stopped by StopRun before a replica started it")
                    break
                continue  # claimed meanwhile: ask its replica
            if placement.replica_id == self.replica_id:
                break  # hosted here a moment ago: it has ended, or is being hosted now
            outcome = await self._commands.ask(run_id, placement.replica_id, "stop", {"reason": reason.value})
            return await self._record_after(run_id, outcome)
        return await super().stop(run_id, reason)

    async def confirm(self, run_id: str, request_id: str, approve: bool, reason: str) -> RunRecord:
        if self.live_run(run_id) is None:
            placement = await self.database.placement(run_id)
            record = await self._store.get_run(run_id)
            if record is not None and placement is not None and not record.is_final:
                if placement.replica_id is None:
                    raise ConfirmationNotPending(
                        f"run {run_id!r} is queued (no replica has started it); it waits for no confirmation",
                        metadata={"request_id": request_id, "status": record.status.value},
                    )
                if placement.replica_id != self.replica_id:
                    request = {"request_id": request_id, "approve": approve, "reason": reason}
                    outcome = await self._commands.ask(run_id, placement.replica_id, "confirm", request)
                    if outcome is None:
                        raise ReplicaUnavailable(run_id, request_id)
                    return await self._record_after(run_id, outcome)
        return await super().confirm(run_id, request_id, approve, reason)

    async def _record_after(self, run_id: str, outcome: dict[str, Any] | None) -> RunRecord:
        if outcome is None:
            _log.warning("run %s: its replica did not answer in time", run_id)
        elif "error" in outcome:
            raise answered_error(outcome["error"])
        record = await self._store.get_run(run_id)
        if record is None:
            raise RunNotFound(run_id)
        return record

    def _interrupt_runs_here(self) -> None:
        """This replica's lease had expired: the others closed its runs, so their engines stop too."""
        for run_id in list(self._live):
            self._request_stop(self._live[run_id], StopReason.INTERRUPTED, "this replica's lease expired")

    # --- notifications ------------------------------------------------------------------------------------

    async def _listen(self) -> None:
        """Dispatch NOTIFYs; after a lost connection, wake everything (what was missed is in the rows)."""
        handlers: dict[str, Callable[[str], None]] = {
            CHANNEL_RUN_PROGRESS: self._on_progress,
            CHANNEL_RUN_QUEUED: lambda _payload: self._claim_wake.set(),
            CHANNEL_COMMAND: lambda payload: self._commands.commands_waiting() if payload == self.replica_id else None,
            CHANNEL_COMMAND_ANSWERED: self._commands.answer_came,
        }

        def wake_everything() -> None:
            self._claim_wake.set()
            self._commands.commands_waiting()

        await dispatch_notifications(self.database, handlers, wake_everything)

    def _on_progress(self, payload: str) -> None:
        run_id, _, seq = payload.rpartition(" ")
        with contextlib.suppress(ValueError):
            self._tails.announce(run_id, int(seq))
