"""Checking JSON values against JSON Schemas: compiled once, fast when valid.

A validator is built once per distinct schema and cached. The yes/no check
uses jsonschema-rs when it is installed (the ``[fast]`` extra) and
jsonschema otherwise; the words of a failure always come from jsonschema,
so messages do not depend on which is installed.
"""

from __future__ import annotations

import functools
import json
import typing
from typing import TYPE_CHECKING, Final, Protocol, TypeAlias

import jsonschema
import jsonschema.exceptions

from interruption._json import JSON, Mismatch, child_path, describe
from interruption._parse import ENCODE

if TYPE_CHECKING:
    from collections.abc import Iterator

try:
    import jsonschema_rs
except ImportError:  # pragma: no cover - exercised by the no-extra run
    jsonschema_rs = None  # type: ignore[assignment]

JSONSchema: TypeAlias = dict[str, JSON]
"""A JSON Schema document (Draft 2020-12), as a JSON object."""

_NULL: Final = '{"type":"null"}'


class _Check(Protocol):
    def is_valid(self, instance: object, /) -> bool: ...


def check_schema(schema: JSONSchema) -> None:
    """Raise `jsonschema.exceptions.SchemaError` if *schema* is not a schema."""
    jsonschema.Draft202012Validator.check_schema(schema)


@functools.lru_cache(maxsize=1024)
def _fast(key: str) -> _Check:
    if jsonschema_rs is not None:
        return jsonschema_rs.validator_for(json.loads(key))
    return _detailed(key)  # pragma: no cover - exercised by the no-extra run


@functools.lru_cache(maxsize=256)
def _detailed(key: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads(key))


_BY_IDENTITY: dict[int, tuple[JSONSchema, _Check | None]] = {}
_BY_IDENTITY_LIMIT: Final = 4096


def _checker(schema: JSONSchema) -> _Check | None:
    """The compiled check of *schema*, found by identity before by content.

    None means "null only". Schemas are usually the same dict objects over
    and over (a turn's `Accepts`), so identity saves re-encoding them; the
    entry keeps the schema alive, so an id is never reused while cached.
    """
    cached = _BY_IDENTITY.get(id(schema))
    if cached is not None and cached[0] is schema:
        return cached[1]
    key = ENCODE(schema)
    check = None if key == _NULL else _fast(key)
    if len(_BY_IDENTITY) >= _BY_IDENTITY_LIMIT:
        _BY_IDENTITY.clear()
    _BY_IDENTITY[id(schema)] = (schema, check)
    return check


def conforms(value: JSON, schema: JSONSchema) -> bool:
    """Tell whether *value* satisfies *schema*; ``{}`` accepts everything."""
    if not schema:
        return True
    check = _checker(schema)
    if check is None:
        return value is None
    return check.is_valid(value)


def schema_mismatches(
    value: JSON, schema: JSONSchema, path: str = "$"
) -> list[Mismatch]:
    """List every way *value* fails *schema*, with JSON paths from *path*.

    Returns:
        Empty when *value* conforms.
    """
    if conforms(value, schema):
        return []
    validator = _detailed(ENCODE(schema))
    errors = sorted(validator.iter_errors(value), key=lambda error: error.json_path)
    found = [found for error in errors for found in _mismatches(error, path)]
    return found or [
        Mismatch(path, "a value that satisfies its schema", describe(value))
    ]


def _where(error: jsonschema.exceptions.ValidationError, path: str) -> str:
    for step in error.absolute_path:
        path = child_path(path, step)
    return path


def _mismatches(
    error: jsonschema.exceptions.ValidationError, path: str
) -> Iterator[Mismatch]:
    keyword = str(error.validator)
    expected_value = typing.cast("JSON", error.validator_value)
    schema = typing.cast("dict[str, JSON]", error.schema)
    where = _where(error, path)
    got = describe(error.instance)
    if keyword == "type":
        expected = f"a value of type {expected_value}"
    elif keyword == "enum":
        options = (
            expected_value if isinstance(expected_value, list) else [expected_value]
        )
        expected = "one of " + ", ".join(describe(option) for option in options)
    elif keyword == "const":
        expected = describe(expected_value)
    elif keyword == "required" and isinstance(error.instance, dict):
        for name in typing.cast("list[str]", expected_value):
            if name not in error.instance:
                yield Mismatch(
                    child_path(where, name), "a required property", "nothing"
                )
        return
    elif keyword == "additionalProperties" and isinstance(error.instance, dict):
        properties = schema.get("properties")
        known = properties if isinstance(properties, dict) else {}
        for name in error.instance:
            if name not in known:
                yield Mismatch(
                    child_path(where, name),
                    "no such property",
                    describe(error.instance[name]),
                )
        return
    else:
        expected = f"{keyword} {ENCODE(expected_value)}"
    yield Mismatch(where, expected, got)
