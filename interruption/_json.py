"""The JSON value type, its strict checks, JSON equality and canonical digests.

Everything that crosses a process boundary, and every payload a tool hands to
a human, is a *JSON value* in the narrow sense of RFC 8259 and I-JSON
(RFC 7493): ``None``, ``bool``, finite ``float``, ``int`` within
``±(2**53 - 1)`` (so every value has an RFC 8785 canonical form), ``str``
(valid Unicode, no lone surrogates), ``list`` and ``dict`` with ``str`` keys.
"""

from __future__ import annotations

import hashlib
import json
import math
import typing
from typing import Final, NoReturn, TypeAlias

import rfc8785

from interruption._base_errors import Mismatch, PayloadError

JSON: TypeAlias = None | bool | int | float | str | list["JSON"] | dict[str, "JSON"]  # noqa: RUF036 - JSON's own order
"""A JSON value: the one place where the library means "any JSON"."""

_JSON_SCALARS: Final = (type(None), bool, int, float, str)


def is_json_type(tp: object) -> bool:
    """Tell whether a (possibly resolved) annotation is the `JSON` alias."""
    args = typing.get_args(tp)
    return (
        len(args) == len(_JSON_SCALARS) + 2
        and args[: len(_JSON_SCALARS)] == _JSON_SCALARS
        and typing.get_origin(args[-2]) is list
        and typing.get_origin(args[-1]) is dict
    )


def _immutable(self: object, *_args: object, **_kwargs: object) -> NoReturn:
    msg = (
        f"a {type(self).__name__} is JSON a record owns, and never changes: "
        "copy it (dict(value), list(value)) to change the copy"
    )
    raise TypeError(msg)


class FrozenObject(dict[str, "JSON"]):
    """A JSON object that cannot change: part of the JSON a record owns.

    A `dict` in every way but change (`json`, orjson and RFC 8785 encode it
    as one); every method that would change it raises `TypeError`. Copy it
    (``dict(value)``) to get one that can change.
    """

    __slots__ = ()

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return type(self), (dict(self),)

    def __copy__(self) -> FrozenObject:
        return self

    def __deepcopy__(self, memo: object) -> FrozenObject:
        return self


class FrozenArray(list["JSON"]):
    """A JSON array that cannot change: part of the JSON a record owns.

    A `list` in every way but change; see `FrozenObject`.
    """

    __slots__ = ()

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return type(self), (list(self),)

    def __copy__(self) -> FrozenArray:
        return self

    def __deepcopy__(self, memo: object) -> FrozenArray:
        return self


for _name in (
    "__setitem__",
    "__delitem__",
    "__ior__",
    "clear",
    "pop",
    "popitem",
    "setdefault",
    "update",
):
    setattr(FrozenObject, _name, _immutable)
for _name in (
    "__setitem__",
    "__delitem__",
    "__iadd__",
    "__imul__",
    "append",
    "extend",
    "insert",
    "pop",
    "remove",
    "clear",
    "sort",
    "reverse",
):
    setattr(FrozenArray, _name, _immutable)
del _name


_LEAVES: Final = frozenset({type(None), bool, int, float, str})


def frozen(value: JSON) -> JSON:
    """*value*, a JSON value, as one that cannot change: a deep copy, or itself.

    Objects become `FrozenObject`, arrays `FrozenArray`, each a copy that
    shares no container with *value*; scalars are immutable already and
    stay as they are, and so does a value `frozen` made (a `FrozenObject`
    or `FrozenArray`: this function builds them, deep-frozen), so a record
    built from another record's JSON shares it instead of copying it.
    """
    if isinstance(value, dict):
        if isinstance(value, FrozenObject):
            return value
        # Copied in C, then each container in it replaced by its frozen copy.
        made = FrozenObject(value)
        for key, item in value.items():
            if type(item) not in _LEAVES:
                _set_item(made, key, frozen(item))
        return made
    if isinstance(value, list):
        if isinstance(value, FrozenArray):
            return value
        return FrozenArray(
            [item if type(item) in _LEAVES else frozen(item) for item in value]
        )
    return value


