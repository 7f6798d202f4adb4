"""One bridge for every door: what is pending, and an answer.

Every place a pause can wait (a `Session`'s store, a LangGraph checkpoint,
a run an adapter keeps) is reached through one small protocol, `Bridge`,
so that a page or a service that answers people (`interruption.inbox`)
needs to know no framework:

- `Bridge.pending` lists what a principal may answer, as `PendingPause`
  records: where the pause is kept (`PendingPause.door` and
  `PendingPause.scope`), and its interrupts (`PendingInterrupt`) with their typed
  kinds and what each accepts. A principal the authorizer refuses sees
  nothing; what was answered through any door is not listed.
- `Bridge.audit` reads a scope's audit trail: every pause filed, every
  answer accepted and every attempt refused, through any door.
- `Bridge.answer` takes a `Resume` for one scope and runs it through the
  one sequence every door shares: authorize, validate against the
  authoritative pending state (never against anything the client sent
  back), spend once under the pause's one key (`pause_key`), audit, and
  only then hand the framework the validated answers.

Each adapter module offers a ``bridge(...)`` that builds its `Bridge`;
`pending_everywhere` merges the pauses of several, newest first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Protocol, final, runtime_checkable

import attrs

from interruption.audit import AuditEvent
from interruption.errors import FieldError
from interruption.resume import PendingInterrupt, Resume
from interruption.validation import ResolvedResume
from interruption.wire import NON_EMPTY, non_empty

__all__ = ["Bridge", "PendingPause", "pending_everywhere"]


def _some(
    _instance: object,
    attribute: attrs.Attribute[tuple[PendingInterrupt, ...]],
    value: tuple[PendingInterrupt, ...],
) -> None:
    """Refuse a pause with nothing pending: it would offer nothing to answer."""
    if not value:
        raise FieldError(attribute.name, "at least one interrupt", "none")


@final
@attrs.frozen
class PendingPause:
    """One pause, as every door shows it.

    Attributes:
        door: Which bridge keeps it (its `Bridge.door`: ``"session"``,
            ``"langgraph"``, ...).
        scope: Where its framework keeps it, the id `Bridge.answer` takes:
            a session id, a LangGraph thread id, a kept run's id.
        interrupts: What is still answerable there, in order, each with its
            kind and what it accepts.
        created_at: When it paused (or, when its framework does not say,
            when the library first met it).
    """

    door: str = attrs.field(validator=non_empty, metadata=NON_EMPTY)
    scope: str = attrs.field(validator=non_empty, metadata=NON_EMPTY)
    interrupts: tuple[PendingInterrupt, ...] = attrs.field(validator=_some)
    created_at: datetime

    @property
    def expires_at(self) -> datetime | None:
        """When the first of its interrupts stops accepting answers, or None."""
        expiries = [p.expires_at for p in self.interrupts if p.expires_at is not None]
        return min(expiries, default=None)


@runtime_checkable
class Bridge(Protocol):
    """What every door offers: what is pending, and an answer to it.

    Implementations: ``interruption.SessionBridge`` and each adapter's
    ``bridge(...)``.
    """

    @property
    def door(self) -> str:
        """The name this bridge's pauses carry (`PendingPause.door`)."""
        ...

    async def pending(self, *, principal: str | None = None) -> Sequence[PendingPause]:
        """Every pause *principal* may answer here, newest first.

        A principal the authorizer refuses sees nothing (an empty list, not
        an error). An interrupt answered through any door is not listed,
        even while the run it resumed is still going.
        """
        ...

    async def answer(
        self, scope: str, resume: Resume, *, principal: str | None = None
    ) -> ResolvedResume:
        """Answer the pause kept at *scope* with *resume*, once.

        Authorize, validate against the authoritative pending state, spend
        under the pause's one key, audit, and only then let the framework
        run on with the validated answers (its continuation may still be
        running when another door asks; it is spent already).

        Returns:
            What was accepted.

        Raises:
            ResumeRejected: with every problem; ``consumed`` when the pause
                was answered already, through this or any other door.
        """
        ...

    async def audit(
        self, scope: str, *, principal: str | None = None
    ) -> Sequence[AuditEvent]:
        """The audit trail of the pause kept at *scope*, oldest first.

        Who answered, when, what (a digest) and, for a refused attempt, its
        problem codes, whichever door it came through. A principal the
        authorizer refuses sees nothing (an empty list).
        """
        ...


async def pending_everywhere(
    bridges: Iterable[Bridge], *, principal: str | None = None
) -> list[PendingPause]:
    """Every pause *principal* may answer through *bridges*, newest first.

    Ties keep the bridges' order, then each bridge's own order.
    """
    pauses = [
        pause
        for bridge in bridges
        for pause in await bridge.pending(principal=principal)
    ]
    pauses.sort(key=lambda pause: pause.created_at, reverse=True)
    return pauses
