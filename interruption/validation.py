"""Resume validation: the security core.

`validate_resume` is a pure function of a client's `Resume` and the
*authoritative* `InterruptedTurn` (from a store or a verified token, never
from history the client sent back). It returns a `ResolvedResume`, or raises
`ResumeRejected` listing every problem, each with a stable `ProblemCode`, the
entry's position and the interrupt it concerns. Matching is by
``(name, ref)`` through dicts: linear in the size of resume and turn.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Final, Literal, TypeAlias, final

import attrs

from interruption.audit import AuditEvent
from interruption.errors import Problem, ProblemCode, ResumeRejected
from interruption.resume import (
    InterruptedTurn,
    PendingInterrupt,
    Respond,
    Restart,
    Resume,
    answer_key,
)
from interruption.schemas import SchemaGroups, conforming_groups
from interruption.wire import wire_digest

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "Answer",
    "Authorize",
    "ResolvedResume",
    "ResumePolicy",
    "Spend",
    "audit_event",
    "authorize_shown",
    "authorize_turn",
    "consumed",
    "not_authorized",
    "nothing_shown",
    "rejected_codes",
    "utc_now",
    "validate_and_spend",
    "validate_resume",
]

Key = tuple[str, str]

Authorize: TypeAlias = Callable[[str | None, PendingInterrupt], bool | Awaitable[bool]]
"""``(principal, pending) -> bool``, sync or async: may this principal answer?

Only exactly ``True`` is consent: any other answer (``False``, ``None``, a
truthy string, an awaitable a synchronous check cannot await) refuses, and
so does an authorizer that raises.
"""

Spend: TypeAlias = Callable[["Resume"], Awaitable[bool]]
"""Spends an authoritative turn once: True for exactly one caller, ever.

It receives the answers that stand (the resume to keep for recovery).
"""


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
        authorize: An `Authorize` callback, asked about every interrupt
            of the turn before anything else is looked at: a principal
            answers a whole turn, so one refusal rejects the resume with a
            single ``not_authorized`` problem that names nothing pending.
            None allows everyone.
        principal: Who sends the resume, for *authorize*.
    """

    allow_partial: bool = False
    now: Callable[[], datetime] = utc_now
    expiry_answers: bool = False
    authorize: Authorize | None = None
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

    @property
    def kept(self) -> Resume:
        """Every answer that stands (expiry answers included), as a `Resume`.

        This is what a store keeps when it spends the turn, so that recovery
        needs neither the client's resume nor a clock.
        """
        entries = [answer.entry for answer in self.answers]
        return Resume(
            respond=tuple(entry for entry in entries if isinstance(entry, Respond)),
            restart=tuple(entry for entry in entries if isinstance(entry, Restart)),
        )


_DEFAULT_POLICY: Final = ResumePolicy()
"""The strict policy, built once (it is frozen)."""


