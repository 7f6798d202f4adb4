from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from interruption import (
    JSON,
    Accepts,
    Answer,
    ApprovalPending,
    Custom,
    InterruptedTurn,
    MemoryStore,
    Message,
    PendingInterrupt,
    Phase,
    ProblemCode,
    ResolvedResume,
    Respond,
    Restart,
    Resume,
    ResumePolicy,
    ResumeRejected,
    Role,
    ScheduledPause,
    ToolRequest,
    ToolResponse,
    admit,
    generate_sync,
    record_paused,
    resume_turn_sync,
    unspent,
    validate_and_spend,
    validate_resume,
)
from interruption._json import json_equal
from interruption.decisions import DECISIONS
from interruption.errors import SchemaError
from interruption.kinds import tag_of
from interruption.resume import ExpiryAnswer
from interruption.runtime.admission import ADAPTER_TURN
from interruption.runtime.approval import DECISION_SCHEMA
from interruption.schemas import JSONSchema, conforms
from interruption.testing import strategies as library
from interruption.validation import authorize_shown, nothing_shown, utc_now

from tests.sessions import N_INPUT, OBJECT_GO, Ledger, ToolSet, mutations, resume_of
from tests.strategies import Call, answers, batches

TOOLS = ToolSet()
"""The resume law's tools, named after their behaviours."""

NOW = datetime(2026, 11, 21, 23, 0, tzinfo=UTC)

TRANSFER_INPUT: dict[str, JSON] = {
    "type": "object",
    "properties": {"to": {"type": "string"}, "amount": {"type": "integer"}},
    "required": ["to", "amount"],
}


def ask(ref: str, **changes: Any) -> PendingInterrupt:
    """A pending question: respond only, with a string."""
    pending = PendingInterrupt(
        id=ref,
        kind=Custom(),
        payload={"question": "?"},
        tool=ToolRequest("ask_user", ref, {"question": "?"}),
        accepts=Accepts(respond={"type": "string"}),
    )
    return attrs.evolve(pending, **changes)


def approval(ref: str, amount: JSON = 125000) -> PendingInterrupt:
    """A pending approval: restart only, with a decision."""
    request = ToolRequest("transfer_money", ref, {"to": "ACME", "amount": amount})
    return PendingInterrupt(
        id=ref,
        kind=ApprovalPending(ref),
        payload={"tool": request.name, "input": request.input},
        tool=request,
        accepts=Accepts(restart=DECISION_SCHEMA),
    )


def paused(ref: str, *, replace: bool = False) -> PendingInterrupt:
    """A tool that paused itself: respond or restart."""
    return PendingInterrupt(
        id=ref,
        kind=Custom(),
        payload="sure?",
        tool=ToolRequest("pause", ref, {"n": 1, "b": True}),
        accepts=Accepts(
            respond={"type": "integer"},
            restart=OBJECT_GO,
            replace_input=N_INPUT if replace else None,
        ),
    )


def before(ref: str) -> PendingInterrupt:
    """A scheduled pause before a tool: restart with null only."""
    return PendingInterrupt(
        id=ref,
        kind=ScheduledPause(Phase.BEFORE, "lookup"),
        payload={"tool": "lookup", "input": {}},
        tool=ToolRequest("lookup", ref, {}),
        accepts=Accepts(restart={"type": "null"}),
    )


def turn_of(*interrupts: PendingInterrupt, **changes: Any) -> InterruptedTurn:
    """A turn with these interrupts and one completed sibling, ``done``."""
    requests = [pending.tool for pending in interrupts if pending.tool is not None]
    model = Message(Role.MODEL, (*requests, ToolRequest("lookup", "done", {})))
    turn = InterruptedTurn(
        session="s-1",
        turn_id=1,
        messages=(Message.of_text(Role.USER, "go"), model),
        interrupts=interrupts,
        completed=(ToolResponse("lookup", "done", 500),),
        created_at=NOW,
    )
    return attrs.evolve(turn, **changes)


def at(moment: datetime) -> ResumePolicy:
    """A strict policy whose clock reads *moment*."""
    return ResumePolicy(now=lambda: moment)


STRICT = at(NOW)


def rejected(resume: Resume, turn: InterruptedTurn, **options: Any) -> ResumeRejected:
    """The rejection of *resume*; fails if it was accepted."""
    options.setdefault("policy", STRICT)
    with pytest.raises(ResumeRejected) as caught:
        validate_resume(resume, turn, **options)
    return caught.value


