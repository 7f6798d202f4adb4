from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import math
import pickle
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Final

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from interruption import (
    JSON,
    Accepts,
    ApprovalPending,
    Confirm,
    Custom,
    DecodeError,
    ExpiryAnswer,
    FieldTypeError,
    Input,
    Interrupted,
    InterruptedTurn,
    Message,
    PayloadError,
    PendingInterrupt,
    ProblemCode,
    Respond,
    Restart,
    Resume,
    ResumeRejected,
    Role,
    ToolRequest,
    ToolResponse,
    dumps,
    loads,
    structure,
    unstructure,
)
from interruption._json import MAX_DEPTH, FrozenArray, FrozenObject
from interruption.errors import FieldError
from interruption.kinds import InterruptionKind, Phase, ScheduledPause
from interruption.resume import accepts_of_kind
from interruption.runtime.approval import DECISION_SCHEMA
from interruption.runtime.sealing import Sealer
from interruption.runtime.store import MemoryStore, SqliteStore
from interruption.schemas import JSONSchema, SchemaGroups, conforming_groups
from interruption.validation import ResumePolicy, validate_resume

if TYPE_CHECKING:
    from collections.abc import Callable

NOW = datetime(2026, 11, 21, 23, 0, tzinfo=UTC)
BEFORE = datetime(2026, 11, 21, 22, 0, tzinfo=UTC)
N_INPUT: dict[str, JSON] = {"type": "object", "properties": {"n": {"type": "integer"}}}

_SOME_SCHEMA: Final[st.SearchStrategy[JSONSchema | None]] = st.sampled_from(
    [None, {}, {"type": "string"}, {"enum": [1, 2]}]
)
"""An answer's schema, or None for an answer not taken."""


QUESTION = PendingInterrupt(
    id="call-2",
    kind=Custom(),
    payload=unstructure(Confirm("Invoice", "Pay INV-7 today?")),
    tool=ToolRequest("ask_user", "call-2", {"question": "Pay INV-7 today?"}),
    accepts=Accepts(respond={"enum": ["Yes", "No"]}),
)
_TRANSFER = ToolRequest("transfer_money", "call-1", {"to": "ACME", "amount": 125000})
APPROVAL = PendingInterrupt(
    id="call-1",
    kind=ApprovalPending("call-1"),
    payload={"tool": _TRANSFER.name, "input": _TRANSFER.input},
    tool=_TRANSFER,
    accepts=Accepts(restart=DECISION_SCHEMA),
    expires_at=NOW,
)


@pytest.fixture(name="question")
def _question() -> PendingInterrupt:
    return QUESTION


@pytest.fixture(name="approval")
def _approval() -> PendingInterrupt:
    return APPROVAL


def paused(*, replace: bool) -> PendingInterrupt:
    """A tool that paused itself; it may take a new input when *replace*."""
    return PendingInterrupt(
        id="call-3",
        kind=Custom(),
        payload=None,
        tool=ToolRequest("pause", "call-3", {"n": 1}),
        accepts=Accepts(
            respond={"type": "integer"},
            restart={"type": "string"},
            replace_input=N_INPUT if replace else None,
        ),
    )


def code_of(error: pytest.ExceptionInfo[ResumeRejected]) -> ProblemCode:
    """The single problem's code."""
    (problem,) = error.value.problems
    return problem.code


