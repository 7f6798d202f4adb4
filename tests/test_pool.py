"""How `PostgresStore` pools its connections, seen from outside, on a real server.

The store pools with psycopg_pool, and runs every call on one loop of its
own; these tests pin what a caller sees: how many connections the server
holds (``pg_stat_activity``), which calls are served, and which fail with
which `StoreUnavailable`. The server refuses connections (a role's
connection limit), drops them (``pg_terminate_backend``) and holds
statements (a table lock) for real.
"""

import asyncio
import concurrent.futures
import multiprocessing
import threading
import time
from multiprocessing.queues import Queue

import psycopg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from interruption import InvalidArgument, StoreUnavailable
from interruption.runtime.loop import run_sync
from interruption.runtime.store import PostgresStore, _postgres
from interruption.runtime.store._base import StoredTurn
from interruption.runtime.store._postgres import _LoopThread
from psycopg.conninfo import make_conninfo

from tests._postgres import limited_role, locked
from tests._stores import backends
from tests.conftest import drop_schema, fresh_schema


def named(dsn: str) -> tuple[str, str]:
    """A fresh application name, and *dsn* with it (the server counts by it)."""
    name = fresh_schema()
    return name, make_conninfo(dsn, application_name=name)


def settled(dsn: str, name: str, expected: int) -> int:
    """The server's connections named *name*, once *expected* (5 s at most).

    A connection a client closed leaves the server's view a moment later.
    """
    deadline = time.monotonic() + 5
    while (count := backends(dsn, name)) != expected and time.monotonic() < deadline:
        time.sleep(0.02)
    return count


def stop(loop: asyncio.AbstractEventLoop) -> None:
    """Stop a `_LoopThread`'s loop, and wait until its thread closed it."""
    loop.call_soon_threadsafe(loop.stop)
    deadline = time.monotonic() + 5
    while not loop.is_closed() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert loop.is_closed()


def terminate(dsn: str, name: str) -> None:
    """End every server connection named *name*, as a server restart would."""
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE application_name = %s",
            (name,),
        )


async def waiting(store: PostgresStore, count: int) -> None:
    """Yield until *count* calls of *store* wait for a connection (5 s at most)."""
    deadline = time.monotonic() + 5
    # How many calls wait shows nowhere but in the store; it has no event.
    while waiters(store) < count and time.monotonic() < deadline:  # noqa: ASYNC110
        await asyncio.sleep(0.01)
    assert waiters(store) >= count


def waiters(store: PostgresStore) -> int:
    """How many calls of *store* wait for a connection now, on any of its loops."""
    return sum(len(waiting) for waiting in store._waiting.values())


async def served_or_failure(store: PostgresStore) -> str:
    """``"served"`` if a call is served, else the reason it is unavailable."""
    try:
        outcome = await store.load_turn("s-1")
    except StoreUnavailable as failed:
        return failed.reason
    return "served" if outcome is None else repr(outcome)


async def started(call: "asyncio.Future[StoredTurn | None]") -> None:
    """Give *call* time to reach the server (where a lock holds it)."""
    await asyncio.sleep(0.2)
    assert not call.done()


@pytest.fixture(name="opened")
def _opened(postgres_dsn: str, pg_schema: str) -> None:
    """The test's schema with the store's tables in it (a lock needs them)."""
    asyncio.run(_migrate(postgres_dsn, pg_schema))


async def _migrate(dsn: str, schema: str) -> None:
    async with PostgresStore(dsn, schema=schema, min_size=0):
        pass