class TestValidateResume:
    def test_a_complete_resume_is_resolved_in_turn_order(self) -> None:
        """Every interrupt answered gives one Answer each, in the turn's order."""
        turn = turn_of(ask("c-1"), approval("c-2"), paused("c-3"), before("c-4"))
        one, two, three, four = turn.interrupts
        resume = Resume(
            [three.respond(7), one.respond("Yes")],
            [four.restart(), two.approve()],
        )
        resolved = validate_resume(resume, turn, policy=STRICT)
        assert resolved.turn is turn
        assert resolved.answers == (
            Answer(one, Respond("ask_user", "c-1", "Yes")),
            Answer(two, Restart("transfer_money", "c-2", "approve")),
            Answer(three, Respond("pause", "c-3", 7)),
            Answer(four, Restart("lookup", "c-4", None)),
        )
        assert resolved.unanswered == ()

    def test_unknown_interrupt(self) -> None:
        """An entry matching no pending (name, ref) is unknown_interrupt."""
        turn = turn_of(ask("c-1"))
        error = rejected(
            Resume([Respond("ask_user", "c-1", "y"), Respond("ask_user", "c-9", "y")]),
            turn,
        )
        ((problem),) = error.problems
        assert problem.code is ProblemCode.UNKNOWN_INTERRUPT
        assert (problem.index, problem.answer, problem.interrupt_id) == (
            1,
            "respond",
            None,
        )

    def test_a_ref_under_the_wrong_name_is_unknown(self) -> None:
        """A pending ref answered under another tool's name is unknown_interrupt."""
        turn = turn_of(ask("c-1"))
        error = rejected(Resume([Respond("transfer_money", "c-1", "y")]), turn)
        assert error.codes == (ProblemCode.UNKNOWN_INTERRUPT, ProblemCode.MISSING)
        assert "belongs to 'ask_user'" in error.problems[0].message

    def test_not_interrupted(self) -> None:
        """An entry for a tool that finished in the batch is not_interrupted."""
        turn = turn_of(ask("c-1"))
        error = rejected(
            Resume([ask("c-1").respond("y")], [Restart("lookup", "done")]), turn
        )
        ((problem),) = error.problems
        assert problem.code is ProblemCode.NOT_INTERRUPTED
        assert (problem.index, problem.answer) == (0, "restart")

    def test_duplicate(self) -> None:
        """Two entries answering one interrupt: the second is duplicate."""
        turn = turn_of(ask("c-1"))
        entry = turn.interrupts[0].respond("y")
        error = rejected(Resume([entry, entry]), turn)
        ((problem),) = error.problems
        assert problem.code is ProblemCode.DUPLICATE
        assert (problem.index, problem.answer, problem.interrupt_id) == (
            1,
            "respond",
            "c-1",
        )

    def test_conflict(self) -> None:
        """One interrupt both responded to and restarted is conflict."""
        turn = turn_of(paused("c-1"))
        (pending,) = turn.interrupts
        error = rejected(
            Resume([pending.respond(1)], [pending.restart({"go": True})]), turn
        )
        ((problem),) = error.problems
        assert problem.code is ProblemCode.CONFLICT
        assert (problem.index, problem.answer, problem.interrupt_id) == (
            0,
            "restart",
            "c-1",
        )

    def test_missing(self) -> None:
        """A pending interrupt without an answer is missing, with no entry index."""
        turn = turn_of(ask("c-1"), ask("c-2"))
        error = rejected(Resume([turn.interrupts[0].respond("y")]), turn)
        ((problem),) = error.problems
        assert problem.code is ProblemCode.MISSING
        assert (problem.index, problem.answer, problem.interrupt_id) == (
            None,
            None,
            "c-2",
        )

    def test_respond_to_a_restart_only_interrupt(self) -> None:
        """A respond to an approval is answer_not_accepted."""
        turn = turn_of(approval("c-1"))
        error = rejected(Resume([Respond("transfer_money", "c-1", "sent")]), turn)
        ((problem),) = error.problems
        assert problem.code is ProblemCode.ANSWER_NOT_ACCEPTED
        assert (problem.index, problem.answer, problem.interrupt_id) == (
            0,
            "respond",
            "c-1",
        )
        assert problem.message == (
            "c-1 (approval_pending): expected a restart, got a respond"
        )

    def test_restart_to_a_respond_only_interrupt(self) -> None:
        """A restart of an interrupt-only tool is answer_not_accepted."""
        turn = turn_of(ask("c-1"))
        error = rejected(Resume(restart=[Restart("ask_user", "c-1")]), turn)
        ((problem),) = error.problems
        assert problem.code is ProblemCode.ANSWER_NOT_ACCEPTED
        assert (problem.answer, problem.interrupt_id) == ("restart", "c-1")
        assert problem.message == "c-1 (custom): expected a respond, got a restart"

    def test_input_modified(self) -> None:
        """A restart that changes the input of a tool that did not opt in."""
        turn = turn_of(approval("c-1"))
        changed: JSON = {"to": "EVIL", "amount": 125000}
        error = rejected(
            Resume(restart=[Restart("transfer_money", "c-1", "approve", changed)]),
            turn,
        )
        ((problem),) = error.problems
        assert problem.code is ProblemCode.INPUT_MODIFIED
        assert (problem.index, problem.answer, problem.interrupt_id) == (
            0,
            "restart",
            "c-1",
        )
        assert problem.message == (
            "transfer_money takes no new input: expected the original input or "
            "none, got another"
        )

    def test_schema_violation_of_an_output(self) -> None:
        """An output outside the tool's output schema names its path."""
        turn = turn_of(ask("c-1"))
        error = rejected(Resume([Respond("ask_user", "c-1", 5)]), turn)
        ((problem),) = error.problems
        assert problem.code is ProblemCode.SCHEMA_VIOLATION
        assert problem.interrupt_id == "c-1"
        assert problem.message == (
            "$.respond[0].output: expected a value of type string, got 5"
        )

    def test_schema_violation_of_resumed(self) -> None:
        """A resumed value outside the resume schema is schema_violation."""
        turn = turn_of(paused("c-1"))
        error = rejected(Resume(restart=[Restart("pause", "c-1", {"go": "yes"})]), turn)
        ((problem),) = error.problems
        assert problem.code is ProblemCode.SCHEMA_VIOLATION
        assert problem.message.startswith("$.restart[0].resumed.go:")

    def test_schema_violation_of_a_decision(self) -> None:
        """An approval's resumed must be a decision."""
        turn = turn_of(approval("c-1"))
        error = rejected(
            Resume(restart=[Restart("transfer_money", "c-1", "maybe")]), turn
        )
        assert error.codes == (ProblemCode.SCHEMA_VIOLATION,)

    def test_schema_violation_of_a_replaced_input(self) -> None:
        """A tool that accepts a new input still checks it against its schema."""
        turn = turn_of(paused("c-1", replace=True))
        good = Restart("pause", "c-1", {"go": True}, {"n": 2})
        validate_resume(Resume(restart=[good]), turn, policy=STRICT)
        bad = Restart("pause", "c-1", {"go": True}, {"n": "2"})
        error = rejected(Resume(restart=[bad]), turn)
        assert error.codes == (ProblemCode.SCHEMA_VIOLATION,)
        assert error.problems[0].message.startswith("$.restart[0].input.n:")

    def test_an_approval_declaring_an_input_schema_takes_an_edit_that_fits(
        self,
    ) -> None:
        """An approval with a declared replace_input takes an edit that fits it."""
        editable = attrs.evolve(
            approval("c-1"), accepts=Accepts(replace_input=TRANSFER_INPUT)
        )
        turn = turn_of(editable)
        edited: JSON = {"to": "ACME", "amount": 100}
        restart = Restart("transfer_money", "c-1", "approve", edited)
        resolved = validate_resume(Resume(restart=[restart]), turn, policy=STRICT)
        assert [answer.entry for answer in resolved.answers] == [restart]
        bad = Restart("transfer_money", "c-1", "approve", {"to": "ACME"})
        error = rejected(Resume(restart=[bad]), turn)
        assert error.codes == (ProblemCode.SCHEMA_VIOLATION,)
        assert error.problems[0].message.startswith("$.restart[0].input.amount:")

    def test_a_rejection_takes_no_new_input_even_where_an_edit_could(self) -> None:
        """A reject with a changed input is input_modified, edit schema or not."""
        editable = attrs.evolve(
            approval("c-1"), accepts=Accepts(replace_input=TRANSFER_INPUT)
        )
        edited: JSON = {"to": "ACME", "amount": 100}
        no: JSON = {"reject": {"reason": "no"}}
        for pending in (editable, approval("c-1")):
            restart = Restart("transfer_money", "c-1", no, edited)
            assert rejected(Resume(restart=[restart]), turn_of(pending)).codes == (
                ProblemCode.INPUT_MODIFIED,
            )
            assert pending.tool is not None
            same = Restart("transfer_money", "c-1", no, pending.tool.input)
            assert validate_resume(
                Resume(restart=[same]), turn_of(pending), policy=STRICT
            ).answers

    def test_an_approval_declaring_no_input_schema_takes_no_edit(self) -> None:
        """An approval without a declared replace_input refuses any changed input."""
        turn = turn_of(approval("c-1"))
        edited: JSON = {"to": "ACME", "amount": 100}
        restart = Restart("transfer_money", "c-1", "approve", edited)
        assert rejected(Resume(restart=[restart]), turn).codes == (
            ProblemCode.INPUT_MODIFIED,
        )

    def test_expired_interrupt(self) -> None:
        """An answer at or after expires_at is expired."""
        turn = turn_of(ask("c-1", expires_at=NOW))
        entry = turn.interrupts[0].respond("y")
        error = rejected(Resume([entry]), turn)
        ((problem),) = error.problems
        assert problem.code is ProblemCode.EXPIRED
        assert (problem.index, problem.answer, problem.interrupt_id) == (
            0,
            "respond",
            "c-1",
        )
        assert "2026-11-21T23:00:00+00:00" in problem.message
        earlier = at(NOW - timedelta(seconds=1))
        validate_resume(Resume([entry]), turn, policy=earlier)

    def test_expired_turn(self) -> None:
        """The turn's own expires_at bounds every interrupt in it."""
        turn = turn_of(ask("c-1", expires_at=NOW + timedelta(hours=1)))
        turn = attrs.evolve(turn, expires_at=NOW)
        error = rejected(Resume([turn.interrupts[0].respond("y")]), turn)
        assert error.codes == (ProblemCode.EXPIRED,)

    def test_every_problem_is_reported_together(self) -> None:
        """Problems of several entries and interrupts travel in one rejection."""
        turn = turn_of(ask("c-1"), approval("c-2"), paused("c-3"), ask("c-4"))
        resume = Resume(
            [
                Respond("ask_user", "c-1", 5),
                Respond("transfer_money", "c-2", "sent"),
                Respond("ask_user", "nope", "y"),
            ],
            [Restart("pause", "c-3", {"go": True}, {"n": 2})],
        )
        error = rejected(resume, turn)
        assert error.codes == (
            ProblemCode.SCHEMA_VIOLATION,
            ProblemCode.ANSWER_NOT_ACCEPTED,
            ProblemCode.UNKNOWN_INTERRUPT,
            ProblemCode.INPUT_MODIFIED,
            ProblemCode.MISSING,
        )
        assert [problem.interrupt_id for problem in error.problems] == [
            "c-1",
            "c-2",
            None,
            "c-3",
            "c-4",
        ]

    def test_allow_partial_leaves_the_rest_unanswered(self) -> None:
        """With allow_partial, unanswered interrupts are listed, not missing."""
        turn = turn_of(ask("c-1"), ask("c-2"), ask("c-3"))
        policy = ResumePolicy(allow_partial=True, now=lambda: NOW)
        resolved = validate_resume(
            Resume([turn.interrupts[1].respond("y")]), turn, policy=policy
        )
        assert [answer.interrupt.id for answer in resolved.answers] == ["c-2"]
        assert resolved.unanswered == (turn.interrupts[0], turn.interrupts[2])

    def test_allow_partial_still_checks_the_answers(self) -> None:
        """A partial resume is still checked entry by entry."""
        turn = turn_of(ask("c-1"), ask("c-2"))
        policy = ResumePolicy(allow_partial=True, now=lambda: NOW)
        error = rejected(Resume([Respond("ask_user", "c-1", 1)]), turn, policy=policy)
        assert error.codes == (ProblemCode.SCHEMA_VIOLATION,)

    @pytest.mark.parametrize(
        "same",
        [
            {"to": "ACME", "amount": 125000.0},
            {"amount": 125000, "to": "ACME"},
        ],
    )
    def test_inputs_are_compared_as_json(self, same: JSON) -> None:
        """1 and 1.0 are one number and key order does not matter."""
        turn = turn_of(approval("c-1"))
        entry = Restart("transfer_money", "c-1", "approve", same)
        validate_resume(Resume(restart=[entry]), turn, policy=STRICT)

    @pytest.mark.parametrize(
        ("original", "changed"),
        [(1, True), (0, False), (1, "1"), (1, None), (1, [1])],
    )
    def test_true_is_not_one(self, original: JSON, changed: JSON) -> None:
        """An input that equals the original only in Python is input_modified."""
        turn = turn_of(approval("c-1", amount=original))
        entry = Restart(
            "transfer_money", "c-1", "approve", {"to": "ACME", "amount": changed}
        )
        error = rejected(Resume(restart=[entry]), turn)
        assert error.codes == (ProblemCode.INPUT_MODIFIED,)

    def test_a_key_added_to_the_input_is_modified(self) -> None:
        """An extra key in a restart's input is a change."""
        turn = turn_of(approval("c-1"))
        entry = Restart(
            "transfer_money",
            "c-1",
            "approve",
            {"to": "ACME", "amount": 125000, "memo": ""},
        )
        assert rejected(Resume(restart=[entry]), turn).codes == (
            ProblemCode.INPUT_MODIFIED,
        )

    def test_the_default_clock_is_utc(self) -> None:
        """Without a policy, expiry is judged by the current UTC time."""
        moment = utc_now()
        assert moment.tzinfo is UTC
        turn = turn_of(ask("c-1", expires_at=moment - timedelta(seconds=1)))
        with pytest.raises(ResumeRejected) as caught:
            validate_resume(Resume([turn.interrupts[0].respond("y")]), turn)
        assert caught.value.codes == (ProblemCode.EXPIRED,)

    def test_a_pause_without_a_tool_is_answered_by_its_id(self) -> None:
        """An interrupt outside a tool matches the name "" and its id."""
        pending = PendingInterrupt(
            id="node-1",
            kind=ScheduledPause(Phase.BEFORE, "charge"),
            payload=None,
            tool=None,
            accepts=Accepts(restart={"type": "null"}),
        )
        turn = turn_of(pending)
        entry = pending.restart()
        assert (entry.name, entry.ref) == ("scheduled_pause", "node-1")
        validate_resume(Resume(restart=[entry]), turn, policy=STRICT)
        error = rejected(Resume(), turn)
        assert "(scheduled_pause)" in error.problems[0].message
        with pytest.raises(ResumeRejected) as caught:
            pending.restart(replace_input={"x": 1})
        assert caught.value.codes == (ProblemCode.INPUT_MODIFIED,)


