"""The pydantic-ai row of the conformance table: a real agent on a FunctionModel."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import cast

import attrs
from interruption import JSON, AuditEvent, PendingInterrupt, Resume, SqliteStore
from interruption.adapters.pydantic_ai import pause, resume
from interruption.testing.conformance import (
    ANSWER_SCHEMA,
    QUESTION,
    TRANSFER,
    Harness,
    Plan,
)
from pydantic_ai import Agent, CallDeferred, DeferredToolRequests
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from tests.adapters._common import Effects


@attrs.define
class World(Effects):
    """What every process of one conversation shares.

    Its effects, what the model was shown, and the paused run's id (what
    the client holds between processes).
    """

    where: Path
    transfers: int = 0
    during: Callable[[], None] | None = None
    seen: list[JSON] = attrs.Factory(list)
    run_id: str | None = None
    conversation: str | None = None


def _agent(world: World) -> Agent[None, str | DeferredToolRequests]:
    """A fresh agent: the scripted model and the two tools."""

    def model(messages: list[ModelMessage], _info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        prompts = [part for part in last.parts if isinstance(part, UserPromptPart)]
        if prompts:
            if prompts[0].content == "transfer":
                call = ToolCallPart("transfer_money", dict(TRANSFER))
            else:
                call = ToolCallPart("ask_user", {"question": QUESTION})
            return ModelResponse(parts=[call])
        world.seen.extend(
            cast("JSON", part.content)
            for part in last.parts
            if isinstance(part, ToolReturnPart)
        )
        return ModelResponse(parts=[TextPart("done")])

    agent: Agent[None, str | DeferredToolRequests] = Agent(
        FunctionModel(model), output_type=[str, DeferredToolRequests]
    )

    @agent.tool_plain(requires_approval=True)
    def transfer_money(to: str, amount: int) -> dict[str, str | int]:
        """Send money."""
        world.transfer()
        return {"status": "sent", "to": to, "amount": amount}

    @agent.tool_plain
    def ask_user(question: str) -> str:
        """Ask the user."""
        raise CallDeferred(kind="question", metadata={"question": question})

    del transfer_money, ask_user
    return agent


class PydanticAIHarness:
    """One process: a fresh agent and store over the same file."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.agent = _agent(world)
        self.store = SqliteStore(world.where / "store.db")

    async def pause(self, plan: Plan) -> Sequence[PendingInterrupt]:
        """Run the plan until it pauses; keep the paused run."""
        result = await self.agent.run(plan)
        paused = await pause(
            result, self.store, answer_schemas={"ask_user": ANSWER_SCHEMA}
        )
        assert paused is not None, "the run did not pause"
        self.world.run_id = paused.id
        self.world.conversation = result.conversation.conversation_id
        return paused.interrupts

    async def resume(self, resume_: Resume) -> None:
        """Resume the kept run through the adapter."""
        assert self.world.run_id is not None
        await resume(self.agent, self.world.run_id, resume_, self.store)

    def transfers(self) -> int:
        """How often the transfer ran."""
        return self.world.transfers

    def during_transfer(self, hook: Callable[[], None]) -> None:
        """Call *hook* inside the next transfer, before its effect."""
        self.world.during = hook

    def seen(self) -> Sequence[JSON]:
        """What the model was shown after the pause."""
        return tuple(self.world.seen)

    async def audit(self) -> Sequence[AuditEvent]:
        """The store's audit trail of this conversation."""
        return await self.store.audit(self.world.conversation or "")

    async def reopen(self) -> Harness:
        """A new process over the same files."""
        return PydanticAIHarness(self.world)


def harness(where: Path) -> Harness:
    """A fresh conversation kept under *where*."""
    return PydanticAIHarness(World(where))
