"""Time pause → resume cycles through `Session`, against raw floors and LangGraph.

Run with ``make bench`` (it installs the ``bench`` dependency group, which
brings LangGraph), or ``python benchmarks/store.py [--profile]``. Every number
comes from this run, on this machine; each is the best of several interleaved
repeats, so the ratios travel and the absolute milliseconds do not.

One *cycle* is what a human-in-the-loop request costs from start to finish:

* ``Session`` — a fresh session sends a message; a scripted model asks for a
  trivial tool; the approver awaits a human, so the turn pauses and is saved;
  then `Session.resume` approves it: load, validate, consume (the one-winner
  compare-and-set), continue (the tool runs, its result is recorded, the
  model answers), save the history, mark the turn complete. In `MemoryStore`,
  `SqliteStore` (a temporary file, WAL) and `PostgresStore` (a throw-away
  server on 127.0.0.1 that this script starts and stops; skipped with
  ``INTERRUPTION_SKIP_POSTGRES=1``, as the tests are), each with one
  caller and with 16 concurrent callers (asyncio tasks on distinct sessions).
* *raw floor* — the same logical work with the raw driver at the same
  durability: take the session's lease (one send at a time), read the
  session's latest turn (a send runs only when none is open or consumed)
  and its history, append the history and insert the turn, with its
  "paused" audit event, release the lease; read the turn back and parse it
  (a resume is validated against the stored turn, never against what the
  client sent), consume it (compare-and-set), with its "accepted" event;
  record the tool's result; append the rest of the history and complete
  the turn — four commits and two lease writes (sqlite3 with WAL and
  ``synchronous=FULL``, the lease without a sync of its own as the store
  writes it; psycopg; for memory, dict and list operations). Same bytes as
  the store writes, encoded once before timing: the floor pays for no
  encoding, only for parsing the one turn it reads (with orjson when it
  is installed, as the store).
* *LangGraph* — the peer a user would pick instead: a one-node graph whose
  node calls ``interrupt(...)`` and then runs the same trivial tool;
  ``invoke`` pauses it and ``invoke(Command(resume={id: "Yes"}))`` finishes it,
  on a new thread id each cycle, with ``InMemorySaver`` and with
  ``SqliteSaver`` (given the same WAL and ``synchronous=FULL`` pragmas as
  `SqliteStore`, so that neither pays for durability the other skips).

Before timing, every setup must really pause, finish, and run the tool
exactly once per cycle. After the tables: each store's time per method in a
cycle (the rest is the session, the loop and validation), and a cProfile of
each store when a target is missed or ``--profile`` is given.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import io
import itertools
import os
import pstats
import resource
import sqlite3
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from contextlib import ExitStack, closing
from pathlib import Path
from typing import Any, Final, TypedDict, TypeVar, cast

import attrs
from interruption import (
    JSON,
    ApprovalPending,
    Message,
    ModelRequest,
    Resume,
    Role,
    Session,
    ToolContext,
    ToolRequest,
    tool,
)
from interruption.runtime.approval import await_human
from interruption.runtime.store import MemoryStore, SqliteStore, Store
from interruption.testing import ScriptedModel

from _common import best_us, machine_load, table

try:
    import orjson

    parse: Callable[[str], Any] = orjson.loads
    """Parse JSON as the store does: orjson when it is installed."""
except ImportError:  # pragma: no cover - orjson is the store's own parser
    import json

    parse = json.loads

T = TypeVar("T")

CALLERS: Final = 16
"""Concurrent callers in the concurrent setups, each on its own sessions."""

UNIT: Final = 32
"""Cycles per timed call: one caller does them in a row, or 16 do 2 each."""

REPEATS: Final = 12
"""Interleaved repeats of every setup; the best one is reported."""

STORE_BUDGET: Final = 2.0
"""The issue's target: a cycle within this factor of its store's raw floor
(for the durable stores: MemoryStore's floor is three dict operations, so
its ratio is shown, not judged)."""

PEER_FACTOR: Final = 3.0
"""The issue's target: Session + SqliteStore this many times LangGraph's speed."""

# --- the world: a trivial tool behind a human, and a stateless model ----------


@attrs.define
class Runs:
    """How often each side's trivial tool ran.

    Attributes:
        session: Runs of the `Session` tool.
        langgraph: Runs of the LangGraph node's work after its interrupt.
    """

    session: int = 0
    langgraph: int = 0


RUNS: Final = Runs()


@tool(input={"type": "object"}, output={"type": "integer"})
def bump(_ctx: ToolContext[JSON], _data: JSON) -> JSON:
    """Count one run: the trivial tool."""
    RUNS.session += 1
    return RUNS.session


TOOLS: Final = (bump,)
APPROVER: Final = await_human()
CALL: Final = ToolRequest("bump", input={"order": "A-10023"})
DONE: Final = Message.of_text(Role.MODEL, "done")


def agent(request: ModelRequest) -> Message:
    """Ask for the tool after the user speaks; answer once it has run."""
    if request.messages[-1].role is Role.USER:
        return Message(Role.MODEL, (CALL,))
    return DONE


def _session(store: Store) -> Session:
    return Session(store, ScriptedModel(agent), TOOLS, approver=APPROVER)


async def session_cycle(store: Store) -> None:
    """Send, pause on the approval, resume with a yes, finish."""
    session = _session(store)
    paused = await session.send("refund A-10023")
    assert paused.turn is not None
    answers = Resume(restart=[pending.approve() for pending in paused.interrupts])
    await session.resume(answers, turn_id=paused.turn.turn_id)


async def check_session(store: Store) -> None:
    """Assert that a cycle pauses before the tool, then runs it once and finishes.

    Raises:
        AssertionError: if it does not.
    """
    session = _session(store)
    before = RUNS.session
    paused = await session.send("refund A-10023")
    assert paused.finish_reason == "interrupted", paused.finish_reason
    assert paused.turn is not None
    assert RUNS.session == before, "the tool ran before the human approved it"
    (pending,) = paused.interrupts
    assert isinstance(pending.kind, ApprovalPending)
    saved = await store.load_turn(session.id)
    assert saved is not None, "the store did not keep the pause"
    assert saved.turn.turn_id == paused.turn.turn_id, "the store kept another turn"
    done = await session.resume(Resume(restart=[pending.approve()]), turn_id=1)
    assert done.finish_reason == "stop", done.finish_reason
    assert done.message == DONE
    assert RUNS.session == before + 1, "the tool did not run exactly once"
    settled = await store.load_turn(session.id, 1)
    assert settled is not None, "the turn is gone"
    assert settled.state == "completed", "the turn was not consumed and finished"
    assert not await session.pending()
    history = await store.load_history(session.id)
    assert history == done.messages, "the store did not keep the history"


# --- raw floors: one INSERT and one compare-and-set UPDATE ----------------------


@attrs.frozen
class Bodies:
    """What a store writes for one cycle's pause and its consume.

    Attributes:
        turn: The saved turn, as the store encodes it.
        resume: The kept resume, as the store encodes it.
        before: The history up to the pause, a message each.
        result: The tool's result, as recorded.
        after: The messages the continuation added.
        paused: The audit event written with the pause.
        accepted: The audit event written with the consume.
    """

    turn: str
    resume: str
    before: tuple[str, ...]
    result: str
    after: tuple[str, ...]
    paused: str
    accepted: str


async def bodies() -> Bodies:
    """Run one cycle in memory and encode what a store would write."""
    from interruption import dumps
    from interruption.runtime.store._base import stored_turn_json

    session = _session(MemoryStore())
    paused = await session.send("refund A-10023")
    assert paused.turn is not None
    resume = Resume(restart=[pending.approve() for pending in paused.interrupts])
    done = await session.resume(resume, turn_id=paused.turn.turn_id)
    before = paused.messages
    after = done.messages[len(before) :]
    (result,) = after[0].tool_responses
    events = await session.audit()
    assert [event.kind for event in events] == ["paused", "accepted"]
    return Bodies(
        stored_turn_json(paused.turn),
        dumps(resume),
        tuple(dumps(message) for message in before),
        dumps(result),
        tuple(dumps(message) for message in after),
        dumps(events[0]),
        dumps(events[1]),
    )


_IDS: Final = itertools.count()


def _fresh_id() -> str:
    return f"s-{next(_IDS)}"


class MemoryFloor:
    """The same logical work in dicts: append, insert, compare-and-set, record."""

    def __init__(self, body: Bodies) -> None:
        self.body = body
        self.history: dict[str, list[str]] = {}
        self.rows: dict[tuple[str, int], list[str | None]] = {}
        self.steps: dict[tuple[str, int], list[str]] = {}

    async def cycle(self, _caller: int) -> None:
        """Pause (history + turn), consume, record the result, finish."""
        key = (_fresh_id(), 1)
        assert key not in self.rows, "a send runs on a session with no open turn"
        assert self.history.get(key[0]) is None
        self.history[key[0]] = list(self.body.before)
        self.rows[key] = [self.body.turn, None, None]
        row = self.rows[key]  # the stored turn, as kept
        assert row[1] is None
        row[1] = self.body.resume
        self.steps.setdefault(key, []).append(self.body.result)
        self.history[key[0]].extend(self.body.after)
        row[2] = "done"


_FLOOR_TABLES: Final = (
    (
        "CREATE TABLE floor_messages (session TEXT NOT NULL, seq INTEGER NOT NULL, "
        "body TEXT NOT NULL, PRIMARY KEY (session, seq))"
    ),
    (
        "CREATE TABLE floor (session TEXT NOT NULL, turn_id INTEGER NOT NULL, "
        "body TEXT NOT NULL, consumed_at TEXT, resume TEXT, completed_at TEXT, "
        "PRIMARY KEY (session, turn_id))"
    ),
    (
        "CREATE TABLE floor_steps (session TEXT NOT NULL, turn_id INTEGER NOT NULL, "
        "seq INTEGER NOT NULL, body TEXT NOT NULL, "
        "PRIMARY KEY (session, turn_id, seq))"
    ),
    (
        "CREATE TABLE floor_audit (session TEXT NOT NULL, turn_id INTEGER NOT NULL, "
        "kind TEXT NOT NULL, body TEXT NOT NULL)"
    ),
    (
        "CREATE TABLE floor_leases (session TEXT PRIMARY KEY, holder TEXT NOT NULL, "
        "until TEXT NOT NULL)"
    ),
)
_LEASE: Final = (
    "INSERT INTO floor_leases (session, holder, until) VALUES ({0}, {0}, {0}) "
    "ON CONFLICT (session) DO UPDATE SET holder = excluded.holder, "
    "until = excluded.until WHERE floor_leases.until <= excluded.until"
)
"""One send's lease on its session: the upsert a store makes (sends are
serialized per session), released by a delete when the send ends."""
_RELEASE: Final = "DELETE FROM floor_leases WHERE session = {0} AND holder = {0}"
_LATEST: Final = (
    "SELECT consumed_at, completed_at FROM floor WHERE session = {0} "
    "ORDER BY turn_id DESC LIMIT 1"
)
"""What a send reads first: its session's latest turn, if any (a send runs
only when none is open or consumed)."""
_HISTORY: Final = (
    "SELECT seq, body FROM floor_messages WHERE session = {0} ORDER BY seq"
)
"""The history a send continues."""
_TURN: Final = "SELECT body, consumed_at FROM floor WHERE session = {0} AND turn_id = 1"
"""What a resume reads first: the stored turn it is validated against."""
_NOW: Final = "2026-01-01T00:00:00.000000+00:00"


class SqliteFloor:
    """sqlite3 as `SqliteStore` opens it (WAL, synchronous=FULL): four commits.

    The same logical work as a cycle: take the session's lease (one send
    at a time), read the session's latest turn and its history, append the
    history and insert the turn (with its "paused" audit event), release
    the lease; read the turn back and parse it, consume it (compare-and-set,
    with its "accepted" event); record the tool's result; append the rest
    of the history and complete the turn. The lease is written as
    `SqliteStore` writes it: one statement, without a sync of its own
    (``synchronous=NORMAL``).
    """

    def __init__(self, path: Path, body: Bodies) -> None:
        self.path = path
        self.body = body
        self.db = sqlite3.connect(
            path, isolation_level=None, check_same_thread=False, timeout=30
        )
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        for statement in _FLOOR_TABLES:
            self.db.execute(statement)

    async def cycle(self, _caller: int) -> None:
        """Four write transactions and a lease, as a session's cycle makes."""
        session, db, body = _fresh_id(), self.db, self.body
        self._lease(_LEASE.format("?"), (session, session, _NOW))
        assert db.execute(_LATEST.format("?"), (session,)).fetchone() is None
        assert not db.execute(_HISTORY.format("?"), (session,)).fetchall()
        db.execute("BEGIN IMMEDIATE")
        db.executemany(
            "INSERT INTO floor_messages VALUES (?, ?, ?)",
            [(session, seq, text) for seq, text in enumerate(body.before)],
        )
        db.execute(
            "INSERT INTO floor (session, turn_id, body) VALUES (?, ?, ?)",
            (session, 1, body.turn),
        )
        db.execute(
            "INSERT INTO floor_audit VALUES (?, 1, 'paused', ?)",
            (session, body.paused),
        )
        db.execute("COMMIT")
        self._lease(_RELEASE.format("?"), (session, session))
        (stored, consumed) = db.execute(_TURN.format("?"), (session,)).fetchone()
        assert consumed is None
        assert parse(stored)["turn_id"] == 1
        db.execute("BEGIN IMMEDIATE")
        cursor = db.execute(
            "UPDATE floor SET consumed_at = ?, resume = ? "
            "WHERE session = ? AND turn_id = ? AND consumed_at IS NULL",
            (_NOW, body.resume, session, 1),
        )
        db.execute(
            "INSERT INTO floor_audit VALUES (?, 1, 'accepted', ?)",
            (session, body.accepted),
        )
        db.execute("COMMIT")
        assert cursor.rowcount == 1
        db.execute("BEGIN IMMEDIATE")
        db.execute(
            "INSERT INTO floor_steps VALUES (?, 1, 1, ?)", (session, body.result)
        )
        db.execute("COMMIT")
        db.execute("BEGIN IMMEDIATE")
        db.executemany(
            "INSERT INTO floor_messages VALUES (?, ?, ?)",
            [
                (session, seq, text)
                for seq, text in enumerate(body.after, start=len(body.before))
            ],
        )
        db.execute(
            "UPDATE floor SET completed_at = ? WHERE session = ? AND turn_id = 1",
            (_NOW, session),
        )
        db.execute("COMMIT")

    def _lease(self, statement: str, values: tuple[str, ...]) -> None:
        """One lease write: one statement, committed without a sync of its own."""
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute(statement, values)
        self.db.execute("PRAGMA synchronous=FULL")

    def close(self) -> None:
        """Close the connection."""
        self.db.close()


