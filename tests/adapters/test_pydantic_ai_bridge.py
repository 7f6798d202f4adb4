"""The pydantic-ai adapter's bridge, against real agents on scripted FunctionModels."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta

import attrs
import pytest
from interruption import (
    ApprovalPending,
    Bridge,
    PendingInterrupt,
    ProblemCode,
    ResolvedResume,
    Respond,
    Resume,
    ResumePolicy,
    ResumeRejected,
    pending_everywhere,
)
from interruption.adapters.pydantic_ai import bridge, resume_sync
from interruption.runtime.approval import DECISION_SCHEMA
from pydantic_ai.messages import ToolCallPart
from pydantic_ai.run import AgentRunResult
from pydantic_graph._utils import get_event_loop

from tests.adapters.test_pydantic_ai import (
    TRANSFER,
    Output,
    Setup,
    drive,
    paused_on,
    question,
    transfer,
)


@pytest.fixture(autouse=True)
def _close_the_loop() -> Iterator[None]:
    """Close the loop ``agent.run_sync`` left on the thread, after each test."""
    yield
    get_event_loop().close()
    asyncio.set_event_loop(None)


def alice_only(principal: str | None, _pending: PendingInterrupt) -> bool:
    """The authorizer: only alice may answer."""
    return principal == "alice"


@attrs.define
class Bridged:
    """A paused setup and the bridge over it, listing its one run."""

    setup: Setup
    bridge: Bridge
    runs: list[str]
    continued: list[tuple[str, AgentRunResult[Output]]]

    @property
    def pending(self) -> PendingInterrupt:
        """The paused run's one interrupt."""
        (pending,) = self.setup.paused.interrupts
        return pending

    def listed(self, principal: str | None = "alice") -> list[tuple[str, str]]:
        """(scope, interrupt id) of every pause the bridge lists."""
        pauses = drive(self.bridge.pending(principal=principal))
        return [(p.scope, i.id) for p in pauses for i in p.interrupts]

    def answer(self, answer: Resume, principal: str | None = "alice") -> ResolvedResume:
        """Answer the run through the bridge."""
        scope = self.setup.paused.id
        return drive(self.bridge.answer(scope, answer, principal=principal))

    def refused(self, answer: Resume, principal: str | None = "alice") -> list[str]:
        """Answer through the bridge, expecting a refusal; its problem codes."""
        with pytest.raises(ResumeRejected) as refused:
            self.answer(answer, principal)
        return [code.value for code in refused.value.codes]

    def kinds(self, principal: str | None = "alice") -> list[str]:
        """The kinds of the run's audit trail, through the bridge."""
        scope = self.setup.paused.id
        return [e.kind for e in drive(self.bridge.audit(scope, principal=principal))]


def bridged(*batches: Sequence[ToolCallPart]) -> Bridged:
    """A world paused on its first batch, and a bridge that lists its run."""
    setup = paused_on(*batches)
    runs = [setup.paused.id]
    continued: list[tuple[str, AgentRunResult[Output]]] = []

    async def record(scope: str, result: AgentRunResult[Output]) -> None:
        continued.append((scope, result))

    door = bridge(
        setup.agent,
        setup.store,
        lambda: runs,
        policy=ResumePolicy(authorize=alice_only),
        continued=record,
    )
    return Bridged(setup, door, runs, continued)


