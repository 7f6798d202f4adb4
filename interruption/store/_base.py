"""The `Store` protocol: what a session keeps, and the one-winner consume.

A session's history is kept once, append-only: a turn refers to its place
in it (how many messages it had when it paused) instead of carrying a copy,
so what a store keeps grows linearly with the conversation, and one cycle's
work does not grow with it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import (
    Final,
    Literal,
    Protocol,
    TypeAlias,
    TypeVar,
    cast,
    final,
    runtime_checkable,
)

import attrs

from interruption._converter import trusted
from interruption._json import STORED_BYTES, STORED_DEPTH
from interruption.kinds import ApprovalPending
from interruption.parts import Message, ToolResponse
from interruption.resume import Accepts, InterruptedTurn, PendingInterrupt, Resume
from interruption.wire import dumps, loads

__all__ = [
    "MAX_REJECTED",
    "AuditEvent",
    "AuditKind",
    "Listed",
    "State",
    "Step",
    "Store",
    "StoredTurn",
    "listed",
    "read_stored",
    "stored_turn_json",
    "turn_from_json",
]

T = TypeVar("T")
R = TypeVar("R", InterruptedTurn, PendingInterrupt)

Step: TypeAlias = Message | ToolResponse
"""What a continuation records as it goes: a message it added to the
history (the model's, or a batch's tool responses), or one tool result."""

State: TypeAlias = Literal["open", "consumed", "completed"]
"""Where a turn is: answerable; spent, its continuation running (or cut
short by a crash); or done with."""


Listed: TypeAlias = Literal["open", "consumed"]
"""The states `Store.sessions` lists sessions by: a turn awaiting answers,
or a continuation that is running or was cut short by a crash."""

AuditKind: TypeAlias = Literal[
    "paused", "accepted", "rejected", "cancelled", "expired", "recovered"
]
"""What happened to a turn.

``paused``: it was kept, with what was pending; ``accepted``: a resume
consumed it; ``rejected``: a resume or a cancel was refused (nothing
changed); ``cancelled`` and ``expired``: it was closed without a
continuation; ``recovered``: a continuation cut short by a crash was taken
up again.
"""

MAX_REJECTED: Final = 100
"""How many rejected attempts a store keeps per turn; later ones are not
kept, so refused clients cannot grow storage without limit."""


@final
@attrs.frozen
class AuditEvent:
    """One entry of a session's audit trail: what happened to one turn.

    Attributes:
        session: The session.
        turn_id: The turn it happened to (for a rejected attempt at a turn
            the session never had, its latest turn).
        kind: What happened (`AuditKind`).
        at: When, by the session's clock.
        principal: Who acted, when known.
        codes: The distinct problem codes of a rejected attempt, in the
            order they were first reported.
        digest: The SHA-256 of the wire form of the resume that was
            accepted or rejected (`interruption.resume_digest`), so an
            attempt can be matched to a request log without the trail
            keeping what was sent.
        pending: The ids of the interrupts pending when the turn paused.
        reason: Why a turn was cancelled.
    """

    session: str
    turn_id: int
    kind: AuditKind
    at: datetime
    principal: str | None = None
    codes: tuple[str, ...] = ()
    digest: str | None = None
    pending: tuple[str, ...] = ()
    reason: str | None = None


@final
@attrs.frozen
class StoredTurn:
    """A turn as a store keeps it: the turn, where it is, what was done.

    Attributes:
        turn: The interrupted turn, its ``messages`` empty: they are the
            first *history_len* messages of the session's history.
        history_len: How many messages the history had when it paused.
        state: ``"open"``, ``"consumed"`` or ``"completed"``.
        resume: The answers kept when it was consumed, else None.
        principal: Who consumed it, else None.
        steps: What its continuation recorded, in order (while consumed).
    """

    turn: InterruptedTurn
    history_len: int
    state: State
    resume: Resume | None = None
    principal: str | None = None
    steps: tuple[Step, ...] = ()

    def with_history(self, history: Sequence[Message]) -> InterruptedTurn:
        """The whole turn, its messages taken from the session's *history*."""
        return _replaced(self.turn, messages=tuple(history[: self.history_len]))


