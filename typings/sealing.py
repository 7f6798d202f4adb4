"""Typing tests for sealed turns: checked by mypy, never run."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import assert_type

from interruption import (
    InterruptedTurn,
    MemoryStore,
    ResolvedResume,
    Resume,
    ResumePolicy,
)
from interruption.runtime.sealing import SEALED_TURN_AUDIENCE, Opened, Sealer


def sealing(turn: InterruptedTurn) -> None:
    sealer = Sealer({"k1": b"0" * 32}, "k1", leeway=timedelta(seconds=5))
    token = sealer.seal(turn)
    assert_type(token, str)
    assert_type(sealer.seal(turn, now=datetime.now(UTC)), str)
    assert_type(sealer.open(token), InterruptedTurn)
    assert_type(sealer.open_with_claims(token), Opened)
    assert_type(sealer.open_with_claims(token).jti, str)
    assert_type(sealer.open_with_claims(token).expires_at, datetime | None)
    assert_type(Sealer({"k1": b"0" * 32}, "k1", max_ttl=None).max_ttl, timedelta | None)
    audience: str = SEALED_TURN_AUDIENCE
    assert_type(sealer.open(token, audience=audience), InterruptedTurn)
    assert_type(sealer.seal(turn, audience="my-channel"), str)
    assert_type(sealer.open(token, audience="my-channel"), InterruptedTurn)
    sealer.seal(turn, audience=1)  # type: ignore[arg-type]
    sealer.seal(token)  # type: ignore[arg-type]
    sealer.open(turn)  # type: ignore[arg-type]
    sealer.open(token, now="now")  # type: ignore[arg-type]
    Sealer({"k1": "text key"}, "k1")  # type: ignore[dict-item]
    Sealer({"k1": b"0" * 32}, "k1", algorithm="HS512")  # type: ignore[arg-type]


async def redeeming(token: str, resume: Resume) -> None:
    sealer = Sealer({"k1": b"0" * 32}, "k1")
    store = MemoryStore()
    assert_type(
        await sealer.redeem(token, resume, store, session="s-1"), ResolvedResume
    )
    await sealer.redeem(
        token, resume, store, session="s-1", policy=ResumePolicy(principal="alice")
    )
    await sealer.redeem(token, resume, store)  # type: ignore[call-arg]
    await sealer.redeem(token, resume, "store", session="s-1")  # type: ignore[arg-type]
