"""Strict JSON text parsing: the first gate every wire document passes.

`parse` turns bytes or text into a JSON value, or raises `DecodeError`. It
rejects what RFC 8259 leaves open and what other parsers let through: NaN and
Infinity literals, numbers that overflow to infinity, duplicate object keys,
lone surrogates, invalid UTF-8, integers beyond I-JSON's ``±(2**53 - 1)``,
documents larger than ``max_bytes`` or nested deeper than ``max_depth``.

orjson, when installed, is the fast path; the standard library gives the same
answers without it (the tests run both).
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Final, NoReturn

from interruption._json import (
    MAX_SAFE_INTEGER,
    child_path,
    json_problems,
)
from interruption.errors import DecodeError, Mismatch

if TYPE_CHECKING:
    from collections.abc import Callable

    from interruption._json import JSON

try:
    import orjson

    # Strict integers: orjson refuses to encode one beyond 53 bits.
    STRICT = orjson.OPT_STRICT_INTEGER
    # Indented: an item nested d levels deep starts a line with 2d spaces.
    _RECHECK = orjson.OPT_STRICT_INTEGER | orjson.OPT_INDENT_2
except ImportError:  # pragma: no cover - exercised by the no-orjson test run
    orjson = None  # type: ignore[assignment]
    STRICT = _RECHECK = 0

HAVE_ORJSON: Final = orjson is not None

_DIGITS: Final = bytes(
    ord("0") if chr(byte).isdigit() and byte < 128 else ord(" ") for byte in range(256)
)
_LONG_NUMBER: Final = b"0" * 19
_COLON_ESCAPE: Final = b"\\u003"  # JSON spells escapes with a lowercase u
SMALL: Final = 1024
"""Bytes: up to this, a document's containers are counted before all else."""
_ESCAPED_QUOTE: Final = b'\\"'
_AS_BRACKETS: Final = bytes.maketrans(b"{}", b"[]")
_NOT_BRACKETS: Final = bytes(byte for byte in range(256) if byte not in b'"[]{}')
_FLOAT_DOC: Final = "a finite number"
_INT_DOC: Final = f"an integer within ±{MAX_SAFE_INTEGER} (I-JSON)"
_LONG_INT: Final = 40


def _fail(path: str, expected: str, got: str) -> NoReturn:
    raise DecodeError([Mismatch(path, expected, got)])


def _reject_constant(name: str) -> NoReturn:
    _fail("$", "a JSON value (NaN and Infinity are not JSON)", name)


def _safe_int(text: str) -> int:
    # int() of thousands of digits is slow (and refused past 4300 digits);
    # anything this long is far outside I-JSON's range anyway.
    if len(text) > _LONG_INT:
        _fail("$", _INT_DOC, f"an integer of {len(text.lstrip('-'))} digits")
    return int(text)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        _fail("$", _FLOAT_DOC, f"{text[:20]} (overflows to infinity)")
    return value


class _Repeated(dict[str, "JSON"]):
    """An object whose text repeats keys.

    *repeated* names them, in order; *pairs* keeps every value, those the
    dict dropped included, so that repeats inside them are found too.
    """

    repeated: list[str]
    pairs: list[tuple[str, JSON]]


def _unique_pairs(
    marked: list[_Repeated],
) -> Callable[[list[tuple[str, JSON]]], dict[str, JSON]]:
    """The parser's object hook: objects that repeat a key go into *marked*."""

    def unique_pairs(pairs: list[tuple[str, JSON]]) -> dict[str, JSON]:
        result = dict(pairs)
        if len(result) == len(pairs):
            return result
        repeats = _Repeated(result)
        repeats.pairs = pairs
        seen: set[str] = set()
        twice: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                twice.add(key)
            seen.add(key)
        # In the order of their first spelling; a set keeps this linear.
        repeats.repeated = [key for key in result if key in twice]
        marked.append(repeats)
        return repeats

    return unique_pairs


