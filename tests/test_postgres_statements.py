"""`PostgresStore`'s folded statements: round trips, and what they refuse whole."""

import asyncio
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from typing import Any

import attrs
import psycopg
import pytest
from interruption.errors import SessionInUse
from interruption.parts import Message, Role
from interruption.resume import InterruptedTurn
from interruption.runtime.store import PostgresStore, _postgres
from interruption.runtime.store._base import AuditEvent
from interruption.testing.store_contract import NOW, RESUME, turn
from psycopg import AsyncConnection, sql

from tests.conftest import fresh_schema


def said(*texts: str) -> tuple[Message, ...]:
    """Messages of the user, one per text."""
    return tuple(Message.of_text(Role.USER, text) for text in texts)


@asynccontextmanager
async def opened(dsn: str, schema: str) -> AsyncIterator[PostgresStore]:
    """A store, open, closed afterwards."""
    async with PostgresStore(dsn, schema=schema) as store:
        yield store


FIRST = (*said("hello"), *turn(1).messages)
"""The history that ends in turn 1."""


async def paused(store: PostgresStore) -> InterruptedTurn:
    """Save `FIRST` and turn 1; return the turn with its history."""
    await store.save("s-1", FIRST, turn(1))
    return attrs.evolve(turn(1), messages=FIRST)


