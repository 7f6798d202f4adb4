"""The wire codec: one cattrs converter, strict in, plain out.

`dumps` and `loads` move records across process boundaries; `unstructure`
and `structure` do the same between records and JSON values already in
memory; `json_schema` describes any record's wire form as a JSON Schema
(Draft 2020-12).

Decoding is strict. Unknown tags, unknown fields, missing fields, wrong
primitive types (``123`` for a string, ``"1"`` or ``true`` for an integer),
NaN and Infinity, duplicate keys, lone surrogates and over-large or
over-deep documents all raise `DecodeError`, which names the JSON path of
every problem, what was expected there and what was got.
"""

from __future__ import annotations

from typing import Any, Final, TypeVar

from interruption._converter import (
    SCHEMA_ALIASES,
    checked_hook,
    plain,
    structure_checked,
    structure_detailed,
)
from interruption._json import DOCUMENT_DEPTH, JSON, MAX_DEPTH
from interruption._parse import ENCODE, Unproven, check_depth, compact, parse_within
from interruption._schema import schema_of

__all__ = ["dumps", "json_schema", "loads", "structure", "unstructure"]

T = TypeVar("T")

MAX_BYTES: Final = 1_048_576
"""The default size limit of a wire document, in bytes."""


def loads(
    data: str | bytes,
    cls: type[T],
    *,
    max_bytes: int = MAX_BYTES,
    max_depth: int = DOCUMENT_DEPTH,
) -> T:
    """Decode a wire document into an instance of *cls*, strictly.

    Args:
        data: The JSON document, as text or UTF-8 bytes.
        cls: The record type to decode into, like `PendingInterrupt`.
        max_bytes: The largest document accepted, in UTF-8 bytes.
        max_depth: How deeply arrays and objects may nest in the document
            (by default `DOCUMENT_DEPTH`: deep enough for any record whose
            JSON fields are each within `MAX_DEPTH`, which every record
            checks of its own JSON fields).

    Returns:
        The decoded record.

    Raises:
        DecodeError: listing every problem: its path, what was expected
            there and what was got.
    """
    # The common case, a compact document as `dumps` writes it, in the
    # fewest steps: its value is proven JSON within MAX_DEPTH as it is read.
    if type(data) is bytes and len(data) <= max_bytes and max_depth >= MAX_DEPTH:
        found = compact(data)
        if type(found) is not Unproven:
            hook = checked_hook(cls)
            if hook is not None:
                try:
                    return hook(found)  # type: ignore[return-value]
                except Exception:  # noqa: BLE001 - the detailed path words it
                    return structure_detailed(found, cls)
            return structure_checked(found, cls, MAX_DEPTH)
        value, within = found.finish(max_depth)
    else:
        value, within = parse_within(data, max_bytes=max_bytes, max_depth=max_depth)
    return structure_checked(value, cls, within)


def structure(data: JSON, cls: type[T], *, max_depth: int = DOCUMENT_DEPTH) -> T:
    """Turn a JSON value already in memory into an instance of *cls*.

    Args:
        data: A JSON value (as `json.loads` would give).
        cls: The record type to build.
        max_depth: How deeply arrays and objects may nest (as in `loads`).

    Returns:
        The record.

    Raises:
        DecodeError: if *data* is not JSON or does not fit *cls*.
    """
    return structure_checked(data, cls, check_depth(data, max_depth))


def unstructure(obj: object) -> JSON:
    """Turn a record into its wire form as a JSON value.

    Args:
        obj: A record of this library (or any attrs class of JSON fields).

    Returns:
        Plain dicts, lists and scalars, ready for any JSON encoder.
    """
    return plain(obj)


def dumps(obj: object) -> str:
    """Encode a record as compact JSON text.

    Args:
        obj: A record of this library (or any attrs class of JSON fields).

    Returns:
        The JSON document.
    """
    return ENCODE(unstructure(obj))


def json_schema(cls: type[Any]) -> dict[str, JSON]:
    """Describe the wire form of *cls* as a JSON Schema (Draft 2020-12).

    Works for any attrs class made of JSON-ish fields: str, int, float,
    bool, None, optional fields, lists, tuples, ``dict[str, ...]``,
    `Literal`, `enum.StrEnum`, nested records, tagged unions and `JSON`.

    Args:
        cls: The record type.

    Returns:
        A schema document with ``$schema``, ``$ref`` and ``$defs``.
    """
    return schema_of(cls, aliases=SCHEMA_ALIASES)
