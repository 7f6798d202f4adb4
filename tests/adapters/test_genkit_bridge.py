"""The Genkit adapter's bridge, against a real Genkit app on a scripted model."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import attrs
import pytest
from genkit import ModelResponse, Part
from interruption import (
    ApprovalPending,
    Bridge,
    Custom,
    PendingInterrupt,
    ProblemCode,
    ResolvedResume,
    Respond,
    Resume,
    ResumePolicy,
    ResumeRejected,
    pending_everywhere,
)
from interruption.adapters.genkit import RESUMED_SCHEMA, bridge
from interruption.resume import APPROVAL_ONLY

from tests.adapters.test_genkit import TRANSFER, Setup, paused_on, question, transfer

T = TypeVar("T")


def drive(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run *coroutine* on a fresh loop."""
    return asyncio.run(coroutine)


def alice_only(principal: str | None, _pending: PendingInterrupt) -> bool:
    """The authorizer: only alice may answer."""
    return principal == "alice"


@attrs.define
class Bridged:
    """A paused setup and the bridge over it, listing its one turn."""

    setup: Setup
    bridge: Bridge
    turns: list[str]
    continued: list[tuple[str, ModelResponse[object]]]

    @property
    def scope(self) -> str:
        """The paused turn's id."""
        return self.setup.paused.id

    @property
    def pending(self) -> PendingInterrupt:
        """The paused turn's one interrupt."""
        (pending,) = self.setup.paused.interrupts
        return pending

    def listed(self, principal: str | None = "alice") -> list[tuple[str, str]]:
        """(scope, interrupt id) of every pause the bridge lists."""
        pauses = drive(self.bridge.pending(principal=principal))
        return [(p.scope, i.id) for p in pauses for i in p.interrupts]

    def answer(self, answer: Resume, principal: str | None = "alice") -> ResolvedResume:
        """Answer the turn through the bridge."""
        return drive(self.bridge.answer(self.scope, answer, principal=principal))

    def refused(self, answer: Resume, principal: str | None = "alice") -> list[str]:
        """Answer through the bridge, expecting a refusal; its problem codes."""
        with pytest.raises(ResumeRejected) as refused:
            self.answer(answer, principal)
        return [code.value for code in refused.value.codes]

    def kinds(self, principal: str | None = "alice") -> list[str]:
        """The kinds of the turn's audit trail, through the bridge."""
        trail = drive(self.bridge.audit(self.scope, principal=principal))
        return [event.kind for event in trail]


def bridged(*batches: list[Part]) -> Bridged:
    """An app paused on its first batch, and a bridge that lists its turn."""
    setup = paused_on(*batches)
    turns = [setup.paused.id]
    continued: list[tuple[str, ModelResponse[object]]] = []

    def record(scope: str, response: ModelResponse[object]) -> None:
        continued.append((scope, response))

    door = bridge(
        setup.app.ai,
        setup.store,
        lambda: turns,
        policy=ResumePolicy(authorize=alice_only),
        continued=record,
        model="scripted",
        tools=setup.app.tools,
    )
    return Bridged(setup, door, turns, continued)


class TestPending:
    def test_a_paused_turn_is_listed_with_its_kind_and_accepts(self) -> None:
        """A turn paused by Genkit is listed at its id, as load_paused shows it."""
        case = bridged([transfer()])
        assert isinstance(case.bridge, Bridge)
        assert case.bridge.door == "genkit"
        (pause,) = drive(case.bridge.pending(principal="alice"))
        assert (pause.door, pause.scope) == ("genkit", case.scope)
        assert pause.interrupts == case.setup.paused.interrupts
        (pending,) = pause.interrupts
        assert pending.kind == ApprovalPending("t1")
        assert pending.accepts == APPROVAL_ONLY
        everywhere = drive(pending_everywhere([case.bridge], principal="alice"))
        assert everywhere == [pause]

    def test_a_question_accepts_its_answer_or_a_restart(self) -> None:
        """A Custom interrupt is listed with its tool's answer schema and restart."""
        case = bridged([question()])
        (pause,) = drive(case.bridge.pending(principal="alice"))
        (pending,) = pause.interrupts
        assert pending.kind == Custom()
        assert pending.accepts.restart == RESUMED_SCHEMA

    def test_a_pause_is_dated_when_first_met(self) -> None:
        """created_at is the paused event's time, the same on every listing."""
        before = datetime.now(UTC)
        case = bridged([transfer()])
        (first,) = drive(case.bridge.pending(principal="alice"))
        (again,) = drive(case.bridge.pending(principal="alice"))
        assert before - timedelta(seconds=1) <= first.created_at <= datetime.now(UTC)
        assert again.created_at == first.created_at

    def test_pauses_come_newest_first(self) -> None:
        """Two kept turns are listed newest first; a forgotten id is skipped."""
        case = bridged([transfer()])
        case.listed()  # met first: older
        later = paused_on([question()])
        key = "genkit:" + later.paused.id  # kept beside the first turn
        record = drive(later.store.kept(key))
        assert record is not None
        drive(case.setup.store.keep(key, record, None))
        case.turns[:] = [case.scope, "forgotten", later.paused.id]
        scopes = [p.scope for p in drive(case.bridge.pending(principal="alice"))]
        assert scopes == [later.paused.id, case.scope]

    def test_a_turn_listed_twice_is_shown_once(self) -> None:
        """An id the application lists twice is one pause, not two."""
        case = bridged([transfer()])
        case.turns[:] = [case.scope, case.scope]
        scopes = [p.scope for p in drive(case.bridge.pending(principal="alice"))]
        assert scopes == [case.scope]

    def test_an_async_listing_is_awaited(self) -> None:
        """The application's turn ids may come from an async callable."""
        setup = paused_on([transfer()])

        async def turns() -> list[str]:
            return [setup.paused.id]

        door = bridge(setup.app.ai, setup.store, turns)
        (pause,) = drive(door.pending())
        assert pause.scope == setup.paused.id


