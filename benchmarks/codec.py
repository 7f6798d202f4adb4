"""Time the wire codec against pydantic, msgspec and the raw orjson floor.

Run with ``make bench``. Every number comes from this run, on this machine:
the anchors are measured next to ours, so the ratios travel and the absolute
microseconds do not. Each figure is the best of several repeats of `timeit`.

Two workloads, each encoded and decoded by four implementations:

* one ``Interrupted(ApprovalPending("tu-1"), {...})`` document of ~200 bytes;
* a JSON array of 100 ``Interrupted`` documents, mixing the three kinds.

The anchors model the same wire format: pydantic v2 with a discriminated
union (``Field(discriminator="type")``, strict, extra fields forbidden),
msgspec ``Struct``s tagged by ``"type"`` (unknown fields forbidden), and plain
``orjson.loads`` / ``orjson.dumps``, which validate nothing (the floor).
Before timing, all four must decode the same bytes to the same data.
"""

from __future__ import annotations

import cProfile
import io
import pstats
import sys
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Final, Literal, cast

import attrs
import interruption
import msgspec
import orjson
import pydantic
from interruption import (
    JSON,
    ApprovalPending,
    Custom,
    Interrupted,
    Phase,
    ScheduledPause,
)
from interruption._converter import structure_value
from interruption._json import DOCUMENT_DEPTH
from interruption._parse import (
    ENCODE,
    _fast_loads,
    parse,
)
from interruption._validators import frozen_payload
from interruption.kinds import tag_of
from interruption.wire import MAX_BYTES

from _common import REPEATS, TARGET_SECONDS, best_us, machine_load, table

ENCODE_BUDGET: Final = 5.0
"""The issue's target: encoding within this factor of the orjson floor."""

DECODE_BUDGET: Final = 1.5
"""The ceiling for decoding, against pydantic (Core III's budget): a record
decodes into a frozen copy of its JSON that it owns, which pydantic's models
(frozen or not) do not make."""

# --- the data -----------------------------------------------------------------

ONE: Final = Interrupted(
    ApprovalPending("tu-1"),
    {
        "tool": "refund_order",
        "input": {"order_id": "A-10023", "amount": 129.99, "currency": "EUR"},
        "reason": "amount above the auto-approval limit",
        "requested_by": "agent-7",
    },
)


def _payload(index: int) -> JSON:
    match index % 5:
        case 0:
            return {
                "tool": "refund_order",
                "input": {"order_id": f"A-{index:05}", "amount": index + 0.5},
                "retry": index % 3 == 0,
            }
        case 1:
            return ["step", index, {"note": "waiting for the finance team"}]
        case 2:
            return None
        case 3:
            return f"please look at ticket #{index} before we go on"
        case _:
            return {"scores": [index, index * 2, index * 3], "ok": None}


def _kind(index: int) -> Custom | ApprovalPending | ScheduledPause:
    match index % 3:
        case 0:
            return ApprovalPending(f"tu-{index}")
        case 1:
            phase = Phase.BEFORE if index % 2 else Phase.AFTER
            return ScheduledPause(phase, f"node-{index}")
        case _:
            return Custom()


MANY: Final = [Interrupted(_kind(index), _payload(index)) for index in range(100)]

# --- anchor: pydantic v2 ------------------------------------------------------

_STRICT: Final = pydantic.ConfigDict(strict=True, extra="forbid", frozen=True)


class PCustom(pydantic.BaseModel):
    """`Custom`, as pydantic sees it."""

    model_config = _STRICT
    type: Literal["custom"]


class PApprovalPending(pydantic.BaseModel):
    """`ApprovalPending`, as pydantic sees it."""

    model_config = _STRICT
    type: Literal["approval_pending"]
    tool_use_id: str = pydantic.Field(min_length=1)


class PScheduledPause(pydantic.BaseModel):
    """`ScheduledPause`, as pydantic sees it."""

    model_config = _STRICT
    type: Literal["scheduled_pause"]
    phase: Phase
    node: str = pydantic.Field(min_length=1)


PKind = Annotated[
    PCustom | PApprovalPending | PScheduledPause,
    pydantic.Field(discriminator="type"),
]


class PInterrupted(pydantic.BaseModel):
    """`Interrupted`, as pydantic sees it."""

    model_config = _STRICT
    kind: PKind
    payload: Any


PYDANTIC_ONE: Final = pydantic.TypeAdapter(PInterrupted)
PYDANTIC_MANY: Final = pydantic.TypeAdapter(list[PInterrupted])

# --- anchor: msgspec ----------------------------------------------------------


