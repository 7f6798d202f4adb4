"""What the test suite draws beyond `interruption.testing.strategies`.

The public strategies draw JSON values, texts, kinds and pauses; this
module re-exports those and adds only what the suite needs more of: broken
documents; tool batches and answers; sealed turns and broken tokens; number
spellings; every wire record and hostile input for the decoder; the loop's
decisions and raised trees; and ``multipleOf`` cases.
"""

from __future__ import annotations

import base64
import copy
import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import AnyStr, Final, cast, get_args, get_type_hints

import attrs
import jwt
from hypothesis import strategies as st
from interruption import (
    JSON,
    Accepts,
    ApprovalPending,
    Confirm,
    Custom,
    DecodeError,
    ExpiryAnswer,
    FieldError,
    Input,
    Interrupted,
    InterruptedTurn,
    InterruptionKind,
    Message,
    Mismatch,
    PendingInterrupt,
    PendingTurn,
    Phase,
    Problem,
    ProblemCode,
    Respond,
    Restart,
    Resume,
    ResumeRejected,
    Role,
    ScheduledPause,
    SchemaError,
    Text,
    ToolRequest,
    ToolResponse,
    unstructure,
)
from interruption._json import MAX_DEPTH, MAX_SAFE_INTEGER, child_path, is_json_type
from interruption.kinds import KINDS
from interruption.resume import answer_key
from interruption.runtime.store import AuditEvent, AuditKind
from interruption.testing.strategies import (
    decisions,
    interrupteds,
    json_scalars,
    json_values,
    kinds,
    texts,
)
from interruption.testing.strategies import object_keys as keys

from tests.sessions import BEHAVIOURS, ToolSet

__all__ = [
    "ALL_MOMENTS",
    "ANY_KIND",
    "BASE64URL",
    "CALL_KINDS",
    "DECISIONS",
    "EDITS",
    "MOMENTS",
    "NEAR_NUMBERS",
    "NUMBER_EDGES",
    "PAUSES",
    "RAW_TOKENS",
    "RECORDS",
    "REFS",
    "SCHEMAS",
    "SMALL_JSON",
    "STEPS",
    "TAGS",
    "TOKENS",
    "TOOL_NAMES",
    "TTLS",
    "Call",
    "Corruption",
    "TokenMutation",
    "answers",
    "audit_events",
    "b64url",
    "batches",
    "calls",
    "corruptions",
    "deep_records",
    "encodable_pendings",
    "encoded",
    "equivalents",
    "hostile_json",
    "interrupted_turns",
    "interrupteds",
    "json_scalars",
    "json_values",
    "keys",
    "kinds",
    "messages",
    "multiples_and_not",
    "mutated_documents",
    "number_literals",
    "pending_turns",
    "pendings",
    "problems",
    "raised_trees",
    "records",
    "rejections",
    "responds",
    "restarts",
    "texts",
    "token_mutations",
    "tool_requests",
    "tool_responses",
    "tool_sets",
    "turns",
    "wire_values",
]

ANY_KIND: Final = cast("type[InterruptionKind]", InterruptionKind)
"""The kind union, typed so that `loads` and `json_schema` accept it."""

TAGS: Final = ("custom", "approval_pending", "scheduled_pause")
"""Every kind's wire tag."""


def non_empty_text() -> st.SearchStrategy[str]:
    """Non-empty strings of valid Unicode (a kind's ``tool_use_id``, ``node``)."""
    return texts(min_size=1)


def wire_values() -> st.SearchStrategy[InterruptionKind | Interrupted]:
    """Everything the core puts on the wire: kinds and pauses."""
    return st.one_of(kinds(), interrupteds())