class TestAnswer:
    def test_an_approval_runs_the_call_once(self) -> None:
        """The bridge accepts a valid approval once; the tool runs once, as paused."""
        case = bridged([transfer()])
        approve = case.pending.approve()
        resolved = case.answer(Resume(restart=[approve]))
        assert [(a.interrupt.id, a.entry) for a in resolved.answers] == [
            ("t1", approve)
        ]
        assert case.setup.app.transfers == [TRANSFER]
        ((scope, response),) = case.continued
        assert scope == case.scope
        assert response.text == "done"

    def test_a_second_answer_through_either_door_is_consumed(self) -> None:
        """After the bridge answers, the bridge and resume both refuse consumed."""
        case = bridged([transfer()])
        approve = Resume(restart=[case.pending.approve()])
        case.answer(approve)
        assert case.refused(approve) == ["consumed"]
        with pytest.raises(ResumeRejected) as refused:
            case.setup.resume(approve)
        assert refused.value.codes == (ProblemCode.CONSUMED,)
        assert case.setup.app.transfers == [TRANSFER]

    def test_the_bridge_refuses_what_resume_answered(self) -> None:
        """After the adapter's own resume, the bridge refuses consumed."""
        case = bridged([transfer()])
        approve = Resume(restart=[case.pending.approve()])
        case.setup.resume(approve)
        assert case.refused(approve) == ["consumed"]
        assert case.setup.app.transfers == [TRANSFER]
        assert case.listed() == []

    def test_an_invalid_answer_spends_nothing(self) -> None:
        """A result sent to an approval is answer_not_accepted; it stays listed."""
        case = bridged([transfer()])
        wrong = Resume(respond=[Respond(case.pending.name, case.pending.ref, "yes")])
        assert case.refused(wrong) == ["answer_not_accepted"]
        assert case.listed() == [(case.scope, "t1")]
        assert case.setup.app.transfers == []
        assert case.continued == []

    def test_an_unlisted_turn_is_unknown(self) -> None:
        """No turn kept at a scope: unknown_interrupt, or not_authorized to all.

        With an authorizer there is nothing to ask it about, so every
        principal, alice included, is refused not_authorized (as `refuse`).
        """
        case = bridged([transfer()])
        for who in ("alice", "mallory"):
            with pytest.raises(ResumeRejected) as refused:
                drive(case.bridge.answer("nope", Resume(), principal=who))
            assert refused.value.codes == (ProblemCode.NOT_AUTHORIZED,)
        setup = case.setup
        door = bridge(
            setup.app.ai,
            setup.store,
            lambda: [setup.paused.id],
            model="scripted",
            tools=setup.app.tools,
        )
        with pytest.raises(ResumeRejected) as refused:
            drive(door.answer("nope", Resume(), principal="alice"))
        assert refused.value.codes == (ProblemCode.UNKNOWN_INTERRUPT,)

    def test_without_a_callback_the_turn_goes_on(self) -> None:
        """With no continued callback, the answer still runs the tool once."""
        setup = paused_on([transfer()])
        door = bridge(
            setup.app.ai,
            setup.store,
            lambda: [setup.paused.id],
            model="scripted",
            tools=setup.app.tools,
        )
        (pending,) = setup.paused.interrupts
        drive(door.answer(setup.paused.id, Resume(restart=[pending.approve()])))
        assert setup.app.transfers == [TRANSFER]


