"""The connection pool of `PostgresStore`, through its own API, on fake connections."""

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from interruption import StoreUnavailable
from interruption.store._pool import Pool


@attrs.define(eq=False)
class FakeConnection:
    """A connection that knows whether it is held, closed, or fit for reuse."""

    number: int
    held: bool = False
    closed: bool = False
    usable: bool = True

    async def close(self) -> None:
        """Close it (twice is a bug of the pool)."""
        assert not self.closed, "closed twice"
        self.closed = True


@attrs.define
class Opener:
    """Opens numbered fake connections; the ones numbered in *fail* raise."""

    fail: frozenset[int] = frozenset()
    opened: list[FakeConnection] = attrs.field(factory=list)
    lock: threading.Lock = attrs.field(factory=threading.Lock)

    async def __call__(self) -> FakeConnection:
        """Open the next connection, yielding to the loop first like a real one."""
        await asyncio.sleep(0)
        with self.lock:
            conn = FakeConnection(len(self.opened) + 1)
            self.opened.append(conn)
        if conn.number in self.fail:
            msg = f"connection {conn.number} refused"
            raise OSError(msg)
        return conn


def reusable(conn: FakeConnection) -> bool:
    """A fake connection is reusable unless closed or marked unusable."""
    return conn.usable and not conn.closed


def pool_of(
    opener: Opener, max_size: int = 2, timeout: float = 30.0
) -> Pool[FakeConnection]:
    """A pool of fake connections named "FakeStore"."""
    return Pool(
        opener,
        reusable=reusable,
        max_size=max_size,
        timeout=timeout,
        name="FakeStore",
    )


async def use(pool: Pool[FakeConnection], *, usable: bool = True) -> int:
    """Hold a connection across a yield, check nobody else holds it, give it back."""
    async with pool.connection() as conn:
        assert not conn.held, "one connection held by two calls"
        assert not conn.closed
        conn.held = True
        await asyncio.sleep(0)
        conn.held = False
        conn.usable = usable
        return conn.number


async def waiting_for(pool: Pool[FakeConnection], count: int) -> None:
    """Yield to the loop until *count* calls wait for a connection."""
    while pool.waiting < count:  # noqa: ASYNC110 - the pool has no event to await
        await asyncio.sleep(0)


