"""The MCP row of the conformance table: a real server and client, 2026 flow.

The integration is an ``MCPServer`` serving the two tools through
`mcp_tool`; the harness is its client, which drives the 2026-07-28 flow by
hand (``call_tool(..., allow_input_required=True)``), keeping the sealed
request state between processes as a client does. Each process builds a
new server over the same keys and store file. The handshake flow cannot be
a row: its pause lives inside one open tool call, so it has no resume
channel of its own and no restart to survive (tests/adapters/test_mcp.py
covers it).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final, NoReturn

import attrs
import mcp_types
from interruption import (
    JSON,
    ApprovalPending,
    AuditEvent,
    Interrupted,
    PendingInterrupt,
    Resume,
    SqliteStore,
    ToolContext,
    define_interrupt,
    tool,
)
from interruption.adapters.mcp import answer, mcp_tool, pending_of, rejection_of
from interruption.testing.conformance import (
    ANSWER_SCHEMA,
    QUESTION,
    Harness,
    Plan,
)
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.server.request_state import RequestStateSecurity
from mcp.shared.exceptions import MCPError

from tests.adapters._common import Effects

KEY: Final = b"k" * 32
TRANSFER_INPUT: Final[dict[str, JSON]] = {
    "type": "object",
    "properties": {"to": {"type": "string"}, "amount": {"type": "integer"}},
    "required": ["to", "amount"],
}


@attrs.define
class World(Effects):
    """What every process of one conversation shares.

    The effects, what the caller saw, and what the client holds between
    processes: the call, the input request's key, the sealed state and the
    pause it was shown.
    """

    where: Path
    transfers: int = 0
    during: Callable[[], None] | None = None
    seen: list[JSON] = attrs.Factory(list)
    call: tuple[str, dict[str, JSON]] | None = None
    key: str = ""
    state: str | None = None
    pending: PendingInterrupt | None = None


def _seen(result: mcp_types.CallToolResult) -> JSON:
    """What the caller reads of a tool result: its JSON, or an error's text."""
    (block,) = result.content
    assert isinstance(block, mcp_types.TextContent)
    if result.is_error:
        return block.text
    value: JSON = json.loads(block.text)
    return value


class MCPHarness:
    """One process: a fresh server (same keys, same store file) and client."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.store = store = SqliteStore(world.where / "spent.db")

        @tool(input=TRANSFER_INPUT, output={"type": "object"}, name="transfer_money")
        def transfer(ctx: ToolContext[JSON], args: JSON) -> JSON:
            """Send money."""
            if not ctx.approved:
                raise Interrupted(ApprovalPending(ctx.ref), args)
            world.transfer()
            return {"status": "sent"}

        ask_user = define_interrupt(
            "ask_user",
            "Ask the user.",
            input={"type": "object"},
            output=ANSWER_SCHEMA,
        )
        self.server = MCPServer(
            "payments",
            tools=[mcp_tool(transfer, store), mcp_tool(ask_user, store)],
            request_state_security=RequestStateSecurity(keys=[KEY]),
        )

    async def pause(self, plan: Plan) -> Sequence[PendingInterrupt]:
        """Call the plan's tool; keep what the input request says."""
        if plan == "transfer":
            call: tuple[str, dict[str, JSON]] = (
                "transfer_money",
                {"to": "ACME", "amount": 125000},
            )
        else:
            call = ("ask_user", {"question": QUESTION})
        async with Client(self.server) as client:
            result = await client.session.call_tool(*call, allow_input_required=True)
        assert isinstance(result, mcp_types.InputRequiredResult)
        assert result.input_requests is not None
        ((key, request),) = result.input_requests.items()
        assert isinstance(request, mcp_types.ElicitRequest)
        pending = pending_of(request.params, key, tool=call[0], arguments=call[1])
        self.world.call, self.world.key = call, key
        self.world.state, self.world.pending = result.request_state, pending
        return (pending,)

    async def resume(self, resume: Resume) -> None:
        """Check the answer locally, then retry the call with it and the state."""
        world = self.world
        assert world.pending is not None
        assert world.call is not None
        response = answer(world.pending, resume)
        failed: MCPError | None = None
        async with Client(self.server) as client:
            try:
                result = await client.session.call_tool(
                    *world.call,
                    input_responses={world.key: response},
                    request_state=world.state,
                    allow_input_required=True,
                )
            except MCPError as error:  # raised outside the client's task group
                failed = error
        if failed is not None:
            _raise(failed)
        assert isinstance(result, mcp_types.CallToolResult)
        world.seen.append(_seen(result))

    def transfers(self) -> int:
        """How often the transfer ran."""
        return self.world.transfers

    def during_transfer(self, hook: Callable[[], None]) -> None:
        """Call *hook* inside the next transfer, before its effect."""
        self.world.during = hook

    def seen(self) -> Sequence[JSON]:
        """What the caller was shown after the pause."""
        return tuple(self.world.seen)

    async def audit(self) -> Sequence[AuditEvent]:
        """The store's audit trail of this conversation."""
        return await self.store.audit("mcp:transfer_money")

    async def reopen(self) -> Harness:
        """A new process over the same keys, store file and client state."""
        return MCPHarness(self.world)


def _raise(error: MCPError) -> NoReturn:
    rejected = rejection_of(error)
    if rejected is None:
        raise error
    raise rejected


def harness(where: Path) -> Harness:
    """A fresh conversation whose store lives under *where*."""
    return MCPHarness(World(where))
