import asyncio
import concurrent.futures
import json
import sqlite3
import sys
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import attrs
import interruption.runtime.store
import psycopg
import pytest
from interruption import (
    JSON,
    ExtraMissing,
    ResumePolicy,
    StoreUnavailable,
    dumps,
    validate_resume,
)
from interruption.kinds import ApprovalPending, Custom
from interruption.parts import Message, Role, ToolRequest, ToolResponse
from interruption.resume import (
    APPROVAL_ONLY,
    Accepts,
    InterruptedTurn,
    PendingInterrupt,
    Respond,
    Resume,
)
from interruption.runtime.approval import DECISION_SCHEMA
from interruption.runtime.store import PostgresStore, SqliteStore, Store
from interruption.runtime.store._base import (
    MAX_PAGE,
    MAX_REJECTED,
    AuditEvent,
    StoredTurn,
    stored_turn_json,
    turn_from_json,
)
from interruption.runtime.store._sqlite import _unavailable
from interruption.testing.store_contract import CONTRACT, Check
from interruption.testing.store_contract import turn as contract_turn
from psycopg import sql

from tests._postgres import limited_role, locked
from tests._race import RACERS, race_processes
from tests._stores import (
    backends,
    conninfo,
    failing_set_up,
    postgres_version_1,
    sqlite_synchronous,
    sqlite_version_1,
    sqlite_version_3,
    sqlite_version_with_bodies,
    stamp_postgres_version,
    stamp_sqlite_version,
)
from tests.conftest import fresh_schema

NOW = datetime(2026, 11, 21, 23, 0, tzinfo=UTC)


def nested(depth: int) -> JSON:
    """A JSON value of *depth* nested arrays."""
    value: JSON = 0
    for _ in range(depth):
        value = [value]
    return value


RESUME = Resume(respond=(Respond("ask_user", "call-1", "Yes"),))


def pending(expires_at: datetime | None = None) -> PendingInterrupt:
    """A question that takes "Yes" or "No"."""
    return PendingInterrupt(
        id="call-1",
        kind=Custom(),
        payload={"question": "Pay INV-7 today?"},
        tool=ToolRequest("ask_user", "call-1", {"question": "Pay INV-7 today?"}),
        accepts=Accepts(respond={"enum": ["Yes", "No"]}),
        expires_at=expires_at,
    )


def turn(  # noqa: PLR0913 - keyword-only knobs of one sample
    turn_id: int = 1,
    *,
    session: str = "s-1",
    expires_at: datetime | None = None,
    turn_expires_at: datetime | None = None,
    questions: int = 1,
    text: str = "hi",
) -> InterruptedTurn:
    """An interrupted turn with pending questions (one by default)."""
    return InterruptedTurn(
        session=session,
        turn_id=turn_id,
        messages=(Message.of_text(Role.USER, text),),
        interrupts=(pending(expires_at),) * questions,
        completed=(ToolResponse("lookup", "call-0", {"n": 1}),),
        created_at=NOW,
        expires_at=turn_expires_at,
    )


