"""A webhook receiver on loopback: a real HTTP server that records each request (headers, body,
arrival time) and answers as the test scripts it: a status, a redirect, or holding the request
without an answer until the test releases it."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HOLD = "hold"


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    arrived_ns: int


class WebhookReceiver:
    """Answers requests in turn with `answers` (a status, ("redirect", url) or HOLD), then 200."""

    def __init__(self, *answers: Any) -> None:
        self._answers = list(answers)
        self.received: list[Received] = []
        self._changed = threading.Condition()
        self._released = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                seen = Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body, time.time_ns())
                with receiver._changed:
                    receiver.received.append(seen)
                    answer = receiver._answers.pop(0) if receiver._answers else 200
                    receiver._changed.notify_all()
                if answer == HOLD:
                    receiver._released.wait(60)
                    answer = 200
                if isinstance(answer, tuple):
                    self.send_response(302)
                    self.send_header("location", answer[1])
                else:
                    self.send_response(answer)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="webhook-receiver", daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks/"

    def wait_for(self, count: int, timeout: float = 30.0) -> list[Received]:
        with self._changed:
            assert self._changed.wait_for(lambda: len(self.received) >= count, timeout), f"{len(self.received)} of {count} deliveries came"
            return list(self.received)

    def release(self) -> None:
        self._released.set()

    def close(self) -> None:
        self._released.set()
        self._server.shutdown()
        self._server.server_close()