class TestPendingInterrupt:
    def test_an_expiry_answer_is_one_the_pause_takes(
        self, question: PendingInterrupt
    ) -> None:
        """on_expiry must fit accepts.respond, built or decoded; it stands for one."""
        with pytest.raises(FieldError) as caught:
            attrs.evolve(question, on_expiry=ExpiryAnswer({"approved": True}))
        assert caught.value.field == "on_expiry"
        wire = unstructure(question)
        assert isinstance(wire, dict)
        wire["on_expiry"] = {"output": {"approved": True}}
        with pytest.raises(DecodeError) as decoded:
            structure(wire, PendingInterrupt)
        assert [m.path for m in decoded.value.problems] == ["$.on_expiry"]
        approval = PendingInterrupt(
            "c-1",
            ApprovalPending("c-1"),
            None,
            None,
            Accepts(restart=DECISION_SCHEMA),
        )
        with pytest.raises(FieldError):
            attrs.evolve(approval, on_expiry=ExpiryAnswer("No"))

    def test_respond_builds_an_entry(self, question: PendingInterrupt) -> None:
        """respond() makes a Respond naming the tool and ref."""
        assert question.respond("Yes") == Respond("ask_user", "call-2", "Yes")

    def test_respond_checks_the_schema(self, question: PendingInterrupt) -> None:
        """An answer outside the accepted schema is schema_violation, locally."""
        with pytest.raises(ResumeRejected) as caught:
            question.respond("Maybe")
        assert code_of(caught) is ProblemCode.SCHEMA_VIOLATION
        assert caught.value.problems[0].interrupt_id == "call-2"
        assert caught.value.problems[0].message.startswith("$.output:")

    def test_respond_to_an_approval_is_not_accepted(
        self, approval: PendingInterrupt
    ) -> None:
        """An approval takes no client-made result; the message says what it takes."""
        with pytest.raises(ResumeRejected) as caught:
            approval.respond({"status": "sent"})
        assert code_of(caught) is ProblemCode.ANSWER_NOT_ACCEPTED
        assert caught.value.problems[0].message == (
            "call-1 (approval_pending): expected a restart, got a respond"
        )

    def test_restart_of_an_interrupt_only_tool_is_not_accepted(
        self, question: PendingInterrupt
    ) -> None:
        """An interrupt-only tool cannot run again."""
        with pytest.raises(ResumeRejected) as caught:
            question.restart()
        assert code_of(caught) is ProblemCode.ANSWER_NOT_ACCEPTED

    def test_restart_builds_an_entry(self) -> None:
        """restart() carries resumed data and keeps the input by default."""
        pending = paused(replace=False)
        assert pending.restart("go") == Restart("pause", "call-3", "go", None)

    def test_restart_checks_resumed(self) -> None:
        """Resumed data outside the resume schema is schema_violation."""
        with pytest.raises(ResumeRejected) as caught:
            paused(replace=False).restart(1)
        assert code_of(caught) is ProblemCode.SCHEMA_VIOLATION

    def test_restart_may_repeat_the_original_input(self) -> None:
        """An unchanged input (as JSON: 1.0 for 1) is fine without opting in."""
        entry = paused(replace=False).restart("go", replace_input={"n": 1.0})
        assert entry.input == {"n": 1.0}

    @pytest.mark.parametrize("changed", [{"n": 2}, {"n": True}, {"n": 1, "m": 0}])
    def test_restart_may_not_change_the_input(self, changed: JSON) -> None:
        """A new input for a tool that did not opt in is input_modified."""
        with pytest.raises(ResumeRejected) as caught:
            paused(replace=False).restart("go", replace_input=changed)
        assert code_of(caught) is ProblemCode.INPUT_MODIFIED
        assert caught.value.problems[0].message == (
            "pause takes no new input: expected the original input or none, got another"
        )

    def test_restart_reports_every_problem(self) -> None:
        """A bad resumed value and a bad new input are both reported, in order."""
        with pytest.raises(ResumeRejected) as caught:
            paused(replace=True).restart(1, replace_input={"n": "2"})
        resumed, new_input = caught.value.problems
        assert str(resumed) == (
            "schema_violation for call-3: $.resumed: expected a value of type string, "
            "got 1"
        )
        assert str(new_input) == (
            "schema_violation for call-3: $.input.n: expected a value of type integer, "
            "got '2'"
        )

    def test_replaced_input_is_checked_against_the_input_schema(self) -> None:
        """A tool that opted in accepts a new input that fits its schema."""
        pending = paused(replace=True)
        assert pending.restart("go", replace_input={"n": 2}).input == {"n": 2}
        with pytest.raises(ResumeRejected) as caught:
            pending.restart("go", replace_input={"n": "2"})
        assert code_of(caught) is ProblemCode.SCHEMA_VIOLATION

    def test_approve_and_reject_build_decisions(
        self, approval: PendingInterrupt
    ) -> None:
        """approve() and reject() restart with entelix's decision wire form."""
        assert approval.approve() == Restart("transfer_money", "call-1", "approve")
        assert approval.approve("checked").resumed == {"approve": {"note": "checked"}}
        assert approval.reject("wrong account").resumed == {
            "reject": {"reason": "wrong account"}
        }

    def test_approve_is_only_for_approvals(self, question: PendingInterrupt) -> None:
        """A question takes no approval decision."""
        with pytest.raises(ResumeRejected) as caught:
            question.approve()
        assert code_of(caught) is ProblemCode.ANSWER_NOT_ACCEPTED
        with pytest.raises(ResumeRejected) as caught:
            question.reject("no")
        assert code_of(caught) is ProblemCode.ANSWER_NOT_ACCEPTED

    def test_approve_of_a_paused_tool_is_refused(self) -> None:
        """A tool's own pause takes no approval, even if a decision fits its schema."""
        with pytest.raises(ResumeRejected) as caught:
            paused(replace=False).approve()
        assert code_of(caught) is ProblemCode.ANSWER_NOT_ACCEPTED
        assert caught.value.problems[0].message == (
            "call-3: expected an approval_pending pause to decide on, got a "
            "custom pause"
        )

    def test_a_pause_of_the_approval_kind_takes_only_a_decision(self) -> None:
        """Whatever its recorded accepts, an approval_pending pause takes a decision."""
        pending = PendingInterrupt(
            "call-5",
            ApprovalPending("call-5"),
            None,
            ToolRequest("pay", "call-5"),
            Accepts(respond={}, restart={}),
        )
        assert pending.allowed == Accepts(restart=DECISION_SCHEMA)
        with pytest.raises(ResumeRejected) as caught:
            pending.respond(None)
        assert code_of(caught) is ProblemCode.ANSWER_NOT_ACCEPTED
        with pytest.raises(ResumeRejected) as caught:
            pending.restart("go")
        assert code_of(caught) is ProblemCode.SCHEMA_VIOLATION
        assert pending.approve() == Restart("pay", "call-5", "approve")

    @given(
        st.builds(Accepts, _SOME_SCHEMA, _SOME_SCHEMA, _SOME_SCHEMA),
        st.sampled_from(
            [Custom(), ApprovalPending("p-1"), ScheduledPause(Phase.BEFORE, "pay")]
        ),
    )
    def test_a_pause_accepts_what_its_kind_allows(
        self, declared: Accepts, kind: InterruptionKind
    ) -> None:
        """An approval takes a decision only, its replace_input kept, however built."""
        expected = declared
        if isinstance(kind, ApprovalPending):
            replace = declared.replace_input
            expected = Accepts(restart=DECISION_SCHEMA, replace_input=replace)
        pending = PendingInterrupt(
            "p-1", kind, None, ToolRequest("pay", "p-1"), declared
        )
        assert pending.accepts == expected == accepts_of_kind(kind, declared)
        assert pending.allowed == expected
        assert loads(dumps(pending), PendingInterrupt) == pending
        wire = unstructure(pending)
        assert isinstance(wire, dict)
        wire["accepts"] = unstructure(declared)  # as another program wrote it
        assert structure(wire, PendingInterrupt).accepts == expected

    def test_accepts_must_be_an_accepts(self) -> None:
        """A pause built with accepts of another type is refused, naming the field."""
        with pytest.raises(TypeError, match="accepts: expected an Accepts, got"):
            PendingInterrupt(
                "p-1",
                Custom(),
                None,
                None,
                {"respond": {}},  # type: ignore[arg-type]
            )

    def test_an_approval_keeps_its_declared_input_schema(self) -> None:
        """An approval's declared replace_input stands: an edit must fit it."""
        pending = PendingInterrupt(
            "call-5",
            ApprovalPending("call-5"),
            None,
            ToolRequest("pay", "call-5", {"n": 1}),
            Accepts(respond={}, replace_input=N_INPUT),
        )
        assert pending.allowed == Accepts(
            restart=DECISION_SCHEMA, replace_input=N_INPUT
        )
        edited = pending.restart("approve", replace_input={"n": 2})
        assert edited == Restart("pay", "call-5", "approve", {"n": 2})
        with pytest.raises(ResumeRejected) as caught:
            pending.restart("approve", replace_input={"n": "2"})
        assert code_of(caught) is ProblemCode.SCHEMA_VIOLATION
        with pytest.raises(ResumeRejected) as caught:
            pending.respond(None)
        assert code_of(caught) is ProblemCode.ANSWER_NOT_ACCEPTED

    def test_an_approval_without_an_input_schema_keeps_its_input(
        self, approval: PendingInterrupt
    ) -> None:
        """An approval that declared no replace_input refuses a changed input."""
        with pytest.raises(ResumeRejected) as caught:
            approval.restart("approve", replace_input={"to": "EVIL", "amount": 1})
        assert code_of(caught) is ProblemCode.INPUT_MODIFIED
        same = approval.restart("approve", replace_input=_TRANSFER.input)
        assert same.input == _TRANSFER.input

    def test_a_pause_that_accepts_nothing_says_so(self) -> None:
        """An interrupt with no accepted answer names none as expected."""
        pending = PendingInterrupt("p-1", Custom(), None, None, Accepts())
        (problem,) = pending.problems_with(Respond("custom", "p-1", 1))
        assert problem.message == "p-1 (custom): expected no answer, got a respond"

    def test_reject_needs_a_reason(self, approval: PendingInterrupt) -> None:
        """An empty reason is refused when the decision is built."""
        with pytest.raises(ValueError, match="reason"):
            approval.reject("")

    def test_payload_as_decodes(self, question: PendingInterrupt) -> None:
        """payload_as(Confirm) gives the typed prompt."""
        assert question.payload_as(Confirm) == Confirm("Invoice", "Pay INV-7 today?")

    def test_payload_as_is_strict(self, question: PendingInterrupt) -> None:
        """A payload of another shape raises DecodeError naming the path."""
        with pytest.raises(DecodeError) as caught:
            question.payload_as(Input)
        assert caught.value.path == "$.type"

    def test_name_and_ref_come_from_the_tool(self, approval: PendingInterrupt) -> None:
        """An answer carries the tool's name and the call's ref."""
        assert (approval.name, approval.ref) == ("transfer_money", "call-1")

    def test_ref_falls_back_to_the_id(self) -> None:
        """Without a tool the id is the ref and the kind's tag the name."""
        pending = PendingInterrupt("p-1", Custom(), None, None, Accepts(respond={}))
        assert (pending.name, pending.ref) == ("custom", "p-1")
        assert pending.respond([1]) == Respond("custom", "p-1", [1])

    def test_round_trips(
        self, question: PendingInterrupt, approval: PendingInterrupt
    ) -> None:
        """Pending interrupts survive dumps and loads, expiry included."""
        for pending in (question, approval, paused(replace=True)):
            assert loads(dumps(pending), PendingInterrupt) == pending

    def test_wire_form(self, approval: PendingInterrupt) -> None:
        """The wire form is the design's."""
        expected: JSON = {
            "id": "call-1",
            "kind": {"type": "approval_pending", "tool_use_id": "call-1"},
            "payload": {
                "tool": "transfer_money",
                "input": {"to": "ACME", "amount": 125000},
            },
            "tool": {
                "type": "tool_request",
                "name": "transfer_money",
                "ref": "call-1",
                "input": {"to": "ACME", "amount": 125000},
            },
            "accepts": {
                "respond": None,
                "restart": DECISION_SCHEMA,
                "replace_input": None,
            },
            "expires_at": "2026-11-21T23:00:00Z",
            "on_expiry": None,
        }
        assert unstructure(approval) == expected


