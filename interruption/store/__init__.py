"""Durable pending state: the `Store` protocol and its three stores.

`MemoryStore` (tests, one process), `SqliteStore` (the embedded default,
safe across processes on one machine) and `PostgresStore` (many processes
or machines; needs the ``[postgres]`` extra). Each store's module (with
asyncio, sqlite3 or psycopg) is imported when its name is first used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from interruption.store._base import (
    MAX_RECORD_BYTES,
    MAX_REJECTED,
    AuditEvent,
    AuditKind,
    Listed,
    Store,
)

if TYPE_CHECKING:
    from interruption.store._memory import MemoryStore
    from interruption.store._postgres import PostgresStore
    from interruption.store._sqlite import SqliteStore

__all__ = [
    "MAX_RECORD_BYTES",
    "MAX_REJECTED",
    "AuditEvent",
    "AuditKind",
    "Listed",
    "MemoryStore",
    "PostgresStore",
    "SqliteStore",
    "Store",
]

_LAZY: dict[str, str] = {
    "MemoryStore": "interruption.store._memory",
    "PostgresStore": "interruption.store._postgres",
    "SqliteStore": "interruption.store._sqlite",
}
"""The stores imported when first used, and the module of each."""


if not TYPE_CHECKING:  # a type checker sees the imports above instead

    def __getattr__(name: str) -> object:
        module = _LAZY.get(name)
        if module is None:
            msg = f"module {__name__!r} has no attribute {name!r}"
            raise AttributeError(msg)
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})
