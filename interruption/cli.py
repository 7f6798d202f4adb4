"""The ``interruption`` command: check a resume, print schemas, run the demo.

::

    interruption --version
    interruption check TURN.json RESUME.json   # either file may be - (stdin)
    interruption check --allow-partial --json TURN.json -
    interruption schema [NAME]                 # a published JSON Schema, or the list
    interruption demo [--answers A,B] [--forge] [--db FILE] [--detach | --resume ID]

Exit status: 0 accepted (or done), 1 rejected (or nothing to resume), 2 a
usage error, 3 unreadable input, 130 the demo stopped with Ctrl-C.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import errno
import importlib.metadata
import json
import sqlite3
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final, TextIO, TypeVar, cast, final

import attrs

from interruption import _published_schemas
from interruption._json import (
    DOCUMENT_DEPTH,
    JSON,
    STORED_BYTES,
    STORED_DEPTH,
)
from interruption._status import (
    ACCEPTED,
    REJECTED,
    STOPPED,
    UNREADABLE,
    USAGE,
)
from interruption.errors import (
    DecodeError,
    InterruptionError,
    Mismatch,
    ResumeRejected,
    SchemaError,
)
from interruption.resume import Accepts, InterruptedTurn, Resume
from interruption.schemas import check_schema
from interruption.validation import ResolvedResume, ResumePolicy, validate_resume
from interruption.wire import MAX_BYTES, loads, unstructure

if TYPE_CHECKING:
    from interruption.runtime.session import Session

__all__ = ["main"]

_Record = TypeVar("_Record", InterruptedTurn, Resume)

STDIN: Final = "-"
DEMO_DB: Final = "interruption-demo.sqlite3"
INBOX_PORT: Final = 8400
"""The inbox's port by default (``interruption inbox``, ``demo --inbox``)."""
"""Where the demo keeps its sessions unless ``--db`` says otherwise."""
_STDIN_NAME: Final = "<stdin>"

_CHECK_EPILOG: Final = f"""\
exit status:
  {ACCEPTED}  the resume is accepted
  {REJECTED}  the resume is rejected
  {USAGE}  usage error: an unknown option, a missing or bad argument
  {UNREADABLE}  unreadable input: a file or standard input cannot be read, is
     not a valid document, is too large or too deep, or the turn carries
     an unusable JSON Schema

The verdict (accepted, rejected or unreadable) goes to standard output,
one problem a line: its code, where, and what was expected and got; with
--json, as one JSON document. Usage errors go to standard error."""

_DEMO_EPILOG: Final = f"""\
exit status:
  {ACCEPTED}    the demo ran to its end, or stopped at a pause (--detach, end of
       input, the answers ran out): the session stays paused
  {REJECTED}    --resume found nothing to resume (an unknown or finished session)
  {USAGE}    usage error: an unknown option, a missing or bad argument
  {UNREADABLE}    the --db file cannot be opened or used
  {STOPPED}  stopped with Ctrl-C

Approve with y, yes or approve; reject with n, no or reject, then a reason.
An answer that fits neither is asked again."""

_EPILOG: Final = f"""\
exit status:
  {ACCEPTED}    accepted; done
  {REJECTED}    check: the resume is rejected; demo: nothing to resume
  {USAGE}    usage error: an unknown option, a missing or bad argument
  {UNREADABLE}    unreadable input (a file, standard input, the demo's database)
  {STOPPED}  the demo was stopped with Ctrl-C

See each command's --help."""


