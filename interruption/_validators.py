"""The records' field validators, and the JSON check of payloads.

Built on `attrs.validators`: a field that may be left out composes
``attrs.validators.optional`` with the validator of its value. What attrs
does not have is written here once: a string whose `FieldTypeError` (a
`TypeError`) reads
``field: expected a string, got 5`` (attrs' ``instance_of`` words it as a
tuple) and holds valid Unicode (the text JSON can carry, as a payload's
strings), a non-empty string (a `FieldError`, which the codec turns into a
JSON path) and a JSON field (`input_json` and its like, converters: a `PayloadError`
naming every path that is not JSON, else the record's own frozen copy).

They run wherever a record is built: in Python, or by the codec, which
builds every record through its ``__init__``.
"""

from __future__ import annotations

from typing import Final

import attrs

from interruption._base_errors import FieldError, FieldTypeError, PayloadError
from interruption._json import (
    JSON,
    NotJSON,
    describe,
    frozen_json,
    is_json,
    json_problems,
)

__all__ = [
    "NON_EMPTY",
    "frozen_payload",
    "input_json",
    "non_empty",
    "optional_non_empty",
    "optional_string",
    "output_json",
    "payload_json",
    "resumed_json",
    "string",
    "wrong_type",
]


def _not_json(value: object, path: str) -> PayloadError:
    return PayloadError(json_problems(value, path=path))


def _refused(field: str, expected: str, got: str) -> FieldError:
    return FieldError(field, expected, got)


def frozen_payload(payload: object) -> JSON:
    """Check that *payload* is JSON; return its frozen copy (`frozen`), in one walk.

    Raises:
        PayloadError: naming the path of every value that is not JSON.
    """
    try:
        return frozen_json(payload)
    except NotJSON:
        raise _not_json(payload, "$") from None


def input_json(value: JSON) -> JSON:
    """Convert a record's ``input`` field: a checked, immutable copy of *value*.

    Every JSON field of a record has a converter like this one, named for
    the field: the record keeps a deep-frozen copy of what it is given
    (`frozen`: objects and arrays that raise `TypeError` on any change), so
    nothing the caller holds is part of it, and nothing read off the record
    can change it after its checks ran, whoever built the record. Each is
    the same two lines (`frozen_json`, its refusal worded at the field):
    every record built calls them, so they call nothing more.

    Raises:
        PayloadError: naming the path of every value that is not JSON,
            starting at the field (``$.input.amount``).
    """
    try:
        return frozen_json(value)
    except NotJSON:
        raise _not_json(value, "$.input") from None


def output_json(value: JSON) -> JSON:
    """Convert a record's ``output`` field (see `input_json`)."""
    try:
        return frozen_json(value)
    except NotJSON:
        raise _not_json(value, "$.output") from None


def payload_json(value: JSON) -> JSON:
    """Convert a record's ``payload`` field (see `input_json`)."""
    try:
        return frozen_json(value)
    except NotJSON:
        raise _not_json(value, "$.payload") from None


def resumed_json(value: JSON) -> JSON:
    """Convert a record's ``resumed`` field (see `input_json`)."""
    try:
        return frozen_json(value)
    except NotJSON:
        raise _not_json(value, "$.resumed") from None


def wrong_type(field: str, expected: str, value: object) -> FieldTypeError:
    """The error of field *field*, which takes *expected*, given *value*.

    Returns:
        A `FieldTypeError` (raise it), its ``got`` in `describe`'s words.
    """
    return FieldTypeError(field, expected, describe(value))


def _not_a_string(attribute: attrs.Attribute[str], value: object) -> FieldTypeError:
    return wrong_type(attribute.name, "a string", value)


def string(_instance: object, attribute: attrs.Attribute[str], value: str) -> None:
    """Validate that a field holds a `str` of valid Unicode (``""`` included).

    The text a JSON string can hold, as a payload's strings: a lone
    surrogate has no UTF-8 form, so no wire form.

    Raises:
        FieldTypeError: if *value* is not a string (a `TypeError` too),
            naming the field, what it expected and what it got (``note:
            expected a string, got 5``).
        PayloadError: if it holds a lone surrogate, at ``$.`` the field.
    """
    if not isinstance(value, str):
        raise _not_a_string(attribute, value)
    if not value.isascii() and not is_json(value):  # a lone surrogate
        raise _not_json(value, f"$.{attribute.name}")


def non_empty(_instance: object, attribute: attrs.Attribute[str], value: str) -> None:
    """Validate that a field holds a non-empty `str` of valid Unicode.

    Raises:
        FieldTypeError: as `string`, if *value* is not a string.
        FieldError: if it is empty.
        PayloadError: as `string`, if it holds a lone surrogate.
    """
    if not isinstance(value, str):
        raise _not_a_string(attribute, value)
    if not value:
        raise _refused(attribute.name, "a non-empty string", "''")
    if not value.isascii() and not is_json(value):  # a lone surrogate
        raise _not_json(value, f"$.{attribute.name}")


NON_EMPTY: Final = {"json_schema": {"minLength": 1}}
"""Field metadata: the schema of a field validated by `non_empty`."""

optional_non_empty: Final = attrs.validators.optional(non_empty)
"""None, or a non-empty `str` (`non_empty`)."""

optional_string: Final = attrs.validators.optional(string)
"""None, or any `str` (`string`)."""