@st.composite
def equivalents(draw: st.DrawFn, value: JSON) -> JSON:
    """A value JSON-equal to *value*: numbers respelled, object keys reordered."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return float(value) if draw(st.booleans()) else value
    if isinstance(value, float):
        if (
            value.is_integer()
            and abs(value) <= MAX_SAFE_INTEGER
            and draw(st.booleans())
        ):
            return int(value)
        return value
    if isinstance(value, list):
        return [draw(equivalents(item)) for item in value]
    order = draw(st.permutations(list(value)))
    return {key: draw(equivalents(value[key])) for key in order}


@attrs.frozen
class Corruption:
    """A valid wire document with one thing broken.

    Attributes:
        original: The record the document was made from.
        document: The broken document, as a JSON value.
        what: What was broken, for hypothesis' report.
        paths: The JSON paths of what was broken, where the codec must say
            so: one, or for a tag swapped for another kind's, each field
            that kind lacks or wants.
    """

    original: InterruptionKind | Interrupted
    document: JSON
    what: str
    paths: tuple[str, ...]

    @property
    def cls(self) -> type[InterruptionKind | Interrupted]:
        """The type the original document decodes into."""
        return type(self.original)


def _records(value: InterruptionKind | Interrupted) -> list[tuple[str, ...]]:
    """The paths of the record objects in *value*'s document (not the payload)."""
    if isinstance(value, Interrupted):
        return [(), ("kind",)]
    return [()]


def _at(document: JSON, path: tuple[str, ...]) -> dict[str, JSON]:
    for key in path:
        assert isinstance(document, dict)
        document = document[key]
    assert isinstance(document, dict)
    return document


def _not_a_string() -> st.SearchStrategy[JSON]:
    return json_values(max_leaves=3).filter(lambda value: not isinstance(value, str))


def _not_an_object() -> st.SearchStrategy[JSON]:
    return json_values(max_leaves=3).filter(lambda value: not isinstance(value, dict))


def _retagged(
    where: str, record: dict[str, JSON], *, in_union: bool
) -> tuple[str, ...]:
    """The paths a retagged record is wrong at: its tag, or its fields.

    In a union (an `Interrupted`'s kind), a tag swapped for another kind's
    picks that kind: each field it lacks is unknown, each it wants and the
    record lacks is missing. Elsewhere the tag itself is wrong.
    """
    by_tag: dict[str, type] = {kind.tag: kind for kind in KINDS}
    swapped = by_tag.get(str(record["type"]))
    if swapped is None or not in_union:
        return (f"{where}.type",)
    wanted = {"type", *(field.name for field in attrs.fields(swapped))}
    return tuple(child_path(where, key) for key in wanted ^ set(record))


@st.composite
def corruptions(
    draw: st.DrawFn,
    values: st.SearchStrategy[InterruptionKind | Interrupted] | None = None,
) -> Corruption:
    """Valid documents broken at a single point of a record (never the payload).

    One of: a required field dropped, an unknown field added, the tag changed,
    a field's primitive type changed, or a string field emptied or given a
    value outside its vocabulary.
    """
    original = draw(wire_values() if values is None else values)
    document = copy.deepcopy(unstructure(original))
    path = draw(st.sampled_from(_records(original)))
    record = _at(document, path)
    where = ".".join(("$", *path))
    fields = sorted(record)
    strings = sorted(
        key
        for key, item in record.items()
        if isinstance(item, str) and key != "payload"  # a payload may be any JSON
    )
    ways = ["drop", "add"]
    if "type" in record:
        ways.append("tag")
    if strings:
        ways += ["retype", "revalue"]
    if "kind" in record:
        ways.append("unobject")
    way = draw(st.sampled_from(ways))
    broken: tuple[str, ...]
    if way == "drop":
        key = draw(st.sampled_from(fields))
        del record[key]
        what, broken = f"{where}: dropped {key!r}", (child_path(where, key),)
    elif way == "add":
        key = draw(keys().filter(lambda key: key not in record))
        record[key] = draw(json_values(max_leaves=3))
        what, broken = f"{where}: added {key!r}", (child_path(where, key),)
    elif way == "tag":
        tag = draw(st.one_of(st.sampled_from(TAGS), texts()))
        if tag == record["type"]:
            tag += "_"
        record["type"] = tag
        what = f"{where}: tag changed to {tag!r}"
        broken = _retagged(where, record, in_union=path == ("kind",))
    elif way == "retype":
        key = draw(st.sampled_from(strings))
        record[key] = draw(_not_a_string())
        what, broken = f"{where}: {key!r} given {record[key]!r}", (f"{where}.{key}",)
    elif way == "revalue":
        key = draw(st.sampled_from(strings))
        bad = "" if key != "phase" else draw(st.sampled_from(["", "during", "BEFORE"]))
        record[key] = bad
        what, broken = f"{where}: {key!r} set to {bad!r}", (f"{where}.{key}",)
    else:
        record["kind"] = draw(_not_an_object())
        what, broken = f"{where}: 'kind' given {record['kind']!r}", (f"{where}.kind",)
    return Corruption(original, document, what, broken)


