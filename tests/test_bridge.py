"""The bridge's own pieces: a pause as every door shows it, and the merge."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import attrs
import pytest
from interruption import (
    Accepts,
    AuditEvent,
    Bridge,
    Custom,
    FieldError,
    PendingInterrupt,
    PendingPause,
    ResolvedResume,
    Resume,
    pending_everywhere,
)

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