@runtime_checkable
class Store(Protocol):
    """Durable pending state for sessions: eleven calls, each one transaction.

    A session's *history* is append-only. Each interrupted turn is saved
    once, under a turn id the session never used before, and *consumed* at
    most once: `consume` is an atomic compare-and-set, so of any number of
    concurrent resumes of one turn exactly one wins. While the winner
    continues, every step it takes is *recorded*, so that a crash loses
    nothing; `load_turn` returns a consumed turn with its steps, for
    `Session.recover`. `finish` ends a turn's continuation (or closes an
    expired or cancelled turn) and saves what followed, in one transaction.
    Turns are never deleted. Sealed turns and adapters' pauses, which live
    elsewhere, are spent with `spend`.

    Every store keeps an append-only *audit trail* per session: the events
    passed to `save`, `consume` and `finish` are written in the same
    transaction as the change they describe, and `log` appends one on its
    own (a rejected attempt: at most `MAX_REJECTED` per turn are kept).

    All methods are coroutines; implementations: `MemoryStore`,
    `SqliteStore`, `PostgresStore`; `interruption.testing.store_contract`
    holds the tests a third-party store must pass.
    """

    async def load_history(
        self, session: str, start: int = 0
    ) -> tuple[Message, ...] | None:
        """Return *session*'s history from message *start* on.

        Returns:
            None if there is no such session.
        """

    async def save(
        self,
        session: str,
        history: Sequence[Message],
        turn: InterruptedTurn | None = None,
        *,
        events: Sequence[AuditEvent] = (),
    ) -> None:
        """Append what *history* has beyond what is kept; keep *turn* if given.

        *history* is the whole conversation, of which the store already
        keeps a prefix; *turn* (its messages ignored) paused at its end.
        *events* join the audit trail in the same transaction.

        Raises:
            ValueError: if *turn*'s id is not above the session's latest.
        """

    async def load_turn(
        self, session: str, turn_id: int | None = None
    ) -> StoredTurn | None:
        """Return a turn with its state (the latest when *turn_id* is None)."""

    async def consume(
        self,
        turn: InterruptedTurn,
        resume: Resume,
        principal: str | None,
        *,
        events: Sequence[AuditEvent] = (),
    ) -> bool:
        """Claim *turn* for one resume; True for exactly one caller, ever.

        The claim is bound to the turn's identity (session, turn id and
        creation time), not only its number. False when no such turn is
        open (it does not exist, or was consumed or closed); *events* join
        the audit trail with the claim, and only if it succeeds.
        """

    async def record(self, session: str, turn_id: int, steps: Sequence[Step]) -> None:
        """Append steps taken while continuing a consumed turn, at once."""

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
        """Complete *turn*, append *history*'s new messages, keep *following*.

        With *close* (a turn that ends without a continuation: expired,
        cancelled), the turn is consumed with it first, as `consume` would,
        in the same transaction. *events* join the audit trail in it too.

        Returns:
            False only with *close*, when the turn was not open; nothing
            was written then.
        """

    async def log(self, event: AuditEvent) -> bool:
        """Append *event* to its session's audit trail on its own.

        A ``"rejected"`` event is kept only while its turn has fewer than
        `MAX_REJECTED` of them (concurrent writers may overshoot by at most
        their number).

        Returns:
            Whether it was kept.
        """

    async def audit(self, session: str) -> tuple[AuditEvent, ...]:
        """Return *session*'s audit trail, oldest first (empty if unknown)."""

    async def sessions(self, state: Listed) -> tuple[str, ...]:
        """Return the sessions whose latest turn is in *state*, sorted.

        ``"open"``: a turn awaits answers (expired ones included);
        ``"consumed"``: a continuation is running or was cut short by a
        crash (what `Session.recover` finishes).
        """

    async def spend(self, key: str, keep_until: datetime | None) -> bool:
        """Spend *key* once: True the first time only.

        The mark is kept at least until *keep_until* (forever when None), so
        nothing that could still verify can spend it again. The same as
        ``spend_all((key,), keep_until)``.
        """

    async def spend_all(
        self,
        keys: Sequence[str],
        keep_until: datetime | None,
        events: Sequence[AuditEvent] = (),
    ) -> bool:
        """Spend every one of *keys* at once, or none: one transaction.

        An adapter's pause is spent interrupt by interrupt (one key each), so
        that however its answers are split or batched each is spent once;
        answering several spends their keys together, so a batch that
        races another on any of them is refused whole, and nothing of it is
        spent.

        Args:
            keys: What is spent (repeats count once).
            keep_until: Keep the marks at least until then; None for ever.
            events: Audit events written in the same transaction, only if
                the keys were spent.

        Returns:
            True if none was spent before (all are now), else False: then
            nothing was written.
        """

    async def spent(self, keys: Sequence[str]) -> frozenset[str]:
        """Return those of *keys* already spent (and not yet expired)."""

    async def expire(self, now: datetime) -> int:
        """Forget spent marks whose *keep_until* passed before *now*.

        Returns:
            How many were forgotten.
        """

    async def close(self) -> None:
        """Release connections."""


