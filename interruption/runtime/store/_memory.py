"""`MemoryStore`: everything in one process's memory, for tests and demos."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime
from typing import final

import attrs

from interruption.errors import TurnIdTaken
from interruption.parts import Message
from interruption.resume import InterruptedTurn, Resume
from interruption.runtime.store._base import (
    MAX_PAGE,
    MAX_REJECTED,
    AuditEvent,
    Listed,
    Page,
    State,
    Step,
    StoredTurn,
    check_events,
    check_id,
    check_int,
    check_key,
    check_keys,
    check_principal,
    check_record,
    check_turn,
    digested,
    taken,
)

__all__ = ["MemoryStore"]


@attrs.define
class _Row:
    turn: InterruptedTurn
    history_len: int
    resume: Resume | None = None
    principal: str | None = None
    completed: bool = False
    steps: list[Step] = attrs.Factory(list)

    @property
    def state(self) -> State:
        if self.completed:
            return "completed"
        return "open" if self.resume is None else "consumed"


@final
class MemoryStore:
    """A `Store` in memory: one process, nothing survives a restart.

    Consuming is atomic under an asyncio lock, so concurrent tasks of one
    event loop see exactly one winner.
    """

    def __init__(self) -> None:
        self._lock = asyncio.Lock()
        self._history: dict[str, list[Message]] = {}
        self._turns: dict[str, dict[int, _Row]] = {}
        self._spent: dict[str, datetime | None] = {}
        self._audit: dict[str, list[AuditEvent]] = {}
        self._rejected: dict[tuple[str, int], int] = {}
        self._leases: dict[str, tuple[str, datetime]] = {}
        self._kept: dict[str, tuple[bytes, datetime | None]] = {}

    def _note(self, events: Sequence[AuditEvent]) -> None:
        for event in events:
            self._audit.setdefault(event.session, []).append(event)

    async def load_history(
        self, session: str, start: int = 0
    ) -> tuple[Message, ...] | None:
        """Return *session*'s history from message *start* on, or None."""
        check_id("load_history: session", session)
        check_int("load_history: start", start, 0)
        history = self._history.get(session)
        return tuple(history[start:]) if history is not None else None

    def _append(self, session: str, history: Sequence[Message]) -> None:
        kept = self._history.setdefault(session, [])
        kept.extend(history[len(kept) :])

    def _check_id(self, turn: InterruptedTurn) -> None:
        turns = self._turns.get(turn.session)
        if turns and turn.turn_id <= max(turns):
            msg = (
                f"session {turn.session!r} already has turn {max(turns)}: "
                f"expected a turn id above it, got {turn.turn_id}"
            )
            raise TurnIdTaken(turn.session, turn.turn_id, msg)

    def _keep(self, turn: InterruptedTurn, history_len: int) -> None:
        self._check_id(turn)
        turns = self._turns.setdefault(turn.session, {})
        turns[turn.turn_id] = _Row(attrs.evolve(turn, messages=()), history_len)

    async def save(
        self,
        session: str,
        history: Sequence[Message],
        turn: InterruptedTurn | None = None,
        *,
        events: Sequence[AuditEvent] = (),
    ) -> None:
        """Append *history*'s new messages; keep *turn*, if given.

        Raises:
            TurnIdTaken: if *turn*'s id is not above the session's latest.
        """
        check_id("save: session", session)
        check_events("save: events", events)
        if turn is not None:
            self._keep(check_turn("save: turn", turn), len(history))
        self._append(session, history)
        self._note(events)

    async def load_turn(
        self, session: str, turn_id: int | None = None
    ) -> StoredTurn | None:
        """Return a turn with its state (the latest when *turn_id* is None)."""
        check_id("load_turn: session", session)
        if turn_id is not None:
            check_int("load_turn: turn_id", turn_id, 1)
        turns = self._turns.get(session)
        if not turns:
            return None
        row = turns.get(max(turns) if turn_id is None else turn_id)
        if row is None:
            return None
        return StoredTurn(
            row.turn,
            row.history_len,
            row.state,
            row.resume,
            row.principal,
            tuple(row.steps) if row.state == "consumed" else (),
        )

    def _claim(
        self, turn: InterruptedTurn, resume: Resume, principal: str | None
    ) -> _Row | None:
        """Mark *turn* consumed if it is open and the same turn; else None."""
        row = self._turns.get(turn.session, {}).get(turn.turn_id)
        if row is None or row.resume is not None or row.completed:
            return None
        if row.turn.created_at != turn.created_at:
            return None
        row.resume = resume
        row.principal = principal
        return row

    async def consume(
        self,
        turn: InterruptedTurn,
        resume: Resume,
        principal: str | None,
        *,
        events: Sequence[AuditEvent] = (),
    ) -> bool:
        """Claim *turn* for one resume; True for exactly one caller."""
        check_turn("consume: turn", turn)
        check_events("consume: events", events)
        check_principal("consume: principal", principal)
        async with self._lock:
            if self._claim(turn, resume, principal) is None:
                return False
            self._note(events)
            return True

    async def record(self, session: str, turn_id: int, steps: Sequence[Step]) -> None:
        """Append steps of a consumed turn's continuation."""
        check_id("record: session", session)
        check_int("record: turn_id", turn_id, 1)
        row = self._turns.get(session, {}).get(turn_id)
        if row is not None:  # like a database: steps of no turn are never read
            row.steps.extend(steps)

    async def finish(  # noqa: PLR0913 - keyword-only options
        self,
        turn: InterruptedTurn,
        history: Sequence[Message],
        following: InterruptedTurn | None = None,
        *,
        close: Resume | None = None,
        principal: str | None = None,
        events: Sequence[AuditEvent] = (),
    ) -> bool:
        """Complete *turn* (consuming it first with *close*); save what followed.

        Raises:
            TurnIdTaken: if *following*'s id is not above the session's latest.
        """
        check_turn("finish: turn", turn)
        check_events("finish: events", events)
        if following is not None:
            check_turn("finish: following", following)
        check_principal("finish: principal", principal)
        async with self._lock:
            if following is not None:
                self._check_id(following)
            if close is not None:
                row = self._claim(turn, close, principal)
                if row is None:
                    return False
            else:
                row = self._turns.get(turn.session, {}).get(turn.turn_id)
            if following is not None:
                self._keep(following, len(history))
            if row is not None:
                row.completed = True
            self._append(turn.session, history)
            self._note(events)
            return True

    async def log(self, event: AuditEvent, sent: Resume | None = None) -> bool:
        """Append *event*; a rejected one only while its turn has room."""
        check_events("log: event", (event,))
        if event.kind == "rejected":
            key = (event.session, event.turn_id)
            if self._rejected.get(key, 0) >= MAX_REJECTED:
                return False
            self._rejected[key] = self._rejected.get(key, 0) + 1
        self._note((digested(event, sent),))
        return True

    async def audit(self, session: str) -> tuple[AuditEvent, ...]:
        """Return *session*'s audit trail, oldest first."""
        check_id("audit: session", session)
        return tuple(self._audit.get(session, ()))

    async def sessions(
        self,
        state: Listed,
        *,
        now: datetime | None = None,
        after: str | None = None,
        limit: int = MAX_PAGE,
    ) -> tuple[str, ...]:
        """Return up to *limit* sessions after *after* in *state*, sorted."""
        page = Page.of(state, now, after, limit)

        def listed(row: _Row) -> bool:
            if row.state != ("consumed" if page.state == "consumed" else "open"):
                return False
            if page.state == "consumed":
                return True
            closes = row.turn.closes_at
            expired = closes is not None and closes <= page.now
            return expired == (page.state == "expired")

        found = sorted(
            session
            for session, turns in self._turns.items()
            if (page.after is None or session > page.after)
            and turns
            and listed(turns[max(turns)])
        )
        return tuple(found[: page.limit])

    async def lease(
        self,
        session: str,
        holder: str,
        now: datetime,
        until: datetime,
        *,
        renew: bool = False,
    ) -> bool:
        """Hold *session*'s lease for *holder* until *until*, if free at *now*."""
        check_id("lease: session", session)
        check_id("lease: holder", holder)
        held = self._leases.get(session)
        mine = held is not None and held[0] == holder
        if not mine and (renew or (held is not None and held[1] > now)):
            return False
        self._leases[session] = (holder, until)
        return True

    async def release(self, session: str, holder: str) -> None:
        """End *holder*'s lease on *session*, if it holds it."""
        check_id("release: session", session)
        check_id("release: holder", holder)
        held = self._leases.get(session)
        if held is not None and held[0] == holder:
            del self._leases[session]

    async def spend(self, key: str, keep_until: datetime | None) -> bool:
        """Spend *key* once; True the first time only."""
        return await self.spend_all((key,), keep_until)

    async def spend_all(
        self,
        keys: Sequence[str],
        keep_until: datetime | None,
        events: Sequence[AuditEvent] = (),
    ) -> bool:
        """Spend every one of *keys*, or none if any was spent; note *events*."""
        keys = check_keys("spend_all: keys", keys)
        check_events("spend_all: events", events)
        async with self._lock:
            if any(key in self._spent for key in keys):
                return False
            for key in keys:
                self._spent[key] = keep_until
            self._note(events)
            return True

    async def spent(self, keys: Sequence[str]) -> frozenset[str]:
        """Return those of *keys* already spent."""
        keys = check_keys("spent: keys", keys)
        return frozenset(key for key in keys if key in self._spent)

    async def keep(self, key: str, record: bytes, keep_until: datetime | None) -> None:
        """Keep *record* under *key*, once.

        Raises:
            InvalidArgument: for a bad key or record, or a key already kept.
        """
        check_key("keep: key", key)
        check_record("keep: record", record)
        if key in self._kept:
            raise taken(key)
        self._kept[key] = (record, keep_until)

    async def kept(self, key: str) -> bytes | None:
        """Return the record kept under *key*, or None."""
        check_key("kept: key", key)
        found = self._kept.get(key)
        return found[0] if found is not None else None

    async def expire(self, now: datetime) -> int:
        """Forget marks and records kept until before *now*; return how many."""
        spent = [
            key
            for key, until in self._spent.items()
            if until is not None and until <= now
        ]
        for key in spent:
            del self._spent[key]
        records = [
            key
            for key, (_, until) in self._kept.items()
            if until is not None and until <= now
        ]
        for key in records:
            del self._kept[key]
        return len(spent) + len(records)

    async def close(self) -> None:
        """Nothing to release."""