def _version() -> str:
    try:
        return importlib.metadata.version("interruption")
    except importlib.metadata.PackageNotFoundError:
        return "unknown (not installed)"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="interruption",
        description="Typed, strictly validated human-in-the-loop pauses.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser(
        "check",
        help="validate a resume against an interrupted turn",
        description=(
            "Validate a client's resume against the interrupted turn it\n"
            "answers, as a server would; print the answers or every problem."
        ),
        epilog=_CHECK_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument(
        "turn",
        metavar="TURN",
        help="the interrupted turn, as a JSON file, or - for standard input",
    )
    check.add_argument(
        "resume",
        metavar="RESUME",
        help="the client's resume, as a JSON file, or - for standard input",
    )
    check.add_argument(
        "--allow-partial",
        action="store_true",
        help="accept a resume that leaves interrupts unanswered (they stay pending)",
    )
    check.add_argument(
        "--json",
        action="store_true",
        help="print the verdict as one JSON document, for machines",
    )
    schema = commands.add_parser(
        "schema",
        help="print a published JSON Schema",
        description="Print a published JSON Schema, or list their names.",
    )
    schema.add_argument(
        "name",
        nargs="?",
        choices=_published_schemas.schema_names(),
        metavar="NAME",
        help="a schema name; omit to list them",
    )
    demo = commands.add_parser(
        "demo",
        help="pay an invoice with a human in the loop",
        description=(
            "A scripted agent pays an invoice; you confirm it and approve the\n"
            "transfer. Without a terminal and without --answers the demo\n"
            "answers for you, as --answers Yes,y would, and says so."
        ),
        epilog=_DEMO_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    demo.add_argument(
        "--answers",
        type=_answers,
        help=(
            "the human's answers, comma-separated, e.g. 'Yes,y' or "
            "'Yes,n wrong account'; quote an answer holding a comma: "
            """'Yes,"n wrong account, call me"'"""
        ),
    )
    demo.add_argument(
        "--forge",
        action="store_true",
        help="also show a tampered resume being rejected",
    )
    demo.add_argument(
        "--db",
        default=DEMO_DB,
        help=f"the SQLite file that keeps the session (default {DEMO_DB})",
    )
    demo.add_argument(
        "--inbox",
        action="store_true",
        help=(
            "pause at the approval and serve it in the web inbox until it is "
            "answered there (needs the [inbox] extra)"
        ),
    )
    demo.add_argument(
        "--port", type=int, default=INBOX_PORT, help="the inbox's port (--inbox)"
    )
    inbox = commands.add_parser(
        "inbox",
        help="serve the approval inbox over a SQLite store",
        description=(
            "Serve the web inbox where people answer the pauses kept in a\n"
            "SQLite store (needs the [inbox] extra). Each answer goes\n"
            "through Session.resume, so the sessions' model and tools must\n"
            "be known: --agent names a function (store) -> open_session;\n"
            "without it, the demo's agent."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    inbox.add_argument("--db", required=True, help="the SQLite file of the sessions")
    inbox.add_argument(
        "--host", default="127.0.0.1", help="the address to listen on (127.0.0.1)"
    )
    inbox.add_argument(
        "--port", type=int, default=INBOX_PORT, help=f"the port ({INBOX_PORT})"
    )
    inbox.add_argument(
        "--agent",
        metavar="MODULE:FUNCTION",
        help="a function (store) -> open_session for your sessions",
    )
    who = inbox.add_mutually_exclusive_group()
    who.add_argument(
        "--principal-header",
        default="X-Remote-User",
        metavar="HEADER",
        help="the header an authenticating proxy puts the user in (X-Remote-User)",
    )
    who.add_argument(
        "--user",
        metavar="NAME",
        help="answer as NAME, whoever asks (one person, on 127.0.0.1)",
    )
    where = demo.add_mutually_exclusive_group()
    where.add_argument(
        "--detach",
        action="store_true",
        help="stop at the approval; another process resumes it with --resume",
    )
    where.add_argument(
        "--resume", metavar="SESSION_ID", help="answer a detached session"
    )
    return parser


def _answers(text: str) -> list[str]:
    """Split ``--answers`` as one CSV record: quotes keep a comma in an answer.

    Raises:
        argparse.ArgumentTypeError: for an unclosed quote (a usage error).
    """
    try:
        (fields,) = csv.reader([text], skipinitialspace=True, strict=True)
    except csv.Error as error:
        msg = f"expected comma-separated answers, got {text!r} ({error})"
        raise argparse.ArgumentTypeError(msg) from error
    return [field.strip() for field in fields]


def _shown(name: str) -> str:
    """*name* printable on any stream (a file name need not be UTF-8)."""
    return name.encode("utf-8", "backslashreplace").decode("utf-8")


@final
@attrs.frozen
class _Line:
    """One problem as the command prints it, whatever found it.

    Attributes:
        code: A `ProblemCode` value, or ``unreadable``, ``malformed``,
            ``unusable_schema`` for input that could not be used.
        where: Where, in words: an entry (``respond[0]``), an interrupt id,
            or a file and a JSON path.
        message: What was expected, what was got.
        detail: The same pieces as fields, for ``--json``.
    """

    code: str
    where: str
    message: str
    detail: dict[str, JSON] = attrs.field(factory=dict)

    def as_json(self) -> dict[str, JSON]:
        return {
            "code": self.code,
            "where": self.where,
            "message": self.message,
            **self.detail,
        }


def _mismatch(name: str, mismatch: Mismatch) -> _Line:
    return _Line(
        "malformed",
        f"{name} {mismatch.path}",
        f"expected {mismatch.expected}, got {mismatch.got}",
        {
            "file": name,
            "path": mismatch.path,
            "expected": mismatch.expected,
            "got": mismatch.got,
        },
    )


def _read_bytes(source: str, stdin: TextIO | None, limit: int) -> bytes:
    """At most *limit* + 1 bytes of *source*: enough to tell it is too large.

    Raises:
        OSError: if it cannot be read (standard input may be closed).
    """
    if source == STDIN:
        if stdin is None:
            raise OSError(errno.EBADF, "standard input is closed")
        return stdin.buffer.read(limit + 1)
    with Path(source).open("rb") as file:
        return file.read(limit + 1)


def _read(
    source: str,
    cls: type[_Record],
    limits: tuple[int, int],
    stdin: TextIO | None,
    problems: list[_Line],
) -> _Record | None:
    """Decode *source* as *cls* within *limits* (bytes, depth).

    Every problem goes to *problems*; None if there was any.
    """
    name = _STDIN_NAME if source == STDIN else _shown(source)
    limit, depth = limits
    try:
        raw = _read_bytes(source, stdin, limit)
    except OSError as error:
        reason = error.strerror or str(error)
        problems.append(
            _Line("unreadable", name, f"cannot read: {reason}", {"file": name})
        )
        return None
    if len(raw) > limit:
        too_large = Mismatch(
            "$", f"a document of at most {limit} bytes", f"more than {limit} bytes"
        )
        problems.append(_mismatch(name, too_large))
        return None
    try:
        return loads(raw, cls, max_bytes=limit, max_depth=depth)
    except DecodeError as error:
        problems.extend(_mismatch(name, mismatch) for mismatch in error.problems)
    return None


def _unusable_schemas(turn: InterruptedTurn, name: str) -> list[_Line]:
    """Why each schema of *turn* cannot be run (invalid, fetching, too slow).

    A turn file is data: its schemas are checked before any is used, and
    none of them may make anything be fetched or read.
    """
    found: list[_Line] = []
    for pending in turn.interrupts:
        for field in attrs.fields(Accepts):
            schema = getattr(pending.accepts, field.name)
            if schema is None:
                continue
            try:
                check_schema(schema)
            except SchemaError as error:
                found.extend(
                    _Line(
                        "unusable_schema",
                        f"{name} interrupt {pending.id!r} accepts.{field.name} "
                        f"{mismatch.path}",
                        "not a usable JSON Schema: "
                        f"expected {mismatch.expected}, got {mismatch.got}",
                        {
                            "file": name,
                            "interrupt_id": pending.id,
                            "accepts": field.name,
                            "path": mismatch.path,
                            "expected": mismatch.expected,
                            "got": mismatch.got,
                        },
                    )
                    for mismatch in error.mismatches
                )
    return found


def _rejection(rejected: ResumeRejected) -> list[_Line]:
    lines = []
    for problem in rejected.problems:
        if problem.answer is not None:
            where = f"{problem.answer}[{problem.index}]"
        else:
            where = problem.interrupt_id or "-"
        # The library's own wire form of a problem: an attrs record is an object.
        detail = cast("dict[str, JSON]", unstructure(problem))
        lines.append(_Line(problem.code.value, where, problem.message, detail))
    return lines


def _print_problems(
    verdict: str, lines: list[_Line], out: TextIO, *, as_json: bool
) -> None:
    if as_json:
        document = {"verdict": verdict, "problems": [line.as_json() for line in lines]}
        print(json.dumps(document), file=out)
        return
    print(f"{verdict}: {len(lines)} problem(s)", file=out)
    for line in lines:
        print(f"  {line.code}\t{line.where}\t{line.message}", file=out)


def _print_accepted(resolved: ResolvedResume, out: TextIO, *, as_json: bool) -> None:
    if as_json:
        document: dict[str, JSON] = {
            "verdict": "accepted",
            "answers": [
                {
                    "interrupt_id": answer.interrupt.id,
                    "entry": unstructure(answer.entry),
                }
                for answer in resolved.answers
            ],
            "unanswered": [pending.id for pending in resolved.unanswered],
        }
        print(json.dumps(document), file=out)
        return
    print(f"accepted: {len(resolved.answers)} answer(s)", file=out)
    for answer in resolved.answers:
        entry = json.dumps(unstructure(answer.entry))
        print(f"  {answer.interrupt.id}\t{entry}", file=out)
    for pending in resolved.unanswered:
        print(f"  {pending.id}\tstill pending", file=out)


def _check(args: argparse.Namespace, stdin: TextIO | None, out: TextIO) -> int:
    problems: list[_Line] = []
    # A turn is a record the library wrote: the stored records' limits; a
    # resume comes from a client: the wire's, as a server reads it.
    turn_limits = (STORED_BYTES, STORED_DEPTH)
    turn = _read(args.turn, InterruptedTurn, turn_limits, stdin, problems)
    resume = _read(args.resume, Resume, (MAX_BYTES, DOCUMENT_DEPTH), stdin, problems)
    if turn is not None:
        name = _STDIN_NAME if args.turn == STDIN else _shown(args.turn)
        problems.extend(_unusable_schemas(turn, name))
    if problems or turn is None or resume is None:
        _print_problems("unreadable", problems, out, as_json=args.json)
        return UNREADABLE
    policy = ResumePolicy(allow_partial=args.allow_partial)
    try:
        resolved = validate_resume(resume, turn, policy=policy)
    except ResumeRejected as rejected:
        _print_problems("rejected", _rejection(rejected), out, as_json=args.json)
        return REJECTED
    _print_accepted(resolved, out, as_json=args.json)
    return ACCEPTED


def _schema(name: str | None, out: TextIO) -> int:
    if name is None:
        print("\n".join(_published_schemas.schema_names()), file=out)
    else:
        print(
            _published_schemas.render(_published_schemas.schema_named(name)),
            end="",
            file=out,
        )
    return ACCEPTED


def _has_inbox(err: TextIO) -> bool:
    """Whether the [inbox] extra is installed; says how to get it if not."""
    try:
        importlib.import_module("interruption.inbox")
    except ImportError as error:
        print(
            f"interruption: the inbox needs the [inbox] extra ({error.name} is "
            "missing): pip install 'interruption[inbox]'",
            file=err,
        )
        return False
    return True


def _inbox(args: argparse.Namespace, err: TextIO) -> int:
    """Serve the inbox over ``--db`` until stopped."""
    if not _has_inbox(err):
        return USAGE
    import uvicorn  # noqa: PLC0415 - the [inbox] extra

    from interruption.inbox import create_app, from_header  # noqa: PLC0415
    from interruption.runtime.store import SqliteStore  # noqa: PLC0415

    if args.agent is None:
        from interruption._demo import open_demo_session  # noqa: PLC0415

        def opener(store: SqliteStore) -> Callable[[str], Session]:
            return open_demo_session(store, [])
    else:
        module, _, name = args.agent.partition(":")
        try:
            opener = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError, ValueError) as error:
            print(f"interruption inbox: --agent {args.agent!r}: {error}", file=err)
            return USAGE
    try:
        store = SqliteStore(args.db)
    except (sqlite3.Error, InterruptionError) as error:
        print(f"interruption inbox: cannot open --db {args.db!r}: {error}", file=err)
        return UNREADABLE
    user = args.user
    principal = (
        from_header(args.principal_header) if user is None else lambda _request: user
    )
    app = create_app(store, opener(store), principal=principal)
    uvicorn.run(app, host=args.host, port=args.port, log_level="info")
    return ACCEPTED


def _parse(
    argv: Sequence[str] | None, out: TextIO, err: TextIO
) -> argparse.Namespace | int:
    """The parsed arguments, or the status argparse exited with.

    argparse prints help and ``--version`` to standard output and usage
    errors to standard error, then exits; here they go to *out* and *err*
    and the status is returned.
    """
    parser = _parser()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            args = parser.parse_args(argv)
            if args.command == "check" and args.turn == args.resume == STDIN:
                parser.error("check: only one of TURN and RESUME can be - (stdin)")
    except SystemExit as exited:
        return exited.code if isinstance(exited.code, int) else USAGE
    return args


def main(
    argv: Sequence[str] | None = None,
    *,
    out: TextIO | None = None,
    err: TextIO | None = None,
    stdin: TextIO | None = None,
) -> int:
    """Run the command line; return the exit status.

    Args:
        argv: The arguments (``sys.argv[1:]`` when None).
        out: Where results go (standard output when None).
        err: Where usage errors and the demo's failures go (standard error
            when None).
        stdin: What ``check`` reads for ``-`` (as bytes, from its
            ``buffer``) and the demo's prompts read (standard input when
            None).

    Returns:
        0 accepted, 1 rejected (or nothing to resume), 2 a usage error,
        3 unreadable input, 130 the demo stopped with Ctrl-C (the
        ``--help`` epilog says more).
    """
    out = out or sys.stdout
    err = err or sys.stderr
    stdin = stdin or sys.stdin  # None when the process has no standard input
    parsed = _parse(argv, out, err)
    if isinstance(parsed, int):
        return parsed
    args = parsed
    if args.command == "check":
        return _check(args, stdin, out)
    if args.command == "schema":
        return _schema(args.name, out)
    if args.command == "inbox":
        return _inbox(args, err)
    from interruption import _demo  # noqa: PLC0415 - only the demo needs its imports

    if args.inbox:
        if not _has_inbox(err):
            return USAGE
        return _demo.run_inbox(
            db=args.db, host="127.0.0.1", port=args.port, out=out, err=err
        )
    return _demo.run(
        args.answers,
        forged=args.forge,
        db=args.db,
        detach=args.detach,
        resume_id=args.resume,
        stdin=stdin,
        out=out,
        err=err,
    )
