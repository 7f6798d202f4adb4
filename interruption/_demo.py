"""The demo: a scripted agent pays an invoice, with a human in the loop.

No network: the model is a `ScriptedModel` that reads the history. It asks
the human to confirm the invoice through an interrupt-only tool, then calls
``transfer_money``, which an approver holds for a human when the amount is
over 100.00. The terminal (or ``--answers``) supplies the human; with
neither, the demo answers for them (confirm, approve) and says so. A human
who gives no answer (Ctrl-D, Ctrl-C, answers running out) leaves the
session paused, to be resumed with ``--resume``.
"""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import sqlite3
import sys
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Final, TextIO, final

import attrs

from interruption._json import JSON
from interruption._status import ACCEPTED, REJECTED, STOPPED, UNREADABLE
from interruption.errors import ResumeRejected, StoreUnavailable
from interruption.kinds import ApprovalPending
from interruption.parts import Message, Role, ToolRequest, ToolResponse
from interruption.prompts import Confirm
from interruption.resume import (
    InterruptedTurn,
    PendingInterrupt,
    Respond,
    Restart,
    Resume,
)
from interruption.runtime.approval import Approver, by_tool, when
from interruption.runtime.loop import ModelRequest, run_sync
from interruption.runtime.session import Session
from interruption.runtime.store import SqliteStore
from interruption.runtime.tools import Tool, ToolContext, define_interrupt, tool
from interruption.testing import ScriptedModel
from interruption.validation import validate_resume

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from interruption.inbox import OpenSession

LIMIT_CENTS: Final = 10_000
MAX_ROUNDS: Final = 10
INVOICE: Final[dict[str, JSON]] = {"id": "INV-7", "to": "ACME", "amount": 125_000}


@final
@attrs.frozen
class Transfer:
    """Move money to a payee.

    Attributes:
        to: The payee.
        amount: The amount, in cents.
    """

    to: str
    amount: int


@final
@attrs.frozen
class Receipt:
    """A transfer that happened.

    Attributes:
        status: Always ``"sent"``.
        to: The payee.
        amount: The amount, in cents.
        transfer_id: The bank's reference.
    """

    status: str
    to: str
    amount: int
    transfer_id: str


def _money(cents: JSON) -> str:
    return f"{int(cents) / 100:,.2f} EUR" if isinstance(cents, int) else repr(cents)


def make_tools(
    ledger: list[Transfer],
) -> list[Tool[JSON, JSON, JSON] | Tool[Transfer, Receipt, JSON]]:
    """Build the demo's tools; *ledger* records every transfer that ran."""

    @tool(input=Transfer, output=Receipt)
    def transfer_money(_ctx: ToolContext[JSON], transfer: Transfer) -> Receipt:
        """Send money to a payee (amount in cents)."""
        ledger.append(transfer)
        return Receipt("sent", transfer.to, transfer.amount, f"tx-{len(ledger)}")

    ask_user = define_interrupt(
        "ask_user",
        "Ask the human a yes/no question.",
        input=Confirm,
        output={"type": "string"},
    )
    return [transfer_money, ask_user]


def approver() -> Approver:
    """Transfers over the limit await a human; everything else runs."""
    return by_tool({"transfer_money": when(lambda call: _amount(call) > LIMIT_CENTS)})


def _amount(call: ToolRequest) -> int:
    data = call.input
    amount = data.get("amount") if isinstance(data, dict) else None
    return amount if isinstance(amount, int) else 0


def _last_response(request: ModelRequest, name: str) -> ToolResponse | None:
    for message in reversed(request.messages):
        for part in message.tool_responses:
            if part.name == name:
                return part
    return None