class PostgresFloor:
    """psycopg, one connection per caller: the same writes as SqliteFloor."""

    def __init__(self, connections: Sequence[Any], body: Bodies) -> None:
        self.connections = connections
        self.body = body

    @classmethod
    async def open(cls, dsn: str, body: Bodies) -> PostgresFloor:
        """Connect *CALLERS* times and create the floor's tables."""
        from psycopg import AsyncConnection

        connections = [
            await AsyncConnection.connect(dsn, autocommit=True) for _ in range(CALLERS)
        ]
        for statement in _FLOOR_TABLES:
            await connections[0].execute(statement.replace("INTEGER", "BIGINT"))
        return cls(connections, body)

    async def cycle(self, caller: int) -> None:
        """Lease, read, pause, release, read, consume, record, finish.

        Six transactions (the reads are autocommit statements of their own).
        """
        session, conn, body = _fresh_id(), self.connections[caller], self.body
        await conn.execute(_LEASE.format("%s"), (session, session, _NOW))
        latest = await conn.execute(_LATEST.format("%s"), (session,))
        assert await latest.fetchone() is None
        history = await conn.execute(_HISTORY.format("%s"), (session,))
        assert not await history.fetchall()
        async with conn.transaction():
            await conn.execute(
                "INSERT INTO floor_messages SELECT %s, t.seq, t.body "
                "FROM unnest(%s::bigint[], %s::text[]) AS t(seq, body)",
                (session, list(range(len(body.before))), list(body.before)),
            )
            await conn.execute(
                "INSERT INTO floor (session, turn_id, body) VALUES (%s, %s, %s)",
                (session, 1, body.turn),
            )
            await conn.execute(
                "INSERT INTO floor_audit VALUES (%s, 1, 'paused', %s)",
                (session, body.paused),
            )
        await conn.execute(_RELEASE.format("%s"), (session, session))
        turn = await (await conn.execute(_TURN.format("%s"), (session,))).fetchone()
        assert turn is not None
        assert turn[1] is None
        assert parse(turn[0])["turn_id"] == 1
        cursor = await conn.execute(
            "WITH claimed AS (UPDATE floor SET consumed_at = now(), resume = %s "
            "WHERE session = %s AND turn_id = %s AND consumed_at IS NULL "
            "RETURNING 1) INSERT INTO floor_audit "
            "SELECT %s, 1, 'accepted', %s WHERE EXISTS (SELECT 1 FROM claimed)",
            (body.resume, session, 1, session, body.accepted),
        )
        assert cursor.rowcount == 1
        await conn.execute(
            "INSERT INTO floor_steps VALUES (%s, 1, 1, %s)", (session, body.result)
        )
        async with conn.transaction():
            start = len(body.before)
            await conn.execute(
                "INSERT INTO floor_messages SELECT %s, t.seq, t.body "
                "FROM unnest(%s::bigint[], %s::text[]) AS t(seq, body)",
                (
                    session,
                    list(range(start, start + len(body.after))),
                    list(body.after),
                ),
            )
            await conn.execute(
                "UPDATE floor SET completed_at = now() "
                "WHERE session = %s AND turn_id = 1",
                (session,),
            )

    async def close(self) -> None:
        """Close the connections."""
        for conn in self.connections:
            await conn.close()


