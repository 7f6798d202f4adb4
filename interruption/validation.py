"""Resume validation: the security core.

`validate_resume` is a pure function of a client's `Resume` and the
*authoritative* `InterruptedTurn` (from a store or a verified token, never
from history the client sent back). It returns a `ResolvedResume`, or raises
`ResumeRejected` listing every problem, each with a stable `ProblemCode`, the
entry's position and the interrupt it concerns. Matching is by
``(name, ref)`` through dicts: linear in the size of resume and turn.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Literal, final

import attrs

from interruption._json import json_equal
from interruption._schemacheck import JSONSchema, conforms, schema_mismatches
from interruption.errors import Problem, ProblemCode, ResumeRejected
from interruption.resume import (
    InterruptedTurn,
    PendingInterrupt,
    Respond,
    Restart,
    Resume,
)

__all__ = ["Answer", "ResolvedResume", "ResumePolicy", "utc_now", "validate_resume"]

Key = tuple[str, str]


def utc_now() -> datetime:
    """Return the current time in UTC (the default clock)."""
    return datetime.now(UTC)


@final
@attrs.frozen
class ResumePolicy:
    """How strict a resume check is.

    Attributes:
        allow_partial: Whether interrupts may go unanswered; they then stay
            pending in a new turn instead of being ``missing``.
        now: The clock that decides expiry.
        expiry_answers: Whether an expired, unanswered interrupt that
            declares an `ExpiryAnswer` is resolved with it (instead of being
            ``missing``); a late entry for it is still ``expired``.
        authorize: ``(principal, pending) -> bool``; a refusal is a
            ``not_authorized`` problem for that entry. None allows everyone.
        principal: Who sends the resume, for *authorize*.
    """

    allow_partial: bool = False
    now: Callable[[], datetime] = utc_now
    expiry_answers: bool = False
    authorize: Callable[[str | None, PendingInterrupt], bool] | None = None
    principal: str | None = None


@final
@attrs.frozen
class Answer:
    """One pending interrupt and the entry that validly answers it.

    Attributes:
        interrupt: The pending interrupt.
        entry: The client's `Respond` or `Restart`.
    """

    interrupt: PendingInterrupt
    entry: Respond | Restart


@final
@attrs.frozen
class ResolvedResume:
    """A resume that passed every check.

    Attributes:
        turn: The turn it answers.
        answers: One per answered interrupt, in the turn's order.
        unanswered: Interrupts left pending (only with ``allow_partial``).
    """

    turn: InterruptedTurn
    answers: tuple[Answer, ...]
    unanswered: tuple[PendingInterrupt, ...]


class _Check:
    """One validation run; collects problems instead of stopping at the first."""

    def __init__(self, turn: InterruptedTurn, policy: ResumePolicy) -> None:
        self.turn = turn
        self.policy = policy
        self.now = policy.now()
        self.pending: dict[Key, PendingInterrupt] = {
            (pending.name, pending.ref): pending for pending in turn.interrupts
        }
        self.problems: list[Problem] = []
        self.chosen: dict[Key, tuple[Respond | Restart, int, str]] = {}

    def add(
        self,
        code: ProblemCode,
        message: str,
        index: int | None = None,
        answer: str | None = None,
        pending: PendingInterrupt | None = None,
    ) -> None:
        interrupt_id = pending.id if pending is not None else None
        self.problems.append(Problem(code, message, index, answer, interrupt_id))

    def entry(
        self,
        entry: Respond | Restart,
        index: int,
        answer: Literal["respond", "restart"],
    ) -> None:
        key = (entry.name, entry.ref)
        pending = self.pending.get(key)
        if pending is None:
            self.unmatched(entry, index, answer)
            return
        earlier = self.chosen.get(key)
        if earlier is not None:
            _, first, first_answer = earlier
            code = (
                ProblemCode.DUPLICATE
                if first_answer == answer
                else ProblemCode.CONFLICT
            )
            verb = "answers" if code is ProblemCode.DUPLICATE else "restarts what"
            message = (
                f"{answer}[{index}] {verb} {pending.id} "
                f"(already answered by {first_answer}[{first}])"
            )
            self.add(code, message, index, answer, pending)
            return
        self.chosen[key] = (entry, index, answer)
        if self.expired(pending):
            self.add(
                ProblemCode.EXPIRED,
                f"{pending.id} expired at {_when(self.expiry(pending))}",
                index,
                answer,
                pending,
            )
            return
        authorize = self.policy.authorize
        if authorize is not None and not authorize(self.policy.principal, pending):
            who = self.policy.principal or "an anonymous principal"
            message = f"{who} may not answer {pending.id} ({pending.name})"
            self.add(ProblemCode.NOT_AUTHORIZED, message, index, answer, pending)
            return
        if answer == "respond":
            self.respond(entry, pending, index)  # type: ignore[arg-type]
        else:
            self.restart(entry, pending, index)  # type: ignore[arg-type]

    def unmatched(self, entry: Respond | Restart, index: int, answer: str) -> None:
        completed = {(done.name, done.ref) for done in self.turn.completed}
        if (entry.name, entry.ref) in completed:
            message = (
                f"{entry.name} {entry.ref} finished in its batch; it is not paused"
            )
            self.add(ProblemCode.NOT_INTERRUPTED, message, index, answer)
            return
        owner = next((name for name, ref in self.pending if ref == entry.ref), None)
        if owner is not None:
            message = f"ref {entry.ref!r} belongs to {owner!r}, not {entry.name!r}"
        else:
            message = f"no pending interrupt is {entry.name!r} with ref {entry.ref!r}"
        self.add(ProblemCode.UNKNOWN_INTERRUPT, message, index, answer)

    def expiry(self, pending: PendingInterrupt) -> datetime | None:
        mine, turns = pending.expires_at, self.turn.expires_at
        if mine is None or turns is None:
            return turns if mine is None else mine
        return min(mine, turns)

    def expired(self, pending: PendingInterrupt) -> bool:
        moment = self.expiry(pending)
        return moment is not None and self.now >= moment

    def schema(  # noqa: PLR0913, PLR0917 - one call site per checked field
        self,
        value: object,
        schema: JSONSchema,
        what: str,
        index: int,
        answer: str,
        pending: PendingInterrupt,
    ) -> None:
        if conforms(value, schema):  # type: ignore[arg-type]
            return
        where = f"$.{answer}[{index}].{what}"
        found = schema_mismatches(value, schema, where)  # type: ignore[arg-type]
        if found:
            message = "; ".join(str(mismatch) for mismatch in found)
            self.add(ProblemCode.SCHEMA_VIOLATION, message, index, answer, pending)

    def respond(self, entry: Respond, pending: PendingInterrupt, index: int) -> None:
        schema = pending.accepts.respond
        if schema is None:
            message = (
                f"{pending.id} accepts no respond: a client-made result would "
                "skip it; restart it instead"
            )
            self.add(
                ProblemCode.ANSWER_NOT_ACCEPTED, message, index, "respond", pending
            )
            return
        self.schema(entry.output, schema, "output", index, "respond", pending)

    def restart(self, entry: Restart, pending: PendingInterrupt, index: int) -> None:
        schema = pending.accepts.restart
        if schema is None:
            message = f"{pending.id} accepts no restart; respond with a result instead"
            self.add(
                ProblemCode.ANSWER_NOT_ACCEPTED, message, index, "restart", pending
            )
            return
        self.schema(entry.resumed, schema, "resumed", index, "restart", pending)
        if entry.input is None:
            return
        original = pending.tool.input if pending.tool is not None else None
        replace = pending.accepts.replace_input
        if replace is not None:
            self.schema(entry.input, replace, "input", index, "restart", pending)
        elif not json_equal(entry.input, original):
            message = (
                f"{pending.name} does not accept a replaced input; leave input out"
            )
            self.add(ProblemCode.INPUT_MODIFIED, message, index, "restart", pending)


def _when(moment: datetime | None) -> str:
    return moment.isoformat() if moment is not None else "?"


def validate_resume(
    resume: Resume,
    turn: InterruptedTurn,
    *,
    policy: ResumePolicy | None = None,
) -> ResolvedResume:
    """Check a client's resume against the authoritative turn.

    Args:
        resume: What the client sent.
        turn: What is really pending (from the store or a verified token).
        policy: Partial resumes and the clock; the defaults are strict.

    Returns:
        The validated answers, in the turn's order.

    Raises:
        ResumeRejected: listing every problem found.
    """
    policy = policy or ResumePolicy()
    check = _Check(turn, policy)
    for index, respond in enumerate(resume.respond):
        check.entry(respond, index, "respond")
    for index, restart in enumerate(resume.restart):
        check.entry(restart, index, "restart")
    defaults: dict[Key, Respond] = {}
    if policy.expiry_answers:
        for key, pending in check.pending.items():
            if (
                key not in check.chosen
                and pending.on_expiry is not None
                and check.expired(pending)
            ):
                output = pending.on_expiry.output
                defaults[key] = Respond(pending.name, pending.ref, output)
    unanswered = tuple(
        pending
        for key, pending in check.pending.items()
        if key not in check.chosen and key not in defaults
    )
    if not policy.allow_partial:
        for pending in unanswered:
            message = f"{pending.id} ({pending.name}) got no answer"
            check.add(ProblemCode.MISSING, message, pending=pending)
    if check.problems:
        raise ResumeRejected(check.problems)
    answers = tuple(
        Answer(pending, check.chosen[key][0] if key in check.chosen else defaults[key])
        for key, pending in check.pending.items()
        if key in check.chosen or key in defaults
    )
    return ResolvedResume(turn, answers, unanswered)
