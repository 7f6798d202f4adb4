"""`SqliteStore`: the embedded default (stdlib sqlite3, WAL, durable commits).

Safe across processes on one machine: consuming a turn is one
``UPDATE ... WHERE consumed_at IS NULL`` whose row count says who won.
Commits are durable by default (``synchronous=FULL``): once `consume`
returns, the consumed mark survives a power loss or an OS crash, so a turn
whose approved call ran cannot become resumable again.
Calls run on the caller's thread and hold the event loop for the length of
one small transaction (about a millisecond on a local disk, most of it the
sync to disk).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Final, Literal, final

from interruption.errors import InvalidArgument, StoreUnavailable, TurnIdTaken
from interruption.parts import Message, ToolResponse
from interruption.resume import InterruptedTurn, Resume
from interruption.runtime.store._base import (
    MAX_PAGE,
    MAX_REJECTED,
    AuditEvent,
    Listed,
    Page,
    State,
    Step,
    StoredTurn,
    check_events,
    check_id,
    check_int,
    check_key,
    check_keys,
    check_principal,
    check_record,
    check_turn,
    digested,
    read_stored,
    stored_turn_json,
    taken,
    turn_from_json,
)
from interruption.wire import dumps

__all__ = ["SqliteStore"]

SCHEMA_VERSION: Final = 7

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
    2: """
    ALTER TABLE turns ADD COLUMN created_at TEXT;
    ALTER TABLE turns ADD COLUMN history_len INTEGER;
    UPDATE turns SET history_len = json_array_length(body, '$.messages');
    CREATE TABLE messages (
        session TEXT NOT NULL,
        seq INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (session, seq)
    );
    INSERT INTO messages (session, seq, body)
        SELECT sessions.session, CAST(each.key AS INTEGER), each.value
        FROM sessions, json_each(sessions.history) AS each;
    ALTER TABLE sessions DROP COLUMN history;
    CREATE TABLE steps (
        session TEXT NOT NULL,
        turn_id INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (session, turn_id, seq)
    );
    INSERT INTO steps (session, turn_id, seq, kind, body)
        SELECT session, turn_id, rowid, 'result', body FROM results;
    DROP TABLE results;
    CREATE TABLE spent (
        key TEXT PRIMARY KEY,
        keep_until TEXT
    );
    DROP TABLE tokens;
    """,
    3: """
    CREATE TABLE audit (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        session TEXT NOT NULL,
        turn_id INTEGER NOT NULL,
        kind TEXT NOT NULL,
        body TEXT NOT NULL
    );
    CREATE INDEX audit_session ON audit (session, turn_id, kind);
    CREATE INDEX turns_unfinished ON turns (session) WHERE completed_at IS NULL;
    DROP INDEX turns_open;
    """,
    4: """
    CREATE TABLE sessions_4 (
        session TEXT PRIMARY KEY,
        created_at TEXT NOT NULL
    ) WITHOUT ROWID;
    INSERT INTO sessions_4 (session, created_at)
        SELECT session, updated_at FROM sessions;
    DROP TABLE sessions;
    ALTER TABLE sessions_4 RENAME TO sessions;
    CREATE TABLE messages_4 (
        session TEXT NOT NULL,
        seq INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (session, seq)
    ) WITHOUT ROWID;
    INSERT INTO messages_4 (session, seq, body)
        SELECT session, seq, body FROM messages;
    DROP TABLE messages;
    ALTER TABLE messages_4 RENAME TO messages;
    CREATE TABLE turns_4 (
        session TEXT NOT NULL,
        turn_id INTEGER NOT NULL,
        body TEXT NOT NULL,
        history_len INTEGER,
        created_at TEXT,
        expires_at TEXT,
        consumed_at TEXT,
        resume TEXT,
        principal TEXT,
        completed_at TEXT,
        PRIMARY KEY (session, turn_id)
    ) WITHOUT ROWID;
    INSERT INTO turns_4 (session, turn_id, body, history_len, created_at,
        expires_at, consumed_at, resume, principal, completed_at)
        SELECT session, turn_id, body, history_len, created_at,
        expires_at, consumed_at, resume, principal, completed_at FROM turns;
    DROP TABLE turns;
    ALTER TABLE turns_4 RENAME TO turns;
    CREATE INDEX turns_unfinished ON turns (session) WHERE completed_at IS NULL;
    CREATE TABLE steps_4 (
        session TEXT NOT NULL,
        turn_id INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (session, turn_id, seq)
    ) WITHOUT ROWID;
    INSERT INTO steps_4 (session, turn_id, seq, kind, body)
        SELECT session, turn_id, seq, kind, body FROM steps;
    DROP TABLE steps;
    ALTER TABLE steps_4 RENAME TO steps;
    CREATE TABLE audit_4 (
        session TEXT NOT NULL,
        seq INTEGER NOT NULL,
        turn_id INTEGER NOT NULL,
        kind TEXT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (session, seq)
    ) WITHOUT ROWID;
    INSERT INTO audit_4 (session, seq, turn_id, kind, body)
        SELECT session, seq, turn_id, kind, body FROM audit;
    DROP TABLE audit;
    ALTER TABLE audit_4 RENAME TO audit;
    DELETE FROM sqlite_sequence WHERE name = 'audit';
    CREATE INDEX audit_rejected ON audit (session, turn_id) WHERE kind = 'rejected';
    """,
    5: """
    CREATE TABLE leases (
        session TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        until TEXT NOT NULL
    ) WITHOUT ROWID;
    """,
    6: """
    CREATE TABLE kept (
        key TEXT PRIMARY KEY,
        record BLOB NOT NULL,
        keep_until TEXT
    ) WITHOUT ROWID;
    """,
    7: """
    CREATE TABLE turn_bodies (
        id INTEGER PRIMARY KEY,
        body TEXT NOT NULL
    );
    INSERT INTO turn_bodies (id, body)
        SELECT row_number() OVER (ORDER BY session, turn_id), body FROM turns;
    CREATE TABLE turns_7 (
        session TEXT NOT NULL,
        turn_id INTEGER NOT NULL,
        body_id INTEGER NOT NULL,
        history_len INTEGER,
        created_at TEXT,
        expires_at TEXT,
        consumed_at TEXT,
        resume TEXT,
        principal TEXT,
        completed_at TEXT,
        PRIMARY KEY (session, turn_id)
    ) WITHOUT ROWID;
    INSERT INTO turns_7 (session, turn_id, body_id, history_len, created_at,
        expires_at, consumed_at, resume, principal, completed_at)
        SELECT session, turn_id, row_number() OVER (ORDER BY session, turn_id),
        history_len, created_at, expires_at, consumed_at, resume, principal,
        completed_at FROM turns;
    DROP TABLE turns;
    ALTER TABLE turns_7 RENAME TO turns;
    CREATE INDEX turns_unfinished ON turns (session) WHERE completed_at IS NULL;
    """,
}
"""Schema changes by version; a store migrates itself on open.