RULE_CASES: Final[
    list[tuple[PendingInterrupt, Respond | Restart, list[ProblemCode]]]
] = [
    (
        APPROVAL,
        Respond("transfer_money", "call-1", {"status": "sent"}),
        [ProblemCode.ANSWER_NOT_ACCEPTED],
    ),
    (
        APPROVAL,
        Restart("transfer_money", "call-1", "maybe"),
        [ProblemCode.SCHEMA_VIOLATION],
    ),
    (APPROVAL, Restart("transfer_money", "call-1", "approve"), []),
    (
        QUESTION,
        Respond("ask_user", "call-2", "Maybe"),
        [ProblemCode.SCHEMA_VIOLATION],
    ),
    (QUESTION, Respond("ask_user", "call-2", "Yes"), []),
    (
        QUESTION,
        Restart("ask_user", "call-2"),
        [ProblemCode.ANSWER_NOT_ACCEPTED],
    ),
    (
        paused(replace=False),
        Restart("pause", "call-3", "go", {"n": 2}),
        [ProblemCode.INPUT_MODIFIED],
    ),
    (paused(replace=False), Restart("pause", "call-3", "go", {"n": 1.0}), []),
    (
        paused(replace=True),
        Restart("pause", "call-3", 1, {"n": "2"}),
        [ProblemCode.SCHEMA_VIOLATION, ProblemCode.SCHEMA_VIOLATION],
    ),
    (
        paused(replace=True),
        Respond("pause", "call-3", "one"),
        [ProblemCode.SCHEMA_VIOLATION],
    ),
]
"""Entries for the rule set, each with the codes of its problems."""


