"""The one small tree of failures.

::

    Exception
    └── InterruptionError                 base of every failure raised here
        ├── DecodeError (+ ValueError)    wire input is malformed
        ├── PayloadError (+ TypeError)    a payload is not JSON (raise site)
        ├── FieldError (+ ValueError)     a record field got a value it refuses
        │   └── FieldTypeError (+ TypeError) ... a value of a type it does not take
        ├── SchemaError (+ ValueError)    a JSON Schema this library will not run
        ├── PauseRefused (+ ValueError)   a tool raised a pause the loop refuses
        ├── SessionBusy (+ RuntimeError)  a session cannot take new messages yet
        │   ├── SessionPaused             its turn awaits answers (resume it)
        │   ├── ContinuationUnfinished    a continuation was cut short (recover)
        │   └── SessionInUse              another send or recovery runs on it
        ├── ToolContractError (+ ValueError) a tool's input or output breaks
        │                                 its schema (tools.py)
        ├── ResumeRejected (+ ValueError) a resume does not fit what is pending
        ├── InvalidArgument (+ ValueError) an argument is out of range
        │   └── ArgumentTypeError (+ TypeError) ... of a type the call does not take
        ├── TurnIdTaken (+ ValueError)    a store holds this turn id already
        ├── StoreUnavailable (+ RuntimeError) a store that was closed, or
        │                                 whose database is newer than this library
        ├── ExtraMissing (+ ImportError)  a name used without the extra it needs
        └── EventLoopRunning (+ RuntimeError) a blocking twin called inside a
                                          running event loop

The pause is not a failure: `interruption.pause.Interrupted` is control
flow, a `BaseException`.

Every failure has a stable `InterruptionError.code` (``"decode_error"``,
``"schema_error"``, ...), its class's own, so that a web handler can map
codes to statuses without matching class names.

The root and the failures the lowest modules raise (`InterruptionError`,
`Mismatch`, `PayloadError`, `FieldError`, `FieldTypeError`,
`InvalidArgument`) are defined in ``interruption._base_errors``, which imports
nothing of the package, so the JSON checks and the field validators raise them
without an import back up; they are public here, as every other failure.

Failures carry their pieces as attributes (`Mismatch.path`, `.expected`,
`.got`; `Problem.code`), so no caller parses a message, and several problems
travel together, never only the first.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, ClassVar, Literal, Self, TypeAlias, final

import attrs

from interruption._base_errors import (
    FieldError,
    FieldTypeError,
    InterruptionError,
    InvalidArgument,
    Mismatch,
    MismatchError,
    PayloadError,
)
from interruption._validators import optional_string, string

if TYPE_CHECKING:
    from collections.abc import Iterable

    from interruption.kinds import InterruptionKind

__all__ = [
    "ArgumentTypeError",
    "ContinuationUnfinished",
    "DecodeError",
    "EventLoopRunning",
    "ExtraMissing",
    "FieldError",
    "FieldTypeError",
    "InterruptionError",
    "InvalidArgument",
    "Mismatch",
    "PauseRefused",
    "PayloadError",
    "Problem",
    "ProblemCode",
    "ResumeRejected",
    "SchemaError",
    "SessionBusy",
    "SessionInUse",
    "SessionPaused",
    "StoreUnavailable",
    "TurnIdTaken",
]


@final
class DecodeError(MismatchError, ValueError):
    """Wire input is malformed.

    Attributes:
        problems: Every `Mismatch` found, in document order.
        path: The first problem's JSON path (``$.kind.phase``).
        expected: What the first problem's spot should have held.
        got: What it held instead.
    """

    code: ClassVar[str] = "decode_error"


@final
class SchemaError(MismatchError, ValueError):
    """A JSON Schema this library will not run: invalid, unresolvable or too slow.

    Raised when a schema is checked (`check` of a turn file) or first used
    to check a value (`validate_resume`, the builders of `PendingInterrupt`).
    A `Tool`'s schema dict that is refused raises an `ArgumentTypeError`
    whose ``__cause__`` is this error.

    Attributes:
        problems: Every `Mismatch` found, with JSON paths into the schema.
        path: The first problem's JSON path (``$.minLength``).
        expected: What the first problem's spot should have held.
        got: What it held instead.
        message: The problems, joined with ``"; "``.
    """

    code: ClassVar[str] = "schema_error"

    @property
    def mismatches(self) -> tuple[Mismatch, ...]:
        """The problems (the name this error has always had for them)."""
        return self.problems

    @property
    def message(self) -> str:
        """Every problem, joined with ``"; "``."""
        return "; ".join(str(mismatch) for mismatch in self.problems)


class SessionBusy(InterruptionError, RuntimeError):
    """A session cannot take new messages now (a web handler's 409).

    Attributes:
        session: The session's id.
    """

    code: ClassVar[str] = "session_busy"

    def __init__(self, session: str, message: str) -> None:
        super().__init__(message)
        self.session = session


@final
class SessionPaused(SessionBusy):
    """The session's turn awaits answers: resume it (or let it expire)."""

    code: ClassVar[str] = "session_paused"


@final
class ContinuationUnfinished(SessionBusy):
    """A continuation is unfinished: wait for it, or `recover` after a crash."""

    code: ClassVar[str] = "continuation_unfinished"


@final
class PauseRefused(InterruptionError, ValueError):
    """A tool raised a pause that the loop does not take from a tool.

    It counts as the tool's failure: with ``on_tool_error="respond"`` the
    model is told, with ``"raise"`` this is raised (its ``__cause__`` is the
    refused `Interrupted`, whose traceback shows where the tool raised it).
    A `ValueError`: the pause is an `Interrupted` of a valid kind, but not a
    value the loop may take from this call.

    Attributes:
        name: The tool's name.
        ref: The tool call's ref.
        kind: The refused pause's kind.
    """

    code: ClassVar[str] = "pause_refused"

    def __init__(
        self, name: str, ref: str, kind: InterruptionKind, message: str
    ) -> None:
        super().__init__(message)
        self.name = name
        self.ref = ref
        self.kind = kind


@final
class ProblemCode(enum.StrEnum):
    """Why a resume entry was rejected; stable strings, safe to match on."""

    UNKNOWN_INTERRUPT = "unknown_interrupt"
    """No pending interrupt has this (name, ref)."""
    NOT_INTERRUPTED = "not_interrupted"
    """The target finished in the batch: it has a completed output."""
    DUPLICATE = "duplicate"
    """Two entries answer the same interrupt."""
    CONFLICT = "conflict"
    """One interrupt is both responded to and restarted."""
    MISSING = "missing"
    """A pending interrupt got no answer and partial resumes are off."""
    ANSWER_NOT_ACCEPTED = "answer_not_accepted"
    """The interrupt does not accept this kind of answer."""
    INPUT_MODIFIED = "input_modified"
    """A restart changed the input of a tool that did not opt in."""
    SCHEMA_VIOLATION = "schema_violation"
    """An output, resumed value or replaced input fails its JSON Schema."""
    EXPIRED = "expired"
    """The interrupt is past its ``expires_at``."""
    CONSUMED = "consumed"
    """The turn was already resumed: a replay."""
    BAD_TOKEN = "bad_token"  # noqa: S105 - a problem code, not a secret
    """A sealed turn's token does not verify."""
    NOT_AUTHORIZED = "not_authorized"
    """The authorizer refused this principal for the turn; nothing else is said."""
    NOTHING_PENDING = "nothing_pending"
    """The turn has no pending interrupt: there is nothing to resume."""
    UNKNOWN_SESSION = "unknown_session"
    """The session never paused (or does not exist): nothing to resume."""
    UNKNOWN_TURN = "unknown_turn"
    """The session has no turn with this id."""


@final
@attrs.frozen
class Problem:
    """One reason a resume was rejected.

    Attributes:
        code: The stable reason.
        message: A sentence for a person: what was expected, what was got.
        index: The entry's position in its list (``respond`` or ``restart``),
            or ``None`` when the problem concerns no entry (``missing``).
        answer: Which list the entry sits in, or ``None``.
        interrupt_id: The pending interrupt concerned, or ``None`` when the
            entry matches none.
    """

    code: ProblemCode
    message: str = attrs.field(validator=string)
    index: int | None = None
    answer: str | None = attrs.field(default=None, validator=optional_string)
    interrupt_id: str | None = attrs.field(default=None, validator=optional_string)

    def __str__(self) -> str:
        if self.answer is not None:
            where = f" at {self.answer}[{self.index}]"
        elif self.interrupt_id is not None:
            where = f" for {self.interrupt_id}"
        else:
            where = ""
        return f"{self.code.value}{where}: {self.message}"


@final
class ResumeRejected(InterruptionError, ValueError):
    """A resume does not fit what is pending; every problem is listed.

    Attributes:
        problems: Every `Problem` found, in entry order (each with its own
            `Problem.code`).
    """

    code: ClassVar[str] = "resume_rejected"
    problems: tuple[Problem, ...]

    def __init__(self, problems: Iterable[Problem]) -> None:
        found = tuple(problems)
        if not found:
            raise InvalidArgument(
                "ResumeRejected: problems", "at least one Problem", "none"
            )
        super().__init__(found)
        self.problems = found

    @classmethod
    def of(
        cls, code: ProblemCode, message: str, *, interrupt_id: str | None = None
    ) -> Self:
        """Build a rejection of one problem that concerns no resume entry.

        The one way to reject for a single reason (a bad token, a replay, a
        refused principal, an answer a builder cannot make).

        Args:
            code: The stable reason.
            message: What was expected, what was got.
            interrupt_id: The pending interrupt concerned, or None.

        Returns:
            The rejection, to raise.
        """
        return cls([Problem(code, message, interrupt_id=interrupt_id)])

    @property
    def codes(self) -> tuple[ProblemCode, ...]:
        """The problems' codes, in order."""
        return tuple(problem.code for problem in self.problems)

    def __str__(self) -> str:
        if len(self.problems) == 1:
            return f"resume rejected: {self.problems[0]}"
        lines = "\n".join(f"  {problem}" for problem in self.problems)
        return f"resume rejected, {len(self.problems)} problems:\n{lines}"


@final
class ArgumentTypeError(InvalidArgument, TypeError):
    """An argument a caller passed is of a type the call does not take.

    An `InvalidArgument` and a `TypeError` both: ``except InvalidArgument``
    and ``except TypeError`` catch it (a string where a collection of names
    is expected, an approver that answers something that is not a decision).
    Its pieces are an `InvalidArgument`'s.

    Attributes:
        code: ``"argument_type_error"``, stable.
    """

    code: ClassVar[str] = "argument_type_error"


@final
class EventLoopRunning(InterruptionError, RuntimeError):
    """A blocking twin was called in a thread whose event loop is running.

    Raised by ``generate_sync``, ``Session.send_sync`` and the adapters'
    ``*_sync`` twins before anything ran: await the asynchronous function
    instead. A `RuntimeError`, as `asyncio.run` raises in that place.

    Attributes:
        code: ``"event_loop_running"``, stable.
        where: The asynchronous function to await instead.
    """

    code: ClassVar[str] = "event_loop_running"

    def __init__(self, where: str) -> None:
        super().__init__(
            f"{where}: expected no running event loop in this thread, got one: "
            f"await {where} instead"
        )
        self.where = where

    def __reduce__(self) -> tuple[type[EventLoopRunning], tuple[str]]:
        return type(self), (self.where,)


@final
class SessionInUse(SessionBusy):
    """Another send or recovery holds this session's lease in the store.

    Calls that run the loop hold the lease while they run, across
    processes. Raised before anything ran (try again when the other ends),
    or at a step of a call that outlasted its lease and lost it (nothing
    more is written).

    Attributes:
        code: ``"session_in_use"``, stable.
        session: The session's id.
    """

    code: ClassVar[str] = "session_in_use"


@final
class TurnIdTaken(InterruptionError, ValueError):
    """A store already holds a turn with this id or a later one; nothing written.

    Attributes:
        code: ``"turn_id_taken"``, stable.
        session: The session.
        turn_id: The id that was refused.
    """

    code: ClassVar[str] = "turn_id_taken"

    def __init__(self, session: str, turn_id: int, message: str) -> None:
        super().__init__(message)
        self.session = session
        self.turn_id = turn_id


StoreState: TypeAlias = Literal["closed", "schema_newer", "busy", "unreachable"]
"""Why a store cannot be used: it was closed; its database's schema is newer
than this library's (upgrade the library); it is busy (no pooled connection was
free, or SQLite's lock was not had, within the store's timeout: retry later);
or its server cannot be reached or dropped the connection (a write in flight
then may or may not have been committed: read the state back, or retry the
same call, which a spent pause answers ``consumed``)."""


@final
class StoreUnavailable(InterruptionError, RuntimeError):
    """A store that cannot be used: closed, too new, busy or unreachable.

    Every failure of a store's infrastructure reaches the caller as this
    error, whatever the driver (the driver's own error is its ``__cause__``).

    Attributes:
        code: ``"store_unavailable"``, stable.
        store: Which store (a SQLite file's path, a PostgreSQL schema).
        reason: ``"closed"``, ``"schema_newer"``, ``"busy"`` or
            ``"unreachable"`` (`StoreState`).
        detail: What went wrong, without the store's name.
    """

    code: ClassVar[str] = "store_unavailable"

    def __init__(self, store: str, reason: StoreState, message: str) -> None:
        super().__init__(f"{store}: {message}")
        self.store = store
        self.reason: StoreState = reason
        self.detail = message


@final
class ExtraMissing(InterruptionError, ImportError):
    """A name used without the optional dependency (the extra) it needs.

    `PostgresStore` without psycopg raises it when it is constructed; the
    name itself can be imported and probed (``hasattr``) on any install.

    Attributes:
        code: ``"extra_missing"``, stable.
        needed_by: What needs the extra
            (``"interruption.runtime.store.PostgresStore"``).
        extra: The extra to install (``"postgres"``).
    """

    code: ClassVar[str] = "extra_missing"

    def __init__(self, needed_by: str, extra: str, cause: str) -> None:
        super().__init__(
            f"{needed_by} needs the [{extra}] extra: "
            f"pip install 'interruption[{extra}]' ({cause})"
        )
        self.needed_by = needed_by
        self.extra = extra
