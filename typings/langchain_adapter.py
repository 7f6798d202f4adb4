"""Typing tests for the LangChain agents adapter: checked by mypy, never run."""

from __future__ import annotations

from typing import assert_type

from interruption import (
    JSON,
    AuditEvent,
    Bridge,
    PendingInterrupt,
    PendingPause,
    ResolvedResume,
    Resume,
    ResumePolicy,
    Store,
    pending_everywhere,
)
from interruption.adapters.langchain import (
    DEFAULT_REJECTION,
    HISTORY,
    Agent,
    AgentBridge,
    Mode,
    Pause,
    Review,
    Threads,
    apending,
    aresume,
    bridge,
    from_decisions,
    pending,
    resume,
)
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver

CONFIG: RunnableConfig = {"configurable": {"thread_id": "t-1"}}


def an_agent(model: BaseChatModel) -> None:
    agent = create_agent(
        model,
        middleware=[HumanInTheLoopMiddleware(interrupt_on={"pay": True})],
        checkpointer=InMemorySaver(),
    )
    usable: Agent = agent
    assert_type(pending(agent, CONFIG), Pause | None)
    assert_type(
        pending(agent, CONFIG, questions={"ask": {"enum": ["Yes"]}}), Pause | None
    )
    pending(model, CONFIG)  # type: ignore[arg-type]
    pending(agent, {"thread_id": "t-1"})  # type: ignore[typeddict-unknown-key]
    del usable


def a_pause(pause: Pause, review: Review) -> None:
    assert_type(pause.interrupts, tuple[PendingInterrupt, ...])
    assert_type(pause.mode, Mode)
    assert_type(pause.keys, dict[str, str])
    assert_type(pause.checkpoint_id, str)
    assert_type(review.request, JSON)
    assert_type(review.allowed, tuple[frozenset[str], ...])
    assert_type(from_decisions(pause, {review.id: {"decisions": []}}), Resume)
    from_decisions(pause, {review.id: {1, 2}})  # type: ignore[dict-item]
    pause.mode = "per_call"  # type: ignore[misc]
    reason: str = DEFAULT_REJECTION
    limit: int = HISTORY
    del reason, limit


def resuming(agent: Agent, answer: Resume, store: Store) -> None:
    assert_type(resume(agent, CONFIG, answer, store), Pause | None)
    policy = ResumePolicy(allow_partial=True)
    assert_type(resume(agent, CONFIG, answer, store, policy=policy), Pause | None)
    resume(agent, CONFIG, {"decisions": []}, store)  # type: ignore[arg-type]
    resume(agent, CONFIG, answer, "memory")  # type: ignore[arg-type]


async def resuming_async(agent: Agent, answer: Resume, store: Store) -> None:
    assert_type(await apending(agent, CONFIG), Pause | None)
    assert_type(await aresume(agent, CONFIG, answer, store), Pause | None)
    # A spent review is kept for ever: the checkpoint shows it as long as it lives.
    await aresume(agent, CONFIG, answer, store, keep_until=None)  # type: ignore[call-arg]


async def bridged(agent: Agent, store: Store, answer: Resume) -> None:
    async def threads() -> list[str]:
        return ["t-1"]

    listing: Threads = threads
    door = bridge(
        agent, store, lambda: ["t-1"], authorize=lambda who, _p: who == "alice"
    )
    assert_type(door, AgentBridge)
    usable: Bridge = door
    assert_type(await pending_everywhere([door]), list[PendingPause])
    assert_type(await door.pending(principal="alice"), list[PendingPause])
    assert_type(await door.answer("t-1", answer, principal="alice"), ResolvedResume)
    assert_type(await door.audit("t-1"), tuple[AuditEvent, ...])
    blocking = bridge(agent, store, listing, blocking=True, questions={"ask": {}})
    assert_type(blocking.door, str)
    bridge(agent, store, ["t-1"])  # type: ignore[arg-type]
    await door.answer("t-1", {"decisions": []})  # type: ignore[arg-type]
    door.store = store  # type: ignore[misc]
    del usable
