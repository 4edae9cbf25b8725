"""Runs hosted by the server: their event logs, watchers, durable record and lifecycle.

A run and its watchers are independent. The run emits into its `EventLog`; one listener per run
bounds each event (event_bounds.py), buffers it for the store and updates the run's record,
without ever waiting. The store commits buffered events in groups; only then, from the store's
commit listener, are they offered to the watchers' bounded buffers and shown by GetRun. So a
watcher never sees an event a crash could lose: durable before visible. Watchers come and go; only
`stop` (or the run's own end, a timeout or a server shutdown) ends a run. Every run ends with a
FinalVerdict event.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from opentelemetry.trace import Span

from runtime.events import ConfirmationRequested, Event, EventLog, FinalVerdict, StatusChanged
from runtime.execute import start_run
from runtime.plan.model import Plan
from runtime.plan.order import RunOrder
from runtime.outcomes import StopReason, TaskState
from runtime.secrets import marker
from runtime.service.artifact_reader import artifact_missing, artifact_not_found, artifact_path
from runtime.service.event_bounds import EventBounder, EventLimits
from runtime.service.fanout import RunBroadcast
from runtime.service.live_run import LiveRun
from runtime.service.recipe_catalog import RecipeRequest
from runtime.service.rich_errors import ServiceError, invalid_argument, run_not_found
from runtime.service.run_follow import follow_live, follow_stored
from runtime.service.run_ledger import write_event
from runtime.service.run_recovery import close_runs_left_in_flight
from runtime.service.tracing import RunTracer
from runtime.store import ArtifactRecord, BufferedRunStore, RunCursor, RunFilter, RunRecord, StoreWriteError, WriteBatch

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SupervisorLimits:
    max_concurrent_runs: int = 8
    # Live events a watcher may fall behind before it is cut off and told to resume.
    subscriber_buffer: int = 10_000
    # Events handed to a stream per wake-up; the servicer splits them further by bytes.
    stream_batch: int = 500
    # Keep at most this many newest events of an ended run (None keeps all).
    retain_events_per_run: int | None = None
    # How long StopRun waits for a stopped run to end before answering.
    stop_wait_seconds: float = 10.0
    # The gRPC message limit every event must fit (see event_bounds.py).
    max_message_bytes: int = 4 * 1024 * 1024
    # Whether recipes from clients may reach private networks (the network policy reads it).
    allow_private_network: bool = False


def recorded_inputs(plan: Plan, raw_inputs: dict[str, str]) -> dict[str, str]:
    """The inputs as a run's record keeps them: each one the recipe marks secret as its marker."""
    marked = {name for name, spec in plan.inputs.items() if spec.get("secret")}
    return {name: marker(name) if name in marked else value for name, value in raw_inputs.items()}


