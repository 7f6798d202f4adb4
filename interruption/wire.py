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

import contextlib
import enum
import types
import typing
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, Literal, TypeVar, Union

import attrs
import cattrs
from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError

from interruption._json import (
    JSON,
    MAX_DEPTH,
    FieldError,
    Mismatch,
    child_path,
    describe,
    is_json_type,
    json_problems,
)
from interruption._parse import ENCODE, parse
from interruption._schema import DATETIME_DOC, describe_type, schema_of
from interruption._validators import TRUSTED_DEPTH
from interruption.errors import DecodeError, Interrupted, PayloadError
from interruption.kinds import InterruptionKind

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["dumps", "json_schema", "loads", "structure", "unstructure"]

T = TypeVar("T")

MAX_BYTES: Final = 1_048_576
"""The default size limit of a wire document, in bytes."""


class _Invalid(Exception):
    """Mismatches found by a hook, with paths relative to the hook's value."""

    def __init__(self, mismatches: list[Mismatch]) -> None:
        super().__init__(mismatches)
        self.mismatches = mismatches


def _invalid(expected: str, value: object) -> _Invalid:
    return _Invalid([Mismatch("", expected, describe(value))])


@attrs.frozen
class _InterruptedWire:
    """A paused dispatch: why it paused, and what the human is shown."""

    kind: InterruptionKind
    payload: JSON


# --- strict scalar hooks -----------------------------------------------------


def _str(value: object, _: type) -> str:
    if type(value) is str:
        return value
    raise _invalid("a string", value)


def _int(value: object, _: type) -> int:
    if type(value) is int:
        return value
    raise _invalid("an integer", value)


def _float(value: object, _: type) -> float:
    kind = type(value)
    if kind is float:
        return value  # type: ignore[return-value]
    if kind is int:
        return float(value)  # type: ignore[arg-type]
    raise _invalid("a number", value)


def _bool(value: object, _: type) -> bool:
    if type(value) is bool:
        return value
    raise _invalid("true or false", value)


def _none(value: object, _: type) -> None:
    if value is None:
        return
    raise _invalid("null", value)


def _datetime(value: object, _: type) -> datetime:
    if type(value) is str:
        try:
            parsed = datetime.fromisoformat(value)
            if parsed.utcoffset() is not None:
                return parsed.astimezone(UTC)
        except (ValueError, OverflowError):  # malformed, or out of range in UTC
            pass
    raise _invalid(DATETIME_DOC, value)


def _unstructure_datetime(value: datetime) -> str:
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _json(value: object, _: object) -> JSON:
    return value  # type: ignore[return-value]  # checked by parse() or structure()


def _identity(value: JSON) -> JSON:
    return value


_is_json = is_json_type


def _exactly(tp: type) -> Callable[[object], bool]:
    def predicate(candidate: object) -> bool:
        return candidate is tp

    return predicate


def _is_literal(tp: object) -> bool:
    return typing.get_origin(tp) is Literal


def _is_union(tp: object) -> bool:
    return typing.get_origin(tp) in {Union, types.UnionType} and not _is_json(tp)


def _is_sequence(tp: object) -> bool:
    origin = typing.get_origin(tp)
    if origin is list:
        return True
    return origin is tuple and typing.get_args(tp)[1:] == (...,)


def _is_mapping(tp: object) -> bool:
    return typing.get_origin(tp) is dict


def _tag(cls: object) -> str | None:
    tag = getattr(cls, "tag", None)
    return tag if isinstance(tag, str) else None


def _enum(value: object, tp: type[enum.StrEnum]) -> enum.StrEnum:
    if type(value) is str:
        try:
            return tp(value)
        except ValueError:
            pass
    raise _invalid(describe_type(tp), value)


def _enum_value(value: enum.StrEnum) -> str:
    return value.value


def _literal_hook(tp: object) -> Callable[[object, type], object]:
    allowed = typing.get_args(tp)
    expected = "one of " + ", ".join(describe(value) for value in allowed)

    def structure_literal(value: object, _: type) -> object:
        for option in allowed:
            if type(option) is type(value) and option == value:
                return option
        raise _invalid(expected, value)

    return structure_literal


