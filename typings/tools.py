"""Typing tests for the tool layer: checked by mypy, never run."""

from __future__ import annotations

from typing import assert_type

import attrs
from interruption import (
    JSON,
    Accepts,
    InterruptionKind,
    PendingInterrupt,
    Respond,
    Restart,
    Tool,
    ToolContext,
    define_interrupt,
    tool,
)
from interruption.prompts import Confirm, Input, Prompt
from interruption.runtime.approval import (
    Approve,
    Approver,
    Reject,
    by_tool,
    decision_from_json,
    when,
)


@attrs.frozen
class Transfer:
    to: str
    amount: int


@attrs.frozen
class Receipt:
    id: str


@attrs.frozen
class Note:
    text: str


def builders(pending: PendingInterrupt) -> None:
    assert_type(pending.respond("Yes"), Respond)
    assert_type(pending.restart(), Restart)
    assert_type(pending.restart({"go": True}, replace_input={"n": 1}), Restart)
    assert_type(pending.approve(), Restart)
    assert_type(pending.approve("checked"), Restart)
    assert_type(pending.reject("wrong account"), Restart)
    assert_type(pending.payload_as(Confirm), Confirm)
    pending.respond({1, 2})  # type: ignore[arg-type]
    pending.reject(None)  # type: ignore[arg-type]
    pending.approve(note=5)  # type: ignore[arg-type]
    pending.restart(None, {"n": 1})  # type: ignore[call-arg]


@tool(input=Transfer, output=Receipt, resume=Note)
def pay(ctx: ToolContext[Note], transfer: Transfer) -> Receipt:
    assert_type(ctx.restarted, bool)
    assert_type(ctx.approved, bool)
    assert_type(ctx.original_input, JSON)
    assert_type(ctx.resumed, Note | None)
    if ctx.resumed is None:
        ctx.interrupt({"to": transfer.to})
    assert_type(ctx.resumed, Note)
    return Receipt(ctx.resumed.text)


assert_type(pay, Tool[Transfer, Receipt, Note])


async def contract(ctx: ToolContext[Note], kind: InterruptionKind) -> None:
    assert_type(await pay.invoke(ctx, {"to": "A", "amount": 1}), JSON)
    assert_type(pay.accepts(kind), Accepts)
    pay.accepts("approval")  # type: ignore[arg-type]


@tool(input={"type": "object"}, output={"type": "string"})
def echo(ctx: ToolContext[JSON], data: JSON) -> JSON:
    assert_type(ctx.resumed, JSON | None)
    return data


assert_type(echo, Tool[JSON, JSON, JSON])


@tool(input=Transfer, output={"type": "object"}, resume={"type": "string"})
async def later(_ctx: ToolContext[JSON], transfer: Transfer) -> JSON:
    return {"to": transfer.to}


assert_type(later, Tool[Transfer, JSON, JSON])

ask = define_interrupt("ask", "Ask", input=Transfer, output={"type": "string"})
assert_type(ask, Tool[JSON, JSON, JSON])


# A tool declared with a resume class takes a context of that class.
@tool(input=Transfer, output=Receipt, resume=Note)  # type: ignore[arg-type]
def wrong_context(_ctx: ToolContext[Receipt], transfer: Transfer) -> Receipt:
    return Receipt(transfer.to)


# The function's input must be the input class.
@tool(input=Transfer, output=Receipt)  # type: ignore[arg-type]
def wrong_input(_ctx: ToolContext[JSON], note: Note) -> Receipt:
    return Receipt(note.text)


# The function must return the output class.
@tool(input=Transfer, output=Receipt)  # type: ignore[arg-type]
def wrong_output(_ctx: ToolContext[JSON], transfer: Transfer) -> Note:
    return Note(transfer.to)


def decisions(data: JSON) -> None:
    match decision_from_json(data):
        case Approve(note=note):
            assert_type(note, str | None)
        case Reject(reason=reason):
            assert_type(reason, str)


# A tool without resume data: its context is ToolContext[None] (or JSON).
@tool(input=Transfer, output=Receipt)
def no_resume(ctx: ToolContext[None], transfer: Transfer) -> Receipt:
    assert_type(ctx.resumed, None)
    return Receipt(transfer.to)


assert_type(no_resume, Tool[Transfer, Receipt, None])


# Without resume=, a context of a class is refused: resumed is always None.
@tool(input=Transfer, output=Receipt)  # type: ignore[type-var]
def class_context(_ctx: ToolContext[Note], transfer: Transfer) -> Receipt:
    return Receipt(transfer.to)


def prompts(prompt: Prompt) -> None:
    assert_type(Confirm("Invoice", "Pay INV-7?").default_answer, str)
    assert_type(Input("Note", "Why?").default_answer, str)
    assert_type(prompt.default_answer, str)
    assert_type(prompt.answer_schema, dict[str, JSON])


def over_limit(transfer: Transfer) -> bool:
    return transfer.amount > 10000


def approvers() -> None:
    assert_type(when(over_limit, input=Transfer), Approver)
    assert_type(when(lambda t: t.amount > 10000, input=Transfer), Approver)
    assert_type(by_tool({"pay": when(lambda call: call.name == "pay")}), Approver)
    when(lambda t: t.memo == "", input=Transfer)  # type: ignore[attr-defined]
    when(over_limit, input=Note)  # type: ignore[arg-type]
    when(over_limit)  # type: ignore[arg-type]
