"""Sessions: the authoritative history, pauses kept in a store, single-use resumes.

A `Session` keeps its conversation and its interrupted turn in a `Store`.
`Session.resume` loads the turn from the store (never from anything the
client sent), validates the resume against it (authorization included),
*consumes the turn atomically* (exactly one of any number of concurrent
resumes wins; the others get ``consumed``), and only then continues.

Crash safety: while a consumed turn continues, every result of a resumed
tool call is recorded in the store as it arrives. If the process dies before
the continuation completes, `Session.recover` finishes it: recorded results
are reused and those tools do not run again; calls that had not finished run
(their effect, if any, never reported back). The pending interrupt is not
answerable again once consumed: the recorded resume is what recovery uses.

One send at a time: `Session.send` and `Session.recover` hold the session's
lease in the store (`Store.lease`) from before they read the session until
after they write, renewed at its steps, so that across processes a second
one gets `SessionInUse` before anything runs. A resume or a cancel takes no
lease: it claims the open turn with the store's compare-and-set, and a send
runs only when the session has no open or consumed turn.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Final, final

import attrs

from interruption.errors import (
    ContinuationUnfinished,
    InvalidArgument,
    ProblemCode,
    ResumeRejected,
    SessionInUse,
    SessionPaused,
)
from interruption.parts import Message, Role, ToolResponse
from interruption.resume import (
    InterruptedTurn,
    PendingInterrupt,
    PendingTurn,
    Respond,
    Restart,
    Resume,
)
from interruption.runtime._call import ref_of
from interruption.runtime.approval import Approver
from interruption.runtime.loop import (
    GenerateResult,
    Model,
    OnToolError,
    Record,
    _config,
    _continue,
    _ran,
    _recovery,
    _Refs,
    _runner,
    _Start,
    last_result,
    run_sync,
)
from interruption.runtime.schedule import PauseSchedule
from interruption.runtime.store._base import (
    AuditEvent,
    AuditKind,
    Step,
    Store,
    StoredTurn,
    check_id,
    check_int,
    check_principal,
)
from interruption.runtime.tools import Tool
from interruption.validation import (
    Answer,
    Authorize,
    ResolvedResume,
    ResumePolicy,
    authorize_turn,
    consumed,
    not_authorized,
    rejected_codes,
    utc_now,
    validate_and_spend,
)
from interruption.wire import JSON, wire_digest

__all__ = ["MAX_REASON", "Answered", "Authorize", "Session"]

MAX_REASON: Final = 2000
"""The longest cancel reason, in characters: it is kept in the history and
the audit trail."""

LEASE: Final = timedelta(minutes=5)
"""How long a `Session`'s lease lasts unless renewed, by default."""


def _as_resolved(turn: InterruptedTurn, kept: Resume) -> ResolvedResume:
    """The resolved resume that *kept* stood for when *turn* was consumed.

    Recovery is a plan, not a second check: the kept answers were validated
    (expiry answers included) before the turn was spent.
    """
    given: list[Respond | Restart] = [*kept.respond, *kept.restart]
    entries = {(entry.name, entry.ref): entry for entry in given}
    answers = tuple(
        Answer(pending, entries[pending.name, pending.ref])
        for pending in turn.interrupts
        if (pending.name, pending.ref) in entries
    )
    unanswered = tuple(
        pending
        for pending in turn.interrupts
        if (pending.name, pending.ref) not in entries
    )
    return ResolvedResume(turn, answers, unanswered)