class _Codec:
    """Builds one cattrs converter and the hooks that make it strict."""

    def __init__(self, *, detailed: bool) -> None:
        self.detailed = detailed
        conv = cattrs.Converter(detailed_validation=detailed, forbid_extra_keys=True)
        self.converter = conv
        # Scalars first: cattrs would coerce 123 to "123" by default.
        # Class hooks, not predicates: cattrs consults its class table (where
        # its own coercing str/int/float/bool hooks live) before predicates.
        # A StrEnum still gets the enum hook below, the more specific class.
        for tp, hook in (
            (str, _str),
            (int, _int),
            (float, _float),
            (bool, _bool),
            (types.NoneType, _none),
        ):
            conv.register_structure_hook(tp, hook)
        conv.register_structure_hook_func(_is_json, _json)
        conv.register_unstructure_hook_func(_is_json, _identity)
        # A singledispatch hook: cattrs would try its own Enum hook first.
        conv.register_structure_hook(enum.StrEnum, _enum)
        # cattrs would pass a StrEnum through as a str: give the plain value.
        conv.register_unstructure_hook(enum.StrEnum, _enum_value)
        conv.register_structure_hook_factory(_is_literal, _literal_hook)
        conv.register_structure_hook_factory(_is_union, self._union_hook)
        conv.register_structure_hook_factory(_is_sequence, self._sequence_hook)
        conv.register_structure_hook_factory(_is_mapping, self._mapping_hook)
        conv.register_unstructure_hook_factory(_is_sequence, self._unstructure_sequence)
        conv.register_structure_hook_factory(attrs.has, self._record_hook)
        conv.register_unstructure_hook_factory(attrs.has, self._unstructure_record)
        conv.register_structure_hook(Interrupted, self._structure_interrupted)
        conv.register_unstructure_hook(Interrupted, self._unstructure_interrupted)
        conv.register_structure_hook_func(_exactly(datetime), _datetime)
        conv.register_unstructure_hook_func(_exactly(datetime), _unstructure_datetime)

    # --- records -------------------------------------------------------------

    def _record_hook(  # noqa: C901 - one closure holds the fast and detailed paths
        self, cls: type
    ) -> Callable[[object, type], object]:
        # cattrs' generated function ignores unknown keys here; the subset
        # test below rejects them without copying the dict to drop "type".
        inner: Callable[[object, type], object]
        inner = cattrs.gen.make_dict_structure_fn(  # type: ignore[assignment]
            cls, self.converter, _cattrs_forbid_extra_keys=False
        )
        tag = _tag(cls)
        name = cls.__name__
        known = [field.name for field in attrs.fields(cls)]
        if tag is not None:
            known.insert(0, "type")
        allowed = frozenset(known)
        detailed = self.detailed

        def unknown(value: dict[str, object]) -> list[Mismatch]:
            return [
                Mismatch(
                    child_path("", key),
                    "only the fields " + ", ".join(known),
                    f"unknown field {key!r}",
                )
                for key in value
                if key not in allowed
            ]

        def structure_record(value: object, _: type) -> object:
            if type(value) is not dict:
                raise _invalid(f"an object ({name})", value)
            if tag is not None:
                found = value.get("type", _MISSING)
                if type(found) is not str or found != tag:
                    raise _Invalid([_tag_mismatch(found, repr(tag))])
            if not detailed:
                if not value.keys() <= allowed:
                    raise _Invalid(unknown(value))
                return inner(value, cls)
            found_problems: list[Mismatch] = []
            try:
                result = inner(value, cls)
            except Exception as error:  # noqa: BLE001 - translated, path added
                found_problems.extend(mismatches(error, ""))
            found_problems.extend(unknown(value))
            if found_problems:
                raise _Invalid(found_problems)
            return result

        return structure_record

    def _unstructure_record(self, cls: type) -> Callable[[object], JSON]:
        inner: Callable[[object], dict[str, JSON]]
        inner = cattrs.gen.make_dict_unstructure_fn(cls, self.converter)
        tag = _tag(cls)
        if tag is None:
            return inner

        def unstructure_tagged(value: object) -> JSON:
            return {"type": tag, **inner(value)}

        return unstructure_tagged

    def _structure_interrupted(self, value: object, _: type) -> Interrupted:
        if type(value) is not dict:
            raise _invalid("an object (Interrupted)", value)
        wire = self.converter.structure(value, _InterruptedWire)
        try:
            return Interrupted(wire.kind, wire.payload)
        except PayloadError as error:  # deeper than a payload may be
            raise _Invalid(
                [
                    Mismatch(".payload" + found.path[1:], found.expected, found.got)
                    for found in error.problems
                ]
            ) from None

    def _unstructure_interrupted(self, value: Interrupted) -> JSON:
        return {
            "kind": self.converter.unstructure(value.kind),
            "payload": value.payload,
        }

    # --- unions --------------------------------------------------------------

    def _union_hook(self, tp: object) -> Callable[[object, type], object]:
        conv = self.converter
        members = typing.get_args(tp)
        optional = types.NoneType in members
        rest = tuple(member for member in members if member is not types.NoneType)
        tags = {_tag(member): member for member in rest}
        hooks: dict[object, Callable[[object, type], object]] = {}
        if None not in tags:
            expected = ", ".join(repr(tag) for tag in tags)

            def structure_tagged(value: object, _: type) -> object:
                if value is None and optional:
                    return None
                if type(value) is not dict:
                    raise _invalid(describe_type(tp), value)
                found = value.get("type", _MISSING)
                # Only a string can be a tag: an array or object is unhashable.
                cls = tags.get(found) if type(found) is str else None
                if cls is None:
                    raise _Invalid([_tag_mismatch(found, expected)])
                hook = hooks.get(cls)
                if hook is None:
                    hook = hooks[cls] = conv.get_structure_hook(cls)
                return hook(value, cls)

            return structure_tagged
        if len(rest) == 1:
            (only,) = rest
            hook = conv.get_structure_hook(only)

            def structure_optional(value: object, _: type) -> object:
                if value is None:
                    return None
                return hook(value, only)

            return structure_optional
        msg = f"unsupported union on the wire: {tp!r}"  # pragma: no cover
        raise TypeError(msg)  # pragma: no cover

    # --- collections ---------------------------------------------------------

    def _sequence_hook(self, tp: object) -> Callable[[object, type], object]:
        item_type = typing.get_args(tp)[0]
        make = tuple if typing.get_origin(tp) is tuple else list
        hook = self.converter.get_structure_hook(item_type)
        detailed = self.detailed

        def structure_sequence(value: object, _: type) -> object:
            if type(value) is not list:
                raise _invalid("an array", value)
            if not detailed:
                return make(hook(item, item_type) for item in value)
            found: list[Mismatch] = []
            result = []
            for index, item in enumerate(value):
                try:
                    result.append(hook(item, item_type))
                except Exception as error:  # noqa: BLE001 - translated, path added
                    found.extend(mismatches(error, f"[{index}]"))
            if found:
                raise _Invalid(found)
            return make(result)

        return structure_sequence

    def _unstructure_sequence(self, tp: object) -> Callable[[object], JSON]:
        item_type = typing.get_args(tp)[0]
        if _is_json(item_type) or item_type in {str, int, float, bool}:
            return list  # type: ignore[return-value]
        hook = self.converter.get_unstructure_hook(item_type)

        def unstructure_sequence(value: object) -> JSON:
            return [hook(item) for item in value]  # type: ignore[attr-defined]

        return unstructure_sequence

    def _mapping_hook(self, tp: object) -> Callable[[object, type], object]:
        key_type, value_type = typing.get_args(tp)
        if key_type is not str:  # pragma: no cover - a programming error
            msg = f"wire mappings need str keys, not {key_type!r}"
            raise TypeError(msg)
        hook = self.converter.get_structure_hook(value_type)

        def structure_mapping(value: object, _: type) -> object:
            if type(value) is not dict:
                raise _invalid("an object", value)
            found: list[Mismatch] = []
            result = {}
            for key, item in value.items():
                try:
                    result[key] = hook(item, value_type)
                except Exception as error:  # noqa: BLE001 - translated, path added
                    found.extend(mismatches(error, child_path("", key)))
            if found:
                raise _Invalid(found)
            return result

        return structure_mapping


