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
- `Bridge.pause` is the one pause kept at a scope, as `Bridge.pending`
  would list it (None where it would list nothing), read without listing
  every other one.
- `Bridge.audit` reads a scope's audit trail: every pause filed, every
  answer accepted and every attempt refused, through any door.
- `Bridge.answer` takes a `Resume` for one scope and runs it through the
  one sequence every door shares: authorize, validate against the
  authoritative pending state (never against anything the client sent
  back), spend once under the pause's one key (`pause_key`), audit, and
  only then hand the framework the validated answers.

Each adapter module offers a ``bridge(...)`` that builds its `Bridge`;
`SessionBridge` is the one over a `Store`'s `Session` turns; and
`pending_everywhere` merges the pauses of several, newest first.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from datetime import datetime
from typing import Literal, Protocol, TypeAlias, TypeVar, final, runtime_checkable

import attrs

from interruption.audit import AuditEvent
from interruption.errors import FieldError, InvalidArgument, ProblemCode, ResumeRejected
from interruption.resume import (
    InterruptedTurn,
    PendingInterrupt,
    Resume,
)
from interruption.runtime.session import Session
from interruption.runtime.store import Store
from interruption.runtime.store._base import MAX_PAGE
from interruption.validation import ResolvedResume, authorize_turn, utc_now
from interruption.wire import NON_EMPTY, non_empty

__all__ = [
    "Bridge",
    "OpenSession",
    "PendingPause",
    "SessionBridge",
    "newest_first",
    "pending_everywhere",
]

