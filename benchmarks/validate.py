"""Time the resume check, bytes to verdict, against pydantic and raw orjson.

Run with ``make bench``. The full check is what a server does with a client's
answers: ``loads(data, Resume)`` then ``validate_resume(resume, turn)``
against the authoritative `InterruptedTurn`, every per-answer JSON Schema
checked. Its anchors decode the same bytes: pydantic v2 (``validate_json``
into a strict, extra-forbidding model of `Resume`, with the JSON fields as
``Any``, so it checks the envelope and no answer's schema) and plain
``orjson.loads``, which validates nothing (the floor). Every figure is the
best of several interleaved repeats, measured in this run on this machine.

The turn is built by hand, the way the loop builds it, and the resume with
the builders on `PendingInterrupt`. Its entries cycle through four answers:

* ``respond`` to an interrupt-only ``confirm`` (output ``{"enum": ["Yes", "No"]}``);
* ``respond`` to an interrupt-only ``ask_address`` (a small object schema);
* ``restart`` of a ``transfer_money`` awaiting approval, carrying a decision
  (`DECISION_SCHEMA`), approvals and rejections alternating;
* ``restart`` of a ``verify_identity`` tool whose resume schema comes from a
  small attrs class.

The ceiling, at 100 entries: the full check within 3x pydantic's
``validate_json`` of the same bytes (Core III); its ratio to the raw parse
is printed for reference.

A rejection is timed too, as a `Session` pays for it (``loads``,
``validate_resume``, the digest its audit trail keeps), for a
wire-valid resume of one answer holding 100,000 numbers, against ``loads``
of the same bytes: its ratio is printed, measured in the same run.
Pass ``-p`` / ``--profile`` for a cProfile of the full check.
"""

from __future__ import annotations

import cProfile
import functools
import io
import pstats
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Final

import attrs
import orjson
import pydantic
from interruption import (
    JSON,
    Accepts,
    ApprovalPending,
    Custom,
    InterruptedTurn,
    Message,
    PendingInterrupt,
    Respond,
    Restart,
    Resume,
    ResumeRejected,
    Role,
    ToolRequest,
    ToolResponse,
    define_interrupt,
    dumps,
    loads,
    tool,
    validate_resume,
    wire_digest,
)
from interruption._converter import structure_value
from interruption._json import DOCUMENT_DEPTH
from interruption._parse import parse
from interruption.runtime.approval import DECISION_SCHEMA
from interruption.runtime.tools import ToolContext
from interruption.schemas import SchemaGroups, conforming_groups, group_check
from interruption.wire import MAX_BYTES

from _common import REPEATS, TARGET_SECONDS, best_us, machine_load, table

PYDANTIC_BUDGET: Final = 3.0
"""The ceiling (Core III): the full check within this factor of pydantic's
decode of the same bytes. The check decodes into records that own frozen
copies of their JSON, which pydantic's models do not make."""

SIZES: Final = (10, 100, 1_000, 10_000)
"""Entries per resume for the growth table."""

MAIN_SIZE: Final = 100
"""Entries in the resume the target is stated for."""

# --- the tools whose pauses the turn holds -------------------------------------

CONFIRM: Final = define_interrupt(
    "confirm",
    "Ask the human a yes/no question.",
    input={"type": "string"},
    output={"enum": ["Yes", "No"]},
)

ASK_ADDRESS: Final = define_interrupt(
    "ask_address",
    "Ask the human where to ship.",
    input={"type": "object"},
    output={
        "type": "object",
        "properties": {
            "street": {"type": "string", "minLength": 1},
            "city": {"type": "string", "minLength": 1},
            "zip": {"type": "string", "pattern": "^[0-9]{5}$"},
        },
        "required": ["street", "city"],
        "additionalProperties": False,
    },
)


@attrs.frozen
class Transfer:
    """The input of ``transfer_money``.

    Attributes:
        to: The payee's account.
        amount: How much, in euros.
    """

    to: str
    amount: float


@attrs.frozen
class Receipt:
    """The output of ``transfer_money`` and ``verify_identity``.

    Attributes:
        id: The transaction's id.
    """

    id: str