class TestProblemsWith:
    """The one rule set, shared by the builders and `validate_resume`."""

    @pytest.mark.parametrize(("pending", "entry", "codes"), RULE_CASES)
    def test_the_server_finds_what_the_rule_finds(
        self,
        pending: PendingInterrupt,
        entry: Respond | Restart,
        codes: list[ProblemCode],
    ) -> None:
        """validate_resume reports exactly problems_with's problems, at the entry."""
        found = pending.problems_with(entry, 0)
        assert [problem.code for problem in found] == codes
        match entry:
            case Respond():
                answer, resume = "respond", Resume(respond=[entry])
            case Restart():
                answer, resume = "restart", Resume(restart=[entry])
        assert all((p.index, p.answer) == (0, answer) for p in found)
        turn = InterruptedTurn("s-1", 1, (), (pending,), (), NOW)
        policy = ResumePolicy(now=lambda: BEFORE)
        if not codes:
            assert (
                validate_resume(resume, turn, policy=policy).answers[0].entry == entry
            )
            return
        with pytest.raises(ResumeRejected) as caught:
            validate_resume(resume, turn, policy=policy)
        assert caught.value.problems == found

    @pytest.mark.parametrize(("pending", "entry", "codes"), RULE_CASES)
    def test_checks_put_aside_decide_the_rest(
        self,
        pending: PendingInterrupt,
        entry: Respond | Restart,
        codes: list[ProblemCode],
    ) -> None:
        """With checks, the schema checks are put aside: they hold unless misfits."""
        checks: SchemaGroups = {}
        found = pending.problems_with(entry, 0, checks=checks)
        misfit = ProblemCode.SCHEMA_VIOLATION
        assert [p.code for p in found] == [code for code in codes if code is not misfit]
        assert conforming_groups(checks) is (misfit not in codes)

    def test_paths_name_the_entry_only_in_a_resume(self) -> None:
        """Without an index the path starts at the entry; with one, at the resume."""
        entry = Respond("ask_user", "call-2", 5)
        (alone,) = QUESTION.problems_with(entry)
        (listed,) = QUESTION.problems_with(entry, 3)
        assert alone.message.startswith("$.output:")
        assert listed.message.startswith("$.respond[3].output:")
        assert (alone.index, alone.answer) == (None, None)
        assert (listed.index, listed.answer) == (3, "respond")


class TestResume:
    def test_wire_form_and_round_trip(self) -> None:
        """A resume is two lists; it round-trips through dumps and loads."""
        resume = Resume(
            [Respond("ask_user", "call-2", "Yes")],
            [Restart("transfer_money", "call-1", "approve")],
        )
        assert unstructure(resume) == {
            "respond": [{"name": "ask_user", "ref": "call-2", "output": "Yes"}],
            "restart": [
                {
                    "name": "transfer_money",
                    "ref": "call-1",
                    "resumed": "approve",
                    "input": None,
                }
            ],
        }
        assert loads(dumps(resume), Resume) == resume

    def test_lists_become_tuples(self) -> None:
        """Entries given as lists are kept as tuples."""
        assert Resume([Respond("a", "b", 1)]).respond == (Respond("a", "b", 1),)
        assert Resume().restart == ()

    def test_unknown_fields_are_refused(self) -> None:
        """A forged extra field is a DecodeError."""
        with pytest.raises(DecodeError) as caught:
            loads('{"respond": [], "restart": [], "admin": true}', Resume)
        assert caught.value.path == "$.admin"


class TestRespond:
    def test_fields_are_checked(self) -> None:
        """Name and ref must be non-empty, and output JSON."""
        with pytest.raises(ValueError, match="ref"):
            Respond("a", "", 1)
        with pytest.raises(TypeError):
            Respond("a", "b", {1, 2})  # type: ignore[arg-type]


class TestRestart:
    def test_defaults(self) -> None:
        """Resumed and input default to null: no data, the original input."""
        assert Restart("a", "b") == Restart("a", "b", None, None)


