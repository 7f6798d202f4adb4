"""The `Store` protocol: what a session keeps, and the one-winner consume.

A session's history is kept once, append-only: a turn refers to its place
in it (how many messages it had when it paused) instead of carrying a copy,
so what a store keeps grows linearly with the conversation, and one cycle's
work does not grow with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import (
    Final,
    Literal,
    Protocol,
    TypeAlias,
    TypeVar,
    final,
    get_args,
    runtime_checkable,
)

import attrs

from interruption.audit import AuditEvent, AuditKind
from interruption.errors import InvalidArgument
from interruption.parts import Message, ToolResponse
from interruption.resume import InterruptedTurn, Resume
from interruption.wire import STORED_BYTES, STORED_DEPTH, dumps, loads, wire_digest

__all__ = [
    "MAX_ID",
    "MAX_KEY_BYTES",
    "MAX_PAGE",
    "MAX_RECORD_BYTES",
    "MAX_REJECTED",
    "MAX_TURN_ID",
    "AuditEvent",
    "AuditKind",
    "Listed",
    "Page",
    "State",
    "Step",
    "Store",
    "StoredTurn",
    "check_events",
    "check_id",
    "check_int",
    "check_key",
    "check_principal",
    "check_record",
    "check_turn",
    "listed",
    "read_stored",
    "stored_turn_json",
    "turn_from_json",
]

T = TypeVar("T")

Step: TypeAlias = Message | ToolResponse
"""What a continuation records as it goes: a message it added to the
history (the model's, or a batch's tool responses), or one tool result."""

State: TypeAlias = Literal["open", "consumed", "completed"]
"""Where a turn is: answerable; spent, its continuation running (or cut
short by a crash); or done with."""


Listed: TypeAlias = Literal["open", "expired", "consumed"]
"""The states `Store.sessions` lists sessions by: a turn that can still be
answered; a turn nobody can answer any more, not closed yet (what
`Session.expire` closes); a continuation that is running or was cut short
by a crash."""

MAX_ID: Final = 256
"""The longest session id or principal a store takes, in characters."""

MAX_KEY_BYTES: Final = 2048
"""The longest key `Store.spend` takes, in bytes of UTF-8 (an index entry)."""

MAX_TURN_ID: Final = 2**63 - 1
"""The largest turn id (or message number) a store keeps: a signed 64-bit
integer, as SQLite and PostgreSQL hold it."""

MAX_RECORD_BYTES: Final = 64 * 2**20
"""The largest record `Store.keep` takes, in bytes (64 MiB): an adapter's
paused run, far below what SQLite (1 GB) or PostgreSQL (1 GB) holds in one
value, so every record kept reads back."""

MAX_PAGE: Final = 1000
"""The most session ids one `Store.sessions` call returns."""

MAX_REJECTED: Final = 100
"""How many rejected attempts a store keeps per turn; later ones are not
kept, so refused clients cannot grow storage without limit."""


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
        return attrs.evolve(self.turn, messages=tuple(history[: self.history_len]))


@runtime_checkable
class Store(Protocol):
    """Durable pending state for sessions: each call is one transaction.

    A session's *history* is append-only. Each interrupted turn is saved
    once, under a turn id the session never used before, and *consumed* at
    most once: `consume` is an atomic compare-and-set, so of any number of
    concurrent resumes of one turn exactly one wins. While the winner
    continues, every step it takes is *recorded*, so that a crash loses
    nothing; `load_turn` returns a consumed turn with its steps, for
    `Session.recover`. `finish` ends a turn's continuation (or closes an
    expired or cancelled turn) and saves what followed, in one transaction.
    Turns are never deleted. Sealed turns and adapters' pauses, which live
    elsewhere, are spent with `spend`. A paused run an adapter keeps
    server-side (its framework's own state, opaque bytes) is kept with
    `keep`, insert-once under a fresh key, and read back with `kept`.

    Every store keeps an append-only *audit trail* per session: the events
    passed to `save`, `consume` and `finish` are written in the same
    transaction as the change they describe, and `log` appends one on its
    own (a rejected attempt: at most `MAX_REJECTED` per turn are kept).

    A session's *lease* serializes the calls that run its loop (`Session`'s
    `send` and `recover`), across processes: `lease` takes it for one
    holder until a moment, atomically, or renews the holder's own, and
    `release` gives it back. A
    holder that crashed never releases; its lease ends when its moment
    passes, and the next caller takes it then.

    Every id, turn id and key is checked before anything is read or
    written (`check_id`, `check_int`, `check_key`): a value no database
    could hold raises `InvalidArgument`, never a driver's error.

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
            TurnIdTaken: if *turn*'s id is not above the session's latest
                (a `ValueError`).
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

    async def log(self, event: AuditEvent, sent: Resume | None = None) -> bool:
        """Append *event* to its session's audit trail on its own.

        A ``"rejected"`` event is kept only while its turn has fewer than
        `MAX_REJECTED` of them (concurrent writers may overshoot by at most
        their number). With *sent* (the refused resume), the event's digest
        is taken of it (`digested`) only once the event is to be kept, so a
        rejection that is not recorded pays nothing for recording.

        Returns:
            Whether it was kept.
        """

    async def audit(self, session: str) -> tuple[AuditEvent, ...]:
        """Return *session*'s audit trail, oldest first (empty if unknown)."""

    async def sessions(
        self,
        state: Listed,
        *,
        now: datetime | None = None,
        after: str | None = None,
        limit: int = MAX_PAGE,
    ) -> tuple[str, ...]:
        """Return sessions whose latest turn is in *state*, a page at a time.

        ``"open"``: its turn can still be answered at *now* (some interrupt
        accepts answers); ``"expired"``: its turn is open but none of its
        interrupts accepts answers any more (`Session.expire` closes it);
        ``"consumed"``: a continuation is running or was cut short by a
        crash (what `Session.recover` finishes).

        Args:
            state: Which sessions.
            now: The moment expiry is judged at; the current time if None.
            after: A cursor: only ids sorted after it (the last id of the
                previous page); None for the first page.
            limit: The most ids returned, 1 to `MAX_PAGE`.

        Returns:
            Up to *limit* ids, sorted; fewer than *limit* on the last page.

        Raises:
            InvalidArgument: for another state, a bad cursor or limit.
        """

    async def lease(
        self,
        session: str,
        holder: str,
        now: datetime,
        until: datetime,
        *,
        renew: bool = False,
    ) -> bool:
        """Hold *session*'s lease for *holder* until *until*, atomically.

        Taken when nobody holds it or its holder's lease ended at or before
        *now* (a crashed holder); extended when *holder* holds it already.
        With *renew*, only extended: a holder whose lease another took in
        the meantime (and maybe released since) does not get it back.

        Returns:
            Whether *holder* holds it now (False: another holder does, or,
            renewing, did meanwhile).
        """

    async def release(self, session: str, holder: str) -> None:
        """End *holder*'s lease on *session*; nothing if it does not hold it."""

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

    async def keep(self, key: str, record: bytes, keep_until: datetime | None) -> None:
        """Keep *record* under *key*, once: an adapter's paused run.

        The record is opaque bytes (any bytes, the empty record included),
        read back exactly by `kept`; it is kept at least until *keep_until*
        (forever when None), then `expire` forgets it. Of any number of
        concurrent `keep` calls under one key, exactly one succeeds.

        Raises:
            InvalidArgument: if *key* is out of range (`check_key`), *record*
                is not bytes of at most `MAX_RECORD_BYTES`, or a record is
                already kept under *key* (it is left as it was).
        """

    async def kept(self, key: str) -> bytes | None:
        """Return the record kept under *key*, or None if there is none.

        Raises:
            InvalidArgument: if *key* is out of range (`check_key`).
        """

    async def expire(self, now: datetime) -> int:
        """Forget spent marks and kept records whose *keep_until* passed.

        Those kept until *now* or before go; those kept until later, or
        forever, stay.

        Returns:
            How many were forgotten (marks and records together).
        """

    async def close(self) -> None:
        """Release connections."""


