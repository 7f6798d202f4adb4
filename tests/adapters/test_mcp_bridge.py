"""The MCP client bridge: memory holds only waiting forms; one form's pause."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta
from typing import Final

import mcp_types
import pytest
from interruption import (
    ArgumentTypeError,
    InvalidArgument,
    MemoryStore,
    PendingInterrupt,
    PendingPause,
    ProblemCode,
    Resume,
    ResumePolicy,
    ResumeRejected,
)
from interruption.adapters.mcp import DEFAULT_TTL, ElicitationBridge, bridge, form_of
from interruption.validation import Authorize

from tests.adapters.test_mcp import NO_CONTEXT, YES_NO
from tests.sessions import NOW, Clock

FORM: Final = mcp_types.ElicitRequestFormParams(
    message="Pay?", requested_schema=form_of(YES_NO)
)


def bob_only(principal: str | None, _pending: PendingInterrupt) -> bool:
    """The authorizer: only bob may see and answer a form."""
    return principal == "bob"


async def waiting(door: ElicitationBridge, count: int) -> list[PendingPause]:
    """The forms listed to bob once *count* of them wait."""
    for _ in range(400):
        pauses = await door.pending(principal="bob")
        if len(pauses) == count:
            return pauses
        await asyncio.sleep(0.005)
    msg = f"{count} forms never waited at once"
    raise AssertionError(msg)


def yes(pause: PendingPause) -> Resume:
    """Answer *pause*'s form "Yes"."""
    return Resume(respond=[pause.interrupts[0].respond("Yes")])


def codes(rejected: pytest.ExceptionInfo[ResumeRejected]) -> tuple[ProblemCode, ...]:
    """The problem codes of a refusal."""
    return rejected.value.codes


