"""The LangChain agents row: ``create_agent`` with ``HumanInTheLoopMiddleware``.

Each harness is one process: a fresh agent over a fresh ``SqliteSaver``
connection to the conversation's checkpoint file, and a fresh `SqliteStore`
over its spent marks. ``transfer_money`` is gated with approve and reject
only, so that a changed input stays refused (``changed_arguments_are_refused``;
a review that allows ``edit`` takes arguments that fit the tool's schema,
which test_langchain.py pins); ``ask_user`` with respond only, its answers
checked against `ANSWER_SCHEMA`.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

import attrs
from interruption import JSON, AuditEvent, PendingInterrupt, Resume, SqliteStore
from interruption.adapters import langchain
from interruption.testing.conformance import (
    ANSWER_SCHEMA,
    QUESTION,
    TRANSFER,
    Harness,
    Plan,
)
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.checkpoint.sqlite import SqliteSaver

from tests.adapters._common import Effects

NAME = "langchain"

CONFIG: Final[RunnableConfig] = {"configurable": {"thread_id": "conformance"}}
QUESTIONS: Final = {"ask_user": ANSWER_SCHEMA}


@attrs.define
class World(Effects):
    """What every process of one conversation shares: effects and what was seen."""

    where: Path
    transfers: int = 0
    during: Callable[[], None] | None = None
    seen: list[JSON] = attrs.Factory(list)


class PlanModel(BaseChatModel):
    """Calls the plan's tool for the user's message, then reports what it saw."""

    world: Any

    @property
    def _llm_type(self) -> str:
        return "plan"

    def bind_tools(self, *_args: object, **_kwargs: object) -> PlanModel:
        """The tools are known already."""
        return self

    def _generate(
        self, messages: list[BaseMessage], *_args: object, **_kwargs: object
    ) -> ChatResult:
        last = messages[-1]
        if last.type == "human":
            if last.content == "transfer":
                name, args = "transfer_money", dict(TRANSFER)
            else:
                name, args = "ask_user", {"question": QUESTION}
            call = {"name": name, "args": args, "id": "call-1", "type": "tool_call"}
            message = AIMessage(content="", tool_calls=[call])
        else:
            self.world.seen.extend(
                m.content for m in messages if isinstance(m, ToolMessage)
            )
            message = AIMessage(content="done")
        return ChatResult(generations=[ChatGeneration(message=message)])


class LangChainHarness:
    """One process: a fresh agent, checkpointer connection and store."""

    def __init__(self, world: World) -> None:
        self.world = world
        connection = sqlite3.connect(
            world.where / "checkpoints.db", check_same_thread=False
        )
        self.store = SqliteStore(world.where / "spent.db")

        @tool
        def transfer_money(to: str, amount: int) -> str:
            """Send money."""
            world.transfer()
            return f"sent {amount} to {to}"

        @tool
        def ask_user(question: str) -> str:
            """Ask the user; a human answers in its place."""
            return question  # pragma: no cover - a respond decision answers it

        middleware = HumanInTheLoopMiddleware(
            interrupt_on={
                "transfer_money": {"allowed_decisions": ["approve", "reject"]},
                "ask_user": {"allowed_decisions": ["respond"]},
            }
        )
        self.agent = create_agent(
            PlanModel(world=world),
            tools=[transfer_money, ask_user],
            middleware=[middleware],
            checkpointer=SqliteSaver(connection),
        )

    async def pause(self, plan: Plan) -> Sequence[PendingInterrupt]:
        """Run the plan until the middleware pauses; return its calls."""
        self.agent.invoke({"messages": [{"role": "user", "content": plan}]}, CONFIG)
        pause = langchain.pending(self.agent, CONFIG, questions=QUESTIONS)
        assert pause is not None
        return pause.interrupts

    async def resume(self, resume: Resume) -> None:
        """Resume through the adapter, in a thread (a process of its own)."""
        await asyncio.to_thread(
            langchain.resume,
            self.agent,
            CONFIG,
            resume,
            self.store,
            questions=QUESTIONS,
        )

    def transfers(self) -> int:
        """How often the transfer ran."""
        return self.world.transfers

    def during_transfer(self, hook: Callable[[], None]) -> None:
        """Call *hook* inside the next transfer, before its effect."""
        self.world.during = hook

    def seen(self) -> Sequence[JSON]:
        """What the model saw after the pause."""
        return tuple(self.world.seen)

    async def audit(self) -> Sequence[AuditEvent]:
        """The store's audit trail of this conversation."""
        return await self.store.audit("conformance")

    async def reopen(self) -> Harness:
        """A new process over the same files."""
        return LangChainHarness(self.world)


def harness(where: Path) -> Harness:
    """A fresh conversation kept under *where*."""
    return LangChainHarness(World(where))
