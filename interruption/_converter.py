"""The codec's machinery behind `interruption.wire`: strict in, plain out.

Decoding takes two paths over a JSON value that the parser (or `structure`)
has already checked: JSON within the depth limit, no NaN, no lone surrogate,
integers within I-JSON.

* The fast path (`_Fast`) is generated once per type: straight-line code
  that checks what the wire form says (exact types, tags, known keys, every
  required field) and builds each record without running the attrs
  validators that merely repeat those checks (see `_Fast._redundant`). At
  the first problem it gives up without words.
* The detailed path (`_Detailed`, one cattrs converter) runs only then. It
  decides the verdict and names every problem with its JSON path.

The fast path accepts nothing the detailed path rejects: it checks the
same things or more, and builds the same records. Encoding (`plain`) is
generated per record class too, falling back to the cattrs converter for
values that are not records, lists or dicts.
"""

from __future__ import annotations

import collections
import enum
import functools
import itertools
import types
import typing
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar, Final, Literal, TypeAlias, TypeVar

import attrs

from interruption._json import (
    JSON,
    MAX_DEPTH,
    FrozenArray,
    FrozenObject,
    Mismatch,
    child_path,
    describe,
    frozen,
    is_json,
    is_json_type,
)
from interruption._schema import DATETIME_DOC, describe_type, record_tag, union_members
from interruption._validators import (
    DECODED,
    non_empty,
    optional_non_empty,
    optional_string,
    string,
)
from interruption.errors import (
    DecodeError,
    FieldError,
    Interrupted,
    PayloadError,
    Problem,
    ResumeRejected,
)
from interruption.kinds import InterruptionKind

if TYPE_CHECKING:
    from collections.abc import Callable

    import cattrs

    Hook: TypeAlias = Callable[[object], object]
    """A fast structuring function: a JSON value in, a record out, or any error."""

    Plain: TypeAlias = Callable[[Any], JSON]
    """An encoding function: a value in, its wire form out."""

T = TypeVar("T")


@attrs.frozen
class InterruptedWire:
    """A paused dispatch: why it paused, and what the human is shown."""

    kind: InterruptionKind
    payload: JSON


