"""The codec's one converter, behind `interruption.wire`: strict in, plain out.

One cattrs converter decodes and encodes every record. Its record hooks
are cattrs' own generated functions (`make_dict_structure_fn` with detailed
validation, `make_dict_unstructure_fn`); its scalar, enum, literal, union,
sequence and mapping hooks are strict (``123`` is not ``"123"``), and each
collects every problem beneath it with its path. A record is built by its
own ``__init__``, so its validators and converters run once, whatever
builds it. Unknown keys are refused beside every other problem, and the
problems reach the caller as one `DecodeError`.
"""

from __future__ import annotations

import enum
import functools
import re
import types
import typing
from datetime import UTC, datetime
from typing import TYPE_CHECKING, ClassVar, Final, Literal, TypeVar

import attrs

from interruption._json import (
    JSON,
    MAX_SAFE_INTEGER,
    FrozenArray,
    FrozenObject,
    child_path,
    describe,
    is_json_type,
)
from interruption._record_schema import (
    DATETIME_DOC,
    DATETIME_PATTERN,
    describe_type,
    record_tag,
    union_members,
)
from interruption._validators import payload_json
from interruption.errors import (
    DecodeError,
    FieldError,
    Mismatch,
    PayloadError,
    Problem,
    ResumeRejected,
)
from interruption.kinds import InterruptionKind
from interruption.pause import Interrupted

if TYPE_CHECKING:
    from collections.abc import Callable

    import cattrs

T = TypeVar("T")

_DATETIME: Final = re.compile(DATETIME_PATTERN)


@attrs.frozen
class InterruptedWire:
    """A paused dispatch: why it paused, and what the human is shown."""

    kind: InterruptionKind
    # Its converter is `Interrupted`'s check: the codec hands it the payload.
    payload: JSON = attrs.field(converter=payload_json)


def _some_problems(
    _instance: object,
    attribute: attrs.Attribute[tuple[object, ...]],
    value: tuple[object, ...],
) -> None:
    if not value:
        raise FieldError(attribute.name, "at least one problem", "none")


@attrs.frozen
class ResumeRejectedWire:
    """A refused resume, with every problem: what a server sends back."""

    tag: ClassVar[Literal["resume_rejected"]] = "resume_rejected"
    problems: tuple[Problem, ...] = attrs.field(
        validator=_some_problems, metadata={"json_schema": {"minItems": 1}}
    )


@attrs.frozen
class DecodeErrorWire:
    """Wire input that is malformed, with every problem: what a server sends back."""

    tag: ClassVar[Literal["decode_error"]] = "decode_error"
    problems: tuple[Mismatch, ...] = attrs.field(
        validator=_some_problems, metadata={"json_schema": {"minItems": 1}}
    )


SCHEMA_ALIASES: Final[dict[object, tuple[type, str]]] = {
    Interrupted: (InterruptedWire, "Interrupted"),
    ResumeRejected: (ResumeRejectedWire, "ResumeRejected"),
    DecodeError: (DecodeErrorWire, "DecodeError"),
}
"""Types that are not records, mapped to the record that spells their wire form."""


# --- strict hooks: each raises `_Invalid` with every problem beneath it -------


class _Invalid(Exception):
    """Mismatches found by a hook, with paths relative to the hook's value."""

    def __init__(self, found: list[Mismatch]) -> None:
        super().__init__(found)
        self.mismatches = found


def _invalid(expected: str, value: object) -> _Invalid:
    return _Invalid([Mismatch("", expected, describe(value))])


def _str(value: object, _: type) -> str:
    if type(value) is str:
        return value
    raise _invalid("a string", value)


def _int(value: object, _: type) -> int:
    if type(value) is int:
        return value
    # JSON has one number type: 2.0 is the integer 2, as JSON Schema's
    # "integer" and `json_equal` read it.
    if (
        isinstance(value, float)
        and value.is_integer()
        and abs(value) <= MAX_SAFE_INTEGER
    ):
        return int(value)
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


def _datetime(value: object, _: type = datetime) -> datetime:
    if type(value) is str and _DATETIME.fullmatch(value):  # with its time zone
        try:
            return datetime.fromisoformat(value).astimezone(UTC)
        except (ValueError, OverflowError):  # malformed, or out of range in UTC
            pass
    raise _invalid(DATETIME_DOC, value)


def _unstructure_datetime(value: datetime) -> str:
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _json(value: object, _: object) -> JSON:
    return value  # type: ignore[return-value]  # checked by the record that keeps it


def _identity(value: JSON) -> JSON:
    return value


