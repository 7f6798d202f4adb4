"""The wire codec: one cattrs converter, strict in, plain out.

`dumps` and `loads` move records across process boundaries; `unstructure`
and `structure` do the same between records and JSON values already in
memory; `json_schema` describes any record's wire form as a JSON Schema
(Draft 2020-12).

An adapter that defines wire records or shapes of its own (a framework's
payloads, decoded as strictly as this library's) builds them from the same
pieces the records use: `non_empty` and `NON_EMPTY` for a field that holds a
name, `copy_json` for a checked plain copy of a JSON value, `check_schema`
for a schema a caller hands over, and `describe` and `child_path` for the
words and paths of a `Mismatch`.

`JSON` is the type of every JSON value the codec hands over or takes;
`json_equal`, `canonical` and `digest` compare, spell and hash such values
as RFC 8785 does; `STORED_BYTES` and `STORED_DEPTH` are the limits for
reading back what this library wrote (a store's rows, a sealed turn).

Decoding is strict. Unknown tags, unknown fields, missing fields, wrong
primitive types (``123`` for a string, ``"1"`` or ``true`` for an integer),
NaN and Infinity, duplicate keys, lone surrogates and over-large or
over-deep documents all raise `DecodeError`, which names the JSON path of
every problem, what was expected there and what was got.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, TypeVar

from interruption._converter import SCHEMA_ALIASES, plain, structure_value
from interruption._json import (
    DOCUMENT_DEPTH,
    JSON,
    STORED_BYTES,
    STORED_DEPTH,
    canonical,
    digest,
    is_json,
    json_equal,
    json_problems,
    owned,
)
from interruption._json import child_path as _child_path
from interruption._json import describe as _describe
from interruption._parse import ENCODE, check_json, parse
from interruption._record_schema import schema_of
from interruption._validators import NON_EMPTY as _NON_EMPTY
from interruption._validators import non_empty as _non_empty
from interruption.errors import ArgumentTypeError, Mismatch, PayloadError

if TYPE_CHECKING:
    import attrs

__all__ = [
    "JSON",
    "NON_EMPTY",
    "STORED_BYTES",
    "STORED_DEPTH",
    "canonical",
    "check_schema",
    "child_path",
    "copy_json",
    "describe",
    "digest",
    "dumps",
    "json_equal",
    "json_schema",
    "loads",
    "non_empty",
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


def copy_json(value: object) -> JSON:
    """A plain copy of *value*, once checked to be a JSON value.

    Objects are copied as `dict`, arrays as `list` (a record's frozen JSON
    included), scalars kept (they are immutable): a value to hand a
    framework or a tool that may change it, sharing nothing with the record
    or the caller it came from. A JSON value is what every JSON field of a
    record holds: ``None``, `bool`, a finite `float`, an `int` within
    ``±(2**53 - 1)``, a `str` of valid Unicode, and lists and `str`-keyed
    dicts of them, nested at most 64 levels deep.

    Args:
        value: Any Python object.

    Returns:
        A JSON value equal to *value*, built of plain dicts and lists.

    Raises:
        PayloadError: if *value* is not a JSON value (a `TypeError` too),
            naming the path of every spot that is not (``$.a[2]``).
    """
    if is_json(value):
        return owned(value)  # type: ignore[arg-type]  # checked just above
    raise PayloadError(json_problems(value))


def check_schema(schema: Mapping[str, JSON]) -> None:
    """Make sure *schema* is a JSON Schema this library runs.

    The check a `Tool` makes of its schemas, for a schema an adapter is
    handed (an answer schema): valid Draft 2020-12, self-contained (every
    ``$ref`` resolves inside it: nothing is fetched) and linear-time (each
    ``pattern`` one the Rust ``regex`` engine runs). A schema that passes
    is compiled once and kept, by its JSON text, for the checks of values.

    Args:
        schema: A JSON Schema, as a JSON object.

    Raises:
        ArgumentTypeError: if *schema* is not a mapping (a `TypeError` too).
        PayloadError: if it is not JSON, naming every path.
        SchemaError: if it is not a schema this library runs (a
            `ValueError` too), naming every problem with its path.
    """
    if not isinstance(schema, Mapping):
        raise ArgumentTypeError(
            "check_schema: schema", "a JSON object", describe(schema)
        )
    checked = copy_json(dict(schema))
    # jsonschema-rs is imported when a schema is first checked, not with
    # the codec.
    from interruption.schemas import check_schema as check  # noqa: PLC0415

    check(checked)  # type: ignore[arg-type]  # a dict, copied from one


def describe(value: object) -> str:
    """Describe *value* as the ``got`` of a `Mismatch`, in the codec's words.

    Args:
        value: Any Python object.

    Returns:
        Short JSON for a scalar (``null``, ``true``, ``5``, ``'text'``,
        long strings cut short, huge integers by their size), else a noun
        (``an object``, ``an array``, ``a set``).
    """
    return _describe(value)


def child_path(path: str, key: str | int) -> str:
    """Extend a JSON path by one step, as the codec writes its paths.

    Args:
        path: A JSON path: ``$``, ``$.a``, ``$.a[0]``.
        key: An array index, or an object key.

    Returns:
        ``$.a[0]`` for an index, ``$.a.b`` for a key that is an
        identifier, ``$.a["two words"]`` (the key as JSON) for any other.
    """
    return _child_path(path, key)


def non_empty(instance: object, attribute: attrs.Attribute[str], value: str) -> None:
    """Validate that an attrs field holds a non-empty `str` of valid Unicode.

    The validator of every name and id of this library's records, for a
    record of an adapter's own: ``attrs.field(validator=non_empty,
    metadata=NON_EMPTY)``. Decoding (`structure`, `loads`) reports its
    refusal as a `DecodeError` at the field's path.

    Args:
        instance: The record being built.
        attribute: The field.
        value: Its value.

    Raises:
        FieldTypeError: if *value* is not a string (a `TypeError` too).
        FieldError: if it is empty (a `ValueError` too).
        PayloadError: if it holds a lone surrogate.
    """
    _non_empty(instance, attribute, value)


NON_EMPTY: Final = _NON_EMPTY
"""The attrs field metadata of a `non_empty` field: its JSON Schema,
``{"minLength": 1}``, for `json_schema`."""
