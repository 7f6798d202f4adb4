"""The error tree's root, and the failures the lowest modules raise.

`InterruptionError`, `Mismatch` (one spot where a value is not what it should
be), `PayloadError` (a value is not JSON), `FieldError` and `FieldTypeError`
(a record field refuses a value) and `InvalidArgument` (an argument out of
range). The JSON checks (`interruption._json`) and the records' field
validators (`interruption._validators`) raise them, and `interruption.errors`
builds the rest of the tree on them.

This module imports nothing of the package, so every module can raise these
without an import that runs back up. Each class is public in
`interruption.errors` (its ``__module__``, so a traceback or a pickle names
that home) and in `interruption`; import it from there.
"""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, ClassVar

import attrs

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = [
    "FieldError",
    "FieldTypeError",
    "InterruptionError",
    "InvalidArgument",
    "Mismatch",
    "MismatchError",
    "PayloadError",
]

_HOME = "interruption.errors"
"""The public module of every class here (each one's ``__module__``)."""


@typing.final
@attrs.frozen
class Mismatch:
    """One spot where a value is not what it should be.

    Attributes:
        path: Where, as a JSON path: ``$``, ``$.kind.phase``, ``$.parts[2]``.
        expected: What should be there, in words.
        got: What is there instead, in words or as short JSON.
    """

    __module__ = _HOME

    path: str
    expected: str
    got: str

    def __str__(self) -> str:
        return f"{self.path}: expected {self.expected}, got {self.got}"


class InterruptionError(Exception):
    """The base of every failure this library raises.

    Attributes:
        code: A stable string naming the failure's class (``"decode_error"``),
            the same for every instance; each subclass has its own.
    """

    __module__ = _HOME
    code: ClassVar[str] = "interruption_error"


class InvalidArgument(InterruptionError, ValueError):
    """An argument a caller passed is out of what the call accepts.

    Raised before anything is read or written: a session id with a NUL, a
    turn id beyond 64 bits, a blank or oversized cancel reason, a listing's
    limit out of range.

    Attributes:
        code: ``"invalid_argument"``, stable.
        where: The call and argument, like ``"cancel: reason"``.
        expected: What it accepts.
        got: A short rendering of what it was given.
    """

    __module__ = _HOME
    code: ClassVar[str] = "invalid_argument"

    def __init__(self, where: str, expected: str, got: str) -> None:
        super().__init__(f"{where}: expected {expected}, got {got}")
        self.where = where
        self.expected = expected
        self.got = got


def _render(problems: tuple[Mismatch, ...]) -> str:
    if len(problems) == 1:
        return str(problems[0])
    lines = "\n".join(f"  {problem}" for problem in problems)
    return f"{len(problems)} problems:\n{lines}"


class MismatchError(InterruptionError):
    """A failure made of one or more `Mismatch` records (a base, not raised)."""

    __module__ = _HOME
    problems: tuple[Mismatch, ...]

    def __init__(self, problems: Iterable[Mismatch]) -> None:
        found = tuple(problems)
        if not found:
            where = f"{type(self).__name__}: problems"
            raise InvalidArgument(where, "at least one Mismatch", "none")
        super().__init__(found)
        self.problems = found

    @property
    def path(self) -> str:
        """The JSON path of the first problem, like ``$.kind.phase``."""
        return self.problems[0].path

    @property
    def expected(self) -> str:
        """What the first problem's spot should have held."""
        return self.problems[0].expected

    @property
    def got(self) -> str:
        """What the first problem's spot held instead."""
        return self.problems[0].got

    def __str__(self) -> str:
        return _render(self.problems)


@typing.final
class PayloadError(MismatchError, TypeError):
    """A payload is not a JSON value; raised where the payload is handed over.

    Attributes:
        problems: Every `Mismatch` found (path, expected, got).
        path: The first problem's JSON path, ``$`` being the payload itself.
        expected: What the first problem's spot should have held.
        got: What it held instead.
    """

    __module__ = _HOME
    code: ClassVar[str] = "payload_error"


class FieldError(InterruptionError, ValueError):
    """A record field got a value it does not accept (raised at construction).

    Decoding reports the same problem as a `DecodeError` at the field's path.

    Args:
        field: The field's name.
        expected: What it accepts.
        got: What it got.

    Attributes:
        field: The field's name.
        path: The field as a JSON path of its record (``$.node``).
        expected: What it accepts.
        got: What it got.
    """

    __module__ = _HOME
    code: ClassVar[str] = "field_error"

    def __init__(self, field: str, expected: str, got: str) -> None:
        super().__init__(f"{field}: expected {expected}, got {got}")
        self.field = field
        self.expected = expected
        self.got = got

    @property
    def path(self) -> str:
        """The field as a JSON path of its record, like ``$.node``."""
        return f"$.{self.field}"

    def __reduce__(self) -> tuple[type[FieldError], tuple[str, str, str]]:
        return type(self), (self.field, self.expected, self.got)


@typing.final
class FieldTypeError(FieldError, TypeError):
    """A record field got a value of a type it does not take (``5`` for a string).

    A `FieldError` and a `TypeError` both: ``except FieldError`` and ``except
    TypeError`` catch it. Its pieces are a `FieldError`'s.
    """

    __module__ = _HOME
    code: ClassVar[str] = "field_type_error"
