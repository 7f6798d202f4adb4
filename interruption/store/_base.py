"""The `Store` protocol: what a session keeps, and the one-winner consume."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol, TypeAlias, TypeVar, runtime_checkable

from interruption._json import STORED_BYTES, STORED_DEPTH
from interruption.parts import Message, ToolResponse
from interruption.resume import InterruptedTurn, Resume
from interruption.wire import loads

__all__ = ["Claimed", "Step", "Store", "read_stored", "turn_expiry"]

T = TypeVar("T")

Step: TypeAlias = Message | ToolResponse
"""What a continuation records as it goes: a message it added to the
history (the model's, or a batch's tool responses), or one tool result."""

Claimed: TypeAlias = tuple[InterruptedTurn, Resume, tuple[Step, ...]]
"""A spent turn whose continuation never completed: the turn, the answers
kept when it was spent, and the steps recorded since, in order."""


@runtime_checkable
class Store(Protocol):
    """Durable pending state for sessions.

    A session's *history* is its authoritative conversation. Each interrupted
    turn is saved once, under a turn id the session never used before, and
    *consumed* at most once: `consume` is an atomic compare-and-set, so of
    any number of concurrent resumes of one turn exactly one wins. While the
    winner continues, every step it takes is *recorded*, so that a crash
    loses nothing: `claimed` lists turns that were consumed but never
    completed, with their kept resume and recorded steps, for
    `Session.recover` to finish without running a finished tool again.

    Turns are never deleted: their ids are never reused, and a turn that
    expired unanswered is closed by its session (`close_turn`). Sealed
    turns, which live in tokens instead, are spent with `spend`.

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
            ValueError: if the session already has a turn with this id or a
                later one: turn ids only grow.
        """

    async def load_turn(
        self, session: str, turn_id: int | None = None
    ) -> InterruptedTurn | None:
        """Return a turn (the latest when *turn_id* is None), or None."""

    async def consume(
        self, turn: InterruptedTurn, resume: Resume, principal: str | None
    ) -> bool:
        """Claim *turn* for one resume; True for exactly one caller, ever.

        The claim is bound to the turn's identity (session, turn id and
        creation time), not only its number. False when no such turn exists
        or it was already consumed (or closed).
        """

    async def close_turn(
        self,
        turn: InterruptedTurn,
        resume: Resume,
        principal: str | None,
        history: Sequence[Message],
    ) -> bool:
        """Consume *turn*, save *history* and complete it, in one transaction.

        For a turn that ends without a continuation (it expired, or was
        cancelled): True for exactly one caller, as `consume`.
        """

    async def record(self, session: str, turn_id: int, step: Step) -> None:
        """Append a step taken while continuing a consumed turn."""

    async def complete(self, session: str, turn_id: int) -> None:
        """Mark a consumed turn's continuation as finished."""

    async def claimed(self, session: str) -> Sequence[Claimed]:
        """Consumed turns whose continuation never completed (after a crash)."""

    async def is_consumed(self, session: str, turn_id: int) -> bool:
        """Tell whether a turn was already consumed (or closed)."""

    async def spend(self, key: str, keep_until: datetime | None) -> bool:
        """Spend *key* once: True the first time only.

        The mark is kept at least until *keep_until* (forever when None), so
        nothing that could still verify can spend it again.
        """

    async def expire(self, now: datetime) -> int:
        """Forget spent marks whose *keep_until* passed before *now*.

        Returns:
            How many were forgotten.
        """

    async def close(self) -> None:
        """Release connections."""


def read_stored(text: str | bytes, cls: type[T]) -> T:
    """Decode a record this library stored, within the limits it wrote to.

    Raises:
        DecodeError: if the stored text is damaged.
    """
    return loads(text, cls, max_bytes=STORED_BYTES, max_depth=STORED_DEPTH)


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