class TestPending:
    def test_a_paused_run_is_listed_with_its_kind_and_accepts(self) -> None:
        """A run paused by pydantic-ai is listed at its id, as load_paused shows it."""
        case = bridged([transfer()])
        assert isinstance(case.bridge, Bridge)
        assert case.bridge.door == "pydantic_ai"
        (pause,) = drive(case.bridge.pending(principal="alice"))
        assert pause.door == "pydantic_ai"
        assert pause.scope == case.setup.paused.id
        assert pause.interrupts == case.setup.paused.interrupts
        (pending,) = pause.interrupts
        assert pending.kind == ApprovalPending("t1")
        assert pending.accepts.restart == DECISION_SCHEMA
        everywhere = drive(pending_everywhere([case.bridge], principal="alice"))
        assert everywhere == [pause]

    def test_a_pause_is_dated_by_the_models_response(self) -> None:
        """created_at is when the model asked for the deferred call."""
        before = datetime.now(UTC)
        case = bridged([transfer()])
        (pause,) = drive(case.bridge.pending(principal="alice"))
        assert before - timedelta(seconds=1) <= pause.created_at <= datetime.now(UTC)

    def test_pauses_come_newest_first(self) -> None:
        """Two kept runs are listed newest first; a forgotten id is skipped."""
        case = bridged([transfer()])
        later = paused_on([question()], store=case.setup.store)
        case.runs[:] = [case.setup.paused.id, "forgotten", later.paused.id]
        scopes = [p.scope for p in drive(case.bridge.pending(principal="alice"))]
        assert scopes == [later.paused.id, case.setup.paused.id]

    def test_an_async_listing_is_awaited(self) -> None:
        """The application's run ids may come from an async callable."""
        setup = paused_on([transfer()])

        async def runs() -> list[str]:
            return [setup.paused.id]

        door = bridge(setup.agent, setup.store, runs)
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
        assert case.setup.world.transfers == [TRANSFER]
        ((scope, result),) = case.continued
        assert scope == case.setup.paused.id
        assert result.output == "done"

    def test_a_second_answer_through_either_door_is_consumed(self) -> None:
        """After the bridge answers, the bridge and resume both refuse consumed."""
        case = bridged([transfer()])
        approve = Resume(restart=[case.pending.approve()])
        case.answer(approve)
        assert case.refused(approve) == ["consumed"]
        assert case.setup.refused(approve) == ("consumed",)
        assert case.setup.world.transfers == [TRANSFER]

    def test_the_bridge_refuses_what_resume_answered(self) -> None:
        """After the adapter's own resume, the bridge refuses consumed."""
        case = bridged([transfer()])
        approve = Resume(restart=[case.pending.approve()])
        case.setup.resume(approve)
        assert case.refused(approve) == ["consumed"]
        assert case.setup.world.transfers == [TRANSFER]
        assert case.listed() == []

    def test_an_invalid_answer_spends_nothing(self) -> None:
        """A result sent to an approval is answer_not_accepted; it stays listed."""
        case = bridged([transfer()])
        wrong = Resume(respond=[Respond(case.pending.name, case.pending.ref, "yes")])
        assert case.refused(wrong) == ["answer_not_accepted"]
        assert case.listed() == [(case.setup.paused.id, "t1")]
        assert case.setup.world.transfers == []
        assert case.continued == []

    def test_an_unlisted_run_is_unknown(self) -> None:
        """No run kept at a scope: unknown_interrupt, or not_authorized to all.

        With an authorizer there is nothing to ask it about, so every
        principal, alice included, is refused not_authorized (as `refuse`).
        """
        case = bridged([transfer()])
        for who in ("alice", "mallory"):
            with pytest.raises(ResumeRejected) as refused:
                drive(case.bridge.answer("nope", Resume(), principal=who))
            assert refused.value.codes == (ProblemCode.NOT_AUTHORIZED,)
        setup = case.setup
        door = bridge(setup.agent, setup.store, lambda: [setup.paused.id])
        with pytest.raises(ResumeRejected) as refused:
            drive(door.answer("nope", Resume(), principal="alice"))
        assert refused.value.codes == (ProblemCode.UNKNOWN_INTERRUPT,)

    def test_without_a_callback_the_run_goes_on(self) -> None:
        """With no continued callback, the answer still runs the tool once."""
        setup = paused_on([transfer()])
        door = bridge(setup.agent, setup.store, lambda: [setup.paused.id])
        (pending,) = setup.paused.interrupts
        drive(door.answer(setup.paused.id, Resume(restart=[pending.approve()])))
        assert setup.world.transfers == [TRANSFER]