# --- tool layer ---

CALL_KINDS: Final = BEHAVIOURS
"""How a tool call of a random batch behaves (`tests.sessions.BEHAVIOURS`)."""


@attrs.frozen
class Call:
    """One tool call of a random batch: which behaviour, and its input."""

    kind: str
    n: int

    @property
    def input(self) -> JSON:
        """The call's input."""
        return {"n": self.n}


def calls() -> st.SearchStrategy[Call]:
    """A tool call of any behaviour, with a small integer input."""
    return st.builds(Call, st.sampled_from(CALL_KINDS), st.integers(-3, 3))


def batches(*, max_size: int = 6) -> st.SearchStrategy[tuple[Call, ...]]:
    """A model's batch of tool calls in which at least one call pauses."""
    return (
        st.lists(calls(), min_size=1, max_size=max_size)
        .filter(lambda batch: any(call.kind != "finish" for call in batch))
        .map(tuple)
    )


TTLS: Final[st.SearchStrategy[timedelta | None]] = st.none() | st.builds(
    timedelta, minutes=st.integers(1, 90)
)
"""A time limit for answers, or None for none."""

TOOL_NAMES: Final = st.text("abcdxyz_", min_size=1, max_size=6)
"""Tool names: short, readable in a failing example."""


@st.composite
def tool_sets(draw: st.DrawFn) -> ToolSet:
    """The batches' four behaviours under distinct names, each with a time limit."""
    names = draw(st.lists(TOOL_NAMES, min_size=4, max_size=4, unique=True).map(tuple))
    ttls = draw(st.tuples(*(TTLS,) * len(BEHAVIOURS)))
    return ToolSet(
        dict(zip(BEHAVIOURS, names, strict=True)),
        dict(zip(BEHAVIOURS, ttls, strict=True)),
    )


def answers(pending: PendingInterrupt) -> st.SearchStrategy[Respond | Restart]:
    """An answer a client builds for a pause of a `ToolSet`, of any kind it accepts.

    An approval is approved (with or without a note) or rejected; a question
    (it accepts only a respond) gets "Yes", "No" or ""; a paused tool gets a
    result, or a restart with data and perhaps its own input again.
    """
    if isinstance(pending.kind, ApprovalPending):
        return st.one_of(
            st.builds(pending.approve, st.none() | st.just("ok")),
            st.just(pending.reject("too much")),
        )
    if pending.accepts.restart is None:
        return st.sampled_from(["Yes", "No", ""]).map(pending.respond)
    same_input = st.just(pending.tool.input) if pending.tool is not None else st.none()
    return st.one_of(
        st.integers(-5, 5).map(pending.respond),
        st.builds(
            lambda go, again: pending.restart({"go": go}, replace_input=again),
            st.booleans(),
            st.none() | same_input,
        ),
    )


# --- sealing ---

REFS: Final = st.text("abcxyz0123-", min_size=1, max_size=6)
"""Tool call refs: short, non-empty, readable in a failing example."""

MOMENTS: Final = st.datetimes(
    datetime(2000, 1, 1),  # noqa: DTZ001 - hypothesis wants naive bounds
    datetime(2100, 1, 1),  # noqa: DTZ001 - timezones= makes the values aware
    timezones=st.just(UTC),
)
"""Timezone-aware moments, UTC."""

SCHEMAS: Final[st.SearchStrategy[dict[str, JSON] | None]] = st.sampled_from(
    [None, {}, {"type": "string"}, {"type": "null"}]
)
"""A few accepted-answer schemas, or None for "not accepted"."""

SMALL_JSON: Final = json_values(max_leaves=4)
"""Payloads, inputs and outputs of a turn: small, so turns draw fast."""


@st.composite
def pendings(draw: st.DrawFn, ref: str) -> PendingInterrupt:
    """A pending interrupt on tool call *ref*: any kind, payload and accepts."""
    request = ToolRequest(draw(st.sampled_from(["ask", "pay"])), ref, draw(SMALL_JSON))
    return PendingInterrupt(
        id=ref,
        kind=draw(kinds()),
        payload=draw(SMALL_JSON),
        tool=request,
        accepts=Accepts(draw(SCHEMAS), draw(SCHEMAS), draw(SCHEMAS)),
        expires_at=draw(st.none() | MOMENTS),
    )