class MCustom(
    msgspec.Struct, tag_field="type", tag="custom", forbid_unknown_fields=True
):
    """`Custom`, as msgspec sees it."""


class MApprovalPending(
    msgspec.Struct,
    tag_field="type",
    tag="approval_pending",
    forbid_unknown_fields=True,
):
    """`ApprovalPending`, as msgspec sees it."""

    tool_use_id: Annotated[str, msgspec.Meta(min_length=1)]


class MScheduledPause(
    msgspec.Struct,
    tag_field="type",
    tag="scheduled_pause",
    forbid_unknown_fields=True,
):
    """`ScheduledPause`, as msgspec sees it."""

    phase: Phase
    node: Annotated[str, msgspec.Meta(min_length=1)]


class MInterrupted(msgspec.Struct, forbid_unknown_fields=True):
    """`Interrupted`, as msgspec sees it."""

    kind: MCustom | MApprovalPending | MScheduledPause
    payload: Any


MSGSPEC_ENCODER: Final = msgspec.json.Encoder()
MSGSPEC_ONE: Final = msgspec.json.Decoder(MInterrupted)
MSGSPEC_MANY: Final = msgspec.json.Decoder(list[MInterrupted])

# --- one plain shape to compare the four decoders' answers ---------------------

Plain = tuple[str, dict[str, object], JSON]
"""A decoded document as (tag, kind's fields, payload)."""


def _plain_ours(value: Interrupted) -> Plain:
    fields = attrs.asdict(value.kind)
    return tag_of(value.kind), fields, value.payload


def _plain_pydantic(value: PInterrupted) -> Plain:
    fields = value.kind.model_dump(exclude={"type"})
    return value.kind.type, fields, value.payload


def _plain_msgspec(value: MInterrupted) -> Plain:
    tag = value.kind.__struct_config__.tag
    assert isinstance(tag, str)
    return tag, msgspec.structs.asdict(value.kind), value.payload


def _plain_orjson(value: Any) -> Plain:  # noqa: ANN401 - whatever orjson parsed
    kind = dict(value["kind"])
    return kind.pop("type"), kind, value["payload"]


# --- the workloads --------------------------------------------------------------


@attrs.frozen
class Workload:
    """The bytes and the decoded values of one workload, in every form.

    Attributes:
        name: How the table names it.
        ours: The records to encode.
        raw: The wire document, as ``interruption.dumps`` writes it.
        as_pydantic: The document decoded by pydantic, to encode from.
        as_msgspec: The document decoded by msgspec, to encode from.
        as_json: The document decoded by orjson, to encode from.
        cls: The type ``interruption.loads`` decodes into.
        pydantic_adapter: The pydantic `TypeAdapter` for the document.
        msgspec_decoder: The msgspec decoder for the document.
    """

    name: str
    ours: object
    raw: bytes
    as_pydantic: object
    as_msgspec: object
    as_json: object
    cls: Any
    pydantic_adapter: pydantic.TypeAdapter[Any]
    msgspec_decoder: msgspec.json.Decoder[Any]


def _workload(
    name: str,
    ours: object,
    cls: Any,  # noqa: ANN401 - Interrupted or list[Interrupted]
    adapter: pydantic.TypeAdapter[Any],
    decoder: msgspec.json.Decoder[Any],
) -> Workload:
    raw = interruption.dumps(ours).encode()
    return Workload(
        name=name,
        ours=ours,
        raw=raw,
        as_pydantic=adapter.validate_json(raw),
        as_msgspec=decoder.decode(raw),
        as_json=orjson.loads(raw),
        cls=cls,
        pydantic_adapter=adapter,
        msgspec_decoder=decoder,
    )


def _as_list(value: object) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


def check(work: Workload) -> None:
    """Assert that all four implementations agree on the workload's data.

    Raises:
        AssertionError: if a decoder disagrees, or an encoder writes a
            document that decodes to something else.
    """
    ours = interruption.loads(work.raw, work.cls)
    assert ours == work.ours, "interruption.loads does not round-trip"
    expected = [_plain_ours(item) for item in _as_list(ours)]
    decoded = {
        "pydantic": [_plain_pydantic(x) for x in _as_list(work.as_pydantic)],
        "msgspec": [_plain_msgspec(x) for x in _as_list(work.as_msgspec)],
        "orjson": [_plain_orjson(x) for x in _as_list(work.as_json)],
    }
    for name, answer in decoded.items():
        assert answer == expected, f"{name} decodes {work.name} differently"
    floor = orjson.loads(work.raw)
    encoded = {
        "interruption": interruption.dumps(work.ours).encode(),
        "pydantic": work.pydantic_adapter.dump_json(work.as_pydantic),
        "msgspec": MSGSPEC_ENCODER.encode(work.as_msgspec),
        "orjson": orjson.dumps(work.as_json),
    }
    for name, document in encoded.items():
        assert orjson.loads(document) == floor, f"{name} encodes {work.name} wrong"