# --- the peer: LangGraph ----------------------------------------------------------


class State(TypedDict):
    """The one-node graph's state."""

    question: str
    answer: str


def _ask(state: State) -> dict[str, str]:
    from langgraph.types import interrupt

    answer = interrupt({"question": state["question"]})
    RUNS.langgraph += 1
    return {"answer": str(answer)}


def graph(checkpointer: object) -> Any:  # noqa: ANN401 - a compiled LangGraph graph
    """Build the one-node graph: ask, then run the trivial tool."""
    from langgraph.graph import END, START, StateGraph

    builder = StateGraph(State)
    builder.add_node("ask", _ask)
    builder.add_edge(START, "ask")
    builder.add_edge("ask", END)
    return builder.compile(checkpointer=cast("Any", checkpointer))


def langgraph_cycle(compiled: Any) -> dict[str, Any]:  # noqa: ANN401 - LangGraph's
    """Pause on a new thread, resume it with a yes; return both results."""
    from langgraph.types import Command

    config: Any = {"configurable": {"thread_id": _fresh_id()}}
    paused = compiled.invoke({"question": "refund A-10023", "answer": ""}, config)
    (pending,) = paused["__interrupt__"]
    done = compiled.invoke(Command(resume={pending.id: "Yes"}), config)
    return {"paused": paused, "done": done}