class TestAccepts:
    def test_defaults_accept_nothing(self) -> None:
        """An Accepts with no schemas takes no answer."""
        assert Accepts() == Accepts(None, None, None)

    def test_decoded_schemas_share_one_object_per_spelling(self) -> None:
        """Interrupts read back from the wire share their tool's schema object."""
        schema: dict[str, JSON] = {"enum": ["Yes", "No"], "title": "decoded"}
        pendings = tuple(
            PendingInterrupt(
                f"c-{index}",
                Custom(),
                None,
                ToolRequest("ask_user", f"c-{index}", {}),
                Accepts(respond=dict(schema), restart={"type": "null"}),
            )
            for index in range(3)
        )
        turn = InterruptedTurn("s-1", 1, (), pendings, (), created_at=NOW)
        decoded = loads(dumps(turn), InterruptedTurn)
        assert decoded == turn
        responds = {id(pending.accepts.respond) for pending in decoded.interrupts}
        restarts = {id(pending.accepts.restart) for pending in decoded.interrupts}
        assert len(responds) == len(restarts) == 1
        assert responds != restarts
        answers = [Respond("ask_user", f"c-{index}", "Yes") for index in range(3)]
        assert len(validate_resume(Resume(respond=answers), decoded).answers) == 3

    def test_a_schema_that_is_not_an_object_is_refused(self) -> None:
        """An Accepts schema must be a JSON object: anything else names its field."""
        for bad in ("nope", ["type"], 5, True):
            with pytest.raises(FieldError, match="expected a JSON object"):
                Accepts(restart=bad)  # type: ignore[arg-type]

    def test_a_schema_with_a_value_that_is_not_json_is_refused(self) -> None:
        """A schema holding a non-JSON value is refused at its path."""
        with pytest.raises(PayloadError) as caught:
            Accepts(respond={"enum": [{1, 2}]})  # type: ignore[list-item]
        assert [problem.path for problem in caught.value.problems] == [
            "$.respond.enum[0]"
        ]

    def test_a_schema_too_deep_to_read_back_is_refused(self) -> None:
        """A schema nested past MAX_DEPTH is refused: none is saved unreadable."""
        fits: dict[str, JSON] = {}
        for _ in range(MAX_DEPTH - 1):
            fits = {"not": fits}
        assert loads(dumps(Accepts(respond=fits)), Accepts) == Accepts(respond=fits)
        with pytest.raises(PayloadError):
            Accepts(respond={"not": fits})
        deep = json.dumps({"respond": {"not": fits}})
        with pytest.raises(DecodeError, match="levels of nesting"):
            loads(deep, Accepts)

    def test_many_schemas_are_each_checked(self) -> None:
        """Every schema is checked, however many were checked before it."""
        for index in range(1_100):
            assert Accepts(respond={"title": f"s-{index}"}).respond == {
                "title": f"s-{index}"
            }
        with pytest.raises(PayloadError):
            Accepts(respond={"const": float("inf")})


LATER = datetime(2026, 11, 22, 1, 0, tzinfo=UTC)


def expiring(ref: str, expires_at: datetime | None) -> PendingInterrupt:
    """A pending interrupt that stops accepting answers at *expires_at*."""
    return PendingInterrupt(
        ref, Custom(), None, None, Accepts(respond={}), expires_at=expires_at
    )


class TestInterruptedTurn:
    @pytest.mark.parametrize(
        ("second", "repeat"),
        [
            (("c-1", "other", "c-2"), "the id 'c-1' twice"),
            (
                ("c-2", "ask_user", "c-1"),
                "the name 'ask_user' with the ref 'c-1' twice",
            ),
        ],
    )
    def test_interrupts_an_answer_cannot_tell_apart_are_refused(
        self, second: tuple[str, str, str], repeat: str
    ) -> None:
        """Two interrupts with one id, or one name and ref, are refused, decoded too."""
        first = PendingInterrupt(
            "c-1",
            Custom(),
            None,
            ToolRequest("ask_user", "c-1", {}),
            Accepts(respond={}),
        )
        pending_id, name, ref = second
        twin = attrs.evolve(first, id=pending_id, tool=ToolRequest(name, ref, {}))
        with pytest.raises(FieldError, match=f"got {repeat}"):
            InterruptedTurn("s-1", 1, (), (first, twin), (), created_at=NOW)
        turn = InterruptedTurn("s-1", 1, (), (first,), (), created_at=NOW)
        document = json.loads(dumps(turn))
        document["interrupts"].append(unstructure(twin))
        with pytest.raises(DecodeError) as caught:
            loads(json.dumps(document), InterruptedTurn)
        assert [problem.path for problem in caught.value.problems] == ["$.interrupts"]

    @pytest.mark.parametrize(
        ("interrupts", "got"), [([], "got list"), (("c-1",), "got a str")]
    )
    def test_interrupts_are_a_tuple_of_pending_interrupts(
        self, interrupts: object, got: str
    ) -> None:
        """Anything but a tuple of PendingInterrupt is refused with the field named."""
        with pytest.raises(FieldError, match=f"^interrupts: .*{got}$"):
            InterruptedTurn("s-1", 1, (), interrupts, (), created_at=NOW)  # type: ignore[arg-type]

    @pytest.mark.parametrize(
        ("own", "turns", "expected"),
        [
            (None, None, None),
            (NOW, None, NOW),
            (None, NOW, NOW),
            (NOW, LATER, NOW),
            (LATER, NOW, NOW),
        ],
    )
    def test_an_interrupt_expires_at_the_earlier_bound(
        self, own: datetime | None, turns: datetime | None, expected: datetime | None
    ) -> None:
        """An interrupt's expiry is its own bound or the turn's, whichever is first."""
        pending = expiring("p-1", own)
        turn = InterruptedTurn("s-1", 1, (), (pending,), (), NOW, expires_at=turns)
        assert turn.expiry_of(pending) == expected

    @pytest.mark.parametrize(
        ("bounds", "turns", "expected"),
        [
            ((NOW, LATER), None, LATER),
            ((NOW, None), None, None),
            ((NOW, None), LATER, LATER),
            ((NOW, LATER), NOW, NOW),
            ((), LATER, LATER),
            ((), None, None),
        ],
    )
    def test_a_turn_closes_when_its_last_interrupt_expires(
        self,
        bounds: tuple[datetime | None, ...],
        turns: datetime | None,
        expected: datetime | None,
    ) -> None:
        """closes_at is the latest expiry, None while one interrupt never expires."""
        interrupts = tuple(expiring(f"p-{i}", bound) for i, bound in enumerate(bounds))
        turn = InterruptedTurn("s-1", 1, (), interrupts, (), NOW, expires_at=turns)
        assert turn.closes_at == expected

    def test_round_trips(self, question: PendingInterrupt) -> None:
        """A turn survives dumps and loads."""
        turn = InterruptedTurn(
            session="s-1",
            turn_id=3,
            messages=(Message.of_text(Role.USER, "hi"),),
            interrupts=(question,),
            completed=(ToolResponse("lookup", "call-9", 1),),
            created_at=NOW,
            expires_at=NOW,
            approved=("call-4",),
        )
        assert loads(dumps(turn), InterruptedTurn) == turn