@attrs.frozen
class Code:
    """What a human types to resume ``verify_identity``.

    Attributes:
        code: The one-time code sent to the customer.
        channel: Where it was sent.
    """

    code: str
    channel: str


@tool(input=Transfer, output=Receipt)
def transfer_money(_ctx: ToolContext[JSON], data: Transfer) -> Receipt:
    """Move money (paused for approval before it runs)."""
    return Receipt(f"tx-{data.to}")


@tool(input=Transfer, output=Receipt, resume=Code)
def verify_identity(ctx: ToolContext[Code], data: Transfer) -> Receipt:
    """Pause for a one-time code, then go on."""
    assert ctx.resumed is not None
    return Receipt(f"tx-{data.to}-{ctx.resumed.code}")


# --- the workload: a turn, a resume for it, and its bytes ----------------------


def _request(index: int) -> ToolRequest:
    ref = f"call-{index}"
    match index % 4:
        case 0:
            return ToolRequest(CONFIRM.name, ref, f"Ship order #{index} today?")
        case 1:
            return ToolRequest(ASK_ADDRESS.name, ref, {"order": index})
        case 2:
            amount = 100.0 + index
            payee: JSON = {"to": f"DE{index:020}", "amount": amount}
            return ToolRequest(transfer_money.name, ref, payee)
        case _:
            payer: JSON = {"to": f"FR{index:020}", "amount": 25.5}
            return ToolRequest(verify_identity.name, ref, payer)


def _pending(request: ToolRequest, index: int, expires: datetime) -> PendingInterrupt:
    assert request.ref is not None
    payload: JSON = {"tool": request.name, "input": request.input}
    match index % 4:
        case 0 | 1:
            schema = (CONFIRM if index % 4 == 0 else ASK_ADDRESS).output_schema
            kind: Custom | ApprovalPending = Custom()
            accepts = Accepts(respond=schema)
            payload = request.input
        case 2:
            kind, accepts = (
                ApprovalPending(request.ref),
                Accepts(restart=DECISION_SCHEMA),
            )
        case _:
            kind = Custom()
            accepts = Accepts(
                respond=verify_identity.output_schema,
                restart=verify_identity.resume_schema,
            )
    return PendingInterrupt(request.ref, kind, payload, request, accepts, expires)


def _answer(pending: PendingInterrupt, index: int) -> Respond | Restart:
    match index % 4:
        case 0:
            return pending.respond("Yes" if index % 8 else "No")
        case 1:
            address: dict[str, JSON] = {
                "street": f"{index} Main St",
                "city": "Springfield",
            }
            if index % 3 == 0:
                address["zip"] = f"{index % 100_000:05}"
            return pending.respond(address)
        case 2:
            if index % 8 == 2:
                return pending.approve(f"ok by finance, ticket {index}")
            return pending.reject("the amount exceeds this month's budget")
        case _:
            return pending.restart(
                {"code": f"{index % 1_000_000:06}", "channel": "sms"}
            )


@attrs.frozen
class Workload:
    """One resume of *size* entries, the turn it answers, and its bytes.

    Attributes:
        size: How many entries the resume has (one per pending interrupt).
        turn: The authoritative turn.
        resume: The resume, as built with the builders.
        raw: The resume on the wire, as ``dumps`` writes it.
    """

    size: int
    turn: InterruptedTurn
    resume: Resume
    raw: bytes


