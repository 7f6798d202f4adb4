"""The LangGraph row: a ``ToolNode`` graph, its pauses made by the adapter.

A scripted "model" node asks for the plan's tool; ``transfer_money`` is held
by `ToolApproval`, ``ask_user`` pauses with `ask` and `ANSWER_SCHEMA`. The
checkpoints live in a ``SqliteSaver`` file and the spent marks in a
`SqliteStore` file under *where*; each harness is one process (a fresh
graph, a fresh connection to each file).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, TypedDict

import attrs
from interruption import JSON, AuditEvent, PendingInterrupt, Resume, SqliteStore
from interruption.adapters.langgraph import (
    ToolApproval,
    ask,
    pending,
    resume,
    send_tool_calls,
)
from interruption.testing.conformance import (
    ANSWER_SCHEMA,
    QUESTION,
    TRANSFER,
    Harness,
    Plan,
)
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.graph.state import CompiledStateGraph

from tests.adapters._common import Effects

NAME = "langgraph"


class State(TypedDict):
    """The graph's state: the conversation."""

    messages: Annotated[list[AnyMessage], add_messages]


@attrs.define
class World(Effects):
    """What every process of one conversation shares: effects and what was seen."""

    where: Path
    transfers: int = 0
    during: Callable[[], None] | None = None
    seen: list[JSON] = attrs.Factory(list)
    threads: itertools.count[int] = attrs.Factory(itertools.count)
    thread: str = ""


def build(world: World, connection: sqlite3.Connection) -> CompiledStateGraph[State]:
    """The graph of one process, over *connection* to the checkpoint file."""

    @tool
    def transfer_money(to: str, amount: int) -> str:
        """Send money."""
        world.transfer()
        return json.dumps({"status": "sent", "to": to, "amount": amount})

    @tool
    def ask_user(question: str) -> str:
        """Ask the user a question."""
        answer = ask({"question": question}, answer=ANSWER_SCHEMA)
        return str(answer)

    def model(state: State) -> dict[str, list[AnyMessage]]:
        last = state["messages"][-1]
        if isinstance(last, HumanMessage):
            if last.content == "transfer":
                call = {"name": "transfer_money", "args": TRANSFER, "id": "call-1"}
            else:
                call = {"name": "ask_user", "args": {"question": QUESTION}, "id": "q-1"}
            return {"messages": [AIMessage("", tool_calls=[call])]}
        for message in reversed(state["messages"]):
            if not isinstance(message, ToolMessage):
                break
            world.seen.append(message.content)  # type: ignore[arg-type]
        return {"messages": [AIMessage("done")]}

    gate = ToolApproval({"transfer_money"})
    builder = StateGraph(State)
    builder.add_node("model", model)
    builder.add_node("tools", gate.node([transfer_money, ask_user]))
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", send_tool_calls("tools"))
    builder.add_edge("tools", "model")
    return builder.compile(checkpointer=SqliteSaver(connection))


class LangGraphHarness:
    """A graph on a ``SqliteSaver`` file and a `SqliteStore` file."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.connection = sqlite3.connect(
            world.where / "checkpoints.db", check_same_thread=False, timeout=30
        )
        self.graph = build(world, self.connection)
        self.store = SqliteStore(world.where / "store.db")

    @property
    def config(self) -> RunnableConfig:
        """The conversation's thread."""
        return {"configurable": {"thread_id": self.world.thread}}

    async def pause(self, plan: Plan) -> Sequence[PendingInterrupt]:
        """Start a fresh thread with the plan; return what is pending."""
        self.world.thread = f"conformance-{next(self.world.threads)}"
        first: State = {"messages": [HumanMessage(plan)]}
        await asyncio.to_thread(lambda: self.graph.invoke(first, self.config))
        return await asyncio.to_thread(pending, self.graph, self.config)

    async def resume(self, answer: Resume) -> None:
        """Resume through the adapter (in a worker thread: SqliteSaver is sync)."""
        await asyncio.to_thread(resume, self.graph, self.config, answer, self.store)

    def transfers(self) -> int:
        """How often the transfer ran."""
        return self.world.transfers

    def during_transfer(self, hook: Callable[[], None]) -> None:
        """Call *hook* inside the next transfer, before its effect."""
        self.world.during = hook

    def seen(self) -> Sequence[JSON]:
        """What the model saw."""
        return tuple(self.world.seen)

    async def audit(self) -> Sequence[AuditEvent]:
        """The store's audit trail of this conversation."""
        return await self.store.audit(self.world.thread)

    async def reopen(self) -> Harness:
        """A new process over the same files."""
        return LangGraphHarness(self.world)


def harness(where: Path) -> Harness:
    """A fresh conversation kept under *where*."""
    return LangGraphHarness(World(where))