def script(request: ModelRequest) -> Message:
    """The scripted model: confirm, pay, then report."""
    transfer = _last_response(request, "transfer_money")
    if transfer is not None:
        return Message.of_text(Role.MODEL, _report(transfer.output))
    answer = _last_response(request, "ask_user")
    if answer is None:
        question = Confirm(
            "Invoice",
            f"{INVOICE['id']} asks {_money(INVOICE['amount'])} for "
            f"{INVOICE['to']}. Pay it today?",
        )
        return Message(
            Role.MODEL, (ToolRequest("ask_user", input=_confirm_json(question)),)
        )
    if answer.output != "Yes":
        return Message.of_text(Role.MODEL, f"Understood: {INVOICE['id']} stays unpaid.")
    call = ToolRequest(
        "transfer_money", input={"to": INVOICE["to"], "amount": INVOICE["amount"]}
    )
    return Message(Role.MODEL, (call,))


def _confirm_json(question: Confirm) -> JSON:
    return {
        "type": "confirm",
        "title": question.title,
        "text": question.text,
        "choices": list(question.choices),
    }


def _report(output: JSON) -> str:
    if isinstance(output, dict) and output.get("status") == "sent":
        amount = _money(output.get("amount"))
        return (
            f"Paid {INVOICE['id']}: {amount} to {output.get('to')} "
            f"({output.get('transfer_id')})."
        )
    if isinstance(output, dict) and output.get("status") == "rejected":
        return (
            f"I did not pay {INVOICE['id']}: the transfer was rejected "
            f"({output.get('reason')})."
        )
    return f"The transfer failed: {json.dumps(output)}"


QUESTION_DEFAULT: Final = "Yes"
"""What the demo answers the invoice question without a terminal."""
APPROVAL_DEFAULT: Final = "y"
"""What the demo answers the approval without a terminal: approve."""

_APPROVE: Final = re.compile(r"y|yes|approve", re.IGNORECASE)
_REJECT: Final = re.compile(
    r"(?:n|no|reject)\b[\s,:;.-]*(?P<reason>.*)", re.IGNORECASE | re.DOTALL
)


@final
class NoAnswer(Exception):
    """The human gave no answer: input ended, the answers ran out, or Ctrl-C.

    Attributes:
        how: What happened, for the person at the terminal.
        status: The exit status it ends the demo with.
    """

    def __init__(self, how: str, status: int) -> None:
        super().__init__(how)
        self.how = how
        self.status = status


@final
class Human:
    """Where answers come from: a list, the terminal, or the demo's defaults.

    With neither a list nor a terminal the demo answers for the human, as
    ``--answers Yes,y`` would, and says so at the start and at each prompt.
    """

    def __init__(
        self, answers: list[str] | None, stdin: TextIO | None, out: TextIO
    ) -> None:
        self.scripted: Iterator[str] | None = (
            iter(answers) if answers is not None else None
        )
        self.interactive = answers is None and stdin is not None and stdin.isatty()
        self.stdin = stdin
        self.out = out
        self._announced = False

    def ask(self, question: str, default: str) -> str:
        """Return the next answer to *question*; *default* with no human.

        Raises:
            NoAnswer: when the answers run out, or at the terminal on end of
                input (Ctrl-D) or Ctrl-C.
        """
        if self.scripted is not None:
            answer = next(self.scripted, None)
            if answer is None:
                print(question, file=self.out)
                raise NoAnswer("the answers ran out", ACCEPTED)
            print(f"{question} {answer}", file=self.out)
            return answer
        if self.stdin is None or not self.interactive:
            if not self._announced:
                self._announced = True
                print(
                    "(no terminal on standard input and no --answers: the demo "
                    "answers for you, as --answers "
                    f"{QUESTION_DEFAULT},{APPROVAL_DEFAULT} would: "
                    f"{QUESTION_DEFAULT} to the invoice question, "
                    f"{APPROVAL_DEFAULT} to approve the transfer)",
                    file=self.out,
                )
            print(f"{question} {default} (the default: no terminal)", file=self.out)
            return default
        try:  # a Ctrl-C once the prompt is on its way is one at the prompt
            print(question, end=" ", file=self.out, flush=True)
            line = self.stdin.readline()
        except KeyboardInterrupt:
            print(file=self.out)
            raise NoAnswer("Ctrl-C", STOPPED) from None
        if not line:
            print(file=self.out)
            raise NoAnswer("end of input", ACCEPTED)
        return line.strip()