class TestMemory:
    def test_only_waiting_forms_are_held(self) -> None:
        """Answered, dismissed, cancelled or timed out: each form leaves memory."""
        door = bridge(authorize=bob_only)

        async def run() -> None:
            calls = [
                asyncio.ensure_future(door.callback(NO_CONTEXT, FORM))
                for _ in range(40)
            ]
            timed = asyncio.ensure_future(
                asyncio.wait_for(door.callback(NO_CONTEXT, FORM), 0.2)
            )
            pauses = await waiting(door, 41)
            assert len(door._asked) == 41
            for index, pause in enumerate(pauses[:30]):
                if index % 2:
                    await door.answer(pause.scope, yes(pause), principal="bob")
                else:
                    await door.dismiss(pause.scope, "decline", principal="bob")
            for call in calls:
                if not call.done():
                    call.cancel()
            await asyncio.gather(*calls, timed, return_exceptions=True)
            assert timed.done()
            assert door._asked == {}
            assert await door.pending(principal="bob") == []

        asyncio.run(run())

    def test_an_answered_form_is_still_consumed_once_forgotten(self) -> None:
        """After its call ended, a replay is consumed and the trail still read."""
        door = bridge(authorize=bob_only)

        async def run() -> PendingPause:
            asked = asyncio.ensure_future(door.callback(NO_CONTEXT, FORM))
            (pause,) = await waiting(door, 1)
            await door.answer(pause.scope, yes(pause), principal="bob")
            sent = await asked
            assert isinstance(sent, mcp_types.ElicitResult)
            assert sent.content == {"answer": "Yes"}
            assert door._asked == {}
            return pause

        pause = asyncio.run(run())
        for who, code in [("bob", "consumed"), ("eve", "not_authorized")]:
            with pytest.raises(ResumeRejected) as refused:
                asyncio.run(door.answer(pause.scope, yes(pause), principal=who))
            assert codes(refused) == (ProblemCode(code),)
        with pytest.raises(ResumeRejected) as refused:
            asyncio.run(door.dismiss(pause.scope, "cancel", principal="bob"))
        assert codes(refused) == (ProblemCode.CONSUMED,)
        trail = asyncio.run(door.audit(pause.scope, principal="bob"))
        assert [(e.kind, e.principal) for e in trail] == [
            ("paused", None),
            ("accepted", "bob"),
            ("rejected", "bob"),
            ("rejected", "eve"),
            ("rejected", "bob"),
        ]
        assert asyncio.run(door.audit(pause.scope, principal="eve")) == ()

    def test_a_form_whose_call_ended_unanswered_is_forgotten(self) -> None:
        """Cancelled unanswered: bob gets nothing_pending, eve not_authorized."""
        door = bridge(authorize=bob_only)

        async def run() -> PendingPause:
            asked = asyncio.ensure_future(door.callback(NO_CONTEXT, FORM))
            (pause,) = await waiting(door, 1)
            asked.cancel()
            with pytest.raises(asyncio.CancelledError):
                await asked
            assert door._asked == {}
            return pause

        pause = asyncio.run(run())
        for who, code in [("bob", "nothing_pending"), ("eve", "not_authorized")]:
            with pytest.raises(ResumeRejected) as refused:
                asyncio.run(door.answer(pause.scope, yes(pause), principal=who))
            assert codes(refused) == (ProblemCode(code),)
        assert asyncio.run(door.pause(pause.scope, principal="bob")) is None

    def test_a_scope_never_filed_has_no_form(self) -> None:
        """A scope of another shape, or a fresh uuid, reads no form: no trail."""
        store = MemoryStore()
        door = bridge(store, authorize=bob_only)
        for scope in ("nope", uuid.uuid4().hex, uuid.uuid4().hex.upper()):
            assert asyncio.run(door.audit(scope, principal="bob")) == ()
            assert asyncio.run(door.pause(scope, principal="bob")) is None

    @pytest.mark.parametrize(
        ("authorize", "code"),
        [(None, ProblemCode.NOTHING_PENDING), (bob_only, ProblemCode.NOT_AUTHORIZED)],
    )
    def test_an_answer_to_a_scope_never_filed_writes_no_row(
        self, authorize: Authorize | None, code: ProblemCode
    ) -> None:
        """Answers naming scopes at will are refused and file nothing."""
        store = MemoryStore()
        door = bridge(store, authorize=authorize)
        scopes = [uuid.uuid4().hex for _ in range(20)]
        for scope in scopes:
            with pytest.raises(ResumeRejected) as refused:
                asyncio.run(door.answer(scope, Resume(), principal="bob"))
            assert codes(refused) == (code,)
        for scope in scopes:
            assert asyncio.run(store.audit(scope)) == ()


class TestPause:
    def test_one_form_is_what_the_listing_shows(self) -> None:
        """pause(scope) is the listing's form while it waits; eve sees None."""
        door = bridge(authorize=bob_only)

        async def run() -> None:
            asked = asyncio.ensure_future(door.callback(NO_CONTEXT, FORM))
            (pause,) = await waiting(door, 1)
            assert await door.pause(pause.scope, principal="bob") == pause
            assert await door.pause(pause.scope, principal="eve") is None
            await door.answer(pause.scope, yes(pause), principal="bob")
            assert await door.pause(pause.scope, principal="bob") is None
            await asked

        asyncio.run(run())


KEPT: Final = DEFAULT_TTL + timedelta(minutes=1)
"""How long a request's rows outlive its arrival: its ttl, and a minute."""


def clocked(
    store: MemoryStore, clock: Clock, ttl: timedelta | None = DEFAULT_TTL
) -> ElicitationBridge:
    """A bridge over *store*, on *clock*, that lets only bob answer."""
    return bridge(store, policy=ResumePolicy(now=clock, authorize=bob_only), ttl=ttl)


async def answered(door: ElicitationBridge) -> PendingPause:
    """One form reaches *door*, is answered "Yes" by bob, and its call ends."""
    asked = asyncio.ensure_future(door.callback(NO_CONTEXT, FORM))
    (pause,) = await waiting(door, 1)
    await door.answer(pause.scope, yes(pause), principal="bob")
    await asked
    return pause


