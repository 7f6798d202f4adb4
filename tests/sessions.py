"""The session tests' world: a run log, tools and a stateless model.

Also the resume laws' world (`ToolSet`, `Ledger`, `mutations`), shared by
``test_validation.py`` and ``test_session.py``; their strategies are in
``tests/strategies.py``.

Kept apart from ``test_session.py`` and light to import (the library and
the standard library only), because each spawned process of the
cross-process test imports it.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections import Counter
from collections.abc import Iterable, Sequence
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Final, Protocol

import attrs
from interruption import (
    JSON,
    InterruptedTurn,
    Message,
    ModelRequest,
    PendingInterrupt,
    ProblemCode,
    Respond,
    Restart,
    ResumeRejected,
    Role,
    SessionInUse,
    Tool,
    ToolContext,
    ToolRequest,
    define_interrupt,
    loads,
    tool,
)
from interruption.resume import ExpiryAnswer, Resume
from interruption.runtime import store as stores
from interruption.runtime.approval import Approver, await_human, by_tool, when
from interruption.runtime.session import Session
from interruption.runtime.store import SqliteStore, Store
from interruption.testing import ScriptedModel

NOW: Final = datetime(2026, 11, 21, 23, 0, tzinfo=UTC)
"""When the loop's and the sessions' tests start; a `Clock` reads it first."""


class Clock:
    """A clock the test moves by hand (the ``clock`` fixture)."""

    def __init__(self) -> None:
        self.moment = NOW

    def __call__(self) -> datetime:
        """The time it reads."""
        return self.moment

    def advance(self, delta: timedelta) -> None:
        """Move the clock forward by *delta*."""
        self.moment += delta


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


async def slow_echo(request: ModelRequest) -> Message:
    """A model that thinks a while, then says back the last user text."""
    await asyncio.sleep(0.3)
    return Message.of_text(Role.MODEL, f"said {request.messages[-1].text}")


def send_in_a_process(
    where: tuple[str, str, str | None],
    session: str,
    text: str,
    barrier: Any,
    results: Any,
) -> None:
    """Open the store and session from scratch, wait for the others, send once.

    Puts ``"stop"``, or the code of the `SessionBusy` it got.
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
            opened = Session(store, ScriptedModel(slow_echo), id=session)
            barrier.wait(60)
            try:
                result = await opened.send(text)
            except SessionInUse as busy:
                return busy.code
            return result.finish_reason
        finally:
            await store.close()

    results.put(asyncio.run(go()))


# --- the resume laws' world: four behaviours under any names ----------------

BEHAVIOURS: Final = ("finish", "pause", "ask", "gated")
"""How a tool of the laws behaves (`tests.strategies.CALL_KINDS`).

``finish`` returns at once; ``pause`` calls ``ctx.interrupt`` on its first
run; ``ask`` is an interrupt-only tool; ``gated`` awaits a human's approval.
"""

OBJECT_GO: dict[str, JSON] = {
    "type": "object",
    "properties": {"go": {"type": "boolean"}},
    "required": ["go"],
    "additionalProperties": False,
}
N_INPUT: dict[str, JSON] = {
    "type": "object",
    "properties": {"n": {"type": "integer"}},
    "required": ["n"],
    "additionalProperties": False,
}


class Ledger:
    """Counts tool runs, by behaviour."""

    def __init__(self) -> None:
        self.runs: Counter[str] = Counter()


class Batched(Protocol):
    """A call of a random batch (`tests.strategies.Call`)."""

    @property
    def kind(self) -> str:
        """Its behaviour, one of `BEHAVIOURS`."""

    @property
    def input(self) -> JSON:
        """Its input."""


@attrs.frozen
class ToolSet:
    """The four behaviours as tools, under names and time limits of their own.

    Attributes:
        names: Each behaviour's tool name (all distinct).
        ttls: Each behaviour's own time limit; None (or absent) for the
            session's.
    """

    names: dict[str, str] = attrs.field(
        factory=lambda: {kind: kind for kind in BEHAVIOURS}
    )
    ttls: dict[str, timedelta | None] = attrs.field(factory=dict)

    def tools(self, ledger: Ledger) -> list[Tool[Any, Any, Any]]:
        """The tools, counting their runs in *ledger*."""
        names, ttls = self.names, self.ttls

        @tool(
            input=N_INPUT,
            output={"type": "integer"},
            name=names["finish"],
            ttl=ttls.get("finish"),
        )
        def finish(_ctx: ToolContext[JSON], data: JSON) -> JSON:
            ledger.runs["finish"] += 1
            assert isinstance(data, dict)
            return data["n"]

        @tool(
            input=N_INPUT,
            output={"type": "integer"},
            resume=OBJECT_GO,
            name=names["pause"],
            ttl=ttls.get("pause"),
        )
        def pause(ctx: ToolContext[JSON], data: JSON) -> JSON:
            ledger.runs["pause"] += 1
            if ctx.resumed is None:
                ctx.interrupt(data)
            assert isinstance(data, dict)
            return data["n"]

        @tool(
            input=N_INPUT,
            output={"type": "integer"},
            name=names["gated"],
            ttl=ttls.get("gated"),
        )
        def gated(_ctx: ToolContext[JSON], data: JSON) -> JSON:
            ledger.runs["gated"] += 1
            assert isinstance(data, dict)
            return data["n"]

        ask = define_interrupt(
            names["ask"],
            "Ask the user",
            input=N_INPUT,
            output={"type": "string"},
            ttl=ttls.get("ask"),
        )
        return [finish, pause, gated, ask]

    @property
    def approver(self) -> Approver:
        """Holds every call of the ``gated`` tool for a human."""
        return by_tool({self.names["gated"]: await_human()})

    def model(self, batch: Sequence[Batched]) -> ScriptedModel:
        """A model that calls *batch* at once, then says "ok"."""
        requests = tuple(
            ToolRequest(self.names[call.kind], input=call.input) for call in batch
        )
        return ScriptedModel(
            [Message(Role.MODEL, requests), Message.of_text(Role.MODEL, "ok")]
        )


