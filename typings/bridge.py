"""Typing tests for the adapter bridge: checked by mypy, never run."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import assert_type

from interruption import (
    AuditEvent,
    Bridge,
    PendingInterrupt,
    PendingPause,
    ResolvedResume,
    Resume,
    pending_everywhere,
)


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
