"""The LangGraph adapter's bridge: every thread's pauses, listed and answered."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Iterable
from datetime import datetime
from typing import Annotated, TypedDict

import pytest
from examples.langgraph_service.agent import GraphAgent
from interruption import (
    ApprovalPending,
    Custom,
    MemoryStore,
    PendingInterrupt,
    Respond,
    Restart,
    Resume,
    ResumeRejected,
)
from interruption.adapters.langgraph import (
    GraphBridge,
    ToolApproval,
    aresume,
    ask,
    bridge,
    send_tool_calls,
)
from interruption.prompts import Confirm
from interruption.runtime.approval import DECISION_SCHEMA
from interruption.runtime.bridge import Bridge, pending_everywhere
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolCall
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.graph.state import CompiledStateGraph

THREADS = itertools.count()
APPROVE = Resume(restart=[Restart("transfer_money", "call-1", "approve")])


class Chat(TypedDict):
    """The conversation."""

    messages: Annotated[list[AnyMessage], add_messages]


def _model(state: Chat) -> Chat:
    """A scripted model: ``pay N`` calls transfer_money once, then it is done."""
    last = state["messages"][-1]
    if isinstance(last, HumanMessage):
        amount = int(last.text.split()[-1])
        call: ToolCall = {
            "name": "transfer_money",
            "args": {"to": "ACME", "amount": amount},
            "id": "call-1",
        }
        return {"messages": [AIMessage("", tool_calls=[call])]}
    return {"messages": [AIMessage("done")]}


def _question(state: Chat) -> Chat:
    """Ask whether to go ahead."""
    said = ask(Confirm(title="Question", text=state["messages"][0].text))
    return {"messages": [AIMessage(f"You said {said}.")]}


def may_answer(principal: str | None, _pending: PendingInterrupt) -> bool:
    """Only alice answers."""
    return principal == "alice"


class World:
    """A checkpointed graph, a store, its bridge, and every transfer that ran."""

    def __init__(self) -> None:
        self.store = MemoryStore()
        self.sent: list[dict[str, object]] = []
        self.started: list[str] = []
        self.graph = self._build()
        self.bridge = bridge(
            self.graph, self.store, lambda: self.started, authorize=may_answer
        )

    def _build(self) -> CompiledStateGraph[Chat]:
        sent = self.sent

        @tool
        def transfer_money(to: str, amount: int) -> str:
            """Send money."""
            sent.append({"to": to, "amount": amount})
            return json.dumps({"status": "sent"})

        builder = StateGraph(Chat)
        builder.add_node("model", _model)
        builder.add_node("question", _question)
        gate = ToolApproval(lambda _call: True)
        builder.add_node("tools", gate.node([transfer_money]))

        def route(state: Chat) -> str:
            return "model" if "pay" in state["messages"][0].text else "question"

        builder.add_conditional_edges(START, route, ["model", "question"])
        builder.add_conditional_edges("model", send_tool_calls("tools"))
        builder.add_edge("tools", "model")
        builder.add_edge("question", END)
        return builder.compile(checkpointer=InMemorySaver())

    def start(self, text: str) -> str:
        """Run a new thread until it pauses; its id."""
        thread = f"t-{next(THREADS)}"
        self.graph.invoke({"messages": [HumanMessage(text)]}, config(thread))
        self.started.append(thread)
        return thread


def config(thread: str) -> RunnableConfig:
    """The config naming *thread*."""
    return {"configurable": {"thread_id": thread}}


def codes(rejected: pytest.ExceptionInfo[ResumeRejected]) -> list[str]:
    """The problem codes of a rejection."""
    return [code.value for code in rejected.value.codes]


@pytest.fixture(name="world")
def _world() -> World:
    return World()


def test_a_pause_is_dated_by_its_checkpoint(world: World) -> None:
    """A listed pause's created_at is its checkpoint's, read once with the pause."""
    thread = world.start("pay 50000")
    written = world.graph.get_state(config(thread)).created_at
    assert written is not None
    (pause,) = asyncio.run(world.bridge.pending(principal="alice"))
    assert pause.created_at == datetime.fromisoformat(written)
    assert asyncio.run(world.bridge.pause(thread, principal="alice")) == pause


def test_a_real_pause_is_listed(world: World) -> None:
    """A ToolApproval pause is listed with its kind, accepts and thread scope."""
    thread = world.start("pay 50000")
    assert isinstance(world.bridge, Bridge)
    assert world.bridge.door == "langgraph"
    (pause,) = asyncio.run(world.bridge.pending(principal="alice"))
    assert (pause.door, pause.scope) == ("langgraph", thread)
    (shown,) = pause.interrupts
    assert isinstance(shown.kind, ApprovalPending)
    assert shown.accepts.restart == DECISION_SCHEMA
    assert (shown.name, shown.ref) == ("transfer_money", "call-1")
    everywhere = asyncio.run(pending_everywhere([world.bridge], principal="alice"))
    assert everywhere == [pause]


def test_a_question_is_listed_as_custom(world: World) -> None:
    """An `ask` pause is listed as Custom, and answered with a respond."""
    thread = world.start("go ahead?")
    (pause,) = asyncio.run(world.bridge.pending(principal="alice"))
    (shown,) = pause.interrupts
    assert isinstance(shown.kind, Custom)
    answer = Resume(respond=[Respond(shown.name, shown.ref, "Yes")])
    asyncio.run(world.bridge.answer(thread, answer, principal="alice"))
    state = world.graph.get_state(config(thread))
    assert state.values["messages"][-1].text == "You said Yes."


def test_newest_first_over_an_async_listing(world: World) -> None:
    """Threads come newest first; the thread listing may be a coroutine."""
    first = world.start("pay 1")
    second = world.start("pay 2")

    async def threads() -> Iterable[str]:
        return [first, second, first]

    listed = bridge(world.graph, world.store, threads)
    pauses = asyncio.run(listed.pending())
    assert [pause.scope for pause in pauses] == [second, first]


def test_an_answer_is_accepted_once_and_runs_the_tool_once(world: World) -> None:
    """`answer` accepts a valid resume and the graph runs on with exactly it."""
    thread = world.start("pay 50000")
    resolved = asyncio.run(world.bridge.answer(thread, APPROVE, principal="alice"))
    ((answer),) = resolved.answers
    assert answer.entry == APPROVE.restart[0]
    assert answer.interrupt.name == "transfer_money"
    assert resolved.unanswered == ()
    assert world.sent == [{"to": "ACME", "amount": 50000}]


def test_a_replay_through_either_door_is_consumed(world: World) -> None:
    """Once answered through the bridge, the bridge and aresume say consumed."""
    thread = world.start("pay 50000")
    asyncio.run(world.bridge.answer(thread, APPROVE, principal="alice"))
    with pytest.raises(ResumeRejected) as again:
        asyncio.run(world.bridge.answer(thread, APPROVE, principal="alice"))
    assert codes(again) == ["consumed"]
    with pytest.raises(ResumeRejected) as door:
        asyncio.run(aresume(world.graph, config(thread), APPROVE, world.store))
    assert codes(door) == ["consumed"]
    assert world.sent == [{"to": "ACME", "amount": 50000}]


def test_an_answer_through_the_adapter_first_is_consumed_here(world: World) -> None:
    """Once answered through aresume, the bridge refuses the same answer."""
    thread = world.start("pay 50000")
    asyncio.run(aresume(world.graph, config(thread), APPROVE, world.store))
    with pytest.raises(ResumeRejected) as again:
        asyncio.run(world.bridge.answer(thread, APPROVE, principal="alice"))
    assert codes(again) == ["consumed"]
    assert world.sent == [{"to": "ACME", "amount": 50000}]


def test_an_invalid_answer_spends_nothing(world: World) -> None:
    """A decision outside the schema is refused; the pause is still listed."""
    thread = world.start("pay 50000")
    bad = Resume(restart=[Restart("transfer_money", "call-1", "maybe")])
    with pytest.raises(ResumeRejected) as refused:
        asyncio.run(world.bridge.answer(thread, bad, principal="alice"))
    assert codes(refused) == ["schema_violation"]
    assert [p.scope for p in asyncio.run(world.bridge.pending(principal="alice"))] == [
        thread
    ]
    assert world.sent == []


def test_a_refused_principal_sees_and_answers_nothing(world: World) -> None:
    """A refused principal lists nothing, reads no trail, and gets not_authorized."""
    thread = world.start("pay 50000")
    assert asyncio.run(world.bridge.pending(principal="mallory")) == []
    assert asyncio.run(world.bridge.audit(thread, principal="mallory")) == ()
    with pytest.raises(ResumeRejected) as refused:
        asyncio.run(world.bridge.answer(thread, APPROVE, principal="mallory"))
    assert codes(refused) == ["not_authorized"]
    assert world.sent == []


def test_the_trail_shows_paused_accepted_and_rejected(world: World) -> None:
    """`audit` reads the thread's trail: paused, accepted, then the replay."""
    thread = world.start("pay 50000")
    asyncio.run(world.bridge.pending(principal="alice"))
    asyncio.run(world.bridge.answer(thread, APPROVE, principal="alice"))
    with pytest.raises(ResumeRejected):
        asyncio.run(world.bridge.answer(thread, APPROVE, principal="bob"))
    trail = asyncio.run(world.bridge.audit(thread, principal="alice"))
    assert [event.kind for event in trail] == ["paused", "accepted", "rejected"]
    assert trail[1].principal == "alice"


