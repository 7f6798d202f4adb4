"""Durable pending state: the `Store` protocol and its three stores.

`MemoryStore` (tests, one process), `SqliteStore` (the embedded default,
safe across processes on one machine) and `PostgresStore` (many processes
or machines; needs the ``[postgres]`` extra). Each name is listed once, in
``__init__.pyi`` beside this file, and its module (with asyncio, sqlite3 or
psycopg) is imported when the name is first used (`lazy_loader`).

Without psycopg or psycopg_pool, ``from interruption.runtime.store import
PostgresStore`` and ``hasattr(interruption.runtime.store, "PostgresStore")`` still
work, so a module that only names the store imports on any install:
constructing the store raises `ExtraMissing` (an `ImportError`), which
names the ``postgres`` extra.
"""

from __future__ import annotations

from typing import NoReturn

import lazy_loader

from interruption.errors import ExtraMissing

_attached, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)

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


def __getattr__(name: str) -> object:
    """Return the public *name*, importing its module on first use.

    A store whose extra is not installed is a stand-in that raises
    `ExtraMissing` when constructed.

    Raises:
        AttributeError: if the package has no public name *name*.
        ImportError: if the name's module fails to import for another reason.
    """
    try:
        return _attached(name)
    except ImportError as error:
        extra, tops = _EXTRAS.get(name, ("", frozenset()))
        top = (error.name or "").partition(".")[0]
        if not tops or (top and top not in tops):
            raise
        value = _unavailable(name, extra, error)
        globals()[name] = value
        return value