def _repeated_keys(value: JSON) -> list[Mismatch]:
    """A problem per key an object repeats, at that object's own path.

    Iterative, in document order: the document may nest as deep as the
    parser went.
    """
    found: list[Mismatch] = []
    stack: list[tuple[str, JSON]] = [("$", value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, list):
            stack.extend(
                (f"{path}[{index}]", item[index])
                for index in reversed(range(len(item)))
            )
            continue
        if not isinstance(item, dict):
            continue
        pairs = list(item.items())
        if isinstance(item, _Repeated):
            found.extend(
                Mismatch(path, "object keys that are unique", f"the key {key!r} twice")
                for key in item.repeated
            )
            pairs = item.pairs
        stack.extend((child_path(path, key), child) for key, child in reversed(pairs))
    return found


def _stdlib_loads(text: str) -> JSON:
    marked: list[_Repeated] = []
    try:
        value: JSON = json.loads(
            text,
            object_pairs_hook=_unique_pairs(marked),
            parse_constant=_reject_constant,
            parse_float=_finite_float,
            parse_int=_safe_int,
        )
    except RecursionError:
        _fail("$", "a document nested less deeply", "nesting too deep to parse")
    except json.JSONDecodeError as error:
        where = f"line {error.lineno} column {error.colno}"
        _fail("$", "a JSON document", f"{error.msg} at {where}")
    if marked:
        raise DecodeError(_repeated_keys(value))
    return value


def _fast_loads(raw: bytes, max_depth: int) -> JSON | None:
    """Parse with orjson, or return None when only the exact parser can tell.

    None is never a verdict: the exact parser then decides, and words the
    error. orjson refuses NaN, lone surrogates and invalid UTF-8 itself;
    what it cannot see (a repeated key, an integer beyond I-JSON, nesting
    deeper than *max_depth*) is checked here, each a C-speed pass over
    bytes, none a Python walk.
    """
    if orjson is None:  # pragma: no cover - exercised by the no-orjson test run
        return None
    try:
        value: JSON = orjson.loads(raw)
        # Strict: an integer beyond I-JSON refuses to encode.
        again = orjson.dumps(value, option=STRICT)
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):
        return None
    if again != raw and not _same_keys_and_numbers(raw, again):
        return None
    # The depth is at most the count of containers (brackets in strings
    # only add to it): in a small document, counted first, in line.
    size = len(raw)
    if (
        size <= SMALL and size - len(raw.translate(None, b"[{")) <= max_depth
    ) or _shallow(raw, max_depth):
        return value
    # Unknown: look for an item that deep. No error: the same value was
    # just encoded, as deep, without indents. An item at depth *max_depth*
    # or deeper: perhaps a container too deep.
    indented = orjson.dumps(value, option=_RECHECK)
    return None if b"\n" + b"  " * max_depth in indented else value


def _shallow(raw: bytes, max_depth: int) -> bool:
    """Whether *raw*, a JSON document, nests at most *max_depth* deep.

    False when this C-speed test cannot tell (a string holds a bracket or an
    escaped quote); True only when it is sure.
    """
    # Quotes and brackets, every container as []. The depth is at most the
    # count of containers (brackets in strings only add to it).
    skeleton = raw.translate(_AS_BRACKETS, _NOT_BRACKETS)
    if skeleton.count(b"[") <= max_depth:
        return True
    # Without an escaped quote, every quote starts or ends a string.
    if b"\\" in raw and _ESCAPED_QUOTE in raw:
        return False
    # Every quote in an empty pair ("", counted left to right) means no
    # string holds a bracket: the first quote of one that did could only
    # pair with the quote before it, and that one's string's first quote
    # likewise, back to the document's first quote, which has none before.
    if skeleton.count(b'""') * 2 != skeleton.count(b'"'):
        return False
    # Only the containers are left: each pass drops the innermost ones.
    skeleton = skeleton.translate(None, b'"')
    for _ in range(max_depth):
        skeleton = skeleton.replace(b"[]", b"")
        if not skeleton:
            return True
    return False