# --- timing --------------------------------------------------------------------


@attrs.frozen
class Row:
    """One workload's timings, in µs per operation.

    Attributes:
        label: What was timed.
        orjson: The floor: raw orjson, no validation.
        msgspec: The msgspec anchor.
        pydantic: The pydantic anchor.
        ours: ``interruption.dumps`` or ``interruption.loads``.
    """

    label: str
    orjson: float
    msgspec: float
    pydantic: float
    ours: float


def time_encode(work: Workload) -> Row:
    ours, adapter = work.ours, work.pydantic_adapter
    as_pydantic, as_msgspec, as_json = work.as_pydantic, work.as_msgspec, work.as_json
    return Row(
        f"encode {work.name}",
        *best_us(
            lambda: orjson.dumps(as_json),
            lambda: MSGSPEC_ENCODER.encode(as_msgspec),
            lambda: adapter.dump_json(as_pydantic),
            lambda: interruption.dumps(ours),
        ),
    )


def time_decode(work: Workload) -> Row:
    raw, cls = work.raw, work.cls
    adapter, decoder = work.pydantic_adapter, work.msgspec_decoder
    return Row(
        f"decode {work.name}",
        *best_us(
            lambda: orjson.loads(raw),
            lambda: decoder.decode(raw),
            lambda: adapter.validate_json(raw),
            lambda: interruption.loads(raw, cls),
        ),
    )


Stages = list[tuple[str, float]]
"""(stage, µs per call) pairs, the whole operation first."""


def _timed(stages: Sequence[tuple[str, Callable[[], object]]]) -> Stages:
    names = [name for name, _ in stages]
    return list(zip(names, best_us(*(fn for _, fn in stages)), strict=True))


def _kind_of(fields: JSON) -> Custom | ApprovalPending | ScheduledPause:
    """A kind built by its own ``__init__`` from its wire fields, no codec."""
    assert isinstance(fields, dict)
    match fields["type"]:
        case "approval_pending":
            return ApprovalPending(cast("str", fields["tool_use_id"]))
        case "scheduled_pause":
            phase = Phase(cast("str", fields["phase"]))
            return ScheduledPause(phase, cast("str", fields["node"]))
        case _:
            return Custom()


RECORDS: Final = "    the records alone: kinds and Interrupted, by hand"
"""The stage that builds the records without the codec: a floor for any
decoder that builds them, checks and frozen copies included."""


def decode_stages(work: Workload) -> Stages:
    """Time ``loads`` on *work* and the stages it goes through."""
    raw, cls = work.raw, work.cls
    value: JSON = orjson.loads(raw)
    items = _as_list(interruption.loads(raw, cls))
    kinds = [item.kind for item in items]
    payloads: list[JSON] = [item.payload for item in items]
    # As the parser gives them: plain dicts and lists, not a record's frozen ones.
    fresh: list[JSON] = [orjson.loads(orjson.dumps(payload)) for payload in payloads]

    def build() -> list[Interrupted]:
        pairs = zip(kinds, fresh, strict=True)
        return [Interrupted(kind, payload) for kind, payload in pairs]

    # Each kind's wire fields, as the parser gives them.
    kind_fields: list[JSON] = [doc["kind"] for doc in _as_list(value)]

    def records() -> list[Interrupted]:
        pairs = zip(kind_fields, fresh, strict=True)
        return [Interrupted(_kind_of(fields), payload) for fields, payload in pairs]

    return _timed(
        [
            ("loads", lambda: interruption.loads(raw, cls)),
            (
                "  parse",
                lambda: parse(raw, max_bytes=MAX_BYTES, max_depth=DOCUMENT_DEPTH),
            ),
            ("    orjson.loads", lambda: orjson.loads(raw)),
            (
                "    _fast_loads (keys, depth, integers)",
                lambda: _fast_loads(raw, DOCUMENT_DEPTH),
            ),
            ("  structure_value", lambda: structure_value(value, cls)),
            (RECORDS, records),
            ("    Interrupted(kind, payload) x n", build),
            (
                "      frozen_payload(payload) x n (check + frozen copy)",
                lambda: [frozen_payload(payload) for payload in fresh],
            ),
        ]
    )


