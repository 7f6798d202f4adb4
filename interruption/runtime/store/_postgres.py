"""`PostgresStore`: many processes or machines serving one application.

Needs the ``[postgres]`` extra (psycopg 3 and psycopg_pool). The schema and
its semantics mirror `SqliteStore`: a version table and migrations run on
open, bodies kept as the text of `interruption.wire.dumps` and decoded
strictly, timestamps as ``timestamptz``. Consuming a turn is one
``UPDATE ... WHERE consumed_at IS NULL``: PostgreSQL makes a concurrent
update wait for the first one to commit and re-check the condition, so of
any number of resumes, on any number of machines, exactly one wins.

Every call is one statement, so one round trip, and opens no transaction:
`save` and `finish` write the turn, the messages and the audit events with
data-modifying CTEs, which one statement applies together or not at all.
A store remembers how many messages each session had when it last read or
wrote it (a lower bound: none is ever deleted), so a write sends only the
messages from there on; only a write to a session it has not seen reads
the count first.

Connections are pooled by psycopg_pool's `AsyncConnectionPool`, whose
workers, locks and connections belong to the event loop that opened it. A
store is used from many loops: the one a service serves from, `asyncio.run`
after `asyncio.run`, loops in several threads, and the blocking twins of
`Session`, which run each thread's calls on that thread's own loop and
cancel what a call leaves running (`interruption.runtime.loop.run_sync`). So a
store has two pools at most. The loop that opened it (`PostgresStore.open`,
``async with``) is served where it is, by a pool on that loop, while it
lives. Every other loop is served by one loop of all the stores' own, in a
daemon thread started by the first such call in the process (and again in
a forked child, which the thread does not follow): the caller's loop
awaits the call there, so one pool keeps *max_size* and *timeout* for all
of them, and no pool is left behind by a loop that ended. That hand-over
between two threads costs a call about one more round trip on a busy
machine, which is why the opening loop keeps a pool of its own; one pool
per calling loop would skip it everywhere, but a blocking twin's loop
cancels a pool's workers after each call, and a pool on a loop that ended
can no longer be closed.

psycopg_pool opens connections in its workers, and tells a caller only
that none came in time. A store wants a refused connection reported at
once, with the driver's error, to the call it was for: its pool's
connections report a failure to open (or to set up), and the call waiting
longest then fails with it (`StoreUnavailable`, ``unreachable``), or every
waiting call if the pool holds no other connection, as none would come.
The pool tries once more at once and then stops; the next call that needs
a connection tries anew.
"""

from __future__ import annotations

import asyncio
import functools
import os
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from types import TracebackType
from typing import (
    Any,
    Concatenate,
    Final,
    LiteralString,
    ParamSpec,
    Self,
    TypeVar,
    final,
)

from psycopg import AsyncConnection, Rollback, errors, sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.rows import TupleRow
from psycopg_pool import AsyncConnectionPool, PoolClosed, PoolTimeout

from interruption.errors import SessionInUse, StoreUnavailable, TurnIdTaken
from interruption.parts import Message, ToolResponse
from interruption.resume import InterruptedTurn, Resume
from interruption.runtime.loop import blocking_loop
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

__all__ = ["PostgresStore"]

SCHEMA_VERSION: Final = 5

_MIGRATIONS: Final[dict[int, LiteralString]] = {
    1: """
    CREATE TABLE sessions (
        session TEXT PRIMARY KEY,
        history TEXT NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL
    );
    CREATE TABLE turns (
        session TEXT NOT NULL,
        turn_id BIGINT NOT NULL,
        body TEXT NOT NULL,
        expires_at TIMESTAMPTZ,
        consumed_at TIMESTAMPTZ,
        resume TEXT,
        principal TEXT,
        completed_at TIMESTAMPTZ,
        PRIMARY KEY (session, turn_id)
    );
    CREATE TABLE results (
        session TEXT NOT NULL,
        turn_id BIGINT NOT NULL,
        ref TEXT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (session, turn_id, ref)
    );
    CREATE TABLE tokens (
        jti TEXT PRIMARY KEY,
        expires_at TIMESTAMPTZ
    );
    CREATE INDEX turns_open ON turns (expires_at) WHERE consumed_at IS NULL;
    """,
    2: """
    ALTER TABLE turns ADD COLUMN created_at TIMESTAMPTZ;
    ALTER TABLE turns ADD COLUMN history_len BIGINT;
    UPDATE turns SET history_len = jsonb_array_length((body::jsonb) -> 'messages');
    CREATE TABLE messages (
        session TEXT NOT NULL,
        seq BIGINT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (session, seq)
    );
    INSERT INTO messages (session, seq, body)
        SELECT sessions.session, each.n - 1, each.value::text
        FROM sessions,
            jsonb_array_elements(sessions.history::jsonb) WITH ORDINALITY
            AS each(value, n);
    ALTER TABLE sessions DROP COLUMN history;
    CREATE TABLE steps (
        session TEXT NOT NULL,
        turn_id BIGINT NOT NULL,
        seq BIGINT NOT NULL,
        kind TEXT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (session, turn_id, seq)
    );
    INSERT INTO steps (session, turn_id, seq, kind, body)
        SELECT session, turn_id,
            row_number() OVER (PARTITION BY session, turn_id ORDER BY ref),
            'result', body
        FROM results;
    DROP TABLE results;
    CREATE TABLE spent (
        key TEXT PRIMARY KEY,
        keep_until TIMESTAMPTZ
    );
    DROP TABLE tokens;
    """,
    3: """
    CREATE TABLE audit (
        seq BIGSERIAL PRIMARY KEY,
        session TEXT NOT NULL,
        turn_id BIGINT NOT NULL,
        kind TEXT NOT NULL,
        body TEXT NOT NULL
    );
    CREATE INDEX audit_session ON audit (session, turn_id, kind);
    CREATE INDEX turns_unfinished ON turns (session) WHERE completed_at IS NULL;
    DROP INDEX turns_open;
    """,
    4: """
    CREATE TABLE leases (
        session TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        until TIMESTAMPTZ NOT NULL
    );
    DROP INDEX turns_unfinished;
    CREATE INDEX turns_unfinished ON turns (session COLLATE "C")
        WHERE completed_at IS NULL;
    """,
    5: """
    CREATE TABLE kept (
        key TEXT PRIMARY KEY,
        record BYTEA NOT NULL,
        keep_until TIMESTAMPTZ
    );
    """,
}
"""Schema changes by version; a store migrates its schema on open (version 4
adds the sessions' leases, `Store.lease`, and keeps the unfinished turns in
code point order, as `Store.sessions` lists them whatever the locale;
version 5 adds the records adapters keep, `Store.keep`)."""

