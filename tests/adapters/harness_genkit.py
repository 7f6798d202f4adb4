"""The Genkit row of the conformance table: a real app on a scripted model."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

import attrs
from genkit import (
    ActionRunContext,
    FinishReason,
    Genkit,
    Interrupt,
    Message,
    ModelRequest,
    ModelResponse,
    Part,
    Role,
    Tool,
    ToolRequest,
    ToolRunContext,
)
from interruption import JSON, AuditEvent, PendingInterrupt, Resume, SqliteStore
from interruption.adapters.genkit import (
    approved,
    needs_approval,
    pause,
    resume,
)
from interruption.testing.conformance import QUESTION, TRANSFER, Harness, Plan
from pydantic import BaseModel

from tests.adapters._common import Effects


@attrs.define
class World(Effects):
    """What every process of one conversation shares.

    Its effects, what the model was shown, and the paused turn's id (what
    the client holds between processes).
    """

    where: Path
    transfers: int = 0
    during: Callable[[], None] | None = None
    seen: list[JSON] = attrs.Factory(list)
    turn_id: str | None = None


class Transfer(BaseModel):
    """The transfer's input."""

    to: str
    amount: int


class Question(BaseModel):
    """The question's input."""

    question: str


def _app(world: World) -> tuple[Genkit, list[Tool]]:
    """A fresh app: the scripted model and the two tools."""
    ai = Genkit()

    async def model(
        request: ModelRequest[object], _ctx: ActionRunContext
    ) -> ModelResponse:
        last = request.messages[-1]
        if last.role == Role.USER:
            if last.text == "transfer":
                call = ToolRequest(name="transfer_money", input=dict(TRANSFER))
            else:
                call = ToolRequest(name="ask_user", input={"question": QUESTION})
            content = [Part(tool_request=call)]
        else:
            world.seen.extend(
                part.tool_response.output
                for part in last.content
                if part.tool_response is not None
            )
            content = [Part(text="done")]
        message = Message(role=Role.MODEL, content=content)
        return ModelResponse(message=message, finish_reason=FinishReason.STOP)

    ai.define_model("scripted", model)

    @ai.tool()
    async def transfer_money(
        transfer: Transfer, ctx: ToolRunContext
    ) -> dict[str, str | int]:
        """Send money."""
        if not approved(ctx):
            raise needs_approval(transfer.model_dump())
        world.transfer()
        return {"status": "sent", "to": transfer.to, "amount": transfer.amount}

    @ai.tool()
    async def ask_user(question: Question) -> Literal["Yes", "No"]:
        """Ask the user."""
        raise Interrupt({"question": question.question})

    return ai, [transfer_money, ask_user]


class GenkitHarness:
    """One process: a fresh app and store over the same file."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.ai, self.tools = _app(world)
        self.store = SqliteStore(world.where / "store.db")

    async def pause(self, plan: Plan) -> Sequence[PendingInterrupt]:
        """Run the plan until it pauses; keep the paused turn."""
        response = await self.ai.generate(
            model="scripted", prompt=plan, tools=self.tools
        )
        paused = await pause(response, self.store, tools=self.tools)
        assert paused is not None, "the turn did not pause"
        self.world.turn_id = paused.id
        return paused.interrupts

    async def resume(self, resume_: Resume) -> None:
        """Resume the kept turn through the adapter."""
        assert self.world.turn_id is not None
        await resume(
            self.ai,
            self.world.turn_id,
            resume_,
            self.store,
            model="scripted",
            tools=self.tools,
        )

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
        return await self.store.audit(self.world.turn_id or "")

    async def reopen(self) -> Harness:
        """A new process over the same files."""
        return GenkitHarness(self.world)


def harness(where: Path) -> Harness:
    """A fresh conversation kept under *where*."""
    return GenkitHarness(World(where))