class TestStore:
    def test_a_closed_store_is_unavailable(
        self, store: Store, runner: asyncio.Runner
    ) -> None:
        """After close, every durable store's calls raise StoreUnavailable."""
        if not isinstance(store, SqliteStore | PostgresStore):
            pytest.skip("a MemoryStore holds nothing to close")
        runner.run(store.close())
        calls: list[Callable[[], Coroutine[Any, Any, object]]] = [
            lambda: store.load_turn("s-1"),
            lambda: store.load_history("s-1"),
            lambda: store.audit("s-1"),
            lambda: store.spent(["k"]),
            lambda: store.spend("k", None),
            lambda: store.sessions("open"),
        ]
        for call in calls:
            with pytest.raises(StoreUnavailable) as refused:
                runner.run(call())
            assert (refused.value.reason, refused.value.code) == (
                "closed",
                "store_unavailable",
            )

    def test_a_rejection_not_kept_pays_no_digest(
        self, store: Store, runner: asyncio.Runner, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A rejected attempt is digested only when kept: past the limit, never."""
        sent = Resume(respond=(Respond("ask_user", "c-1", list(range(1000))),))
        taken: list[Resume] = []

        def digest(resume: Resume) -> str:
            taken.append(resume)
            return "d" * 64

        monkeypatch.setattr("interruption.runtime.store._base.wire_digest", digest)
        event = AuditEvent("s-1", 1, "rejected", NOW, codes=("missing",))
        kept = [runner.run(store.log(event, sent)) for _ in range(MAX_REJECTED + 3)]
        assert kept == [True] * MAX_REJECTED + [False] * 3
        assert len(taken) == MAX_REJECTED
        trail = runner.run(store.audit("s-1"))
        assert {entry.digest for entry in trail} == {"d" * 64}

    def test_is_a_store(self, store: Store) -> None:
        """Each store satisfies the runtime-checkable protocol."""
        assert isinstance(store, Store)

    @pytest.mark.parametrize("check", CONTRACT, ids=lambda check: check.__name__)
    def test_meets_the_contract(
        self, store: Store, runner: asyncio.Runner, check: Check
    ) -> None:
        """Every store passes every check of the public store contract."""
        runner.run(check(store))

    def test_thousands_of_open_sessions_page_through(
        self, store: Store, runner: asyncio.Runner
    ) -> None:
        """2,100 paused sessions come back in pages of MAX_PAGE, each once, sorted."""
        names = [f"s-{n:05}" for n in range(2_100)]

        async def go() -> list[tuple[str, ...]]:
            for name in names:
                paused = turn(session=name)
                await store.save(name, paused.messages, paused)
            pages, after = [], None
            while page := await store.sessions("open", now=NOW, after=after):
                pages.append(page)
                after = page[-1]
            return pages

        pages = runner.run(go())
        assert [len(page) for page in pages] == [MAX_PAGE, MAX_PAGE, 100]
        assert [name for page in pages for name in page] == names

    def test_close_is_repeatable(self, store: Store, runner: asyncio.Runner) -> None:
        """A used store closes twice without error; what it saved outlives it."""
        message = Message.of_text(Role.USER, "kept")

        async def go() -> tuple[Message, ...] | None:
            await store.save("s-1", (message,))
            await store.close()
            await store.close()  # a second close does nothing, and raises nothing
            again: Store
            if isinstance(store, SqliteStore):
                again = SqliteStore(store.path)
            elif isinstance(store, PostgresStore):
                again = PostgresStore(store.dsn, schema=store.schema)
            else:  # memory lives as long as its object
                return await store.load_history("s-1")
            try:
                return await again.load_history("s-1")
            finally:
                await again.close()

        assert runner.run(go()) == (message,)

    def test_the_store_keeps_no_copy_of_the_history_per_turn(
        self, store: Store, runner: asyncio.Runner
    ) -> None:
        """A turn saved after a long history reads back without its messages."""

        async def go() -> None:
            history = tuple(Message.of_text(Role.USER, f"m{n}") for n in range(50))
            paused = attrs.evolve(turn(1), messages=(*history, *turn(1).messages))
            await store.save("s-1", paused.messages, paused)
            stored = await store.load_turn("s-1")
            assert stored is not None
            assert stored.turn.messages == ()
            assert stored.history_len == len(paused.messages)

        runner.run(go())

    def test_an_approvals_input_schema_survives_the_store(
        self, store: Store, runner: asyncio.Runner
    ) -> None:
        """An approval's declared replace_input reads back; its decision schema too."""
        request = ToolRequest("pay", "call-9", {"n": 1})
        schema: dict[str, JSON] = {
            "type": "object",
            "properties": {"n": {"type": "integer"}},
        }
        editable = PendingInterrupt(
            "call-9",
            ApprovalPending("call-9"),
            None,
            request,
            Accepts(restart=DECISION_SCHEMA, replace_input=schema),
        )
        fixed = attrs.evolve(
            editable,
            id="call-8",
            kind=ApprovalPending("call-8"),
            tool=attrs.evolve(request, ref="call-8"),
            accepts=APPROVAL_ONLY,
        )
        paused = attrs.evolve(turn(1), interrupts=(editable, fixed))

        async def go() -> None:
            await store.save("s-1", paused.messages, paused)
            stored = await store.load_turn("s-1")
            assert stored is not None
            assert stored.turn.interrupts == (editable, fixed)

        runner.run(go())


class TestSqliteStore:
    def test_another_failure_to_begin_is_the_drivers_and_frees_the_store(
        self, tmp_path: Path
    ) -> None:
        """A write that fails to begin for no database reason: raised, lock freed."""
        store = SqliteStore(tmp_path / "store.db")
        real = store._db

        class Failing:
            def execute(self, sql: str, *args: Any) -> object:
                if sql == "BEGIN IMMEDIATE":
                    raise sqlite3.InterfaceError("the driver failed")
                return real.execute(sql, *args)

        store._db = Failing()  # type: ignore[assignment]
        with pytest.raises(sqlite3.InterfaceError, match="driver failed"):
            asyncio.run(store.save("s-1", turn(1).messages, turn(1)))
        store._db = real
        asyncio.run(store.save("s-1", turn(1).messages, turn(1)))
        assert asyncio.run(store.load_turn("s-1")) is not None

    def test_a_database_sqlite_cannot_write_is_unreachable(self) -> None:
        """SQLite refusing to begin for another reason: unreachable."""
        store = SqliteStore(":memory:")
        error = sqlite3.OperationalError("disk I/O error")
        refused = _unavailable(store, error)
        assert (refused.reason, refused.code) == ("unreachable", "store_unavailable")
        assert (
            str(refused)
            == ":memory:: SQLite cannot write the database (disk I/O error)"
        )

    @pytest.mark.parametrize("synchronous", ["FULL", "NORMAL"])
    def test_a_lease_write_that_cannot_start_is_busy_and_frees_the_store(
        self, tmp_path: Path, runner: asyncio.Runner, synchronous: str
    ) -> None:
        """A lease write blocked elsewhere is busy; setting and store recover."""
        path = tmp_path / "store.db"
        store = SqliteStore(path, timeout=0.05, synchronous=synchronous)  # type: ignore[arg-type]
        before = sqlite_synchronous(store)
        later = datetime(2026, 11, 22, tzinfo=UTC)
        other = sqlite3.connect(path, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            with pytest.raises(StoreUnavailable, match="retry later") as busy:
                runner.run(store.lease("s-1", "a", NOW, later))
            assert (busy.value.reason, busy.value.store) == ("busy", str(path))
            assert isinstance(busy.value.__cause__, sqlite3.OperationalError)
            with pytest.raises(StoreUnavailable, match="retry later"):
                runner.run(store.release("s-1", "a"))
            assert sqlite_synchronous(store) == before
            other.execute("ROLLBACK")
            assert runner.run(store.lease("s-1", "a", NOW, later))
            assert runner.run(store.lease("s-1", "a", NOW, later, renew=True))
        finally:
            other.close()
            runner.run(store.close())

    def test_a_write_lock_held_elsewhere_fails_the_write_and_frees_the_store(
        self, tmp_path: Path
    ) -> None:
        """A write that cannot start is busy, and the store's next write works."""
        path = tmp_path / "store.db"
        store = SqliteStore(path, timeout=0.05)
        other = sqlite3.connect(path, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            with pytest.raises(StoreUnavailable, match="retry later") as busy:
                asyncio.run(store.save("s-1", turn(1).messages, turn(1)))
            assert (busy.value.reason, busy.value.store) == ("busy", str(path))
            assert isinstance(busy.value.__cause__, sqlite3.OperationalError)
            other.execute("ROLLBACK")
            asyncio.run(store.save("s-1", turn(1).messages, turn(1)))
            stored = asyncio.run(store.load_turn("s-1"))
            assert stored is not None
            assert (stored.turn.turn_id, stored.state) == (1, "open")
        finally:
            other.close()
            asyncio.run(store.close())

    def test_schema_is_versioned(self, tmp_path: Path) -> None:
        """A new database migrates to version 7, and is not migrated again."""
        path = tmp_path / "store.db"
        store = SqliteStore(path)
        assert store.schema_version == 7
        asyncio.run(store.save("s-1", turn(1).messages, turn(1)))
        asyncio.run(store.close())
        store = SqliteStore(path)  # a second migration would fail or lose the turn
        assert store.schema_version == 7
        stored = asyncio.run(store.load_turn("s-1"))
        assert stored is not None
        assert stored.state == "open"
        asyncio.run(store.close())

    def test_keeps_turns_across_reopening(self, tmp_path: Path) -> None:
        """What one store saved, another store on the same file loads."""
        path = tmp_path / "store.db"

        async def save() -> None:
            store = SqliteStore(path)
            await store.save("s-1", turn(1).messages, turn(1))
            await store.close()

        async def load() -> InterruptedTurn | None:
            store = SqliteStore(path)
            try:
                stored = await store.load_turn("s-1")
                history = await store.load_history("s-1")
            finally:
                await store.close()
            assert stored is not None
            assert history is not None
            return stored.with_history(history)

        asyncio.run(save())
        assert asyncio.run(load()) == turn(1)

    def test_a_private_in_memory_database(self, runner: asyncio.Runner) -> None:
        """':memory:' gives a working store with nothing on disk."""
        store = SqliteStore(":memory:")
        runner.run(store.save("s-1", turn(1).messages, turn(1)))
        stored = runner.run(store.load_turn("s-1"))
        assert stored is not None
        assert stored.state == "open"
        runner.run(store.close())

    def test_commits_are_durable_unless_asked_otherwise(self, tmp_path: Path) -> None:
        """SQLite syncs every commit by default; NORMAL only when asked; no other."""

        def mode(store: SqliteStore) -> int:
            value = sqlite_synchronous(store)
            asyncio.run(store.close())
            return value

        assert mode(SqliteStore(tmp_path / "a.db")) == 2  # FULL
        assert mode(SqliteStore(tmp_path / "b.db", synchronous="NORMAL")) == 1
        with pytest.raises(ValueError, match="expected 'FULL' or 'NORMAL'"):
            SqliteStore(tmp_path / "c.db", synchronous="OFF")  # type: ignore[arg-type]

    @pytest.mark.parametrize("synchronous", ["FULL", "NORMAL"])
    def test_a_lease_leaves_the_commits_as_durable_as_they_were(
        self, tmp_path: Path, runner: asyncio.Runner, synchronous: str
    ) -> None:
        """Leases commit unsynced; the store's own setting is back after each."""
        store = SqliteStore(tmp_path / "a.db", synchronous=synchronous)  # type: ignore[arg-type]
        before = sqlite_synchronous(store)
        later = datetime(2026, 11, 22, tzinfo=UTC)
        assert runner.run(store.lease("s-1", "a", NOW, later))
        assert sqlite_synchronous(store) == before
        assert not runner.run(store.lease("s-1", "b", NOW, later))
        runner.run(store.release("s-1", "a"))
        assert sqlite_synchronous(store) == before
        runner.run(store.close())

    def test_a_version_5_file_gains_kept_records(
        self, tmp_path: Path, runner: asyncio.Runner
    ) -> None:
        """A file as version 5 left it (no kept table) migrates; its rows stay."""
        path = tmp_path / "v5.db"
        sqlite_version_with_bodies(path, 5, turn(1).messages, (turn(1),), ("mark",))
        store = SqliteStore(path)
        try:
            assert store.schema_version == 7
            assert runner.run(store.load_turn("s-1")) is not None
            assert runner.run(store.spent(("mark",))) == {"mark"}
            runner.run(store.keep("run-1", b"state", None))
            assert runner.run(store.kept("run-1")) == b"state"
        finally:
            runner.run(store.close())

    def test_a_version_6_file_keeps_its_turns_apart_from_their_bodies(
        self, tmp_path: Path, runner: asyncio.Runner
    ) -> None:
        """Version 6's turns read back whole after version 7 moved their bodies."""
        path = tmp_path / "v6.db"
        history = (*turn(1).messages, Message.of_text(Role.USER, "later"))
        first, second = turn(1), attrs.evolve(turn(2), messages=history)
        sqlite_version_with_bodies(path, 6, history, (first, second))
        store = SqliteStore(path)

        async def go() -> None:
            assert store.schema_version == 7
            done = await store.load_turn("s-1", 1)
            assert done is not None
            assert (done.state, done.with_history(history)) == ("completed", first)
            latest = await store.load_turn("s-1")
            assert latest is not None
            assert (latest.state, latest.with_history(history)) == ("open", second)
            assert await store.sessions("open", now=NOW) == ("s-1",)
            # The migrated turn is spent once, and the session goes on.
            assert await store.consume(latest.turn, RESUME, "ann")
            assert not await store.consume(latest.turn, RESUME, "bob")
            assert await store.finish(latest.turn, history, turn(3))
            again = await store.load_turn("s-1")
            assert again is not None
            assert (again.turn.turn_id, again.state) == (3, "open")
            with pytest.raises(ValueError, match="already has turn 3"):
                await store.save("s-1", history, turn(3))

        try:
            runner.run(go())
        finally:
            runner.run(store.close())

    @pytest.mark.parametrize("version", [4, 5, 6])
    def test_a_consumed_turn_stays_spent_through_the_migration(
        self, tmp_path: Path, runner: asyncio.Runner, version: int
    ) -> None:
        """A turn consumed (not finished) before version 7 is consumed after it."""
        path = tmp_path / f"v{version}.db"
        history = turn(1).messages
        sqlite_version_with_bodies(
            path, version, history, (turn(1),), last_consumed=True
        )
        store = SqliteStore(path)

        async def go() -> None:
            assert store.schema_version == 7
            latest = await store.load_turn("s-1")
            assert latest is not None
            assert latest.state == "consumed"
            assert not await store.consume(latest.turn, RESUME, "mallory")
            assert await store.finish(latest.turn, history, None)

        try:
            runner.run(go())
        finally:
            runner.run(store.close())

    def test_a_version_1_file_is_migrated_with_its_data(self, tmp_path: Path) -> None:
        """History, turns, results of version 1 read back after the migration."""
        path = tmp_path / "v1.db"
        old = turn(1)
        history = (*turn(1).messages, Message.of_text(Role.USER, "later"))
        result = ToolResponse("ask_user", "call-1", "Yes")
        sqlite_version_1(path, history, old, (RESUME, (result,)))
        store = SqliteStore(path)
        try:
            assert store.schema_version == 7
            assert asyncio.run(store.load_history("s-1")) == history
            stored = asyncio.run(store.load_turn("s-1"))
            assert stored is not None
            assert stored.with_history(history) == old
            assert (stored.state, stored.resume, stored.steps) == (
                "consumed",
                RESUME,
                (result,),
            )
        finally:
            asyncio.run(store.close())

    def test_a_version_3_file_is_migrated_with_its_data(
        self, runner: asyncio.Runner, tmp_path: Path
    ) -> None:
        """History, turns, steps and trail of version 3 read back, and grow on."""
        path = tmp_path / "v3.db"
        history = (*turn(1).messages, Message.of_text(Role.USER, "later"))
        first, second = turn(1), attrs.evolve(turn(2), messages=history)
        result = ToolResponse("ask_user", "call-1", "Yes")
        events = (
            AuditEvent("s-1", 1, "paused", NOW, pending=("call-1",)),
            AuditEvent("s-2", 1, "paused", NOW),
            AuditEvent("s-1", 1, "accepted", NOW, digest="d1"),
            AuditEvent("s-1", 2, "paused", NOW, pending=("call-1",)),
            AuditEvent("s-2", 1, "rejected", NOW, codes=("missing",)),
            AuditEvent("s-1", 2, "accepted", NOW, digest="d2"),
        )
        sqlite_version_3(path, history, (first, second), RESUME, events)
        store = SqliteStore(path)

        async def go() -> None:
            assert store.schema_version == 7
            assert await store.load_history("s-1") == history
            done = await store.load_turn("s-1", 1)
            assert done is not None
            assert (done.state, done.with_history(history)) == ("completed", first)
            latest = await store.load_turn("s-1")
            assert latest is not None
            assert latest.with_history(history) == second
            assert (latest.state, latest.resume, latest.steps) == (
                "consumed",
                RESUME,
                (result,),
            )
            assert await store.sessions("consumed") == ("s-1",)
            assert await store.audit("s-1") == tuple(
                event for event in events if event.session == "s-1"
            )
            assert await store.audit("s-2") == events[1::3]
            # The migrated rows go on: steps and the trail number on.
            later = ToolResponse("ask_user", "call-2", "No")
            await store.record("s-1", 2, (later,))
            again = await store.load_turn("s-1")
            assert again is not None
            assert again.steps == (result, later)
            cancelled = AuditEvent("s-1", 2, "cancelled", NOW, reason="late")
            assert await store.log(cancelled)
            trail = await store.audit("s-1")
            assert trail[-1] == cancelled
            assert len(trail) == 5
            with pytest.raises(ValueError, match="already has turn 2"):
                await store.save("s-1", history, turn(2))

        try:
            runner.run(go())
        finally:
            runner.run(store.close())

    def test_newer_schema_is_refused(self, tmp_path: Path) -> None:
        """A database from a newer version of the library is StoreUnavailable."""
        path = tmp_path / "store.db"
        store = SqliteStore(path)
        newer = store.schema_version + 1
        asyncio.run(store.close())
        stamp_sqlite_version(path, newer)
        with pytest.raises(
            StoreUnavailable, match=f"schema version {newer} is newer than"
        ) as refused:
            SqliteStore(path)
        assert (refused.value.reason, refused.value.code) == (
            "schema_newer",
            "store_unavailable",
        )
        assert isinstance(refused.value, RuntimeError)

    def test_processes_race_with_one_winner(self, tmp_path: Path) -> None:
        """Of 20 OS processes consuming one turn in one file, exactly one wins."""
        path = tmp_path / "store.db"
        store = SqliteStore(path)
        asyncio.run(store.save("s-1", turn(1).messages, turn(1)))
        asyncio.run(store.close())
        outcomes = race_processes("sqlite", str(path), RESUME)
        assert sorted(outcomes) == [False] * (RACERS - 1) + [True]


class TestPostgresStore:
    def test_schema_is_versioned(self, postgres_dsn: str, pg_schema: str) -> None:
        """A new schema is migrated to version 5, and is not migrated again."""

        async def go() -> int:
            async with PostgresStore(postgres_dsn, schema=pg_schema) as store:
                assert await store.schema_version() == 5
                await store.save("s-1", turn(1).messages, turn(1))
            async with PostgresStore(postgres_dsn, schema=pg_schema) as store:
                stored = await store.load_turn("s-1")
                assert stored is not None
                assert stored.state == "open"
                return await store.schema_version()

        assert asyncio.run(go()) == 5

    def test_a_version_1_schema_is_migrated_with_its_data(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """History and turns of version 1 read back after the migration."""
        old = turn(1)
        history = (*turn(1).messages, Message.of_text(Role.USER, "later"))
        postgres_version_1(postgres_dsn, pg_schema, history, old)

        async def go() -> None:
            async with PostgresStore(postgres_dsn, schema=pg_schema) as store:
                assert await store.schema_version() == 5
                assert await store.load_history("s-1") == history
                stored = await store.load_turn("s-1")
                assert stored is not None
                assert stored.with_history(history) == old
                assert stored.state == "open"

        asyncio.run(go())

    def test_a_version_4_schema_gains_kept_records(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """A schema as version 4 left it (no kept table) migrates; its rows stay."""

        async def go() -> None:
            async with PostgresStore(postgres_dsn, schema=pg_schema) as store:
                await store.save("s-1", turn(1).messages, turn(1))
                assert await store.spend("mark", None)
            with psycopg.connect(postgres_dsn, autocommit=True) as conn:
                schema = sql.Identifier(pg_schema)
                conn.execute(sql.SQL("DROP TABLE {}.kept").format(schema))
                conn.execute(
                    sql.SQL("DELETE FROM {}.schema_version WHERE version = 5").format(
                        schema
                    )
                )
            async with PostgresStore(postgres_dsn, schema=pg_schema) as store:
                assert await store.schema_version() == 5
                assert await store.load_turn("s-1") is not None
                assert await store.spent(("mark",)) == {"mark"}
                await store.keep("run-1", b"state", None)
                assert await store.kept("run-1") == b"state"

        asyncio.run(go())

    def test_newer_schema_is_refused(self, postgres_dsn: str, pg_schema: str) -> None:
        """A schema from a newer version of the library is a RuntimeError."""

        async def go() -> None:
            async with PostgresStore(postgres_dsn, schema=pg_schema) as store:
                newer = await store.schema_version() + 1
            stamp_postgres_version(postgres_dsn, pg_schema, newer)
            store = PostgresStore(postgres_dsn, schema=pg_schema)
            with pytest.raises(
                RuntimeError, match=f"schema version {newer} is newer than"
            ):
                await store.open()
            await store.close()

        asyncio.run(go())

    def test_default_schema(self, postgres_dsn: str) -> None:
        """Without a schema the tables go to the database's default search path."""
        name = fresh_schema()
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        dsn = f"{postgres_dsn.replace('dbname=postgres', '')} dbname={name}"

        async def go() -> None:
            async with PostgresStore(dsn) as store:
                await store.save("s-1", turn(1).messages, turn(1))
            async with PostgresStore(dsn, schema="public") as store:
                stored = await store.load_turn("s-1")
                assert stored is not None
                assert stored.turn.turn_id == 1

        try:
            asyncio.run(go())
        finally:
            with psycopg.connect(postgres_dsn, autocommit=True) as conn:
                conn.execute(
                    sql.SQL("DROP DATABASE {} WITH (FORCE)").format(
                        sql.Identifier(name)
                    )
                )

    def test_sessions_list_in_code_point_order_whatever_the_locale(
        self, postgres_dsn: str
    ) -> None:
        """In a database whose locale sorts otherwise, listing sorts by code point."""
        name = fresh_schema()
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:
            conn.execute(
                sql.SQL(
                    "CREATE DATABASE {} TEMPLATE template0 LOCALE_PROVIDER icu "
                    "ICU_LOCALE 'en-US' LOCALE 'C'"
                ).format(sql.Identifier(name))
            )
        dsn = f"{postgres_dsn.replace('dbname=postgres', '')} dbname={name}"
        names = ["a", "B", "_", "Z"]

        async def go() -> list[tuple[str, ...]]:
            async with PostgresStore(dsn) as store:
                for session in names:
                    paused = turn(session=session)
                    await store.save(session, paused.messages, paused)
                first = await store.sessions("open", now=NOW, limit=2)
                rest = await store.sessions("open", now=NOW, after=first[-1])
                return [first, rest]

        try:
            assert asyncio.run(go()) == [("B", "Z"), ("_", "a")]
        finally:
            with psycopg.connect(postgres_dsn, autocommit=True) as conn:
                conn.execute(
                    sql.SQL("DROP DATABASE {} WITH (FORCE)").format(
                        sql.Identifier(name)
                    )
                )

    def test_connects_lazily(self, postgres_dsn: str, pg_schema: str) -> None:
        """The first call connects and migrates; open is then a no-op."""
        store = PostgresStore(postgres_dsn, schema=pg_schema)

        async def go() -> None:
            await store.save("s-1", ())
            await store.open()
            assert await store.load_history("s-1") == ()
            await store.close()

        asyncio.run(go())

    def test_serves_one_event_loop_after_another(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """Used from one event loop after another, the store serves each."""
        store = PostgresStore(postgres_dsn, schema=pg_schema)
        asyncio.run(store.save("s-1", turn(1).messages, turn(1)))
        assert asyncio.run(store.consume(turn(1), RESUME, None))
        stored = asyncio.run(store.load_turn("s-1"))
        assert stored is not None
        assert stored.state == "consumed"
        asyncio.run(store.close())

    def test_closed_store_refuses_calls(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """After close, a call is StoreUnavailable (a RuntimeError)."""

        async def go() -> None:
            store = PostgresStore(postgres_dsn, schema=pg_schema)
            await store.close()
            with pytest.raises(StoreUnavailable, match="closed") as refused:
                await store.load_turn("s-1")
            assert refused.value.reason == "closed"

        asyncio.run(go())

    def test_unreachable_server_fails_and_retries(self, postgres_dsn: str) -> None:
        """An unreachable server: StoreUnavailable (unreachable); later calls retry."""
        port = postgres_dsn.split("port=")[1].split(maxsplit=1)[0]
        dsn = postgres_dsn.replace(f"port={port}", "port=1")
        store = PostgresStore(dsn, timeout=0.2)

        async def go() -> None:
            for _ in range(2):
                with pytest.raises(StoreUnavailable, match="refused") as failed:
                    await store.open()
                assert failed.value.reason == "unreachable"
                assert isinstance(failed.value.__cause__, psycopg.OperationalError)
            await store.close()

        asyncio.run(go())

    def test_a_connection_open_cannot_warm_is_unreachable(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """A connection refused while open() readies min_size: unreachable."""
        with limited_role(postgres_dsn, 1) as role:
            store = PostgresStore(role.dsn, schema=pg_schema, min_size=2)

            async def go() -> None:
                with pytest.raises(StoreUnavailable, match="too many") as failed:
                    await store.open()
                assert failed.value.reason == "unreachable"
                assert isinstance(failed.value.__cause__, psycopg.OperationalError)
                await store.close()

            asyncio.run(go())

    def test_a_full_pool_is_busy(self, postgres_dsn: str, pg_schema: str) -> None:
        """No connection free within the timeout: StoreUnavailable (busy)."""

        async def go() -> None:
            store = PostgresStore(
                postgres_dsn, schema=pg_schema, max_size=1, timeout=0.1
            )
            await store.open()
            with locked(postgres_dsn, pg_schema):
                held = asyncio.ensure_future(store.load_turn("s-1"))
                await asyncio.sleep(0.2)  # its statement waits for the lock
                with pytest.raises(
                    StoreUnavailable, match="no free connection"
                ) as busy:
                    await store.load_turn("s-1")
            assert busy.value.reason == "busy"
            assert busy.value.store == f"PostgresStore (schema {pg_schema!r})"
            assert await held is None
            assert await store.load_turn("s-1") is None
            await store.close()

        asyncio.run(go())

    def test_few_connections_serve_many_calls(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """With max_size=2, 20 concurrent consumes share two connections; one wins."""
        name = fresh_schema()

        async def go() -> list[bool]:
            async with PostgresStore(
                f"{postgres_dsn} application_name={name}", schema=pg_schema, max_size=2
            ) as store:
                await store.save("s-1", turn(1).messages, turn(1))
                outcomes = await asyncio.gather(
                    *(store.consume(turn(1), RESUME, None) for _ in range(RACERS))
                )
                assert backends(postgres_dsn, name) == 2
                return outcomes

        assert sorted(asyncio.run(go())) == [False] * (RACERS - 1) + [True]

    def test_open_makes_min_size_connections_ready(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """Open connects min_size connections up front, never more than max_size."""
        four, two = fresh_schema(), fresh_schema()

        async def go() -> None:
            async with PostgresStore(
                f"{postgres_dsn} application_name={four}", schema=pg_schema, min_size=4
            ) as store:
                assert backends(postgres_dsn, four) == 4
                await store.open()
                assert backends(postgres_dsn, four) == 4
            async with PostgresStore(
                f"{postgres_dsn} application_name={two}",
                schema=pg_schema,
                min_size=5,
                max_size=2,
            ):
                assert backends(postgres_dsn, two) == 2

        asyncio.run(go())

    def test_a_failed_set_up_fails_open_and_frees_its_connection(
        self, postgres_dsn: str, pg_schema: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A connection whose set-up failed fails open; the store serves afterwards."""
        store = PostgresStore(postgres_dsn, schema=pg_schema, min_size=3, max_size=3)

        async def go() -> None:
            with (
                failing_set_up(store, monkeypatch, fail={1}),
                pytest.raises(OSError, match="set-up 1 failed"),
            ):
                await store.open()
            with (
                failing_set_up(store, monkeypatch, fail={3}),
                pytest.raises(OSError, match="set-up 3 failed"),
            ):
                await store.open()
            await store.open()
            await asyncio.gather(*(store.load_turn("s-1") for _ in range(6)))
            await store.close()

        asyncio.run(go())

    def test_drops_a_broken_connection(self, postgres_dsn: str, pg_schema: str) -> None:
        """A connection the server ended: one call is unreachable; it is replaced."""
        name = fresh_schema()

        async def go() -> None:
            async with PostgresStore(
                f"{postgres_dsn} application_name={name}", schema=pg_schema
            ) as store:
                with psycopg.connect(postgres_dsn, autocommit=True) as admin:
                    admin.execute(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE application_name = %s",
                        (name,),
                    )
                with pytest.raises(StoreUnavailable, match="may or may not") as dropped:
                    await store.load_turn("s-1")
                assert dropped.value.reason == "unreachable"
                assert isinstance(dropped.value.__cause__, psycopg.OperationalError)
                assert await store.load_turn("s-1") is None

        asyncio.run(go())

    def test_serves_loops_of_several_threads(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """Event loops in several threads share one store; one consume wins."""
        store = PostgresStore(postgres_dsn, schema=pg_schema, max_size=2)
        asyncio.run(store.save("s-1", turn(1).messages, turn(1)))

        async def consume_many() -> list[bool]:
            return await asyncio.gather(
                *(store.consume(turn(1), RESUME, None) for _ in range(5))
            )

        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            runs = list(pool.map(lambda _: asyncio.run(consume_many()), range(4)))
        asyncio.run(store.close())
        outcomes = [outcome for run in runs for outcome in run]
        assert sorted(outcomes) == [False] * 19 + [True]

    def test_keeps_the_dsn_connect_timeout(self) -> None:
        """A DSN's own connect_timeout wins over the one drawn from timeout."""
        assert conninfo(PostgresStore("host=db connect_timeout=7")) == (
            "host=db connect_timeout=7"
        )
        assert "connect_timeout=3" in conninfo(PostgresStore("host=db", timeout=3))

    def test_processes_race_with_one_winner(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """Of 20 OS processes consuming one turn in one database, exactly one wins."""

        async def save() -> None:
            async with PostgresStore(postgres_dsn, schema=pg_schema) as store:
                await store.save("s-1", turn(1).messages, turn(1))

        asyncio.run(save())
        outcomes = race_processes("postgres", postgres_dsn, RESUME, pg_schema)
        assert sorted(outcomes) == [False] * (RACERS - 1) + [True]


class TestStoredForm:
    def test_the_field_a_store_rewrites_carries_no_check(self) -> None:
        """Messages, which a store swaps for its history, have no check to skip."""
        messages = attrs.fields(InterruptedTurn).messages
        assert messages.validator is None
        assert messages.converter is None

    def test_the_stored_form_is_the_wire_form_without_messages(self) -> None:
        """A store keeps a turn as dumps writes it, less its messages: no rule added."""
        paused = contract_turn(1)
        stored = json.loads(stored_turn_json(paused))
        assert stored == json.loads(dumps(attrs.evolve(paused, messages=())))
        approval = stored["interrupts"][1]["accepts"]
        assert approval == {
            "respond": None,
            "restart": DECISION_SCHEMA,
            "replace_input": None,
        }

    @pytest.mark.parametrize(
        ("replace_input", "expected"),
        [
            (None, APPROVAL_ONLY),
            (
                {"type": "object"},
                Accepts(restart=DECISION_SCHEMA, replace_input={"type": "object"}),
            ),
        ],
    )
    def test_a_turn_the_last_release_stored_reads_back_whole(
        self, replace_input: JSON, expected: Accepts
    ) -> None:
        """An approval stored without its decision schema reads back with it."""
        paused = contract_turn(1)
        old = json.loads(stored_turn_json(paused))
        old["interrupts"][1]["accepts"] = {
            "respond": None,
            "restart": None,
            "replace_input": replace_input,
        }
        back = turn_from_json(json.dumps(old))
        assert back.interrupts[1].accepts == expected
        assert back.interrupts[0] == paused.interrupts[0]
        decided = Resume(
            respond=[Respond("ask_user", "call-1", "Yes")],
            restart=[back.interrupts[1].approve()],
        )
        resolved = validate_resume(decided, back, policy=ResumePolicy(now=lambda: NOW))
        assert len(resolved.answers) == len(back.interrupts)

    def test_a_turn_through_its_stored_form_is_the_turn(self) -> None:
        """The stored form reads back as the turn, each approval with its schemas."""
        request = ToolRequest("pay", "call-9", {"n": 1})
        approval = PendingInterrupt(
            "call-9", ApprovalPending("call-9"), None, request, APPROVAL_ONLY
        )
        paused = attrs.evolve(turn(1), interrupts=(pending(NOW), approval))
        back = turn_from_json(stored_turn_json(paused))
        assert back == attrs.evolve(paused, messages=())
        assert back.interrupts[1].accepts == APPROVAL_ONLY
        stored = StoredTurn(back, len(paused.messages), "open")
        assert stored.with_history(paused.messages) == paused

    def test_a_turn_with_its_history_keeps_the_messages_it_paused_after(self) -> None:
        """with_history takes the turn's first messages only, as attrs.evolve would."""
        history = (*turn(1).messages, Message.of_text(Role.MODEL, "later"))
        stored = StoredTurn(attrs.evolve(turn(1), messages=()), 1, "open")
        whole = stored.with_history(history)
        assert whole == turn(1)
        assert whole.messages == history[:1]
        assert stored.turn.messages == ()


class TestStoreModule:
    def test_postgres_store_without_psycopg_pool_names_its_extra(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Without psycopg_pool (part of the extra), PostgresStore is ExtraMissing."""
        monkeypatch.setitem(sys.modules, "psycopg_pool", None)
        monkeypatch.delitem(
            sys.modules, "interruption.runtime.store._postgres", raising=False
        )
        monkeypatch.delattr(interruption.runtime.store, "PostgresStore", raising=False)
        with pytest.raises(ExtraMissing) as caught:
            interruption.runtime.store.PostgresStore("postgresql://localhost/app")
        assert caught.value.extra == "postgres"
        assert "psycopg_pool" in str(caught.value)

    def test_unknown_attribute(self) -> None:
        """The package names its stores and nothing else."""
        with pytest.raises(
            AttributeError, match=r"interruption\.runtime\.store attribute Nope"
        ):
            getattr(interruption.runtime.store, "Nope")  # noqa: B009 - the point