_MIGRATION_LOCK: Final = "interruption.store"
"""Hashed into the advisory lock that serialises concurrent migrations."""

_Connection = AsyncConnection[TupleRow]

T = TypeVar("T")
P = ParamSpec("P")


@final
class _LoopThread:
    """The event loop every `PostgresStore` call runs on, in a thread of its own.

    Started by the first call (none at import), and again in a forked child,
    which the thread does not follow. A daemon thread: it does not keep the
    interpreter alive, and a store that was never closed dies with it.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._left: list[asyncio.AbstractEventLoop] = []

    def gone(self, loop: asyncio.AbstractEventLoop) -> bool:
        """Whether *loop* runs no more here: closed, or a forked parent's."""
        return loop.is_closed() or loop in self._left

    def loop(self) -> asyncio.AbstractEventLoop:
        """The loop, started in its thread if it is not yet."""
        with self._lock:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                threading.Thread(
                    target=_run_forever,
                    args=(self._loop,),
                    name="interruption-postgres",
                    daemon=True,
                ).start()
            return self._loop

    def forget(self) -> None:
        """In a forked child: the parent's loop runs nowhere; start anew if used."""
        self._lock = threading.Lock()
        if self._loop is not None:  # kept: collected, it would warn it is unclosed
            self._left.append(self._loop)
        self._loop = None

    async def run(self, work: Coroutine[Any, Any, T]) -> T:
        """Run *work* on the loop and await it from the caller's.

        Cancelling the caller cancels *work*.
        """
        loop = self.loop()
        if asyncio.get_running_loop() is loop:  # a store call within another
            return await work
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, loop))


def _run_forever(loop: asyncio.AbstractEventLoop) -> None:
    """The loop thread's work: run *loop* until it is stopped, then close it."""
    try:
        loop.run_forever()
    finally:
        loop.close()


_HOME: Final = _LoopThread()
os.register_at_fork(after_in_child=_HOME.forget)


def _at_home(
    method: Callable[Concatenate[PostgresStore, P], Coroutine[Any, Any, T]],
) -> Callable[Concatenate[PostgresStore, P], Coroutine[Any, Any, T]]:
    """*method*, run where the store serves the caller's loop.

    On the loop that opened the store, where it is (`PostgresStore.open`);
    on the stores' own loop (`_LoopThread`) for any other.
    """

    @functools.wraps(method)
    async def call(self: PostgresStore, /, *args: P.args, **kwargs: P.kwargs) -> T:
        work = method(self, *args, **kwargs)
        if self._local is asyncio.get_running_loop():
            return await work
        return await _HOME.run(work)

    return call


@final
class _Pool(AsyncConnectionPool[_Connection]):
    """psycopg_pool's pool, handing out the connection given back last.

    psycopg_pool hands its idle connections out in turn (first in, first
    out), so a store that keeps *min_size* of them sends one caller's
    statements to each server process in turn: each has its statements
    prepared and its caches warm only after many calls, and a cycle of one
    caller over 16 connections measured 1.5 to 2 times one over a single
    connection. Last in, first out keeps the fewest connections busy and
    warm (the others idle, and close after ``max_idle`` beyond min_size).
    """

    async def _get_ready_connection(
        self,
        timeout: float | None,  # noqa: ASYNC109 - psycopg_pool's signature
    ) -> _Connection | None:
        self._pool.rotate(1)  # the one given back last comes first
        return await super()._get_ready_connection(timeout)


def _reporting(failed: Callable[[Exception], None]) -> type[_Connection]:
    """A connection class for a pool that calls *failed* when a connect fails."""

    class Reporting(_Connection):
        @classmethod
        async def connect(cls, conninfo: str = "", **kwargs: Any) -> Self:  # noqa: ANN401 - psycopg's own options, passed on
            try:
                return await super().connect(conninfo, **kwargs)
            except Exception as error:
                failed(error)
                raise

    return Reporting


_UNFINISHED: Final[dict[str, LiteralString]] = {
    "open": "SELECT session FROM turns WHERE completed_at IS NULL "
    "AND consumed_at IS NULL AND (expires_at IS NULL OR expires_at > %(now)s) "
    'AND session COLLATE "C" > %(after)s ORDER BY session COLLATE "C" '
    "LIMIT %(limit)s",
    "expired": "SELECT session FROM turns WHERE completed_at IS NULL "
    "AND consumed_at IS NULL AND expires_at <= %(now)s "
    'AND session COLLATE "C" > %(after)s ORDER BY session COLLATE "C" '
    "LIMIT %(limit)s",
    "consumed": "SELECT session FROM turns WHERE completed_at IS NULL "
    "AND consumed_at IS NOT NULL "
    'AND session COLLATE "C" > %(after)s ORDER BY session COLLATE "C" '
    "LIMIT %(limit)s",
}
"""`PostgresStore.sessions`' query per state (only a latest turn is unfinished),
a page after a cursor (``''`` for the first page: ids are never empty), in
code point order (``COLLATE "C"``, the index's), not the database locale's."""

_LEASE: Final = (
    "INSERT INTO leases (session, holder, until) "
    "VALUES (%(session)s, %(holder)s, %(until)s) "
    "ON CONFLICT (session) DO UPDATE SET holder = excluded.holder, "
    "until = excluded.until "
    "WHERE leases.holder = excluded.holder OR leases.until <= %(now)s"
)
"""`PostgresStore.lease`: one upsert; a concurrent one waits for the first
to commit and checks its condition again, so one holder wins."""