def test_an_answered_pause_is_no_longer_listed(world: World) -> None:
    """Once answered, the thread's pause leaves the listing."""
    thread = world.start("pay 50000")
    asyncio.run(world.bridge.answer(thread, APPROVE, principal="alice"))
    assert asyncio.run(world.bridge.pending(principal="alice")) == []


def test_no_authorizer_reads_any_trail(world: World) -> None:
    """Without an authorizer every trail is read; with one, unknown is empty."""
    thread = world.start("pay 50000")
    open_bridge: GraphBridge[Chat, None, Chat, Chat] = bridge(
        world.graph, world.store, lambda: [thread]
    )
    asyncio.run(open_bridge.pending())
    assert [e.kind for e in asyncio.run(open_bridge.audit(thread))] == ["paused"]
    assert asyncio.run(world.bridge.audit("nope", principal="alice")) == ()


def test_a_blocking_checkpointer() -> None:
    """Over a SqliteSaver the bridge reads and resumes in a worker thread."""
    store = MemoryStore()
    agent = GraphAgent(":memory:", store)
    agent.graph.invoke({"messages": [HumanMessage("pay 50000")]}, config("b-1"))
    (pause,) = asyncio.run(agent.bridge.pending(principal="alice"))
    assert pause.scope == "b-1"
    asyncio.run(agent.bridge.answer("b-1", APPROVE, principal="alice"))
    assert agent.sent == [{"to": "ACME", "amount": 50000}]
    trail = asyncio.run(agent.bridge.audit("b-1", principal="alice"))
    assert [event.kind for event in trail] == ["paused", "accepted"]
    assert asyncio.run(agent.bridge.pending(principal="alice")) == []