Version 4 writes fewer pages per commit, for the same rows: every table is
``WITHOUT ROWID`` (its primary key is the table, not a second index beside
it); a session's row is written once, with its first messages (version 3
rewrote its ``updated_at`` on every save, and carried it over as
``created_at``); the audit trail is numbered per session, so it needs
neither AUTOINCREMENT's counter row nor a second index, only a partial one
for counting a turn's rejected attempts. Version 5 adds the sessions'
leases (`Store.lease`); version 6 the records adapters keep (`Store.keep`).

Version 7 writes a turn's body once: bodies move to ``turn_bodies``, a rowid
table, and ``turns`` keeps a small row of state that points at its body.
A turn's row is updated twice (consumed, then completed); while it held
the body (about 1 KB for one approval, more with larger schemas or
payloads), every update rewrote the body's overflow page and the free
list, since a ``WITHOUT ROWID`` row over about 1 KB spills out of its leaf
(SQLite's advice: ``WITHOUT ROWID`` suits rows under a twentieth of a
page). A rowid table keeps a body of up to about 4 KB in its leaf, and new
bodies land on the table's last page. A `Session` cycle of one approval on
a fresh session (lease, pause, release, consume, record, finish) writes 14
pages in the steady state instead of 21.
"""


_UNFINISHED: Final[dict[str, str]] = {
    state: "SELECT session FROM turns WHERE completed_at IS NULL AND "  # noqa: S608 - constants only
    + condition
    + " AND session > ?2 ORDER BY session LIMIT ?3"
    for state, condition in (
        ("open", "consumed_at IS NULL AND (expires_at IS NULL OR expires_at > ?1)"),
        ("expired", "consumed_at IS NULL AND expires_at <= ?1"),
        ("consumed", "consumed_at IS NOT NULL"),
    )
}
"""`SqliteStore.sessions`' query per state (only a latest turn is unfinished):
the moment (``?1``), the cursor (``?2``, ``''`` for the first page: ids are
never empty) and the limit (``?3``)."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _iso(moment: datetime | None) -> str | None:
    return (
        moment.astimezone(UTC).isoformat(timespec="microseconds")
        if moment is not None
        else None
    )


