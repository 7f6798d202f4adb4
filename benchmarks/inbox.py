"""Time the inbox's page of 999 pending turns against the store read alone.

Run with ``python benchmarks/inbox.py``. A SQLite store (a temporary file,
WAL) holds 999 sessions, each paused at one approval (the example
agent's ``pay``). Three timings, each the best of two rounds of
repeats:

* *store read* — what the page must read, with the store's own calls: the
  open sessions (`Store.sessions`, a page of 1,000) and each one's turn
  (`Store.load_turn`);
* *bridge listing* — `SessionBridge.pending`: the same reads, expired turns
  closed, each session's authorizer asked, the pauses sorted newest first;
* *inbox page* — ``GET /?page=1`` with a page size of 1,000, in process
  (httpx's ASGI transport): the bridge's listing, merged over every door
  (`pending_everywhere`), and the HTML rendered (Jinja2, autoescaped).

The ratios say what the bridge and the page add on top of reading the store.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Final

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from examples.service.agent import Agent
from interruption import SqliteStore
from interruption.inbox import create_app
from interruption.runtime.bridge import SessionBridge

PENDING: Final = 999
"""Below the stores' page size (1,000), so the bridge reads one page, as read() does."""
REPEATS: Final = 7


async def _best(work: Callable[[], Awaitable[object]]) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        await work()
        best = min(best, time.perf_counter() - start)
    return best


async def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        store = SqliteStore(str(Path(directory) / "bench.sqlite"))
        agent = Agent(store)
        for _ in range(PENDING):
            await agent.start("pay 50000")
        bridge = SessionBridge(store, agent.open)
        app = create_app(bridges=[bridge], page_size=PENDING)
        transport = httpx.ASGITransport(app=app)
        headers = {"X-Remote-User": "alice"}
        async with httpx.AsyncClient(
            transport=transport, base_url="http://inbox", headers=headers
        ) as client:

            async def read() -> None:
                ids = await store.sessions("open", limit=PENDING)
                assert len(ids) == PENDING
                for session in ids:
                    assert await store.load_turn(session) is not None

            async def listing() -> None:
                pauses = await bridge.pending(principal="alice")
                assert len(pauses) == PENDING

            async def page() -> None:
                response = await client.get("/?page=1")
                assert response.status_code == 200
                assert response.text.count('class="card"') == PENDING

            read_s = await _best(read)
            list_s = await _best(listing)
            page_s = await _best(page)
            read_s = min(read_s, await _best(read))  # a second round of each
            list_s = min(list_s, await _best(listing))
            page_s = min(page_s, await _best(page))
        await store.close()
    print(f"pending turns:             {PENDING}")
    print(f"store read alone:          {read_s * 1000:8.1f} ms")
    print(f"bridge listing:            {list_s * 1000:8.1f} ms")
    print(f"inbox page (HTML):         {page_s * 1000:8.1f} ms")
    print(f"ratio bridge / store read: {list_s / read_s:8.2f}x")
    print(f"ratio page / store read:   {page_s / read_s:8.2f}x")


if __name__ == "__main__":
    asyncio.run(main())
