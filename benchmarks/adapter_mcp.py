"""Time one pause → resume cycle of MCP elicitation, alone and adapted.

Run with ``python benchmarks/adapter_mcp.py``. One *cycle*, in the
2026-07-28 flow over an in-process ``Client(server)``: a tool call returns
an input-required result (one approval form and a sealed request state);
the client retries with the human's ``accept`` and the state; the tool runs.

* *MCP alone* — a hand-written ``MCPServer`` tool that returns the
  ``InputRequiredResult`` itself and, on the retry, reads
  ``ctx.input_responses`` and checks the human's answer against the form
  with a pydantic model, as MCP's own ``ctx.elicit`` does
  (``model_validate``); MCP seals and verifies the state either way.
* *with the adapter* — the same tool as a `Tool` of this library, served
  by `mcp_tool`: the pause is minted into the state, the answer read into a
  `Resume`, admitted against it and spent once in a `MemoryStore`.

Both run on one event loop, interleaved, best of 30 repeats; each
cycle connects a fresh in-process client (anyio wants a client entered and
left in one task), in both columns alike. Before timing, each must pause
and run the tool exactly once per cycle.
"""

from __future__ import annotations

import asyncio
from typing import Any, Final, Literal

import mcp_types
from interruption import JSON, ApprovalPending, Interrupted, MemoryStore, ToolContext
from interruption import tool as make_tool
from interruption.adapters.mcp import APPROVAL_FORM, mcp_tool
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, ConfigDict

from _common import best_us, print_cycle

FRAMEWORK: Final = "mcp 2.3"
ARGS: Final[dict[str, Any]] = {"n": 1}
APPROVE: Final = mcp_types.ElicitResult(
    action="accept", content={"decision": "approve"}
)


class Decision(BaseModel):
    """The approval form's answer, as MCP alone would check it (no extra keys)."""

    model_config = ConfigDict(extra="forbid")
    decision: Literal["approve", "reject"]
    reason: str | None = None


class Bench:
    """Two servers (raw and adapted), one loop."""

    def __init__(self) -> None:
        self.runs = 0
        self.loop = asyncio.new_event_loop()
        raw = MCPServer("raw")

        @raw.tool(name="ping")
        async def ping(
            n: int, ctx: Context
        ) -> mcp_types.CallToolResult | mcp_types.InputRequiredResult:
            """Reply, once a human approves."""
            if ctx.request_state is None:
                form = mcp_types.ElicitRequestFormParams(
                    message="ping?", requested_schema=dict(APPROVAL_FORM)
                )
                request = mcp_types.ElicitRequest(params=form)
                return mcp_types.InputRequiredResult(
                    input_requests={"c": request}, request_state="c"
                )
            answer = (ctx.input_responses or {})["c"]
            assert isinstance(answer, mcp_types.ElicitResult)
            assert Decision.model_validate(answer.content).decision == "approve"
            self.runs += 1
            text = mcp_types.TextContent(type="text", text=str(n))
            return mcp_types.CallToolResult(content=[text])

        del ping

        @make_tool(input={"type": "object"}, output={"type": "integer"}, name="ping")
        def adapted(ctx: ToolContext[JSON], args: Any) -> int:  # noqa: ANN401 - JSON
            """Reply, once a human approves."""
            if not ctx.approved:
                raise Interrupted(ApprovalPending(ctx.ref), args)
            self.runs += 1
            return int(args["n"])

        self.raw = raw
        self.served = MCPServer("adapted", tools=[mcp_tool(adapted, MemoryStore())])

    @staticmethod
    async def _cycle(server: MCPServer) -> str:
        async with Client(server) as client:  # entered and left in this task
            paused = await client.session.call_tool(
                "ping", ARGS, allow_input_required=True
            )
            assert isinstance(paused, mcp_types.InputRequiredResult)
            assert paused.input_requests is not None
            (key,) = paused.input_requests
            done = await client.session.call_tool(
                "ping",
                ARGS,
                input_responses={key: APPROVE},
                request_state=paused.request_state,
                allow_input_required=True,
            )
        assert isinstance(done, mcp_types.CallToolResult)
        (block,) = done.content
        assert isinstance(block, mcp_types.TextContent)
        return block.text

    def alone(self) -> str:
        """One cycle through MCP alone."""
        return self.loop.run_until_complete(self._cycle(self.raw))

    def adapted(self) -> str:
        """One cycle through the adapter."""
        return self.loop.run_until_complete(self._cycle(self.served))

    def check(self) -> None:
        """Each cycle must pause, finish, and run the tool exactly once."""
        for cycle in (self.alone, self.adapted):
            before = self.runs
            if cycle() != "1" or self.runs != before + 1:
                msg = f"{cycle.__name__}: expected one finished cycle, one tool run"
                raise AssertionError(msg)

    def close(self) -> None:
        """Close the loop."""
        self.loop.close()


def measure() -> tuple[str, float, float]:
    """Time one cycle alone and with the adapter, interleaved.

    Returns:
        (framework, MCP-alone µs, with-adapter µs).
    """
    bench = Bench()
    bench.check()
    alone, adapted = best_us(bench.alone, bench.adapted)
    bench.close()
    return FRAMEWORK, alone, adapted


def main() -> None:
    """Print the table."""
    print_cycle(*measure())


if __name__ == "__main__":
    main()