_RENEW: Final = (
    "UPDATE leases SET until = %(until)s "
    "WHERE session = %(session)s AND holder = %(holder)s"
)
"""`PostgresStore.lease` renewing: the holder's own lease only."""

_LOAD_HISTORY: Final = (
    "SELECT ARRAY(SELECT body FROM messages WHERE session = %(session)s "
    "AND seq >= %(start)s ORDER BY seq) FROM sessions WHERE session = %(session)s"
)
"""`PostgresStore.load_history`: no row when there is no such session."""

_TURN: Final = (
    "SELECT t.body, t.history_len, t.consumed_at IS NOT NULL, "
    "t.completed_at IS NOT NULL, t.resume, t.principal, s.kinds, s.bodies "
    "FROM turns t LEFT JOIN LATERAL (SELECT array_agg(kind ORDER BY seq) AS kinds, "
    "array_agg(body ORDER BY seq) AS bodies FROM steps "
    "WHERE steps.session = t.session AND steps.turn_id = t.turn_id "
    "AND t.consumed_at IS NOT NULL AND t.completed_at IS NULL) s ON TRUE "
    "WHERE t.session = %(session)s "
)
_LOAD_TURN: Final[dict[bool, LiteralString]] = {
    True: _TURN + "ORDER BY t.turn_id DESC LIMIT 1",
    False: _TURN + "AND t.turn_id = %(turn_id)s",
}
"""`PostgresStore.load_turn`'s query, by whether it wants the latest turn.

Two texts, not one with an optional id: each gets the plan that fits it
(the latest turn is the first entry of the primary key backwards, a given
one is found by it), also when a prepared statement's generic plan is used.
"""

_COUNT: Final = "SELECT coalesce(max(seq) + 1, 0) FROM messages WHERE session = %s"
"""How many messages a session's history has: they are numbered from 0
without gaps, so the last number tells (found in the primary key, not by
counting them all)."""

_KNOWN: Final = 4096
"""Sessions whose message count a store remembers at most (then it forgets
them all, and reads each count again when it next writes)."""

_FREE: Final = (
    "base AS (SELECT coalesce(max(seq) + 1, 0) AS n FROM messages "
    "WHERE session = %(session)s::text), "
    "free AS (SELECT base.n >= %(start)s::bigint AND (%(new_id)s::bigint IS NULL "
    "OR NOT EXISTS (SELECT 1 FROM turns WHERE session = %(new_session)s::text "
    "AND turn_id >= %(new_id)s::bigint)) AS ok FROM base), "
)
"""How many messages the session has (``base.n``), and whether writing may go
on (``free.ok``): the messages sent start at or below it, and the turn to
keep, if any, has an id above every one its session has."""

_WRITES: Final = (
    "kept AS (INSERT INTO turns (session, turn_id, body, history_len, expires_at, "
    "created_at) SELECT %(new_session)s::text, %(new_id)s::bigint, %(new_body)s::text, "
    "%(new_len)s::bigint, %(new_expires)s::timestamptz, %(new_created)s::timestamptz "
    "FROM gate WHERE gate.ok AND %(new_id)s::bigint IS NOT NULL), "
    "touched AS (INSERT INTO sessions (session, updated_at) "
    "SELECT %(session)s::text, now() FROM gate WHERE gate.ok "
    "ON CONFLICT (session) DO UPDATE SET updated_at = excluded.updated_at), "
    "appended AS (INSERT INTO messages (session, seq, body) "
    "SELECT %(session)s::text, %(start)s::bigint + t.i - 1, t.body "
    "FROM gate, base, unnest(%(bodies)s::text[]) WITH ORDINALITY AS t(body, i) "
    "WHERE gate.ok AND %(start)s::bigint + t.i - 1 >= base.n), "
    "noted AS (INSERT INTO audit (session, turn_id, kind, body) "
    "SELECT t.session, t.turn_id, t.kind, t.body FROM gate, "
    "unnest(%(event_sessions)s::text[], %(event_turns)s::bigint[], "
    "%(event_kinds)s::text[], %(event_bodies)s::text[]) "
    "AS t(session, turn_id, kind, body) WHERE gate.ok) "
)
"""What `save` and `finish` write, each only if the CTE ``gate`` says ``ok``.

The turn to keep, the session's mark, the messages beyond those it has
(``base.n``) and the audit events. Data-modifying CTEs of one statement:
written together or not at all, so the statement needs no transaction of
its own; if a concurrent writer appended meanwhile, a primary key fails it
whole.
"""

_SAVE: Final = (
    "WITH "  # noqa: S608 - composed of constants only
    + _FREE
    + "gate AS (SELECT ok FROM free), "
    + _WRITES
    + "SELECT gate.ok, base.n FROM gate, base"
)
"""`PostgresStore.save`: write if `_FREE` allows; say whether it did, and
how many messages the session had."""

_FINISH: Final = (
    "WITH "  # noqa: S608 - composed of constants only
    + _FREE
    + "done AS (UPDATE turns SET completed_at = now(), "
    "consumed_at = CASE WHEN %(closing)s::boolean THEN now() ELSE consumed_at END, "
    "resume = CASE WHEN %(closing)s::boolean THEN %(resume)s::text ELSE resume END, "
    "principal = CASE WHEN %(closing)s::boolean THEN %(principal)s::text "
    "ELSE principal END "
    "FROM free WHERE free.ok AND session = %(session)s::text "
    "AND turn_id = %(turn_id)s::bigint AND (NOT %(closing)s::boolean OR "
    "((created_at = %(created_at)s::timestamptz OR created_at IS NULL) "
    "AND consumed_at IS NULL)) RETURNING 1), "
    "gate AS (SELECT free.ok AND (NOT %(closing)s::boolean "
    "OR EXISTS (SELECT 1 FROM done)) AS ok FROM free), "
    + _WRITES
    + "SELECT gate.ok, base.n, free.ok, NOT %(closing)s::boolean OR EXISTS "
    "(SELECT 1 FROM turns WHERE session = %(session)s::text "
    "AND turn_id = %(turn_id)s::bigint "
    "AND (created_at = %(created_at)s::timestamptz OR created_at IS NULL) "
    "AND consumed_at IS NULL) FROM gate, base, free"
)
"""`PostgresStore.finish`: one UPDATE completes the turn (and, closing, claims
it, as `consume` would: only if it is open) if `_FREE` allows; the writes
follow if it claimed it (closing) or if `_FREE` allows. Says whether it
wrote, how many messages the session had, whether `_FREE` allowed, and
whether the turn was open."""


