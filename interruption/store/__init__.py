"""Durable pending state: the `Store` protocol and its three stores.

`MemoryStore` (tests, one process), `SqliteStore` (the embedded default,
safe across processes on one machine) and `PostgresStore` (many processes
or machines; needs the ``[postgres]`` extra, imported on first use).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from interruption.store._base import Store
from interruption.store._memory import MemoryStore
from interruption.store._sqlite import SqliteStore

if TYPE_CHECKING:
    from interruption.store._postgres import PostgresStore

__all__ = ["MemoryStore", "PostgresStore", "SqliteStore", "Store"]


def __getattr__(name: str) -> Any:  # noqa: ANN401 - module attribute protocol
    if name == "PostgresStore":
        from interruption.store._postgres import PostgresStore  # noqa: PLC0415

        return PostgresStore
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)