def check_langgraph(compiled: Any) -> None:  # noqa: ANN401 - LangGraph's
    """Assert that a cycle pauses before the tool, then runs it once and finishes.

    Raises:
        AssertionError: if it does not.
    """
    before = RUNS.langgraph
    seen = langgraph_cycle(compiled)
    (pending,) = seen["paused"]["__interrupt__"]
    assert pending.value == {"question": "refund A-10023"}
    assert seen["done"] == {"question": "refund A-10023", "answer": "Yes"}
    assert RUNS.langgraph == before + 1, "the node's work did not run exactly once"


def sqlite_saver(path: Path) -> Any:  # noqa: ANN401 - LangGraph's SqliteSaver
    """A `SqliteSaver` on *path*, with `SqliteStore`'s pragmas."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(path, check_same_thread=False)
    saver = SqliteSaver(conn)
    saver.setup()  # WAL
    conn.execute("PRAGMA synchronous=FULL")
    return saver


# --- timing ------------------------------------------------------------------------

Cycle = Callable[[int], Awaitable[None]]
"""One cycle, given its caller's index (0 when alone)."""


async def _serial(cycle: Cycle, caller: int, count: int) -> None:
    for _ in range(count):
        await cycle(caller)


async def unit(cycle: Cycle, callers: int) -> None:
    """Run *UNIT* cycles: in a row, or spread over *callers* concurrent tasks."""
    if callers == 1:
        await _serial(cycle, 0, UNIT)
        return
    each = UNIT // callers
    await asyncio.gather(*(_serial(cycle, caller, each) for caller in range(callers)))


