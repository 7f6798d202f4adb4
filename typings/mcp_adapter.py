"""Typing tests for the MCP adapter: checked by mypy, never run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import assert_type

import mcp_types
from interruption import (
    JSON,
    AuditEvent,
    Bridge,
    MemoryStore,
    PendingInterrupt,
    PendingPause,
    ResolvedResume,
    Resume,
    define_interrupt,
    pending_everywhere,
)
from interruption.adapters.mcp import (
    STATE_REFUSED,
    Dismiss,
    ElicitationBridge,
    FormSchemaError,
    answer,
    bridge,
    dismissal,
    elicitation_callback,
    form_of,
    mcp_tool,
    pending_of,
    rejection_of,
)
from interruption.errors import ResumeRejected
from mcp import Client
from mcp.client.session import ElicitationFnT
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.tools.base import Tool as McpTool
from mcp.shared.exceptions import MCPError

ask = define_interrupt("ask", "Ask.", input={"type": "object"}, output={"enum": ["Y"]})


def serving() -> None:
    made = mcp_tool(ask, MemoryStore())
    assert_type(made, McpTool)
    MCPServer("s", tools=[made])
    mcp_tool(ask)  # type: ignore[call-arg]
    mcp_tool(ask, MemoryStore(), ttl=5)  # type: ignore[arg-type]
    mcp_tool(ask, MemoryStore(), restart_dismissed=True)
    mcp_tool(ask, MemoryStore(), restart_dismissed="yes")  # type: ignore[arg-type]
    assert_type(dismissal(), Dismiss | None)
    assert_type(form_of({"type": "string"}), dict[str, JSON])
    assert_type(FormSchemaError("x", []).problems[0].path, str)


def handler(pending: PendingInterrupt) -> Resume | Dismiss:
    return Resume(respond=[pending.respond("Y")])


async def async_handler(pending: PendingInterrupt) -> Resume:
    return Resume(restart=[pending.approve()])


def client(params: mcp_types.ElicitRequestParams, error: MCPError) -> None:
    callback = elicitation_callback(handler)
    assert_type(callback, ElicitationFnT)
    elicitation_callback(async_handler)
    elicitation_callback(lambda _pending: "decline")
    Client(MCPServer("s"), elicitation_callback=callback)
    pending = pending_of(params, "k", tool="ask", arguments={"q": 1})
    assert_type(pending, PendingInterrupt)
    assert_type(answer(pending, "cancel"), mcp_types.ElicitResult)
    answer(pending, "maybe")  # type: ignore[arg-type]
    assert_type(rejection_of(error), ResumeRejected | None)
    refused: str = STATE_REFUSED
    assert_type(refused, str)


async def bridged(resume: Resume) -> None:
    door = bridge()
    assert_type(door, ElicitationBridge)
    seen: Bridge = door
    assert_type(seen.door, str)
    Client(MCPServer("s"), elicitation_callback=door.callback)
    assert_type(await door.pending(principal="bob"), list[PendingPause])
    assert_type(await door.answer("scope", resume), ResolvedResume)
    assert_type(await door.audit("scope"), tuple[AuditEvent, ...])
    assert_type(await pending_everywhere([door]), list[PendingPause])
    listed: Sequence[PendingPause] = await seen.pending()
    del listed
    bridge(MemoryStore(), authorize=lambda who, _pending: who == "bob")
    bridge({})  # type: ignore[arg-type]
    bridge(authorize="bob")  # type: ignore[arg-type]
    await door.answer("scope", {})  # type: ignore[arg-type]
    assert_type(await door.dismiss("scope", "decline"), None)
    await door.dismiss("scope", "later")  # type: ignore[arg-type]