_MISSING: Final = object()


def _tag_mismatch(found: object, expected: str) -> Mismatch:
    if found is _MISSING:
        return Mismatch(".type", f"a tag, one of {expected}", "nothing")
    return Mismatch(".type", f"one of {expected}", describe(found))


def mismatches(error: BaseException, path: str = "$") -> list[Mismatch]:
    """Translate a structuring failure into mismatches with JSON paths."""
    if isinstance(error, _Invalid):
        return [
            Mismatch(path + found.path, found.expected, found.got)
            for found in error.mismatches
        ]
    if isinstance(error, ClassValidationError):
        found: list[Mismatch] = []
        fields = attrs.fields_dict(error.cl)
        with_notes, without = error.group_exceptions()
        for inner, note in with_notes:
            where = child_path(path, note.name)
            if isinstance(inner, KeyError):
                field_type = fields[note.name].type
                found.append(Mismatch(where, describe_type(field_type), "nothing"))
            else:
                found.extend(mismatches(inner, where))
        for inner in without:
            found.extend(mismatches(inner, path))
        return found
    if isinstance(error, ForbiddenExtraKeysError):
        known = [field.name for field in attrs.fields(error.cl)]
        if _tag(error.cl) is not None:
            known.insert(0, "type")
        return [
            Mismatch(
                child_path(path, key),
                "only the fields " + ", ".join(known),
                f"unknown field {key!r}",
            )
            for key in sorted(error.extra_fields)
        ]
    if isinstance(error, FieldError):
        return [Mismatch(child_path(path, error.field), error.expected, error.got)]
    if isinstance(error, DecodeError):
        return [
            Mismatch(path + found.path.removeprefix("$"), found.expected, found.got)
            for found in error.problems
        ]
    # Anything else is a bug in a hook; keep its words rather than crash.
    return [Mismatch(path, "a valid value", f"{type(error).__name__}: {error}")]


