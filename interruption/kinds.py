"""Why a dispatch paused: the three interruption kinds.

On the wire each kind is an object tagged by ``"type"``, byte for byte the
tags of the Rust runtime entelix (serde ``tag = "type"``, snake_case)::

    {"type": "custom"}
    {"type": "approval_pending", "tool_use_id": "tu-1"}
    {"type": "scheduled_pause", "phase": "before", "node": "charge"}
"""

from __future__ import annotations

import enum
from typing import ClassVar, Final, Literal, TypeAlias, final

import attrs

from interruption._validators import NON_EMPTY, non_empty, wrong_type

__all__ = [
    "ApprovalPending",
    "Custom",
    "InterruptionKind",
    "Phase",
    "ScheduledPause",
    "tag_of",
]


@final
class Phase(enum.StrEnum):
    """When a scheduled pause happens, relative to its node."""

    BEFORE = "before"
    """Before the node runs; continuing runs it."""
    AFTER = "after"
    """After the node ran; its output is held until the dispatch continues."""


def _a_phase(
    _instance: object, attribute: attrs.Attribute[Phase], value: Phase
) -> None:
    if not isinstance(value, Phase):
        raise wrong_type(attribute.name, "Phase.BEFORE or Phase.AFTER", value)


@final
@attrs.frozen
class Custom:
    """A pause the tool or node chose for its own reasons."""

    tag: ClassVar[Literal["custom"]] = "custom"


@final
@attrs.frozen
class ApprovalPending:
    """A tool call is waiting for a human's approval.

    Attributes:
        tool_use_id: The ``ref`` of the tool call that awaits approval.
    """

    tag: ClassVar[Literal["approval_pending"]] = "approval_pending"

    tool_use_id: str = attrs.field(validator=non_empty, metadata=NON_EMPTY)


@final
@attrs.frozen
class ScheduledPause:
    """A pause the schedule asked for, before or after a node.

    Attributes:
        phase: Before or after the node.
        node: The node's name (a tool's name in the reference loop).
    """

    tag: ClassVar[Literal["scheduled_pause"]] = "scheduled_pause"

    phase: Phase = attrs.field(validator=_a_phase)
    node: str = attrs.field(validator=non_empty, metadata=NON_EMPTY)


InterruptionKind: TypeAlias = Custom | ApprovalPending | ScheduledPause
"""The closed union of the kinds; narrow it with ``match``."""

KINDS: Final = (Custom, ApprovalPending, ScheduledPause)


def tag_of(kind: InterruptionKind) -> str:
    """Return the wire tag of *kind*, like ``"approval_pending"``.

    Args:
        kind: An interruption kind.

    Returns:
        The value of its ``"type"`` field on the wire.
    """
    return kind.tag
