"""Typing tests for the LangGraph adapter: checked by mypy, never run."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import Annotated, TypedDict, assert_type

import attrs
from interruption import (
    JSON,
    ApprovalDecision,
    AuditEvent,
    Confirm,
    Input,
    PendingInterrupt,
    ResolvedResume,
    Resume,
    ResumePolicy,
    Store,
)
from interruption.adapters.langgraph import (
    GraphBridge,
    ToolApproval,
    apending,
    approve_call,
    aresume,
    aresume_stream,
    ask,
    bridge,
    pending,
    resume,
    resume_stream,
    send_tool_calls,
)
from interruption.runtime.bridge import Bridge, PendingPause
from langchain_core.messages import AnyMessage, ToolCall
from langchain_core.runnables import RunnableConfig
from langgraph.graph.message import add_messages
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode
from langgraph.types import GraphOutput, Send, StreamPart


class Chat(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


@attrs.frozen
class Shipping:
    city: str
    days: int


def inside_a_node(call: ToolCall) -> None:
    assert_type(ask(Confirm("Invoice", "Pay?")), str)
    assert_type(ask(Input("Note", "Why?")), str)
    assert_type(ask({"where": "to?"}, answer=Shipping), Shipping)
    assert_type(ask({"q": 1}, answer={"type": "integer"}), JSON)
    assert_type(approve_call(call), ApprovalDecision)
    ask({"q": 1})  # type: ignore[call-overload]
    ask(Confirm("a", "b"), answer=3)  # type: ignore[call-overload]
    approve_call({"name": "x"})  # type: ignore[typeddict-item]


def gating(tools: list[Callable[..., object]]) -> None:
    gate = ToolApproval({"transfer_money"})
    ToolApproval(lambda call: call["name"] == "transfer_money")
    assert_type(gate.node(tools), ToolNode)
    ToolNode(tools, wrap_tool_call=gate, awrap_tool_call=gate.acall)
    route = send_tool_calls("tools")
    assert_type(route, Callable[[Mapping[str, object]], list[Send] | str])
    ToolApproval(3)  # type: ignore[arg-type]


def outside(
    graph: CompiledStateGraph[Chat], config: RunnableConfig, store: Store
) -> None:
    assert_type(pending(graph, config, store), tuple[PendingInterrupt, ...])
    answer = Resume()
    assert_type(resume(graph, config, answer, store), GraphOutput[Chat])
    policy = ResumePolicy(principal="alice")
    resume(graph, config, answer, store, policy=policy)
    stream = resume_stream(graph, config, answer, store, stream_mode="values")
    assert_type(stream, Iterator[StreamPart[Chat, Chat]])
    resume(graph, config, {"respond": []}, store)  # type: ignore[arg-type]
    resume(graph, {"thread_id": 1}, answer, store)  # type: ignore[typeddict-unknown-key]
    resume(graph, config, answer, "memory")  # type: ignore[arg-type]


async def outside_async(
    graph: CompiledStateGraph[Chat], config: RunnableConfig, store: Store
) -> None:
    assert_type(await apending(graph, config, store), tuple[PendingInterrupt, ...])
    answer = Resume()
    assert_type(await aresume(graph, config, answer, store), GraphOutput[Chat])
    parts = await aresume_stream(graph, config, answer, store)
    assert_type(parts, AsyncIterator[StreamPart[Chat, Chat]])


async def bridged(graph: CompiledStateGraph[Chat], store: Store) -> None:
    def threads() -> list[str]:
        return ["t-1"]

    async def later() -> list[str]:
        return ["t-1"]

    def alice(principal: str | None, _pending: PendingInterrupt) -> bool:
        return principal == "alice"

    door = bridge(graph, store, threads, authorize=alice)
    assert_type(door, GraphBridge[Chat, None, Chat, Chat])
    bridge(graph, store, later, blocking=True)
    doors: list[Bridge] = [door]
    assert_type(doors[0].door, str)
    assert_type(await door.pending(principal="alice"), list[PendingPause])
    assert_type(await door.answer("t-1", Resume()), ResolvedResume)
    assert_type(await door.audit("t-1"), tuple[AuditEvent, ...])
    bridge(graph, store, ["t-1"])  # type: ignore[arg-type]
    bridge(graph, store, threads, authorize="alice")  # type: ignore[arg-type]