class TestConnections:
    def test_opens_on_demand_and_reuses(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """Nothing connects before a call; calls one after another share one."""
        name, dsn = named(postgres_dsn)
        store = PostgresStore(dsn, schema=pg_schema)
        assert backends(postgres_dsn, name) == 0

        async def go() -> None:
            for _ in range(5):
                assert await store.load_turn("s-1") is None
            assert backends(postgres_dsn, name) == 1
            await store.close()

        asyncio.run(go())
        assert settled(postgres_dsn, name, 0) == 0

    def test_never_opens_more_than_max_size(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """Twenty concurrent calls are all served by max_size connections."""
        name, dsn = named(postgres_dsn)

        async def go() -> list[StoredTurn | None]:
            async with PostgresStore(dsn, schema=pg_schema, max_size=2) as store:
                served = await asyncio.gather(
                    *(store.load_turn("s-1") for _ in range(20))
                )
                assert backends(postgres_dsn, name) == 2
                return served

        assert asyncio.run(go()) == [None] * 20

    def test_calls_one_after_another_use_the_connection_given_back_last(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """With min_size connections idle, calls in a row all run on one of them."""
        name, dsn = named(postgres_dsn)

        async def go() -> int:
            async with PostgresStore(dsn, schema=pg_schema, min_size=3) as store:
                assert backends(postgres_dsn, name) == 3
                for _ in range(9):
                    assert await store.load_turn("s-1") is None
                with psycopg.connect(postgres_dsn, autocommit=True) as admin:
                    row = admin.execute(
                        "SELECT count(*) FROM pg_stat_activity "
                        "WHERE application_name = %s AND query LIKE %s",
                        (name, "%FROM turns t LEFT JOIN LATERAL%"),
                    ).fetchone()
                assert row is not None
                return int(row[0])

        assert asyncio.run(go()) == 1

    @settings(max_examples=8, deadline=None)
    @given(
        max_size=st.integers(1, 3),
        batches=st.lists(
            st.tuples(st.integers(1, 8), st.booleans()), min_size=1, max_size=3
        ),
    )
    def test_serves_within_max_size_whatever_drops(
        self, postgres_dsn: str, max_size: int, batches: list[tuple[int, bool]]
    ) -> None:
        """Whatever calls and drops: served or unreachable, within max_size.

        Each call is served, or unreachable only once a drop happened (a
        connection dropped while idle fails the call that takes it next);
        the server never holds more than max_size connections; and one of
        max_size + 1 calls after the last drop is served.
        """
        name, dsn = named(postgres_dsn)
        schema = fresh_schema()

        async def go() -> None:
            async with PostgresStore(dsn, schema=schema, max_size=max_size) as store:
                dropped = False
                for calls, drop in batches:
                    if drop:
                        terminate(postgres_dsn, name)
                    dropped |= drop
                    outcomes = await asyncio.gather(
                        *(store.load_turn("s-1") for _ in range(calls)),
                        return_exceptions=True,
                    )
                    for outcome in outcomes:
                        if outcome is not None:
                            assert dropped
                            assert isinstance(outcome, StoreUnavailable)
                            assert outcome.reason == "unreachable"
                    assert backends(postgres_dsn, name) <= max_size
                after = [await served_or_failure(store) for _ in range(max_size + 1)]
                assert "served" in after
                assert set(after) <= {"served", "unreachable"}

        try:
            asyncio.run(go())
        finally:
            drop_schema(postgres_dsn, schema)
        assert settled(postgres_dsn, name, 0) == 0

    def test_a_dropped_connection_frees_its_slot(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """With max_size=1, after the server drops the connection, a call is served."""
        name, dsn = named(postgres_dsn)

        async def go() -> None:
            async with PostgresStore(dsn, schema=pg_schema, max_size=1) as store:
                terminate(postgres_dsn, name)
                with pytest.raises(StoreUnavailable) as dropped:
                    await store.load_turn("s-1")
                assert dropped.value.reason == "unreachable"
                assert isinstance(dropped.value.__cause__, psycopg.OperationalError)
                assert await store.load_turn("s-1") is None
                assert backends(postgres_dsn, name) == 1

        asyncio.run(go())

    def test_a_refused_connection_frees_its_slot(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """A connection the server refused fails its call; the next call connects."""
        with limited_role(postgres_dsn, 0) as role:
            store = PostgresStore(role.dsn, schema=pg_schema, max_size=1)

            async def go() -> None:
                with pytest.raises(StoreUnavailable, match="too many") as refused:
                    await store.open()
                assert refused.value.reason == "unreachable"
                assert isinstance(refused.value.__cause__, psycopg.OperationalError)
                role.limit(1)
                assert await store.load_turn("s-1") is None
                await store.close()

            asyncio.run(go())

    def test_a_refused_connection_fails_the_waiting_calls_at_once(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """Calls waiting for a connection the server refuses fail then, not later."""
        with limited_role(postgres_dsn, 1) as role:
            store = PostgresStore(role.dsn, schema=pg_schema, max_size=3, timeout=60)

            async def go() -> None:
                await store.open()
                with locked(postgres_dsn, pg_schema):
                    held = asyncio.ensure_future(store.load_turn("s-1"))
                    await started(held)
                    begun = time.monotonic()
                    refused = await asyncio.gather(
                        store.load_turn("s-1"),
                        store.load_turn("s-1"),
                        return_exceptions=True,
                    )
                    assert time.monotonic() - begun < 10
                assert await held is None
                for failed in refused:
                    assert isinstance(failed, StoreUnavailable)
                    assert failed.reason == "unreachable"
                    assert isinstance(failed.__cause__, psycopg.OperationalError)
                assert await store.load_turn("s-1") is None
                await store.close()

            asyncio.run(go())


class TestWaiting:
    @pytest.mark.usefixtures("opened")
    def test_waits_for_a_free_connection_within_timeout(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """No connection free in time is StoreUnavailable (busy), saying so."""
        store = PostgresStore(postgres_dsn, schema=pg_schema, max_size=1, timeout=0.2)

        async def go() -> None:
            with locked(postgres_dsn, pg_schema):
                held = asyncio.ensure_future(store.load_turn("s-1"))
                await started(held)
                with pytest.raises(StoreUnavailable) as busy:
                    await store.load_turn("s-1")
            assert busy.value.reason == "busy"
            assert str(busy.value) == (
                f"PostgresStore (schema {pg_schema!r}): no free connection "
                "within 0.2 s (max_size=1)"
            )
            assert await held is None
            assert await store.load_turn("s-1") is None
            await store.close()

        asyncio.run(go())

    @pytest.mark.usefixtures("opened")
    def test_a_cancelled_wait_passes_on_its_turn(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """A call cancelled while it waits for a connection leaves the others served."""
        store = PostgresStore(postgres_dsn, schema=pg_schema, max_size=1)

        async def go() -> None:
            with locked(postgres_dsn, pg_schema):
                held = asyncio.ensure_future(store.load_turn("s-1"))
                await started(held)
                cancelled = asyncio.ensure_future(store.load_turn("s-1"))
                served = asyncio.ensure_future(store.load_turn("s-1"))
                await waiting(store, 2)
                cancelled.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await cancelled
            assert await held is None
            assert await served is None
            await store.close()

        asyncio.run(go())

    @pytest.mark.usefixtures("opened")
    def test_a_connection_freed_as_its_waiter_is_cancelled_stays_free(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """Cancelling the one waiting call as the connection frees loses no slot."""
        name, dsn = named(postgres_dsn)
        store = PostgresStore(dsn, schema=pg_schema, max_size=1)

        async def go() -> None:
            with locked(postgres_dsn, pg_schema):
                held = asyncio.ensure_future(store.load_turn("s-1"))
                await started(held)
                cancelled = asyncio.ensure_future(store.load_turn("s-1"))
                await waiting(store, 1)
                cancelled.cancel()
            assert await held is None
            with pytest.raises(asyncio.CancelledError):
                await cancelled
            assert await store.load_turn("s-1") is None
            assert backends(postgres_dsn, name) == 1
            await store.close()

        asyncio.run(go())

    @pytest.mark.usefixtures("opened")
    def test_a_timed_out_wait_passes_on_its_turn(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """A call whose wait timed out leaves a call that waits after it served."""
        store = PostgresStore(postgres_dsn, schema=pg_schema, max_size=1, timeout=2)

        async def go() -> None:
            with locked(postgres_dsn, pg_schema):
                held = asyncio.ensure_future(store.load_turn("s-1"))
                await started(held)
                first = asyncio.ensure_future(store.load_turn("s-1"))
                await asyncio.sleep(1)
                second = asyncio.ensure_future(store.load_turn("s-1"))
                with pytest.raises(StoreUnavailable, match="no free connection"):
                    await first
            assert await held is None
            assert await second is None
            await store.close()

        asyncio.run(go())

    @pytest.mark.usefixtures("opened")
    def test_a_call_cancelled_at_the_server_frees_its_connection(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """A call cancelled while its statement waits at the server: served on."""
        name, dsn = named(postgres_dsn)
        store = PostgresStore(dsn, schema=pg_schema, max_size=1)

        async def go() -> None:
            with locked(postgres_dsn, pg_schema):
                held = asyncio.ensure_future(store.load_turn("s-1"))
                await started(held)
                held.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await held
            assert await store.load_turn("s-1") is None
            assert backends(postgres_dsn, name) == 1
            await store.close()

        asyncio.run(go())


class TestClosing:
    @pytest.mark.usefixtures("opened")
    def test_close_fails_the_waiting_calls(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """Calls waiting for a connection fail (closed) when the store closes."""
        name, dsn = named(postgres_dsn)
        store = PostgresStore(dsn, schema=pg_schema, max_size=1)

        async def go() -> None:
            with locked(postgres_dsn, pg_schema):
                held = asyncio.ensure_future(store.load_turn("s-1"))
                await started(held)
                waiter = asyncio.ensure_future(store.load_turn("s-1"))
                await waiting(store, 1)
                await store.close()
                with pytest.raises(StoreUnavailable) as closed:
                    await waiter
            assert closed.value.reason == "closed"
            assert str(closed.value) == (
                f"PostgresStore (schema {pg_schema!r}): the store was closed"
            )
            assert await held is None  # the call under way ends, then its connection

        asyncio.run(go())
        assert settled(postgres_dsn, name, 0) == 0

    def test_a_closed_store_refuses_calls(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """After close a call is StoreUnavailable (closed); closing again is a no-op."""

        async def go() -> None:
            store = PostgresStore(postgres_dsn, schema=pg_schema)
            assert await store.load_turn("s-1") is None
            await store.close()
            await store.close()
            with pytest.raises(StoreUnavailable, match="closed") as refused:
                await store.load_turn("s-1")
            assert refused.value.reason == "closed"
            with pytest.raises(StoreUnavailable, match="closed"):
                await store.open()

        asyncio.run(go())


class TestOpen:
    def test_open_readies_min_size_at_most_max_size(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """Open has min_size connections ready, idle ones included, at most max_size."""
        two, two_dsn = named(postgres_dsn)
        three, three_dsn = named(postgres_dsn)

        async def go() -> None:
            async with PostgresStore(
                two_dsn, schema=pg_schema, min_size=2, max_size=3
            ) as store:
                assert backends(postgres_dsn, two) == 2
                await store.open()
                assert backends(postgres_dsn, two) == 2
            async with PostgresStore(
                three_dsn, schema=pg_schema, min_size=9, max_size=3
            ):
                assert backends(postgres_dsn, three) == 3

        asyncio.run(go())

    def test_a_failure_while_warming_is_reported_and_the_rest_kept(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """When the server refuses some of min_size, open fails; the others serve.

        A refused connection fails the call it was for, not those that the
        connections already open serve.
        """
        name = fresh_schema()
        with limited_role(postgres_dsn, 2) as role:
            dsn = make_conninfo(role.dsn, application_name=name)
            store = PostgresStore(dsn, schema=pg_schema, min_size=3, max_size=3)

            async def go() -> None:
                with pytest.raises(StoreUnavailable, match="too many") as refused:
                    await store.open()
                assert refused.value.reason == "unreachable"
                assert backends(postgres_dsn, name) == 2
                outcomes = [await served_or_failure(store) for _ in range(3)] + list(
                    await asyncio.gather(*(served_or_failure(store) for _ in range(6)))
                )
                assert outcomes[:3] == ["served"] * 3
                # Of six at once, four wait: the one a new connection was for
                # fails when it is refused, and so may one more (the pool
                # tries twice); the others are served by the two held.
                assert outcomes.count("served") >= 3 + 4
                assert set(outcomes) <= {"served", "unreachable"}
                assert backends(postgres_dsn, name) == 2
                await store.close()

            asyncio.run(go())

    @pytest.mark.parametrize(("min_size", "max_size"), [(-1, 10), (1, 0), (True, 2)])
    def test_sizes_out_of_range_are_refused(self, min_size: int, max_size: int) -> None:
        """A negative min_size, a max_size below 1, a bool: InvalidArgument at once."""
        with pytest.raises(InvalidArgument, match="size"):
            PostgresStore("host=db", min_size=min_size, max_size=max_size)


class TestLoops:
    def test_serves_one_event_loop_after_another(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """A connection used in one event loop serves a call in the next."""
        name, dsn = named(postgres_dsn)
        store = PostgresStore(dsn, schema=pg_schema)
        assert asyncio.run(store.load_turn("s-1")) is None
        assert asyncio.run(store.load_turn("s-1")) is None
        assert backends(postgres_dsn, name) == 1
        asyncio.run(store.close())

    def test_serves_loops_of_several_threads(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """Loops in four threads share max_size connections; every call is served."""
        name, dsn = named(postgres_dsn)
        store = PostgresStore(dsn, schema=pg_schema, max_size=2)

        async def many() -> list[StoredTurn | None]:
            return await asyncio.gather(*(store.load_turn("s-1") for _ in range(5)))

        with concurrent.futures.ThreadPoolExecutor(4) as threads:
            runs = list(threads.map(lambda _: asyncio.run(many()), range(4)))
        assert backends(postgres_dsn, name) <= 2
        asyncio.run(store.close())
        assert [outcome for run in runs for outcome in run] == [None] * 20

    def test_blocking_callers_of_many_threads_share_max_size(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """run_sync in eight threads (the blocking twins' path) keeps to max_size."""
        name, dsn = named(postgres_dsn)
        store = PostgresStore(dsn, schema=pg_schema, max_size=2)

        def calls(_: int) -> list[StoredTurn | None]:
            return [run_sync(store.load_turn("s-1")) for _ in range(4)]

        with concurrent.futures.ThreadPoolExecutor(8) as threads:
            runs = list(threads.map(calls, range(8)))
        assert backends(postgres_dsn, name) <= 2
        run_sync(store.close())
        assert [outcome for run in runs for outcome in run] == [None] * 32

    @pytest.mark.usefixtures("opened")
    def test_a_call_whose_loop_closed_strands_nothing(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """A loop closed while its call waited (not cancelled) strands no connection."""
        store = PostgresStore(postgres_dsn, schema=pg_schema, max_size=1)

        def strand() -> None:
            loop = asyncio.new_event_loop()
            loop.set_exception_handler(lambda *_: None)  # the task left behind
            task = loop.create_task(store.load_turn("s-1"))
            loop.run_until_complete(asyncio.sleep(0.3))
            assert not task.done()
            loop.close()

        async def go() -> None:
            with locked(postgres_dsn, pg_schema):
                held = asyncio.ensure_future(store.load_turn("s-1"))
                await started(held)
                thread = threading.Thread(target=strand)
                thread.start()
                await asyncio.to_thread(thread.join)
            assert await held is None
            assert await store.load_turn("s-1") is None
            await store.close()

        asyncio.run(go())

    def test_a_forked_child_is_served_by_the_parents_store(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """A store used before a fork serves the child, on connections of its own."""
        store = PostgresStore(postgres_dsn, schema=pg_schema)
        assert asyncio.run(store.load_turn("s-1")) is None
        context = multiprocessing.get_context("fork")
        results: Queue[str] = context.Queue()
        child = context.Process(target=_in_child, args=(store, results))
        child.start()
        outcome = results.get(timeout=60)
        child.join(timeout=60)
        assert outcome == "served"
        assert asyncio.run(store.load_turn("s-1")) is None  # the parent's still serve
        asyncio.run(store.close())


class TestOpeningLoop:
    def test_the_loop_that_opened_the_store_is_served_where_it_is(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """Calls from the loop that opened the store use a pool on that loop."""

        async def go() -> None:
            async with PostgresStore(postgres_dsn, schema=pg_schema) as store:
                assert await store.load_turn("s-1") is None
                assert list(store._pools) == [asyncio.get_running_loop()]

        asyncio.run(go())

    def test_a_blocking_callers_open_binds_nothing(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """open() through run_sync leaves the store on its own loop: it serves on."""
        name, dsn = named(postgres_dsn)
        store = PostgresStore(dsn, schema=pg_schema, max_size=3)
        run_sync(store.open())

        async def many() -> list[StoredTurn | None]:
            return await asyncio.gather(*(store.load_turn("s-1") for _ in range(3)))

        for _ in range(3):  # the pool outlives each call, so more connections come
            assert run_sync(many()) == [None] * 3
        assert list(store._pools) == [_postgres._HOME.loop()]
        assert backends(postgres_dsn, name) <= 3
        run_sync(store.close())

    def test_opening_again_after_the_opening_loop_ended_binds_the_new_one(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """A store opened by an asyncio.run that ended is bound by the next open."""
        store = PostgresStore(postgres_dsn, schema=pg_schema)
        asyncio.run(store.open())
        assert asyncio.run(store.load_turn("s-1")) is None  # the stores' own loop

        async def reopen() -> asyncio.AbstractEventLoop:
            await store.open()
            assert await store.load_turn("s-1") is None
            return asyncio.get_running_loop()

        loop = asyncio.run(reopen())
        assert store._local is loop
        assert loop in store._pools
        asyncio.run(store.close())

    def test_close_from_another_loop_closes_the_opening_loops_pool(
        self, postgres_dsn: str, pg_schema: str
    ) -> None:
        """A store opened by a loop running in a thread closes from any loop."""
        name, dsn = named(postgres_dsn)
        store = PostgresStore(dsn, schema=pg_schema, min_size=2)
        serving = asyncio.new_event_loop()
        thread = threading.Thread(target=serving.run_forever)
        thread.start()
        try:
            asyncio.run_coroutine_threadsafe(store.open(), serving).result(30)
            assert asyncio.run(store.load_turn("s-1")) is None  # the stores' own
            assert backends(postgres_dsn, name) == 3
            asyncio.run(store.close())
            assert settled(postgres_dsn, name, 0) == 0
        finally:
            serving.call_soon_threadsafe(serving.stop)
            thread.join()
            serving.close()


class TestLoopThread:
    def test_starts_on_first_use_and_again_after_a_fork(self) -> None:
        """No thread before the first use; after forget (a fork), a new loop runs."""
        home = _LoopThread()
        home.forget()  # nothing started: nothing to leave behind
        first = home.loop()
        assert home.loop() is first
        home.forget()
        second = home.loop()
        assert second is not first
        assert asyncio.run(home.run(asyncio.sleep(0, "ran"))) == "ran"
        for loop in (first, second):
            stop(loop)

    def test_a_store_whose_loop_is_gone_opens_a_pool_of_its_own(
        self, postgres_dsn: str, pg_schema: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A store whose pool's loop runs nowhere (a forked child) opens its own.

        A forked child's coverage is not measured, so the child's view is
        made here: the stores' loop is replaced as `forget` does in a child.
        """
        name, dsn = named(postgres_dsn)
        store = PostgresStore(dsn, schema=pg_schema)
        assert asyncio.run(store.load_turn("s-1")) is None
        parents_loop = _postgres._HOME.loop()
        parents = store._pools[parents_loop]
        child = _LoopThread()
        child._left.append(parents_loop)  # as `forget` leaves it in a child
        with monkeypatch.context() as patch:
            patch.setattr(_postgres, "_HOME", child)
            assert asyncio.run(store.load_turn("s-1")) is None
            assert store._pools[child.loop()] is not parents
            assert backends(postgres_dsn, name) == 2  # the parent's and its own
            asyncio.run(store.close())  # its own pool only: the other's loop is gone
        assert settled(postgres_dsn, name, 1) == 1
        # No child process ends here: close the parent's pool on its loop.
        asyncio.run_coroutine_threadsafe(parents.close(), parents_loop).result()
        assert settled(postgres_dsn, name, 0) == 0
        stop(child.loop())


def _in_child(store: PostgresStore, results: "Queue[str]") -> None:
    """In a forked child: one call of the parent's store, then close it."""

    async def go() -> str:
        try:
            outcome = await asyncio.wait_for(store.load_turn("s-1"), 30)
        finally:
            await store.close()
        return "served" if outcome is None else repr(outcome)

    try:
        results.put(asyncio.run(go()))
    except BaseException as error:  # noqa: BLE001 - reported to the parent
        results.put(repr(error))