def encode_stages(work: Workload) -> Stages:
    """Time ``dumps`` on *work* and the stages it goes through."""
    ours = work.ours
    as_json: JSON = interruption.unstructure(ours)
    return _timed(
        [
            ("dumps", lambda: interruption.dumps(ours)),
            ("  unstructure", lambda: interruption.unstructure(ours)),
            ("  ENCODE (orjson.dumps, .decode())", lambda: ENCODE(as_json)),
        ]
    )


def profile(work: Workload, calls: int = 200) -> str:
    """Profile ``loads`` on *work*; return the top functions by own time."""
    raw, cls = work.raw, work.cls
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        interruption.loads(raw, cls)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(12)
    return out.getvalue()


# --- the report ----------------------------------------------------------------


def report(rows: Sequence[Row]) -> str:
    """Format the timings and the ratios as one table."""
    header = [
        "µs per op",
        "orjson",
        "msgspec",
        "pydantic",
        "ours",
        "ours/orjson",
        "ours/pydantic",
        "pydantic/orjson",
        "msgspec/orjson",
    ]
    cells = [
        [
            row.label,
            f"{row.orjson:.2f}",
            f"{row.msgspec:.2f}",
            f"{row.pydantic:.2f}",
            f"{row.ours:.2f}",
            f"{row.ours / row.orjson:.1f}x",
            f"{row.ours / row.pydantic:.2f}x",
            f"{row.pydantic / row.orjson:.1f}x",
            f"{row.msgspec / row.orjson:.1f}x",
        ]
        for row in rows
    ]
    return table(header, cells)


def verdicts(rows: Sequence[Row]) -> list[str]:
    """Say, for each row, whether the issue's target is met."""
    lines = []
    for row in rows:
        if row.label.startswith("decode"):
            ratio = row.ours / row.pydantic
            goal = f"within {DECODE_BUDGET:g}x of pydantic"
            met = ratio <= DECODE_BUDGET
            what = f"ours/pydantic = {ratio:.2f}"
        else:
            ratio, goal = row.ours / row.orjson, f"within {ENCODE_BUDGET:g}x of orjson"
            met = ratio <= ENCODE_BUDGET
            what = f"ours/orjson = {ratio:.1f}"
        lines.append(f"{row.label}: {goal}: {'met' if met else 'MISSED'} ({what})")
    return lines


def main() -> None:
    workloads = [
        _workload("1 doc", ONE, Interrupted, PYDANTIC_ONE, MSGSPEC_ONE),
        _workload("100 docs", MANY, list[Interrupted], PYDANTIC_MANY, MSGSPEC_MANY),
    ]
    for work in workloads:
        check(work)
    sizes = ", ".join(f"{work.name}: {len(work.raw)} bytes" for work in workloads)
    print(f"Python {sys.version.split()[0]}, pydantic {pydantic.VERSION}, ", end="")
    print(f"msgspec {msgspec.__version__}, orjson {orjson.__version__}")
    print(f"documents: {sizes}; all four implementations agree on both.")
    print(f"best of {REPEATS} interleaved repeats of ~{TARGET_SECONDS:g} s each")
    print(machine_load())
    rows = [time(work) for time in (time_encode, time_decode) for work in workloads]
    print(report(rows))
    print()
    for line in verdicts(rows):
        print(line)
    print("\nwhere the time goes, µs per call (indented: part of the line above)\n")
    cells: list[list[str]] = []
    for stages in (decode_stages, encode_stages):
        one, many = (stages(work) for work in workloads)
        total = many[0][1]
        cells += [
            [name, f"{us_one:.2f}", f"{us_many:.1f}", f"{us_many / total:.0%}"]
            for (name, us_one), (_, us_many) in zip(one, many, strict=True)
        ]
    header = ["stage", *(work.name for work in workloads), "share (100)"]
    print(table(header, cells))
    # The floor any decoder of these records pays: the parse, and each
    # record's own __init__ (its checks, its frozen copy of the payload).
    decode = next(row for row in rows if row.label == f"decode {workloads[1].name}")
    parts = dict(decode_stages(workloads[1]))
    floor = parts["    orjson.loads"] + parts[RECORDS]
    print(
        f"\nfloor, {workloads[1].name}: orjson.loads + the records alone = "
        f"{floor:.1f} µs = {floor / decode.pydantic:.2f}x pydantic "
        f"(the decode budget is {DECODE_BUDGET:g}x)"
    )
    print(f"\n{machine_load()}")
    if "-p" in sys.argv[1:] or "--profile" in sys.argv[1:]:
        print(f"\ncProfile of loads, {workloads[1].name}, by own time\n")
        print(profile(workloads[1]))


if __name__ == "__main__":
    main()