_set_item: Final = dict.__setitem__
"""How `frozen` fills the `FrozenObject` it is building (its own refuses)."""

_set_index: Final = list.__setitem__
"""How `frozen_json` fills the `FrozenArray` it is building (its own refuses)."""


def owned(value: JSON) -> JSON:
    """A plain deep copy of *value*, a JSON value (a frozen one included).

    Objects and arrays are copied (as `dict` and `list`), scalars are kept
    (they are immutable): a value to hand a tool or a framework that may
    change it, sharing nothing with the record it came from.
    """
    if isinstance(value, dict):
        return {key: owned(item) for key, item in value.items()}
    if isinstance(value, list):
        return [owned(item) for item in value]
    return value


MAX_DEPTH: Final = 64
"""The nesting limit for a JSON value: a payload, a tool input, any JSON field.

Every JSON field of a record is checked to it when the record is built, and
when it is decoded (see `DOCUMENT_DEPTH`).
"""

FIELD_NESTING: Final = 5
"""The most containers a wire record puts around one of its JSON fields.

A tool input sits at ``$.messages[i].parts[j].input`` of a turn: five
containers in. A test checks it against every record type of the wire.
"""

DOCUMENT_DEPTH: Final = MAX_DEPTH + FIELD_NESTING
"""The default nesting limit for wire documents (`loads`, `structure`).

A record whose JSON fields are each within `MAX_DEPTH` is within it, so
whatever was accepted reads back; inside, each record holds its own JSON
fields to `MAX_DEPTH`.
"""

STORED_DEPTH: Final = DOCUMENT_DEPTH
"""The nesting limit for records this library wrote (stores, sealed turns).

The wire's own: every JSON field of a record is checked to `MAX_DEPTH` when
the record is built, so whatever was accepted and saved reads back.
"""

STORED_BYTES: Final = 2**31
"""The size limit for records this library wrote: no smaller than it writes."""

MAX_SAFE_INTEGER: Final = 2**53 - 1
"""The largest integer magnitude I-JSON and RFC 8785 represent exactly."""

_SHORT: Final = 40
_LONG_INT_BITS: Final = 128  # str() of a huge int is slow, refused past 4300 digits


def describe(value: object) -> str:
    """Describe *value* for a message: short JSON for scalars, else a noun."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        text = repr(str(value))
        return text if len(text) <= _SHORT else text[: _SHORT - 4] + "...'"
    if isinstance(value, int):  # 128 bits print in at most 40 characters
        if value.bit_length() > _LONG_INT_BITS:
            return f"an integer of {value.bit_length()} bits"
        return str(int(value))
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    name = type(value).__name__
    article = "an" if name[:1].lower() in "aeiou" else "a"
    return f"{article} {name}"


def child_path(path: str, key: str | int) -> str:
    """Extend a JSON path (``$``, ``$.a``, ``$.a[0]``) by one step."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if key.isidentifier():
        return f"{path}.{key}"
    if _has_lone_surrogate(key):  # no canonical form: escape it
        return f"{path}[{json.dumps(key)}]"
    return f"{path}[{rfc8785.dumps(key).decode()}]"


def _has_lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def is_json(value: object, max_depth: int = MAX_DEPTH) -> bool:
    """Tell, fast, whether *value* is a JSON value (see `json_problems`)."""
    kind = type(value)
    if kind is dict or kind is FrozenObject:
        if max_depth <= 0:
            return False
        for key, item in value.items():  # type: ignore[attr-defined]
            if type(key) is not str or not _is_json_item(item, max_depth):
                return False
            if not key.isascii() and _has_lone_surrogate(key):
                return False
        return True
    if kind is list or kind is FrozenArray:
        if max_depth <= 0:
            return False
        return all(_is_json_item(item, max_depth) for item in value)  # type: ignore[attr-defined]
    return _is_json_item(value, max_depth + 1)


