"""The `Store` protocol: what a session keeps, and the one-winner consume."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

from interruption.parts import Message, ToolResponse
from interruption.resume import InterruptedTurn, Resume

__all__ = ["Store", "turn_expiry"]


@runtime_checkable
class Store(Protocol):
    """Durable pending state for sessions.

    A session's *history* is its authoritative conversation. Each interrupted
    turn is saved once and *consumed* at most once: `consume` is an atomic
    compare-and-set, so of any number of concurrent resumes of one turn
    exactly one wins. While the winner continues, every tool result it gets
    is *recorded*, so that a crash loses nothing: `claimed` lists turns that
    were consumed but never completed, with their resume and recorded
    results, for `Session.recover` to finish without running a finished
    tool again.

    All methods are coroutines; implementations: `MemoryStore`,
    `SqliteStore`, `PostgresStore`.
    """

    async def save_history(self, session: str, messages: Sequence[Message]) -> None:
        """Replace *session*'s history (creating the session if new)."""

    async def load_history(self, session: str) -> tuple[Message, ...] | None:
        """Return *session*'s history, or None if there is no such session."""

    async def save_turn(self, turn: InterruptedTurn) -> None:
        """Keep an interrupted turn (and its history) as the session's open turn.

        Raises:
            ValueError: if the session already has a turn with this id.
        """

    async def load_turn(
        self, session: str, turn_id: int | None = None
    ) -> InterruptedTurn | None:
        """Return a turn (the latest when *turn_id* is None), or None."""

    async def consume(
        self, session: str, turn_id: int, resume: Resume, principal: str | None
    ) -> bool:
        """Claim a turn for one resume; True for exactly one caller, ever.

        False when the turn does not exist or was already consumed.
        """

    async def record(self, session: str, turn_id: int, response: ToolResponse) -> None:
        """Record a tool result obtained while continuing a consumed turn."""

    async def complete(self, session: str, turn_id: int) -> None:
        """Mark a consumed turn's continuation as finished."""

    async def claimed(
        self, session: str
    ) -> Sequence[tuple[InterruptedTurn, Resume, tuple[ToolResponse, ...]]]:
        """Consumed turns whose continuation never completed (after a crash)."""

    async def is_consumed(self, session: str, turn_id: int) -> bool:
        """Tell whether a turn was already consumed."""

    async def expire(self, now: datetime) -> int:
        """Delete open turns that expired before *now*; return how many."""

    async def use_token(self, jti: str, expires_at: datetime | None) -> bool:
        """Spend a sealed token's id; True the first time only."""

    async def close(self) -> None:
        """Release connections."""


def turn_expiry(turn: InterruptedTurn) -> datetime | None:
    """When the last of *turn*'s interrupts stops accepting answers.

    Returns:
        None when some interrupt never expires.
    """
    moments: list[datetime | None] = []
    for pending in turn.interrupts:
        when = pending.expires_at
        if turn.expires_at is not None:
            when = turn.expires_at if when is None else min(when, turn.expires_at)
        moments.append(when)
    if not moments:
        return turn.expires_at
    if any(when is None for when in moments):
        return None
    return max(when for when in moments if when is not None)
