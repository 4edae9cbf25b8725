"""The in-process event log of one run: assigns seq numbers and fans events out to listeners."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from runtime.events.model import Event, EventPayload, payload_from_dict, payload_to_dict
from runtime.secrets import Secrets

EventListener = Callable[[Event], None]


class EventLog:
    """Append-only, ordered events of one run.

    `emit` is synchronous and cheap so that a run never waits on its watchers: listeners must not
    block (the gRPC service copies events into bounded per-subscriber buffers).

    `secrets` is the run's redaction authority: every payload is redacted before it gets a seq,
    so no listener (run files, spans, the store, gRPC watchers) ever sees a secret value.
    """

    def __init__(
        self,
        run_id: str,
        trace_id: str = "",
        *,
        clock_ns: Callable[[], int] = time.time_ns,
        first_seq: int = 1,
    ) -> None:
        self.run_id = run_id
        self.trace_id = trace_id
        self._clock_ns = clock_ns
        self._next_seq = first_seq
        self._events: list[Event] = []
        self._listeners: list[EventListener] = []
        self._lock = threading.Lock()
        self.secrets = Secrets()

    def add_listener(self, listener: EventListener) -> None:
        with self._lock:
            self._listeners.append(listener)

    def remove_listener(self, listener: EventListener) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def emit(self, payload: EventPayload) -> Event:
        if self.secrets:
            plain = payload_to_dict(payload)
            redacted = self.secrets.redact(plain)
            if redacted != plain:
                payload = payload_from_dict(payload.KIND, redacted)
        with self._lock:
            event = Event(
                seq=self._next_seq,
                run_id=self.run_id,
                timestamp_ns=self._clock_ns(),
                trace_id=self.trace_id,
                payload=payload,
            )
            self._next_seq += 1
            self._events.append(event)
            listeners = tuple(self._listeners)
        for listener in listeners:
            listener(event)
        return event

    def events(self, after_seq: int = 0) -> list[Event]:
        with self._lock:
            return [e for e in self._events if e.seq > after_seq]

    @property
    def last_seq(self) -> int:
        return self._next_seq - 1