def _some_problems(
    _instance: object,
    attribute: attrs.Attribute[tuple[Problem, ...]],
    value: tuple[Problem, ...],
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


def _rejected(wire: ResumeRejectedWire) -> ResumeRejected:
    return ResumeRejected(wire.problems)


SCHEMA_ALIASES: Final[dict[object, tuple[type, str]]] = {
    Interrupted: (InterruptedWire, "Interrupted"),
    ResumeRejected: (ResumeRejectedWire, "ResumeRejected"),
}
"""Types that are not records, mapped to the record that spells their wire form."""


# --- the detailed path: one cattrs converter that words every problem --------


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


def _exactly(tp: type) -> Callable[[object], bool]:
    def predicate(candidate: object) -> bool:
        return candidate is tp

    return predicate


def _is_literal(tp: object) -> bool:
    return typing.get_origin(tp) is Literal


def _is_union(tp: object) -> bool:
    return union_members(tp) is not None


def _is_sequence(tp: object) -> bool:
    origin = typing.get_origin(tp)
    if origin is list:
        return True
    return origin is tuple and typing.get_args(tp)[1:] == (...,)


def _is_mapping(tp: object) -> bool:
    return typing.get_origin(tp) is dict


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


_MISSING: Final = object()


def _tag_mismatch(found: object, expected: str) -> Mismatch:
    if found is _MISSING:
        return Mismatch(".type", f"a tag, one of {expected}", "nothing")
    return Mismatch(".type", f"one of {expected}", describe(found))


def _field_names(cls: type) -> list[str]:
    """The keys a record's wire form may hold, ``"type"`` first if tagged."""
    names = [field.name for field in attrs.fields(cls)]
    return names if record_tag(cls) is None else ["type", *names]


class _Detailed:
    """One cattrs converter whose hooks collect every problem with its path."""

    def __init__(self) -> None:
        import cattrs  # noqa: PLC0415 - imported when a first error is worded

        conv = cattrs.Converter(detailed_validation=True)
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
        # A singledispatch hook: cattrs would try its own Enum hook first.
        conv.register_structure_hook(enum.StrEnum, _enum)
        # cattrs would pass a StrEnum through as a str: give the plain value.
        conv.register_unstructure_hook(enum.StrEnum, _enum_value)
        conv.register_structure_hook_factory(_is_literal, _literal_hook)
        conv.register_structure_hook_factory(_is_union, self._union_hook)
        conv.register_structure_hook_factory(_is_sequence, self._sequence_hook)
        conv.register_structure_hook_factory(_is_mapping, self._mapping_hook)
        conv.register_structure_hook_factory(attrs.has, self._record_hook)
        conv.register_structure_hook(Interrupted, self._structure_interrupted)
        conv.register_unstructure_hook(Interrupted, plain)
        conv.register_structure_hook(ResumeRejected, self._structure_rejected)
        conv.register_unstructure_hook(ResumeRejected, plain)
        conv.register_unstructure_hook_factory(attrs.has, _plain_record)
        conv.register_structure_hook_func(_exactly(datetime), _datetime)
        conv.register_unstructure_hook_func(_exactly(datetime), _unstructure_datetime)

    def _record_hook(self, cls: type) -> Callable[[object, type], object]:
        # cattrs' generated function ignores unknown keys here; `unknown`
        # below names them, beside every other problem.
        inner: Callable[[object, type], object]
        from cattrs.gen import make_dict_structure_fn  # noqa: PLC0415 - as above

        inner = make_dict_structure_fn(  # type: ignore[assignment]
            cls, self.converter, _cattrs_forbid_extra_keys=False
        )
        tag = record_tag(cls)
        name = cls.__name__
        known = _field_names(cls)
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

    def _structure_interrupted(self, value: object, _: type) -> Interrupted:
        if type(value) is not dict:
            raise _invalid("an object (Interrupted)", value)
        wire = self.converter.structure(value, InterruptedWire)
        try:
            return Interrupted(wire.kind, wire.payload)
        except PayloadError as error:  # deeper than a payload may be
            raise _Invalid(
                [
                    Mismatch(".payload" + found.path[1:], found.expected, found.got)
                    for found in error.problems
                ]
            ) from None

    def _structure_rejected(self, value: object, _: type) -> ResumeRejected:
        if type(value) is not dict:
            raise _invalid("an object (ResumeRejected)", value)
        return _rejected(self.converter.structure(value, ResumeRejectedWire))

    def _union_hook(self, tp: object) -> Callable[[object, type], object]:
        conv = self.converter
        members = typing.get_args(tp)
        optional = types.NoneType in members
        rest = tuple(member for member in members if member is not types.NoneType)
        tags = {record_tag(member): member for member in rest}
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
                return conv.structure(value, cls)

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

    def _sequence_hook(self, tp: object) -> Callable[[object, type], object]:
        item_type = typing.get_args(tp)[0]
        make = tuple if typing.get_origin(tp) is tuple else list
        hook = self.converter.get_structure_hook(item_type)

        def structure_sequence(value: object, _: type) -> object:
            if type(value) is not list:
                raise _invalid("an array", value)
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


def mismatches(error: BaseException, path: str = "$") -> list[Mismatch]:
    """Translate a structuring failure into mismatches with JSON paths."""
    if isinstance(error, _Invalid):
        return [
            Mismatch(path + found.path, found.expected, found.got)
            for found in error.mismatches
        ]
    from cattrs.errors import ClassValidationError  # noqa: PLC0415 - as _Detailed

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
    if isinstance(error, FieldError):
        return [Mismatch(child_path(path, error.field), error.expected, error.got)]
    if isinstance(error, DecodeError | PayloadError):  # a record's validator too
        return [
            Mismatch(path + found.path.removeprefix("$"), found.expected, found.got)
            for found in error.problems
        ]
    # Anything else is a bug in a hook; keep its words rather than crash.
    return [Mismatch(path, "a valid value", f"{type(error).__name__}: {error}")]


# --- the fast path: generated per type, for JSON already checked -------------


class _Reject(Exception):
    """The fast path gives up; the detailed path decides, and words why."""


def _reject(_value: object) -> object:
    raise _Reject


def _str_or_none(tp: object) -> bool:
    return set(union_members(tp) or ()) == {str, types.NoneType}


_INSTANCE_OF: Final = type(attrs.validators.instance_of(int))

_JSON_SCALARS: Final = frozenset({types.NoneType, bool, int, float, str})

_SCALARS: Final[dict[object, str]] = {
    str: "type({x}) is not str",
    int: "type({x}) is not int",
    bool: "type({x}) is not bool",
    types.NoneType: "{x} is not None",
}
"""The test, in generated code, that a value is NOT of a scalar field type."""


def _json_object(tp: object) -> bool:
    """Whether *tp* is ``dict[str, JSON]``."""
    return (
        _is_mapping(tp)
        and typing.get_args(tp)[0] is str
        and is_json_type(typing.get_args(tp)[1])
    )


def _leaf(tp: object) -> bool:
    """Whether a field of type *tp* holds no record: its check needs no call."""
    if tp in _SCALARS or tp in {float, datetime} or is_json_type(tp):
        return True
    if _is_literal(tp) or (isinstance(tp, type) and issubclass(tp, enum.StrEnum)):
        return True
    members = union_members(tp)
    if members is not None:
        return all(map(_leaf, members))
    if _is_sequence(tp) or _is_mapping(tp):
        return all(map(_leaf, typing.get_args(tp)))
    return False


@attrs.frozen
class _Dispatched:
    """A record reached through its union's tag: no need to check it again."""

    cls: type


class _Fast:
    """Builds and caches one fast structuring function per type.

    Args:
        json_checked: Whether every JSON value handed in lies within
            `MAX_DEPTH` (then the records' own JSON check is redundant).
    """

    def __init__(self, *, json_checked: bool) -> None:
        self.json_checked = json_checked
        self.hooks: dict[object, Hook] = {}

    def hook(self, tp: object) -> Hook:
        """The fast function for *tp*; one that always gives up if unsupported."""
        found = self.hooks.get(tp)
        if found is not None:
            return found
        later: list[Hook] = []

        # A recursive type finds this stand-in until its own hook is made.
        def stand_in(value: object) -> object:
            return later[0](value)

        self.hooks[tp] = stand_in
        try:
            made = self._make(tp)
        except Exception:  # noqa: BLE001 - a shape only the detailed path knows
            made = _reject
        later.append(made)
        self.hooks[tp] = made
        return made

    def _make(self, tp: object) -> Hook:
        if isinstance(tp, _Dispatched):
            return self._record(tp.cls, tag_checked=True)
        if isinstance(tp, type) and attrs.has(tp):
            return self._record(tp)
        if tp is Interrupted:
            return self._interrupted()
        if tp is ResumeRejected:
            wire = self.hook(ResumeRejectedWire)
            return lambda value: _rejected(wire(value))  # type: ignore[arg-type]
        names: dict[str, object] = {}
        lines = self._value("value", tp, "h", names)
        return _generate(["def hook(value):", *_indent(lines), " return value"], names)

    def _value(  # noqa: C901 - one flat dispatch over the shapes
        self, x: str, tp: object, name: str, names: dict[str, object]
    ) -> list[str]:
        """Generated lines that check variable *x* and turn it into a *tp*.

        Any error they raise means the value does not fit; helpers go into
        *names*, under names that start with *name*.
        """
        if tp in _SCALARS:
            return [f"if {_SCALARS[tp].format(x=x)}: raise _Reject"]
        if tp is float:
            return [
                f"if type({x}) is int: {x} = float({x})",
                f"elif type({x}) is not float: raise _Reject",
            ]
        if is_json_type(tp):
            return []  # checked as JSON by the caller
        if isinstance(tp, type) and issubclass(tp, enum.StrEnum):
            names[name] = {member.value: member for member in tp}
            return [f"if type({x}) is not str: raise _Reject", f"{x} = {name}[{x}]"]
        if _is_literal(tp):
            # Keyed by type as well: True == 1, but true is not 1 on the wire.
            args = typing.get_args(tp)
            names[name] = {(type(option), option): option for option in args}
            return [f"{x} = {name}[type({x}), {x}]"]
        members = union_members(tp)
        if members is not None:
            return self._union(x, members, name, names)
        if _is_sequence(tp):
            return self._sequence(x, tp, name, names)
        if _is_mapping(tp) and typing.get_args(tp)[0] is str:
            if self.json_checked and _json_object(tp):
                return [f"if type({x}) is not dict: raise _Reject"]  # JSON
            names[name] = self.hook(typing.get_args(tp)[1])
            return [
                f"if type({x}) is not dict: raise _Reject",
                f"{x} = {{key: {name}(item) for key, item in {x}.items()}}",
            ]
        if tp is datetime:
            names[name] = _datetime
            return [f"{x} = {name}({x})"]
        if tp in {Interrupted, ResumeRejected} or (
            isinstance(tp, type) and attrs.has(tp)
        ):
            names[name] = self.hook(tp)
            return [f"{x} = {name}({x})"]
        msg = f"no fast path for {tp!r}"
        raise TypeError(msg)

    def _union(
        self, x: str, members: tuple[object, ...], name: str, names: dict[str, object]
    ) -> list[str]:
        rest = [member for member in members if member is not types.NoneType]
        prefix = [f"if {x} is not None:"] if len(rest) < len(members) else []
        tags = {record_tag(member): member for member in rest}
        if None not in tags:
            lines = self._tagged(x, tags, name, names)  # type: ignore[arg-type]
        elif len(rest) == 1 and prefix:
            lines = self._value(x, rest[0], name, names)
        else:
            msg = f"unsupported union on the wire: {members!r}"
            raise TypeError(msg)
        return [*prefix, *_indent(lines)] if prefix else lines

    def _tagged(
        self, x: str, tags: dict[str, type], name: str, names: dict[str, object]
    ) -> list[str]:
        """Lines that build *x*, an object tagged as one of the records *tags*.

        A value that is not an object, or a missing or unknown tag, raises
        here; the member's lines then need not check the tag. A member made
        only of scalars and JSON is built in line (no call); the others, by
        their own function.
        """
        tag = f"{name}_tag"
        lines = [f'{tag} = {x}["type"]', f"if type({tag}) is not str: raise _Reject"]
        called = {}
        for number, (value, member) in enumerate(tags.items()):
            inline = self._inline(member, x, f"{name}_{number}_", names, tagged=True)
            if inline is None:
                called[value] = self.hook(_Dispatched(member))
                continue
            keyword = "elif" if len(lines) > 2 else "if"
            lines += [f"{keyword} {tag} == {value!r}:", *_indent(inline)]
        names[name] = called
        call = f"{x} = {name}[{tag}]({x})"
        return [*lines, "else:", f" {call}"] if len(lines) > 2 else [*lines, call]

    def _sequence(
        self, x: str, tp: object, name: str, names: dict[str, object]
    ) -> list[str]:
        item_type = typing.get_args(tp)[0]
        make = "tuple" if typing.get_origin(tp) is tuple else "list"
        lines = [f"if type({x}) is not list: raise _Reject"]
        item = f"{name}_item"  # its own name: sequences nest in in-line records
        if item_type in _SCALARS:
            test = _SCALARS[item_type].format(x=item)
            lines += [f"for {item} in {x}:", f"  if {test}: raise _Reject"]
            return [*lines, f"{x} = {make}({x})"]
        members = union_members(item_type) or ()
        tags = [record_tag(member) for member in members]
        if members and None not in tags:
            by_tag = {
                tag: self.hook(member)
                for tag, member in zip(tags, members, strict=True)
            }
            names[name] = by_tag
            build = f'{name}[{item}["type"]]({item})'
        else:
            inline = self._inline(item_type, item, f"{name}_", names)
            if inline is not None:  # a record of leaves: built in the loop
                return [
                    *lines,
                    f"{name}_made = []",
                    f"{name}_add = {name}_made.append",
                    f"for {item} in {x}:",
                    *_indent(inline),
                    f" {name}_add({item})",
                    f"{x} = {make}({name}_made)",
                ]
            names[name] = self.hook(item_type)
            build = f"{name}({item})"
        items = f"[{build} for {item} in {x}]"
        return [*lines, f"{x} = {items if make == 'list' else f'tuple({items})'}"]

    def _inline(
        self,
        tp: object,
        x: str,
        p: str,
        names: dict[str, object],
        *,
        tagged: bool = False,
    ) -> list[str] | None:
        """`_record_lines` of *tp* when it is a record made only of leaves.

        None for anything else: its own function builds it, with a call.
        *tagged*: the tag is known to be *tp*'s.
        """
        if not (isinstance(tp, type) and attrs.has(tp)):
            return None
        hints = typing.get_type_hints(tp)
        if not all(_leaf(hints[field.name]) for field in attrs.fields(tp)):
            return None
        return self._record_lines(tp, x, p, names, tagged=tagged)

    def _interrupted(self) -> Hook:
        names: dict[str, object] = {"make": Interrupted}
        kind = self._value("kind", InterruptionKind, "kinds", names)
        if self.json_checked:
            # `Interrupted.__init__` without its two checks, both redundant:
            # the kind comes from the union of the three kinds, and the
            # payload lies in a document checked as JSON within MAX_DEPTH;
            # the payload is frozen, as there.
            names["new"] = Interrupted.__new__
            names["frozen"] = frozen
            make = [
                "payload = frozen(payload)",
                "pause = new(make, kind, payload)",
                "pause._kind = kind",
                "pause._payload = payload",
                "return pause",
            ]
        else:
            make = ["return make(kind, payload)"]
        lines = [
            "def hook(value):",
            # Both fields are required: two keys found and no third.
            " if type(value) is not dict or len(value) != 2: raise _Reject",
            ' kind = value["kind"]',
            ' payload = value["payload"]',
            *_indent(kind),
            *_indent(make),
        ]
        return _generate(lines, names)

    def _redundant(self, tp: object, field: attrs.Attribute[object]) -> str | None:
        """The generated test standing for *field*'s validator (``""``: none).

        None means the validator is not known to repeat the codec's checks
        (or sees a converted value, or a default it was not proven to accept):
        the record then runs it, as attrs would.
        """
        validator = field.validator
        if validator is None:
            return ""
        if field.converter is not None or not _passes(field):
            return None
        if tp is str and validator is string:
            return ""  # the field's own test: type(x) is str
        if tp is str and validator is non_empty:
            return "not {x}"  # its type is tested by the field's own test
        if _str_or_none(tp) and validator is optional_string:
            return ""
        if _str_or_none(tp) and validator is optional_non_empty:
            return "{x} is not None and not {x}"
        if isinstance(validator, _INSTANCE_OF) and validator.type is tp:  # type: ignore[attr-defined]
            return ""  # the field's hook builds exactly a *tp* (a class)
        return None

    def _converter(self, field: attrs.Attribute[object]) -> object:
        """What *field*'s converter must still do here: a function, or None.

        A converter of `DECODED` checks a JSON value and makes its frozen
        copy (a JSON field), or builds a value of it (a schema), so that the
        record shares nothing with its caller and its JSON cannot change.
        The values this path is handed are the decoder's own (parsed from
        text, or copied by `wire.structure`) and, when *json_checked*, JSON
        within `MAX_DEPTH`: what is left is `DECODED`'s (freezing them, or
        finding a schema by its text). A default stands in for a left-out
        value: it must be a JSON scalar (immutable, and JSON) for that to
        hold of it too.
        """
        converter: object = field.converter
        default = field.default
        if (
            self.json_checked
            and converter in DECODED
            and (
                default is attrs.NOTHING
                or (type(default) in _JSON_SCALARS and is_json(default))
            )
        ):
            return DECODED[converter]
        return converter

    def _record(self, cls: type, *, tag_checked: bool = False) -> Hook:
        names: dict[str, object] = {}
        lines = self._record_lines(cls, "value", "", names, tagged=tag_checked)
        if lines is None:
            return _reject
        # The record is made in ``o``: returned as it is.
        return _generate(["def hook(value):", *_indent(lines[:-1]), " return o"], names)

    def _record_lines(  # noqa: C901, PLR0912 - one generator
        self,
        cls: type,
        x: str,
        p: str,
        names: dict[str, object],
        *,
        tagged: bool,
    ) -> list[str] | None:
        """Lines that check the object in *x* and build *cls* from it, into *x*.

        Their locals and helpers all start with *p*. None when *cls* is not
        a plain record. *tagged*: the tag is known to be *cls*'s.
        """
        props = getattr(cls, "__attrs_props__", None)
        if (
            props is None
            or not props.added_init
            or props.is_exception
            or props.hashability.name == "HASHABLE_CACHED"
            or hasattr(cls, "__attrs_pre_init__")
            or hasattr(cls, "__attrs_post_init__")
        ):
            return None  # its __init__ does more than set fields: leave it
        hints = typing.get_type_hints(cls)
        tag = record_tag(cls)
        names.update({f"{p}cls": cls, "_new": object.__new__, f"{p}TAG": tag})
        body = [f"if type({x}) is not dict: raise _Reject"]
        if tag is not None and not tagged:
            body.append(f'{p}t = {x}.get("type")')
            body.append(f"if type({p}t) is not str or {p}t != {p}TAG: raise _Reject")
        required = 1 if tag is not None else 0
        body.append("n = REQUIRED")
        o = f"{p}o"
        build = [f"{o} = _new({p}cls)"]
        after = []
        for index, field in enumerate(attrs.fields(cls)):
            if not field.init or isinstance(field.converter, attrs.Converter):
                return None
            y, tp, key = f"{p}x{index}", hints[field.name], repr(field.name)
            read = [
                f"{y} = {x}[{key}]",
                *self._value(y, tp, f"{p}h{index}", names),
            ]
            default = field.default
            if default is attrs.NOTHING:
                required += 1
                body.extend(read)
            elif isinstance(default, attrs.Factory):  # type: ignore[arg-type]
                if default.takes_self:
                    return None
                names[f"{p}d{index}"] = default.factory
                body += [f"if {key} in {x}:", f" {p}n += 1", *_indent(read)]
                body.append(f"else: {y} = {p}d{index}()")
            else:
                names[f"{p}d{index}"] = default
                body += [f"if {key} in {x}:", f" {p}n += 1", *_indent(read)]
                body.append(f"else: {y} = {p}d{index}")
            converter = self._converter(field)
            if converter is not None:
                names[f"{p}c{index}"] = converter
                body.append(f"{y} = {p}c{index}({y})")
            redundant = self._redundant(tp, field)
            if redundant is None:
                names[f"{p}a{index}"] = field
                names[f"{p}v{index}"] = field.validator
                after.append(f"{p}v{index}({o}, {p}a{index}, {y})")
            elif redundant:
                body.append(f"if {redundant.format(x=y)}: raise _Reject")
            build.append(_assign(cls, field.name, y, o, f"{p}s{index}", names))
        count = body.index("n = REQUIRED")
        if f" {p}n += 1" in body:  # optional fields: count those found
            body[count] = f"{p}n = {required}"
            check = f"if len({x}) != {p}n: raise _Reject"
        else:
            del body[count]
            check = f"if len({x}) != {required}: raise _Reject"
        return [*body, check, *build, *after, f"{x} = {o}"]


def _assign(  # noqa: PLR0913, PLR0917 - the parts of one generated line
    cls: type, name: str, x: str, o: str, setter: str, names: dict[str, object]
) -> str:
    """A generated line that sets field *name* of *o* (a *cls*) to *x*.

    What attrs' ``__init__`` does for a frozen record, ``object.__setattr__``,
    finds the field's slot and calls its setter; a slotted record's setter is
    called directly here, without the lookup.
    """
    names[setter] = _field_setter(cls, name)
    return f"{setter}({o}, {x})"


def _field_setter(cls: type, name: str) -> Callable[[object, object], None]:
    """``set(record, value)`` for field *name* of *cls*, as its ``__init__`` sets it.

    A slot's own setter where the field is a slot; ``object.__setattr__``
    of the name otherwise (a record kept in a ``__dict__``).
    """
    slot = next((vars(k)[name] for k in cls.__mro__ if name in vars(k)), None)
    if isinstance(slot, types.MemberDescriptorType):
        return slot.__set__
    return functools.partial(_set_named, name)


def _set_named(name: str, record: object, value: object) -> None:
    object.__setattr__(record, name, value)


def trusted(cls: type[T]) -> Callable[..., T]:
    """A function that builds *cls* from its fields, in order, without checks.

    It sets the fields as *cls*'s own ``__init__`` would, and runs none of
    its validators: for values known to pass them (or a class without any).

    Args:
        cls: An attrs class whose ``__init__`` only sets its fields, each
            without a converter, or given values its converters made (a
            record's own JSON, taken from a record of this library).

    Returns:
        ``make(*fields) -> cls``.
    """
    names: dict[str, object] = {"cls": cls, "new": object.__new__}
    fields = [field.name for field in attrs.fields(cls)]  # type: ignore[arg-type]
    args = ", ".join(f"x{index}" for index in range(len(fields)))
    lines = [f"def hook({args}):", " o = new(cls)"]
    lines += [
        " " + _assign(cls, name, f"x{index}", "o", f"s{index}", names)
        for index, name in enumerate(fields)
    ]
    return _generate([*lines, " return o"], names)  # type: ignore[return-value]


def trusted_each(cls: type[T]) -> Callable[..., tuple[T, ...]]:
    """`trusted`, for many records at once: one sequence per field, in order.

    Every loop runs in C (``map``): the records are made, then each field
    is set across all of them.

    Returns:
        ``make_each(*columns) -> tuple[cls, ...]``, a record per position.

    Raises:
        ValueError: from ``make_each``, if the columns differ in length.
    """
    names: dict[str, object] = {
        "cls": cls,
        "new": object.__new__,
        "repeat": itertools.repeat,
        "drain": collections.deque,
    }
    fields = [field.name for field in attrs.fields(cls)]  # type: ignore[arg-type]
    columns = [f"c{index}" for index in range(len(fields))]
    lines = [
        f"def hook({', '.join(columns)}):",
        f" size = len({columns[0]})" if columns else " size = 0",
        *(
            f" if len({column}) != size: raise ValueError('columns of unequal length')"
            for column in columns[1:]
        ),
        " made = tuple(map(new, repeat(cls, size)))",
        *(
            " " + _set_each(cls, name, column, f"s{index}", names)
            for index, (name, column) in enumerate(zip(fields, columns, strict=True))
        ),
        " return made",
    ]
    return _generate(lines, names)  # type: ignore[return-value]


def _set_each(
    cls: type, name: str, column: str, setter: str, names: dict[str, object]
) -> str:
    """A generated line that sets field *name* of each record from *column*."""
    names[setter] = _field_setter(cls, name)
    return f"drain(map({setter}, made, {column}), 0)"


def _indent(lines: list[str], depth: int = 1) -> list[str]:
    return [" " * depth + line for line in lines]


def _generate(lines: list[str], names: dict[str, object]) -> Hook:
    scope: dict[str, object] = {"_Reject": _Reject, **names}
    exec("\n".join(lines), scope)  # noqa: S102 - our own code, of field names
    return scope["hook"]  # type: ignore[return-value]


def _passes(field: attrs.Attribute[object]) -> bool:
    """Whether a field's validator accepts its default (when left out).

    The known validators are pure: one that accepts a constant default once
    accepts it always. A factory's product is checked at run time.
    """
    default = field.default
    if default is attrs.NOTHING:
        return True
    if isinstance(default, attrs.Factory):  # type: ignore[arg-type]
        return False
    try:
        field.validator(None, field, default)  # type: ignore[misc]
    except Exception:  # noqa: BLE001 - any refusal: it must run at run time
        return False
    return True


def structure_checked(value: JSON, cls: type[T], max_depth: int) -> T:
    """Build *cls* from *value*, proven JSON within *max_depth* by the caller.

    Raises:
        DecodeError: naming every problem, with its JSON path.
    """
    fast = _CHECKED if 0 < max_depth <= MAX_DEPTH else _UNCHECKED
    try:
        return (fast.hooks.get(cls) or fast.hook(cls))(value)  # type: ignore[return-value]
    except Exception:  # noqa: BLE001 - the detailed path words the problems
        return structure_detailed(value, cls)


def structure_detailed(value: JSON, cls: type[T]) -> T:
    """`structure_checked`, once its fast path gave up: the verdict, in words.

    Raises:
        DecodeError: naming every problem, with its JSON path.
    """
    # Records are built by their own __init__ here, every check included:
    # only a document with a problem (or an unusual record) comes this way.
    try:
        return _detailed().converter.structure(value, cls)
    except Exception as error:  # noqa: BLE001 - translated into DecodeError
        raise DecodeError(mismatches(error)) from None


# --- encoding: generated per record class -------------------------------------

_PLAIN: dict[type, Plain] = {}
"""The encoding function of each class met so far."""

_plain_of = _PLAIN.get


def plain(obj: object) -> JSON:
    """The wire form of *obj* as a JSON value (see `wire.unstructure`)."""
    return (_plain_of(type(obj)) or _learn(type(obj)))(obj)


def _learn(kind: type) -> Plain:
    hook = _PLAIN[kind] = _plain_of_class(kind)
    return hook


def _plain_list(value: list[object]) -> JSON:
    return [(_plain_of(type(item)) or _learn(type(item)))(item) for item in value]


def _plain_dict(value: dict[str, object]) -> JSON:
    return {key: plain(item) for key, item in value.items()}


def _plain_of_class(kind: type) -> Plain:
    if kind in {str, int, float, bool, types.NoneType}:
        return _identity
    if kind is list:
        return _plain_list
    if kind is dict:
        return _plain_dict
    if issubclass(kind, FrozenObject | FrozenArray):  # a record's own JSON
        return _identity
    if kind is Interrupted:  # its fields are properties named as on the wire
        return _plain_record(InterruptedWire, _HELD_AS[Interrupted])
    if kind is ResumeRejected:  # its one field, problems, too
        return _plain_record(ResumeRejectedWire)
    if attrs.has(kind):
        return _plain_record(kind)
    if issubclass(kind, enum.StrEnum):
        return _enum_value
    if kind is datetime:
        return _unstructure_datetime
    return _detailed().converter.unstructure


def _as_is(tp: object) -> bool:
    """Whether a field of type *tp* is written as it is held."""
    if is_json_type(tp) or tp in {str, int, float, bool, types.NoneType}:
        return True
    if _is_literal(tp):
        return True
    if _json_object(tp):  # a JSON object (a schema): written as it is held
        return True
    members = union_members(tp)
    return members is not None and all(map(_as_is, members))


def _plain_field(x: str, tp: object, name: str, names: dict[str, object]) -> str:
    """A generated expression: the wire form of *x*, a field of type *tp*."""
    if _as_is(tp):
        return x
    if isinstance(tp, type) and issubclass(tp, enum.StrEnum):
        names[name] = {member: member.value for member in tp}
        return f"{name}[{x}]"
    if tp is datetime:
        names[name] = _unstructure_datetime
        return f"{name}({x})"
    if _is_sequence(tp) or _is_mapping(tp):
        args = typing.get_args(tp)
        item = _plain_field(
            "item", args[-1] if _is_mapping(tp) else args[0], name, names
        )
        if _is_mapping(tp):
            return f"{{key: {item} for key, item in {x}.items()}}"
        return f"[{item} for item in {x}]" if item != "item" else f"list({x})"
    if union_members(tp) is not None or _by_class(tp):
        # By the value's class: a union's member, or None, or the record.
        names["get"], names["learn"] = _plain_of, _learn
        return f"(get(type({x})) or learn(type({x})))({x})"
    names[name] = _detailed().converter.get_unstructure_hook(tp)
    return f"{name}({x})"


_HELD_AS: Final[dict[type, dict[str, str]]] = {
    Interrupted: {"kind": "_kind", "payload": "_payload"},
}
"""Where a class keeps the fields its properties give (read without the call)."""


def _plain_record(cls: type, held_as: dict[str, str] | None = None) -> Plain:
    """Generate the encoding function of an attrs class *cls*.

    *held_as* maps a field to the attribute the value being encoded keeps
    it in, when that is not the field's own name.
    """
    hints = typing.get_type_hints(cls)
    tag = record_tag(cls)
    names: dict[str, object] = {"get": _plain_of, "learn": _learn}
    lines = ["def hook(o):"]
    items = [f'"type": {tag!r}'] if tag is not None else []
    for index, field in enumerate(attrs.fields(cls)):
        x, tp = f"x{index}", hints[field.name]
        lines.append(f" {x} = o.{(held_as or {}).get(field.name, field.name)}")
        by_class = _plain_cases(x, tp, f"h{index}", names)
        lines += by_class
        value = x if by_class else _plain_field(x, tp, f"h{index}", names)
        items.append(f"{field.name!r}: {value}")
    lines.append(" return {" + ", ".join(items) + "}")
    exec("\n".join(lines), names)  # noqa: S102 - our own code, of field names
    return names["hook"]  # type: ignore[return-value]


def _plain_cases(x: str, tp: object, name: str, names: dict[str, object]) -> list[str]:
    """Generated lines that encode *x* in place, a case per record *tp* may be.

    Each record is encoded in line when it can be (see `_plain_inline`);
    anything else (None, a subclass) by its class, as `plain` does. Empty
    when no record can be: `_plain_field` then writes *x*.
    """
    members = union_members(tp) or ((tp,) if _is_record(tp) else ())
    cases = []
    for number, member in enumerate(members):
        expression = _plain_inline(x, member, f"{name}_{number}", names)
        if expression:
            names[f"{name}_m{number}"] = member
            cases.append(f" elif t is {name}_m{number}: {x} = {expression}")
    if not cases:
        return []
    cases[0] = " if" + cases[0].removeprefix(" elif")
    return [f" t = type({x})", *cases, f" else: {x} = (get(t) or learn(t))({x})"]


def _by_class(tp: object) -> bool:
    """Whether a field of type *tp* is a record, encoded by its class."""
    return tp in {Interrupted, ResumeRejected} or (
        isinstance(tp, type) and attrs.has(tp)
    )


def _is_record(tp: object) -> bool:
    """Whether *tp* is an attrs class that `plain` encodes by its fields."""
    return isinstance(tp, type) and attrs.has(tp)


def _plain_inline(x: str, cls: object, name: str, names: dict[str, object]) -> str:
    """A generated expression: the wire form of *x*, a *cls*, or ``""``.

    Only for a record whose fields are each written with *x* read once (no
    record or union inside): that encoding is then one expression.
    """
    if not _is_record(cls):
        return ""
    hints = typing.get_type_hints(cls)
    tag = record_tag(cls)
    items = [f'"type": {tag!r}'] if tag is not None else []
    for index, field in enumerate(attrs.fields(cls)):  # type: ignore[arg-type]
        tp = hints[field.name]
        if _by_class(tp) or (union_members(tp) is not None and not _as_is(tp)):
            return ""  # written by the value's class: *x* read thrice
        value = _plain_field(f"{x}.{field.name}", tp, f"{name}_{index}", names)
        items.append(f"{field.name!r}: {value}")
    return "{" + ", ".join(items) + "}"


@functools.cache
def _detailed() -> _Detailed:
    """The detailed path's converter, built when first needed.

    cattrs is slow to import, and only a document with a problem needs it.
    """
    return _Detailed()


_CHECKED: Final = _Fast(json_checked=True)
_UNCHECKED: Final = _Fast(json_checked=False)

checked_hook: Final[Callable[[object], Hook | None]] = _CHECKED.hooks.get
"""The fast function for a type, for JSON within `MAX_DEPTH`, once made.

It raises any error to give up (then `structure_detailed` decides); None
when not made yet (`structure_checked` makes it).
"""
_checked_of: Final = _CHECKED.hooks.get
