"""Twenty OS processes racing to consume one turn, for the stores' tests.

The processes come from a fork server: each starts clean, as with
``spawn`` (no inherited connections, threads or event loop), but the
server imports the stores once, so twenty of them start in about a second
instead of importing the library twenty times over.
"""

import asyncio
import multiprocessing
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
from typing import Final

from interruption.resume import Resume
from interruption.runtime.store import PostgresStore, SqliteStore

__all__ = ["RACERS", "race_processes"]

RACERS: Final = 20
_PRELOAD: Final = ["tests._race"]


def _race(  # noqa: PLR0913, PLR0917 - one process's whole brief
    kind: str,
    where: str,
    schema: str | None,
    resume: Resume,
    barrier: Barrier,
    results: "Queue[bool]",
) -> None:
    """In a child process: open a store, wait for the others, consume turn 1."""

    async def go() -> bool:
        store: SqliteStore | PostgresStore
        if kind == "sqlite":
            store = SqliteStore(where)
        else:
            store = PostgresStore(where, schema=schema)
            await store.open()
        try:
            stored = await store.load_turn("s-1", 1)
            assert stored is not None
            await asyncio.to_thread(barrier.wait, 60)
            return await store.consume(stored.turn, resume, None)
        finally:
            await store.close()

    results.put(asyncio.run(go()))


def race_processes(
    kind: str, where: str, resume: Resume, schema: str | None = None
) -> list[bool]:
    """Consume turn 1 of session ``s-1`` from 20 processes at once.

    Args:
        kind: ``"sqlite"`` or ``"postgres"``.
        where: The SQLite file or the PostgreSQL DSN.
        resume: What each process consumes the turn with.
        schema: The PostgreSQL schema.

    Returns:
        What each process's `consume` returned.
    """
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(_PRELOAD)
    barrier = context.Barrier(RACERS)
    results: Queue[bool] = context.Queue()
    processes = [
        context.Process(
            target=_race, args=(kind, where, schema, resume, barrier, results)
        )
        for _ in range(RACERS)
    ]
    for process in processes:
        process.start()
    outcomes = [results.get(timeout=120) for _ in processes]
    for process in processes:
        process.join(timeout=60)
        assert process.exitcode == 0
    return outcomes
