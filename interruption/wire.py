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

import hashlib
from typing import Any, Final, TypeVar

from interruption._converter import SCHEMA_ALIASES, plain, structure_value
from interruption._json import (
    DOCUMENT_DEPTH,
    JSON,
    STORED_DEPTH,
    Mismatch,
    json_problems,
    owned,
)
from interruption._parse import ENCODE, check_json, parse
from interruption._schema import schema_of
from interruption.errors import PayloadError

__all__ = [
    "dumps",
    "json_schema",
    "loads",
    "structure",
    "unstructure",
    "wire_digest",
]

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
    value = parse(data, max_bytes=max_bytes, max_depth=max_depth)
    return structure_value(value, cls)


def structure(data: JSON, cls: type[T], *, max_depth: int = DOCUMENT_DEPTH) -> T:
    """Turn a JSON value already in memory into an instance of *cls*.

    Args:
        data: A JSON value (as `json.loads` would give).
        cls: The record type to build.
        max_depth: How deeply arrays and objects may nest (as in `loads`).

    Returns:
        The record, sharing nothing with *data*: changing *data* afterwards
        changes no record.

    Raises:
        DecodeError: if *data* is not JSON or does not fit *cls*.
    """
    check_json(data, max_depth)
    # The converter's hooks take plain dicts and lists (as a parser makes):
    # a copy, which the records then share nothing with.
    return structure_value(owned(data), cls)


def unstructure(obj: object) -> JSON:
    """Turn a record into its wire form as a JSON value.

    Args:
        obj: A record of this library (or any attrs class of JSON fields).

    Returns:
        Dicts, lists and scalars, ready for any JSON encoder. A JSON field's
        value is the record's own, not a copy: a frozen value (`dict` and
        `list` subclasses that raise `TypeError` on any change), so nothing
        done to what this returns changes the record.
    """
    return plain(obj)


def dumps(obj: object) -> str:
    """Encode a record as compact JSON text.

    Args:
        obj: A record of this library (or any attrs class of JSON fields).

    Returns:
        The JSON document (its text is valid Unicode: it encodes as UTF-8).

    Raises:
        PayloadError: if a field of *obj* holds what JSON cannot (a lone
            surrogate in a string, an integer beyond I-JSON, an object
            key that is not a string), naming every path. A record of
            this library refuses such values when it is built.
    """
    value = unstructure(obj)
    try:
        return ENCODE(value)
    except (TypeError, ValueError) as error:  # orjson's error is a TypeError
        found = json_problems(value, max_depth=STORED_DEPTH) or [
            Mismatch("$", "a JSON value", f"{type(error).__name__}: {error}")
        ]
        raise PayloadError(found) from None


def wire_digest(obj: object) -> str:
    """The SHA-256 hex digest of *obj*'s wire form, as `dumps` writes it.

    What the audit trail keeps of a resume (`AuditEvent.digest`), so that
    an attempt can be matched to a request log
    (``wire_digest(loads(body, Resume))``) without keeping what was sent.
    Written by the codec in linear time, at about the cost of parsing it
    (the RFC 8785 form, in pure Python, cost 20 to 60 times that). The
    codec's text is the same on every install but for the spelling of some
    exponents (``1e-7`` with orjson, ``1e-07`` without): compare digests
    made by one kind of install.

    Raises:
        PayloadError: as `dumps`.
    """
    return hashlib.sha256(dumps(obj).encode()).hexdigest()


def json_schema(cls: type[Any]) -> dict[str, JSON]:
    """Describe the wire form of *cls* as a JSON Schema (Draft 2020-12).

    Works for any attrs class made of JSON-ish fields: str, int, float,
    bool, None, optional fields, lists, tuples, ``dict[str, ...]``,
    `Literal`, `enum.StrEnum`, nested records, tagged unions and `JSON`.

    Args:
        cls: The record type.

    Returns:
        A schema document with ``$schema``, ``$ref`` and ``$defs``.

    Raises:
        ArgumentTypeError: naming a type in *cls* that has no JSON form (a
            `TypeError`).
    """
    return schema_of(cls, aliases=SCHEMA_ALIASES)
