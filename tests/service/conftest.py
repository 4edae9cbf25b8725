"""Fixtures of the service tests: real servers on loopback ports, stopped after each test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.service.service_harness import DroppingProxy, ServedServer

from runtime.service.server import ServerConfig


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., ServedServer]]:
    """Start a server on a free loopback port; keyword arguments override ServerConfig fields."""
    servers: list[ServedServer] = []

    def start(*, span_processors: tuple[Any, ...] = (), **overrides: Any) -> ServedServer:
        values: dict[str, Any] = {
            "host": "127.0.0.1",
            "port": 0,
            "store_path": tmp_path / "store" / "verity.db",
            "runs_dir": tmp_path / "runs",
            "recipes_dir": tmp_path / "recipes",
            "shutdown_grace_seconds": 0.5,
        }
        values.update(overrides)
        server = ServedServer(ServerConfig(**values), span_processors=span_processors)
        servers.append(server)
        return server

    yield start
    for server in reversed(servers):
        server.close()


@pytest.fixture
def proxies() -> Iterator[Callable[[int], DroppingProxy]]:
    opened: list[DroppingProxy] = []

    def open_proxy(upstream_port: int) -> DroppingProxy:
        proxy = DroppingProxy(upstream_port)
        opened.append(proxy)
        return proxy

    yield open_proxy
    for proxy in opened:
        proxy.close()


@pytest.fixture
def context() -> dict[str, Any]:
    """What a scenario's steps share."""
    return {}


@pytest.fixture
def serve_processes() -> Iterator[Callable[..., Any]]:
    """Start `verity serve` subprocesses; all are stopped (and their process groups killed) after the test."""
    from tests.service.service_harness import ServeProcess

    started: list[ServeProcess] = []

    def start(*args: str, env: dict[str, str] | None = None) -> ServeProcess:
        process = ServeProcess(args, env=env)
        started.append(process)
        return process

    yield start
    for process in started:
        process.close()
