"""`ToolApproval` runs one call per task, or refuses before anything runs.

LangGraph runs a paused task again from its start on resume: behind its own
``tools_condition`` a ``ToolNode`` runs every call of a message in one task,
so a pause of one call would run the others (an approved transfer) again.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Annotated, TypedDict

import attrs
import pytest
from interruption import InterruptionError, MemoryStore, Resume
from interruption.adapters.langgraph import (
    ToolApproval,
    ToolRoutingError,
    ask,
    pending,
    resume,
    send_tool_calls,
)
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolCall
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode, tools_condition

THREADS = itertools.count()

TRANSFER: ToolCall = {
    "name": "transfer",
    "args": {"to": "ACME", "amount": 5},
    "id": "c1",
}
QUESTION: ToolCall = {"name": "ask_user", "args": {"question": "Why?"}, "id": "q1"}


class Chat(TypedDict):
    """A conversation."""

    messages: Annotated[list[AnyMessage], add_messages]


@attrs.define
class Bank:
    """Counts the transfers that ran."""

    sent: int = 0

    def tools(self) -> list[BaseTool]:
        """A transfer that counts its runs, and a tool that asks the user."""

        @tool
        def transfer(to: str, amount: int) -> str:
            """Send money."""
            self.sent += 1
            return f"sent {amount} to {to}"

        @tool
        def ask_user(question: str) -> str:
            """Ask the user."""
            return str(ask({"question": question}, answer={"type": "string"}))

        return [transfer, ask_user]


def graph(
    bank: Bank, calls: list[ToolCall], *, routed: bool, plain: bool = False
) -> CompiledStateGraph[Chat]:
    """A model asking for *calls* at once, routed by ``tools_condition`` or not."""

    def model(state: Chat) -> Chat:
        if isinstance(state["messages"][-1], HumanMessage):
            return {"messages": [AIMessage("", tool_calls=calls)]}
        return {"messages": [AIMessage("done")]}

    gate = ToolApproval({"transfer"})
    node = (
        ToolNode(bank.tools(), wrap_tool_call=gate, awrap_tool_call=gate.acall)
        if plain
        else gate.node(bank.tools())
    )
    builder = StateGraph(Chat)
    builder.add_node("model", model)
    builder.add_node("tools", node)
    builder.add_edge(START, "model")
    builder.add_conditional_edges(
        "model", send_tool_calls("tools") if routed else tools_condition
    )
    builder.add_edge("tools", "model")
    return builder.compile(checkpointer=InMemorySaver())


def thread() -> RunnableConfig:
    """A config naming a fresh thread."""
    return {"configurable": {"thread_id": f"routing-{next(THREADS)}"}}


FIRST: Chat = {"messages": [HumanMessage("pay")]}


def run(lg: CompiledStateGraph[Chat], config: RunnableConfig, *, awaited: bool) -> None:
    """Start *lg* on *config*, synchronously or not."""
    if awaited:
        asyncio.run(lg.ainvoke(FIRST, config))
    else:
        lg.invoke(FIRST, config)


class TestToolsCondition:
    """Behind ``tools_condition``, a gated node takes one call per task."""

    @pytest.mark.parametrize("awaited", [False, True])
    def test_two_calls_in_one_task_are_refused_before_either_runs(
        self, awaited: bool
    ) -> None:
        """An approval beside a question in one task is refused; nothing ran."""
        bank = Bank()
        lg = graph(bank, [TRANSFER, QUESTION], routed=False)
        with pytest.raises(ToolRoutingError) as refused:
            run(lg, thread(), awaited=awaited)
        assert (refused.value.reason, refused.value.refs) == (
            "shared_task",
            ("c1", "q1"),
        )
        assert isinstance(refused.value, InterruptionError)
        assert isinstance(refused.value, ValueError)
        assert bank.sent == 0

    def test_one_call_behind_tools_condition_runs_once(self) -> None:
        """A single gated call behind tools_condition pauses and runs once."""
        bank = Bank()
        lg = graph(bank, [TRANSFER], routed=False)
        config = thread()
        lg.invoke(FIRST, config)
        store = MemoryStore()
        (held,) = pending(lg, config, store)
        resume(lg, config, Resume(restart=[held.approve()]), store)
        assert bank.sent == 1
        assert pending(lg, config, store) == ()

    def test_routed_calls_each_run_once(self) -> None:
        """With send_tool_calls, the approval and the question each pause alone."""
        bank = Bank()
        lg = graph(bank, [TRANSFER, QUESTION], routed=True)
        config = thread()
        lg.invoke(FIRST, config)
        store = MemoryStore()
        approval, question = pending(lg, config, store)
        answer = Resume(restart=[approval.approve()], respond=[question.respond("ok")])
        resume(lg, config, answer, store)
        assert bank.sent == 1
        assert pending(lg, config, store) == ()


class TestPlainToolNode:
    """The gate runs only in the node `ToolApproval.node` builds."""

    @pytest.mark.parametrize("awaited", [False, True])
    def test_a_gate_in_a_plain_tool_node_is_refused(self, awaited: bool) -> None:
        """A gate wired into a plain ToolNode cannot count its task's calls: refused."""
        bank = Bank()
        lg = graph(bank, [TRANSFER], routed=True, plain=True)
        with pytest.raises(ToolRoutingError) as refused:
            run(lg, thread(), awaited=awaited)
        assert (refused.value.reason, refused.value.refs) == ("ungated_node", ("c1",))
        assert bank.sent == 0