@st.composite
def turns(draw: st.DrawFn) -> InterruptedTurn:
    """An interrupted turn: pending calls, finished siblings, any times.

    Wider than the public `interruption.testing.strategies.turns`, which
    draws turns a resume can answer: here any kind pairs with any accepted
    schemas (`pendings`), and the turn and its pauses may carry an expiry
    and approved calls; values to seal and open, not to answer.
    """
    refs = draw(st.lists(REFS, min_size=1, max_size=5, unique=True))
    split = draw(st.integers(1, len(refs)))
    interrupts = tuple(draw(pendings(ref)) for ref in refs[:split])
    completed = tuple(
        ToolResponse("lookup", ref, draw(SMALL_JSON)) for ref in refs[split:]
    )
    requests = [pending.tool for pending in interrupts if pending.tool is not None]
    requests += [ToolRequest(done.name, done.ref, {}) for done in completed]
    return InterruptedTurn(
        session=draw(non_empty_text()),
        turn_id=draw(st.integers(1, MAX_SAFE_INTEGER)),
        messages=(
            Message.of_text(Role.USER, draw(texts())),
            Message(Role.MODEL, tuple(requests)),
        ),
        interrupts=interrupts,
        completed=completed,
        created_at=draw(MOMENTS),
        expires_at=draw(st.none() | MOMENTS),
        approved=tuple(draw(st.lists(REFS, max_size=2))),
    )


BASE64URL: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
"""The base64url alphabet a compact JWT is spelled in."""


def b64url(raw: bytes) -> str:
    """Encode *raw* as unpadded base64url, as JWS segments are."""
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


@attrs.frozen
class TokenMutation:
    """A sealed token changed in one way, and how."""

    what: str
    token: str


def _other_char(draw: st.DrawFn, old: str) -> str:
    return draw(
        st.sampled_from(f"{BASE64URL}.=+/ ~").filter(lambda new: new != old)
        | st.characters().filter(lambda new: new != old)
    )


@st.composite
def token_mutations(draw: st.DrawFn, token: str, key: bytes) -> TokenMutation:
    """*token* (a JWT signed with *key*) changed once: never a valid token.

    Flip, delete or insert one character; truncate; append; reorder the
    segments; sign the same claims with another key under the same ``kid``;
    or change one claim and keep the signature.
    """
    header, payload, signature = token.split(".")
    how = draw(
        st.sampled_from(
            [
                "flip",
                "delete",
                "insert",
                "truncate",
                "append",
                "swap",
                "resign",
                "claim",
            ]
        )
    )
    if how in {"flip", "delete", "insert"}:
        at = draw(st.integers(0, len(token) - 1))
        new = _other_char(draw, token[at])
        tail = {
            "flip": token[at + 1 :],
            "delete": token[at + 1 :],
            "insert": token[at:],
        }
        middle = "" if how == "delete" else new
        return TokenMutation(
            f"{how} {at} -> {middle!r}", token[:at] + middle + tail[how]
        )
    if how == "truncate":
        cut = draw(st.integers(0, len(token) - 1))
        return TokenMutation(f"truncate to {cut}", token[:cut])
    if how == "append":
        extra = draw(st.text(st.sampled_from(f"{BASE64URL}.="), min_size=1, max_size=4))
        return TokenMutation(f"append {extra!r}", token + extra)
    if how == "swap":
        order = draw(
            st.permutations([header, payload, signature]).filter(
                lambda segments: segments != [header, payload, signature]
            )
        )
        return TokenMutation("swap segments", ".".join(order))
    claims = jwt.decode(token, options={"verify_signature": False})
    kid = jwt.get_unverified_header(token)["kid"]
    if how == "resign":
        other = draw(st.binary(min_size=32, max_size=64).filter(lambda k: k != key))
        forged = jwt.encode(claims, other, algorithm="HS256", headers={"kid": kid})
        return TokenMutation("re-signed with another key", forged)
    name = draw(st.sampled_from(sorted(claims)))
    changed = draw(json_values().filter(lambda value: value != claims[name]))
    text = json.dumps({**claims, name: changed}, separators=(",", ":"))
    forged = f"{header}.{b64url(text.encode())}.{signature}"
    return TokenMutation(f"claim {name!r} set to {changed!r}", forged)


