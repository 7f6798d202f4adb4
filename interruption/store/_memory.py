"""`MemoryStore`: everything in one process's memory, for tests and demos."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime
from typing import final

import attrs

from interruption.parts import Message, ToolResponse
from interruption.resume import InterruptedTurn, Resume
from interruption.store._base import turn_expiry

__all__ = ["MemoryStore"]


@attrs.define
class _Row:
    turn: InterruptedTurn
    resume: Resume | None = None
    principal: str | None = None
    completed: bool = False
    results: dict[str, ToolResponse] = attrs.Factory(dict)


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
        self._tokens: dict[str, datetime | None] = {}

    async def save_history(self, session: str, messages: Sequence[Message]) -> None:
        """Replace *session*'s history."""
        self._history[session] = tuple(messages)

    async def load_history(self, session: str) -> tuple[Message, ...] | None:
        """Return *session*'s history, or None."""
        return self._history.get(session)

    async def save_turn(self, turn: InterruptedTurn) -> None:
        """Keep *turn* and its history.

        Raises:
            ValueError: if the session already has a turn with this id.
        """
        turns = self._turns.setdefault(turn.session, {})
        if turn.turn_id in turns:
            msg = f"session {turn.session!r} already has turn {turn.turn_id}"
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

    async def consume(
        self, session: str, turn_id: int, resume: Resume, principal: str | None
    ) -> bool:
        """Claim a turn for one resume; True for exactly one caller."""
        async with self._lock:
            row = self._turns.get(session, {}).get(turn_id)
            if row is None or row.resume is not None:
                return False
            row.resume = resume
            row.principal = principal
            return True

    async def is_consumed(self, session: str, turn_id: int) -> bool:
        """Tell whether a turn was consumed."""
        row = self._turns.get(session, {}).get(turn_id)
        return row is not None and row.resume is not None

    async def record(self, session: str, turn_id: int, response: ToolResponse) -> None:
        """Record a tool result of a consumed turn's continuation."""
        self._turns[session][turn_id].results[response.ref] = response

    async def complete(self, session: str, turn_id: int) -> None:
        """Mark a consumed turn's continuation as finished."""
        self._turns[session][turn_id].completed = True

    async def claimed(
        self, session: str
    ) -> list[tuple[InterruptedTurn, Resume, tuple[ToolResponse, ...]]]:
        """Consumed turns whose continuation never completed (results by ref)."""
        return [
            (
                row.turn,
                row.resume,
                tuple(row.results[ref] for ref in sorted(row.results)),
            )
            for _, row in sorted(self._turns.get(session, {}).items())
            if row.resume is not None and not row.completed
        ]

    async def expire(self, now: datetime) -> int:
        """Delete open turns that expired before *now*; return how many.

        Spent token ids whose tokens expired go too: they no longer verify.
        """
        for jti, ends in list(self._tokens.items()):
            if ends is not None and ends <= now:
                del self._tokens[jti]
        gone = 0
        for turns in self._turns.values():
            for turn_id, row in list(turns.items()):
                moment = turn_expiry(row.turn)
                if row.resume is None and moment is not None and moment <= now:
                    del turns[turn_id]
                    gone += 1
        return gone

    async def use_token(self, jti: str, expires_at: datetime | None) -> bool:
        """Spend a sealed token's id; True the first time only."""
        async with self._lock:
            if jti in self._tokens:
                return False
            self._tokens[jti] = expires_at
            return True

    async def close(self) -> None:
        """Nothing to release."""