_FAST: Final = _Codec(detailed=False)
_DETAILED: Final = _Codec(detailed=True)


def _structure_checked(value: JSON, cls: type[T], max_depth: int) -> T:
    """Build *cls* from *value*, proven JSON within *max_depth* by the caller."""
    token = TRUSTED_DEPTH.set(max_depth)
    try:
        with contextlib.suppress(Exception):  # re-run below to word every problem
            return _FAST.converter.structure(value, cls)
        try:
            result = _DETAILED.converter.structure(value, cls)
        except Exception as error:  # noqa: BLE001 - translated into DecodeError
            raise DecodeError(mismatches(error)) from None
        return result  # pragma: no cover - the fast path agrees with the detailed one
    finally:
        TRUSTED_DEPTH.reset(token)


def loads(
    data: str | bytes,
    cls: type[T],
    *,
    max_bytes: int = MAX_BYTES,
    max_depth: int = MAX_DEPTH,
) -> T:
    """Decode a wire document into an instance of *cls*, strictly.

    Args:
        data: The JSON document, as text or UTF-8 bytes.
        cls: The record type to decode into, like `PendingInterrupt`.
        max_bytes: The largest document accepted, in UTF-8 bytes.
        max_depth: How deeply arrays and objects may nest.

    Returns:
        The decoded record.

    Raises:
        DecodeError: listing every problem: its path, what was expected
            there and what was got.
    """
    value = parse(data, max_bytes=max_bytes, max_depth=max_depth)
    return _structure_checked(value, cls, max_depth)


def structure(data: JSON, cls: type[T], *, max_depth: int = MAX_DEPTH) -> T:
    """Turn a JSON value already in memory into an instance of *cls*.

    Args:
        data: A JSON value (as `json.loads` would give).
        cls: The record type to build.
        max_depth: How deeply arrays and objects may nest.

    Returns:
        The record.

    Raises:
        DecodeError: if *data* is not JSON or does not fit *cls*.
    """
    problems = json_problems(data, max_depth=max_depth)
    if problems:
        raise DecodeError(problems)
    return _structure_checked(data, cls, max_depth)


def unstructure(obj: object) -> JSON:
    """Turn a record into its wire form as a JSON value.

    Args:
        obj: A record of this library (or any attrs class of JSON fields).

    Returns:
        Plain dicts, lists and scalars, ready for any JSON encoder.
    """
    return _FAST.converter.unstructure(obj)  # type: ignore[no-any-return]


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
    return schema_of(cls, aliases=_SCHEMA_ALIASES)


_SCHEMA_ALIASES: Final[dict[object, tuple[type, str]]] = {
    Interrupted: (_InterruptedWire, "Interrupted")
}
