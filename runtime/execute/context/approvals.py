"""Pending confirmations of one run (seed 002/003 needsApproval): asked by the run, answered by a person.

`answer` may be called from any thread (a gRPC handler, a CLI prompt); the waiting run wakes up on
its own event loop.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass

from runtime.events import ConfirmationRequested


@dataclass(frozen=True)
class ApprovalAnswer:
    approved: bool
    reason: str = ""


class ApprovalDesk:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._lock = threading.Lock()
        self._pending: dict[str, tuple[ConfirmationRequested, asyncio.Future[ApprovalAnswer]]] = {}

    def open(self, request: ConfirmationRequested) -> asyncio.Future[ApprovalAnswer]:
        future: asyncio.Future[ApprovalAnswer] = self._loop.create_future()
        with self._lock:
            self._pending[request.request_id] = (request, future)
        return future

    def close(self, request_id: str) -> None:
        with self._lock:
            self._pending.pop(request_id, None)

    def pending(self) -> list[ConfirmationRequested]:
        with self._lock:
            return [request for request, future in self._pending.values() if not future.done()]

    def answer(self, request_id: str, approved: bool, reason: str = "") -> bool:
        """Resolve a pending request; False when no such request is waiting."""
        with self._lock:
            entry = self._pending.pop(request_id, None)
        if entry is None or entry[1].done():
            return False
        future = entry[1]
        answer = ApprovalAnswer(approved, reason)

        def resolve() -> None:
            if not future.done():
                future.set_result(answer)

        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            resolve()
        else:
            self._loop.call_soon_threadsafe(resolve)
        return True