def _shown(value: object) -> str:
    """*value* for an error message: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def _text(where: str, value: object, expected: str) -> str:
    """*value* if it is text a store can hold: no NUL, no lone surrogate.

    Raises:
        InvalidArgument: otherwise, saying *expected*.
    """
    if not isinstance(value, str):
        raise InvalidArgument(where, expected, type(value).__name__)
    if "\x00" in value:
        raise InvalidArgument(where, expected, f"{_shown(value)}, which has a NUL")
    try:
        value.encode()
    except UnicodeEncodeError:
        got = f"{_shown(value)}, which has a lone surrogate"
        raise InvalidArgument(where, expected, got) from None
    return value


def _bounded(where: str, value: object, least: int) -> str:
    expected = f"text of {least} to {MAX_ID} characters, without NUL"
    text = _text(where, value, expected)
    if not least <= len(text) <= MAX_ID:
        raise InvalidArgument(where, expected, f"{len(text)} characters")
    return text


def check_id(where: str, value: object) -> str:
    """*value* as a session id (or a lease holder): 1 to `MAX_ID` characters.

    Every store checks the ids it is given with this, before it reads or
    writes, so that no database error reaches a caller.

    Args:
        where: The call and argument, for the message.
        value: What was given.

    Returns:
        *value*.

    Raises:
        InvalidArgument: if it is not text without NUL or lone surrogates,
            of 1 to `MAX_ID` characters.
    """
    return _bounded(where, value, 1)


def check_principal(where: str, value: object) -> str | None:
    """*value* as a principal: None, or text of 0 to `MAX_ID` characters.

    Raises:
        InvalidArgument: if it is neither None nor text without NUL or lone
            surrogates, of at most `MAX_ID` characters.
    """
    return None if value is None else _bounded(where, value, 0)


def check_key(where: str, value: object) -> str:
    """*value* as a key to spend: text of at most `MAX_KEY_BYTES` bytes.

    Raises:
        InvalidArgument: otherwise.
    """
    expected = f"non-empty text of at most {MAX_KEY_BYTES} bytes, without NUL"
    text = _text(where, value, expected)
    size = len(text.encode())
    if not text or size > MAX_KEY_BYTES:
        raise InvalidArgument(where, expected, f"{size} bytes")
    return text


def check_record(where: str, value: object) -> bytes:
    """*value* as a record to keep: bytes of at most `MAX_RECORD_BYTES`.

    Raises:
        InvalidArgument: otherwise.
    """
    expected = f"bytes, at most {MAX_RECORD_BYTES}"
    if type(value) is not bytes:
        raise InvalidArgument(where, expected, type(value).__name__)
    if len(value) > MAX_RECORD_BYTES:
        raise InvalidArgument(where, expected, f"{len(value)} bytes")
    return value


def taken(key: str) -> InvalidArgument:
    """The error of a `Store.keep` under a key already kept."""
    got = f"{_shown(key)}, under which a record is already kept"
    return InvalidArgument("keep: key", "a key no record is kept under", got)


def check_int(where: str, value: object, low: int, high: int = MAX_TURN_ID) -> int:
    """*value* as an integer from *low* to *high* (a turn id, a position).

    Raises:
        InvalidArgument: if it is not an int (a bool is not) in the range.
    """
    if type(value) is not int or not low <= value <= high:
        expected = f"an integer from {low} to {high}"
        raise InvalidArgument(where, expected, _shown(value))
    return value


_KINDS: Final = frozenset(get_args(AuditKind))


def digested(event: AuditEvent, sent: Resume | None) -> AuditEvent:
    """*event* with the digest of *sent* (`wire_digest`), when *sent* is given."""
    return event if sent is None else attrs.evolve(event, digest=wire_digest(sent))


def check_keys(where: str, keys: Sequence[str]) -> list[str]:
    """*keys* as keys to spend, each checked (`check_key`), repeats dropped.

    Raises:
        InvalidArgument: for the first key out of range, at its index.
    """
    if isinstance(keys, str):  # a lone key would be read as its characters
        raise InvalidArgument(where, "a sequence of keys", "a string")
    return list(
        dict.fromkeys(check_key(f"{where}[{n}]", key) for n, key in enumerate(keys))
    )


def check_events(where: str, events: Sequence[AuditEvent]) -> None:
    """Check what of *events* a store writes to columns of its own.

    Raises:
        InvalidArgument: for a session id, turn id (0 to `MAX_TURN_ID`) or
            kind (an `AuditKind`) out of range.
    """
    for index, event in enumerate(events):
        check_id(f"{where}[{index}].session", event.session)
        check_int(f"{where}[{index}].turn_id", event.turn_id, 0)
        if event.kind not in _KINDS:
            expected = f"an AuditKind, one of {sorted(_KINDS)}"
            raise InvalidArgument(
                f"{where}[{index}].kind", expected, _shown(event.kind)
            )


def check_turn(where: str, turn: InterruptedTurn) -> InterruptedTurn:
    """*turn* if a store can keep it: its session id and turn id in range.

    Raises:
        InvalidArgument: otherwise.
    """
    check_id(f"{where}.session", turn.session)
    check_int(f"{where}.turn_id", turn.turn_id, 1)
    return turn


def listed(state: object) -> Listed:
    """*state* as a state `Store.sessions` lists by.

    Raises:
        InvalidArgument: if it is neither ``"open"`` nor ``"consumed"``.
    """
    if state == "open":
        return "open"
    if state == "expired":
        return "expired"
    if state == "consumed":
        return "consumed"
    expected = "'open', 'expired' or 'consumed'"
    raise InvalidArgument("sessions: state", expected, _shown(state))


@final
@attrs.frozen
class Page:
    """The arguments of one `Store.sessions` call, checked.

    Attributes:
        state: Which sessions.
        now: The moment expiry is judged at (aware).
        after: The cursor, or None.
        limit: The most ids returned.
    """

    state: Listed
    now: datetime
    after: str | None
    limit: int

    @classmethod
    def of(
        cls, state: object, now: datetime | None, after: object, limit: object
    ) -> Page:
        """Check a `Store.sessions` call's arguments.

        Raises:
            InvalidArgument: for another state, a cursor that is no session
                id, a limit out of 1 to `MAX_PAGE`, or a naive *now*.
        """
        moment = now if now is not None else datetime.now(UTC)
        if moment.tzinfo is None:
            raise InvalidArgument("sessions: now", "an aware datetime", "a naive one")
        return cls(
            listed(state),
            moment,
            check_id("sessions: after", after) if after is not None else None,
            check_int("sessions: limit", limit, 1, MAX_PAGE),
        )


def stored_turn_json(turn: InterruptedTurn) -> str:
    """A turn as stores keep it: its wire form without its messages.

    The history is kept once, apart (`StoredTurn.history_len` says where
    the turn paused in it).
    """
    return dumps(attrs.evolve(turn, messages=()))


def turn_from_json(text: str | bytes) -> InterruptedTurn:
    """Read a turn `stored_turn_json` wrote (its messages empty).

    Records build themselves whatever reads them: a turn stored by an
    earlier release, whose approvals were kept without their decision
    schema, reads back with each approval's accepts as its kind makes them
    (`accepts_of_kind`).
    """
    return read_stored(text, InterruptedTurn)


def read_stored(text: str | bytes, cls: type[T]) -> T:
    """Decode a record this library stored, within the limits it wrote to.

    Raises:
        DecodeError: if the stored text is damaged.
    """
    return loads(text, cls, max_bytes=STORED_BYTES, max_depth=STORED_DEPTH)
