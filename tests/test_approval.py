from __future__ import annotations

import asyncio

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from interruption import (
    JSON,
    ArgumentTypeError,
    DecodeError,
    Message,
    Role,
    ToolContext,
    ToolRequest,
    generate_sync,
    tool,
)
from interruption.runtime.approval import (
    DECISION_SCHEMA,
    Approve,
    Approver,
    AwaitExternal,
    Decision,
    Reject,
    always,
    await_human,
    by_tool,
    decide,
    decision_from_json,
    decision_to_json,
    never,
    when,
)
from interruption.schemas import conforms
from interruption.testing import ScriptedModel

BIG = ToolRequest("transfer_money", "call-1", {"amount": 125000})
SMALL = ToolRequest("transfer_money", "call-2", {"amount": 5})
OTHER = ToolRequest("lookup", "call-3", {})


def over_100(request: ToolRequest) -> bool:
    """The seed's rule."""
    assert isinstance(request.input, dict)
    amount = request.input.get("amount", 0)
    assert isinstance(amount, int)
    return amount > 100


def ask(approver: Approver, request: ToolRequest) -> Decision:
    """Run decide() to its answer."""
    return asyncio.run(decide(approver, request))


class TestApprove:
    def test_note_is_optional_text(self) -> None:
        """A note is a string or None."""
        assert Approve().note is None
        assert Approve("").note == ""
        with pytest.raises(TypeError, match=r"^note: expected a string, got 5$"):
            Approve(5)  # type: ignore[arg-type]


class TestReject:
    def test_reason_is_required(self) -> None:
        """A rejection needs a non-empty reason."""
        assert Reject("no").reason == "no"
        with pytest.raises(ValueError, match="reason"):
            Reject("")


class TestWireForm:
    @pytest.mark.parametrize(
        ("decision", "wire"),
        [
            (Approve(), "approve"),
            (Approve("checked"), {"approve": {"note": "checked"}}),
            (Reject("wrong account"), {"reject": {"reason": "wrong account"}}),
        ],
    )
    def test_round_trip(self, decision: Approve | Reject, wire: object) -> None:
        """Decisions use entelix's wire form, which fits DECISION_SCHEMA."""
        assert decision_to_json(decision) == wire
        assert decision_from_json(decision_to_json(decision)) == decision
        assert conforms(decision_to_json(decision), DECISION_SCHEMA)

    def test_approve_with_an_empty_body(self) -> None:
        """{"approve": {}} is an approval without a note."""
        assert decision_from_json({"approve": {}}) == Approve()
        assert decision_from_json({"approve": {"note": None}}) == Approve()

    @pytest.mark.parametrize(
        "wire",
        [
            "reject",
            None,
            {"approve": {"note": 1}},
            {"approve": {"reason": "x"}},
            {"reject": {"reason": ""}},
            {"reject": {}},
            {"reject": {"reason": "x", "more": 1}},
            {"approve": {}, "reject": {"reason": "x"}},
            {"approve": "yes"},
        ],
    )
    def test_anything_else_is_refused(self, wire: object) -> None:
        """The decoder is strict, and agrees with DECISION_SCHEMA."""
        with pytest.raises(DecodeError):
            decision_from_json(wire)  # type: ignore[arg-type]
        assert not conforms(wire, DECISION_SCHEMA)  # type: ignore[arg-type]


class TestDecide:
    def test_policies(self) -> None:
        """always, never and await_human answer as named."""
        assert ask(always(), BIG) == Approve()
        assert ask(never(), BIG) == Reject("not allowed")
        assert ask(never("closed"), BIG) == Reject("closed")
        assert ask(await_human(), BIG) == AwaitExternal()

    def test_by_tool_and_when(self) -> None:
        """The seed's approver: transfers over 100 await a human, the rest run."""
        approver = by_tool({"transfer_money": when(over_100)})
        assert ask(approver, BIG) == AwaitExternal()
        assert ask(approver, SMALL) == Approve()
        assert ask(approver, OTHER) == Approve()

    def test_by_tool_default_and_when_branches(self) -> None:
        """Other tools get the default; when() takes both branches."""
        approver = by_tool(
            {"transfer_money": when(over_100, never("too much"), await_human())},
            default=never(),
        )
        assert ask(approver, BIG) == Reject("too much")
        assert ask(approver, SMALL) == AwaitExternal()
        assert ask(approver, OTHER) == Reject("not allowed")

    def test_async_approvers_are_awaited(self) -> None:
        """An approver may answer with an awaitable."""

        async def later(_request: ToolRequest) -> Decision:
            return Reject("later")

        assert ask(later, BIG) == Reject("later")

    def test_a_non_decision_is_refused(self) -> None:
        """An approver answering something else raises TypeError."""
        with pytest.raises(TypeError, match="'transfer_money': expected Approve"):
            ask(lambda _request: True, BIG)  # type: ignore[arg-type]

    def test_a_non_decision_is_an_argument_type_error(self) -> None:
        """The refusal is the library's ArgumentTypeError, naming the approver."""
        with pytest.raises(ArgumentTypeError) as raised:
            ask(lambda _request: True, BIG)  # type: ignore[arg-type]
        error = raised.value
        assert (error.code, error.where, error.expected, error.got) == (
            "argument_type_error",
            "approver for 'transfer_money'",
            "Approve, Reject or AwaitExternal",
            "true",
        )