class TestKeptForms:
    def test_a_request_expires_after_the_ttl(self) -> None:
        """Past its expires_at a form is unlisted; an answer or dismissal is expired."""
        clock = Clock()
        door = clocked(MemoryStore(), clock)

        async def run() -> None:
            asked = asyncio.ensure_future(door.callback(NO_CONTEXT, FORM))
            (pause,) = await waiting(door, 1)
            assert pause.interrupts[0].expires_at == NOW + DEFAULT_TTL
            clock.advance(DEFAULT_TTL)
            assert await door.pending(principal="bob") == []
            assert await door.pause(pause.scope, principal="bob") is None
            with pytest.raises(ResumeRejected) as refused:
                await door.answer(pause.scope, yes(pause), principal="bob")
            assert codes(refused) == (ProblemCode.EXPIRED,)
            with pytest.raises(ResumeRejected) as refused:
                await door.dismiss(pause.scope, "decline", principal="bob")
            assert codes(refused) == (ProblemCode.EXPIRED,)
            assert not asked.done()  # nothing was sent
            asked.cancel()
            await asyncio.gather(asked, return_exceptions=True)

        asyncio.run(run())

    def test_what_a_request_leaves_is_forgotten_a_minute_past_its_expiry(
        self,
    ) -> None:
        """Form, paused and spent marks: kept while a replay is consumed, then gone."""
        clock, store = Clock(), MemoryStore()
        door = clocked(store, clock)
        pause = asyncio.run(answered(door))
        assert asyncio.run(store.expire(NOW + KEPT - timedelta(seconds=1))) == 0
        with pytest.raises(ResumeRejected) as refused:
            asyncio.run(door.answer(pause.scope, yes(pause), principal="bob"))
        assert codes(refused) == (ProblemCode.CONSUMED,)
        assert asyncio.run(store.expire(NOW + KEPT)) == 3  # form, paused, spent
        assert asyncio.run(door.audit(pause.scope, principal="bob")) == ()
        with pytest.raises(ResumeRejected) as refused:
            asyncio.run(door.answer(pause.scope, yes(pause), principal="bob"))
        assert codes(refused) == (ProblemCode.NOT_AUTHORIZED,)

    def test_a_ttl_of_none_never_expires_and_keeps_for_ever(self) -> None:
        """No ttl: no expiry on the form, and nothing it leaves is forgotten."""
        clock, store = Clock(), MemoryStore()
        door = clocked(store, clock, ttl=None)
        pause = asyncio.run(answered(door))
        assert pause.interrupts[0].expires_at is None
        assert asyncio.run(store.expire(datetime(9999, 1, 1, tzinfo=UTC))) == 0
        with pytest.raises(ResumeRejected) as refused:
            asyncio.run(door.answer(pause.scope, yes(pause), principal="bob"))
        assert codes(refused) == (ProblemCode.CONSUMED,)

    def test_a_dismissal_is_kept_as_long(self) -> None:
        """A declined form's spent mark goes with its form, a minute past expiry."""
        clock, store = Clock(), MemoryStore()
        door = clocked(store, clock)

        async def run() -> PendingPause:
            asked = asyncio.ensure_future(door.callback(NO_CONTEXT, FORM))
            (pause,) = await waiting(door, 1)
            await door.dismiss(pause.scope, "decline", principal="bob")
            await asked
            return pause

        pause = asyncio.run(run())
        assert asyncio.run(store.expire(NOW + KEPT - timedelta(seconds=1))) == 0
        assert asyncio.run(store.expire(NOW + KEPT)) == 3
        assert asyncio.run(door.audit(pause.scope, principal="bob")) == ()

    @pytest.mark.parametrize(
        ("ttl", "error"),
        [
            (600, ArgumentTypeError),
            ("600s", ArgumentTypeError),
            (timedelta(0), InvalidArgument),
            (timedelta(seconds=-1), InvalidArgument),
        ],
    )
    def test_a_ttl_is_a_positive_timedelta(
        self, ttl: object, error: type[InvalidArgument]
    ) -> None:
        """Anything else is refused when the bridge is made, naming the ttl."""
        with pytest.raises(error, match="bridge: ttl"):
            bridge(ttl=ttl)  # type: ignore[arg-type]