class TestWhatEveryPathRefuses:
    def test_a_turn_with_nothing_pending(self) -> None:
        """A turn without interrupts is nothing_pending, whatever the resume."""
        for resume in (Resume(), Resume(respond=[Respond("ask_user", "a", "x")])):
            error = rejected(resume, turn_of())
            assert error.codes == (ProblemCode.NOTHING_PENDING,)
            assert "nothing to resume" in error.problems[0].message

    def test_an_approval_takes_no_respond_whatever_its_record_says(self) -> None:
        """An approval kind recorded as accepting a respond still refuses one."""
        old = attrs.evolve(
            approval("a"), accepts=Accepts(respond={}, restart={"type": "null"})
        )
        responded = Resume(respond=[Respond("transfer_money", "a", "ok")])
        error = rejected(responded, turn_of(old))
        assert error.codes == (ProblemCode.ANSWER_NOT_ACCEPTED,)
        error = rejected(Resume(restart=[Restart("transfer_money", "a")]), turn_of(old))
        assert error.codes == (ProblemCode.SCHEMA_VIOLATION,)
        decided = Resume(restart=[Restart("transfer_money", "a", "approve")])
        assert validate_resume(decided, turn_of(old), policy=STRICT).answers

    @pytest.mark.parametrize(
        "verdict", [False, None, "denied: not yours", 1, [True]], ids=repr
    )
    def test_only_true_from_the_authorizer_is_consent(self, verdict: object) -> None:
        """Anything but True refuses, with one problem that names nothing."""
        turn = turn_of(ask("a"), approval("b"))
        policy = ResumePolicy(
            now=lambda: NOW,
            authorize=lambda _who, _pending: verdict,  # type: ignore[arg-type,return-value]
            principal="eve",
        )
        junk = Resume(respond=[Respond("nope", "x", 1)])
        for resume in (Resume(), junk):
            error = rejected(resume, turn, policy=policy)
            assert error.codes == (ProblemCode.NOT_AUTHORIZED,)
            assert error.problems[0].interrupt_id is None
            assert "'eve'" in error.problems[0].message

    def test_an_authorizer_that_raises_refuses(self) -> None:
        """A synchronous authorizer's exception is a refusal, chained as its cause."""

        def broken(_who: str | None, _pending: PendingInterrupt) -> bool:
            raise LookupError

        policy = ResumePolicy(now=lambda: NOW, authorize=broken)
        answer = Resume(respond=[Respond("ask_user", "a", "x")])
        error = rejected(answer, turn_of(ask("a")), policy=policy)
        assert error.codes == (ProblemCode.NOT_AUTHORIZED,)
        assert isinstance(error.__cause__, LookupError)

    def test_a_synchronous_check_refuses_an_async_authorizer(self) -> None:
        """validate_resume cannot await, so an awaitable answer is a refusal."""

        async def yes(_who: str | None, _pending: PendingInterrupt) -> bool:
            return True

        policy = ResumePolicy(now=lambda: NOW, authorize=yes)
        error = rejected(
            Resume(respond=[Respond("ask_user", "a", "x")]),
            turn_of(ask("a")),
            policy=policy,
        )
        assert error.codes == (ProblemCode.NOT_AUTHORIZED,)

    def test_validate_and_spend_awaits_then_spends_once(self) -> None:
        """The one sequence: authorize (awaited), validate, spend; each in order."""
        turn = turn_of(ask("a"))
        calls: list[str] = []

        async def authorize(who: str | None, _pending: PendingInterrupt) -> bool:
            calls.append(f"authorize {who}")
            return who == "alice"

        async def spend(kept: Resume) -> bool:
            calls.append(f"spend {len(kept.respond)}")
            return calls.count("spend 1") == 1

        def policy(who: str) -> ResumePolicy:
            return ResumePolicy(now=lambda: NOW, authorize=authorize, principal=who)

        good = Resume(respond=[Respond("ask_user", "a", "x")])
        bad = Resume(respond=[Respond("ask_user", "a", 1)])

        def run(resume: Resume, who: str) -> tuple[ProblemCode, ...]:
            try:
                asyncio.run(validate_and_spend(resume, turn, spend, policy=policy(who)))
            except ResumeRejected as error:
                return error.codes
            return ()

        assert run(good, "eve") == (ProblemCode.NOT_AUTHORIZED,)
        assert run(bad, "alice") == (ProblemCode.SCHEMA_VIOLATION,)
        assert run(good, "alice") == ()
        assert run(good, "alice") == (ProblemCode.CONSUMED,)
        assert calls == [
            "authorize eve",
            "authorize alice",
            "authorize alice",
            "spend 1",
            "authorize alice",
            "spend 1",
        ]