def decision(reply: str) -> tuple[bool, str] | None:
    """Read an approval reply: (approved, reason), or None if it is neither.

    ``y``, ``yes`` or ``approve`` approves; ``n``, ``no`` or ``reject``,
    then an optional reason (which may hold commas), rejects.
    """
    if _APPROVE.fullmatch(reply):
        return True, ""
    rejected = _REJECT.fullmatch(reply)
    if rejected is None:
        return None
    return False, rejected["reason"].strip() or "rejected by the human"


def answer_for(
    pending: PendingInterrupt, human: Human, out: TextIO
) -> Respond | Restart:
    """Show *pending* to the human and build the answer they give.

    An answer that fits neither prompt is refused and asked again.

    Raises:
        NoAnswer: if the human gives no answer.
    """
    if isinstance(pending.kind, ApprovalPending):
        request = pending.tool
        shown = json.dumps(request.input) if request is not None else "?"
        print(
            f"paused: {pending.name} {shown} awaits approval "
            f"(over {_money(LIMIT_CENTS)})",
            file=out,
        )
        while True:
            reply = human.ask("approve? [y / n REASON]:", APPROVAL_DEFAULT)
            decided = decision(reply)
            if decided is None:
                print("  please answer y, or n and a reason", file=out)
                continue
            approved, reason = decided
            if approved:
                return pending.approve("approved in the demo")
            return pending.reject(reason)
    prompt = pending.payload_as(Confirm)
    print(
        f"paused: the model asks ({pending.name}): {prompt.title}: {prompt.text}",
        file=out,
    )
    choices = "/".join(prompt.choices)
    while True:
        reply = human.ask(f"answer [{choices}]:", QUESTION_DEFAULT)
        match = next(
            (choice for choice in prompt.choices if choice.lower() == reply.lower()),
            None,
        )
        if match is not None:
            return pending.respond(match)
        print(f"  please answer one of {choices}", file=out)


def forge(turn: InterruptedTurn, out: TextIO) -> None:
    """Show a tampered resume (a changed amount) being rejected."""
    for pending in turn.interrupts:
        if isinstance(pending.kind, ApprovalPending) and pending.tool is not None:
            tampered = attrs.evolve(
                pending.approve(), input={"to": "MALLORY", "amount": 1}
            )
            print(
                "forging: approve, but with the input changed to MALLORY / 0.01 EUR",
                file=out,
            )
            try:
                validate_resume(Resume(restart=(tampered,)), turn)
            except ResumeRejected as rejected:
                for problem in rejected.problems:
                    print(f"  rejected: {problem}", file=out)
            return


def _print_history(messages: tuple[Message, ...], start: int, out: TextIO) -> None:
    for message in messages[start:]:
        for request in message.tool_requests:
            if request.name != "ask_user":
                print(
                    f"model calls {request.name} {json.dumps(request.input)} "
                    f"(ref {request.ref})",
                    file=out,
                )
        for response in message.tool_responses:
            if response.name == "transfer_money":
                print(
                    f"tool {response.name} -> {json.dumps(response.output)}", file=out
                )
        if message.role is Role.MODEL and message.text:
            print(f"model: {message.text}", file=out)