def _frozen_json(tp: object) -> bool:
    return tp is FrozenObject or tp is FrozenArray


def _exactly(tp: type) -> Callable[[object], bool]:
    def predicate(candidate: object) -> bool:
        return candidate is tp

    return predicate


def _is_literal(tp: object) -> bool:
    return typing.get_origin(tp) is Literal


def _is_union(tp: object) -> bool:
    # No verdict on the union here: `_union_hook` asks `union_members`,
    # whose refusal must reach the caller (cattrs swallows a predicate's).
    return typing.get_origin(tp) in {typing.Union, types.UnionType} and not (
        is_json_type(tp)
    )


def _is_sequence(tp: object) -> bool:
    origin = typing.get_origin(tp)
    if origin is list:
        return True
    return origin is tuple and typing.get_args(tp)[1:] == (...,)


def _is_mapping(tp: object) -> bool:
    return typing.get_origin(tp) is dict


_MEMBERS: Final[dict[type[enum.StrEnum], dict[str, enum.StrEnum]]] = {}
"""Each `enum.StrEnum` the codec met: its members by value (a class's own)."""


def _enum(value: object, tp: type[enum.StrEnum]) -> enum.StrEnum:
    members = _MEMBERS.get(tp)
    if members is None:
        members = _MEMBERS[tp] = {member.value: member for member in tp}
    if type(value) is str:
        member = members.get(value)
        if member is not None:
            return member
    raise _invalid(describe_type(tp), value)


def _enum_value(value: enum.StrEnum) -> str:
    return value.value


def _literal_hook(tp: object) -> Callable[[object, type], object]:
    allowed = typing.get_args(tp)
    expected = "one of " + ", ".join(describe(value) for value in allowed)

    def structure_literal(value: object, _: type) -> object:
        for option in allowed:
            same = type(option) is type(value) or (
                type(option) is int and type(value) is float  # 2.0 is 2, as in `_int`
            )
            if same and option == value:
                return option
        raise _invalid(expected, value)

    return structure_literal


_MISSING: Final = object()


def _tag_mismatch(found: object, expected: str) -> Mismatch:
    if found is _MISSING:
        return Mismatch(".type", f"a tag, one of {expected}", "nothing")
    return Mismatch(".type", f"one of {expected}", describe(found))


def _field_names(cls: type) -> list[str]:
    """The keys a record's wire form may hold, ``"type"`` first if tagged."""
    names = [field.name for field in attrs.fields(cls)]
    return names if record_tag(cls) is None else ["type", *names]


def _checked_object(
    wire: type, made: type, inner: Callable[[object, type], object]
) -> Callable[[object, type], object]:
    """The hook that builds *made* from the wire form of record *wire*.

    *inner* is cattrs' generated function, which reads the fields and
    calls *made*'s ``__init__``; around it, the value must be an object
    with *wire*'s tag and no key but its fields.
    """
    tag = record_tag(wire)
    name = made.__name__
    known = _field_names(wire)
    allowed = frozenset(known)

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
        try:
            result = inner(value, made)
        except Exception as error:  # noqa: BLE001 - translated, path added
            raise _Invalid(mismatches(error, "") + unknown(value)) from None
        if value.keys() <= allowed:
            return result
        raise _Invalid(unknown(value))

    return structure_record


def _json_converters_only(cls: type) -> bool:
    """Whether each field of *cls* with a converter holds `JSON`.

    Such a converter takes any JSON value and checks it itself (as
    `interruption._validators.input_json` does): cattrs then hands it the
    value as it is, without a hook of its own to call first.
    """
    hints = typing.get_type_hints(cls)
    return all(
        is_json_type(hints[field.name])
        for field in attrs.fields(cls)
        if field.converter is not None
    )


