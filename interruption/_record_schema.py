"""JSON Schemas (Draft 2020-12) for records made of JSON-ish fields."""

from __future__ import annotations

import enum
import inspect
import types
import typing
from datetime import datetime
from typing import TYPE_CHECKING, Final, Literal, Union

import attrs

from interruption._json import JSON, describe, is_json_type
from interruption.errors import ArgumentTypeError

if TYPE_CHECKING:
    from collections.abc import Mapping

DRAFT: Final = "https://json-schema.org/draft/2020-12/schema"

DATETIME_DOC: Final = (
    "an RFC 3339 date-time with a time zone, like '2026-11-21T23:15:00Z'"
)

DATETIME_PATTERN: Final = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?"
    r"(Z|[+-][0-9]{2}:[0-9]{2})$"
)
"""What a date-time field takes, in the schema and in the decoder alike:
RFC 3339's form with a time zone (``format`` alone asserts nothing)."""

_SCALARS: Final[dict[object, tuple[str, str]]] = {
    str: ("string", "a string"),
    int: ("integer", "an integer"),
    float: ("number", "a number"),
    bool: ("boolean", "true or false"),
    types.NoneType: ("null", "null"),
}


def record_tag(cls: object) -> str | None:
    """The ``"type"`` tag a record carries on the wire, or None if untagged."""
    tag = getattr(cls, "tag", None)
    return tag if isinstance(tag, str) else None


def union_members(tp: object) -> tuple[object, ...] | None:
    """The members of a union annotation (not `JSON`), or None for the rest.

    The wire tells a union's members apart only when they are records
    tagged by ``"type"``, or one type beside None: any other union is
    refused here, where a schema or a decoder would be made for it.

    Raises:
        ArgumentTypeError: for a union the wire cannot tell apart
            (``int | str``, two untagged records).
    """
    if typing.get_origin(tp) not in {Union, types.UnionType} or is_json_type(tp):
        return None
    members = typing.get_args(tp)
    rest = [member for member in members if member is not types.NoneType]
    if len(rest) > 1 and any(record_tag(member) is None for member in rest):
        raise ArgumentTypeError(
            "a field type",
            'records tagged by "type", or one type or None',
            f"{tp!r}, whose members the wire cannot tell apart",
        )
    return members


def describe_type(tp: object) -> str:  # noqa: C901 - one flat dispatch over type shapes
    """Say in words what a value of type *tp* looks like on the wire."""
    if is_json_type(tp):
        return "a JSON value"
    if tp in _SCALARS:
        return _SCALARS[tp][1]
    if tp is datetime:
        return DATETIME_DOC
    members = union_members(tp)
    if members is not None:
        tags = [record_tag(member) for member in members]
        if all(tags):
            return "an object tagged " + ", ".join(repr(tag) for tag in tags)
        return " or ".join(describe_type(member) for member in members)
    origin = typing.get_origin(tp)
    if origin is Literal:
        return "one of " + ", ".join(describe(value) for value in typing.get_args(tp))
    if origin in {list, tuple}:
        return "an array"
    if origin is dict:
        return "an object"
    if isinstance(tp, type) and issubclass(tp, enum.StrEnum):
        return "one of " + ", ".join(repr(member.value) for member in tp)
    tag = record_tag(tp)
    if tag is not None:
        return f"an object tagged {tag!r}"
    name = getattr(tp, "__name__", repr(tp))
    return f"an object ({name})"


def _doc(cls: type) -> str | None:
    doc = inspect.getdoc(cls)
    if not doc:
        return None
    return doc.split("\n\n", 1)[0].replace("\n", " ")


class _Builder:
    def __init__(self, aliases: Mapping[object, tuple[type, str]]) -> None:
        self.defs: dict[str, JSON] = {}
        self.aliases = aliases

    def of(self, tp: object) -> dict[str, JSON]:  # noqa: C901 - as describe_type
        if is_json_type(tp):
            return {}
        if tp in _SCALARS:
            return {"type": _SCALARS[tp][0]}
        if tp is datetime:
            return {
                "type": "string",
                "format": "date-time",
                "pattern": DATETIME_PATTERN,
            }
        members = union_members(tp)
        if members is not None:
            options: list[JSON] = [self.of(member) for member in members]
            disjoint = all(
                record_tag(member) is not None or member is types.NoneType
                for member in members
            )
            return {"oneOf" if disjoint else "anyOf": options}
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        if origin is Literal:
            values: list[JSON] = list(args)
            return {"const": values[0]} if len(values) == 1 else {"enum": values}
        if origin is list or (origin is tuple and args[1:] == (...,)):
            return {"type": "array", "items": self.of(args[0])}
        if origin is tuple:
            items: list[JSON] = [self.of(arg) for arg in args]
            return {
                "type": "array",
                "prefixItems": items,
                "minItems": len(args),
                "maxItems": len(args),
            }
        if origin is dict:
            return {"type": "object", "additionalProperties": self.of(args[1])}
        if isinstance(tp, type) and issubclass(tp, enum.StrEnum):
            return {"enum": [member.value for member in tp]}
        record, name = self.aliases.get(tp, (tp, None))
        if isinstance(record, type) and attrs.has(record):
            return self.record(record, name)
        where = "json_schema: a field type"
        raise ArgumentTypeError(
            where, "a JSON-ish type", f"{tp!r}, with no JSON Schema"
        )

    def record(self, cls: type, name: str | None = None) -> dict[str, JSON]:
        name = name or cls.__name__
        ref: dict[str, JSON] = {"$ref": f"#/$defs/{name}"}
        if name in self.defs:
            return ref
        self.defs[name] = {}  # placeholder: recursive records refer to it
        hints = typing.get_type_hints(cls)
        properties: dict[str, JSON] = {}
        required: list[JSON] = []
        tag = record_tag(cls)
        if tag is not None:
            properties["type"] = {"const": tag}
            required.append("type")
        for field in attrs.fields(cls):
            schema = self.of(hints[field.name])
            extra = field.metadata.get("json_schema")
            if extra:
                schema = {**schema, **extra}
            properties[field.name] = schema
            if field.default is attrs.NOTHING:
                required.append(field.name)
        body: dict[str, JSON] = {"type": "object", "title": name}
        doc = _doc(cls)
        if doc:
            body["description"] = doc
        body |= {
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        }
        self.defs[name] = body
        return ref


def schema_of(
    cls: type, *, aliases: Mapping[object, tuple[type, str]] | None = None
) -> dict[str, JSON]:
    """Build the schema document of a record type (see `wire.json_schema`).

    *aliases* maps a type that is not a record (``Interrupted``, an exception)
    to the record that spells its wire form and the name to give that record.
    """
    builder = _Builder(aliases or {})
    root = builder.record(cls) if attrs.has(cls) else builder.of(cls)
    document: dict[str, JSON] = {"$schema": DRAFT, **root}
    if builder.defs:
        document["$defs"] = dict(sorted(builder.defs.items()))
    return document