def _utc(moment: datetime | None) -> datetime | None:
    # Like SqliteStore: a naive moment is local time.
    return moment.astimezone(UTC) if moment is not None else None


def _writes(
    session: str,
    history: Sequence[Message],
    start: int,
    new: InterruptedTurn | None,
    events: Sequence[AuditEvent],
) -> dict[str, object]:
    """The parameters of `_WRITES`: *history* from *start* on, *new*, *events*."""
    return {
        "session": session,
        "start": start,
        "bodies": [dumps(message) for message in history[start:]],
        "new_session": new.session if new is not None else None,
        "new_id": new.turn_id if new is not None else None,
        "new_body": stored_turn_json(new) if new is not None else None,
        "new_len": len(history),
        "new_expires": _utc(new.closes_at) if new is not None else None,
        "new_created": _utc(new.created_at) if new is not None else None,
        "event_sessions": [event.session for event in events],
        "event_turns": [event.turn_id for event in events],
        "event_kinds": [event.kind for event in events],
        "event_bodies": [dumps(event) for event in events],
    }


def _taken(turn: InterruptedTurn) -> TurnIdTaken:
    return TurnIdTaken(
        turn.session,
        turn.turn_id,
        f"session {turn.session!r} already has turn {turn.turn_id} or a "
        f"later one: expected a turn id above them, got {turn.turn_id}",
    )


_REJECTED: Final = (
    "SELECT count(*) FROM audit WHERE session = %s AND turn_id = %s "
    "AND kind = 'rejected'"
)
"""How many rejected attempts a turn's trail holds."""


