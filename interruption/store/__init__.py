"""Durable pending state: the `Store` protocol and its three stores.

`MemoryStore` (tests, one process), `SqliteStore` (the embedded default,
safe across processes on one machine) and `PostgresStore` (many processes
or machines; needs the ``[postgres]`` extra). Each store's module (with
asyncio, sqlite3 or psycopg) is imported when its name is first used.

Without psycopg or psycopg_pool, ``from interruption.store import
PostgresStore`` and ``hasattr(interruption.store, "PostgresStore")`` still
work, so a module
that only names the store imports on any install: constructing the store
raises `ExtraMissing` (an `ImportError`), which names the ``postgres`` extra.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, NoReturn

from interruption.audit import AuditEvent, AuditKind
from interruption.errors import ExtraMissing
from interruption.store._base import MAX_RECORD_BYTES, MAX_REJECTED, Listed, Store

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

_EXTRAS: dict[str, tuple[str, frozenset[str]]] = {
    "PostgresStore": ("postgres", frozenset({"psycopg", "psycopg_pool"})),
}
"""The stores that need an extra: the extra, and the top modules it installs."""


def _unavailable(name: str, extra: str, cause: ImportError) -> type:
    """A stand-in for *name* whose construction raises `ExtraMissing`."""
    needed_by = f"{__name__}.{name}"

    def refuse(*_args: object, **_kwargs: object) -> NoReturn:
        raise ExtraMissing(needed_by, extra, str(cause)) from cause

    doc = f"Unavailable on this install: needs the [{extra}] extra ({cause})."
    return type(name, (), {"__new__": refuse, "__doc__": doc, "__module__": __name__})


if not TYPE_CHECKING:  # a type checker sees the imports above instead

    def __getattr__(name: str) -> object:
        module = _LAZY.get(name)
        if module is None:
            msg = f"module {__name__!r} has no attribute {name!r}"
            raise AttributeError(msg)
        try:
            value = getattr(importlib.import_module(module), name)
        except ImportError as error:
            extra, tops = _EXTRAS.get(name, ("", frozenset()))
            top = (error.name or "").partition(".")[0]
            if not tops or (top and top not in tops):
                raise
            value = _unavailable(name, extra, error)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})
