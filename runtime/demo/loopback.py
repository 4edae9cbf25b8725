"""A threaded HTTP server on a free loopback port, started and stopped as a context manager.

Shared by the demo site, the tests' fixture site and the benchmarks, so each only writes its
request handler.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Self


class LoopbackHTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port: int, handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(("127.0.0.1", port), handler)
        # Set when the server stops, so handlers that wait on purpose (slow or hanging pages) end.
        self.stopping = threading.Event()


class LoopbackSite:
    """`with Site() as site:` serves `handler` on 127.0.0.1 (also reachable as localhost, another
    origin) until the block ends."""

    handler: type[BaseHTTPRequestHandler]
    thread_name = "loopback-site"

    def __init__(self, port: int = 0, handler: type[BaseHTTPRequestHandler] | None = None) -> None:
        self._requested_port = port
        if handler is not None:
            self.handler = handler
        self._server: LoopbackHTTPServer | None = None

    @property
    def port(self) -> int:
        assert self._server is not None, f"{type(self).__name__} is not started"
        return self._server.server_address[1]

    def start(self) -> Self:
        self._server = LoopbackHTTPServer(self._requested_port, self.handler)
        threading.Thread(target=self._server.serve_forever, name=self.thread_name, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is None:
            return
        self._server.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._server = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()