class TestNothingShown:
    @pytest.mark.parametrize("principal", ["alice", None])
    def test_an_authorizer_refuses_every_principal(self, principal: str | None) -> None:
        """With an authorizer, nothing_shown is not_authorized naming nothing."""
        verdict = nothing_shown(lambda _who, _pending: True, principal)
        assert verdict is not None
        assert verdict.codes == (ProblemCode.NOT_AUTHORIZED,)
        assert verdict.problems[0].interrupt_id is None

    def test_without_an_authorizer_no_one_is_refused(self) -> None:
        """No authorizer: None, the door's own verdict stands."""
        assert nothing_shown(None, "alice") is None

    def test_authorize_shown_refuses_an_empty_turn_with_an_authorizer(
        self,
    ) -> None:
        """An empty turn: refused with an authorizer (never asked), passed without."""
        asked: list[str] = []

        def allow(_who: str | None, pending: PendingInterrupt) -> bool:
            asked.append(pending.id)
            return True

        with pytest.raises(ResumeRejected) as refused:
            asyncio.run(authorize_shown(turn_of(), allow, "alice"))
        assert refused.value.codes == (ProblemCode.NOT_AUTHORIZED,)
        asyncio.run(authorize_shown(turn_of(), None, "alice"))
        asyncio.run(authorize_shown(turn_of(ask("a")), allow, "alice"))
        assert asked == ["a"]