def _step(kind: str, body: str) -> Step:
    if kind == "message":
        return read_stored(body, Message)
    return read_stored(body, ToolResponse)


_SPENT: Final = "SELECT key FROM spent WHERE key IN (SELECT value FROM json_each(?))"
"""The spent ones of a JSON array of keys."""

_ANY_SPENT: Final = _SPENT + " LIMIT 1"


def _unavailable(
    store: SqliteStore, error: sqlite3.OperationalError
) -> StoreUnavailable:
    """The library's error for a transaction SQLite would not begin."""
    text = str(error)
    if "locked" in text or "busy" in text:
        msg = (
            f"another connection held the database's write lock for longer "
            f"than the store's timeout ({text}); retry later"
        )
        return StoreUnavailable(str(store.path), "busy", msg)
    msg = f"SQLite cannot write the database ({text})"
    return StoreUnavailable(str(store.path), "unreachable", msg)


@final
class _Transaction:
    """One write transaction on a store's connection, under the store's lock.

    Committed when the block ends, rolled back if it raises (a plain class:
    cheaper to enter than a generator-based context manager).
    """

    __slots__ = ("_db", "_lock", "_store")

    def __init__(self, store: SqliteStore) -> None:
        self._db = store._db  # noqa: SLF001 - the store's own helper
        self._lock = store._lock  # noqa: SLF001
        self._store = store

    def __enter__(self) -> sqlite3.Connection:
        self._lock.acquire()
        try:
            self._store._check_open()  # noqa: SLF001
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as error:
            self._lock.release()
            raise _unavailable(self._store, error) from error
        except BaseException:
            self._lock.release()
            raise
        return self._db

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        try:
            self._db.execute("COMMIT" if kind is None else "ROLLBACK")
        finally:
            self._lock.release()


