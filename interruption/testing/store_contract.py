"""The contract every `Store` must meet, as checks anyone can run.

A third-party store (Redis, DynamoDB, ...) is a `Store` when it passes
every check of `CONTRACT`. Each check is a coroutine function taking a
fresh, empty store and raising `AssertionError` when the store breaks a
guarantee, so any test runner can drive it::

    @pytest.mark.parametrize("check", CONTRACT, ids=lambda c: c.__name__)
    def test_my_store(check: Check) -> None:
        asyncio.run(check(MyStore()))
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime, timedelta
from typing import Any, Final, TypeAlias

import attrs

from interruption._json import JSON, MAX_DEPTH
from interruption.errors import InvalidArgument, TurnIdTaken
from interruption.kinds import ApprovalPending, Custom
from interruption.parts import Message, Role, ToolRequest, ToolResponse
from interruption.resume import (
    Accepts,
    InterruptedTurn,
    PendingInterrupt,
    Respond,
    Resume,
)
from interruption.runtime.approval import DECISION_SCHEMA
from interruption.runtime.store._base import (
    MAX_ID,
    MAX_KEY_BYTES,
    MAX_PAGE,
    MAX_RECORD_BYTES,
    MAX_REJECTED,
    MAX_TURN_ID,
    AuditEvent,
    AuditKind,
    Store,
)

__all__ = ["CONTRACT", "NOW", "Check", "turn"]

Check: TypeAlias = Callable[[Store], Coroutine[Any, Any, None]]
"""One check: takes a fresh, empty store."""

NOW: Final = datetime(2026, 11, 21, 23, 0, tzinfo=UTC)
"""The moment the sample turns paused."""

RESUME: Final = Resume(respond=(Respond("ask_user", "call-1", "Yes"),))
RACERS: Final = 20


def _history(length: int, session: str = "s-1") -> tuple[Message, ...]:
    return tuple(
        Message.of_text(Role.USER if n % 2 == 0 else Role.MODEL, f"{session} {n}")
        for n in range(length)
    )


def turn(
    turn_id: int = 1,
    *,
    session: str = "s-1",
    created_at: datetime = NOW,
    value: JSON = "?",
) -> InterruptedTurn:
    """A turn pausing a question and an approval, with a finished sibling."""
    ask = ToolRequest("ask_user", "call-1", {"question": value})
    pay = ToolRequest("transfer_money", "call-2", {"to": "ACME", "amount": 5})
    return InterruptedTurn(
        session=session,
        turn_id=turn_id,
        messages=(Message(Role.MODEL, (ask, pay, ToolRequest("lookup", "call-0"))),),
        interrupts=(
            PendingInterrupt(
                id="call-1",
                kind=Custom(),
                payload=value,
                tool=ask,
                accepts=Accepts(respond={"enum": ["Yes", "No"]}),
            ),
            PendingInterrupt(
                id="call-2",
                kind=ApprovalPending("call-2"),
                payload={"tool": pay.name, "input": pay.input},
                tool=pay,
                accepts=Accepts(restart=DECISION_SCHEMA),
            ),
        ),
        completed=(ToolResponse("lookup", "call-0", value),),
        created_at=created_at,
    )


async def _raised(call: Coroutine[Any, Any, object]) -> BaseException | None:
    """What *call* raises (an `Exception`), or None if it returns."""
    try:
        await call
    except Exception as error:  # noqa: BLE001 - returned to be checked
        return error
    return None  # pragma: no cover - only a store that breaks the contract


async def _paused(store: Store, turn_id: int = 1, **changes: Any) -> InterruptedTurn:  # noqa: ANN401
    """Save a history ending in a turn that paused; return the turn."""
    paused = turn(turn_id, **changes)
    history = (*_history(2 * turn_id, paused.session), *paused.messages)
    await store.save(paused.session, history, paused)
    return attrs.evolve(paused, messages=history)


async def history_is_appended_and_read_from_any_point(store: Store) -> None:
    """Save appends only what is new; load_history reads from any message."""
    assert await store.load_history("s-1") is None
    await store.save("s-1", _history(2))
    await store.save("s-1", _history(5))
    assert await store.load_history("s-1") == _history(5)
    assert await store.load_history("s-1", 3) == _history(5)[3:]
    assert await store.load_history("s-1", 5) == ()
    assert await store.load_history("s-2") is None


async def a_turn_is_kept_at_its_place_in_the_history(store: Store) -> None:
    """A saved turn loads open, its messages being the history up to it."""
    paused = await _paused(store)
    stored = await store.load_turn("s-1")
    assert stored is not None
    assert (stored.state, stored.resume, stored.steps) == ("open", None, ())
    assert stored.history_len == len(paused.messages)
    history = await store.load_history("s-1")
    assert history is not None
    assert stored.with_history(history) == paused
    assert stored.turn.interrupts[1].accepts == Accepts(restart=DECISION_SCHEMA)


async def turns_load_latest_or_by_id(store: Store) -> None:
    """load_turn finds the latest, or one by id; None for what is not there."""
    for turn_id in (1, 2, 5):
        await _paused(store, turn_id)
    latest, second = await store.load_turn("s-1"), await store.load_turn("s-1", 2)
    assert latest is not None
    assert latest.turn.turn_id == 5
    assert second is not None
    assert second.turn.turn_id == 2
    assert await store.load_turn("s-1", 3) is None
    assert await store.load_turn("s-9") is None


async def turn_ids_only_grow(store: Store) -> None:
    """A turn id at or below the latest is refused, and nothing is written."""
    await _paused(store, 3)
    before = await store.load_history("s-1")
    for used in (1, 3):
        refused = await _raised(store.save("s-1", _history(20), turn(used)))
        assert isinstance(refused, TurnIdTaken), f"turn {used} after 3: {refused!r}"
        assert (refused.code, refused.session, refused.turn_id) == (
            "turn_id_taken",
            "s-1",
            used,
        )
    assert await store.load_history("s-1") == before
    await _paused(store, 4)


async def a_turn_is_consumed_once(store: Store) -> None:
    """The first consume wins; every later one loses; the state says so."""
    paused = await _paused(store)
    assert await store.consume(paused, RESUME, "alice")
    assert not await store.consume(paused, RESUME, "eve")
    stored = await store.load_turn("s-1")
    assert stored is not None
    assert (stored.state, stored.resume, stored.principal) == (
        "consumed",
        RESUME,
        "alice",
    )


async def concurrent_consumes_have_one_winner(store: Store) -> None:
    """Of twenty concurrent consumes of one turn, exactly one wins."""
    paused = await _paused(store)
    won = await asyncio.gather(
        *(store.consume(paused, RESUME, f"p{n}") for n in range(RACERS))
    )
    assert sorted(won) == [False] * (RACERS - 1) + [True]


async def consume_is_bound_to_the_turn(store: Store) -> None:
    """A turn with the same number but another creation time is not consumed."""
    paused = await _paused(store)
    other = attrs.evolve(paused, created_at=NOW + timedelta(seconds=1))
    assert not await store.consume(other, RESUME, None)
    assert not await store.consume(attrs.evolve(paused, turn_id=2), RESUME, None)
    assert await store.consume(paused, RESUME, None)


async def steps_are_recorded_in_order(store: Store) -> None:
    """Recorded steps come back in order with the consumed turn."""
    paused = await _paused(store)
    assert await store.consume(paused, RESUME, None)
    first = ToolResponse("transfer_money", "call-2", {"ok": True})
    said = Message.of_text(Role.MODEL, "done")
    await store.record("s-1", 1, (first,))
    await store.record("s-1", 1, (said, first))
    stored = await store.load_turn("s-1")
    assert stored is not None
    assert stored.steps == (first, said, first)


async def finish_completes_and_saves_what_followed(store: Store) -> None:
    """Finish completes the turn and keeps the history and the next turn."""
    paused = await _paused(store)
    assert await store.consume(paused, RESUME, None)
    await store.record("s-1", 1, (ToolResponse("x", "call-9", 1),))
    following = turn(2)
    history = (*paused.messages, *_history(3, "later"), *following.messages)
    assert await store.finish(paused, history, following)
    first = await store.load_turn("s-1", 1)
    assert first is not None
    assert (first.state, first.steps) == ("completed", ())
    latest = await store.load_turn("s-1")
    assert latest is not None
    assert (latest.turn.turn_id, latest.state, latest.history_len) == (
        2,
        "open",
        len(history),
    )
    assert await store.load_history("s-1") == history


async def finish_closes_an_open_turn_once(store: Store) -> None:
    """With close, finish consumes the open turn first, once, in one go."""
    paused = await _paused(store)
    closed = (*paused.messages, Message.of_text(Role.TOOL, "expired"))
    assert await store.finish(paused, closed, close=RESUME)
    assert not await store.finish(paused, (*closed, *closed), close=RESUME)
    assert not await store.consume(paused, RESUME, None)
    stored = await store.load_turn("s-1")
    assert stored is not None
    assert stored.state == "completed"
    assert await store.load_history("s-1") == closed


async def a_key_is_spent_once(store: Store) -> None:
    """Spend is True the first time only, also when twenty race."""
    assert await store.spend("k-1", NOW)
    assert not await store.spend("k-1", None)
    won = await asyncio.gather(*(store.spend("k-2", None) for _ in range(RACERS)))
    assert sorted(won) == [False] * (RACERS - 1) + [True]


async def keys_are_spent_all_or_none(store: Store) -> None:
    """A batch spends every key or none; racing batches sharing a key: one wins."""
    accepted = AuditEvent("s-1", 1, "accepted", NOW, principal="ana")
    assert await store.spend_all(("a", "b", "a"), None, (accepted,))
    assert await store.spent(("a", "b", "c")) == {"a", "b"}
    assert not await store.spend_all(("c", "b"), None, (accepted,))
    assert await store.spent(("c",)) == frozenset()  # nothing of a refused batch
    assert await store.audit("s-1") == (accepted,)  # its event neither
    assert not await store.spend("a", None)
    batches = [(f"x{n}", "shared") for n in range(RACERS)]
    won = await asyncio.gather(*(store.spend_all(keys, None) for keys in batches))
    assert sorted(won) == [False] * (RACERS - 1) + [True]
    winner = batches[won.index(True)]
    losers = {key for keys in batches for key in keys} - set(winner)
    assert await store.spent([*winner, *losers]) == set(winner)


async def expire_forgets_only_marks_past_their_time(store: Store) -> None:
    """Marks kept until a past moment go; later and endless ones stay; turns stay."""
    await _paused(store)
    assert await store.spend("old", NOW)
    assert await store.spend("live", NOW + timedelta(hours=1))
    assert await store.spend("forever", None)
    assert await store.expire(NOW - timedelta(seconds=1)) == 0
    assert await store.expire(NOW) == 1
    assert await store.spend("old", NOW)
    assert not await store.spend("live", None)
    assert not await store.spend("forever", None)
    assert await store.load_turn("s-1") is not None


async def a_record_is_kept_once(store: Store) -> None:
    """Keep is insert-once: a second keep raises and leaves the first record.

    Of twenty concurrent keeps under one key exactly one succeeds, and its
    record is what reads back; every other raises `InvalidArgument`.
    """
    assert await store.kept("run-1") is None
    await store.keep("run-1", b"first", None)
    again = await _raised(store.keep("run-1", b"second", None))
    assert isinstance(again, InvalidArgument), f"got {again!r}"
    assert again.code == "invalid_argument"
    assert again.where == "keep: key"
    assert await store.kept("run-1") == b"first"
    assert await store.kept("run-2") is None  # never another key's record
    outcomes = await asyncio.gather(
        *(store.keep("race", f"r{n}".encode(), None) for n in range(RACERS)),
        return_exceptions=True,
    )
    winners = [n for n, outcome in enumerate(outcomes) if outcome is None]
    assert len(winners) == 1, f"winners: {winners}"
    losers = [outcome for outcome in outcomes if outcome is not None]
    assert all(isinstance(error, InvalidArgument) for error in losers), losers
    assert await store.kept("race") == f"r{winners[0]}".encode()


async def kept_records_read_back_exactly(store: Store) -> None:
    """Any bytes up to MAX_RECORD_BYTES read back as kept; more is refused.

    Every byte value (NUL and bytes that are no UTF-8 included), the empty
    record (not None) and a 2 MiB record; an oversized record or one that
    is not bytes raises `InvalidArgument` and keeps nothing.
    """
    records = {
        "every-byte": bytes(range(256)) * 3,
        "empty": b"",
        "large": b"\x00\xff" * 1_048_576,
    }
    for key, record in records.items():
        await store.keep(key, record, None)
    for key, record in records.items():
        assert await store.kept(key) == record, key
    refused: tuple[tuple[str, object], ...] = (
        ("too-large", b"x" * (MAX_RECORD_BYTES + 1)),
        ("text", "not bytes"),
        ("buffer", bytearray(b"not bytes either")),
    )
    for key, wrong in refused:
        error = await _raised(store.keep(key, wrong, None))  # type: ignore[arg-type]
        assert isinstance(error, InvalidArgument), f"{key}: got {error!r}"
        assert error.where == "keep: record"
        assert await store.kept(key) is None


async def expire_forgets_only_records_past_their_time(store: Store) -> None:
    """Records kept until a past moment go, with spent marks; the rest stay.

    An expired record's key may be kept again.
    """
    await store.keep("old", b"1", NOW)
    await store.keep("live", b"2", NOW + timedelta(hours=1))
    await store.keep("forever", b"3", None)
    assert await store.spend("old-mark", NOW)
    assert await store.expire(NOW - timedelta(seconds=1)) == 0
    assert await store.expire(NOW) == 2  # one record, one mark
    assert await store.kept("old") is None
    assert await store.kept("live") == b"2"
    assert await store.kept("forever") == b"3"
    await store.keep("old", b"again", None)
    assert await store.kept("old") == b"again"


async def whatever_was_built_reads_back(store: Store) -> None:
    """JSON at the deepest a record accepts, and a large result, read back."""
    deep: JSON = 0
    for _ in range(MAX_DEPTH - 1):  # the question's input nests it once more
        deep = [deep]
    paused = await _paused(store, value=deep)
    stored = await store.load_turn("s-1")
    assert stored is not None
    history = await store.load_history("s-1")
    assert history is not None
    assert stored.with_history(history) == paused
    assert await store.consume(paused, RESUME, None)
    big = ToolResponse("lookup", "call-9", "x" * (2 * 1_048_576))
    said = Message(Role.MODEL, (ToolRequest("lookup", "call-3", deep),))
    await store.record("s-1", 1, (said, big))
    stored = await store.load_turn("s-1")
    assert stored is not None
    assert stored.steps == (said, big)


def _event(
    kind: AuditKind,
    turn_id: int = 1,
    session: str = "s-1",
    **fields: Any,  # noqa: ANN401
) -> AuditEvent:
    return AuditEvent(session, turn_id, kind, NOW, **fields)


async def events_join_the_trail_with_their_change(store: Store) -> None:
    """Events passed to save, consume and finish are kept, in order, with them.

    A consume or a close that loses writes no event.
    """
    assert await store.audit("s-1") == ()
    paused = turn(1)
    history = (*_history(2), *paused.messages)
    events = (
        _event("paused", pending=("call-1", "call-2")),
        _event("accepted", principal="alice", digest="d" * 64),
        _event("paused", 2),
        _event("cancelled", 2, principal="bob", reason="changed my mind"),
    )
    await store.save("s-1", history, paused, events=events[:1])
    assert await store.consume(paused, RESUME, "alice", events=events[1:2])
    assert not await store.consume(paused, RESUME, "eve", events=(_event("accepted"),))
    following = turn(2)
    assert await store.finish(paused, history, following, events=events[2:3])
    assert await store.finish(following, history, close=RESUME, events=events[3:])
    assert not await store.finish(
        following, history, close=RESUME, events=(_event("cancelled", 2),)
    )
    assert await store.audit("s-1") == events
    assert await store.audit("s-2") == ()


async def rejected_attempts_are_bounded_per_turn(store: Store) -> None:
    """At most MAX_REJECTED rejected events are kept per turn; others always."""
    rejected = _event("rejected", codes=("consumed",), principal="eve")
    kept = [await store.log(rejected) for _ in range(MAX_REJECTED + 5)]
    assert kept == [True] * MAX_REJECTED + [False] * 5
    assert await store.log(_event("rejected", 2))
    assert await store.log(_event("recovered"))
    trail = await store.audit("s-1")
    assert trail == (rejected,) * MAX_REJECTED + (
        _event("rejected", 2),
        _event("recovered"),
    )


async def sessions_are_listed_by_state(store: Store) -> None:
    """Sessions whose latest turn is open, or consumed and unfinished, are listed."""
    for session in ("s-b", "s-a", "s-c"):
        await _paused(store, session=session)
    done = await _paused(store, session="s-d")
    assert await store.finish(done, done.messages, close=RESUME)
    for session in ("s-b", "s-c"):
        claimed = await store.load_turn(session)
        assert claimed is not None
        assert await store.consume(claimed.turn, RESUME, None)
    assert await store.sessions("open") == ("s-a",)
    assert await store.sessions("consumed") == ("s-b", "s-c")
    last = await store.load_turn("s-c")
    assert last is not None
    assert await store.finish(last.turn, done.messages, turn(2, session="s-c"))
    assert await store.sessions("open") == ("s-a", "s-c")
    assert await store.sessions("consumed") == ("s-b",)


async def a_session_has_one_lease_holder(store: Store) -> None:
    """A lease has one holder; it renews; it is over when its time passes.

    Also when twenty race for it; leases of two sessions are apart; a
    release by anyone but the holder does nothing; renewing only extends
    the holder's own lease.
    """
    later = NOW + timedelta(minutes=5)
    assert await store.lease("s-1", "a", NOW, later)
    assert not await store.lease("s-1", "b", NOW, later)
    assert await store.lease("s-1", "a", NOW, later + timedelta(minutes=1))
    assert await store.lease("s-2", "b", NOW, later)
    assert not await store.lease("s-1", "b", later, later + timedelta(minutes=5))
    # a holder that crashed: its lease is over once its time passed
    moment = later + timedelta(minutes=1)
    assert await store.lease("s-1", "b", moment, moment + timedelta(minutes=5))
    await store.release("s-1", "a")  # not the holder any more: nothing
    assert not await store.lease("s-1", "c", moment, moment)
    assert not await store.lease("s-1", "a", moment, later, renew=True)
    assert await store.lease("s-1", "b", moment, later, renew=True)
    await store.release("s-1", "b")
    # renewing gets back no lease that another took (and released) meanwhile
    assert not await store.lease("s-1", "b", moment, later, renew=True)
    won = await asyncio.gather(
        *(
            store.lease("s-1", f"r{n}", moment, later + timedelta(hours=1))
            for n in range(RACERS)
        )
    )
    assert sorted(won) == [False] * (RACERS - 1) + [True]


async def arguments_no_database_holds_are_invalid(store: Store) -> None:
    """Ids with NUL, ids too long, turn ids beyond 64 bits: InvalidArgument.

    Raised before anything is read or written, by every call, and never a
    driver's own error.
    """
    paused = await _paused(store)
    nul, long, huge = "s\x001", "s" * (MAX_ID + 1), MAX_TURN_ID + 1
    calls: tuple[Callable[[], Coroutine[Any, Any, object]], ...] = (
        lambda: store.load_history(nul),
        lambda: store.load_history("s-1", huge),
        lambda: store.load_history("s-1", -1),
        lambda: store.save(long, _history(1)),
        lambda: store.save("s-1", _history(9), attrs.evolve(paused, turn_id=huge)),
        lambda: store.load_turn("s-1", huge),
        lambda: store.load_turn("s-1", 0),
        lambda: store.load_turn("\ud800"),
        lambda: store.consume(attrs.evolve(paused, turn_id=huge), RESUME, None),
        lambda: store.consume(paused, RESUME, "al\x00ice"),
        lambda: store.record("s-1", huge, ()),
        lambda: store.finish(paused, paused.messages, close=RESUME, principal=long),
        lambda: store.finish(attrs.evolve(paused, session=nul), paused.messages),
        lambda: store.log(_event("rejected", huge)),
        lambda: store.log(_event("paused", session=nul)),
        lambda: store.log(_event("forged\x00")),  # type: ignore[arg-type]
        lambda: store.save("s-1", _history(9), events=(_event("paused", session=nul),)),
        lambda: store.consume(paused, RESUME, None, events=(_event("accepted", huge),)),
        lambda: store.finish(paused, paused.messages, events=(_event("x"),)),  # type: ignore[arg-type]
        lambda: store.audit(nul),
        lambda: store.spend("k" * (MAX_KEY_BYTES + 1), None),
        lambda: store.spend("k\x00", None),
        lambda: store.spend_all(("ok", "k\x00"), None),
        lambda: store.spend_all("kk", None),
        lambda: store.spend_all(("ok",), None, (_event("accepted", session=nul),)),
        lambda: store.spent(("ok", "k" * (MAX_KEY_BYTES + 1))),
        lambda: store.keep("k\x00", b"", None),
        lambda: store.keep("k" * (MAX_KEY_BYTES + 1), b"", None),
        lambda: store.keep("", b"", None),
        lambda: store.kept("k\x00"),
        lambda: store.kept(""),
        lambda: store.lease(nul, "a", NOW, NOW),
        lambda: store.release("s-1", ""),
        lambda: store.sessions("open", after=nul),
        lambda: store.sessions("open", limit=0),
        lambda: store.sessions("open", limit=MAX_PAGE + 1),
        lambda: store.sessions("closed"),  # type: ignore[arg-type]
        lambda: store.sessions("open", now=datetime(2026, 11, 21)),  # noqa: DTZ001 - naive
    )
    for index, call in enumerate(calls):
        error = await _raised(call())
        assert isinstance(error, InvalidArgument), f"call {index}: got {error!r}"
        assert error.code == "invalid_argument"
        assert error.where
        assert error.expected
    assert await store.spent(("ok",)) == frozenset()  # a refused batch spent none
    assert await store.kept("k") is None
    stored = await store.load_turn("s-1")
    assert stored is not None
    assert stored.state == "open"
    assert await store.load_history("s-1") == paused.messages
    assert await store.audit("s-1") == ()


async def sessions_page_through_with_a_cursor(store: Store) -> None:
    """Listing returns at most *limit* ids after the cursor, in order, to the end."""
    names = [f"s-{n:02}" for n in range(7)]
    for name in reversed(names):
        await _paused(store, session=name)
    pages: list[tuple[str, ...]] = []
    after: str | None = None
    while True:
        page = await store.sessions("open", now=NOW, after=after, limit=3)
        pages.append(page)
        if len(page) < 3:
            break
        after = page[-1]
    assert pages == [tuple(names[:3]), tuple(names[3:6]), tuple(names[6:])]
    assert await store.sessions("open", now=NOW, after="s-05") == ("s-06",)
    assert await store.sessions("open", now=NOW, after="s-99") == ()


async def sessions_sort_by_code_point(store: Store) -> None:
    """Ids sort by code point, as Python sorts them, whatever a database's locale."""
    names = ["a", "B", "_", "\u00e9", "Z", "a b", "ab"]
    for name in names:
        await _paused(store, session=name)
    expected = tuple(sorted(names))
    assert await store.sessions("open", now=NOW) == expected
    first = await store.sessions("open", now=NOW, limit=3)
    rest = await store.sessions("open", now=NOW, after=first[-1])
    assert first + rest == expected


