"""The session tests' world: a run log, tools and a stateless model.

Kept apart from ``test_session.py`` and light to import (the library and
the standard library only), because each spawned process of the
cross-process test imports it.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from interruption import (
    JSON,
    Message,
    ModelRequest,
    ResumeRejected,
    Role,
    Tool,
    ToolContext,
    ToolRequest,
    define_interrupt,
    loads,
    tool,
)
from interruption import store as stores
from interruption.approval import Approver, await_human, by_tool, when
from interruption.resume import ExpiryAnswer, Resume
from interruption.session import Session
from interruption.store import SqliteStore, Store
from interruption.testing import ScriptedModel

TRANSFER_INPUT: dict[str, JSON] = {
    "type": "object",
    "properties": {"to": {"type": "string"}, "amount": {"type": "integer"}},
    "required": ["to", "amount"],
    "additionalProperties": False,
}
ASK_INPUT: dict[str, JSON] = {
    "type": "object",
    "properties": {"question": {"type": "string"}},
    "required": ["question"],
}


class RunLog:
    """Counts tool runs in a side table of its own SQLite file.

    Every run commits, so the counts survive a crash and are shared by
    processes.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        with closing(sqlite3.connect(self.path, timeout=30)) as db, db:
            db.execute("CREATE TABLE IF NOT EXISTS runs (name TEXT NOT NULL)")

    def add(self, name: str) -> None:
        """Count one run of *name*."""
        with closing(sqlite3.connect(self.path, timeout=30)) as db, db:
            db.execute("INSERT INTO runs (name) VALUES (?)", (name,))

    def __getitem__(self, name: str) -> int:
        with closing(sqlite3.connect(self.path, timeout=30)) as db:
            row = db.execute(
                "SELECT count(*) FROM runs WHERE name = ?", (name,)
            ).fetchone()
        return int(row[0])


class Boom(Exception):
    """What the flaky tool raises on its first run."""


def make_tools(log: RunLog) -> list[Tool[Any, Any, Any]]:
    """The tools: a transfer, a lookup, a question, and a tool that fails once."""

    @tool(input=TRANSFER_INPUT, output={"type": "object"})
    def transfer_money(_ctx: ToolContext[JSON], data: JSON) -> JSON:
        """Send money."""
        assert isinstance(data, dict)
        log.add("transfer_money")
        log.add(f"transfer_money {data['amount']}")
        return {"status": "sent", "to": data["to"], "amount": data["amount"]}

    @tool(input={"type": "object"}, output={"type": "integer"})
    def lookup(_ctx: ToolContext[JSON], _data: JSON) -> JSON:
        """Look a balance up."""
        log.add("lookup")
        return 500

    @tool(input={"type": "object"}, output={"type": "string"})
    def flaky(_ctx: ToolContext[JSON], _data: JSON) -> JSON:
        """Fail on the first run (after starting its work), succeed after."""
        log.add("flaky")
        if log["flaky"] == 1:
            msg = "the ledger is locked"
            raise Boom(msg)
        return "unlocked"

    ask_user = define_interrupt(
        "ask_user",
        "Ask the user a yes/no question.",
        input=ASK_INPUT,
        output={"type": "string"},
        on_expiry=ExpiryAnswer("No"),
    )
    return [transfer_money, lookup, flaky, ask_user]


def over_the_limit(request: ToolRequest) -> bool:
    """A transfer over 100 awaits a human."""
    assert isinstance(request.input, dict)
    amount = request.input["amount"]
    return isinstance(amount, int) and amount > 100


APPROVER: Approver = by_tool(
    {"transfer_money": when(over_the_limit), "flaky": await_human()}
)


def transfer(amount: int = 125_000) -> ToolRequest:
    """A transfer to ACME."""
    return ToolRequest("transfer_money", input={"to": "ACME", "amount": amount})


QUESTION = ToolRequest("ask_user", input={"question": "Pay INV-7?"})
PLANS: dict[str, tuple[ToolRequest, ...]] = {
    "pay": (ToolRequest("lookup", input={}), transfer()),
    "pay twice": (transfer(), transfer(130_000)),
    "pay and unlock": (transfer(), ToolRequest("flaky", input={})),
    "ask": (QUESTION,),
    "ask then pay": (QUESTION,),
}
"""What the model calls first, by the user's text."""


def agent(request: ModelRequest) -> Message:
    """A stateless model: plans from the last user text, reports after tools.

    Stateless, so that a reopened session (or another process) can use a
    fresh instance.
    """
    last = request.messages[-1]
    if last.role is Role.USER:
        return Message(Role.MODEL, PLANS[last.text])
    user = next(m for m in reversed(request.messages) if m.role is Role.USER)
    answers = {r.name: r.output for r in last.tool_responses}
    if user.text == "ask then pay" and answers.get("ask_user") == "Yes":
        return Message(Role.MODEL, (transfer(),))
    outputs = {r.ref: r.output for r in last.tool_responses}
    return Message.of_text(Role.MODEL, "done: " + json.dumps(outputs, sort_keys=True))


def resume_in_a_process(  # noqa: PLR0913, PLR0917 - a process target's arguments
    where: tuple[str, str, str | None],
    runs: str,
    session: str,
    resume: str,
    barrier: Any,
    results: Any,
) -> None:
    """Open the store and session from scratch, wait for the others, resume once.

    Args:
        where: ``("sqlite", path, None)`` or ``("postgres", dsn, schema)``.
        runs: The `RunLog` file.
        session: The session id.
        resume: The resume, as JSON.
        barrier: Where the processes wait for each other.
        results: Where each puts its finish reason or its problem codes.
    """

    async def go() -> str:
        kind, address, schema = where
        store: Store
        if kind == "sqlite":
            store = SqliteStore(address)
        else:
            store = stores.PostgresStore(address, schema=schema)
            await store.open()
        try:
            opened = Session(
                store,
                ScriptedModel(agent),
                make_tools(RunLog(runs)),
                id=session,
                approver=APPROVER,
            )
            barrier.wait(60)
            try:
                result = await opened.resume(loads(resume, Resume), turn_id=1)
            except ResumeRejected as rejected:
                return ",".join(rejected.codes)
            return result.finish_reason
        finally:
            await store.close()

    results.put(asyncio.run(go()))
