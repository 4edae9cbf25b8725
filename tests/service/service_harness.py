"""Test harness: a real VerityServer on a loopback port, watchers on real channels, a TCP proxy.

The server runs in its own event loop thread, as in `verity serve`; tests talk to it with the
public `VerityClient` from the test thread. A "served run" is a run recorded by the server whose
events a test emits into the run's `EventLog` on the server's loop — the same log and path the run
engine emits into.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, TypeVar

from runtime.events import ChatDelta, Event, EventPayload, FinalVerdict, StatusChanged
from runtime.outcomes import StopReason, TaskState
from runtime.client import VerityClient, VerityRpcError
from runtime.service.api.server import VerityServer
from runtime.service.config.server_config import ServerConfig
from runtime.service.runs.live_run import LiveRun

T = TypeVar("T")


class ServedServer:
    def __init__(self, config: ServerConfig, *, span_processors: tuple[Any, ...] = (), resolver: Any = None) -> None:
        self.config = config
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="verity-test-server", daemon=True)
        self._thread.start()
        # `resolver`: how the server's webhooks look names up (None: the system's).
        extra = {"resolver": resolver} if resolver is not None else {}
        self.server = VerityServer(config, span_processors=span_processors, **extra)
        self.port = self.call(self.server.start())
        self._clients: list[VerityClient] = []
        self.stopped = False

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def call(self, awaitable: Awaitable[T], timeout: float = 30.0) -> T:
        return asyncio.run_coroutine_threadsafe(awaitable, self.loop).result(timeout)  # type: ignore[arg-type]

    def on_loop(self, function: Callable[[], T], timeout: float = 30.0) -> T:
        async def run() -> T:
            return function()

        return self.call(run(), timeout)

    def client(self, token: str | None = None, *, target: str | None = None, **options: Any) -> VerityClient:
        client = VerityClient(target or self.target, token or self.config.token, **options)
        self._clients.append(client)
        return client

    def open_run(
        self, recipe_name: str = "served-run", inputs: dict[str, str] | None = None, labels: dict[str, str] | None = None
    ) -> LiveRun:
        assert self.server.supervisor is not None
        return self.call(self.server.supervisor.open_run(recipe_name, "1", inputs or {}, labels or {}))

    def emit(self, live: LiveRun, payloads: Iterable[EventPayload]) -> list[Event]:
        """Emit on the server loop, all at once (the run does not yield between events)."""
        items = list(payloads)
        return self.on_loop(lambda: [live.events.emit(p) for p in items])

    def emit_paced(self, live: LiveRun, payloads: Sequence[EventPayload], *, chunk: int, pause: float) -> list[Event]:
        """Emit `chunk` events at a time with a pause between chunks, as a working run would."""

        async def paced() -> list[Event]:
            emitted: list[Event] = []
            for start in range(0, len(payloads), chunk):
                emitted.extend(live.events.emit(p) for p in payloads[start : start + chunk])
                await asyncio.sleep(pause)
            return emitted

        return self.call(paced(), timeout=120)

    def finish(self, live: LiveRun, stop_reason: StopReason = StopReason.COMPLETED) -> Event:
        status = stop_reason.final_state
        events = self.emit(
            live,
            [
                StatusChanged(status=status),
                FinalVerdict(status=status, stop_reason=stop_reason, verified=stop_reason is StopReason.COMPLETED, summary="done"),
            ],
        )
        self.call(live.ended.wait())
        return events[-1]

    def stop(self, grace: float = 0.0) -> None:
        if not self.stopped:
            self.stopped = True
            self.call(self.server.stop(grace), timeout=60)

    def close(self) -> None:
        for client in self._clients:
            client.close()
        try:
            self.stop()
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(10)
            self.loop.close()


def chat_deltas(count: int, text_size: int = 8, prefix: str = "delta") -> list[ChatDelta]:
    return [ChatDelta(text=f"{prefix}-{i}-".ljust(text_size, "x")) for i in range(count)]


def running() -> StatusChanged:
    return StatusChanged(status=TaskState.RUNNING)


def stored_event(run_id: str, seq: int, payload: Any, trace_id: str = "trace-a") -> Event:
    """An event as a test writes it into a run store directly, its timestamp following its seq."""
    return Event(seq=seq, run_id=run_id, timestamp_ns=1_000_000 + 1000 * seq, trace_id=trace_id, payload=payload)


class Watcher:
    """A client streaming one run in a background thread, recording what it receives."""

    def __init__(
        self,
        client: VerityClient,
        run_id: str,
        *,
        after_seq: int = 0,
        stop_after: int | None = None,
        resume: bool = True,
    ) -> None:
        self.client = client
        self.run_id = run_id
        self.after_seq = after_seq
        self.stop_after = stop_after
        self.resume = resume
        self.events: list[Any] = []
        self.error: Exception | None = None
        self.done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name=f"watch-{run_id}", daemon=True)

    def start(self) -> Watcher:
        self._thread.start()
        return self

    def _watch(self) -> None:
        try:
            for event in self.client.stream_run(self.run_id, self.after_seq, resume=self.resume):
                self.events.append(event)
                if self.stop_after is not None and len(self.events) >= self.stop_after:
                    break  # closing the generator cancels the call
        except (VerityRpcError, ValueError) as error:  # ValueError: the test closed the channel
            self.error = error
        finally:
            self.done.set()

    @property
    def seqs(self) -> list[int]:
        return [e.seq for e in self.events]

    def wait_for(self, count: int, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while len(self.events) < count:
            if self.done.is_set() or time.monotonic() > deadline:
                raise AssertionError(f"watcher got {len(self.events)} events, expected {count} (error: {self.error})")
            time.sleep(0.005)

    def join(self, timeout: float = 30.0) -> None:
        if not self.done.wait(timeout):
            raise AssertionError(f"watcher of {self.run_id} still streaming after {timeout}s ({len(self.events)} events)")


class HealthWatch:
    """A `grpc.health.v1.Health/Watch` stream of one service, recording every status it reports."""

    def __init__(self, target: str, service: str = "") -> None:
        import grpc
        from grpc_health.v1 import health_pb2, health_pb2_grpc

        self.channel = grpc.insecure_channel(target)
        self.statuses: list[int] = []
        call = health_pb2_grpc.HealthStub(self.channel).Watch(health_pb2.HealthCheckRequest(service=service))

        def watch() -> None:
            try:
                for response in call:
                    self.statuses.append(response.status)
            except grpc.RpcError:
                pass  # the channel closed, or the server went away

        threading.Thread(target=watch, name=f"health-{service or 'server'}", daemon=True).start()

    def assert_reaches(self, reached: Callable[[list[int]], bool], what: str, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not reached(self.statuses):
            assert time.monotonic() < deadline, f"health never {what}: {self.statuses}"
            time.sleep(0.01)

    def close(self) -> None:
        self.channel.close()


class DroppingProxy:
    """A loopback TCP proxy in front of the server that can cut every open connection (RST)."""

    def __init__(self, upstream_port: int) -> None:
        self._upstream_port = upstream_port
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="dropping-proxy", daemon=True)
        self._thread.start()
        self._links: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = set()
        self.connections_accepted = 0
        self._server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._accept, "127.0.0.1", 0), self.loop
        ).result(10)
        self.port = self._server.sockets[0].getsockname()[1]

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def _accept(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        self.connections_accepted += 1
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", self._upstream_port)
        link = (client_writer, upstream_writer)
        self._links.add(link)
        try:
            await asyncio.gather(
                self._pipe(client_reader, upstream_writer), self._pipe(upstream_reader, client_writer), return_exceptions=True
            )
        finally:
            self._links.discard(link)
            for writer in link:
                writer.transport.abort()

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
        writer.transport.abort()

    def drop_all(self) -> int:
        async def drop() -> int:
            links = list(self._links)
            for client_writer, upstream_writer in links:
                client_writer.transport.abort()
                upstream_writer.transport.abort()
            return len(links)

        return asyncio.run_coroutine_threadsafe(drop(), self.loop).result(10)

    def close(self) -> None:
        self.drop_all()
        self._server.close()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)


class ServeProcess:
    """`verity serve` as a real subprocess (its own process group, so a kill takes Chromium too)."""

    def __init__(
        self,
        args: Sequence[str],
        *,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        command: Sequence[str] = ("runtime.cli.main", "serve"),
    ) -> None:
        import os
        import queue
        import subprocess
        import sys

        self._queue: queue.Queue[str | None] = queue.Queue()
        self.output: list[str] = []
        full_env = {**os.environ, **(env or {})}
        self.process = subprocess.Popen(
            [sys.executable, "-m", *command, "--port", "0", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=full_env,
            cwd=cwd,
            start_new_session=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        try:
            self.target = self._wait_for_listening()
        except BaseException:
            self.kill_group()  # not yet handed to anyone who would stop it: a timed-out test must not leave it running
            raise

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.output.append(line)
            self._queue.put(line)
        self._queue.put(None)

    def _wait_for_listening(self, timeout: float = 30.0) -> str:
        import queue

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self._queue.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                break
            if "listening on " in line:
                return line.rsplit("listening on ", 1)[1].strip()
        raise AssertionError("verity serve did not start:\n" + "".join(self.output))

    def signal(self, signum: int) -> None:
        self.process.send_signal(signum)

    def kill_group(self) -> None:
        import os
        import signal

        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(10)

    def wait(self, timeout: float = 30.0) -> int:
        code = self.process.wait(timeout)
        self._reader.join(5)
        return code

    @property
    def text(self) -> str:
        return "".join(self.output)

    def close(self) -> None:
        if self.process.poll() is None:
            import signal

            self.signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except Exception:  # noqa: BLE001 - fall through to the kill
                pass
        self.kill_group()


# Another process that takes a store's write lock and keeps it until told to let go, as a backup
# tool or a `sqlite3` shell in a transaction would.
_LOCK_HOLDER = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.readline()
db.execute("ROLLBACK")
"""


class StoreLockHolder:
    """A process holding a SQLite store's write lock from `__init__` until `release`."""

    def __init__(self, store_path: Any) -> None:
        import subprocess
        import sys

        self.process = subprocess.Popen(
            [sys.executable, "-c", _LOCK_HOLDER, str(store_path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert self.process.stdout is not None and self.process.stdout.readline().strip() == "locked"

    @property
    def locked(self) -> bool:
        return self.process.poll() is None

    def release(self) -> None:
        self.process.communicate("\n", timeout=10)
        assert self.process.returncode == 0

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