class TestAdmit:
    def test_a_pause_kept_elsewhere_is_validated_then_spent_once(self) -> None:
        """Admit validates against the given pending state and spends its key once."""
        store = MemoryStore()
        pending = [ask("a")]

        def run(resume: Resume) -> tuple[ProblemCode, ...]:
            try:
                resolved = asyncio.run(
                    admit(
                        resume, pending, store, session="thread-1", keys={"a": "t1:a"}
                    )
                )
            except ResumeRejected as error:
                return error.codes
            assert resolved.answers[0].interrupt == pending[0]
            return ()

        assert run(Resume()) == (ProblemCode.MISSING,)
        assert run(Resume(respond=[Respond("ask_user", "a", 7)])) == (
            ProblemCode.SCHEMA_VIOLATION,
        )
        assert run(Resume(respond=[Respond("ask_user", "a", "x")])) == ()
        assert run(Resume(respond=[Respond("ask_user", "a", "x")])) == (
            ProblemCode.CONSUMED,
        )

    @given(
        batches=st.lists(
            st.lists(st.sampled_from("abc"), min_size=1, max_size=3, unique=True),
            min_size=1,
            max_size=6,
        )
    )
    def test_each_interrupt_is_spent_once_however_answers_are_split(
        self, batches: list[list[str]]
    ) -> None:
        """For every split and order of answers, each interrupt is accepted once."""
        store = MemoryStore()
        pending = [ask("a"), ask("b"), ask("c")]
        keys = {p.id: f"k:{p.id}" for p in pending}
        partial = ResumePolicy(allow_partial=True)
        accepted: list[str] = []

        async def send(answer: Resume) -> ResolvedResume | ResumeRejected:
            try:
                return await admit(
                    answer, pending, store, session="t", keys=keys, policy=partial
                )
            except ResumeRejected as error:
                return error

        for refs in batches:
            answer = Resume(respond=[Respond("ask_user", ref, "x") for ref in refs])
            outcome = asyncio.run(send(answer))
            if isinstance(outcome, ResumeRejected):
                assert outcome.codes == (ProblemCode.CONSUMED,)
                assert set(refs) & set(accepted)  # refused only for a spent one
                continue
            assert not set(refs) & set(accepted)
            accepted += [answer.interrupt.id for answer in outcome.answers]
        assert sorted(accepted) == sorted(set(accepted))
        assert asyncio.run(store.spent(list(keys.values()))) == {
            keys[ref] for ref in accepted
        }
        live = asyncio.run(unspent(pending, keys, store))
        assert [p.id for p in live] == [p.id for p in pending if p.id not in accepted]

    def test_racing_batches_run_an_interrupt_once(self) -> None:
        """Twenty racing answers to one interrupt: one accepted, the rest consumed."""
        store = MemoryStore()
        pending = [ask("a"), ask("b")]
        keys = {"a": "k:a", "b": "k:b"}
        partial = ResumePolicy(allow_partial=True)

        async def race() -> list[ResolvedResume | BaseException]:
            answers = [
                Resume(respond=[Respond("ask_user", ref, "x") for ref in refs])
                for refs in (["a"], ["a", "b"]) * 10
            ]
            return await asyncio.gather(
                *(
                    admit(a, pending, store, session="t", keys=keys, policy=partial)
                    for a in answers
                ),
                return_exceptions=True,
            )

        outcomes = asyncio.run(race())
        won = [o for o in outcomes if isinstance(o, ResolvedResume)]
        assert len(won) == 1
        refused = [o for o in outcomes if not isinstance(o, ResolvedResume)]
        assert all(
            isinstance(o, ResumeRejected) and o.codes == (ProblemCode.CONSUMED,)
            for o in refused
        )

    def test_a_dismissal_spends_what_it_leaves_unanswered(self) -> None:
        """An empty partial resume spends nothing, unless it is a dismissal."""
        store = MemoryStore()
        pending = [ask("a"), ask("b")]
        keys = {"a": "k:a", "b": "k:b"}
        partial = ResumePolicy(allow_partial=True)

        def run(*, dismissed: bool) -> tuple[str, ...]:
            resolved = asyncio.run(
                admit(
                    Resume(),
                    pending,
                    store,
                    session="t",
                    keys=keys,
                    policy=partial,
                    dismissed=dismissed,
                )
            )
            assert resolved.answers == ()
            return tuple(sorted(asyncio.run(store.spent(["k:a", "k:b"]))))

        assert run(dismissed=False) == ()
        assert run(dismissed=True) == ("k:a", "k:b")
        with pytest.raises(ResumeRejected) as again:
            run(dismissed=True)
        assert again.value.codes == (ProblemCode.CONSUMED,)

    def test_admit_keeps_an_audit_trail(self) -> None:
        """Admit logs who was refused (with codes) and who was accepted, with what."""
        store = MemoryStore()
        pending = [ask("a")]
        policy = ResumePolicy(principal="ana")
        keys = {"a": "k:a"}
        bad = Resume(respond=[Respond("ask_user", "a", 7)])
        good = Resume(respond=[Respond("ask_user", "a", "x")])
        with pytest.raises(ResumeRejected):
            asyncio.run(
                admit(bad, pending, store, session="t", keys=keys, policy=policy)
            )
        asyncio.run(admit(good, pending, store, session="t", keys=keys, policy=policy))
        paused, rejected, accepted = asyncio.run(store.audit("t"))
        assert (paused.kind, paused.principal, paused.pending) == (
            "paused",
            None,
            ("a",),
        )
        assert (rejected.kind, rejected.principal, rejected.codes) == (
            "rejected",
            "ana",
            ("schema_violation",),
        )
        assert (accepted.kind, accepted.principal, accepted.pending) == (
            "accepted",
            "ana",
            ("a",),
        )
        assert accepted.digest is not None
        assert accepted.digest != rejected.digest

    def test_a_refused_principal_learns_nothing_of_what_is_spent(self) -> None:
        """A refused principal gets not_authorized, not consumed, for a spent pause."""
        store = MemoryStore()
        pending = [ask("a")]
        keys = {"a": "k:a"}
        answer = Resume(respond=[Respond("ask_user", "a", "x")])
        asyncio.run(admit(answer, pending, store, session="t", keys=keys))
        nobody = ResumePolicy(authorize=lambda _principal, _pending: False)
        for shown in ([ask("a")], [ask("a"), ask("b")]):
            with pytest.raises(ResumeRejected) as refused:
                asyncio.run(
                    admit(
                        answer,
                        shown,
                        store,
                        session="t",
                        keys={**keys, "b": "k:b"},
                        policy=nobody,
                    )
                )
            assert refused.value.codes == (ProblemCode.NOT_AUTHORIZED,)


class TestResumePolicy:
    def test_defaults_are_strict(self) -> None:
        """By default partial resumes are refused and the clock is UTC now."""
        policy = ResumePolicy()
        assert policy.allow_partial is False
        assert policy.now is utc_now