def resume_of(entries: Iterable[Respond | Restart]) -> Resume:
    """A resume of *entries*, responds and restarts in their order."""
    listed = list(entries)
    return Resume(
        [entry for entry in listed if isinstance(entry, Respond)],
        [entry for entry in listed if isinstance(entry, Restart)],
    )


def entries_of(resume: Resume) -> list[Respond | Restart]:
    """A resume's entries, responds first (the order the validator reads)."""
    return [*resume.respond, *resume.restart]


@attrs.frozen
class Mutation:
    """A valid resume changed in one way, and the codes it must be rejected with.

    Attributes:
        what: What was changed, for a failing example's report.
        resume: The changed resume.
        codes: The problem codes, exactly.
    """

    what: str
    resume: Resume
    codes: frozenset[ProblemCode]


def _replaced(
    resume: Resume, index: int, entry: Respond | Restart | None
) -> list[Respond | Restart]:
    entries = entries_of(resume)
    if entry is None:
        del entries[index]
    else:
        entries[index] = entry
    return entries


def _swapped(entry: Respond | Restart) -> Respond | Restart:
    if isinstance(entry, Respond):
        return Restart(entry.name, entry.ref, entry.output)
    return Respond(entry.name, entry.ref, entry.resumed)


def _swap_code(pending: PendingInterrupt, entry: Respond | Restart) -> ProblemCode:
    """The code of *entry* swapped to the other kind of answer."""
    other = (
        pending.accepts.restart
        if isinstance(entry, Respond)
        else pending.accepts.respond
    )
    return (
        ProblemCode.SCHEMA_VIOLATION
        if other is not None
        else ProblemCode.ANSWER_NOT_ACCEPTED
    )


def _outside(entry: Respond | Restart) -> Respond | Restart:
    """The entry with its output or resumed value outside its schema."""
    if isinstance(entry, Respond):
        return attrs.evolve(entry, output=[entry.output])
    return attrs.evolve(entry, resumed={"go": "yes", "note": 1})


def _input_changes(original: JSON) -> list[tuple[str, JSON]]:
    assert isinstance(original, dict)
    n = original["n"]
    return [
        ("n to a boolean", {"n": n == 1 if n in {0, 1} else True}),
        ("n changed", {"n": 1 + (n if isinstance(n, int) else 0)}),
        ("key added", {**original, "extra": 1}),
    ]


def mutations(resume: Resume, turn: InterruptedTurn) -> list[Mutation]:
    """Every single mutation of a valid resume of *turn*, with its codes.

    A changed ref or name, a duplicated, conflicting, swapped, dropped or
    out-of-schema entry, a partial resume (one entry only, or none), a
    changed input, and answers to calls that completed.
    """
    pending = {(p.name, p.ref): p for p in turn.interrupts}
    names = sorted({p.name for p in turn.interrupts} | {c.name for c in turn.completed})
    entries = entries_of(resume)
    found: list[Mutation] = []
    lost = frozenset({ProblemCode.UNKNOWN_INTERRUPT, ProblemCode.MISSING})
    missing = frozenset({ProblemCode.MISSING})
    for index, entry in enumerate(entries):
        target = pending[entry.name, entry.ref]
        swap = _swap_code(target, entry)
        other = next((name for name in names if name != entry.name), entry.name + "_")
        found += [
            Mutation(
                f"unknown ref at {index}",
                resume_of(_replaced(resume, index, attrs.evolve(entry, ref="nope"))),
                lost,
            ),
            Mutation(
                f"name {other!r} at {index}",
                resume_of(_replaced(resume, index, attrs.evolve(entry, name=other))),
                lost,
            ),
            Mutation(
                f"duplicated {index}",
                resume_of([*entries, entry]),
                frozenset({ProblemCode.DUPLICATE}),
            ),
            # Responds are read first: a conflicting respond is the answer
            # taken (with its own problem), and the restart conflicts.
            Mutation(
                f"conflicting answer to {index}",
                resume_of([*entries, _swapped(entry)]),
                frozenset({ProblemCode.CONFLICT})
                | ({swap} if isinstance(entry, Restart) else set()),
            ),
            Mutation(
                f"swapped {index}",
                resume_of(_replaced(resume, index, _swapped(entry))),
                frozenset({swap}),
            ),
            Mutation(
                f"outside the schema at {index}",
                resume_of(_replaced(resume, index, _outside(entry))),
                frozenset({ProblemCode.SCHEMA_VIOLATION}),
            ),
            Mutation(
                f"dropped {index}",
                resume_of(_replaced(resume, index, None)),
                missing,
            ),
        ]
        if len(entries) > 2:
            found.append(Mutation(f"only {index}", resume_of([entry]), missing))
        if isinstance(entry, Restart) and target.tool is not None:
            found += [
                Mutation(
                    f"{label} at {index}",
                    resume_of(
                        _replaced(resume, index, attrs.evolve(entry, input=changed))
                    ),
                    frozenset({ProblemCode.INPUT_MODIFIED}),
                )
                for label, changed in _input_changes(target.tool.input)
            ]
    found.append(Mutation("no answer at all", Resume(), missing))
    found += [
        Mutation(
            f"answers completed {done.ref}",
            resume_of([*entries, entry]),
            frozenset({ProblemCode.NOT_INTERRUPTED}),
        )
        for done in turn.completed
        for entry in (Respond(done.name, done.ref, 0), Restart(done.name, done.ref))
    ]
    return found