class RunSupervisor:
    def __init__(
        self,
        store: BufferedRunStore,
        tracer: RunTracer,
        *,
        runs_dir: Path,
        limits: SupervisorLimits = SupervisorLimits(),
        browser: Any = None,
    ) -> None:
        self._store = store
        self._tracer = tracer
        self._runs_dir = runs_dir
        self.limits = limits
        self.event_limits = EventLimits.for_message_size(limits.max_message_bytes)
        self._browser = browser
        self._live: dict[str, LiveRun] = {}
        self._accepting = True
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        self._finalizers: set[asyncio.Task[None]] = set()
        store.add_commit_listener(self._on_commit)

    @property
    def live_run_count(self) -> int:
        return len(self._live)

    def live_run(self, run_id: str) -> LiveRun | None:
        return self._live.get(run_id)

    # --- starting ---------------------------------------------------------------------------

    async def start(
        self,
        order: RunOrder,
        *,
        raw_inputs: dict[str, str],
        timeout_seconds: float | None = None,
        source: RecipeRequest | None = None,
        existing: RunRecord | None = None,
    ) -> LiveRun:
        """Record a new run and hand it to the run engine, which emits into the run's EventLog.
        The record keeps the raw inputs with each secret one (marked in the recipe, or sent as
        `@env:NAME`, which stays as written) shown as its marker. `existing`: the run is recorded
        already (queued by a replica, see replica_supervisor.py, which also uses `source`)."""
        recipe = order.plan.recipe
        recorded = recorded_inputs(order.plan, raw_inputs)
        live = await self.open_run(recipe["name"], recipe["version"], recorded, dict(order.labels), traced=False, existing=existing)
        run_dir = self._runs_dir / live.run_id
        # The run's spans: exported, and written to its trace.jsonl until its engine is done.
        tracing = self._tracer.for_run(run_dir)
        try:
            # The engine opens the run's root span (a child of the caller's span when it sent
            # traceparent) and stamps its trace id on the log; its first event carries it into the record.
            live.handle = start_run(
                order.placed(live.run_id, run_dir),
                events=live.events,
                browser=self._browser,
                tracer_provider=tracing.provider,
                trace_parent=self._tracer.caller_context(),
                # A recipe someone sent: only the server's configuration may open private networks.
                allow_private_network=self.limits.allow_private_network,
            )
        except Exception as error:  # noqa: BLE001 - a failed start is recorded as the run's end
            tracing.close()
            _log.exception("run %s: the engine could not start it", live.run_id)
            self._end_without_engine(live, StopReason.EXECUTE_ERROR, f"the run could not start: {error}")
            return live
        live.handle.task.add_done_callback(lambda task: tracing.close())
        live.handle.task.add_done_callback(lambda task: self._engine_finished(live, task))
        if timeout_seconds:
            live.timeout_timer = self._loop.call_later(timeout_seconds, self._time_out, live)
        return live

    async def open_run(
        self,
        recipe_name: str,
        recipe_version: str,
        inputs: dict[str, str],
        labels: dict[str, str],
        *,
        traced: bool = True,
        existing: RunRecord | None = None,
    ) -> LiveRun:
        """Record a run and its event log; whoever emits into `live.events` drives it.

        This is the path every run's events take (the engine emits into this log). It is public so
        the benchmark and tests can drive a served run without a browser; `traced` gives such a
        run a root span of its own (an engine opens its own). `existing`: a run already recorded
        (and counted against the limit) by whoever claimed it.
        """
        if existing is not None:
            return self._host(existing, span=None)
        if not self._accepting:
            raise ServiceError(grpc.StatusCode.UNAVAILABLE, "the server is shutting down and accepts no new runs")
        if len(self._live) >= self.limits.max_concurrent_runs:
            raise ServiceError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"{len(self._live)} runs are in flight, the limit is {self.limits.max_concurrent_runs}; "
                "retry when one has ended",
                reason="RUN_LIMIT_REACHED",
                metadata={"max_concurrent_runs": str(self.limits.max_concurrent_runs)},
            )
        run_id = f"run-{uuid.uuid4().hex[:16]}"
        span = self._tracer.start_run_span(run_id, recipe_name, recipe_version) if traced else None
        trace_id = self._tracer.trace_id_of(span) if span is not None else ""
        now = time.time_ns()
        record = RunRecord(
            run_id=run_id,
            recipe_name=recipe_name,
            recipe_version=recipe_version,
            status=TaskState.CREATED,
            trace_id=trace_id,
            created_ns=now,
            updated_ns=now,
            inputs=dict(inputs),
            labels=dict(labels),
        )
        # Reserve the slot before the first await so concurrent starts cannot overshoot the limit.
        live = self._host(record, span)
        try:
            await self._record_new_run(record)
        except BaseException:
            del self._live[run_id]
            if span is not None:
                span.end()
            raise
        return live

    def _host(self, record: RunRecord, span: Span | None) -> LiveRun:
        """Make `record` a live run of this server, fed by its event log."""
        live = LiveRun(
            base=record,
            events=EventLog(record.run_id, record.trace_id),
            broadcast=RunBroadcast(self.limits.subscriber_buffer),
            bounds=EventBounder(self.event_limits, self._runs_dir / record.run_id),
            span=span,
        )
        self._live[record.run_id] = live
        live.events.add_listener(lambda event: self._on_event(live, event))
        return live

    async def _record_new_run(self, record: RunRecord) -> None:
        await self._store.create_run(record)

    # --- recorded, then durable, then visible ---------------------------------------------------

    def _on_event(self, live: LiveRun, event: Event) -> None:
        if threading.get_ident() != self._loop_thread:
            # Emitted from a worker thread: hand over to the loop, in order.
            self._loop.call_soon_threadsafe(self._record_event, live, event)
        else:
            self._record_event(live, event)

    def _record_event(self, live: LiveRun, event: Event) -> None:
        bounded = live.bounds.bound(event)
        live.recorded(bounded.event, write_event(self._store, live.base, bounded, live.bounds))
        if isinstance(event.payload, FinalVerdict) and live.final_seq is None:
            live.final_seq = event.seq
            self._schedule_finalize(live)

    def _on_commit(self, batch: WriteBatch) -> None:
        """The store committed `batch`: its events of live runs may now be shown and sent."""
        by_run: dict[str, list[Event]] = {}
        for event in batch.events:
            by_run.setdefault(event.run_id, []).append(event)
        for run_id, events in by_run.items():
            live = self._live.get(run_id)
            if live is not None:
                live.made_durable(events)

    def _schedule_finalize(self, live: LiveRun) -> None:
        task = self._loop.create_task(self._finalize(live), name=f"finalize-{live.run_id}")
        self._finalizers.add(task)
        task.add_done_callback(self._finalizers.discard)

    async def _finalize(self, live: LiveRun) -> None:
        if live.timeout_timer is not None:
            live.timeout_timer.cancel()
        record = live.base
        if live.span is not None and record.stop_reason is not None:
            self._tracer.end_run_span(live.span, record.status, record.stop_reason, record.verified)
        # The run stays live (its watchers fed from commits) until its verdict is durable; later
        # watchers replay it from the store. While the store cannot write, that waits.
        await live.final_durable.wait()
        try:
            retain = self.limits.retain_events_per_run
            if retain is not None and live.final_seq is not None and live.final_seq > retain:
                await self._store.trim_events(live.run_id, live.final_seq - retain + 1)
        except StoreWriteError:
            pass  # the store has reported the outage; trimming is only housekeeping
        finally:
            self._live.pop(live.run_id, None)
            live.ended.set()

    def _engine_finished(self, live: LiveRun, task: asyncio.Task[Any]) -> None:
        if live.final_seq is not None:
            return
        if task.cancelled():
            summary = "the run engine was cancelled before it reported a final verdict"
        elif task.exception() is not None:
            error = task.exception()
            summary = f"the run engine failed: {type(error).__name__}: {error}"
        else:
            summary = "the run engine ended without a final verdict"
        _log.error("run %s: %s", live.run_id, summary)
        self._end_without_engine(live, StopReason.EXECUTE_ERROR, summary)

    def _end_without_engine(self, live: LiveRun, reason: StopReason, summary: str) -> None:
        """Close a run's event log with a verdict when its engine cannot (or never started)."""
        if live.final_seq is not None:
            return
        live.events.emit(StatusChanged(status=reason.final_state, detail=summary))
        live.events.emit(
            FinalVerdict(status=reason.final_state, stop_reason=reason, verified=False, summary=summary)
        )

    def _time_out(self, live: LiveRun) -> None:
        if live.final_seq is None:
            self._request_stop(live, StopReason.TIMEOUT, "the run's timeout option elapsed")

    def _request_stop(self, live: LiveRun, reason: StopReason, why: str) -> None:
        if live.handle is not None:
            live.handle.stop(reason)
        else:
            self._end_without_engine(live, reason, why)

    # --- watching -------------------------------------------------------------------------------

    async def follow(self, run_id: str, after_seq: int) -> AsyncIterator[list[Event]]:
        """A run's durable events with seq > after_seq in batches, to the end (run_follow.py)."""
        if after_seq < 0:
            raise invalid_argument("after_seq", f"must be 0 or more, got {after_seq}")
        live = self._live.get(run_id)
        batches = (
            follow_stored(self._store, run_id, after_seq, self.limits.stream_batch)
            if live is None
            else follow_live(live, after_seq, self.limits.stream_batch)
        )
        async for batch in batches:
            yield batch

    # --- steering -------------------------------------------------------------------------------

    async def confirm(self, run_id: str, request_id: str, approve: bool, reason: str) -> RunRecord:
        live = self._live.get(run_id)
        if live is None:
            record = await self._store.get_run(run_id)
            if record is None:
                raise run_not_found(run_id)
            raise ServiceError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"run {run_id!r} has ended ({record.status.value}); it waits for no confirmation",
                reason="CONFIRMATION_NOT_PENDING",
                metadata={"request_id": request_id, "status": record.status.value},
            )
        accepted = live.handle is not None and live.handle.confirm(request_id, approve, reason)
        if not accepted:
            pending = [c.request_id for c in live.pending_confirmations()]
            raise ServiceError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"run {run_id!r} is not waiting for confirmation {request_id!r} "
                f"(pending: {', '.join(pending) or 'none'})",
                reason="CONFIRMATION_NOT_PENDING",
                metadata={"request_id": request_id, "pending": ",".join(pending)},
            )
        return live.shown

    async def stop(self, run_id: str, reason: StopReason = StopReason.MANUAL_STOP) -> RunRecord:
        """Stop a run and return its record once it ended (or after `stop_wait_seconds`)."""
        live = self._live.get(run_id)
        if live is None:
            record = await self._store.get_run(run_id)
            if record is None:
                raise run_not_found(run_id)
            return record  # already ended: stopping is idempotent
        self._request_stop(live, reason, "stopped by StopRun")
        try:
            await asyncio.wait_for(live.ended.wait(), self.limits.stop_wait_seconds)
        except asyncio.TimeoutError:
            _log.warning("run %s: still running %.1fs after stop", run_id, self.limits.stop_wait_seconds)
        return live.shown

    # --- reading --------------------------------------------------------------------------------

    async def get(self, run_id: str) -> tuple[RunRecord, list[ArtifactRecord], list[ConfirmationRequested]]:
        live = self._live.get(run_id)
        if live is not None:
            artifacts = await self._store.list_artifacts(run_id)
            return live.shown, artifacts, live.pending_confirmations()
        record = await self._store.get_run(run_id)
        if record is None:
            raise run_not_found(run_id)
        return record, await self._store.list_artifacts(run_id), []

    async def artifact(self, run_id: str, artifact_id: str) -> tuple[ArtifactRecord, Path | bytes]:
        """A listed artifact of the run and its bytes: its file in the run's own directory or, when
        that is not on this server, the store's copy (a PostgreSQL store keeps one by sha256)."""
        _, artifacts, _ = await self.get(run_id)
        record = next((a for a in artifacts if a.artifact_id == artifact_id), None)
        if record is None:
            raise artifact_not_found(run_id, artifact_id)
        path = artifact_path(self._runs_dir, record)
        if path.is_file():
            return record, path
        stored = await self._store.read_blob(record.sha256)
        if stored is None:
            raise artifact_missing(record)
        return record, stored

    async def list(self, run_filter: RunFilter, limit: int, after: RunCursor | None) -> list[RunRecord]:
        return await self._store.list_runs(run_filter, limit, after)

    # --- server lifecycle -----------------------------------------------------------------------

    async def interrupt_stored_in_flight(self) -> list[str]:
        """At startup: close the runs a previous server left in flight (run_recovery.py)."""
        return await close_runs_left_in_flight(self._store, self._runs_dir, self.event_limits, skip=frozenset(self._live))

    async def serving(self, target: str) -> None:
        """The server listens on `target` now (a replica announces it and starts claiming runs)."""

    def stop_accepting(self) -> None:
        self._accepting = False

    async def drain(self, grace_seconds: float, interrupt_wait_seconds: float = 5.0) -> None:
        """Let live runs finish within the grace period; interrupt the rest; flush the store."""
        self._accepting = False
        if self._live:
            await self._wait_ended(list(self._live.values()), grace_seconds)
        summary = "the server shut down before the run ended"
        remaining = list(self._live.values())
        for live in remaining:
            self._request_stop(live, StopReason.INTERRUPTED, summary)
        if remaining:
            await self._wait_ended(remaining, interrupt_wait_seconds)
        stuck = [live for live in self._live.values() if live.handle is not None and live.final_seq is None]
        for live in stuck:
            live.handle.task.cancel()  # a cancelled engine still emits its own verdict
        if stuck:
            await self._wait_ended(stuck, interrupt_wait_seconds)
        for live in list(self._live.values()):
            # The engine did not wind down in time: record the interruption ourselves.
            self._end_without_engine(live, StopReason.INTERRUPTED, summary)
        try:
            await self._store.flush()
        except StoreWriteError:
            # Verdicts the store cannot write keep their runs waiting for durability; closing the
            # store makes the last attempt and reports what could not be written.
            for finalizer in self._finalizers:
                finalizer.cancel()
        if self._finalizers:
            await asyncio.gather(*self._finalizers, return_exceptions=True)

    @staticmethod
    async def _wait_ended(runs: list[LiveRun], timeout: float) -> None:
        waiters = [asyncio.ensure_future(live.ended.wait()) for live in runs]
        try:
            await asyncio.wait(waiters, timeout=timeout)
        finally:
            for waiter in waiters:
                waiter.cancel()