# --- the property ------------------------------------------------------------


class TestResumeProperty:
    @given(batches(), st.data())
    def test_built_resumes_pass_and_every_mutation_fails(
        self, batch: tuple[Call, ...], data: st.DataObject
    ) -> None:
        """Built resumes pass; every single mutation fails and runs nothing."""
        ledger = Ledger()
        tools = TOOLS.tools(ledger)
        model = TOOLS.model(batch)
        approver = TOOLS.approver
        result = generate_sync(model, "go", tools=tools, approver=approver)
        assert result.finish_reason == "interrupted"
        turn = result.turn
        assert turn is not None
        expected_pauses = sum(call.kind != "finish" for call in batch)
        assert len(turn.interrupts) == expected_pauses
        assert len(turn.completed) == len(batch) - expected_pauses
        runs = ledger.runs.copy()
        assert runs["finish"] == len(turn.completed)
        assert runs["gated"] == 0

        resume = resume_of(data.draw(answers(pending)) for pending in turn.interrupts)
        for mutation in mutations(resume, turn):
            with pytest.raises(ResumeRejected) as caught:
                validate_resume(mutation.resume, turn)
            assert set(caught.value.codes) == mutation.codes, mutation.what
            with pytest.raises(ResumeRejected) as again:
                resume_turn_sync(
                    model, turn, mutation.resume, tools=tools, approver=approver
                )
            assert again.value.problems == caught.value.problems
            assert ledger.runs == runs, mutation.what
            assert len(model.requests) == 1, mutation.what

        resolved = validate_resume(resume, turn)
        assert len(resolved.answers) == len(turn.interrupts)
        final = resume_turn_sync(model, turn, resume, tools=tools, approver=approver)
        assert final.finish_reason == "stop"
        assert ledger.runs["finish"] == runs["finish"]
        approved = sum(
            entry.resumed != {"reject": {"reason": "too much"}}
            for entry in resume.restart
            if entry.name == "gated"
        )
        assert ledger.runs["gated"] == approved
        restarted = sum(entry.name == "pause" for entry in resume.restart)
        assert ledger.runs["pause"] == runs["pause"] + restarted
        seen = model.requests[-1].messages[-1]
        assert [r.ref for r in seen.tool_responses] == [
            r.ref for r in result.message.tool_requests
        ]
        for response in seen.tool_responses:
            assert response.name == next(
                r.name for r in result.message.tool_requests if r.ref == response.ref
            )

    @given(batches(), st.data())
    def test_equivalent_inputs_are_accepted(
        self, batch: tuple[Call, ...], data: st.DataObject
    ) -> None:
        """A restart whose input equals the original as JSON (1 as 1.0) is accepted."""
        result = generate_sync(
            TOOLS.model(batch),
            "go",
            tools=TOOLS.tools(Ledger()),
            approver=TOOLS.approver,
        )
        assert result.turn is not None
        entries: list[Respond | Restart] = []
        for pending in result.turn.interrupts:
            entry = data.draw(answers(pending))
            if isinstance(entry, Restart) and pending.tool is not None:
                original = pending.tool.input
                assert isinstance(original, dict)
                n = original["n"]
                assert isinstance(n, int)
                entry = attrs.evolve(entry, input={"n": float(n)})
            entries.append(entry)
        validate_resume(resume_of(entries), result.turn)


Seen = tuple[ProblemCode, int | None, str | None, str | None]
"""A problem as the rules state it: its code, index, answer and interrupt."""


def _named(pending: PendingInterrupt) -> tuple[str, str]:
    """The name and ref an answer carries: the tool's, else the kind's tag and id."""
    if pending.tool is None:
        return tag_of(pending.kind), pending.id
    return pending.tool.name, pending.tool.ref or pending.id


def _closes(pending: PendingInterrupt, turn: InterruptedTurn) -> datetime | None:
    """The earlier of the interrupt's and the turn's expiry, or None."""
    moments = [m for m in (pending.expires_at, turn.expires_at) if m is not None]
    return min(moments) if moments else None


def _answer_by_the_rules(
    pending: PendingInterrupt, entry: Respond | Restart, where: tuple[str, int]
) -> list[Seen]:
    """What is wrong with *entry* as an answer to *pending*, by the rules."""
    answer, index = where
    declared = pending.accepts
    respond, restart = declared.respond, declared.restart
    if isinstance(pending.kind, ApprovalPending):  # a decision, nothing else
        respond, restart = None, DECISION_SCHEMA
    found: list[Seen] = []

    def add(code: ProblemCode) -> None:
        found.append((code, index, answer, pending.id))

    value = entry.output if isinstance(entry, Respond) else entry.resumed
    schema = respond if isinstance(entry, Respond) else restart
    if schema is None:
        add(ProblemCode.ANSWER_NOT_ACCEPTED)
        return found
    if not conforms(value, schema):
        add(ProblemCode.SCHEMA_VIOLATION)
    if isinstance(entry, Respond) or entry.input is None:
        return found
    rejection = isinstance(entry.resumed, dict) and "reject" in entry.resumed
    replace = declared.replace_input
    original = pending.tool.input if pending.tool is not None else None
    if replace is not None and not rejection:
        if not conforms(entry.input, replace):
            add(ProblemCode.SCHEMA_VIOLATION)
    elif not json_equal(entry.input, original):
        add(ProblemCode.INPUT_MODIFIED)
    return found