class TestPrincipals:
    def test_a_refused_principal_sees_and_answers_nothing(self) -> None:
        """Mallory lists nothing, reads no trail and is not_authorized."""
        case = bridged([transfer()])
        assert case.listed("mallory") == []
        assert case.kinds("mallory") == []
        approve = Resume(restart=[case.pending.approve()])
        assert case.refused(approve, "mallory") == ["not_authorized"]
        assert case.setup.world.transfers == []
        assert case.listed() == [(case.setup.paused.id, "t1")]

    @pytest.mark.parametrize("scope", ["nope", "", "n\x00ul", "x" * 3000])
    def test_a_refused_principal_learns_nothing_of_what_is_kept(
        self, scope: str
    ) -> None:
        """A run kept or not: mallory is not_authorized through either door."""
        case = bridged([transfer()])
        approve = Resume(restart=[case.pending.approve()])
        setup = case.setup
        mallory = ResumePolicy(authorize=alice_only, principal="mallory")
        for named in (setup.paused.id, scope):
            with pytest.raises(ResumeRejected) as refused:
                drive(case.bridge.answer(named, approve, principal="mallory"))
            assert refused.value.codes == (ProblemCode.NOT_AUTHORIZED,)
            with pytest.raises(ResumeRejected) as refused:
                resume_sync(setup.agent, named, approve, setup.store, policy=mallory)
            assert refused.value.codes == (ProblemCode.NOT_AUTHORIZED,)
        assert setup.world.transfers == []
        assert case.listed() == [(setup.paused.id, "t1")]

    def test_an_unknown_run_is_refused_in_its_trail(self) -> None:
        """Each door refuses a run never kept under that id, and files nothing."""
        case = bridged([transfer()])
        approve = Resume(restart=[case.pending.approve()])
        setup = case.setup
        mallory = ResumePolicy(authorize=alice_only, principal="mallory")
        with pytest.raises(ResumeRejected):
            drive(case.bridge.answer("nope", approve, principal="alice"))
        with pytest.raises(ResumeRejected):
            resume_sync(setup.agent, "nope", approve, setup.store, policy=mallory)
        assert drive(setup.store.audit("nope")) == ()  # a client's guess writes no row


class TestPause:
    def test_one_scope_is_what_the_listing_shows(self) -> None:
        """pause(scope) is the listing's pause there; None once answered."""
        case = bridged([transfer()])
        scope = case.setup.paused.id
        (listed,) = drive(case.bridge.pending(principal="alice"))
        assert drive(case.bridge.pause(scope, principal="alice")) == listed
        case.answer(Resume(restart=[case.pending.approve()]))
        assert drive(case.bridge.pause(scope, principal="alice")) is None

    def test_nothing_is_shown_to_a_refused_principal_or_at_no_run(self) -> None:
        """None for mallory (nothing filed) and for a scope with no run kept."""
        case = bridged([transfer()])
        scope = case.setup.paused.id
        assert drive(case.bridge.pause(scope, principal="mallory")) is None
        assert case.kinds() == []
        assert drive(case.bridge.pause("nope", principal="alice")) is None
        assert drive(case.bridge.pause(scope, principal="alice")) is not None
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
        """The trail of a scope the store holds no run under is empty."""
        case = bridged([transfer()])
        assert drive(case.bridge.audit("nope", principal="alice")) == ()

    def test_an_answered_run_is_no_longer_listed(self) -> None:
        """Once answered, the run's pause is not listed, though its trail stays."""
        case = bridged([transfer()])
        assert case.listed() == [(case.setup.paused.id, "t1")]
        case.answer(Resume(restart=[case.pending.approve()]))
        assert case.listed() == []
        assert case.kinds()[-1] == "accepted"

    def test_resume_sync_and_the_bridge_share_one_trail(self) -> None:
        """An answer through resume_sync is in the bridge's trail."""
        case = bridged([transfer()])
        resume_sync(
            case.setup.agent,
            case.setup.paused.id,
            Resume(restart=[case.pending.approve()]),
            case.setup.store,
        )
        assert case.kinds() == ["paused", "accepted"]