@attrs.frozen
class Setup:
    """One timed configuration.

    Attributes:
        name: How the table names it.
        callers: Concurrent callers.
        run: Runs *UNIT* cycles.
    """

    name: str
    callers: int
    run: Callable[[], object]


@attrs.frozen
class Timing:
    """A setup's best time.

    Attributes:
        name: The setup's name.
        callers: Concurrent callers.
        ms: Milliseconds per cycle (wall time over all callers' cycles).
    """

    name: str
    callers: int
    ms: float

    @property
    def per_second(self) -> float:
        """Cycles per second."""
        return 1000 / self.ms


def time_all(setups: Sequence[Setup], repeats: int) -> list[Timing]:
    """Time every setup, interleaved; best of *repeats*."""
    best = best_us(*(setup.run for setup in setups), repeats=repeats, target=0.03)
    return [
        Timing(setup.name, setup.callers, us / UNIT / 1000)
        for setup, us in zip(setups, best, strict=True)
    ]


# --- where the time goes --------------------------------------------------------------


class TimedStore:
    """Wraps a store; adds up the wall time and the calls of each method."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)

    def __getattr__(self, name: str) -> Callable[..., Awaitable[Any]]:
        method = getattr(self.store, name)

        async def timed(*args: Any, **kwargs: Any) -> Any:  # noqa: ANN401
            start = time.perf_counter()
            try:
                return await method(*args, **kwargs)
            finally:
                self.seconds[name] += time.perf_counter() - start
                self.calls[name] += 1

        return timed


async def breakdown(store: Store, cycles: int, passes: int = 3) -> Breakdown:
    """Run *cycles* cycles through a `TimedStore`, *passes* times; keep the fastest."""
    best: Breakdown | None = None
    for _ in range(passes):
        timed = TimedStore(store)
        start = time.perf_counter()
        for _ in range(cycles):
            await session_cycle(cast("Store", timed))
        ms = (time.perf_counter() - start) * 1000 / cycles
        if best is None or ms < best.ms:
            best = Breakdown(ms, timed)
    assert best is not None
    return best


@attrs.frozen
class Breakdown:
    """One store's time per method in a run of cycles.

    Attributes:
        ms: Milliseconds per whole cycle.
        timed: The calls and seconds of each store method.
    """

    ms: float
    timed: TimedStore


def breakdown_table(rows: dict[str, Breakdown], cycles: int) -> str:
    """Format each store's time per method, in µs per cycle."""
    calls = next(iter(rows.values())).timed.calls
    header = ["µs per cycle", *rows]
    cells = [
        [
            f"{method} (x{calls[method] / cycles:g})",
            *(
                f"{row.timed.seconds[method] * 1e6 / cycles:.0f}"
                for row in rows.values()
            ),
        ]
        for method in sorted(calls)
    ]
    in_store = [sum(row.timed.seconds.values()) * 1e6 / cycles for row in rows.values()]
    cells += [
        ["all store calls", *(f"{us:.0f}" for us in in_store)],
        [
            "the rest (session, loop, validation)",
            *(
                f"{row.ms * 1000 - us:.0f}"
                for row, us in zip(rows.values(), in_store, strict=True)
            ),
        ],
        ["whole cycle", *(f"{row.ms * 1000:.0f}" for row in rows.values())],
    ]
    return table(header, cells)


