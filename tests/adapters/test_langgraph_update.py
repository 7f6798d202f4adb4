"""``Command(resume=..., update=...)``: why `resume` takes no update.

LangGraph applies an update to the state before the paused task runs again,
so an update can rewrite the call an approval was given for; the adapter
offers none, and a client that sends one itself never gets a changed call run.
"""

from __future__ import annotations

import inspect
from typing import Annotated, TypedDict

import pytest
from interruption import MemoryStore, ProblemCode, ResumeRejected
from interruption.adapters import langgraph
from interruption.adapters.langgraph import MARK, ToolApproval, pending
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolCall
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import tools_condition
from langgraph.types import Command, interrupt


class Chat(TypedDict):
    """A conversation."""

    messages: Annotated[list[AnyMessage], add_messages]


def transfer_call(to: str) -> ToolCall:
    """The model's call, paying *to*."""
    return {"name": "transfer", "args": {"to": to, "amount": 5}, "id": "c1"}


def build(sent: list[str], *, gated: bool) -> CompiledStateGraph[Chat]:
    """One transfer call behind ``tools_condition``: the adapter's gate, or plain."""

    @tool
    def transfer(to: str, amount: int) -> str:
        """Send money."""
        sent.append(to)
        return f"sent {amount} to {to}"

    def model(state: Chat) -> Chat:
        if isinstance(state["messages"][-1], HumanMessage):
            message = AIMessage("", id="m1", tool_calls=[transfer_call("ACME")])
            return {"messages": [message]}
        return {"messages": [AIMessage("done")]}

    def plain(state: Chat) -> Chat:  # LangGraph alone: approve what is there now
        (call,) = next(
            m for m in reversed(state["messages"]) if isinstance(m, AIMessage)
        ).tool_calls
        interrupt({"approve": call["args"]})
        transfer.invoke(call["args"])
        return {"messages": []}

    builder = StateGraph(Chat)
    builder.add_node("model", model)
    builder.add_node(
        "tools", ToolApproval({"transfer"}).node([transfer]) if gated else plain
    )
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", tools_condition)
    builder.add_edge("tools", "model")
    return builder.compile(checkpointer=InMemorySaver())


CONFIG: RunnableConfig = {"configurable": {"thread_id": "update"}}

REWRITE = {"messages": [AIMessage("", id="m1", tool_calls=[transfer_call("EVE")])]}
"""An update that replaces the model's message: the call now pays EVE."""


@pytest.mark.parametrize(
    "resumer",
    [
        langgraph.resume,
        langgraph.aresume,
        langgraph.resume_stream,
        langgraph.aresume_stream,
    ],
)
def test_resume_takes_no_update(resumer: object) -> None:
    """No resume of the adapter takes an update to send beside the answers."""
    assert callable(resumer)
    assert "update" not in inspect.signature(resumer).parameters


def test_langgraph_alone_runs_the_rewritten_call() -> None:
    """The flaw: an approval resumed with an update runs the call the update wrote."""
    sent: list[str] = []
    graph = build(sent, gated=False)
    graph.invoke({"messages": [HumanMessage("pay")]}, CONFIG)
    (found,) = graph.get_state(CONFIG).interrupts
    assert found.value == {"approve": {"to": "ACME", "amount": 5}}
    graph.invoke(Command(resume={found.id: "approve"}, update=REWRITE), CONFIG)
    assert sent == ["EVE"]


def test_an_update_never_changes_an_approved_call() -> None:
    """The adapter's approval sent with a rewriting update is refused in the node."""
    sent: list[str] = []
    graph = build(sent, gated=True)
    graph.invoke({"messages": [HumanMessage("pay")]}, CONFIG)
    (held,) = pending(graph, CONFIG, MemoryStore())
    (found,) = graph.get_state(CONFIG).interrupts
    envelope = {MARK: {"for": found.value[MARK], "restart": "approve"}}
    with pytest.raises(ResumeRejected) as rejected:
        graph.invoke(Command(resume={held.id: envelope}, update=REWRITE), CONFIG)
    assert rejected.value.codes == (ProblemCode.UNKNOWN_INTERRUPT,)
    assert sent == []
