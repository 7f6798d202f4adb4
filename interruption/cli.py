"""The ``interruption`` command: check a resume, print schemas, run the demo.

::

    interruption check TURN.json RESUME.json   # 0 accepted, 1 rejected, 2 unusable
    interruption schema [NAME]                 # a published JSON Schema, or the list
    interruption demo [--answers A,B] [--forge]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final, TextIO

import attrs

from interruption import _demo, _schemas
from interruption._json import STORED_BYTES, STORED_DEPTH
from interruption._schemacheck import SchemaError, check_schema
from interruption.errors import DecodeError, ResumeRejected
from interruption.resume import Accepts, InterruptedTurn, Resume
from interruption.validation import validate_resume
from interruption.wire import loads, unstructure

__all__ = ["main"]

ACCEPTED: Final = 0
REJECTED: Final = 1
UNREADABLE: Final = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="interruption",
        description="Typed, strictly validated human-in-the-loop pauses.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser(
        "check",
        help="validate a resume against an interrupted turn",
        description=(
            "Exit 0 if accepted, 1 if rejected (every problem printed), "
            "2 if a file is unreadable or a schema in the turn is invalid."
        ),
    )
    check.add_argument("turn", type=Path, help="the interrupted turn, as JSON")
    check.add_argument("resume", type=Path, help="the client's resume, as JSON")
    schema = commands.add_parser("schema", help="print a published JSON Schema")
    schema.add_argument("name", nargs="?", help="a schema name; omit to list them")
    demo = commands.add_parser("demo", help="pay an invoice with a human in the loop")
    demo.add_argument(
        "--answers",
        help=(
            "the human's answers, comma-separated "
            "(e.g. 'Yes,y' or 'Yes,n wrong account')"
        ),
    )
    demo.add_argument(
        "--forge",
        action="store_true",
        help="also show a tampered resume being rejected",
    )
    demo.add_argument(
        "--db",
        default=_demo.DEFAULT_DB,
        help=f"the SQLite file that keeps the session (default {_demo.DEFAULT_DB})",
    )
    demo.add_argument(
        "--detach",
        action="store_true",
        help="stop at the approval; another process resumes it with --resume",
    )
    demo.add_argument(
        "--resume", metavar="SESSION_ID", help="answer a detached session"
    )
    return parser


def _read(
    path: Path, cls: type[InterruptedTurn | Resume], err: TextIO
) -> InterruptedTurn | Resume | None:
    try:
        raw = path.read_bytes()
        if cls is InterruptedTurn:  # a record the library wrote: its own limits
            return loads(raw, cls, max_bytes=STORED_BYTES, max_depth=STORED_DEPTH)
        return loads(raw, cls)
    except OSError as error:
        print(f"{path}: cannot read: {error.strerror or error}", file=err)
    except DecodeError as error:
        print(f"{path}: not a valid {cls.__name__}:\n{error}", file=err)
    return None


def _unusable_schemas(turn: InterruptedTurn) -> list[str]:
    """Why each schema of *turn* cannot be run (invalid, fetching, too slow).

    A turn file is data: its schemas are checked before any is used, and
    none of them may make anything be fetched or read.
    """
    found = []
    for pending in turn.interrupts:
        for field in attrs.fields(Accepts):
            schema = getattr(pending.accepts, field.name)
            if schema is None:
                continue
            try:
                check_schema(schema)
            except SchemaError as error:
                where = f"interrupt {pending.id!r}, accepts.{field.name}"
                found.append(f"{where}: not a usable JSON Schema: {error.message}")
    return found


def _check(turn_path: Path, resume_path: Path, out: TextIO, err: TextIO) -> int:
    turn = _read(turn_path, InterruptedTurn, err)
    resume = _read(resume_path, Resume, err)
    if not isinstance(turn, InterruptedTurn) or not isinstance(resume, Resume):
        return UNREADABLE
    unusable = _unusable_schemas(turn)
    for reason in unusable:
        print(f"{turn_path}: {reason}", file=err)
    if unusable:
        return UNREADABLE
    try:
        resolved = validate_resume(resume, turn)
    except ResumeRejected as rejected:
        print(f"rejected: {len(rejected.problems)} problem(s)", file=out)
        for problem in rejected.problems:
            entry = f"{problem.answer}[{problem.index}]" if problem.answer else "-"
            print(f"  {problem.code.value}\t{entry}\t{problem.message}", file=out)
        return REJECTED
    print(f"accepted: {len(resolved.answers)} answer(s)", file=out)
    for answer in resolved.answers:
        print(
            f"  {answer.interrupt.id}\t{json.dumps(unstructure(answer.entry))}",
            file=out,
        )
    for pending in resolved.unanswered:
        print(f"  {pending.id}\tstill pending", file=out)
    return ACCEPTED


def _schema(name: str | None, out: TextIO, err: TextIO) -> int:
    names = _schemas.schema_names()
    if name is None:
        print("\n".join(names), file=out)
        return ACCEPTED
    if name not in names:
        print(
            f"no schema named {name!r}; expected one of: {', '.join(names)}", file=err
        )
        return UNREADABLE
    print(_schemas.render(_schemas.schema_named(name)), end="", file=out)
    return ACCEPTED


def main(
    argv: Sequence[str] | None = None,
    *,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Run the command line; return the exit status.

    Args:
        argv: The arguments (``sys.argv[1:]`` when None).
        out: Where results go (standard output when None).
        err: Where complaints go (standard error when None).

    Returns:
        0, 1 or 2 (see each command's help).
    """
    out = out or sys.stdout
    err = err or sys.stderr
    args = _parser().parse_args(argv)
    if args.command == "check":
        return _check(args.turn, args.resume, out, err)
    if args.command == "schema":
        return _schema(args.name, out, err)
    answers = (
        [answer.strip() for answer in args.answers.split(",")] if args.answers else None
    )
    return _demo.run(
        answers,
        forged=args.forge,
        db=args.db,
        detach=args.detach,
        resume_id=args.resume,
        out=out,
    )