def profile(loop: asyncio.AbstractEventLoop, store: Store, cycles: int) -> str:
    """Profile *cycles* cycles in *store*; return the top functions."""
    profiler = cProfile.Profile()

    async def run() -> None:
        for _ in range(cycles):
            await session_cycle(store)

    profiler.enable()
    loop.run_until_complete(run())
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(14)
    stats.sort_stats("cumulative").print_stats(r"interruption/(session|store|wire)", 14)
    return "\n".join(line for line in out.getvalue().splitlines() if line.strip())


# --- the setups ---------------------------------------------------------------


@attrs.define
class World:
    """Everything this run times, opened.

    Attributes:
        loop: The event loop every async setup runs on.
        stores: The stores, by class name.
        floors: Each store's raw floor, by the store's class name.
        peers: The compiled LangGraph graphs, by setup name.
        notes: What to say about how they were set up.
        sqlite: The `SqliteStore`, and its floor (for what they write).
    """

    loop: asyncio.AbstractEventLoop
    stores: dict[str, Store] = attrs.Factory(dict)
    floors: dict[str, Cycle] = attrs.Factory(dict)
    peers: dict[str, Any] = attrs.Factory(dict)
    notes: list[str] = attrs.Factory(list)
    sqlite: tuple[SqliteStore, SqliteFloor] | None = None

    def run(self, work: Awaitable[T]) -> T:
        """Run *work* on the loop."""
        return self.loop.run_until_complete(work)

    def closing(
        self, stack: ExitStack, closer: Callable[[], Awaitable[object]]
    ) -> None:
        """Run *closer* on the loop when *stack* unwinds."""
        stack.callback(lambda: self.run(closer()))


def _open_postgres(world: World, stack: ExitStack, body: Bodies) -> None:
    if os.environ.get("INTERRUPTION_SKIP_POSTGRES") == "1":
        world.notes.append("PostgresStore skipped: INTERRUPTION_SKIP_POSTGRES=1")
        return
    try:
        from tests import _postgres

        started = time.perf_counter()
        server = _postgres.start()
    except (ImportError, RuntimeError) as error:
        world.notes.append(f"PostgresStore skipped: {error}")
        return
    stack.callback(server.stop)
    world.notes.append(
        f"PostgreSQL on 127.0.0.1 (fsync off), up in "
        f"{time.perf_counter() - started:.1f} s; pool of {CALLERS} connections"
    )
    from interruption.runtime.store import PostgresStore

    store = PostgresStore(server.dsn, min_size=CALLERS, max_size=CALLERS)
    world.closing(stack, store.close)
    world.run(store.open())
    floor = world.run(PostgresFloor.open(server.dsn, body))
    world.closing(stack, floor.close)
    world.stores["PostgresStore"] = store
    world.floors["PostgresStore"] = floor.cycle


def open_world(stack: ExitStack) -> World:
    """Open every store, floor and graph; close them when *stack* unwinds."""
    from langgraph.checkpoint.memory import InMemorySaver

    loop = asyncio.new_event_loop()
    stack.callback(loop.close)
    world = World(loop)
    root = Path(stack.enter_context(tempfile.TemporaryDirectory()))
    body = world.run(bodies())
    memory, sqlite = MemoryStore(), SqliteStore(root / "store.db")
    world.closing(stack, sqlite.close)
    world.stores |= {"MemoryStore": memory, "SqliteStore": sqlite}
    sqlite_floor = SqliteFloor(root / "floor.db", body)
    stack.callback(sqlite_floor.close)
    world.sqlite = (sqlite, sqlite_floor)
    world.floors |= {
        "MemoryStore": MemoryFloor(body).cycle,
        "SqliteStore": sqlite_floor.cycle,
    }
    _open_postgres(world, stack, body)
    saver = sqlite_saver(root / "langgraph.db")
    stack.callback(saver.conn.close)
    world.peers |= {
        "LangGraph + InMemorySaver": graph(InMemorySaver()),
        "LangGraph + SqliteSaver": graph(saver),
    }
    return world


def check_world(world: World) -> None:
    """Assert that every setup pauses, finishes, and runs its tool once a cycle."""
    for store in world.stores.values():
        world.run(check_session(store))
    for compiled in world.peers.values():
        check_langgraph(compiled)
    for cycle in world.floors.values():
        world.run(cycle(0))


def setups(world: World) -> list[Setup]:
    """Every timed configuration of *world*."""

    def session_unit(store: Store, callers: int) -> Callable[[], object]:
        async def cycle(_caller: int) -> None:
            await session_cycle(store)

        return lambda: world.run(unit(cycle, callers))

    def floor_unit(floor: Cycle, callers: int) -> Callable[[], object]:
        return lambda: world.run(unit(floor, callers))

    def peer_unit(compiled: Any) -> Callable[[], object]:  # noqa: ANN401 - LangGraph's
        def run() -> None:
            for _ in range(UNIT):
                langgraph_cycle(compiled)

        return run

    both = (1, CALLERS)
    return [
        *(
            Setup(f"Session + {name}", callers, session_unit(store, callers))
            for name, store in world.stores.items()
            for callers in both
        ),
        *(
            Setup(f"raw floor of {name}", callers, floor_unit(floor, callers))
            for name, floor in world.floors.items()
            for callers in both
        ),
        *(
            Setup(name, 1, peer_unit(compiled))
            for name, compiled in world.peers.items()
        ),
    ]