def _by_the_rules(
    resume: Resume, turn: InterruptedTurn, policy: ResumePolicy
) -> tuple[tuple[Answer, ...], tuple[PendingInterrupt, ...]] | tuple[Seen, ...]:
    """The verdict the README's rules give, spelled out the slow, plain way.

    Entries are read responds first, then restarts, each in order; then
    every interrupt left without an answer is ``missing``.
    """
    now = policy.now()
    found: list[Seen] = []
    chosen: list[tuple[PendingInterrupt, Respond | Restart, str]] = []
    entries: list[tuple[str, int, Respond | Restart]] = [
        *(("respond", index, entry) for index, entry in enumerate(resume.respond)),
        *(("restart", index, entry) for index, entry in enumerate(resume.restart)),
    ]
    for answer, index, entry in entries:
        key = (entry.name, entry.ref)
        targets = [p for p in turn.interrupts if _named(p) == key]
        if not targets:
            finished = any((d.name, d.ref) == key for d in turn.completed)
            code = (
                ProblemCode.NOT_INTERRUPTED
                if finished
                else ProblemCode.UNKNOWN_INTERRUPT
            )
            found.append((code, index, answer, None))
            continue
        (pending,) = targets
        earlier = [first for p, _, first in chosen if p is pending]
        if earlier:
            same = earlier[0] == answer
            code = ProblemCode.DUPLICATE if same else ProblemCode.CONFLICT
            found.append((code, index, answer, pending.id))
            continue
        chosen.append((pending, entry, answer))
        moment = _closes(pending, turn)
        if moment is not None and now >= moment:
            found.append((ProblemCode.EXPIRED, index, answer, pending.id))
            continue
        found += _answer_by_the_rules(pending, entry, (answer, index))
    answered = {id(pending): entry for pending, entry, _ in chosen}
    for pending in turn.interrupts:
        moment = _closes(pending, turn)
        if (
            id(pending) not in answered
            and policy.expiry_answers
            and pending.on_expiry is not None
            and moment is not None
            and now >= moment
        ):
            name, ref = _named(pending)
            answered[id(pending)] = Respond(name, ref, pending.on_expiry.output)
    left = tuple(p for p in turn.interrupts if id(p) not in answered)
    if not policy.allow_partial:
        found += [(ProblemCode.MISSING, None, None, p.id) for p in left]
    if found:
        return tuple(found)
    answers = tuple(
        Answer(p, answered[id(p)]) for p in turn.interrupts if id(p) in answered
    )
    return answers, left


def _verdict(
    resume: Resume, turn: InterruptedTurn, policy: ResumePolicy
) -> tuple[tuple[Answer, ...], tuple[PendingInterrupt, ...]] | tuple[Seen, ...]:
    """validate_resume's verdict, in `_by_the_rules`' terms."""
    try:
        resolved = validate_resume(resume, turn, policy=policy)
    except ResumeRejected as rejected:
        return tuple(
            (p.code, p.index, p.answer, p.interrupt_id) for p in rejected.problems
        )
    return resolved.answers, resolved.unanswered


@st.composite
def _timed_turns(draw: st.DrawFn) -> tuple[InterruptedTurn, ResumePolicy]:
    """A drawn turn, its interrupts and itself sometimes closing, and a policy.

    Some interrupts close an hour before the policy's clock, some an hour
    after; some have an expiry answer; the policy is strict or partial,
    with expiry answers or not. An approval is sometimes built with other
    accepts than its kind's, which its kind overrules.
    """
    turn = draw(library.turns())
    moments = st.sampled_from(
        [None, NOW - timedelta(hours=1), NOW + timedelta(hours=1)]
    )
    interrupts = []
    for drawn in turn.interrupts:
        changes: dict[str, Any] = {"expires_at": draw(moments)}
        if isinstance(drawn.kind, ApprovalPending) and draw(st.booleans()):
            edits: list[JSONSchema | None] = [None, {}, {"type": "object"}]
            edit = draw(st.sampled_from(edits))
            changes["accepts"] = Accepts(respond={}, restart={}, replace_input=edit)
        pending = attrs.evolve(drawn, **changes)
        respond = pending.accepts.respond
        if respond is not None and draw(st.booleans()):
            # An expiry answer is an answer the pause takes (its record says so).
            output = draw(library._from_schema(respond))
            pending = attrs.evolve(pending, on_expiry=ExpiryAnswer(output))
        interrupts.append(pending)
    turn = attrs.evolve(turn, interrupts=tuple(interrupts), expires_at=draw(moments))
    policy = ResumePolicy(
        allow_partial=draw(st.booleans()),
        now=lambda: NOW,
        expiry_answers=draw(st.booleans()),
    )
    return turn, policy


def _edited(resume: Resume, turn: InterruptedTurn) -> list[Resume]:
    """*resume* with one restart's input replaced: by another, or its own again."""
    inputs = {p.ref: p.tool.input for p in turn.interrupts if p.tool is not None}
    edited = []
    for index, entry in enumerate(resume.restart):
        original = inputs.get(entry.ref)
        another: JSON = {"changed": [original]}
        for replaced in (another, original):
            restarts = list(resume.restart)
            restarts[index] = attrs.evolve(entry, input=replaced)
            edited.append(attrs.evolve(resume, restart=restarts))
    return edited


