"""How every adapter's `Bridge` shows a pause, and the bridge of most.

Every adapter's bridge shows a pause the same way (`shown`): it reads the
pause from the framework's state as a `Paused` (everything the framework
shows, spent or not, with its spend keys), asks the policy's authorizer
about all of it first, as `admit` asks (a refused principal sees nothing,
whatever is spent, and files nothing), and only then lists what is still
unspent (`unspent`, which also files the ``paused`` audit event the first
time a pause is met). The LangGraph, LangChain and ADK bridges read their
threads and sessions themselves and show each through `shown`.

pydantic-ai's and Genkit's paused runs are kept in the `Store` under ids
the application holds, and the OpenAI Agents SDK's are sealed into tokens
the application holds: no framework can list them. Each of those adapters'
``bridge(...)`` is `Bridged` over three functions of its own: one reading
every pause the application lists, one reading a single scope's, and one
answering through the adapter's own ``resume`` path (which runs
`interruption.admit`). What this class adds is only what every door shows
alike: `shown`, newest first, and the scope's audit trail.
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
from interruption.validation import authorize_shown, nothing_shown

__all__ = ["Bridged", "Paused", "absent", "allowed", "listed", "shown", "unknown"]

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


def absent(rejected: ResumeRejected, policy: ResumePolicy | None) -> ResumeRejected:
    """The verdict on an answer to a scope where nothing is pending.

    For an adapter's load step that finds no pause at the scope the client
    named (nothing kept there, a token that does not open, a scope no one
    lists): with an authorizer there is no pause to ask it about, so every
    principal gets ``not_authorized`` (`nothing_shown`, as `refuse` rules)
    and learns nothing of what is kept; without one, *rejected* (``unknown_interrupt``,
    ``bad_token``, ...). Nothing is filed, as `Session` files nothing for a
    session that never paused: a client naming scopes at will writes no row.

    Args:
        rejected: What the load step found (without an authorizer, the
            verdict).
        policy: The authorizer and the principal; None: no authorizer.

    Returns:
        The refusal to raise.
    """
    if policy is None:
        return rejected
    refused = nothing_shown(policy.authorize, policy.principal)
    return rejected if refused is None else refused


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
        whole: Whether it is answered whole (ADK): once any of its
            interrupts is spent, none of it is shown.
    """

    scope: str
    session: str
    interrupts: tuple[PendingInterrupt, ...]
    keys: Mapping[str, str]
    created_at: datetime | None
    whole: bool = False


async def allowed(
    policy: ResumePolicy, session: str, interrupts: Sequence[PendingInterrupt]
) -> bool:
    """Whether *policy*'s principal may answer *interrupts* (all of them).

    The question `admit` asks first: the authorizer, about every interrupt
    the framework shows at *session*, spent or not. With an authorizer and
    nothing shown there is nothing it could allow: False (`authorize_shown`,
    as `refuse` rules).
    """
    turn = InterruptedTurn(
        session=session,
        turn_id=ADAPTER_TURN,
        messages=(),
        interrupts=tuple(interrupts),
        completed=(),
        created_at=policy.now(),
    )
    try:
        await authorize_shown(turn, policy.authorize, policy.principal)
    except ResumeRejected:
        return False
    return True


async def _met(store: Store, session: str, at: datetime) -> datetime:
    """When the library first met *session*'s pause: its ``paused`` event."""
    events = await store.audit(session)
    return next((e.at for e in events if e.kind == "paused"), at)


async def shown(
    door: str, store: Store, policy: ResumePolicy, paused: Paused | None
) -> PendingPause | None:
    """*paused* as *door* lists it to *policy*'s principal, or None.

    In order: the principal is authorized against everything the framework
    shows (`allowed`; a refused one gets None, and nothing is filed or
    read from the store), then what is unspent is read (`unspent`, filing
    the ``paused`` event the first time the pause is met). None too when
    nothing of it is unspent (or, for a pause answered whole, not all).

    Args:
        door: The bridge's door (`PendingPause.door`).
        store: Where spent marks and audit trails are kept.
        policy: The clock and the authorizer, with the principal who asks.
        paused: The pause read from the framework; None: none there.

    Returns:
        The pause as listed, or None.
    """
    if paused is None or not await allowed(policy, paused.session, paused.interrupts):
        return None
    now = policy.now()
    interrupts = await unspent(
        paused.interrupts, paused.keys, store, session=paused.session, at=now
    )
    if not interrupts or (paused.whole and len(interrupts) < len(paused.interrupts)):
        return None
    created = paused.created_at or await _met(store, paused.session, now)
    return PendingPause(door, paused.scope, interrupts, created)


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

    async def pending(self, *, principal: str | None = None) -> Sequence[PendingPause]:
        """Every unspent pause *principal* may answer, newest first.

        See `interruption.Bridge.pending`.
        """
        policy = self._as(principal)
        listed: dict[str, Paused] = {}
        for paused in await self.every():
            listed.setdefault(paused.scope, paused)  # the first of a scope listed

        async def live(scope: str) -> PendingPause | None:
            return await shown(self.door, self.store, policy, listed[scope])

        return await newest_first(listed, live)

    async def pause(
        self, scope: str, *, principal: str | None = None
    ) -> PendingPause | None:
        """The unspent pause at *scope*, if *principal* may answer it.

        See `interruption.Bridge.pause`.
        """
        return await shown(
            self.door, self.store, self._as(principal), await self.one(scope)
        )

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
        if paused is None or not await allowed(
            self._as(principal), paused.session, paused.interrupts
        ):
            return ()
        return await self.store.audit(paused.session)
