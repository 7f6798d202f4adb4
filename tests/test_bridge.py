"""The bridge's own pieces: a pause as every door shows it, and the merge."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import attrs
import pytest
from examples.service.agent import Agent
from interruption import (
    Accepts,
    AuditEvent,
    Bridge,
    Custom,
    FieldError,
    MemoryStore,
    PendingInterrupt,
    PendingPause,
    ResolvedResume,
    Respond,
    Restart,
    Resume,
    ResumeRejected,
    pending_everywhere,
)
from interruption.runtime.bridge import SessionBridge

from tests.sessions import Clock

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def ask(ref: str, expires_at: datetime | None = None) -> PendingInterrupt:
    """A pending question that accepts a string."""
    return PendingInterrupt(
        id=ref,
        kind=Custom(),
        payload="?",
        tool=None,
        accepts=Accepts(respond={"type": "string"}),
        expires_at=expires_at,
    )


@attrs.frozen
class Listed:
    """A bridge that lists fixed pauses and shows them only to ``"ann"``."""

    door: str
    pauses: tuple[PendingPause, ...]

    async def pending(self, *, principal: str | None = None) -> Sequence[PendingPause]:
        """Its pauses, for ann only."""
        return self.pauses if principal == "ann" else ()

    async def pause(
        self, scope: str, *, principal: str | None = None
    ) -> PendingPause | None:
        """Its pause at *scope*, for ann only."""
        found = await self.pending(principal=principal)
        return next((pause for pause in found if pause.scope == scope), None)

    async def answer(
        self, scope: str, resume: Resume, *, principal: str | None = None
    ) -> ResolvedResume:
        """Never called here."""
        raise NotImplementedError

    async def audit(
        self, scope: str, *, principal: str | None = None
    ) -> Sequence[AuditEvent]:
        """Never called here."""
        raise NotImplementedError


def test_a_pause_needs_something_pending() -> None:
    """A pause with no interrupt is refused when it is built, naming the field."""
    with pytest.raises(FieldError, match="interrupts: expected at least one"):
        PendingPause("session", "s1", (), T0)


def test_a_pause_needs_a_door_and_a_scope() -> None:
    """An empty door or scope is refused when the pause is built."""
    with pytest.raises(FieldError, match="door"):
        PendingPause("", "s1", (ask("a"),), T0)
    with pytest.raises(FieldError, match="scope"):
        PendingPause("session", "", (ask("a"),), T0)


def test_a_pause_expires_with_its_first_interrupt() -> None:
    """`expires_at` is the earliest expiry of its interrupts, or None."""
    later, sooner = T0 + timedelta(hours=2), T0 + timedelta(hours=1)
    both = PendingPause("s", "x", (ask("a", later), ask("b", sooner), ask("c")), T0)
    assert both.expires_at == sooner
    assert PendingPause("s", "x", (ask("a"),), T0).expires_at is None


def test_pending_everywhere_merges_newest_first_for_the_principal() -> None:
    """Pauses of every bridge come newest first; a refused principal sees none."""
    old = PendingPause("one", "a", (ask("q"),), T0)
    new = PendingPause("two", "b", (ask("q"),), T0 + timedelta(minutes=1))
    mid = PendingPause("one", "c", (ask("q"),), T0 + timedelta(seconds=30))
    bridges: list[Bridge] = [Listed("one", (old, mid)), Listed("two", (new,))]
    assert all(isinstance(bridge, Bridge) for bridge in bridges)
    merged = asyncio.run(pending_everywhere(bridges, principal="ann"))
    assert merged == [new, mid, old]
    assert asyncio.run(pending_everywhere(bridges, principal="bob")) == []


class TestSessionBridge:
    """The sessions' own door, over the example agent."""

    def test_lists_open_turns_for_the_allowed(self) -> None:
        """Open turns come newest first, each scoped by its session id."""
        store = MemoryStore()
        agent = Agent(store)
        bridge = SessionBridge(store, agent.open)
        assert isinstance(bridge, Bridge)
        assert bridge.door == "session"
        first = asyncio.run(agent.start("pay 50000"))
        second = asyncio.run(agent.start("book"))
        pauses = asyncio.run(bridge.pending(principal="alice"))
        assert [(p.door, p.scope) for p in pauses] == [
            ("session", second.id),
            ("session", first.id),
        ]
        assert asyncio.run(bridge.pending(principal="mallory")) == []

    def test_answers_once_through_the_session(self) -> None:
        """An answer runs the call; the same answer again is consumed."""
        store = MemoryStore()
        agent = Agent(store)
        bridge = SessionBridge(store, agent.open)
        session = asyncio.run(agent.start("pay 50000"))
        approve = Resume(restart=[Restart("transfer_money", "call-1", "approve")])
        resolved = asyncio.run(bridge.answer(session.id, approve, principal="alice"))
        assert [a.entry for a in resolved.answers] == list(approve.restart)
        assert agent.sent == [{"to": "ACME", "amount": 50000}]
        with pytest.raises(ResumeRejected) as again:
            asyncio.run(bridge.answer(session.id, approve, principal="alice"))
        assert [str(code) for code in again.value.codes] == ["consumed"]
        trail = asyncio.run(bridge.audit(session.id, principal="alice"))
        assert [event.kind for event in trail] == ["paused", "accepted", "rejected"]
        assert asyncio.run(bridge.audit(session.id, principal="mallory")) == ()
        assert asyncio.run(bridge.audit("nope", principal="alice")) == ()

    def test_an_expired_turn_takes_its_default(self) -> None:
        """An answer after the expiry is `expired`; the default answer applied."""
        store, clock = MemoryStore(), Clock()
        agent = Agent(store, now=clock)
        bridge = SessionBridge(store, agent.open, clock)
        session = asyncio.run(agent.start("confirm?", ttl=timedelta(minutes=1)))
        clock.advance(timedelta(minutes=1))
        yes = Resume(respond=[Respond("ask_user", "q-1", "Yes")])
        with pytest.raises(ResumeRejected) as late:
            asyncio.run(bridge.answer(session.id, yes, principal="alice"))
        assert [str(code) for code in late.value.codes] == ["expired"]
        assert "default answer applied" in str(late.value)
        assert asyncio.run(bridge.pending(principal="alice")) == []

    def test_a_refused_principal_learns_nothing_of_an_expired_turn(self) -> None:
        """A refused principal is not_authorized (and audited), not told it expired."""
        store, clock = MemoryStore(), Clock()
        agent = Agent(store, now=clock)
        bridge = SessionBridge(store, agent.open, clock)
        session = asyncio.run(agent.start("confirm?", ttl=timedelta(minutes=1)))
        clock.advance(timedelta(minutes=1))
        yes = Resume(respond=[Respond("ask_user", "q-1", "Yes")])
        with pytest.raises(ResumeRejected) as refused:
            asyncio.run(bridge.answer(session.id, yes, principal="mallory"))
        assert [str(code) for code in refused.value.codes] == ["not_authorized"]
        assert "expired" not in str(refused.value)
        trail = asyncio.run(store.audit(session.id))
        assert [event.kind for event in trail] == ["paused", "rejected"]
        assert trail[-1].principal == "mallory"

    def test_a_turn_closed_since_it_was_listed_is_not_shown(self) -> None:
        """A turn answered or expired after the store listed it is left out."""
        store = MemoryStore()
        agent = Agent(store)
        clock = [datetime.now(UTC)]
        bridge = SessionBridge(store, agent.open, lambda: clock[0])
        answered = asyncio.run(agent.start("pay 50000"))
        approve = Resume(restart=[Restart("transfer_money", "call-1", "approve")])
        asyncio.run(bridge.answer(answered.id, approve, principal="alice"))
        assert asyncio.run(bridge._open(answered.id, "alice")) is None
        timed = asyncio.run(agent.start("confirm?", ttl=timedelta(minutes=1)))
        clock[0] += timedelta(minutes=2)
        assert asyncio.run(bridge._open(timed.id, "alice")) is None

    def test_pause_reads_one_session_as_the_listing_shows_it(self) -> None:
        """pause(session) is its listed turn; None when refused, unknown or answered."""
        store = MemoryStore()
        agent = Agent(store)
        bridge = SessionBridge(store, agent.open)
        session = asyncio.run(agent.start("pay 50000"))
        asyncio.run(agent.start("book"))
        pauses = asyncio.run(bridge.pending(principal="alice"))
        (listed,) = [pause for pause in pauses if pause.scope == session.id]
        assert asyncio.run(bridge.pause(session.id, principal="alice")) == listed
        assert asyncio.run(bridge.pause(session.id, principal="mallory")) is None
        for scope in ("nope", "n\x00ul", "x" * 3000):
            assert asyncio.run(bridge.pause(scope, principal="alice")) is None
        approve = Resume(restart=[Restart("transfer_money", "call-1", "approve")])
        asyncio.run(bridge.answer(session.id, approve, principal="alice"))
        assert asyncio.run(bridge.pause(session.id, principal="alice")) is None

    def test_pause_does_not_show_an_expired_turn(self) -> None:
        """A turn past its expiry is not shown by pause(session)."""
        store = MemoryStore()
        agent = Agent(store)
        clock = [datetime.now(UTC)]
        bridge = SessionBridge(store, agent.open, lambda: clock[0])
        timed = asyncio.run(agent.start("confirm?", ttl=timedelta(minutes=1)))
        assert asyncio.run(bridge.pause(timed.id, principal="alice")) is not None
        clock[0] += timedelta(minutes=2)
        assert asyncio.run(bridge.pause(timed.id, principal="alice")) is None