class TestPrincipals:
    def test_a_refused_principal_sees_and_answers_nothing(self) -> None:
        """Mallory lists nothing, reads no trail and is not_authorized."""
        case = bridged([transfer()])
        assert case.listed("mallory") == []
        assert case.kinds("mallory") == []
        approve = Resume(restart=[case.pending.approve()])
        assert case.refused(approve, "mallory") == ["not_authorized"]
        assert case.setup.app.transfers == []
        assert case.listed() == [(case.scope, "t1")]

    @pytest.mark.parametrize("scope", ["nope", "", "n\x00ul", "x" * 3000])
    def test_a_refused_principal_learns_nothing_of_what_is_kept(
        self, scope: str
    ) -> None:
        """A turn kept or not: mallory is not_authorized through either door."""
        case = bridged([transfer()])
        approve = Resume(restart=[case.pending.approve()])
        setup = case.setup
        mallory = ResumePolicy(authorize=alice_only, principal="mallory")
        for named in (case.scope, scope):
            assert case.refused(approve, "mallory") == ["not_authorized"]
            with pytest.raises(ResumeRejected) as refused:
                drive(case.bridge.answer(named, approve, principal="mallory"))
            assert refused.value.codes == (ProblemCode.NOT_AUTHORIZED,)
            with pytest.raises(ResumeRejected) as refused:
                drive(setup.app.resume(named, approve, setup.store, mallory))
            assert refused.value.codes == (ProblemCode.NOT_AUTHORIZED,)
        assert setup.app.transfers == []
        assert case.listed() == [(case.scope, "t1")]

    def test_an_unknown_turn_is_refused_and_nothing_filed(self) -> None:
        """Each door refuses a turn never kept under that id, and files nothing."""
        case = bridged([transfer()])
        approve = Resume(restart=[case.pending.approve()])
        setup = case.setup
        mallory = ResumePolicy(authorize=alice_only, principal="mallory")
        with pytest.raises(ResumeRejected):
            drive(case.bridge.answer("nope", approve, principal="alice"))
        with pytest.raises(ResumeRejected):
            drive(setup.app.resume("nope", approve, setup.store, mallory))
        assert drive(setup.store.audit("nope")) == ()  # a client's guess writes no row


class TestPause:
    def test_one_scope_is_what_the_listing_shows(self) -> None:
        """pause(scope) is the listing's pause there; None once answered."""
        case = bridged([transfer()])
        (listed,) = drive(case.bridge.pending(principal="alice"))
        assert drive(case.bridge.pause(case.scope, principal="alice")) == listed
        case.answer(Resume(restart=[case.pending.approve()]))
        assert drive(case.bridge.pause(case.scope, principal="alice")) is None

    def test_nothing_is_shown_to_a_refused_principal_or_at_no_turn(self) -> None:
        """None for mallory (nothing filed) and for a scope with no turn kept."""
        case = bridged([transfer()])
        assert drive(case.bridge.pause(case.scope, principal="mallory")) is None
        assert drive(case.setup.store.audit(case.scope)) == ()
        assert drive(case.bridge.pause("nope", principal="alice")) is None
        assert drive(case.bridge.pause(case.scope, principal="alice")) is not None
        assert case.kinds() == ["paused"]


class TestAudit:
    def test_the_trail_shows_paused_rejected_and_accepted(self) -> None:
        """The bridge's trail has the pause, a refused attempt and the answer."""
        case = bridged([transfer()])
        case.listed()
        wrong = Resume(respond=[Respond(case.pending.name, case.pending.ref, "yes")])
        case.refused(wrong)
        case.answer(Resume(restart=[case.pending.approve()]))
        assert case.kinds() == ["paused", "rejected", "accepted"]

    def test_an_unlisted_scope_has_no_trail(self) -> None:
        """The trail of a scope the store holds no turn under is empty."""
        case = bridged([transfer()])
        assert drive(case.bridge.audit("nope", principal="alice")) == ()

    def test_an_answered_turn_is_no_longer_listed(self) -> None:
        """Once answered, the turn's pause is not listed, though its trail stays."""
        case = bridged([transfer()])
        assert case.listed() == [(case.scope, "t1")]
        case.answer(Resume(restart=[case.pending.approve()]))
        assert case.listed() == []
        assert case.kinds() == ["paused", "accepted"]
