"""`SqliteStore`: the embedded default (stdlib sqlite3, WAL).

Safe across processes on one machine: consuming a turn is one
``UPDATE ... WHERE consumed_at IS NULL`` whose row count says who won.
Calls run on the caller's thread and hold the event loop for the length of
one small transaction (well under a millisecond on a local disk).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Final, final

from interruption.parts import Message, ToolResponse
from interruption.resume import InterruptedTurn, Resume
from interruption.store._base import turn_expiry
from interruption.wire import dumps, loads

__all__ = ["SqliteStore"]

SCHEMA_VERSION: Final = 1

_MIGRATIONS: Final[dict[int, str]] = {
    1: """
    CREATE TABLE sessions (
        session TEXT PRIMARY KEY,
        history TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE turns (
        session TEXT NOT NULL,
        turn_id INTEGER NOT NULL,
        body TEXT NOT NULL,
        expires_at TEXT,
        consumed_at TEXT,
        resume TEXT,
        principal TEXT,
        completed_at TEXT,
        PRIMARY KEY (session, turn_id)
    );
    CREATE TABLE results (
        session TEXT NOT NULL,
        turn_id INTEGER NOT NULL,
        ref TEXT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (session, turn_id, ref)
    );
    CREATE TABLE tokens (
        jti TEXT PRIMARY KEY,
        expires_at TEXT
    );
    CREATE INDEX turns_open ON turns (expires_at) WHERE consumed_at IS NULL;
    """,
}
"""Schema changes by version; a store migrates itself on open."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _iso(moment: datetime | None) -> str | None:
    return (
        moment.astimezone(UTC).isoformat(timespec="microseconds")
        if moment is not None
        else None
    )


def _history_json(messages: Sequence[Message]) -> str:
    return dumps(tuple(messages))


@final
class SqliteStore:
    """A `Store` in one SQLite file.

    Args:
        path: The database file (created, with its schema, if missing);
            ``":memory:"`` for a private in-memory database.
        timeout: Seconds to wait for another process's write lock.
    """

    def __init__(self, path: str | Path, *, timeout: float = 30.0) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            self.path, timeout=timeout, isolation_level=None, check_same_thread=False
        )
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._migrate()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _migrate(self) -> None:
        with self._write() as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"
            )
            row = db.execute("SELECT max(version) FROM schema_version").fetchone()
            current = row[0] or 0
            if current > SCHEMA_VERSION:
                msg = (
                    f"{self.path}: schema version {current} is newer than this "
                    f"library's {SCHEMA_VERSION}; upgrade interruption"
                )
                raise RuntimeError(msg)
            for version in range(current + 1, SCHEMA_VERSION + 1):
                for statement in _MIGRATIONS[version].split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute(
                    "INSERT INTO schema_version (version) VALUES (?)", (version,)
                )

    @property
    def schema_version(self) -> int:
        """The database's schema version."""
        with self._lock:
            row = self._db.execute("SELECT max(version) FROM schema_version").fetchone()
        return int(row[0])

    async def save_history(self, session: str, messages: Sequence[Message]) -> None:
        """Replace *session*'s history."""
        with self._write() as db:
            self._put_history(db, session, messages)

    def _put_history(
        self, db: sqlite3.Connection, session: str, messages: Sequence[Message]
    ) -> None:
        db.execute(
            "INSERT INTO sessions (session, history, updated_at) VALUES (?, ?, ?) "
            "ON CONFLICT (session) DO UPDATE SET history = excluded.history, "
            "updated_at = excluded.updated_at",
            (session, _history_json(messages), _now()),
        )

    async def load_history(self, session: str) -> tuple[Message, ...] | None:
        """Return *session*'s history, or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT history FROM sessions WHERE session = ?", (session,)
            ).fetchone()
        return loads(row[0], tuple[Message, ...], max_bytes=2**31) if row else None

    async def save_turn(self, turn: InterruptedTurn) -> None:
        """Keep *turn* and its history.

        Raises:
            ValueError: if the session already has a turn with this id.
        """
        try:
            with self._write() as db:
                db.execute(
                    "INSERT INTO turns (session, turn_id, body, expires_at) VALUES (?, "
                    "?, ?, ?)",
                    (turn.session, turn.turn_id, dumps(turn), _iso(turn_expiry(turn))),
                )
                self._put_history(db, turn.session, turn.messages)
        except sqlite3.IntegrityError:
            msg = f"session {turn.session!r} already has turn {turn.turn_id}"
            raise ValueError(msg) from None

    async def load_turn(
        self, session: str, turn_id: int | None = None
    ) -> InterruptedTurn | None:
        """Return a turn (the latest when *turn_id* is None), or None."""
        with self._lock:
            if turn_id is None:
                row = self._db.execute(
                    "SELECT body FROM turns WHERE session = ? ORDER BY turn_id DESC "
                    "LIMIT 1",
                    (session,),
                ).fetchone()
            else:
                row = self._db.execute(
                    "SELECT body FROM turns WHERE session = ? AND turn_id = ?",
                    (session, turn_id),
                ).fetchone()
        return loads(row[0], InterruptedTurn, max_bytes=2**31) if row else None

    async def consume(
        self, session: str, turn_id: int, resume: Resume, principal: str | None
    ) -> bool:
        """Claim a turn for one resume; True for one caller, across processes."""
        with self._write() as db:
            cursor = db.execute(
                "UPDATE turns SET consumed_at = ?, resume = ?, principal = ? "
                "WHERE session = ? AND turn_id = ? AND consumed_at IS NULL",
                (_now(), dumps(resume), principal, session, turn_id),
            )
            return cursor.rowcount == 1

    async def is_consumed(self, session: str, turn_id: int) -> bool:
        """Tell whether a turn was consumed."""
        with self._lock:
            row = self._db.execute(
                "SELECT consumed_at IS NOT NULL FROM turns WHERE session = ? AND "
                "turn_id = ?",
                (session, turn_id),
            ).fetchone()
        return bool(row and row[0])

    async def record(self, session: str, turn_id: int, response: ToolResponse) -> None:
        """Record a tool result of a consumed turn's continuation."""
        with self._write() as db:
            db.execute(
                "INSERT OR REPLACE INTO results (session, turn_id, ref, body) VALUES "
                "(?, ?, ?, ?)",
                (session, turn_id, response.ref, dumps(response)),
            )

    async def complete(self, session: str, turn_id: int) -> None:
        """Mark a consumed turn's continuation as finished."""
        with self._write() as db:
            db.execute(
                "UPDATE turns SET completed_at = ? WHERE session = ? AND turn_id = ?",
                (_now(), session, turn_id),
            )

    async def claimed(
        self, session: str
    ) -> list[tuple[InterruptedTurn, Resume, tuple[ToolResponse, ...]]]:
        """Consumed turns whose continuation never completed."""
        with self._lock:
            rows = self._db.execute(
                "SELECT turn_id, body, resume FROM turns WHERE session = ? "
                "AND consumed_at IS NOT NULL AND completed_at IS NULL ORDER BY turn_id",
                (session,),
            ).fetchall()
            found = []
            for turn_id, body, resume in rows:
                results = self._db.execute(
                    "SELECT body FROM results WHERE session = ? AND turn_id = ? ORDER "
                    "BY ref",
                    (session, turn_id),
                ).fetchall()
                found.append((body, resume, [result for (result,) in results]))
        return [
            (
                loads(body, InterruptedTurn, max_bytes=2**31),
                loads(resume, Resume, max_bytes=2**31),
                tuple(loads(result, ToolResponse) for result in results),
            )
            for body, resume, results in found
        ]

    async def expire(self, now: datetime) -> int:
        """Delete open turns that expired before *now*; return how many.

        Spent token ids whose tokens expired go too: they no longer verify.
        """
        with self._write() as db:
            cursor = db.execute(
                "DELETE FROM turns WHERE consumed_at IS NULL AND expires_at IS NOT "
                "NULL AND expires_at <= ?",
                (_iso(now),),
            )
            db.execute(
                "DELETE FROM tokens WHERE expires_at IS NOT NULL AND expires_at <= ?",
                (_iso(now),),
            )
            return cursor.rowcount

    async def use_token(self, jti: str, expires_at: datetime | None) -> bool:
        """Spend a sealed token's id; True the first time only."""
        with self._write() as db:
            cursor = db.execute(
                "INSERT OR IGNORE INTO tokens (jti, expires_at) VALUES (?, ?)",
                (jti, _iso(expires_at)),
            )
            return cursor.rowcount == 1

    async def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._db.close()