# --- why 16 callers cost what one does; what a cycle writes -----------------------


async def most_in_flight(cycle: Cycle, callers: int) -> int:
    """Run one unit on *callers* tasks; return the most cycles under way at once.

    1 means the callers never overlapped: each task ran its cycles to the end
    before the next one started (no store call yields to the event loop), so
    16 callers do the same serialized work as one.
    """
    running = most = 0

    async def counted(caller: int) -> None:
        nonlocal running, most
        running += 1
        most = max(most, running)
        try:
            await cycle(caller)
        finally:
            running -= 1

    await unit(counted, callers)
    return most


def wal_frames(path: Path, run: Callable[[], object], cycles: int) -> float:
    """WAL frames (pages written and synced) per cycle of *run*, on *path*.

    The WAL is emptied first (a checkpoint from a second connection) and
    *run* must stay under the 1000-frame automatic checkpoint.
    """
    with closing(sqlite3.connect(path)) as db:
        (busy, _, _) = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        (page,) = db.execute("PRAGMA page_size").fetchone()
    if busy:
        return float("nan")
    run()
    size = Path(f"{path}-wal").stat().st_size
    return (size - 32) / (int(page) + 24) / cycles


def cpu_us(run: Callable[[], object], cycles: int) -> tuple[float, float]:
    """User and system CPU µs per cycle of *run* (gc off, as the timed rows).

    Set beside the wall time, it tells where a cycle goes: the system side
    holds the writes and the syncs, the user side this process's own work.
    """
    gc_was = gc.isenabled()
    gc.disable()
    try:
        before = resource.getrusage(resource.RUSAGE_SELF)
        run()
        after = resource.getrusage(resource.RUSAGE_SELF)
    finally:
        if gc_was:
            gc.enable()
    return (
        (after.ru_utime - before.ru_utime) * 1e6 / cycles,
        (after.ru_stime - before.ru_stime) * 1e6 / cycles,
    )


def writes_table(world: World, sqlite: SqliteStore, floor: SqliteFloor) -> str:
    """Cycles in flight with 16 callers, WAL frames and CPU per cycle, both."""

    async def cycle(_caller: int) -> None:
        await session_cycle(sqlite)

    def units(one: Cycle, count: int = 1) -> Callable[[], object]:
        return lambda: [world.run(unit(one, 1)) for _ in range(count)]

    runs = [units(cycle), units(floor.cycle)]
    frames = [
        wal_frames(Path(sqlite.path), runs[0], UNIT),
        wal_frames(floor.path, runs[1], UNIT),
    ]
    flying = [
        world.run(most_in_flight(cycle, CALLERS)),
        world.run(most_in_flight(floor.cycle, CALLERS)),
    ]
    cpu = [cpu_us(units(one, 4), 4 * UNIT) for one in (cycle, floor.cycle)]
    header = [
        "",
        f"most cycles in flight, {CALLERS} callers",
        "WAL frames per cycle",
        "user CPU µs per cycle",
        "system CPU µs",
    ]
    names = ["Session + SqliteStore", "raw floor of SqliteStore"]
    return table(
        header,
        [
            [name, str(most), f"{pages:.1f}", f"{user:.0f}", f"{system:.0f}"]
            for name, most, pages, (user, system) in zip(
                names, flying, frames, cpu, strict=True
            )
        ],
    )


# --- the report -----------------------------------------------------------------


def _x(top: float, bottom: float) -> str:
    return f"{top / bottom:.1f}x"


def timings_table(timings: Sequence[Timing]) -> str:
    """Format ms per cycle and cycles per second for every setup."""
    return table(
        ["setup", "callers", "ms per cycle", "cycles/s"],
        [
            [t.name, str(t.callers), f"{t.ms:.3f}", f"{t.per_second:,.0f}"]
            for t in timings
        ],
    )


