"""Typing tests for the adapter bridge: checked by mypy, never run."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import assert_type

from interruption import (
    AuditEvent,
    Bridge,
    MemoryStore,
    PendingInterrupt,
    PendingPause,
    ResolvedResume,
    Resume,
    Session,
    pending_everywhere,
)
from interruption.runtime.bridge import OpenSession, SessionBridge
from interruption.testing import ScriptedModel


async def listed(bridges: Sequence[Bridge], principal: str | None) -> None:
    """What every bridge offers, and the merged listing."""
    pauses = await pending_everywhere(bridges, principal=principal)
    assert_type(pauses, list[PendingPause])
    for pause in pauses:
        assert_type(pause.door, str)
        assert_type(pause.scope, str)
        assert_type(pause.interrupts, tuple[PendingInterrupt, ...])
        assert_type(pause.created_at, datetime)
        assert_type(pause.expires_at, datetime | None)
    bridge = bridges[0]
    assert_type(bridge.door, str)
    assert_type(await bridge.pending(principal=principal), Sequence[PendingPause])
    answered = await bridge.answer("scope", Resume(), principal=principal)
    assert_type(answered, ResolvedResume)
    assert_type(await bridge.audit("scope", principal=principal), Sequence[AuditEvent])


async def sessions() -> None:
    """The sessions' own bridge."""
    store = MemoryStore()

    def open_session(session: str) -> Session:
        return Session(store, ScriptedModel([]), id=session)

    opener: OpenSession = open_session
    bridge = SessionBridge(store, opener)
    doors: list[Bridge] = [bridge]
    assert_type(doors[0], Bridge)
    assert_type(bridge.door, str)
    assert_type(await bridge.pending(principal="ann"), list[PendingPause])
    assert_type(await bridge.answer("s", Resume(), turn_id=2), ResolvedResume)
    assert_type(await bridge.audit("s"), tuple[AuditEvent, ...])
    assert_type(await bridge.answer("s", Resume()), ResolvedResume)
    SessionBridge(store, "open")  # type: ignore[arg-type]
    await bridge.answer("s", Resume(), turn_id="2")  # type: ignore[arg-type]


async def one_pause(bridge: Bridge, principal: str | None) -> None:
    """One scope's pause: the listing's, or None."""
    found = await bridge.pause("scope", principal=principal)
    assert_type(found, PendingPause | None)
    await bridge.pause(1)  # type: ignore[arg-type]


async def one_session(bridge: SessionBridge) -> None:
    """The sessions' bridge reads one session's turn."""
    assert_type(await bridge.pause("s", principal="ann"), PendingPause | None)
