"""The reference row of the conformance table: the core `Session`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import attrs
from interruption import (
    JSON,
    AuditEvent,
    Message,
    ModelRequest,
    PendingInterrupt,
    Resume,
    Role,
    Session,
    SqliteStore,
    ToolContext,
    ToolRequest,
    define_interrupt,
    tool,
)
from interruption.runtime.approval import await_human, by_tool
from interruption.testing import ScriptedModel
from interruption.testing.conformance import (
    ANSWER_SCHEMA,
    QUESTION,
    TRANSFER,
    Harness,
    Plan,
)

from tests.adapters._common import Effects

NAME = "session"


@attrs.define
class World(Effects):
    """What every process of one conversation shares: effects and what was seen."""

    where: Path
    transfers: int = 0
    during: Callable[[], None] | None = None
    seen: list[JSON] = attrs.Factory(list)


class SessionHarness:
    """A `Session` on a `SqliteStore` file; each instance is one process."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.store = SqliteStore(world.where / "store.db")

        @tool(input={"type": "object"}, output={"type": "object"})
        def transfer_money(_ctx: ToolContext[JSON], data: JSON) -> JSON:
            """Send money."""
            world.transfer()
            return {"status": "sent", "input": data}

        ask_user = define_interrupt(
            "ask_user", "Ask the user.", input={"type": "object"}, output=ANSWER_SCHEMA
        )
        self.session = Session(
            self.store,
            ScriptedModel(self.answer),
            [transfer_money, ask_user],
            id="conformance",
            approver=by_tool({"transfer_money": await_human()}),
        )

    def answer(self, request: ModelRequest) -> Message:
        """The scripted model: call the plan's tool, then report what it saw."""
        last = request.messages[-1]
        if last.role is Role.USER:
            if last.text == "transfer":
                call = ToolRequest("transfer_money", input=TRANSFER)
            else:
                call = ToolRequest("ask_user", input={"question": QUESTION})
            return Message(Role.MODEL, (call,))
        self.world.seen.extend(response.output for response in last.tool_responses)
        return Message.of_text(Role.MODEL, "done")

    async def pause(self, plan: Plan) -> Sequence[PendingInterrupt]:
        """Send the plan and return what is pending."""
        await self.session.send(plan)
        return await self.session.pending()

    async def resume(self, resume: Resume) -> None:
        """Resume the session."""
        await self.session.resume(resume)

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
        return await self.store.audit(self.session.id)

    async def reopen(self) -> Harness:
        """A new process over the same file."""
        return SessionHarness(self.world)


def harness(where: Path) -> Harness:
    """A fresh conversation kept under *where*."""
    return SessionHarness(World(where))
