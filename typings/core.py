"""Type-checked, never run: how the core's public API reads to mypy."""

from datetime import datetime
from typing import NoReturn, assert_type

from interruption import (
    JSON,
    ApprovalPending,
    ArgumentTypeError,
    ContinuationUnfinished,
    Custom,
    DecodeError,
    EventLoopRunning,
    FieldError,
    FieldTypeError,
    Interrupted,
    InterruptedTurn,
    InterruptionError,
    InterruptionKind,
    InvalidArgument,
    Mismatch,
    PayloadError,
    PendingInterrupt,
    Phase,
    Problem,
    ProblemCode,
    Respond,
    Restart,
    Resume,
    ResumeRejected,
    ScheduledPause,
    SchemaError,
    SessionBusy,
    SessionPaused,
    StoreUnavailable,
    canonical,
    digest,
    dumps,
    interrupt,
    interrupt_with,
    json_equal,
    json_schema,
    loads,
    structure,
    unstructure,
)
from interruption.errors import StoreState
from interruption.validation import authorize_shown, nothing_shown

raw = '{"kind": {"type": "custom"}, "payload": null}'

# --- decoding gives the type asked for ---------------------------------------

assert_type(loads(raw, Interrupted), Interrupted)
assert_type(loads(raw.encode(), Interrupted), Interrupted)
assert_type(loads(raw, Interrupted, max_bytes=1024, max_depth=8), Interrupted)
assert_type(loads('{"type": "custom"}', Custom), Custom)
assert_type(loads('{"type": "approval_pending"}', ApprovalPending), ApprovalPending)
assert_type(structure({"type": "custom"}, Custom), Custom)
assert_type(structure({"node": "n"}, ScheduledPause), ScheduledPause)
assert_type(unstructure(Custom()), JSON)
assert_type(dumps(Interrupted(Custom())), str)
assert_type(json_schema(ScheduledPause), dict[str, JSON])
assert_type(json_equal(1, 1.0), bool)
assert_type(canonical({"a": [1]}), bytes)
assert_type(digest(None), str)

# --- pauses --------------------------------------------------------------------


def ask(question: str) -> NoReturn:
    interrupt({"question": question})


def hold(node: str) -> NoReturn:
    interrupt_with(ScheduledPause(Phase.BEFORE, node), None)


def pay(amount: int) -> int:
    if amount > 1000:
        ask("Pay so much?")  # NoReturn: no return needed after it
    return amount


paused = Interrupted(ApprovalPending("tu-1"), {"amount": 125})
assert_type(paused.kind, InterruptionKind)
assert_type(paused.payload, JSON)
control_flow: BaseException = paused
failure: Exception = paused  # type: ignore[assignment]

# --- narrowing over the kinds --------------------------------------------------


def describe(kind: InterruptionKind) -> str:
    match kind:
        case Custom():
            assert_type(kind, Custom)
            return "custom"
        case ApprovalPending(tool_use_id=t):
            assert_type(t, str)
            return t
        case ScheduledPause(phase=p, node=n):
            assert_type(p, Phase)
            assert_type(n, str)
            return f"{p} {n}"


def tag(kind: InterruptionKind) -> str:
    return kind.tag


# --- failures carry their pieces ----------------------------------------------


def report(error: DecodeError | PayloadError) -> list[str]:
    assert_type(error.problems, tuple[Mismatch, ...])
    assert_type(error.path, str)
    assert_type(error.expected, str)
    assert_type(error.got, str)
    return [problem.path for problem in error.problems]


def codes(error: ResumeRejected) -> tuple[ProblemCode, ...]:
    assert_type(error.problems, tuple[Problem, ...])
    first = error.problems[0]
    assert_type(first.index, int | None)
    assert_type(first.interrupt_id, str | None)
    return error.codes


assert_type(ResumeRejected.of(ProblemCode.CONSUMED, "spent"), ResumeRejected)


def status(error: InterruptionError) -> str:
    return error.code  # every failure's stable code


