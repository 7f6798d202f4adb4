"""The few places where a test looks inside a store, each saying why.

Tests use the public `Store` API and the public contract
(`interruption.testing.store_contract`). Some behaviour can only be pinned
from inside: a store opening a database written by an older version of the
library (its rows have to be written by hand), a store refusing a row that
was corrupted on disk, a connection that fails while it is being set up.
Every such access lives here, in one helper per reason, so that a change of
a store's insides breaks this module and nothing else.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import psycopg
import pytest
from interruption.store import PostgresStore

__all__ = [
    "backends",
    "conninfo",
    "failing_set_up",
]


def backends(dsn: str, application_name: str) -> int:
    """Count the server's connections that say they are *application_name*.

    The server's own view (``pg_stat_activity``), not the store's: a store
    opened with ``application_name=...`` in its DSN is seen from outside.

    Args:
        dsn: Where the server is.
        application_name: The name the store's DSN sets.

    Returns:
        How many of the store's connections the server holds open.
    """
    with psycopg.connect(dsn, autocommit=True) as admin:
        row = admin.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
            (application_name,),
        ).fetchone()
    assert row is not None
    return int(row[0])


def conninfo(store: PostgresStore) -> str:
    """The connection string a `PostgresStore` hands to libpq.

    Why inside: ``connect_timeout`` is drawn from the store's *timeout*
    unless the DSN sets one; it travels only to libpq, and the server never
    sees it.
    """
    return store._conninfo  # see the docstring


@contextlib.contextmanager
def failing_set_up(
    store: PostgresStore, monkeypatch: pytest.MonkeyPatch, *, fail: set[int]
) -> Iterator[None]:
    """Make the set-up of the store's new connections number *fail* raise OSError.

    Why inside: a `PostgresStore` sets each new connection up (its
    ``search_path``) before any call uses it, and nothing a server or a
    DSN can do makes that step, and only that step, fail. The connection
    is real and opened; the set-up fails after talking to the server.

    Args:
        store: The store whose set-up fails.
        monkeypatch: The test's monkeypatch.
        fail: The set-ups that fail, counting from 1.

    Yields:
        While the block runs, set-ups fail as told; afterwards none do.
    """
    real = store._configure  # see the docstring
    calls = 0

    async def flaky(conn: psycopg.AsyncConnection[tuple[object, ...]]) -> None:
        nonlocal calls
        calls += 1
        await conn.execute("SELECT 1")
        if calls in fail:
            msg = f"set-up {calls} failed"
            raise OSError(msg)
        await real(conn)

    with monkeypatch.context() as patch:
        patch.setattr(store, "_configure", flaky)
        yield