# --- number spellings ---

NUMBER_EDGES: Final = (
    "-0",
    "-0.0",
    "-0e0",
    "0e400",
    "1E400",
    "-1e400",
    "1.0e-400",
    "-1.0e-400",
    "4.9e-324",
    "2.4703282292062327e-324",
    "1.7976931348623157e308",
    "1.7976931348623159e308",
    "9007199254740993.0",
    "9223372036854775808.0",
    "-9223372036854775809",
    "-9223372036854775808",
    "9223372036854775807",
    "18446744073709551615",
    "18446744073709551616",
    "12345678901234567890",
    "-99999999999999999999",
    "100000000000000000000e-20",
    "1e9999999999999999999",
    "1" + "0" * 400,
    "1" + "0" * 400 + ".0",
)
"""Number literals at the edges where JSON parsers have been seen to differ."""

NEAR_NUMBERS: Final = ("+1", "01", "-01", "1.", ".5", "1e", "1e+", "--1", "0x10", "1_0")
"""Spellings that look like numbers and are not JSON."""


@st.composite
def _spelled_numbers(draw: st.DrawFn) -> str:
    """A number spelled by the JSON grammar: sign, digits, fraction, exponent."""
    sign = draw(st.sampled_from(["", "-"]))
    size = draw(st.integers(1, 24))
    lead = draw(st.sampled_from("123456789")) if size > 1 else ""
    whole = lead + draw(st.text("0123456789", min_size=size - len(lead), max_size=size))
    fraction = draw(st.sampled_from(["", "."]))
    if fraction:
        fraction += draw(st.text("0123456789", min_size=1, max_size=24))
    exponent = draw(st.sampled_from(["", "e", "E"]))
    if exponent:
        exponent += draw(st.sampled_from(["", "+", "-"]))
        exponent += draw(st.text("0123456789", min_size=1, max_size=5))
    return sign + whole + fraction + exponent


def _near(bound: int) -> st.SearchStrategy[int]:
    """Integers within a few of ``±bound``."""
    return st.builds(
        lambda sign, offset: sign * bound + offset,
        st.sampled_from([1, -1]),
        st.integers(-2, 2),
    )


def number_literals() -> st.SearchStrategy[str]:
    """JSON number texts of every size, sign and spelling, and near misses.

    Integers of any size and around ``±2**53``, ``±2**63`` and ``±2**64``;
    floats as Python writes them; numbers built from the grammar (up to 24
    digits before and after the point, exponents of up to 5 digits, ``e`` or
    ``E``); the known edge cases; and spellings that are not JSON numbers.
    """
    return st.one_of(
        st.integers().map(str),
        st.one_of(_near(2**53), _near(2**63), _near(2**64)).map(str),
        st.floats(allow_nan=False, allow_infinity=False).map(repr),
        _spelled_numbers(),
        st.sampled_from(NUMBER_EDGES),
        st.sampled_from(NEAR_NUMBERS),
    )


# --- every wire record, and hostile input (the decoder's corpus) ---

PAUSES: Final[type[list[Interrupted]]] = list[Interrupted]
"""A list of pauses, typed so that `loads` accepts it."""

ALL_MOMENTS: Final = st.datetimes(
    datetime(1, 1, 2),  # noqa: DTZ001 - hypothesis wants naive bounds
    datetime(9999, 12, 30),  # noqa: DTZ001 - timezones= makes the values aware
    timezones=st.just(UTC),
)
"""Timezone-aware moments, UTC, over nearly all of datetime's range.

Wider than `MOMENTS` (2000 to 2100, which sealed tokens can carry): the
decoder must read any date-time. A day is kept from each end so that no
moment leaves the range when it is respelled with an offset.
"""


def _payloads() -> st.SearchStrategy[JSON]:
    return json_values(max_leaves=6)


def _any_schemas() -> st.SearchStrategy[dict[str, JSON] | None]:
    """Any JSON object as an accepted-answer schema, or None."""
    return st.none() | st.dictionaries(keys(), _payloads(), max_size=3)


