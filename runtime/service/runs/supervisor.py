"""The runs of a server and every request about them: which runs are hosted (the limit, and none
while shutting down), starting one on the host (hosting.py), following its events, answering its
confirmations, stopping it, reading its record and artifacts (reading.py), and the server's
lifecycle (runs a killed predecessor left, drain at shutdown). Failures are the typed errors of
errors.py; the face a request came through says them in its own terms.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from runtime.browser.supply.endpoint_specs import BrowserDescription
from runtime.events import Event
from runtime.execute import start_run
from runtime.llm.providers.model_client import DrivenModel
from runtime.outcomes import StopReason, TaskState
from runtime.plan.order import RunOrder
from runtime.service.runs.conversations import ConversationHost, TurnCompiler
from runtime.service.runs.errors import (
    ConfirmationNotPending,
    IdempotencyKeyReused,
    InvalidRequest,
    RunLimitReached,
    RunNotFound,
    ServerShuttingDown,
)
from runtime.service.runs.follow import follow_live, follow_stored
from runtime.service.runs.hosting import RunHost
from runtime.service.runs.ledger import recorded_inputs
from runtime.service.runs.live_run import LiveRun
from runtime.service.runs.recipe_catalog import RecipeRequest
from runtime.service.runs.reading import RunReader
from runtime.service.runs.recovery import close_runs_left_in_flight
from runtime.service.runs.run_slots import RunSlots
from runtime.store import RunRecord, StoreWriteError
from runtime.store.run_keys import KeyHolder, RunKey

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StartedBefore:
    """What a start answers when its idempotency key already started a run: that run."""

    run_id: str
    record: RunRecord


class _KeyHeld(Exception):
    """Recording a new run found its idempotency key held by another run (nothing was recorded)."""

    def __init__(self, holder: KeyHolder) -> None:
        super().__init__(holder.run_id)
        self.holder = holder


class RunSupervisor(ConversationHost, RunReader, RunHost):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._slots = RunSlots(self.limits.max_concurrent_runs, self.limits.waiting)

    # --- starting ---------------------------------------------------------------------------

    async def start(
        self,
        order: RunOrder,
        *,
        raw_inputs: dict[str, str],
        timeout_seconds: float | None = None,
        source: RecipeRequest | None = None,
        existing: RunRecord | None = None,
        key: RunKey | None = None,
        driven_model: DrivenModel | None = None,
        webhook_url: str | None = None,
        turns: TurnCompiler | None = None,
    ) -> LiveRun | StartedBefore:
        """Record a new run and hand it to the run engine, which emits into the run's EventLog.
        The record keeps the raw inputs with each secret one (marked in the recipe, or sent as
        `@env:NAME`, which stays as written) shown as its marker. `existing`: the run is recorded
        already (queued by a replica, see replicas/supervisor.py, which also uses `source`).
        `key`: an idempotency key; when it started a run already, that run is the answer.
        `driven_model`: the run's agent states are answered by it (verity mcp's browser sessions).
        `webhook_url`: the run's own webhook (on the operator's allowlist, checked by the caller).
        `turns`: the run is a conversation; its messages become turns so (conversations.py)."""
        recipe = order.plan.recipe
        recorded = recorded_inputs(order.plan, raw_inputs)
        try:
            live = await self.open_run(
                recipe["name"], recipe["version"], recorded, dict(order.labels), traced=False, existing=existing, key=key,
                waits_for_slot=True, webhook_url=webhook_url,
            )
        except _KeyHeld as held:
            assert key is not None
            return await self._started_before(held.holder, key)
        admitted = False
        async def admission(on_wait: Callable[[str], None]) -> None:
            nonlocal admitted
            await self._slots.admit(on_wait)
            admitted = True
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
                admission=admission,
                driven_model=driven_model,
                action_cache=self.action_cache,
                conversation=self.conversation_for(turns),
            )
            live.turns = turns
        except Exception as error:  # noqa: BLE001 - a failed start is recorded as the run's end
            tracing.close()
            _log.exception("run %s: the engine could not start it", live.run_id)
            self._end_without_engine(live, StopReason.EXECUTE_ERROR, f"the run could not start: {error}")
            return live
        live.handle.task.add_done_callback(lambda task: tracing.close())
        self._engines_running[live.run_id] = live.handle.task
        live.handle.task.add_done_callback(lambda task: self._engines_running.pop(live.run_id, None))
        live.handle.task.add_done_callback(lambda task: self._engine_finished(live, task))
        live.handle.task.add_done_callback(lambda task: self._slots.release() if admitted else None)
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
        key: RunKey | None = None,
        waits_for_slot: bool = False,
        webhook_url: str | None = None,
    ) -> LiveRun:
        """Record a run and its event log; whoever emits into `live.events` drives it.

        This is the path every run's events take (the engine emits into this log). It is public so
        the benchmark and tests can drive a served run without a browser; `traced` gives such a
        run a root span of its own (an engine opens its own). `existing`: a run already recorded
        (and counted against the limit) by whoever claimed it. `waits_for_slot`: the run waits for
        its run slot (run_slots.py) instead of being refused at the limit. `webhook_url`: the
        run's own webhook (or None: the server's, if any), kept in the store from now on.
        """
        if existing is not None:
            live = self._host(existing, span=None)
            await self._expect_delivery(live.run_id, webhook_url)
            return live
        if not self._accepting:
            raise ServerShuttingDown()
        if not waits_for_slot and len(self._live) >= self.limits.max_concurrent_runs:
            raise RunLimitReached(len(self._live), self.limits.max_concurrent_runs)
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
            holder = await self._record_new_run(record, key)
            if holder is not None:
                raise _KeyHeld(holder)
        except BaseException:
            del self._live[run_id]
            if span is not None:
                span.end()
            raise
        await self._expect_delivery(run_id, webhook_url)
        return live

    async def _expect_delivery(self, run_id: str, webhook_url: str | None) -> None:
        if self.webhooks is not None:
            await self.webhooks.expect(run_id, webhook_url)

    async def _record_new_run(self, record: RunRecord, key: RunKey | None) -> KeyHolder | None:
        return await self._store.create_run(record, key)

    # --- retried starts ---------------------------------------------------------------------------

    def run_key(self, key: str, fingerprint: str) -> RunKey:
        """An idempotency key as a start claims it now, kept for the configured retention."""
        now = time.time_ns()
        return RunKey(key, fingerprint, now, now - int(self.limits.idempotency_retention_seconds * 1e9))

    async def started_with(self, key: RunKey) -> StartedBefore | None:
        """The run `key` started, when it is unexpired and the request is the same; raises
        IdempotencyKeyReused when the request differs."""
        holder = await self._store.find_key(key)
        return None if holder is None else await self._started_before(holder, key)

    async def _started_before(self, holder: KeyHolder, key: RunKey) -> StartedBefore:
        if holder.fingerprint != key.fingerprint:
            raise IdempotencyKeyReused(holder.run_id)
        live = self._live.get(holder.run_id)
        record = live.record if live is not None else await self._store.get_run(holder.run_id)
        if record is None:
            raise RunNotFound(holder.run_id)
        return StartedBefore(holder.run_id, record)

    # --- watching -------------------------------------------------------------------------------

    async def follow(self, run_id: str, after_seq: int) -> AsyncIterator[list[Event]]:
        """A run's durable events with seq > after_seq in batches, to the end (follow.py)."""
        if after_seq < 0:
            raise InvalidRequest("after_seq", f"must be 0 or more, got {after_seq}")
        live = self._live.get(run_id)
        size = self.limits.stream_batch
        batches = follow_stored(self._store, run_id, after_seq, size) if live is None else follow_live(live, after_seq, size)
        async for batch in batches:
            yield batch

    # --- steering -------------------------------------------------------------------------------

    async def confirm(self, run_id: str, request_id: str, approve: bool, reason: str) -> RunRecord:
        live = self._live.get(run_id)
        if live is None:
            record = await self._store.get_run(run_id)
            if record is None:
                raise RunNotFound(run_id)
            raise ConfirmationNotPending(
                f"run {run_id!r} has ended ({record.status.value}); it waits for no confirmation",
                metadata={"request_id": request_id, "status": record.status.value},
            )
        accepted = live.handle is not None and live.handle.confirm(request_id, approve, reason)
        if not accepted:
            pending = [c.request_id for c in live.pending_confirmations()]
            raise ConfirmationNotPending(
                f"run {run_id!r} is not waiting for confirmation {request_id!r} (pending: {', '.join(pending) or 'none'})",
                metadata={"request_id": request_id, "pending": ",".join(pending)},
            )
        return live.shown

    async def stop(self, run_id: str, reason: StopReason = StopReason.MANUAL_STOP) -> RunRecord:
        """Stop a run and return its record once it ended (or after `stop_wait_seconds`)."""
        live = self._live.get(run_id)
        if live is None:
            record = await self._store.get_run(run_id)
            if record is None:
                raise RunNotFound(run_id)
            return record  # already ended: stopping is idempotent
        self._request_stop(live, reason, "stopped by StopRun")
        try:
            await asyncio.wait_for(live.ended.wait(), self.limits.stop_wait_seconds)
        except asyncio.TimeoutError:
            _log.warning("run %s: still running %.1fs after stop", run_id, self.limits.stop_wait_seconds)
        return live.shown

    # --- browsers -------------------------------------------------------------------------------

    def browsers(self) -> tuple[list[BrowserDescription], int]:
        """The browsers this server runs on (ListBrowsers), and how many runs wait for one or a slot."""
        describe = getattr(self._browser, "describe", None)
        browsers = describe() if describe is not None else []
        pool_line = getattr(self._browser, "waiting", None)
        return browsers, len(self._slots.waiting) + (len(pool_line) if pool_line is not None else 0)

    # --- server lifecycle -----------------------------------------------------------------------

    async def interrupt_stored_in_flight(self) -> list[str]:
        """At startup: close the runs a previous server left in flight (recovery.py)."""
        return await close_runs_left_in_flight(self._store, self._runs_dir, self.event_limits, skip=frozenset(self._live))

    async def serving(self, target: str) -> None:
        """The server listens on `target` now (a replica announces it and starts claiming runs)."""

    def stop_accepting(self) -> None:
        self._accepting = False

    async def drain(self, grace_seconds: float, interrupt_wait_seconds: float = 5.0) -> None:
        """Let live runs finish within the grace period; interrupt the rest; flush the store."""
        self._accepting = False
        self.end_waiting_conversations()
        if self._live:
            await self._wait_ended(list(self._live.values()), grace_seconds)
        summary = "the server shut down before the run ended"
        if self.webhooks is not None:
            self.webhooks.hold_new()  # runs interrupted now are delivered by the next server, whole
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
        if self.webhooks is not None:
            # Its attempts are events: before the last flush. What it leaves, the next server resumes.
            await self.webhooks.close(min(grace_seconds, interrupt_wait_seconds))
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