class _Check:
    """One validation run: each entry looked at once, every problem kept.

    The one path to a verdict: it matches every entry to what is pending
    by ``(name, ref)`` through a dict, checks it against its interrupt's own
    rules (`PendingInterrupt.problems_with`), and then what the turn as a
    whole requires (nothing missing). Its work is linear in the resume and
    the turn, accepted or rejected.

    With *checks*, the values' schema checks are put there instead of made
    (see `_resolve`).
    """

    def __init__(
        self,
        turn: InterruptedTurn,
        policy: ResumePolicy,
        now: datetime,
        checks: SchemaGroups | None,
    ) -> None:
        self.turn = turn
        self.policy = policy
        self.now = now
        self.checks = checks
        self.problems: list[Problem] = []
        self.pending = {answer_key(pending): pending for pending in turn.interrupts}
        self.chosen: dict[Key, tuple[Respond | Restart, int, str]] = {}
        # Built on the first unmatched entry, once: the rejection path stays
        # linear in the resume and the turn, however many entries miss.
        self._completed: set[Key] | None = None
        self._owners: dict[str, str] | None = None

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

    def entries(
        self,
        entries: Sequence[Respond | Restart],
        answer: Literal["respond", "restart"],
    ) -> None:
        """Check each of *entries*, the resume's list *answer*, in order."""
        pending, chosen, found = self.pending, self.chosen, self.problems
        now, turn, checks = self.now, self.turn, self.checks
        for index, entry in enumerate(entries):
            key = (entry.name, entry.ref)
            target = pending.get(key)
            if target is None:
                self.unmatched(entry, index, answer)
                continue
            earlier = chosen.get(key)
            if earlier is not None:
                self.again(target, earlier, index, answer)
                continue
            chosen[key] = (entry, index, answer)
            ends = turn.expiry_of(target)
            if ends is not None and now >= ends:
                message = f"{target.id} expired at {ends.isoformat()}"
                self.add(ProblemCode.EXPIRED, message, index, answer, target)
                continue
            found += target.problems_with(entry, index, checks=checks)

    def again(
        self,
        pending: PendingInterrupt,
        earlier: tuple[Respond | Restart, int, str],
        index: int,
        answer: str,
    ) -> None:
        """An entry for *pending*, which an *earlier* entry answers already."""
        _, first, first_answer = earlier
        code = ProblemCode.DUPLICATE if first_answer == answer else ProblemCode.CONFLICT
        verb = "answers" if code is ProblemCode.DUPLICATE else "restarts what"
        message = (
            f"{answer}[{index}] {verb} {pending.id} "
            f"(already answered by {first_answer}[{first}])"
        )
        self.add(code, message, index, answer, pending)

    def unmatched(self, entry: Respond | Restart, index: int, answer: str) -> None:
        """An entry that answers nothing pending."""
        if self._completed is None:
            self._completed = {(done.name, done.ref) for done in self.turn.completed}
            self._owners = {ref: name for name, ref in self.pending}
        if (entry.name, entry.ref) in self._completed:
            message = (
                f"{entry.name} {entry.ref} finished in its batch; it is not paused"
            )
            self.add(ProblemCode.NOT_INTERRUPTED, message, index, answer)
            return
        owner = self._owners.get(entry.ref) if self._owners is not None else None
        if owner is not None:
            message = f"ref {entry.ref!r} belongs to {owner!r}, not {entry.name!r}"
        else:
            message = f"no pending interrupt is {entry.name!r} with ref {entry.ref!r}"
        self.add(ProblemCode.UNKNOWN_INTERRUPT, message, index, answer)

    def expired(self, pending: PendingInterrupt) -> bool:
        moment = self.turn.expiry_of(pending)
        return moment is not None and self.now >= moment

    def run(self, resume: Resume) -> ResolvedResume | None:
        """Check every entry of *resume*, then the turn as a whole.

        Returns:
            The answers, or None when a problem was found (`problems`).
        """
        turn, policy, chosen = self.turn, self.policy, self.chosen
        self.entries(resume.respond, "respond")
        self.entries(resume.restart, "restart")
        answers: list[Answer] = []
        unanswered: list[PendingInterrupt] = []
        for key, pending in self.pending.items():
            made = chosen.get(key)
            if made is not None:
                answers.append(Answer(pending, made[0]))
            elif (
                policy.expiry_answers
                and pending.on_expiry is not None
                and self.expired(pending)
            ):
                output = Respond(pending.name, pending.ref, pending.on_expiry.output)
                answers.append(Answer(pending, output))
            else:
                unanswered.append(pending)
        if not policy.allow_partial:
            for pending in unanswered:
                message = f"{pending.id} ({pending.name}) got no answer"
                self.add(ProblemCode.MISSING, message, pending=pending)
        if self.problems:
            return None
        return ResolvedResume(turn, tuple(answers), tuple(unanswered))


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
        ResumeRejected: listing every problem found; or only
            ``not_authorized`` when the policy's authorizer refuses the
            principal (it is asked first, synchronously: an authorizer that
            returns an awaitable refuses here; `validate_and_spend` awaits
            it); or only ``nothing_pending`` for a turn with no interrupt.
    """
    policy = policy or _DEFAULT_POLICY
    if policy.authorize is not None:
        _authorize_sync(turn, policy.authorize, policy.principal)
    _require_pending(turn)
    return _resolve(resume, turn, policy)


def _resolve(
    resume: Resume, turn: InterruptedTurn, policy: ResumePolicy
) -> ResolvedResume:
    """The verdict on *resume*: its answers, or every problem it has.

    One run of `_Check` decides it, with the values' schema checks put
    aside and made at the end, each distinct schema run once over every
    value it must hold of (`conforming_groups`: a turn's interrupts of one
    tool share their schemas). When one of them fails, the same run is
    made again with every check made where it stands, to say which value
    fails and how, in the order of the entries.

    Raises:
        ResumeRejected: with every problem.
        SchemaError: if a schema cannot be run.
    """
    now = policy.now()
    checks: SchemaGroups = {}
    check = _Check(turn, policy, now, checks)
    resolved = check.run(resume)
    if conforming_groups(checks):
        if resolved is None:
            raise ResumeRejected(check.problems)
        return resolved
    # A group holds exactly when each of its values does: this run finds
    # the value that does not (and every other problem, in order).
    worded = _Check(turn, policy, now, None)
    worded.run(resume)
    raise ResumeRejected(worded.problems)


def not_authorized(principal: str | None) -> ResumeRejected:
    """The refusal of *principal*: ``not_authorized``, naming nothing pending."""
    who = repr(principal) if principal is not None else "an anonymous principal"
    message = f"{who} may not answer this turn"
    return ResumeRejected.of(ProblemCode.NOT_AUTHORIZED, message)


def _authorize_sync(
    turn: InterruptedTurn, authorize: Authorize, principal: str | None
) -> None:
    for pending in turn.interrupts:
        try:
            answer = authorize(principal, pending)
        except Exception as error:
            raise not_authorized(principal) from error
        if inspect.iscoroutine(answer):
            answer.close()  # never awaited: a synchronous check cannot
        if answer is not True:
            raise not_authorized(principal)


async def authorize_turn(
    turn: InterruptedTurn, authorize: Authorize | None, principal: str | None
) -> None:
    """Ask *authorize* about every interrupt of *turn*; fail closed.

    A principal answers a whole turn, so it must be allowed for each of its
    interrupts. The authorizer may be sync or async; only exactly ``True``
    is consent, and an authorizer that raises refuses.

    Args:
        turn: The authoritative turn.
        authorize: The callback, or None to allow everyone.
        principal: Who asks.

    Raises:
        ResumeRejected: one ``not_authorized`` problem that names nothing
            pending, so a refused principal learns nothing about the turn.
    """
    if authorize is None:
        return
    for pending in turn.interrupts:
        try:
            answer = authorize(principal, pending)
            if inspect.isawaitable(answer):
                answer = await answer
        except Exception as error:
            raise not_authorized(principal) from error
        if answer is not True:
            raise not_authorized(principal)


def nothing_shown(
    authorize: Authorize | None, principal: str | None
) -> ResumeRejected | None:
    """The verdict on *principal* where a door shows nothing to ask about.

    A door (an adapter, a bridge) that finds no pause at the scope a client
    names has nothing to put to the authorizer. With one, there is nothing
    it could allow, so every principal is refused (``not_authorized``), and
    learns nothing of what is kept, as `Session` answers for a session that
    never paused. Without one, nobody is refused for it: the door's own
    verdict stands (``unknown_interrupt``, ``bad_token``, ...).

    This is the one statement of that rule: `authorize_shown` and the
    adapters' doors all ask it.

    Args:
        authorize: The authorizer, or None.
        principal: Who asks.

    Returns:
        The refusal, or None when there is no authorizer.
    """
    return None if authorize is None else not_authorized(principal)


async def authorize_shown(
    turn: InterruptedTurn, authorize: Authorize | None, principal: str | None
) -> None:
    """`authorize_turn` for what a door shows, nothing shown included.

    The principal must be allowed for every interrupt of *turn* (what the
    framework shows, spent or not); when *turn* shows none, `nothing_shown`
    decides (with an authorizer, every principal is refused).

    Args:
        turn: What the door shows, as a turn.
        authorize: The callback, or None to allow everyone.
        principal: Who asks.

    Raises:
        ResumeRejected: one ``not_authorized`` problem that names nothing
            pending.
    """
    refused = None if turn.interrupts else nothing_shown(authorize, principal)
    if refused is not None:
        raise refused
    await authorize_turn(turn, authorize, principal)


def _require_pending(turn: InterruptedTurn) -> None:
    if not turn.interrupts:
        message = (
            f"turn {turn.turn_id} of session {turn.session!r} has nothing "
            "pending: there is nothing to resume"
        )
        raise ResumeRejected.of(ProblemCode.NOTHING_PENDING, message)


def consumed(turn: InterruptedTurn) -> ResumeRejected:
    """The rejection of a resume for a turn that was already spent."""
    message = f"turn {turn.turn_id} of session {turn.session!r} was already resumed"
    return ResumeRejected.of(ProblemCode.CONSUMED, message)


async def validate_and_spend(
    resume: Resume,
    turn: InterruptedTurn,
    spend: Spend,
    *,
    policy: ResumePolicy | None = None,
    spent: Callable[[], Awaitable[bool]] | None = None,
) -> ResolvedResume:
    """Authorize, validate, and only then spend the turn: the one sequence.

    Every path that resumes a turn (`Session`, a sealed token, an adapter)
    goes through here, so that a bad answer never burns a turn and a turn
    is spent at most once: the authorizer first (awaited if async; only
    ``True`` is consent), then `validate_resume` against the authoritative
    *turn*, then *spend* with the answers that stand.

    Args:
        resume: What the client sent.
        turn: The authoritative turn (from a store or a verified token).
        spend: The atomic compare-and-set that spends *turn*.
        policy: Partial resumes, the clock, expiry answers, authorization.
        spent: Tells, after authorization and before validation, whether
            the turn was spent already, so that a replay is ``consumed``
            whatever else is wrong with it; optional (*spend* decides).

    Returns:
        The validated answers, ready to continue.

    Raises:
        ResumeRejected: ``not_authorized`` alone if the principal is
            refused; every problem of the resume; or ``consumed`` when
            *spend* says the turn was spent already. Nothing was spent
            unless it returned.
    """
    policy = policy or ResumePolicy()
    await authorize_turn(turn, policy.authorize, policy.principal)
    if spent is not None and await spent():
        raise consumed(turn)
    resolved = validate_resume(
        resume, turn, policy=attrs.evolve(policy, authorize=None)
    )
    if not await spend(resolved.kept):
        raise consumed(turn)
    return resolved


def audit_event(  # noqa: PLR0913 - an attempt's parts
    turn: InterruptedTurn,
    kind: Literal["accepted", "rejected"],
    policy: ResumePolicy,
    resume: Resume,
    rejected: ResumeRejected | None = None,
    *,
    pending: tuple[str, ...] = (),
    reason: str | None = None,
) -> AuditEvent:
    """The audit trail's entry for one attempt at *turn*: who, when, what.

    *reason* is how an accepted answer came, when not a plain one
    (`AuditEvent.reason`).

    The principal and the clock are *policy*'s; the resume is kept as a
    digest only (`wire_digest`), and a rejection as its distinct problem
    codes, so an entry stays small however much was sent. A rejection's
    entry has no digest yet: log it with the resume (``store.log(event,
    resume)``), and the store takes the digest only if it keeps the entry.
    """
    codes = () if rejected is None else rejected_codes(rejected)
    return AuditEvent(
        turn.session,
        turn.turn_id,
        kind,
        policy.now(),
        principal=policy.principal,
        codes=codes,
        # A rejection's digest is taken by the store, only if it keeps it.
        digest=wire_digest(resume) if rejected is None else None,
        pending=pending,
        reason=reason,
    )


def rejected_codes(rejected: ResumeRejected) -> tuple[str, ...]:
    """*rejected*'s distinct problem codes, in the order first reported."""
    return tuple(dict.fromkeys(str(problem.code) for problem in rejected.problems))
