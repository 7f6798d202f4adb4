"""Scheduled pauses: stop before or after named nodes, by configuration.

In the reference loop tools are the nodes. Pausing *before* a tool yields
``ScheduledPause(BEFORE, name)``; a restart continues and the tool runs.
Pausing *after* yields ``ScheduledPause(AFTER, name)`` with the tool's output
held as completed; a restart continues with that output.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import final

import attrs

from interruption.errors import ArgumentTypeError
from interruption.wire import describe

__all__ = ["PauseSchedule"]


def _names(names: Iterable[str], field: str) -> frozenset[str]:
    given: object = names  # typed as the caller sees it, checked at run time
    if isinstance(given, str) or not isinstance(given, Iterable):
        where = f"PauseSchedule: {field}"
        got = f"the string {given!r}" if isinstance(given, str) else describe(given)
        raise ArgumentTypeError(where, "a collection of node names", got)
    return frozenset(names)


def _before(names: Iterable[str]) -> frozenset[str]:
    return _names(names, "before")


def _after(names: Iterable[str]) -> frozenset[str]:
    return _names(names, "after")


@final
@attrs.frozen
class PauseSchedule:
    """Which nodes to pause before and after.

    Raises:
        ArgumentTypeError: if *before* or *after* is a string, or not a
            collection at all, rather than a collection of names (a
            `TypeError`).

    Attributes:
        before: Node names to pause before.
        after: Node names to pause after.
    """

    before: frozenset[str] = attrs.field(default=frozenset(), converter=_before)
    after: frozenset[str] = attrs.field(default=frozenset(), converter=_after)
