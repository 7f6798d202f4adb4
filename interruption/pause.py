"""The pause: control flow, not a failure.

A tool pauses its dispatch for a human by raising `Interrupted` (or calling
`interrupt` / `interrupt_with`). `Interrupted` derives from `BaseException`,
like `asyncio.CancelledError`, so that a tool body's ``except Exception:``
cannot swallow a pause.
"""

from __future__ import annotations

from typing import NoReturn, final

from interruption._json import JSON, json_equal
from interruption._validators import frozen_payload
from interruption.errors import FieldTypeError
from interruption.kinds import (
    KINDS,
    ApprovalPending,
    Custom,
    InterruptionKind,
    ScheduledPause,
    tag_of,
)

__all__ = ["Interrupted", "interrupt", "interrupt_with"]


@final
class Interrupted(BaseException):
    """A dispatch paused for a human: control flow, not a failure.

    Equal by value (same kind, JSON-equal payload), so tests can compare.
    It holds a frozen copy of *payload* (a change raises `TypeError`), as
    a record does.

    Args:
        kind: Why the dispatch paused.
        payload: What the human is shown; must be JSON.

    Raises:
        PayloadError: if *payload* is not a JSON value.
        FieldTypeError: if *kind* is not an `InterruptionKind` (a
            `TypeError` too).
    """

    __slots__ = ("_kind", "_payload")

    def __init__(self, kind: InterruptionKind, payload: JSON = None) -> None:
        if not isinstance(kind, KINDS):
            expected = "Custom, ApprovalPending or ScheduledPause"
            raise FieldTypeError("kind", expected, type(kind).__name__)
        payload = frozen_payload(payload)
        super().__init__(kind, payload)
        self._kind = kind
        self._payload = payload

    @property
    def kind(self) -> InterruptionKind:
        """Why the dispatch paused."""
        return self._kind

    @property
    def payload(self) -> JSON:
        """What the human is shown."""
        return self._payload

    def __str__(self) -> str:
        match self._kind:
            case ApprovalPending(tool_use_id=detail):
                pass
            case ScheduledPause(phase=phase, node=node):
                detail = f"{phase.value} {node}"
            case Custom():  # pragma: no branch - the union is closed
                return "dispatch interrupted for human review (custom)"
        return f"dispatch interrupted for human review ({tag_of(self._kind)}: {detail})"

    def __repr__(self) -> str:
        return f"Interrupted({self._kind!r}, {self._payload!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Interrupted):
            return NotImplemented
        return self._kind == other._kind and json_equal(self._payload, other._payload)

    def __hash__(self) -> int:
        return hash(self._kind)


def interrupt(payload: JSON = None) -> NoReturn:
    """Pause the dispatch with a `Custom` kind.

    Args:
        payload: What the human is shown; must be JSON.

    Raises:
        Interrupted: always.
        PayloadError: if *payload* is not JSON (instead of pausing).
    """
    raise Interrupted(Custom(), payload)


def interrupt_with(kind: InterruptionKind, payload: JSON = None) -> NoReturn:
    """Pause the dispatch with any kind.

    Args:
        kind: Why the dispatch pauses.
        payload: What the human is shown; must be JSON.

    Raises:
        Interrupted: always.
        PayloadError: if *payload* is not JSON (instead of pausing).
    """
    raise Interrupted(kind, payload)