class TestRoundTrips:
    def test_each_call_is_one_statement(
        self, postgres_dsn: str, pg_schema: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """No call opens a transaction; only a first save counts messages first.

        A store remembers how many messages each session had when it last
        read or wrote it, so its next write needs no count.
        """
        counted: list[str] = []
        execute = AsyncConnection.execute

        def counting(conn: AsyncConnection[Any], *args: Any, **kwargs: Any) -> Any:
            counted.append("execute")
            return execute(conn, *args, **kwargs)

        def refused(*_args: object, **_kwargs: object) -> None:
            counted.append("transaction")

        async def count(call: Awaitable[object]) -> int:
            counted.clear()
            await call
            assert "transaction" not in counted
            return len(counted)

        async def go() -> dict[str, int]:
            async with opened(postgres_dsn, pg_schema) as store:
                monkeypatch.setattr(AsyncConnection, "execute", counting)
                monkeypatch.setattr(AsyncConnection, "transaction", refused)
                first, second, later = turn(1), turn(2), (*FIRST, *said("more"))
                step = Message.of_text(Role.MODEL, "working")
                return {
                    "save": await count(store.save("s-1", FIRST, first)),
                    "load_history": await count(store.load_history("s-1")),
                    "load_turn": await count(store.load_turn("s-1")),
                    "consume": await count(store.consume(first, RESUME, None)),
                    "record": await count(store.record("s-1", 1, [step])),
                    "finish": await count(store.finish(first, later, second)),
                    "close": await count(store.finish(second, later, close=RESUME)),
                    "save again": await count(store.save("s-1", (*later, step))),
                    "keep": await count(store.keep("run-1", b"state", None)),
                    "kept": await count(store.kept("run-1")),
                    "expire": await count(store.expire(NOW)),
                }

        assert asyncio.run(go()) == {
            "save": 2,
            "load_history": 1,
            "load_turn": 1,
            "consume": 1,
            "record": 1,
            "finish": 1,
            "close": 1,
            "save again": 1,
            "keep": 1,
            "kept": 1,
            "expire": 1,
        }


class TestRememberedCounts:
    def test_a_count_another_store_outgrew_skips_what_is_kept(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """A store that knows fewer messages than there are appends only the rest."""

        async def go() -> None:
            async with (
                opened(postgres_dsn, pg_schema) as one,
                opened(postgres_dsn, pg_schema) as other,
            ):
                await one.save("s-1", FIRST, turn(1))
                assert await other.load_history("s-1") == FIRST
                await one.save("s-1", (*FIRST, *said("one")))
                whole = (*FIRST, *said("one", "other"))
                await other.save("s-1", whole)
                assert await one.load_history("s-1") == whole

        asyncio.run(go())

    def test_counts_past_the_limit_are_forgotten_and_read_again(
        self, postgres_dsn: str, pg_schema: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Past `_KNOWN` sessions a store forgets them all; writes stay right."""
        monkeypatch.setattr(_postgres, "_KNOWN", 2)

        async def go() -> None:
            async with opened(postgres_dsn, pg_schema) as store:
                for session in ("s-1", "s-2", "s-3", "s-1"):
                    history = await store.load_history(session) or ()
                    await store.save(session, (*history, *said(session)))
                assert await store.load_history("s-1") == said("s-1", "s-1")
                assert await store.load_history("s-3") == said("s-3")

        asyncio.run(go())

    def test_a_session_with_fewer_messages_than_known_is_written_whole(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """If messages went (a database restored from a backup), all are written."""

        async def go() -> None:
            async with opened(postgres_dsn, pg_schema) as store:
                first = await paused(store)
                assert await store.consume(first, RESUME, None)
                async with await AsyncConnection.connect(
                    postgres_dsn, autocommit=True
                ) as admin:
                    await admin.execute(
                        sql.SQL("DELETE FROM {}.messages").format(
                            sql.Identifier(pg_schema)
                        )
                    )
                later = (*FIRST, *said("more"))
                assert await store.finish(first, later)
                assert await store.load_history("s-1") == later

        asyncio.run(go())


class TestFinish:
    def test_a_taken_following_id_writes_nothing(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """The turn stays consumed, the history and the trail as they were."""

        async def go() -> None:
            async with opened(postgres_dsn, pg_schema) as store:
                first = await paused(store)
                assert await store.consume(first, RESUME, None)
                event = AuditEvent("s-1", 1, "paused", NOW)
                with pytest.raises(ValueError, match="expected a turn id above"):
                    await store.finish(
                        first, (*first.messages, *said("more")), turn(1), events=[event]
                    )
                stored = await store.load_turn("s-1")
                assert stored is not None
                assert stored.state == "consumed"
                assert await store.load_history("s-1") == first.messages
                assert await store.audit("s-1") == ()

        asyncio.run(go())

    def test_closing_with_a_taken_following_id_writes_nothing(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """An open turn closed with a taken following id stays open, unclaimed."""

        async def go() -> None:
            async with opened(postgres_dsn, pg_schema) as store:
                first = await paused(store)
                with pytest.raises(ValueError, match="expected a turn id above"):
                    await store.finish(first, first.messages, turn(1), close=RESUME)
                stored = await store.load_turn("s-1")
                assert stored is not None
                assert (stored.state, stored.resume) == ("open", None)

        asyncio.run(go())

    def test_closing_a_turn_not_open_is_false_before_the_following_id(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """A close of a consumed turn is False, whatever follows it."""

        async def go() -> None:
            async with opened(postgres_dsn, pg_schema) as store:
                first = await paused(store)
                assert await store.consume(first, RESUME, None)
                assert not await store.finish(
                    first, first.messages, turn(1), close=RESUME
                )

        asyncio.run(go())


async def blocked(admin: AsyncConnection[Any], name: str) -> None:
    """Wait until the store's connection named *name* waits for a lock."""
    for _ in range(500):
        cursor = await admin.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE application_name = %s AND wait_event_type = 'Lock'",
            (name,),
        )
        row = await cursor.fetchone()
        if row is not None and row[0]:
            return
        await asyncio.sleep(0.01)
    pytest.fail("the store never waited for the other writer")


class TestConcurrentWriters:
    async def race(
        self, dsn: str, schema: str, call: str, meanwhile: str
    ) -> tuple[PostgresStore, object]:
        """Keep turn 2 by *call* while another transaction runs *meanwhile*.

        The other transaction commits once the call waits for it.
        """
        name = fresh_schema()
        store = PostgresStore(f"{dsn} application_name={name}", schema=schema)
        first = await paused(store)
        assert await store.consume(first, RESUME, None)
        second = turn(2)
        history = (*FIRST, *said("next"), *second.messages)
        async with await AsyncConnection.connect(dsn, autocommit=True) as other:
            await other.execute(
                sql.SQL("SET search_path TO {}").format(sql.Identifier(schema))
            )
            async with other.transaction():
                await other.execute(meanwhile, {"seq": len(FIRST)})
                writing = asyncio.create_task(
                    store.save("s-1", history, second)
                    if call == "save"
                    else store.finish(first, history, second)
                )
                await blocked(other, name)
            outcome = (await asyncio.gather(writing, return_exceptions=True))[0]
        return store, outcome

    @pytest.mark.parametrize("call", ["save", "finish"])
    def test_a_turn_kept_meanwhile_refuses_the_write(
        self, postgres_dsn: str, pg_schema: str, call: str
    ) -> None:
        """A writer that keeps the same turn id first wins; the call writes nothing."""

        async def go() -> None:
            store, outcome = await self.race(
                postgres_dsn,
                pg_schema,
                call,
                "INSERT INTO turns (session, turn_id, body) VALUES ('s-1', 2, '{}')",
            )
            assert isinstance(outcome, ValueError)
            assert await store.load_history("s-1") == FIRST
            first = await store.load_turn("s-1", 1)
            assert first is not None
            assert first.state == "consumed"
            await store.close()

        asyncio.run(go())

    @pytest.mark.parametrize("call", ["save", "finish"])
    def test_messages_appended_meanwhile_fail_the_write_whole(
        self, postgres_dsn: str, pg_schema: str, call: str
    ) -> None:
        """A writer that appends first wins; the other gets SessionInUse, no turn."""

        async def go() -> None:
            store, outcome = await self.race(
                postgres_dsn,
                pg_schema,
                call,
                "INSERT INTO messages (session, seq, body) "
                "VALUES ('s-1', %(seq)s, 'x')",
            )
            assert isinstance(outcome, SessionInUse)
            assert isinstance(outcome.__context__, psycopg.errors.UniqueViolation)
            assert await store.load_turn("s-1", 2) is None
            first = await store.load_turn("s-1", 1)
            assert first is not None
            assert first.state == "consumed"
            await store.close()

        asyncio.run(go())