K = TypeVar("K")


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

    async def pause(
        self, scope: str, *, principal: str | None = None
    ) -> PendingPause | None:
        """The pause kept at *scope*, shown as `pending` shows a pause, or None.

        Reads that one scope only (a page about one pause does not list
        them all), whether or not the application's listing (an adapter
        bridge's ``runs``, ``threads`` or ``sessions``) names it: the scopes
        `answer` takes. None when nothing there is pending, or *principal*
        may not answer it: a principal the authorizer refuses learns
        nothing, and leaves nothing in the store.
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


async def newest_first(
    places: Iterable[K], read: Callable[[K], Awaitable[PendingPause | None]]
) -> list[PendingPause]:
    """The pause *read* finds at each distinct place, newest first.

    Ties are ordered by scope, so a listing is the same on every call.
    """
    found = [pause for place in dict.fromkeys(places) if (pause := await read(place))]
    found.sort(key=lambda pause: (pause.created_at, pause.scope), reverse=True)
    return found


OpenSession: TypeAlias = Callable[[str], Session]
"""Opens a session by id, with its model, tools and authorizer, to answer it."""


@final
@attrs.frozen
class SessionBridge:
    """The `Bridge` over the `Session` turns a `Store` keeps.

    Its door is ``"session"`` and a scope is a session id. What is pending
    is each session's open turn (`Store.sessions`), shown to the principals
    its `Session.authorize` allows; an answer goes through `Session.resume`
    (authorize, validate, spend the turn once, audit, then continue). A
    turn past its expiry is closed first, with its declared default
    answers (`Session.expire`), and an answer to it is ``expired``.

    Attributes:
        store: Where the sessions live (the store their `Session` uses).
        open_session: Opens a session by id, with its model, tools and
            authorizer (`Session.authorize` decides who sees and answers).
        now: The clock (UTC) expiry is judged by.
    """

    store: Store
    open_session: OpenSession
    now: Callable[[], datetime] = utc_now

    @property
    def door(self) -> str:
        """``"session"``."""
        return "session"

    async def _ids(self, state: Literal["open", "expired"]) -> list[str]:
        """Every session whose latest turn is in *state*, page after page."""
        found: list[str] = []
        cursor: str | None = None
        while True:
            page = await self.store.sessions(state, now=self.now(), after=cursor)
            found.extend(page)
            if len(page) < MAX_PAGE:
                return found
            cursor = page[-1]  # pragma: no cover - over a thousand at once

    async def expire(self) -> None:
        """Close every expired turn, with its declared default answers."""
        for session in await self._ids("expired"):
            await self.open_session(session).expire()

    async def _allowed(self, turn: InterruptedTurn, principal: str | None) -> bool:
        try:
            await authorize_turn(
                turn, self.open_session(turn.session).authorize, principal
            )
        except ResumeRejected:
            return False
        return True

    async def _open(self, session: str, principal: str | None) -> PendingPause | None:
        """The session's open turn, if *principal* may answer it."""
        stored = await self.store.load_turn(session)
        if stored is None or stored.state != "open":
            return None
        turn = stored.turn
        closes = turn.closes_at
        if closes is not None and closes <= self.now():
            return None
        if not await self._allowed(turn, principal):
            return None
        return PendingPause(self.door, session, turn.interrupts, turn.created_at)

    async def pending(self, *, principal: str | None = None) -> list[PendingPause]:
        """Every open turn *principal* may answer, newest first.

        Expired turns are closed first (`expire`).

        Args:
            principal: Who asks (`Session.authorize` decides).

        Returns:
            One `PendingPause` per open turn (its scope the session id).
        """
        await self.expire()
        return await newest_first(
            await self._ids("open"), lambda session: self._open(session, principal)
        )

    async def pause(
        self, scope: str, *, principal: str | None = None
    ) -> PendingPause | None:
        """Session *scope*'s open turn, if *principal* may answer it.

        Reads that one session's latest turn only; a turn past its expiry
        is not shown (`pending` and `answer` close it).

        Args:
            scope: The session id.
            principal: Who asks (`Session.authorize` decides).

        Returns:
            Its `PendingPause`, or None: no open turn, a scope no store
            keeps a session under, or a refused principal.
        """
        try:
            return await self._open(scope, principal)
        except InvalidArgument:  # a NUL, a lone surrogate, too long: never kept
            return None

    async def answer(
        self,
        scope: str,
        resume: Resume,
        *,
        principal: str | None = None,
        turn_id: int | None = None,
    ) -> ResolvedResume:
        """Answer session *scope*'s turn through `Session.resume`, once.

        Args:
            scope: The session id.
            resume: The answers.
            principal: Who answers.
            turn_id: The turn answered (a stale one is ``consumed``); None:
                the latest.

        Returns:
            What was accepted (the session has continued).

        Raises:
            ResumeRejected: as `Session.resume`; ``expired`` alone for a
                turn past its expiry, closed now with its default answers.
            InvalidArgument: for a turn id or a principal out of range.
        """
        session = self.open_session(scope)
        stored = await self.store.load_turn(scope, turn_id)
        closes = None if stored is None else stored.turn.closes_at
        # Only to a principal who may answer it: anyone else learns nothing
        # of the turn, and gets (and leaves in the trail) not_authorized.
        if (
            stored is not None
            and closes is not None
            and closes <= self.now()
            and await self._allowed(stored.turn, principal)
        ):
            await session.expire()  # a no-op when it was closed already
            trail = await self.store.audit(scope)
            if any(
                event.kind == "expired" and event.turn_id == stored.turn.turn_id
                for event in trail
            ):
                message = (
                    f"this pause expired at {closes:%Y-%m-%d %H:%M:%S} UTC: "
                    "its default answer applied"
                )
                raise ResumeRejected.of(ProblemCode.EXPIRED, message)
        answered = await session.answer(resume, turn_id=turn_id, principal=principal)
        return answered.accepted

    async def audit(
        self, scope: str, *, principal: str | None = None
    ) -> tuple[AuditEvent, ...]:
        """Session *scope*'s audit trail, if *principal* may answer its turn.

        Args:
            scope: The session id.
            principal: Who asks; one the session's authorizer refuses for
                its latest turn sees nothing.

        Returns:
            Its events, oldest first; empty for an unknown session or a
            refused principal.
        """
        stored = await self.store.load_turn(scope)
        if stored is None or not await self._allowed(stored.turn, principal):
            return ()
        return tuple(await self.store.audit(scope))
