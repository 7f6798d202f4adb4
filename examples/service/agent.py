"""A small scripted agent that pauses for people: what the service runs.

No network: the model reads the conversation (so a restarted process
picks a paused session up where it was) and asks for tool calls by the
words of the user's first message: ``pay N``, ``confirm``, ``book``,
``email``, ``batch`` (two transfers and a question at once) and
``script`` (a question whose text carries markup).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Final, final

from interruption import (
    JSON,
    ExpiryAnswer,
    Message,
    ModelRequest,
    PauseSchedule,
    PendingInterrupt,
    Role,
    Session,
    Store,
    Tool,
    ToolContext,
    ToolRequest,
    by_tool,
    define_interrupt,
    tool,
    when,
)
from interruption.testing import ScriptedModel

__all__ = ["APPROVERS", "LIMIT", "Agent", "open_session"]

LIMIT: Final = 10_000
"""Transfers above this many cents wait for a person."""

APPROVERS: Final = frozenset({"alice", "bob"})
"""Who may see and answer this agent's pauses."""

ROOM: Final[dict[str, JSON]] = {
    "type": "object",
    "properties": {
        "nights": {"type": "integer", "minimum": 1, "description": "How long."},
        "guests": {"type": "integer", "minimum": 1},
        "breakfast": {"type": "boolean"},
        "room": {"enum": ["single", "double", "suite"]},
        "budget": {"type": "number"},
        "notes": {"type": "string"},
    },
    "required": ["nights", "guests", "breakfast", "room"],
    "additionalProperties": False,
}
"""The typed answer ``book_room`` asks for."""

EMAIL: Final[dict[str, JSON]] = {
    "type": "object",
    "properties": {
        "to": {"type": "string", "minLength": 3},
        "subject": {"type": "string", "maxLength": 80},
        "urgent": {"type": "boolean"},
    },
    "required": ["to", "subject", "urgent"],
    "additionalProperties": False,
}
"""The arguments of ``send_email``, which a person may edit before it runs."""


DEPLOY: Final[dict[str, JSON]] = {
    "type": "object",
    "properties": {"service": {"type": "string"}},
    "required": ["service"],
}
"""The arguments of ``deploy``."""

WINDOW: Final[dict[str, JSON]] = {
    "type": "object",
    "properties": {
        "window": {"enum": ["now", "tonight"]},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["window"],
    "additionalProperties": False,
}
"""What a person gives ``deploy`` to run it again: when, and release tags."""


SLOTS: Final[dict[str, JSON]] = {
    "anyOf": [
        {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"day": {"type": "string"}, "hour": {"type": "integer"}},
                "required": ["day", "hour"],
                "additionalProperties": False,
            },
        },
        {"type": "null"},
    ]
}
"""An answer beyond form fields (a union): the page gives it a JSON editor."""


def _tools(sent: list[JSON]) -> list[Tool[JSON, JSON, JSON]]:
    @tool(
        input={
            "type": "object",
            "properties": {"to": {"type": "string"}, "amount": {"type": "integer"}},
            "required": ["to", "amount"],
            "additionalProperties": False,
        },
        output={"type": "object"},
    )
    def transfer_money(_ctx: ToolContext[JSON], data: JSON) -> JSON:
        """Send money (amount in cents)."""
        sent.append(data)
        return {"status": "sent", "transfer": data}

    @tool(input=EMAIL, output={"type": "object"}, replace_input=True)
    def send_email(_ctx: ToolContext[JSON], data: JSON) -> JSON:
        """Send an email."""
        sent.append(data)
        return {"status": "sent", "email": data}

    @tool(input=DEPLOY, output={"type": "object"}, resume=WINDOW)
    def deploy(ctx: ToolContext[JSON], data: JSON) -> JSON:
        """Deploy a service, once a person picks the window."""
        if not ctx.restarted:
            ctx.interrupt({"title": "Deploy", "text": "When should it roll out?"})
        sent.append(data)
        return {"status": "deployed", "plan": ctx.resumed}

    ask_user = define_interrupt(
        "ask_user",
        "Ask the human a question with choices.",
        input={"type": "object"},
        output={"type": "string"},
        on_expiry=ExpiryAnswer("No"),
    )
    book_room = define_interrupt(
        "book_room",
        "Ask the human how to book a room.",
        input={"type": "object"},
        output=ROOM,
    )
    plan_slots = define_interrupt(
        "plan_slots",
        "Ask the human for meeting slots, or none.",
        input={"type": "object"},
        output=SLOTS,
    )
    return [transfer_money, send_email, deploy, ask_user, book_room, plan_slots]


