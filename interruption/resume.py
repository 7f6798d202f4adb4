"""What is pending, and how a client answers it.

A `PendingInterrupt` is what a client sees: why the dispatch paused, what to
show, which tool call it concerns, and which answers it `Accepts`. A client
answers with a `Resume` of `Respond` entries (the client supplies the tool's
result) and `Restart` entries (the tool runs again, with ``resumed`` data).
The builders on `PendingInterrupt` make those entries and check them locally;
the server checks again with `validate_resume`.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Final, TypeVar, final

import attrs

from interruption._json import JSON, json_equal
from interruption._validators import (
    NON_EMPTY,
    input_json,
    non_empty,
    output_json,
    payload_json,
    resumed_json,
    wrong_type,
)
from interruption.decisions import (
    DECISION_SCHEMA,
    DECISIONS,
    Approve,
    Reject,
    decision_mismatches,
    decision_to_json,
    is_rejection,
)
from interruption.errors import (
    FieldError,
    FieldTypeError,
    Problem,
    ProblemCode,
    ResumeRejected,
)
from interruption.kinds import ApprovalPending, InterruptionKind, tag_of
from interruption.parts import Message, ToolRequest, ToolResponse
from interruption.schemas import (
    JSONSchema,
    SchemaGroups,
    conforms,
    group_check,
    schema_mismatches,
    schema_value,
    text_of,
)
from interruption.wire import structure

__all__ = [
    "Accepts",
    "ExpiryAnswer",
    "InterruptedTurn",
    "PendingInterrupt",
    "PendingTurn",
    "Respond",
    "Restart",
    "Resume",
    "accepts_of_kind",
]

T = TypeVar("T")
E = TypeVar("E", "Respond", "Restart")


def respond_schema(value: JSONSchema | None) -> JSONSchema | None:
    """Convert `Accepts.respond`: None, or the schema's value (`schema_value`).

    Raises:
        FieldError: if *value* is not a JSON object.
        PayloadError: naming every path in it that is not JSON.
    """
    return None if value is None else schema_value(value, "respond")


def restart_schema(value: JSONSchema | None) -> JSONSchema | None:
    """Convert `Accepts.restart` (see `respond_schema`)."""
    return None if value is None else schema_value(value, "restart")


def replace_input_schema(value: JSONSchema | None) -> JSONSchema | None:
    """Convert `Accepts.replace_input` (see `respond_schema`)."""
    return None if value is None else schema_value(value, "replace_input")


@final
@attrs.frozen
class Accepts:
    """Which answers a pending interrupt accepts, and their shapes.

    ``None`` means the answer is not accepted at all; a schema (``{}`` for
    any JSON) means it is, if it fits.

    A schema is a JSON object, checked when the record is built. The record
    keeps its own deep-frozen copy (a `dict` that raises `TypeError` on any
    change): changing the dict handed over changes neither the record nor
    any verdict, and schemas spelled alike share one immutable value, whose
    compiled check is found by its JSON text.

    Attributes:
        respond: The schema of a client-supplied result (the tool's output
            schema), or None when a client may not supply one.
        restart: The schema of ``resumed`` on a restart, or None when the
            tool may not run again.
        replace_input: The tool's input schema when a restart may replace the
            input, or None when the input must stay as it was.
    """

    respond: JSONSchema | None = attrs.field(default=None, converter=respond_schema)
    restart: JSONSchema | None = attrs.field(default=None, converter=restart_schema)
    replace_input: JSONSchema | None = attrs.field(
        default=None, converter=replace_input_schema
    )


@final
@attrs.frozen
class Respond:
    """Answer an interrupt by supplying the tool's result.

    Attributes:
        name: The tool's name.
        ref: The tool call's ref.
        output: The result, checked against the tool's output schema.
    """

    name: str = attrs.field(validator=non_empty, metadata=NON_EMPTY)
    ref: str = attrs.field(validator=non_empty, metadata=NON_EMPTY)
    output: JSON = attrs.field(converter=output_json)


@final
@attrs.frozen
class Restart:
    """Answer an interrupt by running the tool again.

    Attributes:
        name: The tool's name.
        ref: The tool call's ref.
        resumed: Data for the tool's second run (`ToolContext.resumed`), or
            an approval decision.
        input: A replacement input, or None to keep the original; only tools
            that opted in accept a different one.
    """

    name: str = attrs.field(validator=non_empty, metadata=NON_EMPTY)
    ref: str = attrs.field(validator=non_empty, metadata=NON_EMPTY)
    resumed: JSON = attrs.field(default=None, converter=resumed_json)
    input: JSON = attrs.field(default=None, converter=input_json)


_DECISION: Final = schema_value(DECISION_SCHEMA, "restart")
"""`DECISION_SCHEMA` as `Accepts` holds it: one immutable value, shared."""


def _approval(replace_input: JSONSchema | None) -> Accepts:
    return Accepts(restart=_DECISION, replace_input=replace_input)


APPROVAL_ONLY: Final = _approval(None)
"""What a pause of the approval kind accepts when it declared no
``replace_input`` (the loop's own approvals): see `accepts_of_kind`."""


def accepts_of_kind(kind: InterruptionKind, declared: Accepts) -> Accepts:
    """What a pause of *kind* accepts, given what whoever paused *declared*.

    The one place the approval rule is written: a pause of the approval
    kind, whoever raised it, accepts only a restart carrying an approval
    decision (`DECISION_SCHEMA`); a client-made result would skip the
    approval. Its declared ``replace_input`` stands: the schema a human's
    edited input must fit, when whoever paused declared one (an adapter
    whose framework lets a reviewer edit the call); None, the loop's own
    approvals, means the input may not change. Every other kind accepts
    what was declared.

    `PendingInterrupt` applies it to its `PendingInterrupt.accepts` when it
    is built, whatever builds it (a tool, an adapter, the decoder reading a
    stored turn), so no reader needs to apply it again.

    Args:
        kind: How the call paused.
        declared: What whoever paused declared it accepts.

    Returns:
        What it really accepts.
    """
    if not isinstance(kind, ApprovalPending):
        return declared
    replace = declared.replace_input
    if declared.respond is None and declared.restart is _DECISION:
        return declared  # already so: shared, not rebuilt
    return APPROVAL_ONLY if replace is None else _approval(replace)


def _an_accepts(_: object, attribute: attrs.Attribute[Accepts], value: object) -> None:
    """Validate that a field holds an `Accepts`.

    Raises:
        FieldTypeError: if it does not (a `TypeError` too).
    """
    if type(value) is not Accepts:
        raise wrong_type(attribute.name, "an Accepts", value)


def _entries_of(field: str, cls: type[T], entries: object) -> tuple[T, ...]:
    """*entries* as a tuple, each one a *cls*; else `FieldTypeError` naming it."""
    if isinstance(entries, str | bytes | dict) or not isinstance(entries, Iterable):
        expected = f"a sequence of {cls.__name__}"
        raise FieldTypeError(field, expected, type(entries).__name__)
    values = tuple(entries)
    for index, value in enumerate(values):
        if not isinstance(value, cls):
            raise FieldTypeError(
                f"{field}[{index}]", cls.__name__, type(value).__name__
            )
    return values


def _tuple_of_responds(entries: Iterable[Respond]) -> tuple[Respond, ...]:
    return _entries_of("respond", Respond, entries)


def _tuple_of_restarts(entries: Iterable[Restart]) -> tuple[Restart, ...]:
    return _entries_of("restart", Restart, entries)


@final
@attrs.frozen
class Resume:
    """A client's answers to the interrupts of one turn.

    Attributes:
        respond: Results the client supplies.
        restart: Tool calls to run again.
    """

    respond: tuple[Respond, ...] = attrs.field(default=(), converter=_tuple_of_responds)
    restart: tuple[Restart, ...] = attrs.field(default=(), converter=_tuple_of_restarts)


@final
@attrs.frozen
class ExpiryAnswer:
    """The answer that stands when an interrupt expires unanswered.

    The interrupt protocol's rule: a closed dialog means "No", an empty
    field means ``""``. A session that allows it resolves an expired
    interrupt with this output, as if the client had responded with it.

    Attributes:
        output: The tool result it stands for.
    """

    output: JSON = attrs.field(converter=output_json)


@final
@attrs.frozen
class PendingInterrupt:
    """One paused tool call (or node), as a client sees it.

    Attributes:
        id: Unique within its turn (the tool call's ref in the loop).
        kind: Why it paused.
        payload: What to show the human.
        tool: The tool call concerned, or None for a pause outside a tool.
        accepts: Which answers it accepts, with their schemas: what it
            was built with, its kind's rule applied (`accepts_of_kind`: a
            pause of the approval kind accepts only a restart carrying a
            decision, whatever it was built with).
        expires_at: When it stops accepting answers, or None.
        on_expiry: The answer that stands once it expired, or None when
            expiry means rejection.
    """

    id: str = attrs.field(validator=non_empty, metadata=NON_EMPTY)
    kind: InterruptionKind
    payload: JSON = attrs.field(converter=payload_json)
    tool: ToolRequest | None
    accepts: Accepts = attrs.field(validator=_an_accepts)
    expires_at: datetime | None = None
    on_expiry: ExpiryAnswer | None = None

    def __attrs_post_init__(self) -> None:
        """Apply the kind's rule to `accepts` (`accepts_of_kind`), whoever builds it.

        An `on_expiry` answer must be one this pause accepts, a result that
        fits ``accepts.respond``: it stands for the human's answer.

        Raises:
            FieldError: for an `on_expiry` this pause would refuse.
        """
        accepts = accepts_of_kind(self.kind, self.accepts)
        if accepts is not self.accepts:
            object.__setattr__(self, "accepts", accepts)  # its own field, once
        if self.on_expiry is not None:
            standing = Respond(self.name, self.ref, self.on_expiry.output)
            problems = self.problems_with(standing)
            if problems:
                expected = "an answer this pause accepts (a result it takes)"
                raise FieldError("on_expiry", expected, problems[0].message)

    @property
    def name(self) -> str:
        """The name an answer must carry: the tool's, or the kind's tag.

        A pause outside a tool (a graph node's) has no tool name; its kind's
        wire tag (``"scheduled_pause"``) stands in, since `Respond` and
        `Restart` need a non-empty name.
        """
        return answer_key(self)[0]

    @property
    def allowed(self) -> Accepts:
        """What this pause accepts: `accepts`, under the name it had before.

        `accepts` has its kind's rule applied when the record is built
        (`accepts_of_kind`), so the two are the same.
        """
        return self.accepts

    @property
    def ref(self) -> str:
        """The ref an answer must carry: the tool call's, or the id."""
        return answer_key(self)[1]

    def payload_as(self, cls: type[T]) -> T:
        """Decode the payload into *cls*, strictly (e.g. `Confirm`).

        Raises:
            DecodeError: if the payload does not fit *cls*.
        """
        return structure(self.payload, cls)

    def respond(self, output: JSON) -> Respond:
        """Answer with a result, checked against the accepted schema.

        Args:
            output: The tool's result.

        Returns:
            The entry for `Resume.respond`.

        Raises:
            ResumeRejected: with every problem `problems_with` finds: this
                interrupt accepts no result (``answer_not_accepted``) or
                *output* does not fit (``schema_violation``).
        """
        return self._checked(Respond(self.name, self.ref, output))

    def restart(self, resumed: JSON = None, *, replace_input: JSON = None) -> Restart:
        """Answer by running the tool again.

        Args:
            resumed: Data for the second run, checked against the schema.
            replace_input: A new input, for tools that accept one.

        Returns:
            The entry for `Resume.restart`.

        Raises:
            ResumeRejected: with every problem `problems_with` finds: this
                interrupt accepts no restart (``answer_not_accepted``),
                *resumed* or *replace_input* does not fit
                (``schema_violation``), or the input may not change
                (``input_modified``).
        """
        return self._checked(Restart(self.name, self.ref, resumed, replace_input))

    def approve(self, note: str | None = None) -> Restart:
        """Approve a paused tool call (`ApprovalPending`).

        Raises:
            ResumeRejected: if this interrupt takes no approval decision.
        """
        return self._decide(Approve(note))

    def reject(self, reason: str) -> Restart:
        """Refuse a paused tool call; the model is told *reason*.

        Raises:
            FieldError: if *reason* is empty (an `InterruptionError` too).
            ResumeRejected: if this interrupt takes no approval decision.
        """
        return self._decide(Reject(reason))

    def problems_with(
        self,
        entry: Respond | Restart,
        index: int | None = None,
        *,
        checks: SchemaGroups | None = None,
    ) -> tuple[Problem, ...]:
        """Every way *entry* fails this interrupt's own rules.

        The one rule set that the builders (`respond`, `restart`) and the
        server's `validate_resume` share: the kind of answer must be one
        this pause accepts (`accepts`), its values must fit their schemas,
        and a restart may change the input only of a tool that opted in.
        Whether *entry* targets this interrupt (its name and ref), answers
        it twice, or arrives too late is the turn's business.

        Args:
            entry: A `Respond` or a `Restart` for this interrupt.
            index: The entry's position in its list of a `Resume`: the
                problems then name it, and their paths read
                ``$.restart[0].resumed`` instead of ``$.resumed``.
            checks: Where to put the checks of values against schemas,
                instead of making them (`group_check`), so that a caller
                with many entries runs each distinct schema once
                (`conforming_groups`). The problems returned are then every
                other one: *entry* fits if there are none and every check
                holds. None makes the checks here.

        Returns:
            The problems, in field order; empty when *entry* fits.

        Raises:
            SchemaError: if one of the schemas cannot be run (when the
                checks are made here).
        """
        accepts = self.accepts
        if type(entry) is Respond:
            schema = accepts.respond
            if schema is None:
                return (self._not_accepted("respond", index),)
            if _fits(entry.output, schema, checks):  # the common case, first
                return ()
            return (self._misfit(entry.output, schema, "respond.output", index),)
        schema = accepts.restart
        if schema is None:
            return (self._not_accepted("restart", index),)
        found: tuple[Problem, ...] = ()
        if not _fits(entry.resumed, schema, checks):
            found = (self._misfit(entry.resumed, schema, "restart.resumed", index),)
        if entry.input is not None:
            found += self._new_input(entry.input, index, entry.resumed, checks)
        return found

    def fits(self, entry: Respond | Restart) -> bool:
        """Tell whether *entry* meets this interrupt's own rules.

        The verdict of `problems_with`: no problem means it fits.

        Raises:
            SchemaError: if one of the schemas cannot be run.
        """
        return not self.problems_with(entry)

    def _problem(
        self, code: ProblemCode, message: str, answer: str, index: int | None
    ) -> Problem:
        where = None if index is None else answer
        return Problem(code, message, index, where, self.id)

    def _not_accepted(self, answer: str, index: int | None) -> Problem:
        accepts = self.accepts
        accepted = " or ".join(
            name
            for name, schema in (
                ("a respond", accepts.respond),
                ("a restart", accepts.restart),
            )
            if schema is not None
        )
        message = (
            f"{self.id} ({tag_of(self.kind)}): expected {accepted or 'no answer'}, "
            f"got a {answer}"
        )
        return self._problem(ProblemCode.ANSWER_NOT_ACCEPTED, message, answer, index)

    def _misfit(
        self, value: JSON, schema: JSONSchema, field: str, index: int | None
    ) -> Problem:
        """The ``schema_violation`` of *field* (``"restart.input"``)."""
        answer, _, name = field.partition(".")
        where = "$" if index is None else f"$.{answer}[{index}]"
        path = f"{where}.{name}"
        decision = text_of(schema) == _DECISION_TEXT
        found = decision_mismatches(value, path) if decision else []
        message = "; ".join(str(mismatch) for mismatch in found)
        if found and found[0].path != path:  # a part of a decision: say the whole
            message += f" (a decision is {DECISIONS})"
        if not found:
            found = schema_mismatches(value, schema, path)
            message = "; ".join(str(mismatch) for mismatch in found)
        return self._problem(ProblemCode.SCHEMA_VIOLATION, message, answer, index)

    def _new_input(
        self,
        replaced: JSON,
        index: int | None,
        resumed: JSON,
        checks: SchemaGroups | None,
    ) -> tuple[Problem, ...]:
        """The problems of a restart's new input: it fits, or is the original.

        A rejection runs nothing, so it takes no new input even where an
        approval could (an edited call).
        """
        schema = _replace_schema(self, resumed)
        if schema is not None:
            if _fits(replaced, schema, checks):
                return ()
            return (self._misfit(replaced, schema, "restart.input", index),)
        if json_equal(replaced, _input_of(self)):
            return ()
        message = (
            f"{self.name} takes no new input: expected the original input or "
            "none, got another"
        )
        return (self._problem(ProblemCode.INPUT_MODIFIED, message, "restart", index),)

    def _checked(self, entry: E) -> E:
        problems = self.problems_with(entry)
        if problems:
            raise ResumeRejected(problems)
        return entry

    def _decide(self, decision: Approve | Reject) -> Restart:
        match self.kind:
            case ApprovalPending():
                return self.restart(decision_to_json(decision))
            case _:
                message = (
                    f"{self.id}: expected an approval_pending pause to decide "
                    f"on, got a {tag_of(self.kind)} pause"
                )
                raise ResumeRejected.of(
                    ProblemCode.ANSWER_NOT_ACCEPTED, message, interrupt_id=self.id
                )


def _fits(value: JSON, schema: JSONSchema, checks: SchemaGroups | None) -> bool:
    """Whether *value* fits *schema*, or True once the check is put in *checks*."""
    if checks is None:
        return conforms(value, schema)
    group_check(checks, value, schema)
    return True


def _replace_schema(pending: PendingInterrupt, resumed: JSON) -> JSONSchema | None:
    """The schema a restart's new input must fit, or None: only the original.

    A rejection runs nothing, so it takes no new input even where an
    approval could (an edited call).
    """
    return None if is_rejection(resumed) else pending.accepts.replace_input


def _input_of(pending: PendingInterrupt) -> JSON:
    """The input of the paused call, or None for a pause outside a tool."""
    return pending.tool.input if pending.tool is not None else None


def answer_key(pending: PendingInterrupt) -> tuple[str, str]:
    """The name and the ref an answer to *pending* must carry.

    `PendingInterrupt.name` and `PendingInterrupt.ref` at once (both are
    read from here): how `validate_resume` matches entries to interrupts.
    """
    tool = pending.tool
    if tool is None:
        return tag_of(pending.kind), pending.id
    ref = tool.ref
    return tool.name, ref if ref is not None else pending.id


_DECISION_TEXT: Final = text_of(_DECISION)
"""The text of `DECISION_SCHEMA`: a schema spelled so is worded as a decision."""


def _one_answer_each(
    _: object, attribute: attrs.Attribute[object], interrupts: object
) -> None:
    """Refuse interrupts an answer could not tell apart.

    An answer names its interrupt by tool name and ref (`answer_key`), a
    problem by id: two interrupts alike in either could not each get their
    own answer (one entry would answer both, or one be left out unseen).

    Raises:
        FieldError: naming the first repeat (or what is not an interrupt).
    """
    if not isinstance(interrupts, tuple):
        expected = "a tuple of PendingInterrupt"
        raise FieldError(attribute.name, expected, type(interrupts).__name__)
    ids: set[str] = set()
    keys: set[tuple[str, str]] = set()
    for pending in interrupts:
        if not isinstance(pending, PendingInterrupt):
            expected = "a tuple of PendingInterrupt"
            raise FieldError(attribute.name, expected, f"a {type(pending).__name__}")
        key = answer_key(pending)
        if pending.id in ids or key in keys:
            same = f"the id {pending.id!r}" if pending.id in ids else None
            same = same or f"the name {key[0]!r} with the ref {key[1]!r}"
            expected = "interrupts with distinct ids, names and refs"
            raise FieldError(attribute.name, expected, f"{same} twice")
        ids.add(pending.id)
        keys.add(key)


@final
@attrs.frozen
class InterruptedTurn:
    """The authoritative record of a paused turn (kept by the server).

    Attributes:
        session: The session it belongs to.
        turn_id: Counts the session's interrupted turns, from 1.
        messages: The full history up to the pause.
        interrupts: What is pending.
        completed: Results of the batch's tools that finished; they are
            reused on resume, never run again.
        created_at: When it paused.
        expires_at: When the whole turn stops accepting answers, or None.
        approved: Refs of calls a human approved earlier in this dispatch,
            so that restarting one does not ask again.
    """

    session: str = attrs.field(validator=non_empty, metadata=NON_EMPTY)
    turn_id: int
    messages: tuple[Message, ...]
    interrupts: tuple[PendingInterrupt, ...] = attrs.field(validator=_one_answer_each)
    completed: tuple[ToolResponse, ...]
    created_at: datetime
    expires_at: datetime | None = None
    approved: tuple[str, ...] = ()

    def expiry_of(self, pending: PendingInterrupt) -> datetime | None:
        """When *pending* stops accepting answers: its own bound or the turn's.

        Args:
            pending: One of this turn's interrupts.

        Returns:
            The earlier of the two bounds, or None when neither is set.
        """
        mine, turns = pending.expires_at, self.expires_at
        if mine is None or turns is None:
            return turns if mine is None else mine
        return min(mine, turns)

    @property
    def closes_at(self) -> datetime | None:
        """When the last of this turn's interrupts stops accepting answers.

        None when one of them never does (a turn with no interrupt closes
        at its own `expires_at`).
        """
        if not self.interrupts:
            return self.expires_at
        moments = [self.expiry_of(pending) for pending in self.interrupts]
        if None in moments:
            return None
        return max(moment for moment in moments if moment is not None)


@final
@attrs.frozen
class PendingTurn:
    """What a client needs to render a paused session and answer it.

    One record, one published schema (``schemas/pending_turn.json``): a
    server returns it as it is (`dumps`), and the client echoes *turn_id*
    with its resume (a stale one is rejected as ``consumed``).

    Attributes:
        session: The session.
        turn_id: The turn to answer.
        interrupts: What is pending, each with the answers it accepts and
            its ``expires_at``: when it stops accepting answers (the
            earlier of its own bound and the turn's).
        expires_at: When the last interrupt stops accepting answers, or
            None when one never does.
    """

    session: str = attrs.field(validator=non_empty, metadata=NON_EMPTY)
    turn_id: int
    interrupts: tuple[PendingInterrupt, ...]
    expires_at: datetime | None = None

    @classmethod
    def of(cls, turn: InterruptedTurn) -> PendingTurn:
        """The pending view of *turn* (no history, nothing server-only)."""
        interrupts = tuple(
            attrs.evolve(pending, expires_at=turn.expiry_of(pending))
            for pending in turn.interrupts
        )
        return cls(turn.session, turn.turn_id, interrupts, turn.closes_at)