class TestTheRules:
    @given(_timed_turns(), st.data())
    def test_validate_resume_gives_the_verdict_the_readme_rules_give(
        self, timed: tuple[InterruptedTurn, ResumePolicy], data: st.DataObject
    ) -> None:
        """Every resume, valid or mutated, gets the verdict the rules spell out."""
        turn, policy = timed
        resume = data.draw(library.valid_resumes(turn))
        candidates = [
            resume,
            *(mutated for _, mutated, _ in library.mutations(resume, turn)),
            *_edited(resume, turn),
        ]
        for candidate in candidates:
            assert _verdict(candidate, turn, policy) == _by_the_rules(
                candidate, turn, policy
            )

    def test_an_expired_turn_refuses_every_answer(self) -> None:
        """A turn past its expiry refuses an answer that would otherwise fit."""
        pending = ask("tu-1")
        turn = turn_of(pending, expires_at=datetime(2026, 1, 1, tzinfo=UTC))
        resume = Resume(respond=[pending.respond("Yes")])
        policy = at(datetime(2026, 1, 2, tzinfo=UTC))
        assert rejected(resume, turn, policy=policy).codes == (ProblemCode.EXPIRED,)

    def test_an_unrunnable_schema_is_raised(self) -> None:
        """A schema that cannot be run raises SchemaError, never a verdict."""
        pending = ask("tu-1", accepts=Accepts(respond={"pattern": "(?=x)"}))
        resume = Resume(respond=[Respond(pending.name, pending.ref, "x")])
        with pytest.raises(SchemaError):
            validate_resume(resume, turn_of(pending))

    def test_interrupts_sharing_a_ref_are_told_apart_by_name(self) -> None:
        """Two calls of one ref (other names) are each answered by their name."""
        first = ask("tu-1")
        assert first.tool is not None
        other = attrs.evolve(
            first, id="tu-2", tool=attrs.evolve(first.tool, name="ask_again")
        )
        turn = turn_of(first, other)
        resume = Resume(respond=[first.respond("Yes"), other.respond("No")])
        resolved = validate_resume(resume, turn)
        assert [answer.interrupt for answer in resolved.answers] == [first, other]
        wrong = Resume(respond=[Respond("ask_again", first.ref, "Yes")])
        policy = ResumePolicy(allow_partial=True)
        error = rejected(wrong, turn_of(first), policy=policy)
        assert error.codes == (ProblemCode.UNKNOWN_INTERRUPT,)
        assert "belongs to 'ask_user', not 'ask_again'" in error.problems[0].message

    def test_every_entry_that_answers_nothing_is_named(self) -> None:
        """Each unknown entry is its own problem, whatever else misses."""
        pending = ask("tu-1")
        resume = Resume(
            respond=[
                Respond("ask_user", "x-1", "Yes"),
                Respond("lookup", "done", "Yes"),
                Respond("ask_user", "x-2", "No"),
            ]
        )
        error = rejected(resume, turn_of(pending))
        assert error.codes == (
            ProblemCode.UNKNOWN_INTERRUPT,
            ProblemCode.NOT_INTERRUPTED,
            ProblemCode.UNKNOWN_INTERRUPT,
            ProblemCode.MISSING,
        )
        assert [p.index for p in error.problems] == [0, 1, 2, None]

    def test_a_misfit_is_worded_beside_the_other_problems(self) -> None:
        """A value outside its schema is named in entry order with the rest."""
        first, second = ask("tu-1"), ask("tu-2")
        resume = Resume(
            respond=[
                Respond("ask_user", "tu-1", 5),
                Respond("ask_user", "nope", "Yes"),
                Respond("ask_user", "tu-2", "fine"),
            ]
        )
        error = rejected(resume, turn_of(first, second))
        assert error.codes == (
            ProblemCode.SCHEMA_VIOLATION,
            ProblemCode.UNKNOWN_INTERRUPT,
        )
        assert error.problems[0].message == (
            "$.respond[0].output: expected a value of type string, got 5"
        )

    def test_an_expired_interrupt_takes_its_expiry_answer(self) -> None:
        """With expiry answers on, an expired unanswered interrupt is answered so."""
        late = ask("tu-1", expires_at=NOW, on_expiry=ExpiryAnswer("No"))
        live = ask("tu-2")
        resume = Resume(respond=[live.respond("Yes")])
        policy = ResumePolicy(now=lambda: NOW, expiry_answers=True)
        resolved = validate_resume(resume, turn_of(late, live), policy=policy)
        assert [(a.interrupt, a.entry) for a in resolved.answers] == [
            (late, Respond("ask_user", "tu-1", "No")),
            (live, Respond("ask_user", "tu-2", "Yes")),
        ]
        error = rejected(resume, turn_of(late, live), policy=at(NOW))
        assert error.codes == (ProblemCode.MISSING,)

    def test_a_partial_resume_with_expiry_answers_leaves_the_rest(self) -> None:
        """With expiry answers on, what is neither answered nor expired stays."""
        first, second = ask("tu-1"), ask("tu-2")
        turn = turn_of(first, second)
        resume = Resume(respond=[first.respond("Yes")])
        policy = ResumePolicy(allow_partial=True, expiry_answers=True)
        assert validate_resume(resume, turn, policy=policy).unanswered == (second,)


class TestDecisionWords:
    @pytest.mark.parametrize(
        ("resumed", "expected"),
        [
            (
                "yes please",
                "$.resumed: expected " + DECISIONS + ", got 'yes please'",
            ),
            (
                {"reject": {"reason": ""}},
                (
                    "$.resumed.reject.reason: expected non-empty text, got ''"
                    f" (a decision is {DECISIONS})"
                ),
            ),
            (
                {"approve": {"note": 3}},
                (
                    "$.resumed.approve.note: expected text or null, got 3"
                    f" (a decision is {DECISIONS})"
                ),
            ),
        ],
    )
    def test_a_bad_decision_says_what_a_decision_is(
        self, resumed: JSON, expected: str
    ) -> None:
        """A misfit decision says what a decision is and which part is wrong."""
        with pytest.raises(ResumeRejected) as caught:
            approval("tu-1").restart(resumed)
        (problem,) = caught.value.problems
        assert problem.code is ProblemCode.SCHEMA_VIOLATION
        assert problem.message == expected

    def test_a_bad_decision_in_a_resume_names_its_entry(self) -> None:
        """On the server, the decision's path starts at its entry."""
        pending = approval("tu-1")
        resume = Resume(restart=[Restart(pending.name, pending.ref, {"reject": {}})])
        (problem,) = rejected(resume, turn_of(pending)).problems
        assert problem.message.startswith(
            "$.restart[0].resumed.reject.reason: expected non-empty text, got nothing"
        )


class TestRecordPaused:
    """A pause another framework keeps is filed in the audit trail once."""

    def test_each_interrupt_is_filed_once_whichever_door_meets_it(self) -> None:
        """Listing, then answering, files one ``paused``; a new interrupt, its own."""
        store = MemoryStore()
        keys = {"a": "k:a", "b": "k:b"}
        first = [ask("a")]
        listed = asyncio.run(unspent(first, keys, store, session="t", at=NOW))
        assert listed == tuple(first)
        asyncio.run(unspent(first, keys, store, session="t"))
        answer = Resume(respond=[Respond("ask_user", "a", "x")])
        asyncio.run(admit(answer, first, store, session="t", keys=keys))
        asyncio.run(unspent([ask("a"), ask("b")], keys, store, session="t", at=NOW))
        trail = asyncio.run(store.audit("t"))
        assert [(e.kind, e.pending) for e in trail] == [
            ("paused", ("a",)),
            ("accepted", ("a",)),
            ("paused", ("b",)),
        ]
        assert trail[0].at == NOW

    def test_listing_without_a_session_files_nothing(self) -> None:
        """`unspent` without a session is a read: the trail stays empty."""
        store = MemoryStore()
        asyncio.run(unspent([ask("a")], {"a": "k:a"}, store))
        assert asyncio.run(store.audit("t")) == ()

    def test_racing_doors_file_the_pause_once(self) -> None:
        """Twenty doors meeting one pause at once file one ``paused`` event."""
        store = MemoryStore()
        pending = [ask("a"), ask("b")]
        keys = {"a": "k:a", "b": "k:b"}

        async def race() -> list[bool]:
            return await asyncio.gather(
                *(
                    record_paused(store, pending, keys, session="t", at=NOW)
                    for _ in range(20)
                )
            )

        assert sum(asyncio.run(race())) == 1
        (event,) = asyncio.run(store.audit("t"))
        assert (event.kind, event.pending, event.turn_id) == (
            "paused",
            ("a", "b"),
            ADAPTER_TURN,
        )

    def test_nothing_pending_files_nothing(self) -> None:
        """An empty pause is not filed."""
        store = MemoryStore()
        assert not asyncio.run(record_paused(store, [], {}, session="t", at=NOW))
        assert asyncio.run(store.audit("t")) == ()