def tool_requests() -> st.SearchStrategy[ToolRequest]:
    """Tool requests, with or without a ref."""
    return st.builds(
        ToolRequest, non_empty_text(), st.none() | non_empty_text(), _payloads()
    )


def tool_responses() -> st.SearchStrategy[ToolResponse]:
    """Tool responses."""
    return st.builds(ToolResponse, non_empty_text(), non_empty_text(), _payloads())


def messages() -> st.SearchStrategy[Message]:
    """Messages of any role and a few parts of every kind."""
    parts = st.one_of(st.builds(Text, texts()), tool_requests(), tool_responses())
    return st.builds(
        Message, st.sampled_from(Role), st.lists(parts, max_size=3).map(tuple)
    )


@st.composite
def encodable_pendings(draw: st.DrawFn) -> PendingInterrupt:
    """Pending interrupts, every optional field present or not, any schemas.

    Unlike `pendings` (and `interruption.testing.strategies`), the accepted
    schemas are any JSON objects and the tool may be absent: values to
    encode and decode, not to answer. An expiry answer is one the pause
    takes (a record refuses any other): a drawn one that does not fit is
    left out.
    """
    pending = draw(
        st.builds(
            PendingInterrupt,
            id=non_empty_text(),
            kind=kinds(),
            payload=_payloads(),
            tool=st.none() | tool_requests(),
            accepts=st.builds(Accepts, _any_schemas(), _any_schemas(), _any_schemas()),
            expires_at=st.none() | ALL_MOMENTS,
        )
    )
    output = draw(st.none() | st.just(pending.payload) | _payloads())
    if not draw(st.booleans()):
        return pending
    try:
        return attrs.evolve(pending, on_expiry=ExpiryAnswer(output))
    except (FieldError, SchemaError):  # not an answer it takes, or no usable schema
        return pending


def responds() -> st.SearchStrategy[Respond]:
    """Respond entries."""
    return st.builds(Respond, non_empty_text(), non_empty_text(), _payloads())


def restarts() -> st.SearchStrategy[Restart]:
    """Restart entries."""
    return st.builds(
        Restart, non_empty_text(), non_empty_text(), _payloads(), _payloads()
    )


def _pending_id(pending: PendingInterrupt) -> str:
    return pending.id


def interrupted_turns() -> st.SearchStrategy[InterruptedTurn]:
    """Interrupted turns; small, but with every field and nesting level.

    Unlike `turns`, the parts need not fit together (a pending call need
    not be among the model's requests): values to encode and decode.
    """
    return st.builds(
        InterruptedTurn,
        session=non_empty_text(),
        turn_id=st.integers(0, MAX_SAFE_INTEGER),
        messages=st.lists(messages(), max_size=2).map(tuple),
        # An answer must be able to tell them apart (by id, by name and ref).
        interrupts=st.lists(
            encodable_pendings(), max_size=2, unique_by=(_pending_id, answer_key)
        ).map(tuple),
        completed=st.lists(tool_responses(), max_size=2).map(tuple),
        created_at=ALL_MOMENTS,
        expires_at=st.none() | ALL_MOMENTS,
        approved=st.lists(texts(), max_size=2).map(tuple),
    )


def pending_turns() -> st.SearchStrategy[PendingTurn]:
    """What a client renders: a session, a turn id, what is pending."""
    return st.builds(
        PendingTurn,
        session=non_empty_text(),
        turn_id=st.integers(0, MAX_SAFE_INTEGER),
        interrupts=st.lists(encodable_pendings(), max_size=2).map(tuple),
        expires_at=st.none() | ALL_MOMENTS,
    )


def problems() -> st.SearchStrategy[Problem]:
    """Problems of any code, every optional field present or not."""
    return st.builds(
        Problem,
        st.sampled_from(ProblemCode),
        texts(),
        st.none() | st.integers(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER),
        st.none() | texts(),
        st.none() | texts(),
    )


def rejections() -> st.SearchStrategy[ResumeRejected]:
    """Refused resumes, with one to three problems."""
    return st.lists(problems(), min_size=1, max_size=3).map(ResumeRejected)


