"""The OpenAI Agents SDK adapter's bridge, against real agents on ScriptedModels."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import attrs
import pytest
from agents import RunResult
from interruption import (
    ApprovalPending,
    Bridge,
    Custom,
    MemoryStore,
    PendingInterrupt,
    ProblemCode,
    ResolvedResume,
    Respond,
    Resume,
    ResumePolicy,
    ResumeRejected,
    Sealer,
    pending_everywhere,
)
from interruption.adapters.openai_agents import PausedRun, bridge, pause
from interruption.runtime.approval import DECISION_SCHEMA

from tests.adapters.test_openai_agents import (
    ASK,
    ONE,
    SESSION,
    TRANSFER,
    World,
    agent,
    answer_with,
    run,
)

T = TypeVar("T")
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def drive(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run *coroutine* on a fresh loop."""
    return asyncio.run(coroutine)


def alice_only(principal: str | None, _pending: PendingInterrupt) -> bool:
    """The authorizer: only alice may answer."""
    return principal == "alice"


@attrs.define
class Bridged:
    """A sealed pause of session SESSION and the bridge that lists its token."""

    world: World
    sealer: Sealer
    store: MemoryStore
    paused: PausedRun
    bridge: Bridge
    tokens: dict[str, str]
    continued: list[tuple[str, RunResult]]

    @property
    def pending(self) -> PendingInterrupt:
        """The pause's one interrupt."""
        (pending,) = self.paused.interrupts
        return pending

    def listed(self, principal: str | None = "alice") -> list[tuple[str, str]]:
        """(scope, interrupt id) of every pause the bridge lists."""
        pauses = drive(self.bridge.pending(principal=principal))
        return [(p.scope, i.id) for p in pauses for i in p.interrupts]

    def answer(self, answer: Resume, principal: str | None = "alice") -> ResolvedResume:
        """Answer the session's pause through the bridge."""
        return drive(self.bridge.answer(SESSION, answer, principal=principal))

    def refused(self, answer: Resume, principal: str | None = "alice") -> list[str]:
        """Answer through the bridge, expecting a refusal; its problem codes."""
        with pytest.raises(ResumeRejected) as refused:
            self.answer(answer, principal)
        return [code.value for code in refused.value.codes]

    def own_door(self, answer: Resume) -> RunResult:
        """Answer through the adapter's own resume, in a fresh process."""
        return answer_with(
            self.world, self.sealer, self.store, self.paused.token, answer
        )

    def kinds(self, principal: str | None = "alice") -> list[str]:
        """The kinds of the session's audit trail, through the bridge."""
        trail = drive(self.bridge.audit(SESSION, principal=principal))
        return [event.kind for event in trail]


def bridged(first: Any = ONE) -> Bridged:
    """A run paused on *first*, sealed, and a bridge that lists its token."""
    world = World()
    sealer = Sealer({"k1": b"1" * 32}, active="k1")
    store = MemoryStore()
    paused = pause(run(world, first), sealer, session=SESSION)
    tokens = {SESSION: paused.token}
    continued: list[tuple[str, RunResult]] = []

    async def record(scope: str, result: RunResult) -> None:
        continued.append((scope, result))

    door = bridge(
        agent(world, first),
        sealer,
        store,
        lambda: tokens,
        policy=ResumePolicy(authorize=alice_only),
        continued=record,
    )
    return Bridged(world, sealer, store, paused, door, tokens, continued)