def run(  # noqa: PLR0913 - the command's options
    answers: list[str] | None,
    *,
    forged: bool,
    db: str,
    detach: bool = False,
    resume_id: str | None = None,
    stdin: TextIO | None = sys.stdin,
    out: TextIO = sys.stdout,
    err: TextIO = sys.stderr,
) -> int:
    """Run the demo; return the process exit status.

    The session lives in SQLite at *db*, so one process can stop at the
    approval (*detach*) and another can pick it up (*resume_id*).

    Returns:
        0 when the demo ran to its end or stopped at a pause (detached, or
        no answer came: the session stays paused), 1 when *resume_id* has
        nothing to resume, 3 when *db* cannot be opened or used, 130 when
        it was stopped with Ctrl-C. Failures are one line on *err*.
    """
    try:
        store = SqliteStore(db)
    except (sqlite3.Error, RuntimeError) as error:  # RuntimeError: a newer schema
        print(f"interruption demo: cannot open --db {db!r}: {error}", file=err)
        return UNREADABLE
    ledger: list[Transfer] = []
    session = Session(
        store,
        ScriptedModel(script),
        make_tools(ledger),
        id=resume_id,
        approver=approver(),
    )
    try:
        human = Human(answers, stdin, out)
        options = _Options(forged=forged, detach=detach, resuming=resume_id is not None)
        return _converse(session, human, ledger=ledger, db=db, options=options, err=err)
    except (sqlite3.Error, StoreUnavailable) as error:
        print(f"interruption demo: the database {db!r} failed: {error}", file=err)
        return UNREADABLE
    except KeyboardInterrupt:
        print(f"interruption demo: stopped (Ctrl-C); session {session.id}", file=err)
        return STOPPED
    finally:
        run_sync(store.close())


@final
@attrs.frozen
class _Options:
    forged: bool
    detach: bool
    resuming: bool


def _resume_hint(session: Session, db: str) -> str:
    return f"interruption demo --db {shlex.quote(db)} --resume {session.id}"


def _nothing_pending(session: Session, db: str, err: TextIO) -> int:
    """Say why a session has nothing to resume: unknown, finished, cut short."""
    stored = run_sync(session.store.load_turn(session.id))
    if stored is None:
        print(f"session {session.id} is not in {db}: nothing to resume", file=err)
    elif stored.state == "completed":
        history = run_sync(session.store.load_history(session.id)) or ()
        last = next(
            (m.text for m in reversed(history) if m.role is Role.MODEL and m.text), ""
        )
        print(
            f"session {session.id} has finished: nothing to resume "
            f"(its last word: {last!r})",
            file=err,
        )
    else:
        print(
            f"session {session.id} was answered, but its continuation was cut "
            "short: nothing to resume",
            file=err,
        )
    return REJECTED


def _converse(  # noqa: PLR0913 - the demo's parts, passed along
    session: Session,
    human: Human,
    *,
    ledger: list[Transfer],
    db: str,
    options: _Options,
    err: TextIO,
) -> int:
    """Pay the invoice with *human*; return the exit status (see `run`)."""
    out = human.out
    if options.resuming:
        turn = session.pending_turn_sync()
        if turn is None:
            return _nothing_pending(session, db, err)
        print(f"session {session.id}: resuming turn {turn.turn_id} from {db}", file=out)
        reason = "stop"
    else:
        opening = f"Please pay invoice {INVOICE['id']} from {INVOICE['to']}."
        print(f"session {session.id} (kept in {db})", file=out)
        print(f"user: {opening}", file=out)
        result = session.send_sync(opening)
        _print_history(result.messages, 1, out)
        turn, reason = result.turn, result.finish_reason
    seen = len(turn.messages) if turn is not None else 0
    for _ in range(MAX_ROUNDS):
        if turn is None:
            break
        if options.detach and any(
            isinstance(p.kind, ApprovalPending) for p in turn.interrupts
        ):
            print(
                "detached at the approval; resume it with:\n"
                f"  {_resume_hint(session, db)} --answers y",
                file=out,
            )
            return ACCEPTED
        if options.forged:
            forge(turn, out)
        try:
            entries = [answer_for(pending, human, out) for pending in turn.interrupts]
        except NoAnswer as stopped:
            print(
                f"no answer ({stopped.how}): session {session.id} stays paused; "
                f"resume it with:\n  {_resume_hint(session, db)}",
                file=out,
            )
            return stopped.status
        resume = Resume(
            respond=tuple(entry for entry in entries if isinstance(entry, Respond)),
            restart=tuple(entry for entry in entries if isinstance(entry, Restart)),
        )
        result = session.resume_sync(
            resume, turn_id=turn.turn_id, principal="demo-user"
        )
        _print_history(result.messages, seen, out)
        seen = len(result.messages)
        turn, reason = result.turn, result.finish_reason
    else:
        print(f"gave up after {MAX_ROUNDS} rounds of questions", file=err)
        return REJECTED
    print(
        f"finished: {reason}; transfers made by this process: {len(ledger)}", file=out
    )
    return ACCEPTED