# --- a record owns its JSON ------------------------------------------------------

_EDIT = ToolRequest("edit", "call-3", {"n": 1})
OWNED_TURN = InterruptedTurn(
    session="s-1",
    turn_id=1,
    messages=(Message(Role.MODEL, (QUESTION.tool, _TRANSFER, _EDIT)),),  # type: ignore[arg-type]
    interrupts=(
        attrs.evolve(QUESTION),
        attrs.evolve(APPROVAL, expires_at=None),
        PendingInterrupt(
            id="call-3",
            kind=Custom(),
            payload={"fields": ["n"]},
            tool=_EDIT,
            accepts=Accepts(
                restart={"type": "object", "required": ["ok"]},
                replace_input={
                    "type": "object",
                    "properties": {"n": {"type": "integer", "maximum": 5}},
                },
            ),
        ),
    ),
    completed=(),
    created_at=BEFORE,
)
"""A turn whose verdicts read its schemas, its tool inputs and its payloads."""

_DECIDE: JSON = {"approve": {"note": None}}
CANDIDATES = (
    Resume(respond=[Respond("ask_user", "call-2", "Yes")]),
    Resume(respond=[Respond("ask_user", "call-2", "Maybe")]),
    Resume(respond=[Respond("ask_user", "call-2", {"enum": ["Maybe"]})]),
    Resume(restart=[Restart("transfer_money", "call-1", _DECIDE)]),
    Resume(restart=[Restart("transfer_money", "call-1", "Maybe")]),
    Resume(restart=[Restart("transfer_money", "call-1", _DECIDE, _TRANSFER.input)]),
    Resume(restart=[Restart("transfer_money", "call-1", _DECIDE, {"to": "EVIL"})]),
    Resume(restart=[Restart("edit", "call-3", {"ok": True})]),
    Resume(restart=[Restart("edit", "call-3", {"ok": True}, {"n": 5})]),
    Resume(restart=[Restart("edit", "call-3", {"ok": True}, {"n": 6})]),
    Resume(restart=[Restart("edit", "call-3", {})]),
)
"""Answers, some accepted, each refused for a reason the turn's JSON decides."""

_PARTIAL = ResumePolicy(allow_partial=True, now=lambda: NOW)


def verdicts(turn: InterruptedTurn) -> list[tuple[str, ...]]:
    """What `validate_resume` says of each candidate: accepted, or the codes."""
    found: list[tuple[str, ...]] = []
    for resume in CANDIDATES:
        try:
            validate_resume(resume, turn, policy=_PARTIAL)
        except ResumeRejected as rejected:
            found.append(tuple(code.value for code in rejected.codes))
        else:
            found.append(("accepted",))
    return found


def containers(value: object) -> list[dict[str, JSON] | list[JSON]]:
    """Every object and array in *value*, outermost first."""
    found: list[dict[str, JSON] | list[JSON]] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            found.append(item)
            stack.extend(item)
    return found


def vandalize(value: object, actions: list[int]) -> None:
    """Change every object and array in *value*, in place, as *actions* say.

    A change a container refuses (a record's own, frozen: `TypeError`) is
    let go, and the next one tried.
    """
    for number, item in enumerate(containers(value)):
        action = actions[number % len(actions)]
        with contextlib.suppress(TypeError):
            _change(item, action)


def _change(item: dict[str, JSON] | list[JSON], action: int) -> None:
    if isinstance(item, dict):
        if action == 0:
            item.clear()
        elif action == 1:
            item.update({"enum": ["Maybe"], "to": "EVIL", "n": 6, "type": "null"})
        else:
            for key in item:
                item[key] = ["Maybe", {"n": 6}]
    elif action == 0:
        item.clear()
    elif action == 1:
        item.append("Maybe")
    else:
        item[:] = ["Maybe"] * len(item)


def held_json(record: object) -> list[JSON]:
    """Every JSON field value *record* holds, its records' included."""
    if isinstance(record, Interrupted):
        return [record.payload]
    if isinstance(record, tuple | list):
        return [value for item in record for value in held_json(item)]
    kind = type(record)
    if not attrs.has(kind):
        return []
    found: list[JSON] = []
    for field in attrs.fields(kind):
        value = getattr(record, field.name)
        if field.name in {"payload", "input", "output", "resumed"}:
            found.append(value)
        else:
            found.extend(held_json(value))
    return found


HELD_RESUME = Resume(
    respond=[Respond("ask_user", "call-2", {"answer": ["Yes", {"n": 1}]})],
    restart=[Restart("edit", "call-3", {"ok": [True]}, {"n": [5]})],
)
"""A resume whose every JSON field holds containers."""

HELD_MESSAGE = Message(
    Role.TOOL,
    (ToolResponse("ask_user", "call-2", {"answer": ["Yes"]}),),
)
"""A message whose tool response holds containers."""


