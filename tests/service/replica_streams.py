"""Reading one run from several replicas, for features/service_replicas.feature and
features/service_replica_handoffs.feature: StreamRun read with the raw stub (not
`VerityClient.stream_run`, which drops a seq it has already seen), so a duplicate the servers send
would show, and waits bounded by a deadline that is never a measure of speed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import grpc

from runtime.client import VerityClient
from runtime.service.gen.verity.v1 import agent_service_pb2 as agent_pb
from runtime.service.gen.verity.v1 import events_pb2 as events_pb

# Bounds on waiting for a condition, never a measure of speed: a loaded machine only takes longer.
DEADLINE_SECONDS = 120.0


def wait_until(condition: Callable[[], Any], what: str, timeout: float = DEADLINE_SECONDS) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        time.sleep(0.05)


class RawStream:
    """StreamRun read in a thread with the raw stub: every event as the server sent it."""

    def __init__(self, client: VerityClient, run_id: str, after_seq: int = 0) -> None:
        self.events: list[events_pb.Event] = []
        self.error: grpc.RpcError | None = None
        self.done = threading.Event()
        self._call = client.agent.StreamRun(agent_pb.StreamRunRequest(run_id=run_id, after_seq=after_seq), metadata=client._metadata)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for response in self._call:
                self.events.extend(response.events)
        except grpc.RpcError as error:
            self.error = error
        finally:
            self.done.set()

    @property
    def seqs(self) -> list[int]:
        return [event.seq for event in self.events]

    def join(self, timeout: float = DEADLINE_SECONDS) -> RawStream:
        assert self.done.wait(timeout), f"the stream is still open after {timeout}s ({len(self.events)} events)"
        return self

    def cancel(self) -> None:
        self._call.cancel()


def stop_reason(name: str) -> int:
    return events_pb.StopReason.Value(f"STOP_REASON_{name.upper()}")


def task_state(name: str) -> int:
    return events_pb.TaskState.Value(f"TASK_STATE_{name.upper()}")