class TestPool:
    def test_opens_on_demand_and_reuses(self) -> None:
        """Nothing opens before a call; a returned connection serves the next call."""
        opener = Opener()
        pool = pool_of(opener)
        assert (pool.size, pool.idle) == (0, 0)

        async def go() -> None:
            assert await use(pool) == 1
            assert (pool.size, pool.idle) == (1, 1)
            assert await use(pool) == 1
            await pool.close()

        asyncio.run(go())
        assert len(opener.opened) == 1

    def test_never_opens_more_than_max_size(self) -> None:
        """Twenty concurrent calls share max_size connections, one call each at once."""
        opener = Opener()
        pool = pool_of(opener, max_size=2)

        async def go() -> list[int]:
            served = await asyncio.gather(*(use(pool) for _ in range(20)))
            assert (pool.size, pool.idle, pool.waiting) == (2, 2, 0)
            await pool.close()
            return served

        assert sorted(set(asyncio.run(go()))) == [1, 2]
        assert len(opener.opened) == 2

    @given(
        max_size=st.integers(1, 4),
        usable=st.lists(st.booleans(), min_size=1, max_size=24),
    )
    def test_serves_every_call_within_max_size(
        self, max_size: int, usable: list[bool]
    ) -> None:
        """Any batch of calls is served; at most max_size open, none held twice."""
        opener = Opener()
        pool = pool_of(opener, max_size=max_size)

        async def go() -> None:
            await asyncio.gather(*(use(pool, usable=fit) for fit in usable))
            assert pool.size == pool.idle <= max_size
            assert pool.waiting == 0
            await pool.close()

        asyncio.run(go())
        assert pool.size == 0
        assert all(conn.closed for conn in opener.opened)
        assert sum(not conn.usable for conn in opener.opened) == usable.count(False)

    def test_an_unusable_connection_is_closed_and_replaced(self) -> None:
        """A connection unfit for reuse is closed on release, and its slot freed."""
        opener = Opener()
        pool = pool_of(opener, max_size=1)

        async def go() -> None:
            assert await use(pool, usable=False) == 1
            assert (pool.size, pool.idle) == (0, 0)
            assert await use(pool) == 2
            await pool.close()

        asyncio.run(go())
        assert opener.opened[0].closed

    def test_a_failed_connect_frees_its_slot(self) -> None:
        """A connection that fails to open fails its call; the next call opens anew."""
        opener = Opener(fail=frozenset({1}))
        pool = pool_of(opener, max_size=1)

        async def go() -> None:
            with pytest.raises(OSError, match="connection 1 refused"):
                await use(pool)
            assert pool.size == 0
            assert await use(pool) == 2
            await pool.close()

        asyncio.run(go())

    def test_a_failed_connect_wakes_a_waiting_call(self) -> None:
        """When an open fails, a call waiting for the slot takes it."""
        pool = pool_of(Opener(fail=frozenset({1})), max_size=1)

        async def go() -> None:
            failing = asyncio.ensure_future(use(pool))  # opens connection 1
            waiting = asyncio.ensure_future(use(pool))
            await waiting_for(pool, 1)
            with pytest.raises(OSError, match="connection 1 refused"):
                await failing
            assert await waiting == 2
            await pool.close()

        asyncio.run(go())

    def test_waits_for_a_free_connection_within_timeout(self) -> None:
        """No free connection in time is StoreUnavailable (busy), saying so."""
        pool = pool_of(Opener(), max_size=1, timeout=0.05)

        async def go() -> None:
            async with pool.connection():
                with pytest.raises(StoreUnavailable) as raised:
                    await use(pool)
            assert raised.value.reason == "busy"
            assert str(raised.value) == (
                "FakeStore: no free connection within 0.05 s (max_size=1)"
            )
            assert await use(pool) == 1
            await pool.close()

        asyncio.run(go())

    def test_cancelled_wait_passes_on_its_turn(self) -> None:
        """A call cancelled while waiting for a connection leaves the others served."""
        pool = pool_of(Opener(), max_size=1)

        async def go() -> None:
            async with pool.connection():
                cancelled = asyncio.ensure_future(use(pool))
                served = asyncio.ensure_future(use(pool))
                await waiting_for(pool, 2)
                cancelled.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await cancelled
            assert await served == 1
            await pool.close()

        asyncio.run(go())

    def test_a_timed_out_wait_passes_on_its_turn(self) -> None:
        """A call whose wait timed out leaves another waiting call served."""
        pool = pool_of(Opener(), max_size=1, timeout=0.05)

        async def go() -> None:
            held = await pool.acquire()
            first = asyncio.ensure_future(use(pool))
            await waiting_for(pool, 1)
            pool.timeout = 30.0
            second = asyncio.ensure_future(use(pool))
            with pytest.raises(StoreUnavailable, match="no free connection"):
                await first
            await pool.release(held)
            assert await second == 1
            await pool.close()

        asyncio.run(go())

    def test_close_wakes_waiting_calls(self) -> None:
        """Calls waiting for a connection fail when the pool closes."""
        opener = Opener()
        pool = pool_of(opener, max_size=1)

        async def go() -> None:
            async with pool.connection():
                waiting = asyncio.ensure_future(use(pool))
                await waiting_for(pool, 1)
                await pool.close()
                with pytest.raises(StoreUnavailable) as raised:
                    await waiting
                assert raised.value.reason == "closed"
                assert str(raised.value) == "FakeStore: the store was closed"
            assert pool.size == 0

        asyncio.run(go())
        assert opener.opened[0].closed

    def test_a_wake_up_after_a_cancelled_wait_is_harmless(self) -> None:
        """A connection freed just as its waiting call is cancelled stays free."""
        pool = pool_of(Opener(), max_size=1)

        async def go() -> None:
            held = await pool.acquire()
            cancelled = asyncio.ensure_future(use(pool))
            await waiting_for(pool, 1)
            cancelled.cancel()
            await pool.release(held)  # wakes the call being cancelled
            with pytest.raises(asyncio.CancelledError):
                await cancelled
            assert (pool.size, pool.idle, pool.waiting) == (1, 1, 0)
            assert await use(pool) == 1
            await pool.close()

        asyncio.run(go())

    def test_closed_pool_refuses_calls(self) -> None:
        """After close a call is StoreUnavailable; closing again does nothing."""
        pool = pool_of(Opener())

        async def go() -> None:
            assert await use(pool) == 1
            await pool.close()
            await pool.close()
            assert pool.closed
            with pytest.raises(StoreUnavailable, match="closed") as raised:
                await use(pool)
            assert raised.value.reason == "closed"

        asyncio.run(go())

    def test_warm_opens_count_connections_at_most_max_size(self) -> None:
        """Warm has count connections open, idle ones included, never above max_size."""
        opener = Opener()
        pool = pool_of(opener, max_size=3)

        async def go() -> None:
            await use(pool)
            await pool.warm(2)
            assert (pool.size, pool.idle) == (2, 2)
            await pool.warm(2)
            await pool.warm(9)
            assert (pool.size, pool.idle) == (3, 3)
            await pool.close()

        asyncio.run(go())
        assert len(opener.opened) == 3

    def test_warm_reports_a_failure_and_keeps_the_rest(self) -> None:
        """When some connections fail to open, warm raises and keeps the others."""
        pool = pool_of(Opener(fail=frozenset({2})), max_size=3)

        async def go() -> None:
            with pytest.raises(OSError, match="connection 2 refused"):
                await pool.warm(3)
            assert (pool.size, pool.idle) == (2, 2)
            await pool.close()

        asyncio.run(go())

    def test_serves_one_event_loop_after_another(self) -> None:
        """A connection returned in one event loop serves a call in the next."""
        opener = Opener()
        pool = pool_of(opener)
        assert asyncio.run(use(pool)) == 1
        assert asyncio.run(use(pool)) == 1
        asyncio.run(pool.close())
        assert len(opener.opened) == 1

    def test_serves_loops_of_several_threads(self) -> None:
        """Loops in four threads share two connections; every call is served."""
        opener = Opener()
        pool = pool_of(opener, max_size=2)

        async def many() -> list[int]:
            return await asyncio.gather(*(use(pool) for _ in range(5)))

        with concurrent.futures.ThreadPoolExecutor(4) as threads:
            runs = list(threads.map(lambda _: asyncio.run(many()), range(4)))
        asyncio.run(pool.close())
        assert sum(len(run) for run in runs) == 20
        assert len(opener.opened) <= 2
        assert all(conn.closed for conn in opener.opened)

    def test_skips_waiters_of_closed_loops(self) -> None:
        """A call waiting in an event loop that closed is passed over."""
        pool = pool_of(Opener(), max_size=1)
        held = asyncio.run(pool.acquire())

        async def strand() -> Coroutine[object, object, FakeConnection]:
            # Stepped by hand, not a task: a task left pending in a closed
            # loop is reported when it is collected.
            call = pool.acquire()
            call.send(None)  # runs until it waits for a free connection
            return call

        gone = asyncio.new_event_loop()
        stranded = gone.run_until_complete(strand())
        gone.close()  # the waiting call never resumes
        assert pool.waiting == 1

        async def go() -> None:
            await pool.release(held)
            assert await use(pool) == 1
            await pool.close()

        asyncio.run(go())
        stranded.close()
        assert (pool.size, pool.waiting) == (0, 0)