def decode_errors() -> st.SearchStrategy[DecodeError]:
    """Refused wire input, with one to three mismatches."""
    mismatch = st.builds(Mismatch, texts(), texts(), texts())
    return st.lists(mismatch, min_size=1, max_size=3).map(DecodeError)


def audit_events() -> st.SearchStrategy[AuditEvent]:
    """Audit trail entries of every kind, every optional field present or not."""
    return st.builds(
        AuditEvent,
        session=texts(),
        turn_id=st.integers(0, MAX_SAFE_INTEGER),
        kind=st.sampled_from(get_args(AuditKind)),
        at=ALL_MOMENTS,
        principal=st.none() | texts(),
        codes=st.lists(texts(), max_size=3).map(tuple),
        digest=st.none() | texts(),
        pending=st.lists(texts(), max_size=3).map(tuple),
        reason=st.none() | texts(),
    )


RECORDS: Final[dict[type[object], st.SearchStrategy[object]]] = {
    ApprovalPending: st.builds(ApprovalPending, non_empty_text()),
    AuditEvent: audit_events(),
    Confirm: st.builds(
        Confirm,
        non_empty_text(),
        non_empty_text(),
        st.lists(non_empty_text(), min_size=2, max_size=4, unique=True).map(tuple),
    ),
    Custom: st.just(Custom()),
    DecodeError: decode_errors(),
    Input: st.builds(Input, non_empty_text(), non_empty_text(), st.none() | texts()),
    Interrupted: interrupteds(),
    InterruptedTurn: interrupted_turns(),
    Message: messages(),
    PendingInterrupt: encodable_pendings(),
    PendingTurn: pending_turns(),
    Respond: responds(),
    Restart: restarts(),
    Resume: st.builds(
        Resume,
        st.lists(responds(), max_size=2).map(tuple),
        st.lists(restarts(), max_size=2).map(tuple),
    ),
    ResumeRejected: rejections(),
    ScheduledPause: st.builds(ScheduledPause, st.sampled_from(Phase), non_empty_text()),
    ToolRequest: tool_requests(),
    ToolResponse: tool_responses(),
    PAUSES: st.lists(interrupteds(), max_size=3),
}
"""A strategy of valid values for each wire type and for a list of pauses."""


@st.composite
def records(draw: st.DrawFn) -> tuple[type[object], object]:
    """A type of `RECORDS` and a valid value of it."""
    cls = draw(st.sampled_from(list(RECORDS)))
    return cls, draw(RECORDS[cls])


def depth(value: JSON) -> int:
    """How many arrays and objects *value* nests (0 for a scalar)."""
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    return 0


@st.composite
def deepened(draw: st.DrawFn, value: JSON, max_depth: int = MAX_DEPTH) -> JSON:
    """*value* wrapped in arrays and objects, often to exactly *max_depth*."""
    target = draw(st.just(max_depth) | st.integers(0, max_depth))
    while depth(value) < target:
        value = [value] if draw(st.booleans()) else {draw(keys()): value}
    return value


def _deepen(draw: st.DrawFn, value: object) -> object:
    """*value*, a record, with every JSON field drawn deep (validators run)."""
    if isinstance(value, Interrupted):
        return Interrupted(value.kind, draw(deepened(value.payload)))
    if isinstance(value, list | tuple):
        return type(value)(_deepen(draw, item) for item in value)
    if not attrs.has(type(value)):
        return value
    record = cast("attrs.AttrsInstance", value)
    hints = get_type_hints(type(record))
    changes = {
        field.alias: (
            draw(deepened(getattr(value, field.name)))
            if is_json_type(hints[field.name])
            else _deepen(draw, getattr(value, field.name))
        )
        for field in attrs.fields(type(record))
        if field.init
    }
    return attrs.evolve(record, **changes)  # type: ignore[misc] # plugin: static classes only


@st.composite
def deep_records(draw: st.DrawFn) -> tuple[type[object], object]:
    """`records`, with every JSON field nested up to `MAX_DEPTH`, often to it."""
    cls, value = draw(records())
    return cls, _deepen(draw, value)


def hostile_json() -> st.SearchStrategy[object]:
    """Python values `json.dumps` writes: NaN, huge integers, lone surrogates."""
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.sampled_from([10**400, -(10**400), 2**53, -(2**53), 2**64, 2**63 - 1]),
        st.floats(),
        st.text(),  # lone surrogates included
        st.sampled_from(["custom", "approval_pending", "type", "kind", "payload"]),
    )
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(st.one_of(keys(), st.text()), inner, max_size=4),
        ),
        max_leaves=16,
    )