class TestPending:
    def test_a_paused_run_is_listed_with_its_kind_and_accepts(self) -> None:
        """A run paused by the SDK is listed at its session, as pending shows it."""
        case = bridged()
        assert isinstance(case.bridge, Bridge)
        assert case.bridge.door == "openai_agents"
        (pause_,) = drive(case.bridge.pending(principal="alice"))
        assert (pause_.door, pause_.scope) == ("openai_agents", SESSION)
        assert pause_.interrupts == case.paused.interrupts
        (pending,) = pause_.interrupts
        assert pending.kind == ApprovalPending("call-1")
        assert pending.accepts.restart == DECISION_SCHEMA
        everywhere = drive(pending_everywhere([case.bridge], principal="alice"))
        assert everywhere == [pause_]

    def test_a_question_accepts_its_answer_schema(self) -> None:
        """A question_tool call is listed as Custom with its answer schema."""
        case = bridged(ASK)
        (pending,) = case.paused.interrupts
        assert pending.kind == Custom()
        assert case.listed() == [(SESSION, "call-q")]

    def test_pauses_come_newest_first_and_dead_tokens_are_skipped(self) -> None:
        """Sessions are listed by sealing time, newest first; a dead token is not."""
        case = bridged()
        hour_ago = datetime.now(UTC) - timedelta(hours=1)
        older = pause(run(case.world), case.sealer, session="s-0", now=hour_ago)
        gone = pause(run(case.world), case.sealer, session="s-9", now=NOW)  # 24h+
        case.tokens.update({"s-0": older.token, "s-9": gone.token})
        scopes = [p.scope for p in drive(case.bridge.pending(principal="alice"))]
        assert scopes == [SESSION, "s-0"]

    def test_a_token_of_another_session_is_skipped(self) -> None:
        """A token listed under a session it was not sealed for is not listed."""
        case = bridged()
        case.tokens["s-2"] = case.paused.token
        assert case.listed() == [(SESSION, "call-1")]

    def test_an_async_listing_is_awaited(self) -> None:
        """The application's tokens may come from an async callable."""
        case = bridged()

        async def tokens() -> dict[str, str]:
            return case.tokens

        door = bridge(agent(case.world, ONE), case.sealer, case.store, tokens)
        (pause_,) = drive(door.pending())
        assert pause_.scope == SESSION


class TestAnswer:
    def test_an_approval_runs_the_call_once(self) -> None:
        """The bridge accepts a valid approval once; the tool runs once, as paused."""
        case = bridged()
        approve = case.pending.approve()
        resolved = case.answer(Resume(restart=[approve]))
        assert [(a.interrupt.id, a.entry) for a in resolved.answers] == [
            ("call-1", approve)
        ]
        assert case.world.transfers == [TRANSFER]
        ((scope, result),) = case.continued
        assert scope == SESSION
        assert result.final_output == "done"

    def test_a_second_answer_through_either_door_is_consumed(self) -> None:
        """After the bridge answers, the bridge and resume both refuse consumed."""
        case = bridged()
        approve = Resume(restart=[case.pending.approve()])
        case.answer(approve)
        assert case.refused(approve) == ["consumed"]
        with pytest.raises(ResumeRejected) as refused:
            case.own_door(approve)
        assert refused.value.codes == (ProblemCode.CONSUMED,)
        assert case.world.transfers == [TRANSFER]

    def test_the_bridge_refuses_what_resume_answered(self) -> None:
        """After the adapter's own resume, the bridge refuses consumed."""
        case = bridged()
        approve = Resume(restart=[case.pending.approve()])
        case.own_door(approve)
        assert case.refused(approve) == ["consumed"]
        assert case.world.transfers == [TRANSFER]
        assert case.listed() == []

    def test_an_invalid_answer_spends_nothing(self) -> None:
        """A result sent to an approval is answer_not_accepted; it stays listed."""
        case = bridged()
        wrong = Resume(respond=[Respond(case.pending.name, case.pending.ref, "yes")])
        assert case.refused(wrong) == ["answer_not_accepted"]
        assert case.listed() == [(SESSION, "call-1")]
        assert case.world.transfers == []
        assert case.continued == []

    def test_an_unlisted_session_is_unknown(self) -> None:
        """No token listed at a scope: unknown_interrupt, or not_authorized to all.

        With an authorizer there is nothing to ask it about, so every
        principal, alice included, is refused not_authorized (as `refuse`).
        """
        case = bridged()
        for who in ("alice", "mallory"):
            with pytest.raises(ResumeRejected) as refused:
                drive(case.bridge.answer("nope", Resume(), principal=who))
            assert refused.value.codes == (ProblemCode.NOT_AUTHORIZED,)
        door = bridge(
            agent(case.world, ONE), case.sealer, case.store, lambda: case.tokens
        )
        with pytest.raises(ResumeRejected) as refused:
            drive(door.answer("nope", Resume(), principal="alice"))
        assert refused.value.codes == (ProblemCode.UNKNOWN_INTERRUPT,)

    def test_without_a_callback_the_run_goes_on(self) -> None:
        """With no continued callback, the answer still runs the tool once."""
        case = bridged()
        door = bridge(
            agent(case.world, ONE), case.sealer, case.store, lambda: case.tokens
        )
        drive(door.answer(SESSION, Resume(restart=[case.pending.approve()])))
        assert case.world.transfers == [TRANSFER]