class _Converter:
    """The codec's one cattrs converter, with its strict hooks.

    A record's hook is cattrs' generated function behind a check that the
    value is an object, carries the record's tag and holds no unknown key.
    With *detailed*, cattrs' generated functions collect every field's
    problem instead of stopping at the first: the same hooks, the same
    constructors, slower; `structure_value` runs it only to word a failure.
    """

    def __init__(self, *, detailed: bool) -> None:
        import cattrs  # noqa: PLC0415 - slow to import: when first used

        conv = cattrs.Converter(
            detailed_validation=detailed,
            # A tuple field is written as a JSON array.
            unstruct_collection_overrides={tuple: list},
        )
        self.converter: cattrs.Converter = conv
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
        conv.register_structure_hook_func(is_json_type, _json)
        conv.register_unstructure_hook_func(is_json_type, _identity)
        # A record's own JSON is immutable: written as it is held.
        conv.register_unstructure_hook_func(_frozen_json, _identity)
        # A singledispatch hook: cattrs would try its own Enum hook first.
        conv.register_structure_hook(enum.StrEnum, _enum)
        # cattrs would pass a StrEnum through as a str: give the plain value.
        conv.register_unstructure_hook(enum.StrEnum, _enum_value)
        conv.register_structure_hook_factory(_is_literal, _literal_hook)
        conv.register_structure_hook_factory(_is_union, self._union_hook)
        conv.register_structure_hook_factory(_is_sequence, self._sequence_hook)
        conv.register_structure_hook_factory(_is_mapping, self._mapping_hook)
        conv.register_structure_hook_factory(attrs.has, self._record_hook)
        conv.register_unstructure_hook_factory(attrs.has, self._plain_record)
        conv.register_structure_hook(Interrupted, self._interrupted_hook())
        conv.register_structure_hook(ResumeRejected, self._structure_rejected)
        conv.register_structure_hook(DecodeError, self._structure_decode_error)
        # Both keep their wire fields as attributes of the same names.
        conv.register_unstructure_hook_factory(
            _exactly(Interrupted), lambda _: self._plain_record(InterruptedWire)
        )
        conv.register_unstructure_hook_factory(
            _exactly(ResumeRejected), lambda _: self._plain_record(ResumeRejectedWire)
        )
        conv.register_unstructure_hook_factory(
            _exactly(DecodeError), lambda _: self._plain_record(DecodeErrorWire)
        )
        conv.register_structure_hook_func(_exactly(datetime), _datetime)
        conv.register_unstructure_hook_func(_exactly(datetime), _unstructure_datetime)

    def _record_hook(self, cls: type) -> Callable[[object, type], object]:
        inner: Callable[[object, type], object]
        from cattrs.gen import make_dict_structure_fn  # noqa: PLC0415 - as __init__

        inner = make_dict_structure_fn(  # type: ignore[assignment]
            cls,
            self.converter,
            _cattrs_prefer_attrib_converters=_json_converters_only(cls),
        )
        return _checked_object(cls, cls, inner)

    def _interrupted_hook(self) -> Callable[[object, type], object]:
        """`Interrupted`, built by its own ``__init__`` from its wire fields."""
        attrs.resolve_types(InterruptedWire)
        inner: Callable[[object, type], object]
        from cattrs.gen import make_dict_structure_fn_from_attrs  # noqa: PLC0415

        inner = make_dict_structure_fn_from_attrs(  # type: ignore[assignment]
            list(attrs.fields(InterruptedWire)),
            Interrupted,
            self.converter,
            _cattrs_prefer_attrib_converters=True,
        )
        return _checked_object(InterruptedWire, Interrupted, inner)

    def _plain_record(self, cls: type) -> Callable[[object], JSON]:
        inner: Callable[[object], dict[str, JSON]]
        from cattrs.gen import make_dict_unstructure_fn  # noqa: PLC0415 - as __init__

        inner = make_dict_unstructure_fn(cls, self.converter)
        tag = record_tag(cls)
        if tag is None:
            return inner

        def plain_tagged(record: object) -> JSON:
            return {"type": tag, **inner(record)}

        return plain_tagged

    def _structure_rejected(self, value: object, _: type) -> ResumeRejected:
        if type(value) is not dict:
            raise _invalid("an object (ResumeRejected)", value)
        wire = self.converter.structure(value, ResumeRejectedWire)
        return ResumeRejected(wire.problems)

    def _structure_decode_error(self, value: object, _: type) -> DecodeError:
        if type(value) is not dict:
            raise _invalid("an object (DecodeError)", value)
        wire = self.converter.structure(value, DecodeErrorWire)
        return DecodeError(wire.problems)

    def _union_hook(self, tp: object) -> Callable[[object, type], object]:
        conv = self.converter
        union_members(tp)  # refuses a union the wire cannot tell apart
        members = typing.get_args(tp)
        optional = types.NoneType in members
        rest = tuple(member for member in members if member is not types.NoneType)
        tags = {record_tag(member): member for member in rest}
        if None not in tags:
            expected = ", ".join(repr(tag) for tag in tags)

            # Each member's hook, by tag: looked up at the first use, since
            # a member's hook may not be made yet when this one is.
            hooks: dict[str, Callable[[object, type], object]] = {}

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
                hook = hooks.get(found)
                if hook is None:
                    hook = hooks[found] = conv.get_structure_hook(cls)
                return hook(value, cls)

            return structure_tagged
        (only,) = rest  # one type or None: `union_members` refuses the rest
        hook = conv.get_structure_hook(only)

        def structure_optional(value: object, _: type) -> object:
            if value is None:
                return None
            return hook(value, only)

        return structure_optional

    def _sequence_hook(self, tp: object) -> Callable[[object, type], object]:
        item_type = typing.get_args(tp)[0]
        make = tuple if typing.get_origin(tp) is tuple else list
        hook = self.converter.get_structure_hook(item_type)

        def structure_sequence(value: object, _: type) -> object:
            if type(value) is not list:
                raise _invalid("an array", value)
            made: list[object] = []
            add = made.append
            try:
                for item in value:
                    add(hook(item, item_type))
            except Exception as error:  # noqa: BLE001 - translated, path added
                # The rest of the items, each once, for every problem.
                found = mismatches(error, f"[{len(made)}]")
                for index in range(len(made) + 1, len(value)):
                    try:
                        hook(value[index], item_type)
                    except Exception as later:  # noqa: BLE001 - as above
                        found.extend(mismatches(later, f"[{index}]"))
                raise _Invalid(found) from None
            return made if make is list else tuple(made)

        return structure_sequence

    def _mapping_hook(self, tp: object) -> Callable[[object, type], object]:
        key_type, value_type = typing.get_args(tp)
        if key_type is not str:  # pragma: no cover - a programming error
            msg = f"wire mappings need str keys, not {key_type!r}"
            raise TypeError(msg)
        if is_json_type(value_type):
            # Each value is JSON (its hook takes it as it is): the object's
            # record checks it, or keeps its frozen copy.
            def structure_object(value: object, _: type) -> object:
                if type(value) is not dict:
                    raise _invalid("an object", value)
                return value

            return structure_object
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


