"""The test PostgreSQL server itself: each `postgres_dsn()` is a separate, empty, writable database."""

from __future__ import annotations

import psycopg


def test_each_dsn_is_a_separate_empty_database(postgres_dsn) -> None:
    first, second = postgres_dsn(), postgres_dsn()
    assert first != second
    assert first.startswith("postgresql://verity@127.0.0.1:")
    with psycopg.connect(first, autocommit=True) as conn:
        conn.execute("CREATE TABLE marker (n integer)")
        conn.execute("INSERT INTO marker VALUES (7)")
        assert conn.execute("SELECT n FROM marker").fetchall() == [(7,)]
    with psycopg.connect(second, autocommit=True) as conn:
        tables = conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone()
        assert tables == (0,)