def encoded(text: str, *, as_bytes: bool) -> str | bytes:
    """*text* as given, or as UTF-8 bytes (lone surrogates as CESU-8 bytes)."""
    return text.encode("utf-8", "surrogatepass") if as_bytes else text


EDITS: Final = ("delete", "insert", "replace", "duplicate", "truncate")
"""How `mutated_documents` changes a span of a document."""

TOKENS: Final = list('{}[]":,\\ 0-e.tfn')
"""JSON's punctuation and the first letters of its literals, as text."""

RAW_TOKENS: Final = [bytes([byte]) for byte in b'{}[]":,\\ 0-e.tfn\xff\xc3']
"""`TOKENS` as bytes, and two bytes that start no valid UTF-8 character here."""


def _edit(data: AnyStr, noise: AnyStr, how: str, at: int, end: int) -> AnyStr:
    if how == "delete":
        return data[:at] + data[end:]
    if how == "insert":
        return data[:at] + noise + data[at:]
    if how == "replace":
        return data[:at] + noise + data[end:]
    if how == "duplicate":
        return data[:end] + data[at:end] + data[end:]
    return data[:at]  # truncate


@st.composite
def mutated_documents(draw: st.DrawFn, document: str) -> str | bytes:
    """*document* changed by one to three byte or character mutations."""
    data = encoded(document, as_bytes=draw(st.booleans()))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(data)))
        end = draw(st.integers(at, min(len(data), at + 8)))
        how = draw(st.sampled_from(EDITS))
        if isinstance(data, str):
            text = draw(st.text(min_size=1, max_size=4) | st.sampled_from(TOKENS))
            data = _edit(data, text, how, at, end)
        else:
            raw = draw(st.binary(min_size=1, max_size=4) | st.sampled_from(RAW_TOKENS))
            data = _edit(data, raw, how, at, end)
    return data


# --- the loop ---

DECISIONS: Final[st.SearchStrategy[JSON]] = st.one_of(
    decisions(),
    st.sampled_from(
        [
            "approve",
            {"approve": {}},
            {"approve": {"note": None}},
            {"approve": {"note": "ok"}},
            {"reject": {"reason": "no"}},
            {"reject": {"reason": ""}},
            {"reject": {}},
            {"approve": "yes"},
            "reject",
            None,
        ]
    ),
    json_values(max_leaves=4),
)
"""Approval decisions (the public `decisions`, and other spellings), near
misses and any JSON at all."""


@st.composite
def raised_trees(draw: st.DrawFn, depth: int = 3) -> BaseException:
    """A pause, a failure, or a (nested) group of them, as a tool may raise.

    Each pause is a custom one whose payload, like each failure's message,
    is a number below 100.
    """
    if depth == 0 or draw(st.booleans()):
        return draw(
            st.one_of(
                st.builds(Interrupted, st.just(Custom()), st.integers(0, 99)),
                st.integers(0, 99).map(LookupError),
            )
        )
    children = draw(st.lists(raised_trees(depth - 1), min_size=1, max_size=3))
    return BaseExceptionGroup("g", children)


# --- schema checks ---

STEPS: Final = (0.01, 0.1, 0.25, 0.5, 3.0, 0.001, 1e-05, 0.07, 2.5, 1e20)
"""``multipleOf`` values, written as a JSON text would write them."""


@st.composite
def multiples_and_not(draw: st.DrawFn) -> tuple[float, float]:
    """A step of `STEPS` and a float: an exact decimal multiple of it, or any."""
    step = draw(st.sampled_from(STEPS))
    value = draw(
        st.one_of(
            st.integers(-(10**9), 10**9).map(
                lambda n: float(Decimal(n) * Decimal(repr(step)))
            ),
            st.builds(
                lambda digits, exponent: float(f"{digits}e{exponent}"),
                st.integers(-(10**9), 10**9),
                st.integers(-300, 290),  # within a float: 10**9 * 10**290
            ),
            st.floats(allow_nan=False, allow_infinity=False),
        )
    )
    return step, value
