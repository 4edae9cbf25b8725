"""Fixtures of the service tests: real servers on loopback ports, stopped after each test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, when
from tests.service.service_harness import DroppingProxy, ServedServer, StoreLockHolder, Watcher, running
from tests.service.webhook_receiver import WebhookReceiver

from runtime.service.config.server_config import ServerConfig
from runtime.store.location import PostgresUrl


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., ServedServer]]:
    """Start a server on a free loopback port; keyword arguments override ServerConfig fields."""
    servers: list[ServedServer] = []

    def start(*, span_processors: tuple[Any, ...] = (), resolver: Any = None, **overrides: Any) -> ServedServer:
        values: dict[str, Any] = {
            "host": "127.0.0.1",
            "port": 0,
            "store_path": tmp_path / "store" / "verity.db",
            "runs_dir": tmp_path / "runs",
            "recipes_dir": tmp_path / "recipes",
            "shutdown_grace_seconds": 0.5,
            # The test sites are on loopback, which a served recipe may reach only when the server allows it.
            "allow_private_network": True,
        }
        values.update(overrides)
        server = ServedServer(ServerConfig(**values), span_processors=span_processors, resolver=resolver)
        servers.append(server)
        return server

    yield start
    for server in reversed(servers):
        server.close()


@pytest.fixture
def receivers() -> Iterator[Callable[..., WebhookReceiver]]:
    """Open webhook receivers on loopback, each answering as scripted (webhook_receiver.py)."""
    opened: list[WebhookReceiver] = []

    def open_receiver(*answers: Any) -> WebhookReceiver:
        receiver = WebhookReceiver(*answers)
        opened.append(receiver)
        return receiver

    yield open_receiver
    for receiver in opened:
        receiver.close()


@pytest.fixture
def store_location(tmp_path: Path, postgres_dsn: Callable[[], str]) -> Callable[[str], Any]:
    """The location of a new, empty run store of a kind ("sqlite" or "postgresql"): the store
    conformance scenarios run one test body against each."""

    def location(kind: str) -> Any:
        if kind == "sqlite":
            return tmp_path / "store" / "verity.db"
        assert kind == "postgresql", f"unknown store kind {kind!r}"
        return PostgresUrl(postgres_dsn())

    return location


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

    def start(*args: str, env: dict[str, str] | None = None, command: tuple[str, ...] = ("runtime.cli.main", "serve")) -> ServeProcess:
        process = ServeProcess(args, env=env, command=command)
        started.append(process)
        return process

    yield start
    for process in started:
        process.close()


@pytest.fixture
def lock_holders() -> Iterator[list[Any]]:
    """Processes holding a store's write lock; killed after the test if still holding it."""
    holders: list[Any] = []
    yield holders
    for holder in holders:
        holder.kill()


@pytest.fixture
def opened() -> Iterator[list[Callable[[], None]]]:
    """Closers of what a scenario opened (stores, loops, lock holders), run last-opened first."""
    closers: list[Callable[[], None]] = []
    yield closers
    for close in reversed(closers):
        close()


# Steps shared by several service features.


@given("a PostgreSQL database", target_fixture="database_url")
def _database(postgres_dsn: Callable[[], str]) -> str:
    return postgres_dsn()


@given(parsers.parse("a server with a {size:d} byte message limit"), target_fixture="server")
def _server_with_limit(serve: Callable[..., ServedServer], size: int) -> ServedServer:
    return serve(max_message_bytes=size)


@given("a served run watched by a client")
def _watched_run(server: ServedServer, context: dict[str, Any]) -> None:
    context["run"] = live = server.open_run(recipe_name="watched")
    context["watcher"] = Watcher(server.client(), live.run_id).start()
    server.emit(live, [running()])
    context["watcher"].wait_for(1)


@given(parsers.parse("a server whose store gives up waiting for a lock after {seconds:f} seconds"), target_fixture="server")
def _server_with_busy_timeout(serve: Callable[..., ServedServer], seconds: float) -> ServedServer:
    return serve(store_busy_timeout_seconds=seconds)


@when("another process holds the store's write lock")
def _hold_lock(server: ServedServer, context: dict[str, Any], lock_holders: list[Any]) -> None:
    assert server.server.supervisor is not None
    server.call(server.server.supervisor._store.flush())  # what was emitted before is committed
    context["holder"] = holder = StoreLockHolder(server.config.store_path)
    lock_holders.append(holder)


@when("the other process releases the lock")
def _release(context: dict[str, Any]) -> None:
    context["holder"].release()
