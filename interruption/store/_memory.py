"""`MemoryStore`: everything in one process's memory, for tests and demos."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime
from typing import final

import attrs

from interruption.parts import Message
from interruption.resume import InterruptedTurn, Resume
from interruption.store._base import Claimed, Step

__all__ = ["MemoryStore"]


@attrs.define
class _Row:
    turn: InterruptedTurn
    resume: Resume | None = None
    principal: str | None = None
    completed: bool = False
    steps: list[Step] = attrs.Factory(list)


@final
class MemoryStore:
    """A `Store` in memory: one process, nothing survives a restart.

    Consuming is atomic under an asyncio lock, so concurrent tasks of one
    event loop see exactly one winner.
    """

    def __init__(self) -> None:
        self._lock = asyncio.Lock()
        self._history: dict[str, tuple[Message, ...]] = {}
        self._turns: dict[str, dict[int, _Row]] = {}
        self._spent: dict[str, datetime | None] = {}

    async def save_history(self, session: str, messages: Sequence[Message]) -> None:
        """Replace *session*'s history."""
        self._history[session] = tuple(messages)

    async def load_history(self, session: str) -> tuple[Message, ...] | None:
        """Return *session*'s history, or None."""
        return self._history.get(session)

    async def save_turn(self, turn: InterruptedTurn) -> None:
        """Keep *turn* and its history.

        Raises:
            ValueError: if the session already has a turn with this id or a
                later one.
        """
        turns = self._turns.setdefault(turn.session, {})
        if turns and turn.turn_id <= max(turns):
            msg = (
                f"session {turn.session!r} already has turn {max(turns)}: "
                f"expected a turn id above it, got {turn.turn_id}"
            )
            raise ValueError(msg)
        turns[turn.turn_id] = _Row(turn)
        self._history[turn.session] = turn.messages

    async def load_turn(
        self, session: str, turn_id: int | None = None
    ) -> InterruptedTurn | None:
        """Return a turn (the latest when *turn_id* is None), or None."""
        turns = self._turns.get(session)
        if not turns:
            return None
        row = turns.get(max(turns) if turn_id is None else turn_id)
        return row.turn if row is not None else None

    def _claim(
        self, turn: InterruptedTurn, resume: Resume, principal: str | None
    ) -> _Row | None:
        """Mark *turn* consumed if it is open and the same turn; else None."""
        row = self._turns.get(turn.session, {}).get(turn.turn_id)
        if row is None or row.resume is not None:
            return None
        if row.turn.created_at != turn.created_at:
            return None
        row.resume = resume
        row.principal = principal
        return row

    async def consume(
        self, turn: InterruptedTurn, resume: Resume, principal: str | None
    ) -> bool:
        """Claim *turn* for one resume; True for exactly one caller."""
        async with self._lock:
            return self._claim(turn, resume, principal) is not None

    async def close_turn(
        self,
        turn: InterruptedTurn,
        resume: Resume,
        principal: str | None,
        history: Sequence[Message],
    ) -> bool:
        """Consume *turn*, save *history* and complete it, at once."""
        async with self._lock:
            row = self._claim(turn, resume, principal)
            if row is None:
                return False
            row.completed = True
            self._history[turn.session] = tuple(history)
            return True

    async def is_consumed(self, session: str, turn_id: int) -> bool:
        """Tell whether a turn was consumed."""
        row = self._turns.get(session, {}).get(turn_id)
        return row is not None and row.resume is not None

    async def record(self, session: str, turn_id: int, step: Step) -> None:
        """Append a step of a consumed turn's continuation."""
        self._turns[session][turn_id].steps.append(step)

    async def complete(self, session: str, turn_id: int) -> None:
        """Mark a consumed turn's continuation as finished."""
        self._turns[session][turn_id].completed = True

    async def claimed(self, session: str) -> list[Claimed]:
        """Consumed turns whose continuation never completed, with their steps."""
        return [
            (row.turn, row.resume, tuple(row.steps))
            for _, row in sorted(self._turns.get(session, {}).items())
            if row.resume is not None and not row.completed
        ]

    async def spend(self, key: str, keep_until: datetime | None) -> bool:
        """Spend *key* once; True the first time only."""
        async with self._lock:
            if key in self._spent:
                return False
            self._spent[key] = keep_until
            return True

    async def expire(self, now: datetime) -> int:
        """Forget spent marks kept until before *now*; return how many."""
        gone = [
            key
            for key, until in self._spent.items()
            if until is not None and until <= now
        ]
        for key in gone:
            del self._spent[key]
        return len(gone)

    async def close(self) -> None:
        """Nothing to release."""