class TestOwnedJSON:
    """A record owns immutable copies of the JSON it holds: no caller reaches it."""

    def test_the_candidates_tell_the_turns_json_apart(self) -> None:
        """The candidates are accepted and refused for reasons the JSON decides."""
        assert verdicts(OWNED_TURN) == [
            ("accepted",),
            ("schema_violation",),
            ("schema_violation",),
            ("accepted",),
            ("schema_violation",),
            ("accepted",),
            ("input_modified",),
            ("accepted",),
            ("accepted",),
            ("schema_violation",),
            ("schema_violation",),
        ]

    @settings(max_examples=25, deadline=None)
    @given(st.lists(st.integers(0, 2), min_size=1, max_size=8))
    def test_a_stored_turn_reads_back_with_its_verdicts(
        self, actions: list[int]
    ) -> None:
        """Whatever a caller does to what it passed in or got back, verdicts stay."""
        document = json.loads(dumps(OWNED_TURN))
        turn = structure(document, InterruptedTurn)
        saved = verdicts(turn)
        text = dumps(turn)
        sealer = Sealer({"k1": bytes.fromhex("8f3a" * 16)}, "k1")
        token = sealer.seal(turn, now=NOW)
        memory = MemoryStore()
        with tempfile.TemporaryDirectory() as where:
            sqlite = SqliteStore(Path(where) / "store.db")
            try:
                for store in (memory, sqlite):
                    asyncio.run(store.save("s-1", turn.messages, turn))
                # What it passed in, what it got back, what it reads off.
                vandalize(
                    [document, unstructure(turn), held_json(turn)],
                    actions,
                )
                stored = [
                    asyncio.run(store.load_turn("s-1", 1)) for store in (memory, sqlite)
                ]
            finally:
                asyncio.run(sqlite.close())
        read_back = [
            turn,
            structure(json.loads(text), InterruptedTurn),
            loads(text, InterruptedTurn),
            sealer.open(token, now=NOW),
            *(found.turn for found in stored if found is not None),
        ]
        assert len(read_back) == 6
        for again in read_back:
            assert verdicts(again) == saved
            assert dumps(again.interrupts) == dumps(turn.interrupts)

    @settings(max_examples=25, deadline=None)
    @given(st.lists(st.integers(0, 2), min_size=1, max_size=8))
    def test_a_record_built_in_python_keeps_what_it_was_given(
        self, actions: list[int]
    ) -> None:
        """Records built from a caller's dicts copy them: changing those is moot."""
        given_json = json.loads(dumps(OWNED_TURN))
        turn = InterruptedTurn(
            session="s-1",
            turn_id=1,
            messages=(),
            interrupts=tuple(
                PendingInterrupt(
                    id=pending["id"],
                    kind=loads(json.dumps(pending["kind"]), ApprovalPending | Custom),  # type: ignore[arg-type]
                    payload=pending["payload"],
                    tool=ToolRequest(
                        pending["tool"]["name"],
                        pending["tool"]["ref"],
                        pending["tool"]["input"],
                    ),
                    accepts=Accepts(**pending["accepts"]),
                )
                for pending in given_json["interrupts"]
            ),
            completed=(),
            created_at=BEFORE,
        )
        saved = verdicts(turn)
        memory = MemoryStore()
        asyncio.run(memory.save("s-1", (), turn))
        vandalize(given_json, actions)
        stored = asyncio.run(memory.load_turn("s-1", 1))
        assert stored is not None
        assert verdicts(turn) == verdicts(stored.turn) == saved

    @pytest.mark.parametrize(
        "build",
        [
            pytest.param(lambda record: record, id="constructor"),
            pytest.param(
                lambda record: structure(json.loads(dumps(record)), type(record)),
                id="structure",
            ),
            pytest.param(
                lambda record: loads(dumps(record).encode(), type(record)),
                id="loads-bytes",
            ),
            pytest.param(
                lambda record: loads(dumps(record), type(record)), id="loads-text"
            ),
            pytest.param(
                lambda record: loads(
                    dumps(record).encode(), type(record), max_depth=99
                ),
                id="loads-deep",
            ),
            pytest.param(copy.deepcopy, id="deepcopy"),
            pytest.param(
                lambda record: pickle.loads(pickle.dumps(record)),  # noqa: S301 - our own bytes
                id="pickle",
            ),
        ],
    )
    @pytest.mark.parametrize(
        "record",
        [
            pytest.param(OWNED_TURN, id="turn"),
            pytest.param(HELD_RESUME, id="resume"),
            pytest.param(HELD_MESSAGE, id="message"),
            pytest.param(ExpiryAnswer({"answer": ["No"]}), id="expiry"),
            pytest.param(Interrupted(Custom(), {"ask": [{"n": 1}]}), id="interrupted"),
        ],
    )
    def test_held_json_cannot_change_through_any_builder(
        self, build: Callable[[object], object], record: object
    ) -> None:
        """A record's JSON cannot be changed in place (TypeError), however built."""
        built = build(record)
        found = containers(held_json(built))[1:]  # the list held_json made
        assert len(found) >= 2
        for item in found:
            assert type(item) in {FrozenObject, FrozenArray}
            with pytest.raises(TypeError):
                _change(item, 0)
        assert built == record
        assert dumps(built) == dumps(record)

    def test_stored_and_sealed_turns_hold_frozen_json(self) -> None:
        """A turn read from a store or a sealed token holds JSON that cannot change."""
        sealer = Sealer({"k1": bytes.fromhex("8f3a" * 16)}, "k1")
        read_back = [sealer.open(sealer.seal(OWNED_TURN, now=NOW), now=NOW)]
        with tempfile.TemporaryDirectory() as where:
            sqlite = SqliteStore(Path(where) / "store.db")
            try:
                for store in (MemoryStore(), sqlite):
                    asyncio.run(store.save("s-1", OWNED_TURN.messages, OWNED_TURN))
                    found = asyncio.run(store.load_turn("s-1", 1))
                    assert found is not None
                    read_back.append(found.turn)
            finally:
                asyncio.run(sqlite.close())
        for turn in read_back:
            held = containers(held_json(turn))[1:]
            assert held
            assert all(type(item) in {FrozenObject, FrozenArray} for item in held)
            assert verdicts(turn) == verdicts(OWNED_TURN)

    def test_what_unstructure_gives_cannot_change_the_record(self) -> None:
        """The JSON fields `unstructure` gives are the record's own, frozen values."""
        pending = loads(dumps(APPROVAL), PendingInterrupt)
        document = unstructure(pending)
        assert isinstance(document, dict)
        assert document["payload"] is pending.payload
        assert unstructure(pending.payload) is pending.payload
        with pytest.raises(TypeError):
            document["payload"]["input"]["amount"] = 1  # type: ignore[call-overload,index]
        assert pending.tool is not None
        assert pending.tool.input == {"to": "ACME", "amount": 125000}
        document["payload"] = {"input": {"amount": 1}}
        assert pending == loads(dumps(APPROVAL), PendingInterrupt)

    def test_a_spelling_decoded_later_is_not_the_callers(self) -> None:
        """A schema a caller changed after decoding reaches no later record."""
        document = json.loads(dumps(QUESTION))
        first = structure(document, PendingInterrupt)
        document["accepts"]["respond"]["enum"].append("Maybe")
        later = loads(dumps(QUESTION), PendingInterrupt)
        for pending in (first, later):
            assert pending.accepts.respond == {"enum": ["Yes", "No"]}
            with pytest.raises(ResumeRejected):
                pending.respond("Maybe")

    def test_held_schemas_cannot_change(self) -> None:
        """A schema read off a record raises TypeError on any change."""
        pending = loads(dumps(QUESTION), PendingInterrupt)
        respond = pending.accepts.respond
        assert respond is not None
        with pytest.raises(TypeError):
            respond["enum"].append("Maybe")  # type: ignore[union-attr]
        with pytest.raises(TypeError):
            respond["type"] = "string"
        assert not pending.fits(Respond("ask_user", "call-2", "Maybe"))

    def test_a_schema_deepened_after_use_still_saves_what_reads_back(self) -> None:
        """A schema nested past MAX_DEPTH after its first use is not what is saved."""
        schema: dict[str, JSON] = {"enum": ["Yes", "No"]}
        pending = attrs.evolve(QUESTION, accepts=Accepts(respond=schema))
        assert not pending.fits(Respond("ask_user", "call-2", "Maybe"))
        deep: JSON = "Maybe"
        for _ in range(MAX_DEPTH + 5):
            deep = [deep]
        schema["enum"] = [deep]
        again = loads(dumps(pending), PendingInterrupt)
        assert again == pending
        assert again.accepts.respond == {"enum": ["Yes", "No"]}