def _fresh_id() -> str:
    """A new session id: 32 hex digits laid out as a UUIDv7.

    The first 48 bits are the Unix time in milliseconds and the other 74
    (beside the version and variant bits) are random: ids made later sort
    later, so a store's indexes, which lead with the session, take new
    sessions at their end instead of at random places.
    """
    value = (time.time_ns() // 1_000_000) << 80 | int.from_bytes(os.urandom(10))
    value = value & ~(0xF << 76) | 0x7 << 76  # version 7
    value = value & ~(0x3 << 62) | 0x2 << 62  # RFC 9562 variant
    return f"{value:032x}"


@final
class _Lease:
    """One call's hold on its session's lease in the store (`Store.lease`).

    Taken before the call reads anything, renewed at the steps the loop
    takes (each model message, each batch of tool results) and before the
    call writes what it did, released when it ends. A step renews in the
    store only once half of the lease has passed: until then nobody else
    can have taken it, so a quick send costs two writes (take, release).
    A holder that crashed never releases: its lease ends *duration* after
    its last renewal, and the next call takes it then.
    """

    __slots__ = ("duration", "held", "holder", "now", "session", "store", "until")

    def __init__(
        self,
        store: Store,
        session: str,
        duration: timedelta,
        now: Callable[[], datetime],
    ) -> None:
        self.store = store
        self.session = session
        self.duration = duration
        self.now = now
        self.holder = uuid.uuid4().hex
        self.held = False
        self.until = datetime.min.replace(tzinfo=UTC)

    async def renew(self, _steps: object = None) -> None:
        """Take or extend the lease.

        Raises:
            SessionInUse: if another call holds it, or took it over after
                this one's lease ended (a step ran longer than the lease).
        """
        now = self.now()
        if self.held and now < self.until - self.duration / 2:
            return
        if not await self.store.lease(
            self.session, self.holder, now, now + self.duration, renew=self.held
        ):
            message = (
                f"session {self.session!r}: another send or recovery took the "
                "lease after this call outlasted it; nothing more was written"
                if self.held
                else f"session {self.session!r} is in use by another send or "
                "recovery; nothing ran: try again when it ends"
            )
            raise SessionInUse(self.session, message)
        self.held = True
        self.until = now + self.duration

    async def release(self) -> None:
        """Give the lease back."""
        await self.store.release(self.session, self.holder)


@final
@attrs.frozen
class Answered:
    """What `Session.answer` accepted, and how the session went on.

    Attributes:
        accepted: The validated answers (`validate_and_spend`'s verdict).
        result: How the continuation ended (it may pause again).
    """

    accepted: ResolvedResume
    result: GenerateResult


@final
class Session:
    """One conversation with a human in the loop, kept in a store.

    Args:
        store: Where the history and the pending turn live.
        model: The model to call.
        tools: The tools it may call.
        id: The session id; when None, a fresh one (a UUIDv7 in 32 hex
            digits: ids made later sort later, which keeps a store's
            writes local). Reopen a session by passing its id.
        approver: Decides per tool call whether it runs, is refused, or
            awaits a human.
        schedule: Tools to pause before or after.
        ttl: How long pauses accept answers; None for no limit (a tool's
            own ``ttl`` wins).
        authorize: Who may answer a turn (`Authorize`, sync or async): a
            principal must be allowed for every interrupt of the turn, only
            exactly ``True`` is consent, and an authorizer that raises
            refuses. None allows everyone.
        expiry_answers: Resolve expired, unanswered interrupts with the
            answer their tool declares (`ExpiryAnswer`) instead of
            rejecting the resume as ``missing``.
        max_turns: How many model calls one `send` or `resume` may make.
        on_tool_error: ``"respond"`` or ``"raise"`` (see `generate`).
        lease: How long a `send` or a `recover` holds the session's lease
            in the store (`Store.lease`) unless renewed; its steps renew it
            once half of it has passed. While one holds it, another gets
            `SessionInUse`, in any process; if its process dies, the
            session is free again once the lease has run out. Make it
            longer than the slowest model call or tool call. It is judged
            by the callers' clocks (*now*): processes sharing a store need
            clocks that agree to well within it.
        now: The clock (UTC), for tests.

    Raises:
        InvalidArgument: if *id* is not a session id a store takes (1 to
            `MAX_ID` characters, no NUL) or *lease* is not positive.
    """

    def __init__(  # noqa: PLR0913 - keyword-only configuration
        self,
        store: Store,
        model: Model,
        tools: Iterable[Tool[Any, Any, Any]] = (),
        *,
        id: str | None = None,  # noqa: A002 - the natural name
        approver: Approver | None = None,
        schedule: PauseSchedule | None = None,
        ttl: timedelta | None = None,
        authorize: Authorize | None = None,
        expiry_answers: bool = False,
        max_turns: int = 10,
        on_tool_error: OnToolError = "respond",
        lease: timedelta = LEASE,
        now: Callable[[], datetime] | None = None,
    ) -> None:
        self.id = _fresh_id() if id is None else check_id("Session: id", id)
        given: object = lease
        if not isinstance(given, timedelta) or lease <= timedelta(0):
            raise InvalidArgument("Session: lease", "a positive timedelta", repr(lease))
        self.lease = lease
        self.store = store
        self.model = model
        self.tools = tuple(tools)
        self.approver = approver
        self.schedule = schedule
        self.ttl = ttl
        self.authorize = authorize
        self.expiry_answers = expiry_answers
        self.max_turns = max_turns
        self.on_tool_error: OnToolError = on_tool_error
        self.now = now or utc_now
        # The loop's options, checked once: a bad one fails here.
        self._config = _config(
            {
                "tools": self.tools,
                "approver": approver,
                "schedule": schedule,
                "max_turns": max_turns,
                "on_tool_error": on_tool_error,
                "ttl": ttl,
                "now": self.now,
            }
        )
        self._history: tuple[Message, ...] = ()
        self._refs = _Refs()  # the refs of self._history, read once

    def _expired(self, turn: InterruptedTurn) -> bool:
        """Whether every interrupt of *turn* stopped accepting answers."""
        moment = turn.closes_at
        return moment is not None and moment <= self.now()

    async def _current_history(self) -> tuple[Message, ...]:
        """The session's history: what this object read, plus what is new.

        The history is append-only, so only messages beyond those already
        read are fetched: a cycle's cost does not grow with the conversation.
        """
        newer = await self.store.load_history(self.id, len(self._history))
        if newer:
            self._history = (*self._history, *newer)
        return self._history

    async def _whole(self, stored: StoredTurn) -> InterruptedTurn:
        """*stored*'s turn with its messages, from the history."""
        history = self._history
        if len(history) < stored.history_len:
            history = await self._current_history()
        return stored.with_history(history)

    async def _open(self) -> StoredTurn | None:
        stored = await self.store.load_turn(self.id)
        if stored is None or stored.state != "open" or self._expired(stored.turn):
            return None
        return stored

    def _event(self, turn_id: int, kind: AuditKind, **fields: Any) -> AuditEvent:  # noqa: ANN401 - AuditEvent's own fields
        return AuditEvent(self.id, turn_id, kind, self.now(), **fields)

    def _paused(self, turn: InterruptedTurn | None) -> tuple[AuditEvent, ...]:
        if turn is None:
            return ()
        pending = tuple(interrupt.id for interrupt in turn.interrupts)
        return (self._event(turn.turn_id, "paused", pending=pending),)

    async def _close(
        self,
        turn: InterruptedTurn,
        output: Callable[[PendingInterrupt], JSON],
        event: AuditEvent,
    ) -> bool:
        """Close *turn* without a continuation: each paused call answered.

        A call that paused before it ran gets *output* of its interrupt; a
        call that ran (it finished in the batch, or paused after it ran)
        keeps its real output, so the model is never told that a side
        effect which happened did not. The history stays well formed: every
        tool request has its response; *event* says how the pause ended.

        Returns:
            False when the turn was no longer open (nothing was written).
        """
        paused = {pending.ref: pending for pending in turn.interrupts}
        done = {response.ref: response for response in turn.completed}
        answers: list[Respond] = []
        responses: list[ToolResponse] = []
        for request in turn.messages[-1].tool_requests:
            ref = ref_of(request)
            pending = paused.get(ref)
            if pending is None or _ran(pending):
                # It ran (finished in the batch, or paused after it ran): its
                # effect happened, and the model is told what it returned.
                responses.append(done[ref])
                continue
            answer = output(pending)
            answers.append(Respond(request.name, ref, answer))
            responses.append(ToolResponse(request.name, ref, answer))
        history = (*turn.messages, Message(Role.TOOL, tuple(responses)))
        return await self.store.finish(
            turn,
            history,
            close=Resume(answers),
            principal=event.principal,
            events=(event,),
        )

    async def _close_expired(self, turn: InterruptedTurn) -> bool:
        """Close an expired turn with its declared expiry answers.

        Each call paused before it ran gets its declared expiry answer
        (with ``expiry_answers``) or a response saying it expired; a call
        paused after it ran keeps its output.

        Returns:
            False when it was answered or closed meanwhile.
        """

        def output(pending: PendingInterrupt) -> JSON:
            if self.expiry_answers and pending.on_expiry is not None:
                return pending.on_expiry.output
            moment = turn.expiry_of(pending)
            return {"error": f"expired: no answer arrived before {moment}"}

        return await self._close(turn, output, self._event(turn.turn_id, "expired"))

    async def expire(self) -> bool:
        """Close the session's turn if nobody can answer it any more.

        `send` does it first too; a service calls this (or walks
        ``store.sessions("expired")`` and calls it for each) so that an
        expired turn is closed, its ``expired`` event in the audit trail,
        without waiting for the next message. Each call paused before it
        ran is answered as `send` would (its declared expiry answer, or a
        response saying it expired); a call paused after it ran keeps its
        output. Safe to call from many processes: a turn is closed once.

        Returns:
            Whether this call closed a turn (False: the latest turn is
            still answerable, or was answered, cancelled or closed).
        """
        latest = await self.store.load_turn(self.id)
        if latest is None or latest.state != "open" or not self._expired(latest.turn):
            return False
        return await self._close_expired(await self._whole(latest))

    async def send(self, messages: Sequence[Message] | str) -> GenerateResult:
        """Add messages to the conversation and run until it ends or pauses.

        A turn whose interrupts all expired no longer blocks the session:
        it is closed first, as `expire` closes it.

        Sends on one session are serialized by its lease in the store,
        across processes (see *lease*): a send that finds another running
        gets `SessionInUse` before anything runs, and nothing is lost.

        Args:
            messages: New messages, or one user text.

        Returns:
            How it ended; when interrupted, ``result.turn.turn_id`` is what a
            client echoes with its resume.

        Raises:
            InvalidArgument: if *messages* is an empty sequence.
            SessionInUse: if another send or recovery runs on the session.
            SessionPaused: if the session is paused (resume it first).
            ContinuationUnfinished: if a continuation is unfinished (a
                crash: `recover` it first). All three are a `SessionBusy`,
                a `RuntimeError`.
        """
        new = (
            [Message.of_text(Role.USER, messages)]
            if isinstance(messages, str)
            else list(messages)
        )
        if not new:
            raise InvalidArgument("send: messages", "at least one message", "none")
        lease = _Lease(self.store, self.id, self.lease, self.now)
        await lease.renew()
        try:
            return await self._send(new, lease.renew)
        finally:
            await lease.release()

    async def _send(self, new: list[Message], renew: Record) -> GenerateResult:
        """`send`, under the session's lease; *renew* extends it."""
        latest = await self.store.load_turn(self.id)
        if latest is not None and latest.state == "consumed":
            msg = (
                f"session {self.id!r} has an unfinished continuation: wait for it, "
                "or call recover() if its process died"
            )
            raise ContinuationUnfinished(self.id, msg)
        if latest is not None and latest.state == "open":
            if not self._expired(latest.turn):
                msg = (
                    f"session {self.id!r} is paused: resume its pending "
                    "interrupts first"
                )
                raise SessionPaused(self.id, msg)
            if not await self._close_expired(await self._whole(latest)):
                message = (
                    f"session {self.id!r}: turn {latest.turn.turn_id} was answered "
                    "or closed while it expired; send again"
                )
                raise SessionPaused(self.id, message)
        history = [*await self._current_history(), *new]
        runner = _runner(self.model, self.id, self._config, self._refs)
        turn_id = latest.turn.turn_id + 1 if latest is not None else 1
        result = await last_result(runner.drive(_Start(tuple(history), turn_id), renew))
        await renew(())
        await self.store.save(
            self.id, result.messages, result.turn, events=self._paused(result.turn)
        )
        self._history = result.messages
        return result

    async def pending(self) -> tuple[PendingInterrupt, ...]:
        """Return what is pending (empty when the session is not paused)."""
        stored = await self._open()
        return stored.turn.interrupts if stored is not None else ()

    async def pending_turn(self) -> InterruptedTurn | None:
        """Return the open interrupted turn, with its history, or None."""
        stored = await self._open()
        return await self._whole(stored) if stored is not None else None

    async def pending_state(self) -> PendingTurn | None:
        """Return what a client needs to answer this session, or None.

        One record (`PendingTurn`: the turn id to echo, what is pending,
        when it expires) with a published schema; None when the session is
        not paused (or its pause expired).
        """
        stored = await self._open()
        return PendingTurn.of(stored.turn) if stored is not None else None

    async def audit(self) -> tuple[AuditEvent, ...]:
        """Return this session's audit trail, oldest first.

        Every turn's story: paused (what was pending), each resume attempt
        accepted or rejected (who, when, the problem codes, a digest of the
        resume), cancelled, expired, recovered. At most `MAX_REJECTED`
        rejected attempts are kept per turn.
        """
        return await self.store.audit(self.id)

    def _policy(self, principal: str | None) -> ResumePolicy:
        return ResumePolicy(
            now=self.now,
            expiry_answers=self.expiry_answers,
            authorize=self.authorize,
            principal=principal,
        )

    async def resume(
        self,
        resume: Resume,
        *,
        turn_id: int | None = None,
        principal: str | None = None,
    ) -> GenerateResult:
        """Answer the pending interrupts and continue, at most once per turn.

        `answer`, returning only how the session continued.

        Args:
            resume: The client's answers.
            turn_id: The turn the client answers (from the pending state it
                saw); a stale one is rejected as ``consumed``.
            principal: Who answers, for the authorizer and the record.

        Returns:
            How it ended (it may pause again, in a fresh turn).

        Raises:
            ResumeRejected: listing every problem; nothing ran. Only
                ``not_authorized`` when the authorizer refuses *principal*
                (it is asked first, before anything about the turn is said:
                for a turn id the session never had it is asked about the
                latest turn, and with an authorizer a session that never
                paused is ``not_authorized`` to everyone); ``consumed`` when
                this turn was already resumed (a replay or a lost race);
                ``unknown_session`` when the session never paused,
                ``unknown_turn`` for a turn id it never had.
            InvalidArgument: if *turn_id* is not an integer from 1 to
                2**63 - 1, or *principal* is not an id a store takes.
        """
        answered = await self.answer(resume, turn_id=turn_id, principal=principal)
        return answered.result

    async def answer(
        self,
        resume: Resume,
        *,
        turn_id: int | None = None,
        principal: str | None = None,
    ) -> Answered:
        """Answer the pending interrupts and continue; say what was accepted.

        The one path `resume` takes (and `SessionBridge.answer`): authorize,
        validate against the stored turn, spend it once, continue. It takes
        the arguments `resume` takes and raises what `resume` raises.

        Returns:
            What the validator accepted, and how the session continued (it
            may pause again, in a fresh turn).
        """
        stored = await self._answerable(turn_id, principal, resume)
        turn = await self._whole(stored)

        async def spent() -> bool:
            return stored.state != "open"

        async def spend(kept: Resume) -> bool:
            accepted = self._event(
                turn.turn_id,
                "accepted",
                principal=principal,
                digest=wire_digest(resume),
            )
            return await self.store.consume(turn, kept, principal, events=(accepted,))

        try:
            resolved = await validate_and_spend(
                resume, turn, spend, policy=self._policy(principal), spent=spent
            )
        except ResumeRejected as rejected:
            await self._rejected(turn.turn_id, principal, rejected, resume)
            raise
        return Answered(resolved, await self._continue(resolved))

    async def _rejected(
        self,
        turn_id: int,
        principal: str | None,
        rejected: ResumeRejected,
        sent: Resume | None,
    ) -> None:
        # Distinct codes: a trail entry stays small however much was sent.
        codes = rejected_codes(rejected)
        event = self._event(
            turn_id,
            "rejected",
            principal=principal,
            codes=codes,
        )
        await self.store.log(event, sent)  # digested only if it is kept

    async def _answerable(
        self, turn_id: int | None, principal: str | None, sent: Resume | None
    ) -> StoredTurn:
        """The turn a resume or a cancel names (the latest when None).

        Nothing is said about which turns exist before the authorizer
        allowed *principal*: for a turn the session has, the caller asks
        it (about that turn) before anything else; here, for one it does
        not have, it is asked about the latest turn first.

        Raises:
            InvalidArgument: for a turn id or a principal out of range.
            ResumeRejected: ``not_authorized`` when the authorizer refuses
                *principal* for the latest turn, or there is an authorizer
                and no turn at all; else ``unknown_session`` when the
                session never paused, ``unknown_turn`` for a turn id it
                never had (the attempt is logged against its latest turn).
        """
        if turn_id is not None:
            check_int("turn_id", turn_id, 1)
        check_principal("principal", principal)
        stored = await self.store.load_turn(self.id, turn_id)
        if stored is not None:
            return stored
        latest = None if turn_id is None else await self.store.load_turn(self.id)
        if latest is None:
            if self.authorize is not None:
                raise not_authorized(principal)
            message = f"session {self.id!r} has nothing to resume: it never paused"
            raise ResumeRejected.of(ProblemCode.UNKNOWN_SESSION, message)
        try:
            await authorize_turn(await self._whole(latest), self.authorize, principal)
            message = f"session {self.id!r} has no turn {turn_id}"
            raise ResumeRejected.of(ProblemCode.UNKNOWN_TURN, message)
        except ResumeRejected as rejected:
            await self._rejected(latest.turn.turn_id, principal, rejected, sent)
            raise

    async def cancel(
        self,
        reason: str,
        *,
        turn_id: int | None = None,
        principal: str | None = None,
    ) -> None:
        """Cancel the pending turn: each paused call is told it was cancelled.

        Authorized like a resume (the authorizer is asked first, about
        every interrupt) and single use like one: a cancelled turn cannot
        be resumed or cancelled again. Each paused call gets the response
        ``{"error": "cancelled: <reason>"}`` in the history (calls that
        finished in the batch keep their output), so the conversation goes
        on with the next `send`, and the model sees why.

        A call that paused *after* it ran (`PauseSchedule.after`) keeps its
        real output in the history: its effect happened, and the model is
        not told otherwise; the audit trail's ``cancelled`` event records
        the end of the pause, with *reason*.

        Args:
            reason: Why, in words the model will read: text with a
                non-blank character, of at most `MAX_REASON` characters.
            turn_id: The turn the client cancels (a stale one is rejected
                as ``consumed``); the latest when None.
            principal: Who cancels, for the authorizer and the audit trail.

        Raises:
            InvalidArgument: if *reason* is blank, too long or not text, or
                *turn_id* or *principal* is out of range (a `ValueError`);
                nothing is read then.
            ResumeRejected: as `resume`: ``not_authorized`` (the authorizer
                is asked first), ``consumed``, ``unknown_session`` or
                ``unknown_turn``; nothing changed.
        """
        text: object = reason
        expected = (
            f"text with a non-blank character, of at most {MAX_REASON} characters"
        )
        if not isinstance(text, str):
            raise InvalidArgument("cancel: reason", expected, type(text).__name__)
        if not text.strip() or len(text) > MAX_REASON:
            got = f"{len(text)} characters" if text.strip() else repr(text[:20])
            raise InvalidArgument("cancel: reason", expected, got)
        stored = await self._answerable(turn_id, principal, None)
        turn = await self._whole(stored)
        try:
            await authorize_turn(turn, self.authorize, principal)
            if stored.state != "open":
                raise consumed(turn)
            event = self._event(
                turn.turn_id, "cancelled", principal=principal, reason=reason
            )
            output: JSON = {"error": f"cancelled: {reason}"}
            if not await self._close(turn, lambda _: output, event):
                raise consumed(turn)
        except ResumeRejected as rejected:
            await self._rejected(turn.turn_id, principal, rejected, None)
            raise

    async def _continue(
        self,
        resolved: ResolvedResume,
        steps: Sequence[Step] | None = None,
        renew: Record | None = None,
    ) -> GenerateResult:
        """Continue a consumed turn, recording every step; then finish it.

        With *steps* (recorded before a crash), continue where they stop;
        with *renew*, extend the lease it holds at every step.
        """
        turn = resolved.turn
        unsaved: list[Message] = []

        async def record(steps: Sequence[Step]) -> None:
            if renew is not None:
                await renew(steps)
            # A model message that asks for calls is written before they run
            # (with the messages before it), so recovery runs the very calls
            # it recorded, refs and inputs: a model asked again could ask for
            # other calls under the same refs. Tool results are written as
            # they arrive (those that finish together in one write). Other
            # messages need no write of their own: `finish` saves them, and a
            # model asked again after them has no effects.
            if all(
                isinstance(step, Message) and not step.tool_requests for step in steps
            ):
                unsaved.extend(steps)  # type: ignore[arg-type]
                return
            await self.store.record(self.id, turn.turn_id, (*unsaved, *steps))
            unsaved.clear()

        runner = _runner(self.model, self.id, self._config, self._refs)
        events = (
            _continue(runner, resolved, record)
            if steps is None
            else _recovery(runner, resolved, steps, record)
        )
        result = await last_result(events)
        await self.store.finish(
            turn, result.messages, result.turn, events=self._paused(result.turn)
        )
        self._history = result.messages
        return result

    async def recover(self) -> GenerateResult | None:
        """Finish a continuation that a crash cut short; None if there is none.

        A model message that asks for calls is recorded before they run,
        and every tool result of a continuation as it arrives. Recovery
        continues from the last recorded step: recorded messages are not
        asked of the model again and tools whose results were recorded do
        not run again. What may run twice is a tool call that was running
        when the process died (its result was never recorded): it runs
        again as recorded, same ref, tool and input. Call it when
        no other process is continuing this session (at start-up, say): a
        continuation still running looks the same as one that died.
        Recoveries hold the session's lease like `send` (only when there
        is something to recover): of two at once, one runs and the other
        gets `SessionInUse`.

        Raises:
            SessionInUse: if a send or another recovery runs on the session.
        """
        if await self._unfinished() is None:
            return None  # nothing to recover: no lease is taken
        lease = _Lease(self.store, self.id, self.lease, self.now)
        await lease.renew()
        try:
            stored = await self._unfinished()  # again, now that it holds the lease
            if stored is None or stored.resume is None:
                return None
            turn = await self._whole(stored)
            await self.store.log(self._event(turn.turn_id, "recovered"))
            resolved = _as_resolved(turn, stored.resume)
            return await self._continue(resolved, stored.steps, lease.renew)
        finally:
            await lease.release()

    async def _unfinished(self) -> StoredTurn | None:
        """The latest turn if it is consumed and its continuation unfinished."""
        stored = await self.store.load_turn(self.id)
        return stored if stored is not None and stored.state == "consumed" else None

    # --- sync twins ----------------------------------------------------------

    def send_sync(self, messages: Sequence[Message] | str) -> GenerateResult:
        """`send` for callers without an event loop."""
        return run_sync(self.send(messages))

    def resume_sync(
        self,
        resume: Resume,
        *,
        turn_id: int | None = None,
        principal: str | None = None,
    ) -> GenerateResult:
        """`resume` for callers without an event loop."""
        return run_sync(self.resume(resume, turn_id=turn_id, principal=principal))

    def pending_sync(self) -> tuple[PendingInterrupt, ...]:
        """`pending` for callers without an event loop."""
        return run_sync(self.pending())

    def recover_sync(self) -> GenerateResult | None:
        """`recover` for callers without an event loop."""
        return run_sync(self.recover())

    def pending_turn_sync(self) -> InterruptedTurn | None:
        """`pending_turn` for callers without an event loop."""
        return run_sync(self.pending_turn())

    def pending_state_sync(self) -> PendingTurn | None:
        """`pending_state` for callers without an event loop."""
        return run_sync(self.pending_state())

    def cancel_sync(
        self,
        reason: str,
        *,
        turn_id: int | None = None,
        principal: str | None = None,
    ) -> None:
        """`cancel` for callers without an event loop."""
        run_sync(self.cancel(reason, turn_id=turn_id, principal=principal))

    def audit_sync(self) -> tuple[AuditEvent, ...]:
        """`audit` for callers without an event loop."""
        return run_sync(self.audit())

    def expire_sync(self) -> bool:
        """`expire` for callers without an event loop."""
        return run_sync(self.expire())
