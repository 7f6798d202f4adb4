"""A paused run an adapter keeps server-side, through the `Store`.

The adapters whose framework hands its paused state to the client (Genkit's
history, pydantic-ai's conversation) keep that state in the application's
`Store` instead (`Store.keep`: insert-once, expiring like spent marks),
under a fresh id, and give the client only the id. This module is the
record's shape, shared by both; the storage is the store's.

A record is the answer schemas the client was shown, a newline, then the
framework's own state (`encode`); `decode_schemas` reads the schemas back
within the largest record a store keeps (``MAX_RECORD_BYTES``), and each
adapter decodes the rest (`read`). The store never reads a record, so a
damaged one is a `DecodeError` when it is read back, never a crash or a
half-run resume.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal, TypeAlias, TypeVar

from interruption import JSON
from interruption.errors import InvalidArgument, ProblemCode, ResumeRejected
from interruption.runtime.store import MAX_RECORD_BYTES, Store
from interruption.wire import dumps, loads

__all__ = ["Framework", "decode_schemas", "encode", "key", "read", "read_back"]

T = TypeVar("T")

Framework: TypeAlias = Literal["genkit", "pydantic_ai"]
"""The adapters that keep a paused run, each under keys of its own."""

_SEPARATOR: Final = b"\n"


def key(framework: Framework, run_id: str) -> str:
    """The `Store.keep` key of the paused run *run_id* an adapter kept.

    Args:
        framework: The adapter, so that no two adapters share a key.
        run_id: The id the client was given.

    Returns:
        ``"<framework>:<run_id>"``.
    """
    return f"{framework}:{run_id}"


async def read_back(
    store: Store, framework: Framework, run_id: object, what: str
) -> tuple[str, bytes]:
    """The record kept under *run_id*, for a resume or a ``load_paused``.

    Args:
        store: Where the paused run was kept.
        framework: The adapter that kept it.
        run_id: The id the client sent (anything: it is checked here).
        what: What the adapter pauses, for the message (``"Genkit turn"``).

    Returns:
        *run_id*, now known to be a string, and its record.

    Raises:
        ResumeRejected: ``unknown_interrupt`` if *run_id* is not a non-empty
            string, is no key a store holds, or nothing is kept under it.
    """
    if isinstance(run_id, str) and run_id:
        try:
            record = await store.kept(key(framework, run_id))
        except InvalidArgument:  # a NUL, a lone surrogate, too long: never kept
            record = None
        if record is not None:
            return run_id, record
    message = f"no paused {what} has id {run_id!r}"
    raise ResumeRejected.of(ProblemCode.UNKNOWN_INTERRUPT, message)


def encode(schemas: Mapping[str, dict[str, JSON]], state: bytes) -> bytes:
    """One record: the answer schemas (JSON), a newline, the paused *state*.

    Args:
        schemas: The answer schemas the client is shown, by tool name.
        state: The framework's paused state, as JSON bytes.

    Returns:
        The record to keep.
    """
    return dumps(dict(schemas)).encode() + _SEPARATOR + state


def decode_schemas(record: bytes) -> tuple[dict[str, dict[str, JSON]], bytes]:
    """Split a kept record into its answer schemas and the paused state.

    Args:
        record: What `Store.kept` returned.

    Returns:
        The answer schemas, read with the store's limits, and the state's
        bytes (the adapter reads them).

    Raises:
        DecodeError: if the schemas are not a JSON object of objects within
            the limits.
    """
    head, _, state = record.partition(_SEPARATOR)
    return read(head, dict[str, dict[str, JSON]]), state


def read(text: str | bytes, cls: type[T]) -> T:
    """Decode part of a kept record, within the limits a store keeps it to.

    A record is at most ``MAX_RECORD_BYTES`` (`Store.keep` refuses a larger
    one), and nests no deeper than the wire's own limit: whatever was kept
    reads back.

    Raises:
        DecodeError: if the text is damaged.
    """
    return loads(text, cls, max_bytes=MAX_RECORD_BYTES)
