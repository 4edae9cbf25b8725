"""Bindings of features/service_store_migrations.feature: the PostgreSQL store's versioned schema,
migrated once on opening however many open a fresh database together, and refused when newer.

The PostgreSQL server is real (tests/fixtures/postgres.py): each test gets a fresh database.
"""

from __future__ import annotations

import threading
from typing import Any

import psycopg
import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.store import StoreError
from runtime.store.location import PostgresUrl
from runtime.store.postgres import MIGRATIONS, PostgresRunStore

scenarios("service_store_migrations.feature")


def _migrations(url: str) -> list[tuple[int, str, Any]]:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT version, name, applied_at FROM schema_migrations ORDER BY version").fetchall()


@when("the PostgreSQL store is opened on it twice")
def _open_twice(database_url: str, context: dict[str, Any]) -> None:
    PostgresRunStore(PostgresUrl(database_url)).close()
    context["after_first"] = _migrations(database_url)
    PostgresRunStore(PostgresUrl(database_url)).close()


@then("schema_migrations lists every migration once, applied by the first opening")
def _listed_once(database_url: str, context: dict[str, Any]) -> None:
    rows = _migrations(database_url)
    assert [(version, name) for version, name, _ in rows] == [(version, name) for version, name, _ in MIGRATIONS]
    assert rows == context["after_first"]  # the second opening applied nothing, not even again


@then("the runs, events and artifacts tables exist")
def _tables(database_url: str) -> None:
    with psycopg.connect(database_url) as conn:
        found = conn.execute(
            "SELECT to_regclass('runs') IS NOT NULL, to_regclass('events') IS NOT NULL, to_regclass('artifacts') IS NOT NULL"
        ).fetchone()
    assert found == (True, True, True)


@when(parsers.parse("the PostgreSQL store is opened on it by {count:d} threads at the same moment"))
def _open_together(database_url: str, context: dict[str, Any], count: int) -> None:
    start = threading.Barrier(count)
    outcomes: list[str] = []

    def open_store() -> None:
        start.wait()  # released together: their migrations contend for the same fresh database
        try:
            PostgresRunStore(PostgresUrl(database_url)).close()
            outcomes.append("opened")
        except StoreError as error:
            outcomes.append(str(error))

    threads = [threading.Thread(target=open_store) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    context["outcomes"] = outcomes
    context["openers"] = count


@then("every opening succeeded")
def _all_opened(context: dict[str, Any]) -> None:
    assert context["outcomes"] == ["opened"] * context["openers"], context["outcomes"]


@then("schema_migrations lists every migration once")
def _each_once(database_url: str) -> None:
    assert [(version, name) for version, name, _ in _migrations(database_url)] == [(v, n) for v, n, _ in MIGRATIONS]


@given(parsers.parse("its schema_migrations records version {version:d}"))
def _newer_version(database_url: str, version: int) -> None:
    with psycopg.connect(database_url) as conn:
        conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
        conn.execute("INSERT INTO schema_migrations (version, name) VALUES (%s, 'from the future')", (version,))


@when("the PostgreSQL store is opened on it", target_fixture="open_failure")
def _open_newer(database_url: str) -> StoreError:
    with pytest.raises(StoreError) as failure:
        PostgresRunStore(PostgresUrl(database_url))
    return failure.value


@then(parsers.parse("opening fails with a message naming schema version {version:d} as newer than this Verity"))
def _newer_refused(open_failure: StoreError, database_url: str, version: int) -> None:
    message = str(open_failure)
    assert f"schema is at version {version}, newer than this Verity" in message, message
    assert f"up to {MIGRATIONS[-1][0]}" in message, message
    with psycopg.connect(database_url) as conn:
        assert conn.execute("SELECT to_regclass('runs')").fetchone() == (None,)  # nothing migrated
