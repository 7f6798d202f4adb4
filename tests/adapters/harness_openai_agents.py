"""The OpenAI Agents SDK row of the conformance table: sealed run states."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

import attrs
from agents import Agent, Runner, function_tool, set_tracing_disabled
from agents.items import TResponseOutputItem
from agents.testing import (
    ModelCall,
    ModelStep,
    ScriptedModel,
    assistant_message,
    function_call,
)
from interruption import JSON, AuditEvent, PendingInterrupt, Resume, Sealer, SqliteStore
from interruption.adapters.openai_agents import pause, question_tool, resume
from interruption.testing.conformance import (
    ANSWER_SCHEMA,
    QUESTION,
    TRANSFER,
    Harness,
    Plan,
)

from tests.adapters._common import Effects

set_tracing_disabled(disabled=True)

NAME = "openai_agents"
SESSION: Final = "conformance"
KEY: Final = b"k" * 32


@attrs.define
class World(Effects):
    """What every process of one conversation shares.

    The effects, what the model saw, and the token the client holds (the
    client keeps it, not a server).
    """

    where: Path
    transfers: int = 0
    during: Callable[[], None] | None = None
    seen: list[JSON] = attrs.Factory(list)
    token: str | None = None


class OpenAIAgentsHarness:
    """An agent on the SDK's `ScriptedModel`; each instance is one process."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.store = SqliteStore(world.where / "spent.db")
        self.sealer = Sealer({"k": KEY}, active="k")

        @function_tool(needs_approval=True)
        def transfer_money(to: str, amount: int) -> str:
            """Send money."""
            world.transfer()
            return json.dumps({"status": "sent", "to": to, "amount": amount})

        ask_user = question_tool(
            "ask_user",
            "Ask the user.",
            input_schema={
                "type": "object",
                "properties": {"question": {"type": "string"}},
                "required": ["question"],
            },
            answer_schema=ANSWER_SCHEMA,
        )
        model = ScriptedModel([ModelStep.respond(self.answer)] * 4)
        self.agent = Agent(name="payer", model=model, tools=[transfer_money, ask_user])

    def answer(self, call: ModelCall) -> list[TResponseOutputItem]:
        """The scripted model: call the plan's tool, then report what it saw."""
        given = call.input
        last = (
            {"role": "user", "content": given} if isinstance(given, str) else given[-1]
        )
        if last.get("role") == "user":
            if last["content"] == "transfer":
                return [function_call("transfer_money", TRANSFER, call_id="call-1")]
            return [function_call("ask_user", {"question": QUESTION}, call_id="call-1")]
        self.world.seen.append(last["output"])
        return [assistant_message("done")]

    async def pause(self, plan: Plan) -> Sequence[PendingInterrupt]:
        """Run the plan until it pauses; hand the token to the client."""
        result = await Runner.run(self.agent, plan)
        paused = pause(result, self.sealer, session=SESSION)
        self.world.token = paused.token
        return paused.interrupts

    async def resume(self, answer: Resume) -> None:
        """Resume with the client's token and answer."""
        assert self.world.token is not None
        await resume(
            self.agent,
            self.world.token,
            answer,
            self.sealer,
            self.store,
            session=SESSION,
        )

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
        return await self.store.audit(SESSION)

    async def reopen(self) -> Harness:
        """A new process over the same file and the client's token."""
        return OpenAIAgentsHarness(self.world)


def harness(where: Path) -> Harness:
    """A fresh conversation kept under *where*."""
    return OpenAIAgentsHarness(World(where))