class TestJsonFields:
    """Each JSON field of a record checks what it is given, and names its own path."""

    @pytest.mark.parametrize(
        ("build", "path"),
        [
            (lambda bad: Respond("t", "r", bad), "$.output"),
            (lambda bad: Restart("t", "r", bad), "$.resumed"),
            (lambda bad: Restart("t", "r", None, bad), "$.input"),
            (ExpiryAnswer, "$.output"),
            (lambda bad: ToolRequest("t", "r", bad), "$.input"),
            (lambda bad: ToolResponse("t", "r", bad), "$.output"),
            (
                lambda bad: PendingInterrupt("p", Custom(), bad, None, Accepts()),
                "$.payload",
            ),
        ],
    )
    def test_a_value_that_is_not_json_is_refused_at_the_field(
        self, build: Callable[[object], object], path: str
    ) -> None:
        """A record refuses a NaN inside a JSON field, at the field's own path."""
        with pytest.raises(PayloadError) as caught:
            build({"a": [1, math.nan]})
        assert [problem.path for problem in caught.value.problems] == [f"{path}.a[1]"]


class TestResumeEntries:
    """A `Resume` holds only entries of its own kind, checked when built."""

    def test_a_respond_among_restarts_is_refused_naming_its_place(self) -> None:
        """A `Respond` given as a restart is a FieldTypeError at ``restart[i]``."""
        with pytest.raises(FieldTypeError, match=r"restart\[1\]: expected Restart"):
            Resume(restart=[Restart("a", "r1"), Respond("a", "r2", "x")])  # type: ignore[list-item]

    def test_a_restart_among_responds_is_refused_naming_its_place(self) -> None:
        """A `Restart` given as a respond is a FieldTypeError at ``respond[0]``."""
        with pytest.raises(FieldTypeError, match=r"respond\[0\]: expected Respond"):
            Resume(respond=[Restart("a", "r1")])  # type: ignore[list-item]

    @pytest.mark.parametrize("entries", [5, "ab", {"a": 1}, None])
    def test_entries_that_are_no_sequence_are_refused(self, entries: object) -> None:
        """A field that is not a sequence of entries is a FieldTypeError."""
        with pytest.raises(FieldTypeError, match="respond: expected a sequence"):
            Resume(respond=entries)  # type: ignore[arg-type]