@final
class SqliteStore:
    """A `Store` in one SQLite file.

    Args:
        path: The database file (created, with its schema, if missing);
            ``":memory:"`` for a private in-memory database.
        timeout: Seconds to wait for another process's write lock.
        synchronous: ``"FULL"`` (the default) syncs every commit to disk, so
            a consumed mark survives a power loss or an OS crash (all but
            a session lease's, which a power loss makes moot: its holder
            died with it; the next synced commit syncs it too).
            ``"NORMAL"`` is faster and an explicit opt-in: in WAL mode it
            can lose the last commits on power loss (not on a process
            crash), and a lost consumed mark makes its turn resumable again.

    Raises:
        InvalidArgument: if *synchronous* is neither ``"FULL"`` nor ``"NORMAL"``.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        timeout: float = 30.0,
        synchronous: Literal["FULL", "NORMAL"] = "FULL",
    ) -> None:
        if synchronous not in {"FULL", "NORMAL"}:
            got = repr(synchronous)
            raise InvalidArgument("SqliteStore: synchronous", "'FULL' or 'NORMAL'", got)
        self.path = str(path)
        self._lock = threading.Lock()
        self._closed = False
        self._db = sqlite3.connect(
            self.path, timeout=timeout, isolation_level=None, check_same_thread=False
        )
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={synchronous}")
        self._synchronous = synchronous
        self._db.execute("PRAGMA foreign_keys=ON")
        self._migrate()

    def _write(self) -> _Transaction:
        return _Transaction(self)

    def _write_lease(self, statement: str, values: tuple[str | None, ...]) -> int:
        """Write the leases table: one statement, committed without a sync.

        The statement is its own transaction (autocommit: SQLite takes the
        write lock before it reads, waiting up to the store's timeout, as
        ``BEGIN IMMEDIATE`` does), committed under ``synchronous=NORMAL``
        (in WAL mode: no corruption, and the next synced commit syncs it
        too); the store's own setting is back before the lock is released.
        A lease lost to a power loss is one of a process that died with it;
        a release lost to one keeps the session busy until the lease runs
        out, as after a crash.

        Returns:
            How many rows it changed.

        Raises:
            StoreUnavailable: if SQLite would not write it (``"busy"`` when
                another connection held the write lock too long).
        """
        synced = self._synchronous != "NORMAL"
        with self._lock:
            self._check_open()
            try:
                if synced:
                    self._db.execute("PRAGMA synchronous=NORMAL")
                return self._db.execute(statement, values).rowcount
            except sqlite3.OperationalError as error:
                raise _unavailable(self, error) from error
            finally:
                if synced:
                    self._db.execute(f"PRAGMA synchronous={self._synchronous}")

    def _migrate(self) -> None:
        with self._write() as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"
            )
            row = db.execute("SELECT max(version) FROM schema_version").fetchone()
            current = row[0] or 0
            if current > SCHEMA_VERSION:
                msg = (
                    f"schema version {current} is newer than this "
                    f"library's {SCHEMA_VERSION}; upgrade interruption"
                )
                raise StoreUnavailable(str(self.path), "schema_newer", msg)
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
            self._check_open()
            row = self._db.execute("SELECT max(version) FROM schema_version").fetchone()
        return int(row[0])

    async def load_history(
        self, session: str, start: int = 0
    ) -> tuple[Message, ...] | None:
        """Return *session*'s history from message *start* on, or None."""
        check_id("load_history: session", session)
        check_int("load_history: start", start, 0)
        # One statement: the session's row (as seq -1) and then its messages.
        with self._lock:
            self._check_open()
            rows = self._db.execute(
                "SELECT -1, NULL FROM sessions WHERE session = ?1 UNION ALL "
                "SELECT seq, body FROM messages WHERE session = ?1 AND seq >= ?2 "
                "ORDER BY 1",
                (session, start),
            ).fetchall()
        if not rows or rows[0][0] != -1:
            return None
        return tuple(read_stored(body, Message) for _, body in rows[1:])

    @staticmethod
    def _append(
        db: sqlite3.Connection, session: str, history: Sequence[Message]
    ) -> None:
        (kept,) = db.execute(
            "SELECT coalesce(max(seq) + 1, 0) FROM messages WHERE session = ?",
            (session,),
        ).fetchone()
        if kept == 0:  # a session's row is written with its first messages
            db.execute(
                "INSERT INTO sessions (session, created_at) VALUES (?, ?) "
                "ON CONFLICT (session) DO NOTHING",
                (session, _now()),
            )
        db.executemany(
            "INSERT INTO messages (session, seq, body) VALUES (?, ?, ?)",
            [
                (session, seq, dumps(message))
                for seq, message in enumerate(history[kept:], start=kept)
            ],
        )

    @staticmethod
    def _note(db: sqlite3.Connection, events: Sequence[AuditEvent]) -> None:
        # Each event takes the next number of its session's trail.
        if events:
            db.executemany(
                "INSERT INTO audit (session, seq, turn_id, kind, body) VALUES (?1, "
                "(SELECT coalesce(max(seq), 0) + 1 FROM audit WHERE session = ?1), "
                "?2, ?3, ?4)",
                [
                    (event.session, event.turn_id, event.kind, dumps(event))
                    for event in events
                ],
            )

    @staticmethod
    def _keep(db: sqlite3.Connection, turn: InterruptedTurn, history_len: int) -> None:
        (last,) = db.execute(
            "SELECT max(turn_id) FROM turns WHERE session = ?", (turn.session,)
        ).fetchone()
        if last is not None and turn.turn_id <= last:
            msg = (
                f"session {turn.session!r} already has turn {last}: "
                f"expected a turn id above it, got {turn.turn_id}"
            )
            raise TurnIdTaken(turn.session, turn.turn_id, msg)
        # The body is written once, apart from the row its state changes in.
        body_id = db.execute(
            "INSERT INTO turn_bodies (body) VALUES (?)", (stored_turn_json(turn),)
        ).lastrowid
        db.execute(
            "INSERT INTO turns (session, turn_id, body_id, history_len, expires_at, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (
                turn.session,
                turn.turn_id,
                body_id,
                history_len,
                _iso(turn.closes_at),
                _iso(turn.created_at),
            ),
        )

    async def save(
        self,
        session: str,
        history: Sequence[Message],
        turn: InterruptedTurn | None = None,
        *,
        events: Sequence[AuditEvent] = (),
    ) -> None:
        """Append *history*'s new messages and keep *turn*, in one transaction.

        Raises:
            TurnIdTaken: if *turn*'s id is not above the session's latest.
        """
        check_id("save: session", session)
        check_events("save: events", events)
        if turn is not None:
            check_turn("save: turn", turn)
        with self._write() as db:
            if turn is not None:
                self._keep(db, turn, len(history))
            self._append(db, session, history)
            self._note(db, events)

    async def load_turn(
        self, session: str, turn_id: int | None = None
    ) -> StoredTurn | None:
        """Return a turn with its state (the latest when *turn_id* is None)."""
        check_id("load_turn: session", session)
        if turn_id is not None:
            check_int("load_turn: turn_id", turn_id, 1)
        columns = (
            "SELECT turn_id, (SELECT body FROM turn_bodies WHERE id = body_id), "
            "history_len, consumed_at IS NOT NULL, completed_at IS NOT NULL, resume, "
            "principal FROM turns WHERE session = ?"
        )
        with self._lock:
            self._check_open()
            if turn_id is None:
                row = self._db.execute(
                    f"{columns} ORDER BY turn_id DESC LIMIT 1",
                    (session,),
                ).fetchone()
            else:
                row = self._db.execute(
                    f"{columns} AND turn_id = ?",
                    (session, turn_id),
                ).fetchone()
            if row is None:
                return None
            found, body, history_len, consumed, completed, resume, principal = row
            steps = (
                self._db.execute(
                    "SELECT kind, body FROM steps WHERE session = ? AND turn_id = ? "
                    "ORDER BY seq",
                    (session, found),
                ).fetchall()
                if consumed and not completed
                else []
            )
        state: State = "completed" if completed else "consumed" if consumed else "open"
        return StoredTurn(
            turn_from_json(body),
            int(history_len),
            state,
            read_stored(resume, Resume) if resume is not None else None,
            principal,
            tuple(_step(kind, step) for kind, step in steps),
        )

    async def consume(
        self,
        turn: InterruptedTurn,
        resume: Resume,
        principal: str | None,
        *,
        events: Sequence[AuditEvent] = (),
    ) -> bool:
        """Claim *turn* for one resume; True for one caller, across processes."""
        check_turn("consume: turn", turn)
        check_events("consume: events", events)
        check_principal("consume: principal", principal)
        with self._write() as db:
            if not self._claim(db, turn, resume, principal):
                return False
            self._note(db, events)
            return True

    @staticmethod
    def _claim(
        db: sqlite3.Connection,
        turn: InterruptedTurn,
        resume: Resume,
        principal: str | None,
    ) -> bool:
        cursor = db.execute(
            "UPDATE turns SET consumed_at = ?, resume = ?, principal = ? "
            "WHERE session = ? AND turn_id = ? "
            "AND (created_at = ? OR created_at IS NULL) AND consumed_at IS NULL",
            (
                _now(),
                dumps(resume),
                principal,
                turn.session,
                turn.turn_id,
                _iso(turn.created_at),
            ),
        )
        return cursor.rowcount == 1

    async def record(self, session: str, turn_id: int, steps: Sequence[Step]) -> None:
        """Append steps of a consumed turn's continuation, in one transaction."""
        check_id("record: session", session)
        check_int("record: turn_id", turn_id, 1)
        with self._write() as db:
            # Each step takes the next number of its turn's steps.
            db.executemany(
                "INSERT INTO steps (session, turn_id, seq, kind, body) VALUES (?1, ?2, "
                "(SELECT coalesce(max(seq), 0) + 1 FROM steps "
                "WHERE session = ?1 AND turn_id = ?2), ?3, ?4)",
                [
                    (
                        session,
                        turn_id,
                        "message" if isinstance(step, Message) else "result",
                        dumps(step),
                    )
                    for step in steps
                ],
            )

    async def finish(  # noqa: PLR0913 - keyword-only options
        self,
        turn: InterruptedTurn,
        history: Sequence[Message],
        following: InterruptedTurn | None = None,
        *,
        close: Resume | None = None,
        principal: str | None = None,
        events: Sequence[AuditEvent] = (),
    ) -> bool:
        """Complete *turn* (consuming it first with *close*); save what followed.

        One transaction: the history, the following turn and the completion
        are written together or not at all.

        Raises:
            TurnIdTaken: if *following*'s id is not above the session's latest.
        """
        check_turn("finish: turn", turn)
        check_events("finish: events", events)
        if following is not None:
            check_turn("finish: following", following)
        check_principal("finish: principal", principal)
        with self._write() as db:
            if close is not None and not self._claim(db, turn, close, principal):
                return False
            if following is not None:
                self._keep(db, following, len(history))
            db.execute(
                "UPDATE turns SET completed_at = ? WHERE session = ? AND turn_id = ?",
                (_now(), turn.session, turn.turn_id),
            )
            self._append(db, turn.session, history)
            self._note(db, events)
            return True

    async def log(self, event: AuditEvent, sent: Resume | None = None) -> bool:
        """Append *event*; a rejected one only while its turn has room."""
        check_events("log: event", (event,))
        with self._write() as db:
            if event.kind == "rejected":
                (count,) = db.execute(
                    # The partial index: the count reads this turn's rejected
                    # attempts only (unanalyzed, the planner would take the
                    # primary key and read the session's whole trail).
                    "SELECT count(*) FROM audit INDEXED BY audit_rejected "
                    "WHERE session = ? AND turn_id = ? AND kind = 'rejected'",
                    (event.session, event.turn_id),
                ).fetchone()
                if count >= MAX_REJECTED:
                    return False
            self._note(db, (digested(event, sent),))
            return True

    async def audit(self, session: str) -> tuple[AuditEvent, ...]:
        """Return *session*'s audit trail, oldest first."""
        check_id("audit: session", session)
        with self._lock:
            self._check_open()
            rows = self._db.execute(
                "SELECT body FROM audit WHERE session = ? ORDER BY seq", (session,)
            ).fetchall()
        return tuple(read_stored(body, AuditEvent) for (body,) in rows)

    async def sessions(
        self,
        state: Listed,
        *,
        now: datetime | None = None,
        after: str | None = None,
        limit: int = MAX_PAGE,
    ) -> tuple[str, ...]:
        """Return up to *limit* sessions after *after* in *state*, sorted.

        Only a session's latest turn can be unfinished, so this reads the
        unfinished turns only (an index keeps them, in session order).
        """
        page = Page.of(state, now, after, limit)
        with self._lock:
            self._check_open()
            rows = self._db.execute(
                _UNFINISHED[page.state], (_iso(page.now), page.after or "", page.limit)
            ).fetchall()
        return tuple(session for (session,) in rows)

    async def lease(
        self,
        session: str,
        holder: str,
        now: datetime,
        until: datetime,
        *,
        renew: bool = False,
    ) -> bool:
        """Hold *session*'s lease for *holder* until *until*, across processes.

        One upsert: taken if absent, over if its time passed at *now*,
        extended if *holder*'s own; renewing, one update of *holder*'s own.
        """
        check_id("lease: session", session)
        check_id("lease: holder", holder)
        if renew:
            changed = self._write_lease(
                "UPDATE leases SET until = ? WHERE session = ? AND holder = ?",
                (_iso(until), session, holder),
            )
        else:
            changed = self._write_lease(
                "INSERT INTO leases (session, holder, until) VALUES (?1, ?2, ?4) "
                "ON CONFLICT (session) DO UPDATE SET holder = excluded.holder, "
                "until = excluded.until "
                "WHERE leases.holder = excluded.holder OR leases.until <= ?3",
                (session, holder, _iso(now), _iso(until)),
            )
        return changed == 1

    async def release(self, session: str, holder: str) -> None:
        """End *holder*'s lease on *session*, if it holds it."""
        check_id("release: session", session)
        check_id("release: holder", holder)
        self._write_lease(
            "DELETE FROM leases WHERE session = ? AND holder = ?", (session, holder)
        )

    async def spend(self, key: str, keep_until: datetime | None) -> bool:
        """Spend *key* once; True the first time only, across processes."""
        return await self.spend_all((key,), keep_until)

    async def spend_all(
        self,
        keys: Sequence[str],
        keep_until: datetime | None,
        events: Sequence[AuditEvent] = (),
    ) -> bool:
        """Spend every one of *keys*, or none if any was spent; note *events*.

        One ``BEGIN IMMEDIATE`` transaction, so across processes too.
        """
        distinct = check_keys("spend_all: keys", keys)
        check_events("spend_all: events", events)
        with self._write() as db:  # the write lock from the first read on
            if db.execute(_ANY_SPENT, (json.dumps(distinct),)).fetchone():
                return False
            until = _iso(keep_until)
            db.executemany(
                "INSERT INTO spent (key, keep_until) VALUES (?, ?)",
                [(key, until) for key in distinct],
            )
            self._note(db, events)
            return True

    async def spent(self, keys: Sequence[str]) -> frozenset[str]:
        """Return those of *keys* already spent."""
        keys = check_keys("spent: keys", keys)
        with self._lock:
            self._check_open()
            rows = self._db.execute(_SPENT, (json.dumps(keys),)).fetchall()
        return frozenset(key for (key,) in rows)

    async def keep(self, key: str, record: bytes, keep_until: datetime | None) -> None:
        """Keep *record* under *key*, once, across processes.

        Raises:
            InvalidArgument: for a bad key or record, or a key already kept.
        """
        check_key("keep: key", key)
        check_record("keep: record", record)
        with self._write() as db:
            try:
                db.execute(
                    "INSERT INTO kept (key, record, keep_until) VALUES (?, ?, ?)",
                    (key, record, _iso(keep_until)),
                )
            except sqlite3.IntegrityError as error:
                raise taken(key) from error

    async def kept(self, key: str) -> bytes | None:
        """Return the record kept under *key*, or None."""
        check_key("kept: key", key)
        with self._lock:
            self._check_open()
            row = self._db.execute(
                "SELECT record FROM kept WHERE key = ?", (key,)
            ).fetchone()
        return bytes(row[0]) if row is not None else None

    async def expire(self, now: datetime) -> int:
        """Forget marks and records kept until before *now*; return how many."""
        with self._write() as db:
            forgotten = 0
            for table in ("spent", "kept"):
                cursor = db.execute(
                    f"DELETE FROM {table} "  # noqa: S608 - the two names above
                    "WHERE keep_until IS NOT NULL AND keep_until <= ?",
                    (_iso(now),),
                )
                forgotten += cursor.rowcount
            return forgotten

    async def close(self) -> None:
        """Close the connection; every later call raises `StoreUnavailable`."""
        with self._lock:
            self._closed = True
            self._db.close()

    def _check_open(self) -> None:
        """Raise `StoreUnavailable` once the store was closed (lock held)."""
        if self._closed:
            raise StoreUnavailable(str(self.path), "closed", "the store was closed")