class TestPrincipals:
    def test_a_refused_principal_sees_and_answers_nothing(self) -> None:
        """Mallory lists nothing, reads no trail and is not_authorized."""
        case = bridged()
        assert case.listed("mallory") == []
        assert case.kinds("mallory") == []
        approve = Resume(restart=[case.pending.approve()])
        assert case.refused(approve, "mallory") == ["not_authorized"]
        assert case.world.transfers == []
        assert case.listed() == [(SESSION, "call-1")]

    def test_a_refused_principal_learns_nothing_of_what_is_listed(self) -> None:
        """A token listed or not, opening or not: mallory is not_authorized."""
        case = bridged()
        approve = Resume(restart=[case.pending.approve()])
        for scope in (SESSION, "nope"):
            with pytest.raises(ResumeRejected) as refused:
                drive(case.bridge.answer(scope, approve, principal="mallory"))
            assert refused.value.codes == (ProblemCode.NOT_AUTHORIZED,)
        case.tokens[SESSION] = case.paused.token[:-4] + "AAAA"  # no longer opens
        assert case.refused(approve, "mallory") == ["not_authorized"]
        assert case.world.transfers == []

    def test_the_adapters_door_asks_the_authorizer_before_the_token(self) -> None:
        """A token that does not open: not_authorized with an authorizer, not filed."""
        case = bridged()
        approve = Resume(restart=[case.pending.approve()])
        forged = case.paused.token[:-4] + "AAAA"
        for who in ("mallory", "alice"):  # nothing opened: nothing to allow
            policy = ResumePolicy(authorize=alice_only, principal=who)
            with pytest.raises(ResumeRejected) as refused:
                answer_with(
                    case.world, case.sealer, case.store, forged, approve, policy=policy
                )
            assert refused.value.codes == (ProblemCode.NOT_AUTHORIZED,)
        with pytest.raises(ResumeRejected) as refused:
            answer_with(case.world, case.sealer, case.store, forged, approve)
        assert refused.value.codes == (ProblemCode.BAD_TOKEN,)
        assert drive(case.store.audit(SESSION)) == ()  # a client's guess writes no row
        assert case.world.transfers == []


class TestPause:
    def test_one_scope_is_what_the_listing_shows(self) -> None:
        """pause(scope) is the listing's pause there; None once answered."""
        case = bridged()
        (listed,) = drive(case.bridge.pending(principal="alice"))
        assert drive(case.bridge.pause(SESSION, principal="alice")) == listed
        case.answer(Resume(restart=[case.pending.approve()]))
        assert drive(case.bridge.pause(SESSION, principal="alice")) is None

    def test_nothing_is_shown_to_a_refused_principal_or_at_no_token(self) -> None:
        """None for mallory (nothing filed) and for a scope with no token listed."""
        case = bridged()
        assert drive(case.bridge.pause(SESSION, principal="mallory")) is None
        assert drive(case.store.audit(SESSION)) == ()
        assert drive(case.bridge.pause("nope", principal="alice")) is None
        assert drive(case.bridge.pause(SESSION, principal="alice")) is not None
        assert [event.kind for event in drive(case.store.audit(SESSION))] == ["paused"]


class TestAudit:
    def test_the_trail_shows_paused_rejected_and_accepted(self) -> None:
        """The bridge's trail has the pause, a refused attempt and the answer."""
        case = bridged()
        case.listed()
        wrong = Resume(respond=[Respond(case.pending.name, case.pending.ref, "yes")])
        case.refused(wrong)
        case.answer(Resume(restart=[case.pending.approve()]))
        assert case.kinds() == ["paused", "rejected", "accepted"]

    def test_an_unlisted_scope_has_no_trail(self) -> None:
        """The trail of a session the application lists no token for is empty."""
        case = bridged()
        assert drive(case.bridge.audit("nope", principal="alice")) == ()

    def test_an_answered_run_is_no_longer_listed(self) -> None:
        """Once answered, the pause is not listed, though its trail stays."""
        case = bridged()
        assert case.listed() == [(SESSION, "call-1")]
        case.answer(Resume(restart=[case.pending.approve()]))
        assert case.listed() == []
        assert case.kinds() == ["paused", "accepted"]
