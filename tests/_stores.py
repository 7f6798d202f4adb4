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
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing
from pathlib import Path

import psycopg
import pytest
from interruption import InterruptedTurn, Message, Resume, ToolResponse, dumps
from interruption.runtime.store import PostgresStore, SqliteStore
from interruption.runtime.store._base import AuditEvent, stored_turn_json
from interruption.runtime.store._postgres import _MIGRATIONS as POSTGRES_MIGRATIONS
from interruption.runtime.store._sqlite import _MIGRATIONS as SQLITE_MIGRATIONS
from psycopg import sql

__all__ = [
    "backends",
    "conninfo",
    "failing_set_up",
    "postgres_version_1",
    "sqlite_synchronous",
    "sqlite_version_1",
    "sqlite_version_3",
    "sqlite_version_with_bodies",
    "stamp_postgres_version",
    "stamp_sqlite_version",
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


def sqlite_synchronous(store: SqliteStore) -> int:
    """SQLite's ``synchronous`` setting on the store's connection (2 is FULL).

    Why inside: how durable a commit is shows only after an OS crash or a
    power loss; the setting is what decides it.
    """
    (value,) = store._db.execute("PRAGMA synchronous").fetchone()  # see above
    return int(value)


def sqlite_version_1(
    path: Path,
    history: Sequence[Message],
    turn: InterruptedTurn,
    consumed: tuple[Resume, Sequence[ToolResponse]] | None = None,
) -> None:
    """Write a SQLite file as version 1 of the library left it.

    Why inside: only the rows an older library wrote show that a migration
    keeps them; this library no longer writes that schema.

    Args:
        path: The new file.
        history: The session ``s-1``'s history.
        turn: Its turn, kept whole (version 1 copied the history into it).
        consumed: The resume that consumed the turn and the results recorded
            since, or None for an open turn.
    """
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        for statement in SQLITE_MIGRATIONS[1].split(";"):
            db.execute(statement)
        db.execute("INSERT INTO schema_version VALUES (1)")
        db.execute(
            "INSERT INTO sessions VALUES (?, ?, ?)",
            ("s-1", dumps(history), "2026-11-21T23:00:00+00:00"),
        )
        resume, results = consumed if consumed is not None else (None, ())
        db.execute(
            "INSERT INTO turns (session, turn_id, body, consumed_at, resume) "
            "VALUES (?, ?, ?, ?, ?)",
            (
                "s-1",
                turn.turn_id,
                dumps(turn),
                None if resume is None else "2026-11-21T23:01:00",
                None if resume is None else dumps(resume),
            ),
        )
        for result in results:
            db.execute(
                "INSERT INTO results VALUES (?, ?, ?, ?)",
                ("s-1", turn.turn_id, result.ref, dumps(result)),
            )


def sqlite_version_3(
    path: Path,
    history: tuple[Message, ...],
    turns: tuple[InterruptedTurn, InterruptedTurn],
    resume: Resume,
    events: tuple[AuditEvent, ...],
) -> None:
    """Write a SQLite file as version 3 of the library left it.

    Why inside: only the rows an older library wrote show that a migration
    keeps them; this library no longer writes that schema. Session ``s-1``
    has *history*; its first turn is completed, its second consumed by
    *resume* with one recorded result. *events* are the audit trail, in
    the global order version 3 numbered them (sessions interleaved).
    """
    first, second = turns
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        for version in (1, 2, 3):
            for statement in SQLITE_MIGRATIONS[version].split(";"):
                db.execute(statement)
            db.execute("INSERT INTO schema_version VALUES (?)", (version,))
        db.execute("INSERT INTO sessions VALUES ('s-1', '2026-11-21T23:00:00+00:00')")
        db.executemany(
            "INSERT INTO messages VALUES ('s-1', ?, ?)",
            [(seq, dumps(message)) for seq, message in enumerate(history)],
        )
        for stored, consumed, completed in (
            (first, "2026-11-21T23:01:00", "2026-11-21T23:02:00"),
            (second, "2026-11-21T23:03:00", None),
        ):
            db.execute(
                "INSERT INTO turns (session, turn_id, body, consumed_at, resume, "
                "completed_at, created_at, history_len) "
                "VALUES ('s-1', ?, ?, ?, ?, ?, ?, ?)",
                (
                    stored.turn_id,
                    stored_turn_json(stored),
                    consumed,
                    dumps(resume),
                    completed,
                    stored.created_at.isoformat(timespec="microseconds"),
                    len(stored.messages),
                ),
            )
        db.execute(
            "INSERT INTO steps VALUES ('s-1', ?, 1, 'result', ?)",
            (second.turn_id, dumps(ToolResponse("ask_user", "call-1", "Yes"))),
        )
        db.executemany(
            "INSERT INTO audit (session, turn_id, kind, body) VALUES (?, ?, ?, ?)",
            [
                (event.session, event.turn_id, event.kind, dumps(event))
                for event in events
            ],
        )


def sqlite_version_with_bodies(  # noqa: PLR0913 - keyword-only options
    path: Path,
    version: int,
    history: Sequence[Message],
    turns: Sequence[InterruptedTurn],
    spent: Sequence[str] = (),
    *,
    last_consumed: bool = False,
) -> None:
    """Write a SQLite file as version 4, 5 or 6 of the library left it.

    Why inside: only the rows an older library wrote show that a migration
    keeps them; this library no longer writes that schema (those versions
    kept a turn's body in its row of ``turns``). Session ``s-1`` has
    *history*; of its *turns*, the last is open and the others completed,
    each paused at the end of its own messages (with *last_consumed*, the
    last is consumed but not finished). *spent* are marks spent.
    """
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        for step in range(1, version + 1):
            for statement in SQLITE_MIGRATIONS[step].split(";"):
                db.execute(statement)
            db.execute("INSERT INTO schema_version VALUES (?)", (step,))
        db.execute("INSERT INTO sessions VALUES ('s-1', '2026-11-21T23:00:00+00:00')")
        db.executemany(
            "INSERT INTO messages VALUES ('s-1', ?, ?)",
            [(seq, dumps(message)) for seq, message in enumerate(history)],
        )
        for stored in turns:
            last = stored is turns[-1]
            completed = None if last else "2026-11-21T23:02:00"
            consumed = "2026-11-21T23:01:00" if last and last_consumed else completed
            db.execute(
                "INSERT INTO turns (session, turn_id, body, history_len, created_at, "
                "consumed_at, completed_at) VALUES ('s-1', ?, ?, ?, ?, ?, ?)",
                (
                    stored.turn_id,
                    stored_turn_json(stored),
                    len(stored.messages),
                    stored.created_at.isoformat(timespec="microseconds"),
                    consumed,
                    completed,
                ),
            )
        db.executemany("INSERT INTO spent VALUES (?, NULL)", [(key,) for key in spent])


def postgres_version_1(
    dsn: str, schema: str, history: Sequence[Message], turn: InterruptedTurn
) -> None:
    """Write a PostgreSQL schema as version 1 of the library left it.

    Why inside: as for `sqlite_version_1`. The session is ``s-1``; its turn
    is open.
    """
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
        conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
        conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        conn.execute(POSTGRES_MIGRATIONS[1])
        conn.execute("INSERT INTO schema_version VALUES (1)")
        conn.execute(
            "INSERT INTO sessions VALUES (%s, %s, now())", ("s-1", dumps(history))
        )
        conn.execute(
            "INSERT INTO turns (session, turn_id, body) VALUES (%s, %s, %s)",
            ("s-1", turn.turn_id, dumps(turn)),
        )


def stamp_sqlite_version(path: Path, version: int) -> None:
    """Record schema *version* in a SQLite store's file, as a newer library would.

    Why inside: only a newer library writes a newer version.
    """
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("INSERT INTO schema_version (version) VALUES (?)", (version,))


def stamp_postgres_version(dsn: str, schema: str, version: int) -> None:
    """Record schema *version* in a PostgreSQL store's schema, as a newer library would.

    Why inside: only a newer library writes a newer version.
    """
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            sql.SQL("INSERT INTO {}.schema_version VALUES (%s)").format(
                sql.Identifier(schema)
            ),
            (version,),
        )