def _confirm(title: str, text: str) -> JSON:
    return {"type": "confirm", "title": title, "text": text, "choices": ["Yes", "No"]}


def _calls(text: str) -> tuple[ToolRequest, ...]:
    words = text.lower().split()
    if "batch" in words:
        acme: JSON = {"to": "ACME", "amount": 125_000}
        globex: JSON = {"to": "Globex", "amount": 48_000}
        question = _confirm("Invoice", "Pay both today?")
        return (
            ToolRequest("transfer_money", ref="t-1", input=acme),
            ToolRequest("transfer_money", ref="t-2", input=globex),
            ToolRequest("ask_user", ref="q-1", input=question),
        )
    if "pay" in words:
        amount = int(words[words.index("pay") + 1])
        return (ToolRequest("transfer_money", input={"to": "ACME", "amount": amount}),)
    if "book" in words:
        return (ToolRequest("book_room", input={"hotel": "Grand Hotel"}),)
    if "email" in words:
        draft: JSON = {"to": "team@example.com", "subject": "Status", "urgent": False}
        return (ToolRequest("send_email", input=draft),)
    if "slots" in words:
        question = {"title": "Slots", "text": "Which slots suit you?"}
        return (ToolRequest("plan_slots", input=question),)
    if "deploy" in words:
        return (ToolRequest("deploy", input={"service": "billing"}),)
    if "script" in words:
        title = "<script>document.title='pwned'</script>"
        question = "<img src=x onerror=\"document.title='pwned'\"> Proceed?"
        return (ToolRequest("ask_user", input=_confirm(title, question)),)
    return (ToolRequest("ask_user", input=_confirm("Question", text)),)


def script(request: ModelRequest) -> Message:
    """The model: call tools for the first message, then report the results."""
    last = request.messages[-1]
    if last.role is Role.TOOL:
        said = "; ".join(
            f"{part.name}: {json.dumps(part.output)}" for part in last.tool_responses
        )
        return Message.of_text(Role.MODEL, f"Done. {said}")
    return Message(Role.MODEL, _calls(last.text))


def may_answer(principal: str | None, _pending: PendingInterrupt) -> bool:
    """Only the approvers may see or answer a pause."""
    return principal in APPROVERS


@final
class Agent:
    """The agent over one store: start runs, reopen sessions to answer them.

    Args:
        store: Where sessions live.
        now: The sessions' clock (UTC); the wall clock when None.

    Attributes:
        sent: Every transfer and email that really ran, in order.
    """

    def __init__(
        self, store: Store, *, now: Callable[[], datetime] | None = None
    ) -> None:
        self.store = store
        self.now = now
        self.sent: list[JSON] = []
        self._tools = _tools(self.sent)

    def open(
        self, session: str | None = None, *, ttl: timedelta | None = None
    ) -> Session:
        """The session *session* (a new one when None), ready to answer."""
        return Session(
            self.store,
            ScriptedModel(script),
            self._tools,
            id=session,
            approver=by_tool(
                {"transfer_money": when(lambda call: _amount(call) > LIMIT)}
            ),
            schedule=PauseSchedule(before={"send_email"}),
            ttl=ttl,
            authorize=may_answer,
            expiry_answers=True,
            now=self.now,
        )

    async def start(self, text: str, *, ttl: timedelta | None = None) -> Session:
        """Start a run with the user's *text*; it may pause."""
        session = self.open(ttl=ttl)
        await session.send(text)
        return session


def _amount(call: ToolRequest) -> int:
    data = call.input
    amount = data.get("amount") if isinstance(data, dict) else None
    return amount if isinstance(amount, int) else 0


def open_session(store: Store) -> Callable[[str], Session]:
    """What ``interruption inbox --agent examples.service.agent:open_session`` needs."""
    return Agent(store).open