def open_demo_session(store: SqliteStore, ledger: list[Transfer]) -> OpenSession:
    """Open the demo's sessions by id (its model, tools and approver), to answer."""

    def open_session(session: str) -> Session:
        return Session(
            store,
            ScriptedModel(script),
            make_tools(ledger),
            id=session,
            approver=approver(),
        )

    return open_session


def run_inbox(  # noqa: PLR0913 - the command's options
    *,
    db: str,
    host: str,
    port: int,
    out: TextIO = sys.stdout,
    err: TextIO = sys.stderr,
    serve: Callable[[Starlette, str, int, Callable[[], Awaitable[bool]]], None]
    | None = None,
) -> int:
    """Pause the demo at the approval and serve it in the inbox until answered.

    The invoice question is answered for the human (``Yes``); the transfer's
    approval waits in the inbox at ``http://HOST:PORT/s/<session>``. The
    server stops once the session finished (approved or rejected there).

    Returns:
        0 when the session finished, 3 when *db* cannot be used, 130 on
        Ctrl-C (the session stays paused).
    """
    from interruption.inbox import create_app  # noqa: PLC0415 - the [inbox] extra

    try:
        store = SqliteStore(db)
    except (sqlite3.Error, RuntimeError) as error:
        print(f"interruption demo: cannot open --db {db!r}: {error}", file=err)
        return UNREADABLE
    ledger: list[Transfer] = []
    opener = open_demo_session(store, ledger)
    session = Session(
        store, ScriptedModel(script), make_tools(ledger), approver=approver()
    )
    try:
        opening = f"Please pay invoice {INVOICE['id']} from {INVOICE['to']}."
        print(f"session {session.id} (kept in {db})\nuser: {opening}", file=out)
        result = session.send_sync(opening)
        human = Human([QUESTION_DEFAULT], None, out)
        turn = result.turn
        while turn is not None and not any(
            isinstance(p.kind, ApprovalPending) for p in turn.interrupts
        ):
            entries = [answer_for(pending, human, out) for pending in turn.interrupts]
            resume = Resume(
                respond=tuple(e for e in entries if isinstance(e, Respond)),
                restart=tuple(e for e in entries if isinstance(e, Restart)),
            )
            result = session.resume_sync(resume, turn_id=turn.turn_id, principal="demo")
            turn = result.turn
        _print_history(result.messages, 1, out)
        if turn is None:  # pragma: no cover - the script always asks for approval
            return ACCEPTED
        url = f"http://{host}:{port}/s/{session.id}"
        print(f"the transfer awaits your approval in the inbox: open {url}", file=out)
        out.flush()

        async def finished() -> bool:
            stored = await store.load_turn(session.id)
            return stored is not None and stored.state == "completed"

        app = create_app(store, opener, principal=lambda _request: "demo-user")
        (serve or _serve)(app, host, port, finished)
        history = run_sync(store.load_history(session.id)) or ()
        _print_history(tuple(history), len(result.messages), out)
        done = run_sync(finished())
        state = "finished" if done else "stopped; the session stays paused"
        print(f"{state}: transfers made by this process: {len(ledger)}", file=out)
        return ACCEPTED if done else STOPPED
    finally:
        run_sync(store.close())


def _serve(
    app: Starlette, host: str, port: int, finished: Callable[[], Awaitable[bool]]
) -> None:
    import uvicorn  # noqa: PLC0415 - the [inbox] extra

    server = uvicorn.Server(
        uvicorn.Config(app, host=host, port=port, log_level="warning")
    )

    async def main() -> None:
        async def watch() -> None:
            while not await finished():  # noqa: ASYNC110 - another process may answer
                await asyncio.sleep(0.5)
            server.should_exit = True

        watcher = asyncio.create_task(watch())
        try:
            await server.serve()
        finally:
            watcher.cancel()

    asyncio.run(main())