def test_a_refused_listing_files_nothing(world: World) -> None:
    """Mallory's listing and pause() are authorized first: no paused event."""
    thread = world.start("pay 50000")
    assert asyncio.run(world.bridge.pending(principal="mallory")) == []
    assert asyncio.run(world.bridge.pause(thread, principal="mallory")) is None
    assert asyncio.run(world.store.audit(thread)) == ()
    asyncio.run(world.bridge.pending(principal="alice"))
    assert [e.kind for e in asyncio.run(world.store.audit(thread))] == ["paused"]


def test_pause_reads_one_thread_as_the_listing_shows_it(world: World) -> None:
    """pause(thread) is the listing's pause there; None elsewhere or once answered."""
    thread = world.start("pay 50000")
    world.start("pay 1")
    pauses = asyncio.run(world.bridge.pending(principal="alice"))
    (listed,) = [pause for pause in pauses if pause.scope == thread]
    assert asyncio.run(world.bridge.pause(thread, principal="alice")) == listed
    assert asyncio.run(world.bridge.pause("t-none", principal="alice")) is None
    asyncio.run(world.bridge.answer(thread, APPROVE, principal="alice"))
    assert asyncio.run(world.bridge.pause(thread, principal="alice")) is None


def test_pause_over_a_blocking_checkpointer() -> None:
    """Over a SqliteSaver, pause() reads the one thread in a worker thread."""
    store = MemoryStore()
    agent = GraphAgent(":memory:", store)
    agent.graph.invoke({"messages": [HumanMessage("pay 50000")]}, config("b-2"))
    (listed,) = asyncio.run(agent.bridge.pending(principal="alice"))
    assert asyncio.run(agent.bridge.pause("b-2", principal="alice")) == listed
    assert asyncio.run(agent.bridge.pause("b-2", principal="mallory")) is None


def test_a_refused_audit_files_nothing(world: World) -> None:
    """Mallory's audit is authorized against the checkpoint: no paused event."""
    thread = world.start("pay 50000")
    assert asyncio.run(world.bridge.audit(thread, principal="mallory")) == ()
    assert asyncio.run(world.store.audit(thread)) == ()
    assert asyncio.run(world.bridge.audit(thread, principal="alice")) == ()
    asyncio.run(world.bridge.answer(thread, APPROVE, principal="alice"))
    trail = asyncio.run(world.bridge.audit(thread, principal="alice"))
    assert [event.kind for event in trail] == ["paused", "accepted"]
    assert asyncio.run(world.bridge.audit(thread, principal="mallory")) == ()