def mismatches(error: BaseException, path: str = "$") -> list[Mismatch]:
    """Translate a structuring failure into mismatches with JSON paths."""
    if isinstance(error, _Invalid):
        return [
            Mismatch(path + found.path, found.expected, found.got)
            for found in error.mismatches
        ]
    from cattrs.errors import ClassValidationError  # noqa: PLC0415 - as _Converter

    if isinstance(error, ClassValidationError):
        found: list[Mismatch] = []
        with_notes, without = error.group_exceptions()
        for inner, note in with_notes:
            where = child_path(path, note.name)
            if isinstance(inner, KeyError):
                found.append(Mismatch(where, describe_type(note.type), "nothing"))
            else:
                found.extend(mismatches(inner, where))
        for inner in without:
            # `Interrupted` checks its payload itself, at its own "$".
            at_payload = error.cl is Interrupted and isinstance(inner, PayloadError)
            found.extend(
                mismatches(inner, child_path(path, "payload") if at_payload else path)
            )
        return found
    if isinstance(error, FieldError):
        return [Mismatch(child_path(path, error.field), error.expected, error.got)]
    if isinstance(error, DecodeError | PayloadError):  # a record's validator too
        return [
            Mismatch(path + found.path.removeprefix("$"), found.expected, found.got)
            for found in error.problems
        ]
    # Anything else is a bug in a hook; keep its words rather than crash.
    return [Mismatch(path, "a valid value", f"{type(error).__name__}: {error}")]


@functools.cache
def converter() -> cattrs.Converter:
    """The codec's one converter, built when first used (cattrs is slow to import)."""
    return _Converter(detailed=False).converter


@functools.cache
def _detailed() -> cattrs.Converter:
    """The converter with cattrs' detailed validation: built at the first failure."""
    return _Converter(detailed=True).converter


def structure_value(value: JSON, cls: type[T]) -> T:
    """Build *cls* from *value*, a JSON value, through the one converter.

    The verdict is the converter's, which stops at the first problem. A
    refused value is run again with cattrs' detailed validation (the same
    hooks and constructors), which goes on past each problem, to name every
    one; should that run not fail, the first run's problem is named.

    Raises:
        DecodeError: naming every problem, with its JSON path.
    """
    try:
        return converter().structure(value, cls)
    except Exception as error:  # noqa: BLE001 - worded below, as DecodeError
        refused = error
    try:
        _detailed().structure(value, cls)
    except Exception as error:  # noqa: BLE001 - translated into DecodeError
        refused = error
    raise DecodeError(mismatches(refused)) from None


def plain(obj: object) -> JSON:
    """The wire form of a record as a JSON value (see `wire.unstructure`)."""
    return converter().unstructure(obj)  # type: ignore[no-any-return]