def ratios(timings: Sequence[Timing], stores: Sequence[str]) -> tuple[str, list[str]]:
    """Format the ratios the targets speak of; say whether each is met."""
    by = {(t.name, t.callers): t.ms for t in timings}
    rows: list[list[str]] = []
    verdicts: list[str] = []
    for name in stores:
        for callers in (1, CALLERS):
            ours, floor = (
                by[f"Session + {name}", callers],
                by[f"raw floor of {name}", callers],
            )
            added = (ours - by["Session + MemoryStore", callers]) / floor
            rows.append(
                [
                    f"Session + {name} / its raw floor",
                    str(callers),
                    _x(ours, floor),
                    "-" if name == "MemoryStore" else f"{added:.1f}x",
                ]
            )
            if name == "MemoryStore":
                continue
            met = ours / floor <= STORE_BUDGET
            verdicts.append(
                f"Session + {name}, {callers} caller(s), within {STORE_BUDGET:g}x "
                f"of its raw floor: {'met' if met else 'MISSED'} ({_x(ours, floor)})"
            )
    pairs = [
        ("LangGraph + SqliteSaver", "Session + SqliteStore"),
        ("LangGraph + InMemorySaver", "Session + MemoryStore"),
    ]
    for peer_name, our_name in pairs:
        shown = _x(by[peer_name, 1], by[our_name, 1])
        rows.append([f"{peer_name} / {our_name}", "1", shown, "-"])
    peer, ours = by["LangGraph + SqliteSaver", 1], by["Session + SqliteStore", 1]
    met = peer / ours >= PEER_FACTOR
    verdicts.append(
        f"Session + SqliteStore at least {PEER_FACTOR:g}x faster than "
        f"LangGraph + SqliteSaver: {'met' if met else 'MISSED'} ({_x(peer, ours)})"
    )
    header = ["ratio", "callers", "x", "(store - memory cycle) / floor"]
    return table(header, rows), verdicts


async def _one_session_cycles(store: Store, turns: int) -> list[float]:
    """Run *turns* cycles on ONE session; return each cycle's seconds."""
    session = _session(store)
    seconds = []
    for _ in range(turns):
        start = time.perf_counter()
        paused = await session.send("refund A-10023")
        assert paused.turn is not None
        answers = Resume(restart=[p.approve() for p in paused.interrupts])
        await session.resume(answers, turn_id=paused.turn.turn_id)
        seconds.append(time.perf_counter() - start)
    return seconds


def growth_table(loop: asyncio.AbstractEventLoop, turns: int = 200) -> str:
    """A cycle at turn 1 against one at turn *turns*, and disk per session."""
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name in ("MemoryStore", "SqliteStore"):
            path = Path(folder) / "growth.db"
            store: Store = MemoryStore() if name == "MemoryStore" else SqliteStore(path)
            seconds = loop.run_until_complete(_one_session_cycles(store, turns))
            first, last = min(seconds[1:6]), min(seconds[-5:])
            size = path.stat().st_size if path.exists() else 0
            wal = Path(f"{path}-wal")
            size += wal.stat().st_size if wal.exists() else 0
            loop.run_until_complete(store.close())
            rows.append(
                [
                    name,
                    f"{first * 1e3:.2f}",
                    f"{last * 1e3:.2f}",
                    f"{last / first:.2f}x",
                    f"{size / 1024:,.0f}" if size else "-",
                ]
            )
    header = [
        f"one session, {turns} cycles",
        "turn 2-6 ms",
        f"turn {turns - 4}-{turns} ms",
        "ratio",
        "disk KiB",
    ]
    return table(header, rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-p", "--profile", action="store_true", help="always profile")
    parser.add_argument("--repeats", type=int, default=REPEATS)
    args = parser.parse_args()
    import langgraph.version

    with ExitStack() as stack:
        world = open_world(stack)
        check_world(world)
        print(
            f"Python {sys.version.split()[0]}, SQLite {sqlite3.sqlite_version}, "
            f"LangGraph {langgraph.version.__version__}"
        )
        for note in world.notes:
            print(note)
        print(
            f"{', '.join(world.stores)} and both LangGraph savers pause, finish "
            "and run the tool once per cycle."
        )
        print(
            f"best of {args.repeats} interleaved repeats of {UNIT} cycles "
            f"(1 caller: {UNIT} in a row; {CALLERS} callers: {UNIT // CALLERS} each)"
        )
        print(machine_load())
        timings = time_all(setups(world), args.repeats)
        print(timings_table(timings))
        shown, verdicts = ratios(timings, list(world.stores))
        print(f"\n{shown}\n")
        print("\n".join(verdicts))
        cycles = 100
        rows = {
            name: world.run(breakdown(store, cycles))
            for name, store in world.stores.items()
        }
        print(f"\nwhere a cycle goes, 1 caller, fastest of 3 runs of {cycles} cycles\n")
        print(breakdown_table(rows, cycles))
        print(
            "(the timed rows above run with the garbage collector off, as "
            "timeit runs them; this table runs with it on)"
        )
        if world.sqlite is not None:
            print(f"\nwhat {CALLERS} callers overlap, and what a cycle writes\n")
            print(writes_table(world, *world.sqlite))
        print("\ngrowth: the same session, turn after turn (best of 5 cycles)\n")
        print(growth_table(world.loop))
        print(f"\n{machine_load()}")
        if args.profile or any("MISSED" in line for line in verdicts):
            for name, store in world.stores.items():
                print(f"\ncProfile of {cycles} cycles of Session + {name}\n")
                print(profile(world.loop, store, cycles))


if __name__ == "__main__":
    main()