_BUILD: Final[dict[type, tuple[tuple[str, ...], Callable[..., object]]]] = {
    cls: (tuple(field.name for field in attrs.fields(cls)), trusted(cls))
    for cls in (InterruptedTurn, PendingInterrupt)
}
"""Each rewritten record's field names, and its builder without validators."""


def _replaced(record: R, **changes: object) -> R:
    """*record* with *changes*, without running its validators again.

    For the store's own rewrites only: a turn's ``messages`` and an
    interrupt's ``accepts``, whose values were checked when first built
    (``accepts`` is an `Accepts`, its schemas checked by `Accepts` itself),
    and a turn's ``interrupts`` replaced by the same interrupts with other
    ``accepts`` (their validator reads ids, names and refs, which stay).
    `attrs.evolve` would run the whole ``__init__`` again (every payload
    walked, the interrupts compared): a few percent of a `SqliteStore`
    cycle's work.
    """
    names, build = _BUILD[type(record)]
    values = [
        changes[name] if name in changes else getattr(record, name) for name in names
    ]
    return cast("R", build(*values))


def listed(state: object) -> Listed:
    """*state* as a state `Store.sessions` lists by.

    Raises:
        ValueError: if it is neither ``"open"`` nor ``"consumed"``.
    """
    if state == "open":
        return "open"
    if state == "consumed":
        return "consumed"
    msg = f"sessions: expected a state, 'open' or 'consumed', got {state!r}"
    raise ValueError(msg)


def stored_turn_json(turn: InterruptedTurn) -> str:
    """A turn as stores keep it: no messages, approvals without schemas.

    An approval's accepted answers follow from its kind
    (`PendingInterrupt.allowed`), so the decision schema is not copied into
    every record; only the ``replace_input`` it declared (the schema of an
    edited input, None for the loop's own approvals) is kept.
    """
    interrupts = tuple(
        _replaced(pending, accepts=Accepts(replace_input=pending.accepts.replace_input))
        if isinstance(pending.kind, ApprovalPending)
        else pending
        for pending in turn.interrupts
    )
    return dumps(_replaced(turn, messages=(), interrupts=interrupts))


def turn_from_json(text: str | bytes) -> InterruptedTurn:
    """Read a turn `stored_turn_json` wrote (messages empty, schemas back).

    An approval's accepts are its kind's (`PendingInterrupt.allowed`), with
    the ``replace_input`` it was stored with.
    """
    turn = read_stored(text, InterruptedTurn)
    interrupts = tuple(
        _replaced(pending, accepts=pending.allowed)
        if isinstance(pending.kind, ApprovalPending)
        else pending
        for pending in turn.interrupts
    )
    return _replaced(turn, interrupts=interrupts)


def read_stored(text: str | bytes, cls: type[T]) -> T:
    """Decode a record this library stored, within the limits it wrote to.

    Raises:
        DecodeError: if the stored text is damaged.
    """
    return loads(text, cls, max_bytes=STORED_BYTES, max_depth=STORED_DEPTH)