def unusable(error: SchemaError) -> str:
    assert_type(error.problems, tuple[Mismatch, ...])
    assert_type(error.mismatches, tuple[Mismatch, ...])
    assert_type(error.path, str)
    return error.message


def refused(error: FieldError) -> tuple[str, str, str, str]:
    return error.field, error.path, error.expected, error.got


library_failure: InterruptionError = FieldError("reason", "a non-empty string", "''")
value_error: ValueError = SchemaError([Mismatch("$.type", "a type", "5")])
assert_type(FieldError.code, str)
wrong_type: FieldError = FieldTypeError("note", "a string", "5")
also_a_type_error: TypeError = FieldTypeError("note", "a string", "5")
bad_argument: InvalidArgument = ArgumentTypeError("f: names", "names", "'x'")
argument_type: TypeError = ArgumentTypeError("f: names", "names", "'x'")
assert_type(ArgumentTypeError("f: names", "names", "'x'").where, str)
in_a_loop: RuntimeError = EventLoopRunning("generate")
closed: RuntimeError = StoreUnavailable("store.db", "closed", "the store was closed")
assert_type(StoreUnavailable("s", "schema_newer", "m").reason, StoreState)
StoreUnavailable("s", "gone", "m")  # type: ignore[arg-type]
assert_type(EventLoopRunning("generate").where, str)
EventLoopRunning()  # type: ignore[call-arg]
FieldError("reason", "a non-empty string")  # type: ignore[call-arg]
ResumeRejected.of(ProblemCode.CONSUMED, "spent", "call-1")  # type: ignore[call-arg]
ResumeRejected.of("consumed", "spent")  # type: ignore[arg-type]


def rules(pending: PendingInterrupt, turn: InterruptedTurn) -> None:
    entry = pending.respond("Yes")
    assert_type(entry, Respond)
    assert_type(pending.restart(None, replace_input={"n": 1}), Restart)
    assert_type(pending.problems_with(entry), tuple[Problem, ...])
    assert_type(pending.problems_with(entry, 0), tuple[Problem, ...])
    assert_type(turn.expiry_of(pending), datetime | None)
    assert_type(turn.closes_at, datetime | None)
    pending.problems_with(Resume())  # type: ignore[arg-type]


# --- what must not type-check --------------------------------------------------

ApprovalPending(1)  # type: ignore[arg-type]
ScheduledPause("before", "charge")  # type: ignore[arg-type]
Interrupted("custom", None)  # type: ignore[arg-type]
loads(raw, Interrupted, max_bytes="1kB")  # type: ignore[arg-type]
loads(1, Interrupted)  # type: ignore[arg-type]
structure(raw, Interrupted, 8)  # type: ignore[call-arg]
Phase.DURING  # type: ignore[attr-defined]
paused.kind = Custom()  # type: ignore[misc]


# Each in its own function: a call that type-checks returns NoReturn, and
# mypy skips everything after it.
def bad_kind() -> NoReturn:
    interrupt_with("custom")  # type: ignore[arg-type]


def bad_set() -> NoReturn:
    interrupt({1, 2})  # type: ignore[arg-type]


def bad_bytes() -> NoReturn:
    interrupt(b"bytes")  # type: ignore[arg-type]


def busy(error: SessionPaused | ContinuationUnfinished) -> None:
    assert_type(error.session, str)
    assert isinstance(error, SessionBusy)


# --- the door that shows nothing ------------------------------------------------


def refuse_blind(principal: str | None) -> ResumeRejected | None:
    """With an authorizer, a door that shows nothing refuses everyone."""
    assert_type(nothing_shown(None, principal), ResumeRejected | None)
    return nothing_shown(lambda _who, _pending: True, principal)


async def authorize_door(turn: InterruptedTurn, principal: str | None) -> None:
    """What a door shows is authorized, nothing shown included."""
    assert_type(await authorize_shown(turn, None, principal), None)
