"""Keepers: where an adapter keeps a paused run's state, server-side.

The adapters whose framework hands its paused state to the client (Genkit's
history, pydantic-ai's conversation) keep that state here instead, under a
fresh id, and give the client only the id. A keeper is the insert-once map
behind that id; the adapters export `Keeper`, `MemoryKeeper` and their own
`SqliteKeeper` (its table named for the adapter) from this module.

A record is the answer schemas the client was shown, a newline, then the
framework's own state (`encode`); `decode_schemas` reads the schemas back
with the store's limits on read-back (`read_stored`: ``STORED_BYTES``,
``STORED_DEPTH``), and each adapter decodes the rest. The keeper never
reads a record, so a damaged or oversized one is a `DecodeError` when it is
read back, never a crash or a half-run resume.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar, Final, Protocol, final, runtime_checkable

from interruption._json import JSON
from interruption._parse import ENCODE
from interruption._schemacheck import JSONSchema
from interruption.errors import InvalidArgument, ProblemCode, ResumeRejected
from interruption.store._base import read_stored

__all__ = [
    "Keeper",
    "MemoryKeeper",
    "SqliteKeeper",
    "decode_schemas",
    "encode",
    "read_back",
]

_SEPARATOR: Final = b"\n"


@runtime_checkable
class Keeper(Protocol):
    """Where paused runs live, server-side: an insert-once map of records.

    A record is opaque bytes the adapter writes (the answer schemas and the
    framework's paused state); a keeper must:

    * store a record under an id once: a second `keep` under the same id
      raises `ValueError` and leaves the first record as it was;
    * return from `load` exactly the bytes kept under that id, or None if
      none were, never another id's record;
    * be shared by every process that resumes, and durable once `keep`
      returned, where a pause must outlive its process.

    Implementations: `MemoryKeeper`, the adapter's `SqliteKeeper`; anything
    durable and shared by the processes that resume (a database table, an
    object store) fits.
    """

    async def keep(self, key: str, record: bytes) -> None:
        """Store *record* under *key*, once.

        Raises:
            InvalidArgument: if *key* is already kept (a `ValueError`).
        """

    async def load(self, key: str) -> bytes | None:
        """Return the record kept under *key*, or None."""


def _taken(key: str) -> InvalidArgument:
    got = f"a record is already kept under {key!r}; ids are never reused"
    return InvalidArgument("keep: key", "a key not kept yet", got)


@final
class MemoryKeeper:
    """A `Keeper` in one process's memory, for tests and demos."""

    def __init__(self) -> None:
        self._records: dict[str, bytes] = {}

    async def keep(self, key: str, record: bytes) -> None:
        """Store *record* under *key*, once.

        Raises:
            InvalidArgument: if *key* is already kept (a `ValueError`).
        """
        if key in self._records:
            raise _taken(key)
        self._records[key] = record

    async def load(self, key: str) -> bytes | None:
        """Return the record kept under *key*, or None."""
        return self._records.get(key)


class SqliteKeeper:
    """A `Keeper` in one SQLite file, shared by the processes of one machine.

    Commits are durable (WAL, ``synchronous=FULL``): once ``pause``
    returned, the paused run survives a crash. Each adapter subclasses it
    with its own table (``TABLE``, keyed by ``COLUMN``), so one file may
    hold every adapter's keeper and a `SqliteStore`.

    Args:
        path: The database file (created if missing), or ``":memory:"``.
        timeout: Seconds to wait for another process's write lock.
    """

    TABLE: ClassVar[str]
    COLUMN: ClassVar[str]

    def __init__(self, path: str | Path, *, timeout: float = 30.0) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            self.path, timeout=timeout, isolation_level=None, check_same_thread=False
        )
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        # The names are the subclass's constants, never input (S608 below).
        table, column = self.TABLE, self.COLUMN
        self._db.execute(
            f"CREATE TABLE IF NOT EXISTS {table} "
            f"({column} TEXT PRIMARY KEY, record BLOB NOT NULL)"
        )
        self._insert = f"INSERT INTO {table} ({column}, record) VALUES (?, ?)"  # noqa: S608
        self._select = f"SELECT record FROM {table} WHERE {column} = ?"  # noqa: S608

    async def keep(self, key: str, record: bytes) -> None:
        """Store *record* under *key*, once.

        Raises:
            InvalidArgument: if *key* is already kept (a `ValueError`).
        """
        with self._lock:
            try:
                self._db.execute(self._insert, (key, record))
            except sqlite3.IntegrityError as error:
                raise _taken(key) from error

    async def load(self, key: str) -> bytes | None:
        """Return the record kept under *key*, or None."""
        with self._lock:
            row = self._db.execute(self._select, (key,)).fetchone()
        return bytes(row[0]) if row is not None else None

    def close(self) -> None:
        """Close the database connection."""
        self._db.close()


async def read_back(keeper: Keeper, key: object, what: str) -> tuple[str, bytes]:
    """The record kept under *key*, for a resume or a ``load_paused``.

    Args:
        keeper: Where the paused run was kept.
        key: The id the client sent (anything: it is checked here).
        what: What the adapter pauses, for the message (``"Genkit turn"``).

    Returns:
        *key*, now known to be a string, and its record.

    Raises:
        ResumeRejected: ``unknown_interrupt`` if *key* is not a non-empty
            string or nothing is kept under it.
    """
    if isinstance(key, str) and key:
        record = await keeper.load(key)
        if record is not None:
            return key, record
    message = f"no paused {what} has id {key!r}"
    raise ResumeRejected.of(ProblemCode.UNKNOWN_INTERRUPT, message)


def encode(schemas: Mapping[str, JSONSchema], state: bytes) -> bytes:
    """One record: the answer schemas (JSON), a newline, the paused *state*.

    Args:
        schemas: The answer schemas the client is shown, by tool name.
        state: The framework's paused state, as JSON bytes.

    Returns:
        The record to keep.
    """
    return ENCODE(dict(schemas)).encode() + _SEPARATOR + state


def decode_schemas(record: bytes) -> tuple[dict[str, dict[str, JSON]], bytes]:
    """Split a kept record into its answer schemas and the paused state.

    Args:
        record: What a keeper returned.

    Returns:
        The answer schemas, read with the store's limits, and the state's
        bytes (the adapter reads them).

    Raises:
        DecodeError: if the schemas are not a JSON object of objects within
            the limits.
    """
    head, _, state = record.partition(_SEPARATOR)
    return read_stored(head, dict[str, dict[str, JSON]]), state