def _is_json_item(item: object, max_depth: int) -> bool:
    """`is_json` of *item*, inside a container that has *max_depth* left.

    A scalar is judged here, in line: only a container (or an unusual
    value) costs a call more.
    """
    kind = type(item)
    if kind is str:
        text = typing.cast("str", item)
        return text.isascii() or not _has_lone_surrogate(text)
    if kind is int:
        return -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER  # type: ignore[operator]
    if kind is bool or item is None:
        return True
    if kind is float:
        return math.isfinite(item)  # type: ignore[arg-type]
    if kind is dict or kind is list or kind is FrozenObject or kind is FrozenArray:
        return is_json(item, max_depth - 1)
    return not json_problems(item, max_depth=max_depth - 1)


class NotJSON(ValueError):
    """`frozen_json`'s refusal: the value is not JSON (`json_problems` says why)."""


def frozen_json(value: object, max_depth: int = MAX_DEPTH) -> JSON:  # noqa: C901, PLR0912
    """`frozen` of *value*, if it is JSON within *max_depth*: one walk for both.

    The check and the copy a record makes of a JSON field, in one pass; a
    JSON scalar inside a container is judged in line, so only a container
    (or an unusual value) costs a call.

    Raises:
        NotJSON: if *value* is not JSON (then `json_problems` names where).
    """
    if type(value) is dict:
        if max_depth <= 0:
            raise NotJSON
        made = FrozenObject(value)  # checked below
        for key, item in value.items():
            if type(key) is not str or (not key.isascii() and _has_lone_surrogate(key)):
                raise NotJSON
            kind = type(item)
            if kind is str:
                if not item.isascii() and _has_lone_surrogate(item):
                    raise NotJSON
            elif kind is int:
                if not -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
                    raise NotJSON
            elif kind is float:
                if not _isfinite(item):
                    raise NotJSON
            elif kind is not bool and item is not None:
                _set_item(made, key, frozen_json(item, max_depth - 1))
        return made
    if type(value) is list:
        if max_depth <= 0:
            raise NotJSON
        array = FrozenArray(value)  # checked below
        for index, item in enumerate(value):
            kind = type(item)
            if kind is str:
                if not item.isascii() and _has_lone_surrogate(item):
                    raise NotJSON
            elif kind is int:
                if not -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
                    raise NotJSON
            elif kind is float:
                if not _isfinite(item):
                    raise NotJSON
            elif kind is not bool and item is not None:
                _set_index(array, index, frozen_json(item, max_depth - 1))
        return array
    kind = type(value)
    if kind is str:
        if not value.isascii() and _has_lone_surrogate(value):  # type: ignore[attr-defined, arg-type]
            raise NotJSON
        return value  # type: ignore[return-value]
    if kind is int:
        if not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:  # type: ignore[operator]
            raise NotJSON
        return value  # type: ignore[return-value]
    if kind is float:
        if not _isfinite(value):  # type: ignore[arg-type]
            raise NotJSON
        return value  # type: ignore[return-value]
    if kind is bool or value is None:
        return value  # type: ignore[return-value]
    if is_json(value, max_depth):  # a frozen value, or a subclass of dict or list
        return frozen(value)  # type: ignore[arg-type]
    raise NotJSON


_isfinite: Final = math.isfinite


def json_problems(
    value: object, *, path: str = "$", max_depth: int = MAX_DEPTH
) -> list[Mismatch]:
    """List every place where *value* is not a JSON value, in document order.

    Args:
        value: Any Python object.
        path: The JSON path of *value* itself, for the messages.
        max_depth: How deeply arrays and objects may nest.

    Returns:
        One `Mismatch` per bad spot; empty when *value* is JSON.
    """
    found: list[Mismatch] = []
    _Walk(path, max_depth, found).value(value, 0)
    return found


