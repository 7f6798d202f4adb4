"""The records' field validators, and the JSON check of payloads.

Built on `attrs.validators`: a field that may be left out composes
``attrs.validators.optional`` with the validator of its value. What attrs
does not have is written here once: a string whose `TypeError` reads
``field: expected a string, got 5`` (attrs' ``instance_of`` words it as a
tuple) and holds valid Unicode (the text JSON can carry, as a payload's
strings), a non-empty string (a `FieldError`, which the codec turns into a
JSON path) and a JSON value (a `PayloadError` naming every path that is not JSON).

The codec builds records from JSON it has already checked through a fast
path that skips these validators (see `interruption._converter`), so they
run only for records built in Python.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import attrs

if TYPE_CHECKING:
    from interruption.errors import FieldError, PayloadError

from interruption._json import (
    JSON,
    describe,
    is_json,
    json_problems,
)

__all__ = [
    "DECODED",
    "NON_EMPTY",
    "check_payload",
    "json_object",
    "json_value",
    "non_empty",
    "optional_json_object",
    "optional_non_empty",
    "optional_string",
    "string",
]


def _not_json(value: object, path: str) -> PayloadError:
    # errors.py imports this module (for `check_payload`), through kinds.py
    # too: its errors are looked up when one is raised, never at import.
    from interruption.errors import PayloadError  # noqa: PLC0415

    return PayloadError(json_problems(value, path=path))


def _refused(field: str, expected: str, got: str) -> FieldError:
    from interruption.errors import FieldError  # noqa: PLC0415 - as _not_json

    return FieldError(field, expected, got)


def check_payload(payload: object) -> JSON:
    """Return *payload* if it is a JSON value; raise `PayloadError` otherwise.

    Raises:
        PayloadError: naming the path of every value that is not JSON.
    """
    if is_json(payload):
        return payload  # type: ignore[return-value]  # checked just above
    raise _not_json(payload, "$")


def json_value(
    instance: object, attribute: attrs.Attribute[JSON], value: object
) -> None:
    """Validate that a record field holds a JSON value.

    Raises:
        PayloadError: naming the path of every value that is not JSON,
            starting at the field (``$.input.amount``).
    """
    del instance
    if not is_json(value):
        raise _not_json(value, f"$.{attribute.name}")


_OBJECTS: dict[int, object] = {}
_OBJECTS_LIMIT: Final = 1024


def json_object(
    instance: object, attribute: attrs.Attribute[dict[str, JSON]], value: object
) -> None:
    """Validate that a record field holds a JSON object (a schema).

    An object already found to be one is known by its identity: the same
    schema (a tool's) is given to a record at every pause, and is not walked
    again. The table keeps what it knows alive (so an id is never reused
    while kept) and forgets everything when full.

    Raises:
        FieldError: if *value* is not a dict.
        PayloadError: naming the path of every value in it that is not JSON
            (or that nests deeper than `MAX_DEPTH`).
    """
    del instance
    if _OBJECTS.get(id(value)) is value:
        return
    if type(value) is not dict:
        raise _refused(attribute.name, "a JSON object", describe(value))
    if not is_json(value):
        raise _not_json(value, f"$.{attribute.name}")
    if len(_OBJECTS) >= _OBJECTS_LIMIT:
        _OBJECTS.clear()
    _OBJECTS[id(value)] = value


def _not_a_string(attribute: attrs.Attribute[str], value: object) -> TypeError:
    return TypeError(f"{attribute.name}: expected a string, got {describe(value)}")


def string(_instance: object, attribute: attrs.Attribute[str], value: str) -> None:
    """Validate that a field holds a `str` of valid Unicode (``""`` included).

    The text a JSON string can hold, as a payload's strings: a lone
    surrogate has no UTF-8 form, so no wire form.

    Raises:
        TypeError: if *value* is not a string, naming the field, what it
            expected and what it got (``note: expected a string, got 5``).
        PayloadError: if it holds a lone surrogate, at ``$.`` the field.
    """
    if not isinstance(value, str):
        raise _not_a_string(attribute, value)
    if not is_json(value):
        raise _not_json(value, f"$.{attribute.name}")


def non_empty(_instance: object, attribute: attrs.Attribute[str], value: str) -> None:
    """Validate that a field holds a non-empty `str` of valid Unicode.

    Raises:
        TypeError: as `string`, if *value* is not a string.
        FieldError: if it is empty.
        PayloadError: as `string`, if it holds a lone surrogate.
    """
    if not isinstance(value, str):
        raise _not_a_string(attribute, value)
    if not value:
        raise _refused(attribute.name, "a non-empty string", "''")
    if not is_json(value):
        raise _not_json(value, f"$.{attribute.name}")


NON_EMPTY: Final = {"json_schema": {"minLength": 1}}
"""Field metadata: the schema of a field validated by `non_empty`."""

DECODED: Final = "decoded"
"""Field metadata key: a function the fast decoder passes a non-None decoded
value through (it returns an equal value, like `_schemacheck.shared`)."""

optional_non_empty: Final = attrs.validators.optional(non_empty)
"""None, or a non-empty `str` (`non_empty`)."""

optional_json_object: Final = attrs.validators.optional(json_object)
"""None, or a JSON object (`json_object`)."""

optional_string: Final = attrs.validators.optional(string)
"""None, or any `str` (`string`)."""
