"""A small connection pool that any event loop, in any thread, may use.

`PostgresStore` pools its connections here. A connection is opened when a
call needs one and none is idle (up to ``max_size``), and returned after the
call; there are no background tasks. The pool's state sits behind a
`threading.Lock`, and a call waiting for a free connection waits on a future
of its own loop, woken thread-safely, so one pool serves successive event
loops (the sync twins of `Session` run each call in a fresh one) and loops
in several threads at once.

psycopg_pool's `AsyncConnectionPool` does not: its workers and conditions
belong to the loop that opened it, and calls from loops in other threads
wait until they time out.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Generic, Protocol, TypeVar, final

from interruption.errors import StoreUnavailable

__all__ = ["Closable", "Pool"]


class Closable(Protocol):
    """What the pool needs of a connection: that it can be closed."""

    async def close(self) -> None:
        """Close the connection."""


C = TypeVar("C", bound=Closable)


def _wake(waiter: asyncio.Future[None]) -> None:
    # Runs in the waiter's loop; the wait may have ended (timeout, cancel).
    if not waiter.done():
        waiter.set_result(None)


@final
class Pool(Generic[C]):
    """Up to *max_size* connections, opened on demand and shared by every loop.

    Args:
        connect: Opens a connection, ready to use (it closes what it opened
            if it fails).
        reusable: Whether a returned connection may serve another call; one
            that may not is closed.
        max_size: Connections open at most, in use or idle.
        timeout: Seconds a call waits for a free connection.
        name: Names the pool's owner in error messages.
    """

    def __init__(
        self,
        connect: Callable[[], Awaitable[C]],
        *,
        reusable: Callable[[C], bool],
        max_size: int,
        timeout: float,
        name: str,
    ) -> None:
        self._connect = connect
        self._reusable = reusable
        self.max_size = max_size
        self.timeout = timeout
        self.name = name
        self._lock = threading.Lock()
        self._idle: list[C] = []
        self._size = 0
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._closed = False

    @property
    def size(self) -> int:
        """Connections open now, in use or idle."""
        with self._lock:
            return self._size

    @property
    def idle(self) -> int:
        """Connections open now and free."""
        with self._lock:
            return len(self._idle)

    @property
    def waiting(self) -> int:
        """Calls that wait for a free connection now (or did, in a loop now gone)."""
        with self._lock:
            return sum(not waiter.done() for waiter in self._waiters)

    @property
    def closed(self) -> bool:
        """Whether `close` was called."""
        return self._closed

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[C]:
        """Hold a connection for the block, and give it back afterwards.

        Yields:
            A connection no other call holds.

        Raises:
            StoreUnavailable: ``closed`` if the pool is closed, or closes
                while waiting; ``busy`` if no connection was free within
                *timeout*.
        """
        conn = await self.acquire()
        try:
            yield conn
        finally:
            await self.release(conn)

    async def acquire(self) -> C:
        """Take an idle connection, open one, or wait for one to be free.

        Returns:
            A connection; hand it back with `release`.

        Raises:
            StoreUnavailable: ``closed`` if the pool is closed, or closes
                while waiting; ``busy`` if no connection was free within
                *timeout*.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        while True:
            with self._lock:
                if self._closed:
                    raise StoreUnavailable(self.name, "closed", "the store was closed")
                if self._idle:
                    return self._idle.pop()
                if self._size < self.max_size:
                    self._size += 1
                    break
                waiter: asyncio.Future[None] = loop.create_future()
                self._waiters.append(waiter)
            try:
                await asyncio.wait_for(waiter, max(0.0, deadline - loop.time()))
            except BaseException as error:
                with self._lock:  # pass on a wake-up this call may have taken
                    self._wake_one()
                if isinstance(error, TimeoutError):
                    msg = (
                        f"no free connection within {self.timeout} s "
                        f"(max_size={self.max_size})"
                    )
                    raise StoreUnavailable(self.name, "busy", msg) from None
                raise
        try:
            return await self._connect()
        except BaseException:
            self._free_slot()
            raise

    async def release(self, conn: C) -> None:
        """Give *conn* back: kept for the next call if reusable, else closed.

        Args:
            conn: A connection from `acquire`.
        """
        reusable = self._reusable(conn)
        with self._lock:
            if reusable and not self._closed:
                self._idle.append(conn)
                self._wake_one()
                return
        try:
            await conn.close()
        finally:
            self._free_slot()

    async def warm(self, count: int) -> None:
        """Have *count* connections open (at most *max_size*).

        When fewer are open, hold *count* at once, idle ones included, and
        give them back: the missing ones open concurrently.

        Args:
            count: How many connections to have ready.

        Raises:
            BaseException: the first failure of those that failed, after the
                others were given back.
        """
        count = min(count, self.max_size)
        if self.size >= count:
            return
        opened = await asyncio.gather(
            *(self.acquire() for _ in range(count)),
            return_exceptions=True,
        )
        failures = [conn for conn in opened if isinstance(conn, BaseException)]
        for conn in opened:
            if not isinstance(conn, BaseException):
                await self.release(conn)
        if failures:
            raise failures[0]

    async def close(self) -> None:
        """Close the idle connections and refuse further calls.

        Connections in use close when they are released; calls waiting for
        one fail with `StoreUnavailable` (``closed``). Closing again does
        nothing.
        """
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
            self._size -= len(idle)
            waiters, self._waiters = self._waiters, deque()
        for waiter in waiters:
            with contextlib.suppress(RuntimeError):  # a closed loop waits no more
                waiter.get_loop().call_soon_threadsafe(_wake, waiter)
        for conn in idle:
            await conn.close()

    def _free_slot(self) -> None:
        with self._lock:
            self._size -= 1
            self._wake_one()

    def _wake_one(self) -> None:
        # Called under the lock; a waiter may belong to another thread's loop.
        while self._waiters:
            waiter = self._waiters.popleft()
            if waiter.done():
                continue
            try:
                waiter.get_loop().call_soon_threadsafe(_wake, waiter)
            except RuntimeError:  # its loop is closed: nobody waits there
                continue
            return
