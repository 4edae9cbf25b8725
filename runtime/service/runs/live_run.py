"""A run in flight on this server: what it has emitted, and what of that is durable and visible.

An event is *recorded* when the run emits it (bounded, buffered for the store) and *durable* once
the store committed it. Clients see only durable events and the record as of the last durable
event, so nothing a client saw can be lost by a crash; see `RunSupervisor` for the whole path.
"""

from __future__ import annotations

import asyncio
import bisect
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.trace import Span

from runtime.events import ConfirmationRequested, Event, EventLog
from runtime.service.runs.event_bounds import EventBounder
from runtime.service.runs.fanout import RunBroadcast
from runtime.service.runs.ledger import with_event
from runtime.store import RunRecord


@dataclass
class LiveRun:
    # The run's state (status, verdict) as of its newest recorded state change; `record` adds the
    # newest recorded event's seq. What the next event builds on.
    base: RunRecord
    events: EventLog
    broadcast: RunBroadcast
    bounds: EventBounder
    # The root span when the supervisor traces the run itself; an engine run has the engine's.
    span: Span | None = None
    handle: Any = None  # runtime.execute.RunHandle once the engine runs it
    final_seq: int | None = None  # set when the run's FinalVerdict is recorded
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    timeout_timer: asyncio.TimerHandle | None = None
    # A conversation's TurnCompiler (conversations.py): how its messages become turns; None otherwise.
    turns: Any = None
    # Bounded durable events in seq order: the backlog a new watcher of a live run replays.
    durable: list[Event] = field(default_factory=list)
    final_durable: asyncio.Event = field(default_factory=asyncio.Event)
    _last_recorded: Event | None = None
    # The state as of the newest durable state change, and the newest durable event: `shown`.
    _shown_base: RunRecord | None = None
    # State changes recorded but not yet durable, with their seq, in order.
    _awaiting: deque[tuple[int, RunRecord]] = field(default_factory=deque)
    # Confirmation requests as streamed (bounded) with their seq, by request id.
    _confirmations: dict[str, tuple[int, ConfirmationRequested]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._shown_base = self.base

    @property
    def run_id(self) -> str:
        return self.base.run_id

    @property
    def record(self) -> RunRecord:
        """The run as of its newest recorded event, durable or not."""
        return with_event(self.base, self._last_recorded)

    @property
    def shown(self) -> RunRecord:
        """The run as of its newest durable event: what clients are shown."""
        assert self._shown_base is not None
        return with_event(self._shown_base, self.durable[-1] if self.durable else None)

    def recorded(self, event: Event, changed: RunRecord | None) -> None:
        """`event` (bounded) was buffered for the store; `changed` is the run's new state, if any."""
        self._last_recorded = event
        if changed is not None:
            self.base = changed
            self._awaiting.append((event.seq, changed))
        if isinstance(event.payload, ConfirmationRequested):
            self._confirmations[event.payload.request_id] = (event.seq, event.payload)

    def made_durable(self, events: list[Event]) -> None:
        """The store committed `events` (this run's, in seq order): show and send them."""
        newest = events[-1].seq
        while self._awaiting and self._awaiting[0][0] <= newest:
            self._shown_base = self._awaiting.popleft()[1]
        self.durable.extend(events)
        self.broadcast.publish(events)
        if events[-1].is_final:
            self.final_durable.set()

    def durable_after(self, after_seq: int) -> list[Event]:
        start = bisect.bisect_right(self.durable, after_seq, key=lambda event: event.seq)
        return self.durable[start:]

    def pending_confirmations(self) -> list[ConfirmationRequested]:
        """Requests the run waits on whose events are durable, as those (bounded) events show them."""
        if self.handle is None:
            return []
        newest = self.durable[-1].seq if self.durable else 0
        shown: list[ConfirmationRequested] = []
        for request in self.handle.pending_confirmations():
            seq, payload = self._confirmations.get(request.request_id, (None, None))
            if seq is not None and payload is not None and seq <= newest:
                shown.append(payload)
        return shown