def workload(size: int) -> Workload:
    """Build a turn of *size* pending interrupts and a resume answering all."""
    now = datetime.now(UTC)
    expires = now + timedelta(days=1)
    requests = [_request(index) for index in range(size)]
    done = [
        ToolResponse("lookup_order", f"done-{index}", {"order": index, "ok": True})
        for index in range(max(1, size // 10))
    ]
    asked = Message(
        Role.MODEL,
        (
            *requests,
            *(ToolRequest(response.name, response.ref, {}) for response in done),
        ),
    )
    messages = (Message.of_text(Role.USER, "Process today's orders."), asked)
    interrupts = tuple(
        _pending(request, index, expires) for index, request in enumerate(requests)
    )
    turn = InterruptedTurn(
        session="bench",
        turn_id=1,
        messages=messages,
        interrupts=interrupts,
        completed=tuple(done),
        created_at=now,
        expires_at=expires,
    )
    answers = [_answer(pending, index) for index, pending in enumerate(interrupts)]
    resume = Resume(
        respond=[answer for answer in answers if isinstance(answer, Respond)],
        restart=[answer for answer in answers if isinstance(answer, Restart)],
    )
    return Workload(size, turn, resume, dumps(resume).encode())


# --- anchor: pydantic v2 ------------------------------------------------------

_STRICT: Final = pydantic.ConfigDict(strict=True, extra="forbid", frozen=True)


class PRespond(pydantic.BaseModel):
    """`Respond`, as pydantic sees it."""

    model_config = _STRICT
    name: str = pydantic.Field(min_length=1)
    ref: str = pydantic.Field(min_length=1)
    output: Any


class PRestart(pydantic.BaseModel):
    """`Restart`, as pydantic sees it."""

    model_config = _STRICT
    name: str = pydantic.Field(min_length=1)
    ref: str = pydantic.Field(min_length=1)
    resumed: Any = None
    input: Any = None


class PResume(pydantic.BaseModel):
    """`Resume`, as pydantic sees it."""

    model_config = _STRICT
    respond: tuple[PRespond, ...] = ()
    restart: tuple[PRestart, ...] = ()


PYDANTIC: Final = pydantic.TypeAdapter(PResume)


def full_check(raw: bytes, turn: InterruptedTurn) -> object:
    """What a server does with a client's bytes: decode, then validate."""
    return validate_resume(loads(raw, Resume), turn)


def check(work: Workload) -> None:
    """Assert that the resume is accepted and that all decoders agree.

    Raises:
        AssertionError: if the resume is rejected or an anchor decodes a
            different number of entries (or different entries).
    """
    decoded = loads(work.raw, Resume)
    assert decoded == work.resume, "loads does not round-trip the resume"
    resolved = validate_resume(decoded, work.turn)
    assert len(resolved.answers) == work.size, "not every interrupt is answered"
    assert not resolved.unanswered
    as_pydantic = PYDANTIC.validate_json(work.raw)
    entries = len(as_pydantic.respond) + len(as_pydantic.restart)
    assert entries == work.size, f"pydantic decodes {entries} entries"
    assert orjson.loads(as_pydantic.model_dump_json()) == orjson.loads(work.raw)
    as_json = orjson.loads(work.raw)
    assert len(as_json["respond"]) + len(as_json["restart"]) == work.size


# --- timing --------------------------------------------------------------------


def _groups(work: Workload) -> SchemaGroups:
    """The schema checks `validate_resume` puts aside for *work*, by schema."""
    by_ref = {pending.ref: pending for pending in work.turn.interrupts}
    groups: SchemaGroups = {}
    for respond in work.resume.respond:
        schema = by_ref[respond.ref].accepts.respond
        assert schema is not None
        group_check(groups, respond.output, schema)
    for restart in work.resume.restart:
        schema = by_ref[restart.ref].accepts.restart
        assert schema is not None
        group_check(groups, restart.resumed, schema)
    return groups


Stages = list[tuple[str, float]]
"""(stage, µs per call) pairs, the whole operation first."""


BUILD: Final = "      Respond / Restart(name, ref, JSON) x n"
VERDICT: Final = "  validate_resume(resume, turn)"
ORJSON: Final = "orjson.loads (not part of the check: the floor's parse)"
ANCHOR: Final = "pydantic validate_json (not part of the check: the anchor)"


def stages(work: Workload) -> Stages:
    """Time the full check on *work* and the stages it goes through."""
    raw, turn, resume = work.raw, work.turn, work.resume
    value: JSON = orjson.loads(raw)
    groups = _groups(work)
    # Each entry's fields as the parser gives them, for its record to check.
    fields: list[tuple[type[Respond | Restart], str, str, JSON]] = [
        (Respond, entry.name, entry.ref, orjson.loads(orjson.dumps(entry.output)))
        for entry in resume.respond
    ] + [
        (Restart, entry.name, entry.ref, orjson.loads(orjson.dumps(entry.resumed)))
        for entry in resume.restart
    ]

    def structure(value: JSON, cls: type[Resume]) -> Resume:
        return structure_value(value, cls)

    def unchecked() -> object:
        with attrs.validators.disabled():
            return structure(value, Resume)

    def build() -> list[Respond | Restart]:
        return [cls(name, ref, data) for cls, name, ref, data in fields]

    steps: list[tuple[str, Callable[[], object]]] = [
        ("loads + validate_resume", lambda: full_check(raw, turn)),
        ("  loads(raw, Resume)", lambda: loads(raw, Resume)),
        (
            "    parse (orjson + limits)",
            lambda: parse(raw, max_bytes=MAX_BYTES, max_depth=DOCUMENT_DEPTH),
        ),
        ("    structure_value", lambda: structure(value, Resume)),
        ("      the same, attrs validators off", unchecked),
        (BUILD, build),
        (VERDICT, lambda: validate_resume(resume, turn)),
        (
            "    conforming_groups (each schema once)",
            lambda: conforming_groups(groups),
        ),
        (ORJSON, lambda: orjson.loads(raw)),
        (ANCHOR, lambda: PYDANTIC.validate_json(raw)),
    ]
    names = [name for name, _ in steps]
    return list(zip(names, best_us(*(fn for _, fn in steps)), strict=True))


def profile(work: Workload, seconds: float = 1.0) -> str:
    """Profile the full check on *work*; return the top functions by own time."""
    raw, turn = work.raw, work.turn
    calls = max(1, int(seconds * 1e6 / best_us(lambda: full_check(raw, turn))[0]))
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        full_check(raw, turn)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(18)
    stats.sort_stats("cumulative").print_stats(18)
    return f"{calls} calls\n{out.getvalue()}"


# --- the report ----------------------------------------------------------------


def _ratio(value: float) -> str:
    return f"{value:.1f}x" if value >= 10 else f"{value:.2f}x"


def main_table(work: Workload) -> tuple[str, float, float]:
    """Time the full check and its anchors; return the table and both ratios."""
    floor, anchor, ours, decoded = _three(work, decoded=True)
    rows = [
        ["orjson.loads (floor, no checks)", f"{floor:.1f}", "1.00x", ""],
        [
            "pydantic validate_json (envelope only)",
            f"{anchor:.1f}",
            _ratio(anchor / floor),
            "1.00x",
        ],
        [
            "loads + validate_resume (full check)",
            f"{ours:.1f}",
            _ratio(ours / floor),
            _ratio(ours / anchor),
        ],
        [
            "the same, the turn decoded (as a store reads it)",
            f"{decoded:.1f}",
            _ratio(decoded / floor),
            _ratio(decoded / anchor),
        ],
    ]
    what = f"{work.size} entries, {len(work.raw)} bytes"
    header = [what, "µs/op", "/orjson", "/pydantic"]
    return table(header, rows), ours / floor, ours / anchor


def _three(
    work: Workload, repeats: int = REPEATS, *, decoded: bool = False
) -> list[float]:
    """Time the floor, the pydantic anchor and the full check on *work*.

    With *decoded*, also the full check against the turn decoded from its
    wire form, as a store or a sealed token gives it to a server: its
    schemas are then dicts of their own, not the objects the tools hold.
    """
    raw, turn = work.raw, work.turn
    timed = [
        lambda: orjson.loads(raw),
        lambda: PYDANTIC.validate_json(raw),
        lambda: full_check(raw, turn),
    ]
    if decoded:
        fresh = loads(dumps(turn), InterruptedTurn)
        assert fresh == turn, "the turn does not round-trip"
        timed.append(lambda: full_check(raw, fresh))
    return best_us(*timed, repeats=repeats)


def growth_table(works: Sequence[Workload]) -> str:
    """Time the full check and the anchors at every size; show µs per entry."""
    rows = []
    for work in works:
        raw = work.raw
        floor, anchor, ours = _three(work, repeats=max(5, REPEATS // 3))
        rows.append(
            [
                f"{work.size:,}",
                f"{len(raw):,}",
                f"{floor:,.1f}",
                f"{anchor:,.1f}",
                f"{ours:,.1f}",
                f"{floor / work.size:.3f}",
                f"{ours / work.size:.2f}",
                _ratio(ours / floor),
                _ratio(ours / anchor),
            ]
        )
    header = [
        "entries",
        "bytes",
        "orjson µs",
        "pydantic µs",
        "full µs",
        "orjson µs/entry",
        "full µs/entry",
        "full/orjson",
        "full/pydantic",
    ]
    return table(header, rows)


def _forged(work: Workload) -> bytes:
    """A resume as long as *work*'s whose every entry answers nothing pending."""
    entries = [
        Respond("confirm", f"forged-{index}", "Yes") for index in range(work.size)
    ]
    return dumps(Resume(respond=entries)).encode()


def rejected_check(raw: bytes, turn: InterruptedTurn) -> int:
    """The full check of a resume that is rejected; returns how many problems."""
    try:
        validate_resume(loads(raw, Resume), turn)
    except ResumeRejected as error:
        return len(error.problems)
    msg = "a forged resume was accepted"
    raise AssertionError(msg)


def reject_growth_table(works: Sequence[Workload]) -> str:
    """The rejection path: every entry unknown, every interrupt missing."""
    rows = []
    for work in works:
        raw, turn = _forged(work), work.turn
        assert rejected_check(raw, turn) == 2 * work.size
        floor, anchor, ours = best_us(
            functools.partial(orjson.loads, raw),
            functools.partial(PYDANTIC.validate_json, raw),
            functools.partial(rejected_check, raw, turn),
            repeats=max(5, REPEATS // 3),
        )
        rows.append(
            [
                f"{work.size:,}",
                f"{len(raw):,}",
                f"{floor:,.1f}",
                f"{anchor:,.1f}",
                f"{ours:,.1f}",
                f"{ours / work.size:.2f}",
                _ratio(ours / floor),
                _ratio(ours / anchor),
            ]
        )
    header = [
        "entries",
        "bytes",
        "orjson µs",
        "pydantic µs",
        "reject µs",
        "reject µs/entry",
        "reject/orjson",
        "reject/pydantic",
    ]
    return table(header, rows)


LARGE_ENTRIES: Final = 100_000
"""Numbers in the one answer of each large resume (about 0.4 to 0.8 MB)."""


def _large_resumes(work: Workload) -> dict[str, tuple[bytes, InterruptedTurn]]:
    """Wire-valid resumes of one entry each, far too large for its schema.

    The first three answer *work*'s first question (``{"enum": ["Yes",
    "No"]}``) with an array of `LARGE_ENTRIES` numbers; the last answers a
    question asking for an array of strings with as many floats, every item
    wrong. Each parses, and is rejected.
    """
    question = work.turn.interrupts[0]
    name, ref = question.name, question.ref
    floats: list[JSON] = [
        (index * 7919 % 99_991 + 1) / 1e5 for index in range(LARGE_ENTRIES)
    ]
    shapes: dict[str, list[JSON]] = {
        "floats": floats,
        "whole floats": [float(index) for index in range(LARGE_ENTRIES)],
        "integers": list(range(LARGE_ENTRIES)),
    }
    cases = {
        shape: (
            dumps(Resume(respond=[Respond(name, ref, numbers)])).encode(),
            work.turn,
        )
        for shape, numbers in shapes.items()
    }
    strings = Accepts(respond={"type": "array", "items": {"type": "string"}})
    every_item = attrs.evolve(question, accepts=strings)
    turn = attrs.evolve(work.turn, interrupts=(every_item, *work.turn.interrupts[1:]))
    raw = dumps(Resume(respond=[Respond(name, ref, floats)])).encode()
    cases["floats for strings"] = (raw, turn)
    return cases


def recorded_rejection(raw: bytes, turn: InterruptedTurn) -> str:
    """A rejection as a `Session` records it: decode, refuse, digest for the audit.

    Returns:
        The digest the audit trail keeps (`wire_digest`).
    """
    resume = loads(raw, Resume)
    try:
        validate_resume(resume, turn)
    except ResumeRejected:
        return wire_digest(resume)
    msg = "a resume far too large for its schema was accepted"
    raise AssertionError(msg)


def large_rejection_table(work: Workload) -> tuple[str, float]:
    """A large resume's rejection, digest included, against parsing it.

    Returns:
        The table, and the worst ratio of rejection to ``loads``.
    """
    rows = []
    worst = 0.0
    for shape, (raw, turn) in _large_resumes(work).items():
        resume = loads(raw, Resume)
        floor, parse, reject = best_us(
            functools.partial(orjson.loads, raw),
            functools.partial(loads, raw, Resume),
            functools.partial(recorded_rejection, raw, turn),
            repeats=max(5, REPEATS // 6),
        )
        alone = best_us(
            functools.partial(wire_digest, resume), repeats=max(5, REPEATS // 6)
        )[0]
        worst = max(worst, reject / parse)
        rows.append(
            [
                shape,
                f"{len(raw):,}",
                f"{floor / 1000:,.1f}",
                f"{parse / 1000:,.1f}",
                f"{reject / 1000:,.1f}",
                f"{alone / 1000:,.1f}",
                _ratio(reject / parse),
                _ratio(reject / floor),
            ]
        )
    header = [
        f"one answer of {LARGE_ENTRIES:,}",
        "bytes",
        "orjson ms",
        "loads ms",
        "reject ms",
        "digest ms",
        "reject/loads",
        "reject/orjson",
    ]
    return table(header, rows), worst


def stage_table(work: Workload) -> str:
    """Break the full check down; shares are of the full check.

    Last, the floor any check of this resume pays whatever its codec: the
    parse, each entry's record built by its own ``__init__`` (its checks,
    its frozen copy) and the verdict, against the pydantic anchor.
    """
    timed = stages(work)
    total = timed[0][1]
    rows = [
        [name, f"{us:.1f}", f"{us / work.size:.3f}", f"{us / total:.0%}"]
        for name, us in timed
    ]
    header = ["stage (indented: part of the line above)", "µs/op", "µs/entry", "share"]
    parts = dict(timed)
    floor = parts[ORJSON] + parts[BUILD] + parts[VERDICT]
    return table(header, rows) + (
        f"\n\nfloor: orjson.loads + the records alone + validate_resume = "
        f"{floor:.1f} µs = {floor / parts[ANCHOR]:.2f}x pydantic "
        f"(the budget is {PYDANTIC_BUDGET:g}x)"
    )


def main() -> None:
    works = {size: workload(size) for size in SIZES}
    for work in works.values():
        check(work)
    main_work = works[MAIN_SIZE]
    print(f"Python {sys.version.split()[0]}, pydantic {pydantic.VERSION}, ", end="")
    print(f"orjson {orjson.__version__}")
    print(
        "resume: respond (enum, object schema) and restart (approval decision, "
        "attrs resume schema) in equal parts;"
    )
    print("validate_resume accepts every resume; pydantic decodes as many entries.")
    print(f"best of {REPEATS} interleaved repeats of ~{TARGET_SECONDS:g} s each")
    print(machine_load())
    text, ratio, to_pydantic = main_table(main_work)
    print(text)
    print(
        "\nfull check against the raw parse (no ceiling, for reference): "
        f"loads + validate_resume / orjson.loads = {ratio:.2f}x"
    )
    met = "met" if to_pydantic <= PYDANTIC_BUDGET else "MISSED"
    print(
        f"full check within {PYDANTIC_BUDGET:g}x of pydantic validate_json: {met} "
        f"(loads + validate_resume / pydantic = {to_pydantic:.2f}x)\n"
    )
    print("growth, accept path (best of fewer repeats)\n")
    print(growth_table(list(works.values())))
    print("\ngrowth, reject path: every entry unknown, every interrupt missing\n")
    print(reject_growth_table(list(works.values())))
    print(
        "\nrejecting a large resume, as a Session does (loads, validate_resume, "
        "the audit digest), against parsing it\n"
    )
    text, worst = large_rejection_table(main_work)
    print(text)
    print(f"\nworst rejection / loads of the same bytes: {worst:.2f}x")
    print(f"\nwhere the time goes, {main_work.size} entries\n")
    print(stage_table(main_work))
    print(f"\n{machine_load()}")
    if "-p" in sys.argv[1:] or "--profile" in sys.argv[1:]:
        print(f"cProfile of the full check, {main_work.size} entries\n")
        print(profile(main_work))


if __name__ == "__main__":
    main()
