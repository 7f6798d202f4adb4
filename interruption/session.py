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
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any, final

import attrs

from interruption.approval import Approver
from interruption.errors import (
    ContinuationUnfinished,
    ProblemCode,
    ResumeRejected,
    SessionPaused,
)
from interruption.loop import (
    GenerateResult,
    LoopOptions,
    Model,
    OnToolError,
    _continue,
    _recovery,
    _Refs,
    _runner,
    _Start,
    last_result,
    run_sync,
)
from interruption.parts import Message, Role, ToolResponse
from interruption.resume import (
    InterruptedTurn,
    PendingInterrupt,
    Respond,
    Restart,
    Resume,
)
from interruption.schedule import PauseSchedule
from interruption.store._base import Step, Store, StoredTurn
from interruption.tools import Tool
from interruption.validation import (
    Answer,
    Authorize,
    ResolvedResume,
    ResumePolicy,
    utc_now,
    validate_and_spend,
)

__all__ = ["Authorize", "Session"]


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


@final
class Session:
    """One conversation with a human in the loop, kept in a store.

    Args:
        store: Where the history and the pending turn live.
        model: The model to call.
        tools: The tools it may call.
        id: The session id; a fresh one when None (reopen a session by
            passing its id).
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
        now: The clock (UTC), for tests.
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
        now: Callable[[], datetime] | None = None,
    ) -> None:
        self.id = id or uuid.uuid4().hex
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
        self._history: tuple[Message, ...] = ()
        self._refs = _Refs()  # the refs of self._history, read once

    def _options(self) -> LoopOptions:
        return {
            "tools": self.tools,
            "approver": self.approver,
            "schedule": self.schedule,
            "max_turns": self.max_turns,
            "on_tool_error": self.on_tool_error,
            "ttl": self.ttl,
            "now": self.now,
        }

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

    async def _close_expired(self, turn: InterruptedTurn) -> None:
        """Close an expired turn: each paused call gets its answer in history.

        A call that paused gets its declared expiry answer (with
        ``expiry_answers``) or a response saying it expired; a call that
        finished in the batch keeps its output. The history stays well
        formed: every tool request has its response.
        """
        paused = {pending.ref: pending for pending in turn.interrupts}
        done = {response.ref: response for response in turn.completed}
        answers: list[Respond] = []
        responses: list[ToolResponse] = []
        for request in turn.messages[-1].tool_requests:
            ref = request.ref or ""
            pending = paused.get(ref)
            if pending is None:
                responses.append(done[ref])
                continue
            if self.expiry_answers and pending.on_expiry is not None:
                output = pending.on_expiry.output
            else:
                moment = turn.expiry_of(pending)
                output = {
                    "error": f"expired: no answer arrived before {moment}",
                }
            answers.append(Respond(request.name, ref, output))
            responses.append(ToolResponse(request.name, ref, output))
        history = (*turn.messages, Message(Role.TOOL, tuple(responses)))
        if not await self.store.finish(turn, history, close=Resume(answers)):
            message = (
                f"session {self.id!r}: turn {turn.turn_id} was answered or closed "
                "while it expired; send again"
            )
            raise SessionPaused(self.id, message)

    async def send(self, messages: Sequence[Message] | str) -> GenerateResult:
        """Add messages to the conversation and run until it ends or pauses.

        A turn whose interrupts all expired no longer blocks the session:
        it is closed first, each paused call answered in the history by its
        declared expiry answer (with ``expiry_answers``) or by a response
        saying it expired.

        Args:
            messages: New messages, or one user text.

        Returns:
            How it ended; when interrupted, ``result.turn.turn_id`` is what a
            client echoes with its resume.

        Raises:
            SessionPaused: if the session is paused (resume it first).
            ContinuationUnfinished: if a continuation is unfinished (a
                crash: `recover` it first). Both are a `SessionBusy`, a
                `RuntimeError`.
        """
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
            await self._close_expired(await self._whole(latest))
        new = (
            [Message.of_text(Role.USER, messages)]
            if isinstance(messages, str)
            else list(messages)
        )
        history = [*await self._current_history(), *new]
        runner = _runner(self.model, self.id, self._options(), self._refs)
        result = await last_result(runner.drive(_Start(tuple(history), 1)))
        turn = None
        if result.turn is not None:
            turn_id = latest.turn.turn_id + 1 if latest is not None else 1
            turn = attrs.evolve(result.turn, turn_id=turn_id)
            result = attrs.evolve(result, turn=turn)
        await self.store.save(self.id, result.messages, turn)
        self._history = result.messages
        return result

    async def pending(self) -> tuple[PendingInterrupt, ...]:
        """Return what is pending (empty when the session is not paused)."""
        stored = await self._open()
        return stored.turn.interrupts if stored is not None else ()

    async def pending_turn(self) -> InterruptedTurn | None:
        """Return the open interrupted turn, or None."""
        stored = await self._open()
        return await self._whole(stored) if stored is not None else None

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
                (it is asked first); ``consumed`` when this turn was already
                resumed (a replay or a lost race); ``unknown_session`` when
                the session never paused, ``unknown_turn`` for a turn id it
                never had.
        """
        stored = await self.store.load_turn(self.id, turn_id)
        if stored is None:
            if turn_id is None or await self.store.load_turn(self.id) is None:
                code = ProblemCode.UNKNOWN_SESSION
                message = f"session {self.id!r} has nothing to resume: it never paused"
            else:
                code = ProblemCode.UNKNOWN_TURN
                message = f"session {self.id!r} has no turn {turn_id}"
            raise ResumeRejected.of(code, message)
        turn = await self._whole(stored)

        async def spent() -> bool:
            return stored.state != "open"

        async def spend(kept: Resume) -> bool:
            return await self.store.consume(turn, kept, principal)

        resolved = await validate_and_spend(
            resume, turn, spend, policy=self._policy(principal), spent=spent
        )
        return await self._continue(resolved)

    async def _continue(
        self, resolved: ResolvedResume, steps: Sequence[Step] | None = None
    ) -> GenerateResult:
        """Continue a consumed turn, recording every step; then finish it.

        With *steps* (recorded before a crash), continue where they stop.
        """
        turn = resolved.turn
        unsaved: list[Message] = []

        async def record(step: Step) -> None:
            # A tool result is written as it arrives, with the messages that
            # led to it (the model's request for it) in the same transaction;
            # messages after the last result need no write of their own:
            # `finish` saves them, and a model asked again has no effects.
            if isinstance(step, Message):
                unsaved.append(step)
                return
            await self.store.record(self.id, turn.turn_id, (*unsaved, step))
            unsaved.clear()

        runner = _runner(self.model, self.id, self._options(), self._refs)
        events = (
            _continue(runner, resolved, record)
            if steps is None
            else _recovery(runner, resolved, steps, record)
        )
        result = await last_result(events)
        await self.store.finish(turn, result.messages, result.turn)
        self._history = result.messages
        return result

    async def recover(self) -> GenerateResult | None:
        """Finish a continuation that a crash cut short; None if there is none.

        Every tool result of a continuation is recorded as it arrives,
        together with the messages that led to it (the model's request for
        the call). Recovery continues from the last recorded step: recorded
        messages are not asked of the model again and tools whose results
        were recorded do not run again. What may run twice is a tool call
        that was running when the process died (its result was never
        recorded). Call it when
        no other process is continuing this session (at start-up, say): a
        continuation still running looks the same as one that died.
        """
        stored = await self.store.load_turn(self.id)
        if stored is None or stored.resume is None or stored.state != "consumed":
            return None
        turn = await self._whole(stored)
        return await self._continue(_as_resolved(turn, stored.resume), stored.steps)

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