async def expired_turns_are_listed_apart_from_open_ones(store: Store) -> None:
    """An open turn nobody can answer at *now* is listed expired, not open."""
    soon = NOW + timedelta(minutes=5)
    for name, closes in (("s-a", soon), ("s-b", None), ("s-c", NOW)):
        paused = attrs.evolve(turn(session=name), expires_at=closes)
        await store.save(name, (*_history(2, name), *paused.messages), paused)
    assert await store.sessions("open", now=NOW) == ("s-a", "s-b")
    assert await store.sessions("expired", now=NOW) == ("s-c",)
    assert await store.sessions("open", now=soon) == ("s-b",)
    assert await store.sessions("expired", now=soon) == ("s-a", "s-c")
    assert await store.sessions("consumed", now=soon) == ()


async def a_turn_never_kept_is_no_error(store: Store) -> None:
    """Recording for, or finishing, a turn the store never kept raises nothing.

    The history is appended as for any finish; no turn appears.
    """
    ghost = turn(4)
    await store.record("s-1", 4, (ToolResponse("lookup", "call-0", 1),))
    assert await store.finish(ghost, _history(3))
    assert await store.load_turn("s-1") is None
    assert await store.load_history("s-1") == _history(3)
    assert not await store.finish(ghost, _history(4), close=RESUME)


CONTRACT: Final[tuple[Check, ...]] = (
    history_is_appended_and_read_from_any_point,
    a_turn_is_kept_at_its_place_in_the_history,
    turns_load_latest_or_by_id,
    turn_ids_only_grow,
    a_turn_is_consumed_once,
    concurrent_consumes_have_one_winner,
    consume_is_bound_to_the_turn,
    steps_are_recorded_in_order,
    finish_completes_and_saves_what_followed,
    finish_closes_an_open_turn_once,
    a_key_is_spent_once,
    keys_are_spent_all_or_none,
    expire_forgets_only_marks_past_their_time,
    a_record_is_kept_once,
    kept_records_read_back_exactly,
    expire_forgets_only_records_past_their_time,
    whatever_was_built_reads_back,
    events_join_the_trail_with_their_change,
    rejected_attempts_are_bounded_per_turn,
    sessions_are_listed_by_state,
    a_session_has_one_lease_holder,
    arguments_no_database_holds_are_invalid,
    sessions_page_through_with_a_cursor,
    expired_turns_are_listed_apart_from_open_ones,
    a_turn_never_kept_is_no_error,
    sessions_sort_by_code_point,
)
"""Every check a store must pass, each against a fresh, empty store."""
