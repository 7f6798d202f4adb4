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

__all__ = ["PauseSchedule"]


def _names(names: Iterable[str]) -> frozenset[str]:
    if isinstance(names, str):
        msg = f"expected a collection of node names, got the string {names!r}"
        raise TypeError(msg)
    return frozenset(names)


@final
@attrs.frozen
class PauseSchedule:
    """Which nodes to pause before and after.

    Attributes:
        before: Node names to pause before.
        after: Node names to pause after.
    """

    before: frozenset[str] = attrs.field(default=frozenset(), converter=_names)
    after: frozenset[str] = attrs.field(default=frozenset(), converter=_names)