def _same_keys_and_numbers(raw: bytes, again: bytes) -> bool:
    """Whether orjson kept every key and number of *raw* (re-encoded: *again*).

    Needed only when *raw* is not orjson's own compact spelling of its value:
    when it is, a dropped duplicate key would be spelled twice in *raw* but
    once in *again*, and an integer read as a float would come back with a
    ``.`` or an ``e``.
    """
    # orjson keeps the last of duplicate keys. Count colons: the input's
    # colons are its keys plus those inside strings; the re-encoded value's
    # are its keys plus those inside strings that survived. Equal counts
    # mean no key was dropped, unless an escape spelled a colon (\u003a).
    if raw.count(b":") != again.count(b":") or _COLON_ESCAPE in raw:
        return False
    # orjson reads an integer outside [-2**63, 2**64) as a float; such a
    # literal has 19 digits or more (-2**63 - 1 has 19), as, rarely, does a
    # long float or a string. Every 19-digit integer is beyond I-JSON anyway.
    return _LONG_NUMBER not in raw.translate(_DIGITS)


def parse(data: str | bytes, *, max_bytes: int, max_depth: int) -> JSON:
    """Parse a JSON document strictly.

    Args:
        data: The document, as text or UTF-8 bytes.
        max_bytes: The largest document accepted, in UTF-8 bytes.
        max_depth: How deeply arrays and objects may nest.

    Returns:
        The JSON value.

    Raises:
        DecodeError: naming what was expected and what was found.
    """
    raw = data if type(data) is bytes else _as_bytes(data)
    if len(raw) > max_bytes:
        _fail("$", f"a document of at most {max_bytes} bytes", f"{len(raw)} bytes")
    found = _fast_loads(raw, max_depth)
    return _exact(raw, max_depth) if found is None else found


def check_json(value: JSON, max_depth: int) -> None:
    """Check that *value*, a value in memory, is JSON within *max_depth*.

    One walk, `json_problems`, gives the verdict and its words.

    Raises:
        DecodeError: naming every problem, with its path.
    """
    problems = json_problems(value, max_depth=max_depth)
    if problems:
        raise DecodeError(problems)


def _as_bytes(data: str | bytes) -> bytes:
    if isinstance(data, str):
        try:
            return data.encode("utf-8")
        except UnicodeEncodeError as error:
            _fail(
                "$", "text of valid Unicode", f"a lone surrogate at index {error.start}"
            )
    if isinstance(data, bytes | bytearray | memoryview):
        return bytes(data)
    _fail("$", "a JSON document as str or bytes", type(data).__name__)


def _exact(raw: bytes, max_depth: int) -> JSON:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        _fail("$", "UTF-8 bytes", f"an invalid byte at offset {error.start}")
    value = _stdlib_loads(text)
    check_json(value, max_depth)
    return value


def _orjson_writes(value: object) -> bool:
    """Whether orjson would write *value*: the json module writes more.

    It turns keys that are not strings into strings and writes integers of
    any size; orjson refuses both (keys must be strings, integers fit 64
    bits), and so does the encoder without it, so that `dumps` refuses the
    same values on every install.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if not all(type(key) is str for key in item):
                return False
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif type(item) is int and not -(2**63) <= item < 2**64:
            return False
    return True


def _stdlib_dumps(value: JSON) -> str:
    if not _orjson_writes(value):
        msg = "not a JSON value"
        raise ValueError(msg)
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    if not text.isascii():
        text.encode("utf-8")  # a lone surrogate raises, as orjson does
    return text


def _orjson_dumps(value: JSON) -> str:
    return orjson.dumps(value).decode()


ENCODE: Final[Callable[[JSON], str]] = _orjson_dumps if HAVE_ORJSON else _stdlib_dumps
"""Compact JSON text of a JSON value; the same value with or without orjson."""
