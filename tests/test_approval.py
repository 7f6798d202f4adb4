from __future__ import annotations

import asyncio

import pytest
from interruption import DecodeError, ToolRequest
from interruption._schemacheck import conforms
from interruption.approval import (
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
