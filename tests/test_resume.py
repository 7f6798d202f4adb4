from __future__ import annotations

from datetime import UTC, datetime

import pytest
from interruption import (
    JSON,
    Accepts,
    ApprovalPending,
    Confirm,
    Custom,
    DecodeError,
    Input,
    InterruptedTurn,
    Message,
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
    unstructure,
)
from interruption.approval import DECISION_SCHEMA

NOW = datetime(2026, 11, 21, 23, 0, tzinfo=UTC)
N_INPUT: dict[str, JSON] = {"type": "object", "properties": {"n": {"type": "integer"}}}


@pytest.fixture(name="question")
def _question() -> PendingInterrupt:
    return PendingInterrupt(
        id="call-2",
        kind=Custom(),
        payload=unstructure(Confirm("Invoice", "Pay INV-7 today?")),
        tool=ToolRequest("ask_user", "call-2", {"question": "Pay INV-7 today?"}),
        accepts=Accepts(respond={"enum": ["Yes", "No"]}),
    )


@pytest.fixture(name="approval")
def _approval() -> PendingInterrupt:
    request = ToolRequest("transfer_money", "call-1", {"to": "ACME", "amount": 125000})
    return PendingInterrupt(
        id="call-1",
        kind=ApprovalPending("call-1"),
        payload={"tool": request.name, "input": request.input},
        tool=request,
        accepts=Accepts(restart=DECISION_SCHEMA),
        expires_at=NOW,
    )


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
        """An approval takes no client-made result."""
        with pytest.raises(ResumeRejected) as caught:
            approval.respond({"status": "sent"})
        assert code_of(caught) is ProblemCode.ANSWER_NOT_ACCEPTED

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
        """A tool's own pause (restart schema is not a decision) takes no approval."""
        with pytest.raises(ResumeRejected) as caught:
            paused(replace=False).approve()
        assert code_of(caught) is ProblemCode.ANSWER_NOT_ACCEPTED

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


class TestInterruptedTurn:
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
