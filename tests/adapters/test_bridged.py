"""The adapters' shared bridge pieces: how a pause is shown, and an empty scope."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from interruption import (
    Accepts,
    Custom,
    MemoryStore,
    PendingInterrupt,
    ProblemCode,
    ResumePolicy,
    ResumeRejected,
    interrupt_keys,
)
from interruption.adapters._bridged import Paused, absent, allowed, shown

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def ask(ref: str) -> PendingInterrupt:
    """A pending question that accepts a string."""
    return PendingInterrupt(ref, Custom(), "?", None, Accepts(respond={}))


def only_ann_for_a(principal: str | None, pending: PendingInterrupt) -> bool:
    """Ann answers anything; others anything but ``a``."""
    return principal == "ann" or pending.id != "a"


def two(*, whole: bool, created_at: datetime | None = T0) -> Paused:
    """A pause of questions ``a`` and ``b`` at scope ``s``."""
    interrupts = (ask("a"), ask("b"))
    keys = interrupt_keys("test", interrupts, "s")
    return Paused("s", "s", interrupts, keys, created_at, whole=whole)


class TestShown:
    @pytest.mark.parametrize("whole", [False, True])
    def test_a_spent_part_is_left_out_or_hides_a_whole_pause(
        self, *, whole: bool
    ) -> None:
        """With ``a`` spent, ``b`` is shown; a pause answered whole shows none."""
        store = MemoryStore()
        paused = two(whole=whole)
        asyncio.run(store.spend_all([paused.keys["a"]], None))
        policy = ResumePolicy(principal="ann")
        found = asyncio.run(shown("test", store, policy, paused))
        if whole:
            assert found is None
        else:
            assert found is not None
            assert [p.id for p in found.interrupts] == ["b"]
            assert (found.door, found.scope, found.created_at) == ("test", "s", T0)

    def test_the_authorizer_is_asked_about_what_is_spent_too(self) -> None:
        """Refused for a spent ``a``, bob sees nothing, and nothing is filed."""
        store = MemoryStore()
        paused = two(whole=False)
        asyncio.run(store.spend_all([paused.keys["a"]], None))
        bob = ResumePolicy(authorize=only_ann_for_a, principal="bob")
        assert asyncio.run(shown("test", store, bob, paused)) is None
        assert asyncio.run(store.audit("s")) == ()

    def test_an_undated_pause_is_dated_when_first_met(self) -> None:
        """created_at None: the pause's paused event, the same every time."""
        store = MemoryStore()
        paused = two(whole=False, created_at=None)
        first = asyncio.run(shown("test", store, ResumePolicy(now=lambda: T0), paused))
        later = ResumePolicy(now=lambda: datetime(2027, 1, 1, tzinfo=UTC))
        again = asyncio.run(shown("test", store, later, paused))
        assert first is not None
        assert again is not None
        assert first.created_at == again.created_at == T0

    def test_nothing_read_is_nothing_shown(self) -> None:
        """No pause at the scope: None."""
        assert asyncio.run(shown("test", MemoryStore(), ResumePolicy(), None)) is None


class TestAllowed:
    def test_an_authorizer_allows_nothing_where_nothing_is_shown(self) -> None:
        """With an authorizer and no interrupt, no principal is allowed."""
        for who in ("ann", "bob"):
            policy = ResumePolicy(authorize=only_ann_for_a, principal=who)
            assert not asyncio.run(allowed(policy, "s", ()))
        assert asyncio.run(allowed(ResumePolicy(), "s", ()))

    def test_the_authorizer_is_asked_about_every_interrupt(self) -> None:
        """Bob may answer b, not a: a pause showing both is refused him."""
        bob = ResumePolicy(authorize=only_ann_for_a, principal="bob")
        assert asyncio.run(allowed(bob, "s", (ask("b"),)))
        assert not asyncio.run(allowed(bob, "s", (ask("a"), ask("b"))))


class TestAbsent:
    def test_an_authorizer_refuses_everyone(self) -> None:
        """With an authorizer, an empty scope is not_authorized whatever it is."""
        unknown = ResumeRejected.of(ProblemCode.UNKNOWN_INTERRUPT, "none")
        for who in ("ann", "bob"):
            policy = ResumePolicy(authorize=only_ann_for_a, principal=who)
            verdict = absent(unknown, policy)
            assert verdict.codes == (ProblemCode.NOT_AUTHORIZED,)

    def test_without_one_the_precise_code(self) -> None:
        """Without an authorizer the load step's own refusal stands."""
        unknown = ResumeRejected.of(ProblemCode.UNKNOWN_INTERRUPT, "none")
        assert absent(unknown, None) is unknown
        assert absent(unknown, ResumePolicy(principal="bob")) is unknown
