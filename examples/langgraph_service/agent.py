"""A small LangGraph graph that pauses for people: what the service runs.

No network: a scripted "model" node reads the user's first message. ``pay
N`` asks for ``transfer_money`` (N cents to ACME), which `ToolApproval`
holds for a person above `LIMIT`; anything else goes to the ``question``
node, which asks the person with `ask` whether to go ahead. The
checkpoints live in a ``SqliteSaver`` (durable: a restarted process picks
a paused thread up where it was); the spent marks and the audit trail in
an interruption `Store`.
"""

from __future__ import annotations

import json
import re
import sqlite3
from typing import TYPE_CHECKING, Annotated, Final, TypedDict, final

from interruption import JSON, Store
from interruption.adapters.langgraph import (
    GraphBridge,
    ToolApproval,
    ask,
    bridge,
    send_tool_calls,
)
from interruption.prompts import Confirm
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    HumanMessage,
    ToolCall,
    ToolMessage,
)
from langchain_core.tools import tool
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages

from examples.service.agent import LIMIT, may_answer

if TYPE_CHECKING:
    from pathlib import Path

    from langgraph.graph.state import CompiledStateGraph

__all__ = ["PAY", "Chat", "GraphAgent"]

PAY: Final = re.compile(r"\bpay (\d+)\b")
"""The words that ask for a transfer: ``pay`` and an amount in cents."""


class Chat(TypedDict):
    """The graph's state: the conversation."""

    messages: Annotated[list[AnyMessage], add_messages]


def _first(state: Chat) -> str:
    return state["messages"][0].text


def _amount(text: str) -> int:
    """The cents *text* asks to pay (``pay N``), or 0."""
    found = PAY.search(text.lower())
    return int(found.group(1)) if found else 0


def _route(state: Chat) -> str:
    """From the start: a transfer to the model, anything else to the question."""
    return "model" if _amount(_first(state)) else "question"


def _model(state: Chat) -> Chat:
    """The scripted model: call ``transfer_money``, then report what it read."""
    last = state["messages"][-1]
    if isinstance(last, HumanMessage):
        call: ToolCall = {
            "name": "transfer_money",
            "args": {"to": "ACME", "amount": _amount(last.text)},
            "id": "call-1",
        }
        return {"messages": [AIMessage("", tool_calls=[call])]}
    read = "; ".join(
        message.text
        for message in state["messages"]
        if isinstance(message, ToolMessage)
    )
    return {"messages": [AIMessage(f"Done. {read}")]}


def _question(state: Chat) -> Chat:
    """Ask the person whether to go ahead; LangGraph runs this again on resume."""
    said = ask(Confirm(title="Question", text=_first(state)))
    return {"messages": [AIMessage(f"You said {said}.")]}


def _held(call: ToolCall) -> bool:
    """Transfers above `LIMIT` wait for a person."""
    amount = call["args"].get("amount")
    return isinstance(amount, int) and amount > LIMIT


@final
class GraphAgent:
    """The graph over a SQLite checkpoint file, and the store beside it.

    Args:
        checkpoints: The ``SqliteSaver`` file (``":memory:"`` for one process).
        store: Where spent marks and the audit trail live.

    Attributes:
        graph: The compiled graph.
        checkpoints: Its ``SqliteSaver``.
        store: As given.
        sent: Every transfer that really ran, in order.
        bridge: Its threads' pauses, for the inbox (`bridge`: the approvers
            of `may_answer` see and answer them).
    """

    def __init__(self, checkpoints: str | Path, store: Store) -> None:
        self.store = store
        self.sent: list[JSON] = []
        # One connection, shared by the service's worker threads: SqliteSaver
        # serializes its own use of it with a lock.
        connection = sqlite3.connect(checkpoints, check_same_thread=False)
        self._connection = connection
        self.checkpoints = SqliteSaver(connection)
        self.graph: CompiledStateGraph[Chat] = self._build()
        self.bridge: GraphBridge[Chat, None, Chat, Chat] = bridge(
            self.graph, store, self.threads, authorize=may_answer, blocking=True
        )

    def threads(self) -> list[str]:
        """Every thread the checkpoints hold, newest checkpoint first."""
        self.checkpoints.setup()
        with self.checkpoints.lock:
            rows = self._connection.execute(
                "SELECT thread_id FROM checkpoints "
                "GROUP BY thread_id ORDER BY MAX(checkpoint_id) DESC"
            ).fetchall()
        return [str(row[0]) for row in rows]

    def _build(self) -> CompiledStateGraph[Chat]:
        sent = self.sent

        @tool
        def transfer_money(to: str, amount: int) -> str:
            """Send money (amount in cents)."""
            sent.append({"to": to, "amount": amount})
            return json.dumps({"status": "sent", "to": to, "amount": amount})

        builder = StateGraph(Chat)
        builder.add_node("model", _model)
        builder.add_node("question", _question)
        builder.add_node("tools", ToolApproval(_held).node([transfer_money]))
        builder.add_conditional_edges(START, _route, ["model", "question"])
        builder.add_conditional_edges("model", send_tool_calls("tools"))
        builder.add_edge("tools", "model")
        builder.add_edge("question", END)
        return builder.compile(checkpointer=self.checkpoints)
