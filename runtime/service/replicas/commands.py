"""StopRun and ConfirmAction for a run another replica runs: a command row to that replica, and its
answer.

The asking replica writes the command and waits for the answer: woken by the answer's NOTIFY, with
a poll in case it is missed, until the run's own stop wait (and one poll) has passed. The run's
replica answers each open command once, with what its own call gave: nothing (the caller reads the
run's record, now updated), or the typed error it raised, by kind, so the asker raises the same
error its own call would have. Any other failure is `ReplicaFailed`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from runtime.outcomes import StopReason
from runtime.service.runs.errors import ReplicaFailed, RunError, run_error_kinds
from runtime.store.pg_replicas import ReplicaDatabase, RunCommand

_log = logging.getLogger(__name__)

StopHere = Callable[[str, StopReason], Awaitable[Any]]
ConfirmHere = Callable[[str, str, bool, str], Awaitable[Any]]


class ReplicaCommands:
    """Both ends of the commands between replicas: asking another replica, answering the others."""

    def __init__(
        self, database: ReplicaDatabase, *, answer_wait_seconds: float, poll_seconds: float, stop: StopHere, confirm: ConfirmHere
    ) -> None:
        self._database = database
        self._answer_wait_seconds = answer_wait_seconds
        self._poll_seconds = poll_seconds
        self._stop = stop
        self._confirm = confirm
        self._wake = asyncio.Event()
        self._answered: dict[int, asyncio.Event] = {}
        self._in_hand: set[int] = set()

    async def ask(self, run_id: str, replica_id: str, kind: str, request: dict[str, Any]) -> dict[str, Any] | None:
        """Send a command to the run's replica and wait for its outcome (None: no answer in time)."""
        command_id = await self._database.send_command(run_id, replica_id, kind, request)
        answered = self._answered[command_id] = asyncio.Event()
        deadline = time.monotonic() + self._answer_wait_seconds + self._poll_seconds
        try:
            while True:
                outcome = await self._database.command_outcome(command_id)
                if outcome is not None or time.monotonic() >= deadline:
                    return outcome
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(answered.wait(), min(self._poll_seconds, max(0.01, deadline - time.monotonic())))
                answered.clear()
        finally:
            self._answered.pop(command_id, None)

    def commands_waiting(self) -> None:
        """A command for this replica was written (its NOTIFY), or one may have been missed."""
        self._wake.set()

    def answer_came(self, payload: str) -> None:
        """A command was answered (its NOTIFY carries the command's id)."""
        with contextlib.suppress(ValueError):
            waiter = self._answered.get(int(payload))
            if waiter is not None:
                waiter.set()

    async def answer_commands(self) -> None:
        """Answer this replica's open commands as they come, until cancelled."""
        while True:
            self._wake.clear()
            try:
                for command in await self._database.open_commands():
                    if command.command_id not in self._in_hand:
                        self._in_hand.add(command.command_id)
                        asyncio.get_running_loop().create_task(self._answer(command), name=f"command-{command.command_id}")
            except Exception:  # noqa: BLE001 - the poll retries
                _log.warning("replica %s: reading commands failed", self._database.replica_id, exc_info=True)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self._poll_seconds)

    async def _answer(self, command: RunCommand) -> None:
        outcome: dict[str, Any] = {}
        try:
            if command.kind == "stop":
                await self._stop(command.run_id, StopReason(command.request.get("reason", "manual_stop")))
            elif command.kind == "confirm":
                request = command.request
                await self._confirm(command.run_id, request["request_id"], bool(request["approve"]), request.get("reason", ""))
        except RunError as error:
            outcome = {"error": {"kind": type(error).__name__, "message": error.message, "metadata": dict(error.metadata)}}
        except Exception as error:  # noqa: BLE001 - the asking replica reports it
            outcome = {"error": {"kind": ReplicaFailed.__name__, "message": f"the run's replica failed: {type(error).__name__}: {error}"}}
        try:
            await self._database.answer_command(command.command_id, outcome)
        except Exception:  # noqa: BLE001 - the asker times out and says so
            _log.exception("replica %s: answering command %d failed", self._database.replica_id, command.command_id)
        finally:
            self._in_hand.discard(command.command_id)


def answered_error(error: Mapping[str, Any]) -> RunError:
    """The error an answer carries, as the kind the answering replica raised."""
    kind = run_error_kinds().get(str(error.get("kind", "")), ReplicaFailed)
    return kind.restored(str(error.get("message", "")), error.get("metadata") or {})