@attrs.frozen
class Transfer:
    """A transfer tool's input class."""

    to: str
    amount: int


def typed_gate(then: Approver | None = None) -> Approver:
    """Transfers over 100 go to *then*, looked at through the input class."""
    return when(lambda transfer: transfer.amount > 100, then, input=Transfer)


class TestWhen:
    def test_typed_input(self) -> None:
        """With input=, the predicate gets the call's input as the class."""
        seen: list[Transfer] = []

        def over(transfer: Transfer) -> bool:
            seen.append(transfer)
            return transfer.amount > 100

        approver = when(over, input=Transfer)
        big = ToolRequest("transfer_money", "c1", {"to": "ACME", "amount": 125000})
        small = ToolRequest("transfer_money", "c2", {"to": "ACME", "amount": 5})
        assert ask(approver, big) == AwaitExternal()
        assert ask(approver, small) == Approve()
        assert seen == [Transfer("ACME", 125000), Transfer("ACME", 5)]

    @given(amount=st.integers(-(2**53) + 1, 2**53 - 1), to=st.text())
    def test_typed_and_json_predicates_agree(self, amount: int, to: str) -> None:
        """A predicate on the typed input decides as the same one on the JSON."""
        request = ToolRequest("transfer_money", "c1", {"to": to, "amount": amount})
        assert ask(typed_gate(), request) == ask(when(over_100), request)

    @pytest.mark.parametrize(
        ("data", "paths"),
        [
            ({"to": "ACME", "amount": "125000"}, ["$.input.amount"]),
            ({"to": "ACME", "amount": True}, ["$.input.amount"]),
            ({"to": "ACME"}, ["$.input.amount"]),
            ({"to": "ACME", "amount": 1, "memo": "x"}, ["$.input.memo"]),
            ([1, 2], ["$.input"]),
            (None, ["$.input"]),
        ],
    )
    def test_input_that_does_not_decode_raises(
        self, data: JSON, paths: list[str]
    ) -> None:
        """An input outside the class is a DecodeError at its $.input path."""
        request = ToolRequest("transfer_money", "c1", data)
        with pytest.raises(DecodeError) as raised:
            ask(typed_gate(always()), request)
        assert [problem.path for problem in raised.value.problems] == paths

    @pytest.mark.parametrize("answer", [None, 1, 0, "yes", [], object()])
    def test_a_non_bool_answer_raises(self, answer: object) -> None:
        """A predicate must answer True or False; anything else is a TypeError."""
        approver = when(lambda _request: answer)  # type: ignore[arg-type,return-value]
        expected = r"^when\(\) predicate for 'transfer_money': expected True or False"
        with pytest.raises(TypeError, match=expected):
            ask(approver, BIG)

    def test_a_non_bool_answer_is_an_argument_type_error(self) -> None:
        """The refusal is the library's ArgumentTypeError, naming the predicate."""
        approver = when(lambda _request: "yes")  # type: ignore[arg-type,return-value]
        with pytest.raises(ArgumentTypeError) as raised:
            ask(approver, BIG)
        error = raised.value
        assert (error.code, error.where, error.expected, error.got) == (
            "argument_type_error",
            "when() predicate for 'transfer_money'",
            "True or False",
            "'yes'",
        )

    def test_the_loop_refuses_a_call_whose_input_does_not_decode(self) -> None:
        """Fails closed: a call the typed predicate cannot read does not run."""
        ran: list[JSON] = []

        @tool(input={"type": "object"}, output={"type": "string"})
        def transfer_money(_ctx: ToolContext[JSON], data: JSON) -> JSON:
            ran.append(data)
            return "sent"

        call = ToolRequest("transfer_money", input={"to": "ACME", "amount": "lots"})
        model = ScriptedModel(
            [Message(Role.MODEL, (call,)), Message.of_text(Role.MODEL, "Stopped.")]
        )
        approver = by_tool({"transfer_money": typed_gate(always())})
        result = generate_sync(model, "Pay", tools=[transfer_money], approver=approver)
        assert ran == []
        (response,) = result.messages[-2].tool_responses
        assert "the approver failed (DecodeError: $.input.amount" in str(
            response.output
        )