class _Walk:
    """One walk of `json_problems`: a path is spelled only where a problem is.

    *steps* is the way down to the value looked at (keys and indexes): a
    value that is fine costs no string.
    """

    __slots__ = ("base", "found", "max_depth", "seen", "steps")

    def __init__(self, base: str, max_depth: int, found: list[Mismatch]) -> None:
        self.base = base
        self.max_depth = max_depth
        self.found = found
        self.seen: set[int] = set()
        self.steps: list[str | int] = []

    def problem(self, expected: str, got: str) -> None:
        """Note a problem at the value looked at."""
        path = self.base
        for step in self.steps:
            path = (
                child_path(path, step) if isinstance(step, str) else f"{path}[{step}]"
            )
        self.found.append(Mismatch(path, expected, got))

    def value(self, value: object, depth: int) -> None:  # noqa: C901, PLR0912 - one flat dispatch over the JSON grammar
        """Walk *value*, *depth* containers down."""
        if value is None or isinstance(value, bool):
            return
        if isinstance(value, str):
            if _has_lone_surrogate(value):
                self.problem("a string of valid Unicode", "a lone surrogate")
            return
        if isinstance(value, int):
            if not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
                expected = f"an integer within ±{MAX_SAFE_INTEGER} (I-JSON)"
                self.problem(expected, describe(value))
            return
        if isinstance(value, float):
            if not math.isfinite(value):
                self.problem("a finite number", repr(value))
            return
        if not isinstance(value, list | dict):
            self.problem("a JSON value", describe(value))
            return
        if id(value) in self.seen:
            self.problem("a JSON value", "a reference cycle")
            return
        if depth >= self.max_depth:
            expected = f"at most {self.max_depth} levels of nesting"
            self.problem(expected, "a deeper document")
            return
        self.seen.add(id(value))
        steps = self.steps
        if isinstance(value, list):
            for index, item in enumerate(value):
                steps.append(index)
                self.value(item, depth + 1)
                steps.pop()
        else:
            for key, item in value.items():
                if not isinstance(key, str):
                    self.problem("object keys that are strings", describe(key))
                elif _has_lone_surrogate(key):
                    self.problem("object keys of valid Unicode", describe(key))
                else:
                    steps.append(key)
                    self.value(item, depth + 1)
                    steps.pop()
        self.seen.discard(id(value))


def json_equal(left: JSON, right: JSON) -> bool:
    """Compare two JSON values as JSON does, not as Python does.

    ``true`` is not ``1``, ``1`` equals ``1.0``, and key order is ignored.

    Args:
        left: A JSON value.
        right: Another JSON value.

    Returns:
        Whether both denote the same JSON value.
    """
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left is right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, list):
        return (
            isinstance(right, list)
            and len(left) == len(right)
            and all(json_equal(a, b) for a, b in zip(left, right, strict=True))
        )
    if isinstance(left, dict):
        return (
            isinstance(right, dict)
            and left.keys() == right.keys()
            and all(json_equal(item, right[key]) for key, item in left.items())
        )
    if isinstance(left, str):
        return isinstance(right, str) and left == right
    return left is None and right is None


def canonical(value: JSON) -> bytes:
    """Return the RFC 8785 (JSON Canonicalization Scheme) bytes of *value*.

    Written by the `rfc8785` package, the one implementation, with or
    without orjson. It is for small values (spend keys, wire digests); a
    client's whole resume is digested from the codec's own bytes instead
    (`interruption.wire_digest`), at the cost of writing it.

    Args:
        value: A JSON value (see `json_problems`).

    Returns:
        UTF-8 bytes: sorted keys, no whitespace, ECMAScript number forms.

    Raises:
        PayloadError: if *value* is not a JSON value (or nests deeper than
            `CANONICAL_DEPTH`), naming every path.
    """
    problems = json_problems(value, max_depth=CANONICAL_DEPTH)
    if problems:
        raise PayloadError(problems)
    return rfc8785.dumps(value)


CANONICAL_DEPTH: Final = 512
"""How deeply a value `canonical` writes may nest (far beyond any record's)."""


def digest(value: JSON) -> str:
    """Return the SHA-256 hex digest of *value*'s canonical form.

    Two values have the same digest exactly when they are `json_equal`.

    Args:
        value: A JSON value.

    Returns:
        64 lowercase hex digits.

    Raises:
        PayloadError: if *value* is not a JSON value, naming every path.
    """
    return hashlib.sha256(canonical(value)).hexdigest()
