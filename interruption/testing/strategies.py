"""Hypothesis strategies for property tests of integrations (``[testing]``).

What an adapter's or a framework's own test suite needs to state the
library's laws about its integration:

* `texts`, `object_keys`, `json_scalars`, `json_values`: valid Unicode and
  JSON values as the library defines them (I-JSON integers, no NaN);
* `kinds`, `interrupteds`, `pending_interrupts`, `turns`: the records, with
  any kind, payload and answer schema;
* `decisions`: approval decisions, as a restart's ``resumed`` carries them;
* `valid_resumes(turn)`: resumes that answer every interrupt of *turn* as it
  accepts ("every valid resume is accepted");
* `mutations(resume, turn)`: every single mutation of a valid resume, each
  paired with the problem codes it must be rejected with ("every mutation
  is rejected with the right code").

Answers are drawn from the accepted schemas for the shapes tools usually
declare (``enum``, ``const``, ``type`` with ``properties``/``items``, ``{}``);
for other schemas pass ``answers=`` a strategy per interrupt.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Final, TypeAlias

try:
    from hypothesis import strategies as st
except ImportError as error:  # pragma: no cover - the [testing] extra brings it
    msg = (
        "interruption.testing.strategies needs the [testing] extra: "
        "pip install 'interruption[testing]'"
    )
    raise ImportError(msg) from error

import attrs

from interruption._json import JSON, MAX_SAFE_INTEGER, json_equal
from interruption.errors import InvalidArgument, ProblemCode
from interruption.kinds import (
    ApprovalPending,
    Custom,
    InterruptionKind,
    Phase,
    ScheduledPause,
)
from interruption.parts import Message, Role, ToolRequest, ToolResponse
from interruption.pause import Interrupted
from interruption.resume import (
    Accepts,
    InterruptedTurn,
    PendingInterrupt,
    Respond,
    Restart,
    Resume,
)
from interruption.runtime.approval import (
    DECISION_SCHEMA,
    Approve,
    Reject,
    decision_to_json,
)
from interruption.schemas import JSONSchema, conforms

__all__ = [
    "Answers",
    "Mutation",
    "decisions",
    "interrupteds",
    "json_scalars",
    "json_values",
    "kinds",
    "mutations",
    "object_keys",
    "pending_interrupts",
    "texts",
    "turns",
    "valid_resumes",
]

Mutation: TypeAlias = tuple[str, Resume, frozenset[ProblemCode]]
"""A mutated resume: what was changed, the resume, the codes it must get."""

Answers: TypeAlias = Callable[[PendingInterrupt], st.SearchStrategy[JSON]]
"""Draws a valid answer (an output or a ``resumed`` value) for an interrupt."""

_NAMES: Final = st.text("abcdefgh_", min_size=1, max_size=8)
_REFS: Final = st.text("abcxyz0123-", min_size=1, max_size=6)
_MOMENTS: Final = st.datetimes(
    datetime(2000, 1, 1),  # noqa: DTZ001 - hypothesis wants naive bounds
    datetime(2100, 1, 1),  # noqa: DTZ001 - timezones= makes the values aware
    timezones=st.just(UTC),
)


def texts(*, min_size: int = 0, max_size: int = 12) -> st.SearchStrategy[str]:
    """Strings of valid Unicode: any code point but a lone surrogate.

    Args:
        min_size: The fewest code points a string has.
        max_size: The most code points a string has.
    """
    return st.text(
        st.characters(exclude_categories=["Cs"]), min_size=min_size, max_size=max_size
    )


def object_keys() -> st.SearchStrategy[str]:
    """Object keys: often short names a record uses, else any valid Unicode.

    Keys such as ``"type"`` and ``"kind"`` come up often, so a value that
    looks like a record's document is drawn, not only random keys.
    """
    return st.one_of(st.sampled_from(["a", "b", "type", "kind", "x y"]), texts())


def json_scalars() -> st.SearchStrategy[JSON]:
    """``null``, booleans, I-JSON integers, finite floats and strings."""
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER),
        st.floats(allow_nan=False, allow_infinity=False),
        texts(),
    )


def json_values(*, max_leaves: int = 12) -> st.SearchStrategy[JSON]:
    """JSON values as the library defines them, nested a few levels.

    Args:
        max_leaves: The most scalars one value holds; arrays and objects
            hold up to four items each.
    """
    return st.recursive(
        json_scalars(),
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(object_keys(), inner, max_size=4),
        ),
        max_leaves=max_leaves,
    )


def kinds() -> st.SearchStrategy[InterruptionKind]:
    """Every kind, with any non-empty valid Unicode in its fields."""
    return st.one_of(
        st.just(Custom()),
        st.builds(ApprovalPending, texts(min_size=1)),
        st.builds(ScheduledPause, st.sampled_from(Phase), texts(min_size=1)),
    )


def interrupteds() -> st.SearchStrategy[Interrupted]:
    """Pauses: any kind with any JSON payload."""
    return st.builds(Interrupted, kinds(), json_values())


_SCHEMAS: Final[tuple[JSONSchema, ...]] = (
    {},
    {"type": "string"},
    {"enum": ["Yes", "No"]},
    {"type": "integer", "minimum": 0},
    {
        "type": "object",
        "properties": {"to": {"type": "string"}, "amount": {"type": "integer"}},
        "required": ["to", "amount"],
        "additionalProperties": False,
    },
)


@st.composite
def pending_interrupts(draw: st.DrawFn, ref: str | None = None) -> PendingInterrupt:
    """A paused tool call of any kind, accepting what its kind allows.

    Approvals accept a restart with a decision; scheduled pauses a restart
    with ``null``; custom pauses a respond and sometimes a restart, each
    with a schema of the usual shapes.
    """
    ref = ref if ref is not None else draw(_REFS)
    name = draw(_NAMES)
    request = ToolRequest(name, ref, draw(json_values(max_leaves=3)))
    kind = draw(
        st.one_of(
            st.just(Custom()),
            st.just(ApprovalPending(ref)),
            st.builds(ScheduledPause, st.sampled_from(Phase), st.just(name)),
        )
    )
    match kind:
        case ApprovalPending():
            accepts = Accepts(restart=DECISION_SCHEMA)
        case ScheduledPause():
            accepts = Accepts(restart={"type": "null"})
        case _:
            restart = draw(st.none() | st.sampled_from(_SCHEMAS))
            empty: JSONSchema = {}
            replace = draw(st.sampled_from([None, empty])) if restart else None
            accepts = Accepts(draw(st.sampled_from(_SCHEMAS)), restart, replace)
    return PendingInterrupt(
        id=ref,
        kind=kind,
        payload=draw(json_values(max_leaves=3)),
        tool=request,
        accepts=accepts,
    )


@st.composite
def turns(draw: st.DrawFn) -> InterruptedTurn:
    """An interrupted turn: one to four pauses, sometimes finished siblings."""
    refs = draw(st.lists(_REFS, min_size=1, max_size=6, unique=True))
    split = draw(st.integers(1, min(4, len(refs))))
    interrupts = tuple(draw(pending_interrupts(ref)) for ref in refs[:split])
    completed = tuple(
        ToolResponse("lookup", ref, draw(json_values(max_leaves=3)))
        for ref in refs[split:]
    )
    requests = [p.tool for p in interrupts if p.tool is not None]
    requests += [ToolRequest(done.name, done.ref, {}) for done in completed]
    return InterruptedTurn(
        session=draw(_NAMES),
        turn_id=draw(st.integers(1, 1000)),
        messages=(
            Message.of_text(Role.USER, draw(texts())),
            Message(Role.MODEL, tuple(requests)),
        ),
        interrupts=interrupts,
        completed=completed,
        created_at=draw(_MOMENTS),
    )


def _from_schema(schema: JSONSchema) -> st.SearchStrategy[JSON]:
    """Values that fit *schema*, for the shapes tools usually declare."""
    if not schema:
        return json_values(max_leaves=4)
    if "const" in schema:
        return st.just(schema["const"])
    enum = schema.get("enum")
    if isinstance(enum, list):
        return st.sampled_from(enum)
    kind = schema.get("type")
    if kind == "null":
        return st.none()
    if kind == "boolean":
        return st.booleans()
    if kind == "string" and set(schema) == {"type"}:
        return texts()
    if kind == "integer" and set(schema) <= {"type", "minimum"}:
        low = schema.get("minimum", -MAX_SAFE_INTEGER)
        return st.integers(low if isinstance(low, int) else 0, MAX_SAFE_INTEGER)
    properties = schema.get("properties")
    if kind == "object" and isinstance(properties, dict):
        required = schema.get("required", [])
        fields = {
            key: _from_schema(sub)
            for key, sub in properties.items()
            if isinstance(sub, dict) and isinstance(required, list) and key in required
        }
        return st.fixed_dictionaries(fields)
    got = f"a schema with no built-in strategy, {schema!r}: pass answers="
    raise InvalidArgument("valid_resumes: answers", "a strategy", got)


def decisions() -> st.SearchStrategy[JSON]:
    """Approval decisions in their wire form: what answers an approval.

    Approvals, with a note or without, and rejections with a reason, each
    as `decision_to_json` writes it (the ``resumed`` of a restart that
    answers an `ApprovalPending`).
    """
    return st.one_of(
        st.builds(Approve, st.none() | texts()),
        st.builds(Reject, st.text("abc xyz", min_size=1, max_size=8)),
    ).map(decision_to_json)


@st.composite
def _answer(
    draw: st.DrawFn, pending: PendingInterrupt, answers: Answers | None
) -> Respond | Restart:
    allowed = pending.allowed
    if isinstance(pending.kind, ApprovalPending):
        return Restart(pending.name, pending.ref, draw(decisions()))
    kinds_: list[str] = []
    if allowed.respond is not None:
        kinds_.append("respond")
    if allowed.restart is not None:
        kinds_.append("restart")
    chosen = draw(st.sampled_from(kinds_))
    if chosen == "respond":
        schema = allowed.respond
        value = draw(answers(pending) if answers else _from_schema(schema or {}))
        return Respond(pending.name, pending.ref, value)
    schema = allowed.restart
    value = draw(answers(pending) if answers else _from_schema(schema or {}))
    return Restart(pending.name, pending.ref, value)


@st.composite
def valid_resumes(
    draw: st.DrawFn, turn: InterruptedTurn, answers: Answers | None = None
) -> Resume:
    """A resume answering every interrupt of *turn* the way it accepts.

    Args:
        draw: Hypothesis's draw (given by ``st.composite``).
        turn: The turn to answer.
        answers: Draws a valid answer value per interrupt, for schemas the
            built-in shapes do not cover.

    Raises:
        InvalidArgument: (when drawn) for a schema with no built-in strategy
            and no *answers* (a `ValueError`).
    """
    entries = [draw(_answer(pending, answers)) for pending in turn.interrupts]
    entries = draw(st.permutations(entries))
    return _resume_of(entries)


def _resume_of(entries: Sequence[Respond | Restart]) -> Resume:
    return Resume(
        [entry for entry in entries if isinstance(entry, Respond)],
        [entry for entry in entries if isinstance(entry, Restart)],
    )


def _outside(schema: JSONSchema | None, value: JSON) -> JSON | None:
    """A value *schema* refuses (near *value*), or None if none is found."""
    if schema is None:
        return None
    for candidate in ([value], {"unexpected": value}, "\x00not-an-answer", -1.5):
        if not conforms(candidate, schema):
            return candidate
    return None


def mutations(resume: Resume, turn: InterruptedTurn) -> list[Mutation]:  # noqa: C901
    """Every single mutation of valid *resume* with the codes it must get.

    Args:
        resume: A resume `validate_resume` accepts for *turn*.
        turn: The turn it answers.

    Returns:
        One entry per mutation: unknown ref, wrong name, duplicate,
        conflict, the other kind of answer, an answer outside its schema, a
        dropped entry, a changed input, an answer to a finished sibling.
    """
    pending = {(p.name, p.ref): p for p in turn.interrupts}
    entries: list[Respond | Restart] = [*resume.respond, *resume.restart]
    lost = frozenset({ProblemCode.UNKNOWN_INTERRUPT, ProblemCode.MISSING})
    found: list[Mutation] = []

    def replaced(index: int, entry: Respond | Restart | None) -> Resume:
        changed = list(entries)
        if entry is None:
            del changed[index]
        else:
            changed[index] = entry
        return _resume_of(changed)

    for index, entry in enumerate(entries):
        target = pending[entry.name, entry.ref]
        allowed = target.allowed
        unknown = f"{entry.ref}-x"
        while (entry.name, unknown) in pending or unknown in {
            done.ref for done in turn.completed
        }:
            unknown += "x"
        found.append(
            (
                f"unknown ref at {index}",
                replaced(index, attrs.evolve(entry, ref=unknown)),
                lost,
            )
        )
        found.append(
            (
                f"duplicated {index}",
                _resume_of([*entries, entry]),
                frozenset({ProblemCode.DUPLICATE}),
            )
        )
        found.append(
            (
                f"dropped {index}",
                replaced(index, None),
                frozenset({ProblemCode.MISSING}),
            )
        )
        value = entry.output if isinstance(entry, Respond) else entry.resumed
        other: Respond | Restart = (
            Restart(entry.name, entry.ref, value)
            if isinstance(entry, Respond)
            else Respond(entry.name, entry.ref, value)
        )
        other_schema = (
            allowed.restart if isinstance(entry, Respond) else allowed.respond
        )
        both = {ProblemCode.CONFLICT}
        if isinstance(other, Respond):  # checked first: responds come first
            if other_schema is None:
                both.add(ProblemCode.ANSWER_NOT_ACCEPTED)
            elif not conforms(value, other_schema):
                both.add(ProblemCode.SCHEMA_VIOLATION)
        found.append(
            (
                f"both answers for {index}",
                _resume_of([*entries, other]),
                frozenset(both),
            )
        )
        if other_schema is None:
            found.append(
                (
                    f"the other answer at {index}",
                    replaced(index, other),
                    frozenset({ProblemCode.ANSWER_NOT_ACCEPTED}),
                )
            )
        schema = allowed.respond if isinstance(entry, Respond) else allowed.restart
        bad = _outside(schema, value)
        if bad is not None:
            broken = (
                attrs.evolve(entry, output=bad)
                if isinstance(entry, Respond)
                else attrs.evolve(entry, resumed=bad)
            )
            found.append(
                (
                    f"outside the schema at {index}",
                    replaced(index, broken),
                    frozenset({ProblemCode.SCHEMA_VIOLATION}),
                )
            )
        if isinstance(entry, Restart) and target.tool is not None:
            changed_input: JSON = {"changed": [target.tool.input]}
            if allowed.replace_input is None and not json_equal(
                changed_input, target.tool.input
            ):
                found.append(
                    (
                        f"changed input at {index}",
                        replaced(index, attrs.evolve(entry, input=changed_input)),
                        frozenset({ProblemCode.INPUT_MODIFIED}),
                    )
                )
    for done in turn.completed:
        extra = Respond(done.name, done.ref, 0)
        found.append(
            (
                f"answers the finished {done.ref}",
                _resume_of([*entries, extra]),
                frozenset({ProblemCode.NOT_INTERRUPTED}),
            )
        )
    return found
