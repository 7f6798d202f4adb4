"""The `Bridge` of an adapter whose pauses the application lists by scope.

pydantic-ai's and Genkit's paused runs are kept in the `Store` under ids
the application holds, and the OpenAI Agents SDK's are sealed into tokens
the application holds: no framework can list them. Each of those adapters'
``bridge(...)`` is this one class over three functions of its own: one
reading every pause the application lists, one reading a single scope's,
and one answering through the adapter's own ``resume`` path (which runs
`interruption.admit`). What this class adds is only what every door shows
alike: who may see a pause (the policy's authorizer, asked about every
interrupt of it, spent or not, as `admit` asks), what of it is still
unspent (`unspent`, which also files the ``paused`` audit event the first
time a pause is met), newest first, and the scope's audit trail.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import TypeAlias, TypeVar, final

import attrs

from interruption import (
    AuditEvent,
    InterruptedTurn,
    PendingInterrupt,
    PendingPause,
    ProblemCode,
    ResolvedResume,
    Resume,
    ResumePolicy,
    ResumeRejected,
    Store,
)
from interruption.runtime.admission import ADAPTER_TURN, unspent
from interruption.runtime.bridge import newest_first
from interruption.validation import authorize_turn

__all__ = ["Bridged", "Paused", "listed", "unknown"]

T = TypeVar("T")


async def listed(source: Callable[[], T | Awaitable[T]]) -> T:
    """Call the application's *source*, awaiting it if it is async."""
    value = source()
    if inspect.isawaitable(value):
        return await value
    return value


def unknown(what: str, scope: str) -> ResumeRejected:
    """``unknown_interrupt``: the application lists no pause at *scope*."""
    message = f"no paused {what} is listed at scope {scope!r}"
    return ResumeRejected.of(ProblemCode.UNKNOWN_INTERRUPT, message)


@final
@attrs.frozen
class Paused:
    """One pause as its adapter reads it from the framework's state.

    Attributes:
        scope: Where it is kept (`PendingPause.scope`).
        session: The session its audit trail is filed under (what `admit`
            is given).
        interrupts: Everything the pause shows, spent or not.
        keys: Each interrupt's id -> its spend key (`admit`'s ``keys``).
        created_at: When it paused, when the framework says; None: when the
            library first met it (its ``paused`` audit event).
    """

    scope: str
    session: str
    interrupts: tuple[PendingInterrupt, ...]
    keys: Mapping[str, str]
    created_at: datetime | None


Answering: TypeAlias = Callable[[str, Resume, ResumePolicy], Awaitable[ResolvedResume]]
"""The adapter's own answering path: scope, resume, policy -> what it accepted."""


@final
@attrs.frozen
class Bridged:
    """A `Bridge` over an adapter's own reading and answering of its pauses.

    Attributes:
        door: The adapter's framework name (`PendingPause.door`).
        store: Where spent marks and audit trails are kept.
        policy: The clock and the authorizer (its ``principal`` is each
            call's).
        every: Every pause the application lists, read from the framework.
        one: The pause at a scope, or None if none is listed there.
        answering: The adapter's own answering path.
    """

    door: str
    store: Store
    policy: ResumePolicy
    every: Callable[[], Awaitable[Iterable[Paused]]]
    one: Callable[[str], Awaitable[Paused | None]]
    answering: Answering

    def _as(self, principal: str | None) -> ResumePolicy:
        return attrs.evolve(self.policy, principal=principal)

    async def _allowed(self, paused: Paused, policy: ResumePolicy) -> bool:
        """Whether *policy*'s principal may answer *paused* (all of it)."""
        turn = InterruptedTurn(
            session=paused.session,
            turn_id=ADAPTER_TURN,
            messages=(),
            interrupts=paused.interrupts,
            completed=(),
            created_at=policy.now(),
        )
        try:
            await authorize_turn(turn, policy.authorize, policy.principal)
        except ResumeRejected:
            return False
        return True

    async def _met(self, session: str, at: datetime) -> datetime:
        """When the library first met *session*'s pause: its ``paused`` event."""
        events = await self.store.audit(session)
        return next((e.at for e in events if e.kind == "paused"), at)

    async def pending(self, *, principal: str | None = None) -> Sequence[PendingPause]:
        """Every unspent pause *principal* may answer, newest first.

        See `interruption.Bridge.pending`.
        """
        policy = self._as(principal)
        listed: dict[str, Paused] = {}
        for paused in await self.every():
            listed.setdefault(paused.scope, paused)  # the first of a scope listed

        async def live(scope: str) -> PendingPause | None:
            paused = listed[scope]
            if not await self._allowed(paused, policy):
                return None
            now = policy.now()
            interrupts = await unspent(
                paused.interrupts,
                paused.keys,
                self.store,
                session=paused.session,
                at=now,
            )
            if not interrupts:
                return None
            created = paused.created_at or await self._met(paused.session, now)
            return PendingPause(self.door, paused.scope, interrupts, created)

        return await newest_first(listed, live)

    async def answer(
        self, scope: str, resume: Resume, *, principal: str | None = None
    ) -> ResolvedResume:
        """Answer the pause at *scope* through the adapter's own path, once.

        See `interruption.Bridge.answer`.
        """
        return await self.answering(scope, resume, self._as(principal))

    async def audit(
        self, scope: str, *, principal: str | None = None
    ) -> Sequence[AuditEvent]:
        """The audit trail of the pause at *scope*, oldest first.

        Empty for a scope the application lists no pause at, and for a
        principal the authorizer refuses. See `interruption.Bridge.audit`.
        """
        paused = await self.one(scope)
        if paused is None or not await self._allowed(paused, self._as(principal)):
            return ()
        return await self.store.audit(paused.session)
