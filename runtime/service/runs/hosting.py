"""Runs hosted by this server: their event logs, durable record and ends, and the server's lifecycle.

A run and its watchers are independent. The run emits into its `EventLog`; one listener per run
bounds each event (event_bounds.py), buffers it for the store and updates the run's record,
without ever waiting. The store commits buffered events in groups; only then, from the store's
commit listener, are they offered to the watchers' bounded buffers and shown by GetRun. So a
watcher never sees an event a crash could lose: durable before visible. Watchers come and go; only
a stop (or the run's own end, a timeout or a server shutdown) ends a run. Every run ends with a
FinalVerdict event.

`RunHost` is that path, from a hosted run's event log to the store and the watchers, and the end
of a run its engine cannot end; `RunSupervisor` (supervisor.py) decides which runs are hosted,
starts them, answers requests about them and takes the server's runs through its lifecycle.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opentelemetry.trace import Span

from runtime.browser.supply.waiting_line import WaitLimits
from runtime.events import Event, EventLog, FinalVerdict, StatusChanged
from runtime.outcomes import StopReason
from runtime.service.runs.event_bounds import EventBounder, EventLimits
from runtime.service.runs.fanout import RunBroadcast
from runtime.service.runs.ledger import write_event
from runtime.service.runs.live_run import LiveRun
from runtime.service.runs.tracing import RunTracer
from runtime.service.runs.webhooks import WebhookDeliveries
from runtime.store.action_cache import ActionCache
from runtime.store import BufferedRunStore, RunRecord, StoreWriteError, WriteBatch

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
    # Runs over max_concurrent_runs (and runs for a busy browser) wait in turn within these bounds.
    waiting: WaitLimits = WaitLimits()
    # How long an idempotency key of a start holds: a retry within it returns the run it started.
    idempotency_retention_seconds: float = 24 * 3600.0
    # How long a conversation waits in `ongoing` for its next message before it ends conversation_idle.
    conversation_idle_seconds: float = 600.0


class RunHost:
    """The live runs of this server, fed by their event logs: what every run's events go through,
    whether an engine drives it (`RunSupervisor.start`) or whoever emits into its log."""

    # Where runs' terminal states are delivered, when the operator set up webhooks (webhooks.py).
    webhooks: WebhookDeliveries | None = None
    # The verified action cache the runs' agent steps replay from and learn into (the run store's).
    action_cache: ActionCache | None = None

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
        # Engines that have not finished, by run: still writing their files (trace.jsonl, the report).
        self._engines_running: dict[str, asyncio.Task[Any]] = {}
        store.add_commit_listener(self._on_commit)

    @property
    def live_run_count(self) -> int:
        return len(self._live)

    def live_run(self, run_id: str) -> LiveRun | None:
        return self._live.get(run_id)

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
        if self.webhooks is not None:
            self.webhooks.run_ended(live)  # off the run's path: its attempts are events after the verdict
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