@final
class PostgresStore:
    """A `Store` in a PostgreSQL database, shared by processes and machines.

    The store connects lazily: the first call connects and migrates the
    schema. Call `open` (or use ``async with``) to do it up front, so that a
    bad DSN fails at start-up. Any event loop may use the store, one after
    another or at once from several threads: the loop that opened it is
    served where it is, every other on one loop of the stores' own (see
    the module's docstring). A connection that failed is
    dropped, and the next call connects anew; connections idle for ten
    minutes beyond *min_size* are closed, and each is replaced after an
    hour (psycopg_pool's ``max_idle`` and ``max_lifetime``).

    Args:
        dsn: A libpq connection string or URI, like
            ``"postgresql://app@db.internal/app"``.
        schema: The PostgreSQL schema that holds the store's tables (created
            if missing); None for the connection's default ``search_path``
            (usually ``public``).
        min_size: Connections `open` makes ready up front (calls open more
            on demand, up to *max_size*), at least 0.
        max_size: Connections open at most by each of the store's two pools
            (the opening loop's, and the one every other loop shares);
            concurrent calls beyond it wait for a free one. At least 1.
        timeout: Seconds to wait for a free connection, and for the server
            to answer a connection attempt (libpq's ``connect_timeout``, at
            least 2) unless the DSN sets it.

    Raises:
        psycopg.ProgrammingError: if *dsn* is not a valid connection string.
        InvalidArgument: for a *min_size* or *max_size* out of range.

    Example:
        ```python
        async with PostgresStore("postgresql://app@db/app") as store:
            session = Session(store, model, tools)
        ```
    """

    def __init__(
        self,
        dsn: str,
        *,
        schema: str | None = None,
        min_size: int = 1,
        max_size: int = 10,
        timeout: float = 30.0,
    ) -> None:
        self.dsn = dsn
        self.schema = schema
        self._max_size = check_int("PostgresStore: max_size", max_size, 1)
        self._min_size = min(
            check_int("PostgresStore: min_size", min_size, 0), max_size
        )
        self._timeout = timeout
        self._migrated = False
        self._closed = False
        # How many messages sessions had when this store last read or wrote
        # them: never more than they have (none is ever deleted), so a write
        # sends the messages from there on, not all, and needs no count first.
        self._known: dict[str, int] = {}
        if "connect_timeout" not in conninfo_to_dict(dsn):
            dsn = make_conninfo(dsn, connect_timeout=max(2, round(timeout)))
        self._conninfo = dsn
        # The loop that opened the store, served where it is (`open`).
        self._local: asyncio.AbstractEventLoop | None = None
        # A pool per loop that serves calls: the stores' own, and the one
        # that opened the store (`_pooled`).
        self._pools: dict[asyncio.AbstractEventLoop, AsyncConnectionPool[_Connection]]
        self._pools = {}
        # Per such loop, the calls waiting for a connection now, and the
        # failure to open one that ends the wait, once there is one.
        self._waiting: dict[
            asyncio.AbstractEventLoop, dict[asyncio.Task[Any], Exception | None]
        ] = {}

    async def open(self) -> None:
        """Connect, bring the schema up to date, and ready *min_size* connections.

        Calling it again only tops the connections up to *min_size*: it holds
        that many at once, those idle included, and gives them back.

        The event loop that opens the store (not a blocking twin's, see
        `interruption.runtime.loop.run_sync`) is served where it is, by a pool of its
        own, while it lives: a service opens its store on the loop that
        serves it. Every other loop is served by the stores' own loop.

        Raises:
            StoreUnavailable: ``closed`` if the store was closed;
                ``schema_newer`` if the database's schema is newer than this
                library's; ``busy`` if no connection was free within *timeout*;
                ``unreachable`` if the server cannot be reached (within
                *timeout*, unless the DSN sets ``connect_timeout``).
        """
        loop = asyncio.get_running_loop()
        if (self._local is None or _HOME.gone(self._local)) and not blocking_loop(loop):
            if self._local is not None:  # its pool went with its loop
                self._pools.pop(self._local, None)
                self._waiting.pop(self._local, None)
            self._local = loop
        await self._open()

    @_at_home
    async def _open(self) -> None:
        async with self._connection():
            pass
        pool = await self._pooled()
        held = await asyncio.gather(
            *(self._take(pool) for _ in range(self._min_size)),
            return_exceptions=True,
        )
        for conn in held:
            if not isinstance(conn, BaseException):
                await pool.putconn(conn)
        failures = [conn for conn in held if isinstance(conn, BaseException)]
        if failures:
            raise failures[0]

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    @property
    def _where(self) -> str:
        return f"PostgresStore (schema {self.schema or 'public'!r})"

    async def _pooled(self) -> AsyncConnectionPool[_Connection]:
        """The store's pool of the running loop, opened when first needed.

        Raises:
            StoreUnavailable: ``closed`` if the store was closed.
        """
        if self._closed:
            raise StoreUnavailable(self._where, "closed", "the store was closed")
        loop = asyncio.get_running_loop()
        pool = self._pools.get(loop)
        if pool is None:  # first, or forked
            pool = _Pool(
                self._conninfo,
                connection_class=_reporting(functools.partial(self._refuse, loop)),
                kwargs={"autocommit": True},
                min_size=0,  # `open` readies min_size; the pool keeps what is open
                max_size=self._max_size,
                open=False,
                configure=self._set_up,
                name=self._where,
                timeout=self._timeout,
                reconnect_timeout=0,  # a failure is reported; the next call retries
            )
            self._pools[loop], self._waiting[loop] = pool, {}
            # Starts the pool's workers; with wait=False it never suspends,
            # so no other call sees the pool before it is open.
            await pool.open()
        return pool

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[_Connection]:
        pool = await self._pooled()
        conn = await self._take(pool)
        try:
            if not self._migrated:
                await self._migrate(conn)
                self._migrated = True
            yield conn
        except errors.OperationalError as error:
            raise self._unreachable(error) from error
        finally:
            await pool.putconn(conn)

    async def _take(self, pool: AsyncConnectionPool[_Connection]) -> _Connection:
        """A connection of *pool*, for the running task; give it back with putconn.

        Raises:
            StoreUnavailable: ``busy`` if none was free within *timeout*;
                ``closed`` if the store closed meanwhile; ``unreachable`` if
                opening one failed while this call waited.
            Exception: the failure to set a new connection up, if it was not
                the driver's connection error.
        """
        task = asyncio.current_task()
        if task is None:  # pragma: no cover - every call runs in a task
            msg = "a store call runs in a task"
            raise RuntimeError(msg)
        waiting = self._waiting[task.get_loop()]
        waiting[task] = None
        try:
            return await pool.getconn()
        except asyncio.CancelledError:
            failure = waiting[task]
            if failure is None:  # cancelled by the caller
                raise
            task.uncancel()
            if isinstance(failure, errors.OperationalError):
                raise self._unreachable(failure) from failure
            raise failure from None
        except PoolTimeout as error:
            msg = (
                f"no free connection within {self._timeout} s "
                f"(max_size={self._max_size})"
            )
            raise StoreUnavailable(self._where, "busy", msg) from error
        except PoolClosed as error:
            raise StoreUnavailable(
                self._where, "closed", "the store was closed"
            ) from error
        finally:
            del waiting[task]

    def _refuse(self, loop: asyncio.AbstractEventLoop, error: Exception) -> None:
        """Opening a connection failed: end the wait of the calls it was for.

        The call waiting longest fails, as the one that asked for the
        connection; every waiting call does if the pool holds no other
        connection (open or opening), as none would come.
        """
        pool = self._pools.get(loop)
        others = pool.get_stats()["pool_size"] - 1 if pool is not None else 0
        waiting = self._waiting.get(loop, {})
        for task, failure in waiting.items():
            if failure is None:
                waiting[task] = error
                task.cancel()
                if others > 0:
                    return

    def _unreachable(self, error: errors.OperationalError) -> StoreUnavailable:
        """The library's error for the driver's connection *error*."""
        # Connection refused or lost: what was in flight is unknown.
        msg = (
            f"the server cannot be reached or dropped the connection "
            f"({type(error).__name__}: {error}); a write in flight may or "
            f"may not have been committed"
        )
        return StoreUnavailable(self._where, "unreachable", msg)

    async def _set_up(self, conn: _Connection) -> None:
        """The pool's set-up of a new connection; a failure is reported."""
        try:
            await self._configure(conn)
        except Exception as error:
            await conn.close()  # the pool drops it unclosed
            self._refuse(asyncio.get_running_loop(), error)
            raise

    async def _configure(self, conn: _Connection) -> None:
        if self.schema is not None:
            await conn.execute(
                sql.SQL("SET search_path TO {}").format(sql.Identifier(self.schema))
            )

    async def _migrate(self, conn: _Connection) -> None:
        async with conn.transaction():
            await conn.execute(
                "SELECT pg_advisory_xact_lock(hashtext(%s))", (_MIGRATION_LOCK,)
            )
            if self.schema is not None:
                await conn.execute(
                    sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(
                        sql.Identifier(self.schema)
                    )
                )
            await conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"
            )
            cursor = await conn.execute("SELECT max(version) FROM schema_version")
            row = await cursor.fetchone()
            current = int(row[0] or 0) if row is not None else 0
            if current > SCHEMA_VERSION:
                msg = (
                    f"schema version {current} is newer than this library's "
                    f"{SCHEMA_VERSION}; upgrade interruption"
                )
                raise StoreUnavailable(self._where, "schema_newer", msg)
            for version in range(current + 1, SCHEMA_VERSION + 1):
                await conn.execute(_MIGRATIONS[version])
                await conn.execute(
                    "INSERT INTO schema_version (version) VALUES (%s)", (version,)
                )

    @_at_home
    async def schema_version(self) -> int:
        """Return the database's schema version.

        Returns:
            The highest migration applied.
        """
        async with self._connection() as conn:
            cursor = await conn.execute("SELECT max(version) FROM schema_version")
            row = await cursor.fetchone()
        return int(row[0]) if row is not None else 0

    def _remember(self, session: str, count: int) -> None:
        if len(self._known) >= _KNOWN:
            self._known.clear()
        self._known[session] = count

    async def _write(  # noqa: PLR0913 - a statement's parts
        self,
        conn: _Connection,
        statement: LiteralString,
        params: dict[str, object],
        *,
        history: Sequence[Message],
        new: InterruptedTurn | None,
        events: Sequence[AuditEvent],
    ) -> TupleRow | None:
        """Run `_SAVE` or `_FINISH`; None when a concurrent writer kept *new* first.

        The messages sent start where the session's count was last known, or
        read first when it is not. A session with fewer (a database restored
        from a backup) is written again from its count.
        """
        session = str(params["session"])
        start = self._known.get(session)
        if start is None:
            (row,) = await (await conn.execute(_COUNT, (session,))).fetchall()
            start = int(row[0])
        while True:
            try:
                cursor = await conn.execute(
                    statement,
                    _writes(session, history, start, new, events) | params,
                )
            except errors.UniqueViolation as error:
                if new is None or error.diag.table_name != "turns":
                    message = (
                        f"session {session!r}: another writer appended to its "
                        "history at the same time; nothing was written"
                    )
                    raise SessionInUse(session, message) from None
                return None
            (row,) = await cursor.fetchall()
            written, count = bool(row[0]), int(row[1])
            if count >= start:
                self._remember(session, max(count, len(history)) if written else count)
                return row
            start = count

    @_at_home
    async def load_history(
        self, session: str, start: int = 0
    ) -> tuple[Message, ...] | None:
        """Return *session*'s history from message *start* on.

        Args:
            session: The session id.
            start: The first message wanted (0 for all).

        Returns:
            The messages, or None if there is no such session.

        Raises:
            InvalidArgument: for an id or a start out of range.
        """
        check_id("load_history: session", session)
        check_int("load_history: start", start, 0)
        async with self._connection() as conn:
            cursor = await conn.execute(
                _LOAD_HISTORY, {"session": session, "start": start}
            )
            row = await cursor.fetchone()
        if row is None:
            self._remember(session, 0)
            return None
        messages = tuple(read_stored(str(body), Message) for body in row[0])
        if messages or not start:
            self._remember(session, start + len(messages))
        return messages

    @_at_home
    async def save(
        self,
        session: str,
        history: Sequence[Message],
        turn: InterruptedTurn | None = None,
        *,
        events: Sequence[AuditEvent] = (),
    ) -> None:
        """Append *history*'s new messages and keep *turn*, in one statement.

        It writes everything, or nothing when *turn*'s id is taken. (Before
        the first write of a session this store has not read, a count of
        its messages.)

        Args:
            session: The session id.
            history: The whole conversation; the new messages are appended.
            turn: A turn that paused at the end of *history*, or None.
            events: Audit events written in the same transaction.

        Raises:
            TurnIdTaken: if *turn*'s id is not above the session's latest.
            SessionInUse: if another writer appended to the history at once.
            InvalidArgument: for an id out of range.
        """
        check_id("save: session", session)
        check_events("save: events", events)
        if turn is not None:
            check_turn("save: turn", turn)
        async with self._connection() as conn:
            row = await self._write(
                conn,
                _SAVE,
                {"session": session},
                history=history,
                new=turn,
                events=events,
            )
        if turn is not None and (row is None or not row[0]):
            raise _taken(turn)

    @_at_home
    async def load_turn(
        self, session: str, turn_id: int | None = None
    ) -> StoredTurn | None:
        """Return one of *session*'s turns with its state.

        Args:
            session: The session id.
            turn_id: The turn; None for the latest.

        Returns:
            The turn, or None if there is none.

        Raises:
            InvalidArgument: for an id out of range.
        """
        check_id("load_turn: session", session)
        if turn_id is not None:
            check_int("load_turn: turn_id", turn_id, 1)
        async with self._connection() as conn:
            cursor = await conn.execute(
                _LOAD_TURN[turn_id is None], {"session": session, "turn_id": turn_id}
            )
            row = await cursor.fetchone()
        if row is None:
            return None
        body, history_len, consumed, completed, resume, principal, kinds, steps = row
        state: State = "completed" if completed else "consumed" if consumed else "open"
        return StoredTurn(
            turn_from_json(str(body)),
            int(history_len),
            state,
            read_stored(str(resume), Resume) if resume is not None else None,
            principal,
            tuple(
                read_stored(str(step), Message)
                if kind == "message"
                else read_stored(str(step), ToolResponse)
                for kind, step in zip(kinds or (), steps or (), strict=True)
            ),
        )

    @_at_home
    async def consume(
        self,
        turn: InterruptedTurn,
        resume: Resume,
        principal: str | None,
        *,
        events: Sequence[AuditEvent] = (),
    ) -> bool:
        """Claim *turn* for one resume: True for exactly one caller, anywhere.

        Args:
            turn: The turn to claim, as it was validated.
            resume: The resume that continues it, kept for recovery.
            principal: Who answered, or None.
            events: Audit events written with the claim, if it wins.

        Returns:
            True for the one caller that claimed the turn; False when the turn
            is not open (as validated).

        Raises:
            InvalidArgument: for an id out of range.
        """
        check_turn("consume: turn", turn)
        check_events("consume: events", events)
        check_principal("consume: principal", principal)
        async with self._connection() as conn:
            cursor = await conn.execute(
                "WITH claimed AS (UPDATE turns SET consumed_at = now(), resume = %s, "
                "principal = %s WHERE session = %s AND turn_id = %s "
                "AND (created_at = %s OR created_at IS NULL) AND consumed_at IS NULL "
                "RETURNING 1), "
                "noted AS (INSERT INTO audit (session, turn_id, kind, body) "
                "SELECT * FROM unnest(%s::text[], %s::bigint[], %s::text[], "
                "%s::text[]) WHERE EXISTS (SELECT 1 FROM claimed)) "
                "SELECT count(*) FROM claimed",
                (
                    dumps(resume),
                    principal,
                    turn.session,
                    turn.turn_id,
                    _utc(turn.created_at),
                    [event.session for event in events],
                    [event.turn_id for event in events],
                    [event.kind for event in events],
                    [dumps(event) for event in events],
                ),
            )
            row = await cursor.fetchone()
        return row is not None and row[0] == 1

    @_at_home
    async def record(self, session: str, turn_id: int, steps: Sequence[Step]) -> None:
        """Append steps taken while continuing a consumed turn, in one statement.

        Args:
            session: The session id.
            turn_id: The consumed turn.
            steps: Messages added to the history, and tool results, in order.

        Raises:
            InvalidArgument: for an id out of range.
        """
        check_id("record: session", session)
        check_int("record: turn_id", turn_id, 1)
        kinds = ["message" if isinstance(step, Message) else "result" for step in steps]
        async with self._connection() as conn:
            await conn.execute(
                "INSERT INTO steps (session, turn_id, seq, kind, body) "
                "SELECT %s, %s, base.n + t.i, t.kind, t.body "
                "FROM (SELECT coalesce(max(seq), 0) AS n FROM steps "
                "WHERE session = %s AND turn_id = %s) base, "
                "unnest(%s::text[], %s::text[]) WITH ORDINALITY AS t(kind, body, i)",
                (
                    session,
                    turn_id,
                    session,
                    turn_id,
                    kinds,
                    [dumps(step) for step in steps],
                ),
            )

    @_at_home
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

        Args:
            turn: The consumed turn whose continuation ended (or the open turn
                to close).
            history: The whole conversation now; new messages are appended.
            following: The turn it paused at next, or None.
            close: The answers that close an open turn (expired, cancelled).
            principal: Who closed it.
            events: Audit events written in the same transaction.

        Returns:
            False only with *close*, when the turn was not open.

        Raises:
            TurnIdTaken: if *following*'s id is not above the session's latest.
            SessionInUse: if another writer appended to the history at once.
            InvalidArgument: for an id out of range.
        """
        check_turn("finish: turn", turn)
        check_events("finish: events", events)
        if following is not None:
            check_turn("finish: following", following)
        check_principal("finish: principal", principal)
        async with self._connection() as conn:
            row = await self._write(
                conn,
                _FINISH,
                {
                    "session": turn.session,
                    "turn_id": turn.turn_id,
                    "created_at": _utc(turn.created_at),
                    "closing": close is not None,
                    "resume": dumps(close) if close is not None else None,
                    "principal": principal,
                },
                history=history,
                new=following,
                events=events,
            )
        # No row: a concurrent writer kept the following turn's id first.
        written, free, was_open = (
            (False, False, True) if row is None else (row[0], row[2], row[3])
        )
        if written:
            return True
        if following is None or free or not was_open:
            return False  # closing, the turn was not open
        raise _taken(following)

    @_at_home
    async def log(self, event: AuditEvent, sent: Resume | None = None) -> bool:
        """Append *event*; a rejected one only while its turn has room.

        Args:
            event: What happened.
            sent: The refused resume, digested only if the event is kept.

        Returns:
            Whether it was kept: a ``"rejected"`` event is not once its turn
            holds `MAX_REJECTED` of them (concurrent writers may overshoot
            by at most their number).

        Raises:
            InvalidArgument: for an id out of range.
        """
        check_events("log: event", (event,))
        async with self._connection() as conn:
            if sent is not None and event.kind == "rejected":
                counted = await conn.execute(_REJECTED, (event.session, event.turn_id))
                row = await counted.fetchone()
                if row is not None and int(row[0]) >= MAX_REJECTED:
                    return False  # full: no digest taken
            event = digested(event, sent)
            cursor = await conn.execute(
                "INSERT INTO audit (session, turn_id, kind, body) "
                "SELECT %s, %s, %s, %s WHERE %s <> 'rejected' OR "
                "(SELECT count(*) FROM audit WHERE session = %s AND turn_id = %s "
                "AND kind = 'rejected') < %s",
                (
                    event.session,
                    event.turn_id,
                    event.kind,
                    dumps(event),
                    event.kind,
                    event.session,
                    event.turn_id,
                    MAX_REJECTED,
                ),
            )
            return cursor.rowcount == 1

    @_at_home
    async def audit(self, session: str) -> tuple[AuditEvent, ...]:
        """Return *session*'s audit trail, oldest first.

        Args:
            session: The session id.

        Returns:
            Its events (empty for an unknown session).

        Raises:
            InvalidArgument: for an id out of range.
        """
        check_id("audit: session", session)
        async with self._connection() as conn:
            cursor = await conn.execute(
                "SELECT body FROM audit WHERE session = %s ORDER BY seq", (session,)
            )
            rows = await cursor.fetchall()
        return tuple(read_stored(str(body), AuditEvent) for (body,) in rows)

    @_at_home
    async def sessions(
        self,
        state: Listed,
        *,
        now: datetime | None = None,
        after: str | None = None,
        limit: int = MAX_PAGE,
    ) -> tuple[str, ...]:
        """Return up to *limit* sessions after *after* in *state*, sorted.

        Args:
            state: ``"open"``, ``"expired"`` or ``"consumed"``
                (`Store.sessions`).
            now: The moment expiry is judged at; the current time if None.
            after: The last id of the previous page, or None.
            limit: The most ids returned, 1 to `MAX_PAGE`.

        Returns:
            Their ids.

        Raises:
            InvalidArgument: for another state, a bad cursor or limit.
        """
        page = Page.of(state, now, after, limit)
        async with self._connection() as conn:
            cursor = await conn.execute(
                _UNFINISHED[page.state],
                {"now": page.now, "after": page.after or "", "limit": page.limit},
            )
            rows = await cursor.fetchall()
        return tuple(str(session) for (session,) in rows)

    @_at_home
    async def lease(
        self,
        session: str,
        holder: str,
        now: datetime,
        until: datetime,
        *,
        renew: bool = False,
    ) -> bool:
        """Hold *session*'s lease for *holder* until *until*, across machines.

        Args:
            session: The session id.
            holder: Who holds it (one call's own id).
            now: A lease that ended at or before it is over.
            until: When this holder's lease ends, unless renewed.
            renew: Only extend *holder*'s own lease.

        Returns:
            Whether *holder* holds it now.

        Raises:
            InvalidArgument: for an id out of range.
        """
        check_id("lease: session", session)
        check_id("lease: holder", holder)
        async with self._connection() as conn:
            cursor = await conn.execute(
                _RENEW if renew else _LEASE,
                {
                    "session": session,
                    "holder": holder,
                    "now": _utc(now),
                    "until": _utc(until),
                },
            )
            return cursor.rowcount == 1

    @_at_home
    async def release(self, session: str, holder: str) -> None:
        """End *holder*'s lease on *session*, if it holds it.

        Args:
            session: The session id.
            holder: Who held it.

        Raises:
            InvalidArgument: for an id out of range.
        """
        check_id("release: session", session)
        check_id("release: holder", holder)
        async with self._connection() as conn:
            await conn.execute(
                "DELETE FROM leases WHERE session = %s AND holder = %s",
                (session, holder),
            )

    @_at_home
    async def spend(self, key: str, keep_until: datetime | None) -> bool:
        """Spend *key* once.

        Args:
            key: What is spent (a sealed turn's session and turn id).
            keep_until: Keep the mark at least until then; None for ever.

        Returns:
            True the first time *key* is spent, False ever after.

        Raises:
            InvalidArgument: for a key out of range.
        """
        return await self.spend_all((key,), keep_until)

    @_at_home
    async def spend_all(
        self,
        keys: Sequence[str],
        keep_until: datetime | None,
        events: Sequence[AuditEvent] = (),
    ) -> bool:
        """Spend every one of *keys*, or none if any was spent; note *events*.

        Args:
            keys: What is spent (an adapter's interrupts); repeats count once.
            keep_until: Keep the marks at least until then; None for ever.
            events: Audit events, written in the same transaction.

        Returns:
            True if none was spent before, else False (nothing written).
        """
        distinct = check_keys("spend_all: keys", keys)
        check_events("spend_all: events", events)
        async with self._connection() as conn, conn.transaction() as transaction:
            cursor = await conn.execute(
                "INSERT INTO spent (key, keep_until) "
                "SELECT unnest(%s::text[]), %s ON CONFLICT (key) DO NOTHING",
                (distinct, _utc(keep_until)),
            )
            if cursor.rowcount != len(distinct):
                raise Rollback(transaction)  # caught by the block: False below
            for event in events:
                await conn.execute(
                    "INSERT INTO audit (session, turn_id, kind, body) "
                    "VALUES (%s, %s, %s, %s)",
                    (event.session, event.turn_id, event.kind, dumps(event)),
                )
            return True
        return False

    @_at_home
    async def spent(self, keys: Sequence[str]) -> frozenset[str]:
        """Return those of *keys* already spent.

        Args:
            keys: The keys to look up.

        Returns:
            The spent ones.

        Raises:
            InvalidArgument: for a key out of range (`check_keys`).
        """
        keys = check_keys("spent: keys", keys)
        async with self._connection() as conn:
            cursor = await conn.execute(
                "SELECT key FROM spent WHERE key = ANY(%s::text[])", (list(keys),)
            )
            rows = await cursor.fetchall()
        return frozenset(str(key) for (key,) in rows)

    @_at_home
    async def keep(self, key: str, record: bytes, keep_until: datetime | None) -> None:
        """Keep *record* under *key*, once, whichever machine asks.

        One ``INSERT ... ON CONFLICT DO NOTHING``: of concurrent calls under
        one key, PostgreSQL lets the first insert win and the others insert
        nothing.

        Args:
            key: A fresh key (`check_key`).
            record: Opaque bytes, at most `MAX_RECORD_BYTES`.
            keep_until: Keep it at least until then; None for ever.

        Raises:
            InvalidArgument: for a bad key or record, or a key already kept.
        """
        check_key("keep: key", key)
        check_record("keep: record", record)
        async with self._connection() as conn:
            cursor = await conn.execute(
                "INSERT INTO kept (key, record, keep_until) VALUES (%s, %s, %s) "
                "ON CONFLICT (key) DO NOTHING",
                (key, record, _utc(keep_until)),
            )
        if cursor.rowcount != 1:
            raise taken(key)

    @_at_home
    async def kept(self, key: str) -> bytes | None:
        """Return the record kept under *key*.

        Args:
            key: The key it was kept under.

        Returns:
            The record, or None if none is kept under *key*.

        Raises:
            InvalidArgument: for a key out of range (`check_key`).
        """
        check_key("kept: key", key)
        async with self._connection() as conn:
            cursor = await conn.execute(
                "SELECT record FROM kept WHERE key = %s", (key,)
            )
            row = await cursor.fetchone()
        return bytes(row[0]) if row is not None else None

    @_at_home
    async def expire(self, now: datetime) -> int:
        """Forget spent marks and kept records kept until before *now*.

        Args:
            now: The moment to compare with (a naive one is local time).

        Returns:
            How many marks and records were forgotten.
        """
        async with self._connection() as conn:
            cursor = await conn.execute(
                "WITH marks AS (DELETE FROM spent WHERE keep_until IS NOT NULL "
                "AND keep_until <= %(now)s RETURNING 1), "
                "records AS (DELETE FROM kept WHERE keep_until IS NOT NULL "
                "AND keep_until <= %(now)s RETURNING 1) "
                "SELECT (SELECT count(*) FROM marks) + (SELECT count(*) FROM records)",
                {"now": _utc(now)},
            )
            row = await cursor.fetchone()
        return int(row[0]) if row is not None else 0

    async def close(self) -> None:
        """Close the store's connections; it cannot be used afterwards.

        Calls waiting for a connection fail (`StoreUnavailable`, ``closed``);
        connections in use close when their call ends. Closing again does
        nothing. (A pool whose loop is gone, with an `asyncio.run` that
        opened the store, went with it: its connections close when it is
        collected.)
        """
        self._closed = True
        pools, self._pools = self._pools, {}
        here = asyncio.get_running_loop()
        for loop, pool in pools.items():
            if loop is here:
                await pool.close()
            elif not _HOME.gone(loop) and loop.is_running():
                done = asyncio.run_coroutine_threadsafe(pool.close(), loop)
                await asyncio.wrap_future(done)
