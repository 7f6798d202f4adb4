from __future__ import annotations

import asyncio
import multiprocessing
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from interruption import (
    JSON,
    ApprovalPending,
    ContinuationUnfinished,
    GenerateResult,
    InterruptedTurn,
    InvalidArgument,
    Message,
    ModelRequest,
    PauseSchedule,
    PendingInterrupt,
    ProblemCode,
    Respond,
    Restart,
    Resume,
    ResumeRejected,
    Role,
    SessionBusy,
    SessionInUse,
    SessionPaused,
    Tool,
    ToolContext,
    ToolRequest,
    ToolResponse,
    define_interrupt,
    dumps,
    tool,
)
from interruption.runtime.session import LEASE, MAX_REASON, Session
from interruption.runtime.store import PostgresStore, SqliteStore, Store
from interruption.runtime.store._base import (
    MAX_ID,
    MAX_PAGE,
    MAX_TURN_ID,
    AuditEvent,
    Listed,
    Step,
    StoredTurn,
)
from interruption.testing import ScriptedModel

from tests.sessions import (
    APPROVER,
    ASK_INPUT,
    NOW,
    TRANSFER_INPUT,
    Boom,
    Clock,
    Ledger,
    RunLog,
    ToolSet,
    agent,
    make_tools,
    mutations,
    resume_in_a_process,
    resume_of,
    send_in_a_process,
    transfer,
)
from tests.strategies import TTLS, Call, answers, batches, tool_sets

SESSION = "s-7c1e"

# --- helpers -----------------------------------------------------------------


def answer(pending: PendingInterrupt) -> Respond | Restart:
    """A human's yes: approve approvals, answer questions "Yes"."""
    if isinstance(pending.kind, ApprovalPending):
        return pending.approve("ok")
    return pending.respond("Yes")


def yes_to(interrupts: Sequence[PendingInterrupt]) -> Resume:
    """A resume saying yes to every interrupt."""
    entries = [answer(pending) for pending in interrupts]
    return Resume(
        [entry for entry in entries if isinstance(entry, Respond)],
        [entry for entry in entries if isinstance(entry, Restart)],
    )


def crash_after_consume(
    open_session: OpenSession, store: Store, runner: asyncio.Runner
) -> None:
    """Pause on "pay", then die right after the resume consumed the turn."""
    paused = runner.run(open_session().send("pay"))
    dying = open_session(on=CrashingStore(store, "after consume"))
    with pytest.raises(Crash):
        runner.run(dying.resume(yes_to(paused.interrupts), turn_id=1))


def results_in(messages: Sequence[Message]) -> dict[str, JSON]:
    """Every tool result in a history, by ref."""
    return {
        response.ref: response.output
        for message in messages
        for response in message.tool_responses
    }


def rejection(runner: asyncio.Runner, coroutine: Any) -> ResumeRejected:
    """The `ResumeRejected` a coroutine raises; fails if it returns."""
    with pytest.raises(ResumeRejected) as caught:
        runner.run(coroutine)
    return caught.value


# --- fixtures ----------------------------------------------------------------


@pytest.fixture(name="reopen")
def _reopen(store: Store, runner: asyncio.Runner) -> Iterator[Callable[[], Store]]:
    """Open the same store again, as a new process would (memory: itself)."""
    opened: list[Store] = []

    def reopen() -> Store:
        again: Store
        if isinstance(store, SqliteStore):
            again = SqliteStore(store.path)
        elif isinstance(store, PostgresStore):
            again = PostgresStore(store.dsn, schema=store.schema)
        else:
            return store
        opened.append(again)
        return again

    yield reopen
    for again in opened:
        runner.run(again.close())


@pytest.fixture(name="log")
def _log(tmp_path: Path) -> RunLog:
    return RunLog(tmp_path / "runs.db")


@pytest.fixture(name="tools")
def _tools(log: RunLog) -> list[Tool[Any, Any, Any]]:
    return make_tools(log)


@pytest.fixture(name="open_session")
def _open_session(
    store: Store, tools: list[Tool[Any, Any, Any]], clock: Clock
) -> Callable[..., Session]:
    """Make a session on the store, with a fresh model each time."""

    def open_session(on: Store | None = None, **options: Any) -> Session:
        options.setdefault("id", SESSION)
        options.setdefault("approver", APPROVER)
        options.setdefault("now", clock)
        return Session(on or store, ScriptedModel(agent), tools, **options)

    return open_session


OpenSession = Callable[..., Session]


@pytest.fixture(name="session")
def _session(open_session: OpenSession, request: pytest.FixtureRequest) -> Session:
    """A session on the store; ``@pytest.mark.session(**options)`` sets options.

    Without the mark: the defaults of ``open_session`` (`APPROVER`, the
    test's clock).
    """
    mark = request.node.get_closest_marker("session")
    return open_session(**(mark.kwargs if mark is not None else {}))


@pytest.fixture(name="paused")
def _paused(session: Session, runner: asyncio.Runner) -> GenerateResult:
    """The session after the user said "pay": a lookup ran, a transfer awaits."""
    return runner.run(session.send("pay"))


def principal_of(
    store: Store, runner: asyncio.Runner, session: str, turn_id: int
) -> str | None:
    """The principal a store recorded with a consumed turn."""
    stored = runner.run(store.load_turn(session, turn_id))
    assert stored is not None
    assert stored.state != "open"
    return stored.principal


# --- sessions ----------------------------------------------------------------


class TestSession:
    def test_send_pauses_and_pending_lists_the_interrupts(
        self,
        log: RunLog,
        runner: asyncio.Runner,
        session: Session,
        paused: GenerateResult,
    ) -> None:
        """A send that pauses saves turn 1; pending() lists its interrupt."""
        assert paused.finish_reason == "interrupted"
        assert paused.turn is not None
        assert (paused.turn.session, paused.turn.turn_id) == (SESSION, 1)
        (pending,) = runner.run(session.pending())
        assert pending == paused.interrupts[0]
        assert isinstance(pending.kind, ApprovalPending)
        assert runner.run(session.pending_turn()) == paused.turn
        assert (log["lookup"], log["transfer_money"]) == (1, 0)

    def test_resume_with_the_turn_id_continues(
        self,
        log: RunLog,
        runner: asyncio.Runner,
        session: Session,
        paused: GenerateResult,
    ) -> None:
        """Resuming the turn runs the approved tool once and finishes."""
        assert paused.turn is not None
        final = runner.run(
            session.resume(yes_to(paused.interrupts), turn_id=paused.turn.turn_id)
        )
        assert final.finish_reason == "stop"
        assert final.message.text.startswith("done: ")
        assert (log["lookup"], log["transfer_money"]) == (1, 1)
        assert runner.run(session.pending()) == ()
        assert runner.run(session.pending_turn()) is None
        assert runner.run(session.store.load_history(SESSION)) == final.messages

    def test_a_reopened_session_sees_the_pending_interrupts_and_resumes(
        self,
        open_session: OpenSession,
        reopen: Callable[[], Store],
        log: RunLog,
        runner: asyncio.Runner,
        paused: GenerateResult,
    ) -> None:
        """A new Session object with the same id, on the same store, resumes."""
        again = open_session(on=reopen())
        pending = runner.run(again.pending())
        assert pending == paused.interrupts
        final = runner.run(again.resume(yes_to(pending), turn_id=1))
        assert final.finish_reason == "stop"
        assert log["transfer_money"] == 1
        assert runner.run(open_session(on=reopen()).pending()) == ()

    def test_history_is_kept_across_sends_and_session_objects(
        self,
        open_session: OpenSession,
        reopen: Callable[[], Store],
        runner: asyncio.Runner,
    ) -> None:
        """A later send continues the stored history, whichever object sends it."""
        session = open_session()
        paused = runner.run(session.send("ask"))
        first = runner.run(session.resume(yes_to(paused.interrupts)))
        assert first.finish_reason == "stop"
        later = open_session(on=reopen())
        second = runner.run(later.send("pay"))
        assert second.messages[: len(first.messages)] == first.messages
        assert second.turn is not None
        assert second.turn.turn_id == 2
        assert runner.run(later.store.load_history(SESSION)) == second.messages

    def test_a_send_that_finishes_saves_the_history(
        self,
        open_session: OpenSession,
        tools: list[Tool[Any, Any, Any]],
        runner: asyncio.Runner,
    ) -> None:
        """A send with no pause keeps its whole history, messages given as a list."""
        session = Session(
            open_session().store,
            ScriptedModel([Message.of_text(Role.MODEL, "hello")]),
            tools,
            id="chat",
        )
        result = runner.run(session.send([Message.of_text(Role.USER, "hi")]))
        assert result.finish_reason == "stop"
        assert runner.run(session.store.load_history("chat")) == result.messages
        assert runner.run(session.pending()) == ()

    @pytest.mark.usefixtures("paused")
    def test_send_while_paused_is_refused(
        self, runner: asyncio.Runner, session: Session
    ) -> None:
        """A paused session must be resumed before it takes new messages."""
        with pytest.raises(RuntimeError, match="is paused"):
            runner.run(session.send("pay"))

    def test_answer_says_what_was_accepted_and_how_it_went_on(
        self, session: Session, paused: GenerateResult, runner: asyncio.Runner
    ) -> None:
        """`answer` returns the validator's verdict with the continuation, once."""
        resume = yes_to(paused.interrupts)
        answered = runner.run(session.answer(resume, turn_id=1))
        assert answered.accepted.kept == resume
        assert [a.interrupt for a in answered.accepted.answers] == list(
            paused.interrupts
        )
        assert answered.result.finish_reason == "stop"
        replay = rejection(runner, session.answer(resume, turn_id=1))
        assert replay.codes == (ProblemCode.CONSUMED,)

    def test_a_second_pause_gets_the_next_turn_id(
        self, open_session: OpenSession, log: RunLog, runner: asyncio.Runner
    ) -> None:
        """A continuation that pauses again saves turn 2, which resumes in turn."""
        session = open_session()
        first = runner.run(session.send("ask then pay"))
        second = runner.run(session.resume(yes_to(first.interrupts), turn_id=1))
        assert second.turn is not None
        assert second.turn.turn_id == 2
        assert runner.run(session.pending()) == second.interrupts
        final = runner.run(session.resume(yes_to(second.interrupts), turn_id=2))
        assert final.finish_reason == "stop"
        assert log["transfer_money"] == 1

    def test_the_sync_twins(self, open_session: OpenSession, log: RunLog) -> None:
        """The *_sync twins of send, pending, resume and recover mirror them."""
        session = open_session()
        paused = session.send_sync("pay")
        assert session.pending_sync() == paused.interrupts
        final = session.resume_sync(yes_to(paused.interrupts), turn_id=1)
        assert final.finish_reason == "stop"
        assert session.recover_sync() is None
        assert log["transfer_money"] == 1

    def test_refs_stay_unique_over_many_turns_and_session_objects(
        self, open_session: OpenSession, runner: asyncio.Runner
    ) -> None:
        """Refs are unique across a long history, whichever object drove it."""
        for turn in range(6):
            session = open_session()  # a fresh object now and then: no cache
            for _ in range(2 if turn % 2 else 1):
                paused = runner.run(session.send("pay"))
                runner.run(session.resume(yes_to(paused.interrupts)))
        history = runner.run(open_session().store.load_history(SESSION))
        assert history is not None
        refs = [r.ref for m in history for r in m.tool_requests]
        assert len(refs) == len(set(refs)) == 18
        assert refs == [f"call-{n}" for n in range(1, 19)]

    def test_a_busy_session_raises_a_typed_error(
        self,
        open_session: OpenSession,
        store: Store,
        runner: asyncio.Runner,
        session: Session,
        paused: GenerateResult,
    ) -> None:
        """Paused and unfinished sessions raise their own SessionBusy classes."""
        with pytest.raises(SessionPaused) as caught:
            runner.run(session.send("again"))
        assert caught.value.session == SESSION
        assert isinstance(caught.value, SessionBusy)
        assert isinstance(caught.value, RuntimeError)
        dying = open_session(on=CrashingStore(store, "after consume"))
        with pytest.raises(Crash):
            runner.run(dying.resume(yes_to(paused.interrupts)))
        with pytest.raises(ContinuationUnfinished):
            runner.run(open_session().send("again"))

    def test_a_fresh_id_when_none_is_given(self, store: Store) -> None:
        """Without an id, each session gets its own."""
        model = ScriptedModel(agent)
        assert Session(store, model).id != Session(store, model).id

    def test_fresh_ids_are_uuid7s_that_sort_by_creation(self, store: Store) -> None:
        """A fresh id is a UUIDv7 in 32 hex digits; ids made later sort after it."""
        model = ScriptedModel(agent)
        first = Session(store, model).id
        time.sleep(0.002)
        later = [Session(store, model).id for _ in range(50)]
        parsed = uuid.UUID(hex=first)
        assert (len(first), first.isalnum(), first.lower()) == (32, True, first)
        assert (parsed.version, parsed.variant) == (7, uuid.RFC_4122)
        assert all(first < other for other in later)
        assert len(set(later)) == len(later)


# --- store wrappers ----------------------------------------------------------


class Wrapped:
    """A store that hands every call to another; subclasses step in."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner

    async def load_history(
        self, session: str, start: int = 0
    ) -> tuple[Message, ...] | None:
        """Delegate."""
        return await self.inner.load_history(session, start)

    async def save(
        self,
        session: str,
        history: Sequence[Message],
        turn: InterruptedTurn | None = None,
        *,
        events: Sequence[AuditEvent] = (),
    ) -> None:
        """Delegate."""
        await self.inner.save(session, history, turn, events=events)

    async def load_turn(
        self, session: str, turn_id: int | None = None
    ) -> StoredTurn | None:
        """Delegate."""
        return await self.inner.load_turn(session, turn_id)

    async def consume(
        self,
        turn: InterruptedTurn,
        resume: Resume,
        principal: str | None,
        *,
        events: Sequence[AuditEvent] = (),
    ) -> bool:
        """Delegate."""
        return await self.inner.consume(turn, resume, principal, events=events)

    async def record(self, session: str, turn_id: int, steps: Sequence[Step]) -> None:
        """Delegate."""
        await self.inner.record(session, turn_id, steps)

    async def finish(  # noqa: PLR0913 - the protocol's options
        self,
        turn: InterruptedTurn,
        history: Sequence[Message],
        following: InterruptedTurn | None = None,
        *,
        close: Resume | None = None,
        principal: str | None = None,
        events: Sequence[AuditEvent] = (),
    ) -> bool:
        """Delegate."""
        return await self.inner.finish(
            turn, history, following, close=close, principal=principal, events=events
        )

    async def log(self, event: AuditEvent, sent: Resume | None = None) -> bool:
        """Delegate."""
        return await self.inner.log(event, sent)

    async def audit(self, session: str) -> tuple[AuditEvent, ...]:
        """Delegate."""
        return await self.inner.audit(session)

    async def sessions(
        self,
        state: Listed,
        *,
        now: datetime | None = None,
        after: str | None = None,
        limit: int = MAX_PAGE,
    ) -> tuple[str, ...]:
        """Delegate."""
        return await self.inner.sessions(state, now=now, after=after, limit=limit)

    async def lease(
        self,
        session: str,
        holder: str,
        now: datetime,
        until: datetime,
        *,
        renew: bool = False,
    ) -> bool:
        """Delegate."""
        return await self.inner.lease(session, holder, now, until, renew=renew)

    async def release(self, session: str, holder: str) -> None:
        """Delegate."""
        await self.inner.release(session, holder)

    async def spend(self, key: str, keep_until: datetime | None) -> bool:
        """Delegate."""
        return await self.inner.spend(key, keep_until)

    async def spend_all(
        self,
        keys: Sequence[str],
        keep_until: datetime | None,
        events: Sequence[AuditEvent] = (),
    ) -> bool:
        """Delegate."""
        return await self.inner.spend_all(keys, keep_until, events)

    async def spent(self, keys: Sequence[str]) -> frozenset[str]:
        """Delegate."""
        return await self.inner.spent(keys)

    async def keep(self, key: str, record: bytes, keep_until: datetime | None) -> None:
        """Delegate."""
        await self.inner.keep(key, record, keep_until)

    async def kept(self, key: str) -> bytes | None:
        """Delegate."""
        return await self.inner.kept(key)

    async def expire(self, now: datetime) -> int:
        """Delegate."""
        return await self.inner.expire(now)

    async def close(self) -> None:
        """Delegate."""
        await self.inner.close()


def is_consumed(store: Store, runner: asyncio.Runner, turn_id: int = 1) -> bool:
    """Whether the session's turn *turn_id* was consumed (or closed)."""
    stored = runner.run(store.load_turn(SESSION, turn_id))
    return stored is not None and stored.state != "open"


class Gated(Wrapped):
    """A store whose `consume` waits until *parties* callers are at it.

    So every concurrent resume has loaded and validated the turn, and they
    all race at the compare-and-set itself.
    """

    def __init__(self, inner: Store, parties: int) -> None:
        super().__init__(inner)
        self.gate = asyncio.Barrier(parties)

    async def consume(
        self,
        turn: InterruptedTurn,
        resume: Resume,
        principal: str | None,
        *,
        events: Sequence[AuditEvent] = (),
    ) -> bool:
        """Wait for the others, then delegate."""
        await self.gate.wait()
        return await self.inner.consume(turn, resume, principal, events=events)


# --- concurrency -------------------------------------------------------------


class TestConcurrency:
    def test_twenty_concurrent_resumes_one_continues(
        self,
        open_session: OpenSession,
        store: Store,
        log: RunLog,
        runner: asyncio.Runner,
        paused: GenerateResult,
    ) -> None:
        """20 validated resumes race at consume: one continues, 19 get consumed."""
        resume = yes_to(paused.interrupts)

        async def race() -> list[GenerateResult | BaseException]:
            gated = Gated(store, 20)
            sessions = [open_session(on=gated) for _ in range(20)]
            return await asyncio.gather(
                *(session.resume(resume, turn_id=1) for session in sessions),
                return_exceptions=True,
            )

        outcomes = runner.run(race())
        won = [o for o in outcomes if isinstance(o, GenerateResult)]
        lost = [o for o in outcomes if isinstance(o, ResumeRejected)]
        assert len(won) == 1
        assert won[0].finish_reason == "stop"
        assert len(lost) == 19
        assert all(error.codes == (ProblemCode.CONSUMED,) for error in lost)
        assert log["transfer_money"] == 1


class TestProcesses:
    @pytest.mark.parametrize("store", ["sqlite", "postgres"], indirect=True)
    def test_twenty_processes_resume_one_turn_once(
        self, store: Store, log: RunLog, runner: asyncio.Runner
    ) -> None:
        """20 processes, each with its own Session and store: one wins, one run."""
        session = Session(
            store, ScriptedModel(agent), make_tools(log), id=SESSION, approver=APPROVER
        )
        paused = runner.run(session.send("pay"))
        where: tuple[str, str, str | None]
        if isinstance(store, SqliteStore):
            where = ("sqlite", store.path, None)
        else:
            assert isinstance(store, PostgresStore)
            where = ("postgres", store.dsn, store.schema)
        context = multiprocessing.get_context("spawn")
        barrier = context.Barrier(20)
        results = context.Queue()
        resume = dumps(yes_to(paused.interrupts))
        processes = [
            context.Process(
                target=resume_in_a_process,
                args=(where, log.path, SESSION, resume, barrier, results),
            )
            for _ in range(20)
        ]
        for process in processes:
            process.start()
        outcomes = sorted(results.get(timeout=120) for _ in processes)
        for process in processes:
            process.join(30)
            assert process.exitcode == 0
        results.close()
        results.join_thread()
        assert outcomes == ["consumed"] * 19 + ["stop"]
        assert log["transfer_money"] == 1
        assert log["lookup"] == 1
        assert runner.run(session.pending()) == ()

    @pytest.mark.parametrize("store", ["sqlite", "postgres"], indirect=True)
    def test_sends_from_many_processes_lose_nothing(
        self, store: Store, runner: asyncio.Runner
    ) -> None:
        """6 processes send at once: each is kept whole, or got session_in_use."""
        where: tuple[str, str, str | None]
        if isinstance(store, SqliteStore):
            where = ("sqlite", store.path, None)
        else:
            assert isinstance(store, PostgresStore)
            where = ("postgres", store.dsn, store.schema)
        context = multiprocessing.get_context("spawn")
        barrier = context.Barrier(6)
        results = context.Queue()
        processes = [
            context.Process(
                target=send_in_a_process,
                args=(where, SESSION, f"message {n}", barrier, results),
            )
            for n in range(6)
        ]
        for process in processes:
            process.start()
        outcomes = [results.get(timeout=120) for _ in processes]
        for process in processes:
            process.join(30)
            assert process.exitcode == 0
        results.close()
        results.join_thread()
        assert set(outcomes) <= {"stop", "session_in_use"}
        history = runner.run(store.load_history(SESSION))
        assert history is not None
        assert len(history) == 2 * outcomes.count("stop")
        pairs = [
            (a.text, b.text) for a, b in zip(history[::2], history[1::2], strict=True)
        ]
        assert all(said == f"said {asked}" for asked, said in pairs)


# --- crash safety ------------------------------------------------------------


class Crash(BaseException):
    """The process dying: not an Exception, so no handler on the way stops it."""


CrashPoint = Literal["after consume", "after record", "before complete"]


class CrashingStore(Wrapped):
    """A store that 'dies' at one point of a continuation.

    Args:
        inner: The real store, which keeps whatever was written before.
        at: Where to die.
        records: With ``"after record"``: die after this many records.
    """

    def __init__(self, inner: Store, at: CrashPoint, records: int = 1) -> None:
        super().__init__(inner)
        self.at = at
        self.records = records

    async def consume(
        self,
        turn: InterruptedTurn,
        resume: Resume,
        principal: str | None,
        *,
        events: Sequence[AuditEvent] = (),
    ) -> bool:
        """Delegate; die after a won consume, if told to."""
        won = await self.inner.consume(turn, resume, principal, events=events)
        if won and self.at == "after consume":
            raise Crash
        return won

    async def record(self, session: str, turn_id: int, steps: Sequence[Step]) -> None:
        """Delegate; die after the nth record, if told to."""
        await self.inner.record(session, turn_id, steps)
        self.records -= 1
        if self.at == "after record" and self.records == 0:
            raise Crash

    async def finish(  # noqa: PLR0913 - the protocol's options
        self,
        turn: InterruptedTurn,
        history: Sequence[Message],
        following: InterruptedTurn | None = None,
        *,
        close: Resume | None = None,
        principal: str | None = None,
        events: Sequence[AuditEvent] = (),
    ) -> bool:
        """Die before finishing, if told to."""
        if self.at == "before complete":
            raise Crash
        return await self.inner.finish(
            turn, history, following, close=close, principal=principal, events=events
        )


class TestCrashSafety:
    """The module's contract, as session.py states it.

    "While a consumed turn continues, every result of a resumed tool call is
    recorded in the store as it arrives. If the process dies before the
    continuation completes, `Session.recover` finishes it: recorded results
    are reused and those tools do not run again; calls that had not finished
    run (their effect, if any, never reported back). The pending interrupt is
    not answerable again once consumed: the recorded resume is what recovery
    uses."
    """

    def crash(
        self,
        runner: asyncio.Runner,
        open_session: OpenSession,
        store: Store,
        plan: str,
        at: CrashPoint,
    ) -> GenerateResult:
        """Pause with *plan*, then resume it through a store that dies *at*."""
        paused = runner.run(open_session().send(plan))
        dying = open_session(on=CrashingStore(store, at))
        with pytest.raises(Crash):
            runner.run(dying.resume(yes_to(paused.interrupts), turn_id=1))
        return paused

    def assert_settled(
        self, runner: asyncio.Runner, session: Session, paused: GenerateResult
    ) -> None:
        """The turn cannot be answered again and nothing is left to recover."""
        assert runner.run(session.recover()) is None
        error = rejection(runner, session.resume(yes_to(paused.interrupts), turn_id=1))
        assert error.codes == (ProblemCode.CONSUMED,)

    @pytest.mark.parametrize("at", ["after consume", "after record", "before complete"])
    def test_recover_finishes_and_runs_no_recorded_tool_again(  # noqa: PLR0913, PLR0917 - fixtures
        self,
        open_session: OpenSession,
        store: Store,
        reopen: Callable[[], Store],
        log: RunLog,
        at: CrashPoint,
        runner: asyncio.Runner,
    ) -> None:
        """Recover reuses recorded results and runs only the calls never recorded."""
        paused = self.crash(runner, open_session, store, "pay twice", at)
        first, second = (pending.ref for pending in paused.interrupts)
        stored = runner.run(store.load_turn(SESSION, 1))
        assert stored is not None
        assert stored.state == "consumed"
        recorded = [step for step in stored.steps if isinstance(step, ToolResponse)]
        ran = {amount: log[f"transfer_money {amount}"] for amount in (125_000, 130_000)}
        if at == "after consume":
            assert (recorded, ran) == ([], {125_000: 0, 130_000: 0})
        elif at == "after record":
            # The batch runs concurrently: both transfers returned at the same
            # wake-up, so their results went in one write, before the crash.
            assert [r.ref for r in recorded] == [first, second]
            assert ran == {125_000: 1, 130_000: 1}
        else:
            assert {r.ref for r in recorded} == {first, second}
            assert ran == {125_000: 1, 130_000: 1}
        survivor = open_session(on=reopen())
        assert runner.run(survivor.pending()) == ()
        error = rejection(runner, survivor.resume(yes_to(paused.interrupts), turn_id=1))
        assert error.codes == (ProblemCode.CONSUMED,)
        with pytest.raises(RuntimeError, match="unfinished continuation"):
            runner.run(survivor.send("pay"))
        final = runner.run(survivor.recover())
        assert final is not None
        assert final.finish_reason == "stop"
        done = {r.ref for r in recorded}
        assert log["transfer_money 125000"] == ran[125_000] + (first not in done)
        assert log["transfer_money 130000"] == ran[130_000] + (second not in done)
        results = results_in(final.messages)
        assert [results[first], results[second]] == [
            {"status": "sent", "to": "ACME", "amount": 125_000},
            {"status": "sent", "to": "ACME", "amount": 130_000},
        ]
        assert runner.run(survivor.store.load_history(SESSION)) == final.messages
        self.assert_settled(runner, survivor, paused)

    def test_a_tool_that_dies_mid_run_runs_again(
        self,
        open_session: OpenSession,
        reopen: Callable[[], Store],
        log: RunLog,
        runner: asyncio.Runner,
    ) -> None:
        """A call that had not finished runs again; a recorded sibling does not."""
        session = open_session(on_tool_error="raise")
        paused = runner.run(session.send("pay and unlock"))
        with pytest.raises(Boom):
            runner.run(session.resume(yes_to(paused.interrupts), turn_id=1))
        assert (log["transfer_money"], log["flaky"]) == (1, 1)
        survivor = open_session(on=reopen(), on_tool_error="raise")
        final = runner.run(survivor.recover())
        assert final is not None
        assert final.finish_reason == "stop"
        assert (log["transfer_money"], log["flaky"]) == (1, 2)
        transfer_ref, flaky_ref = (pending.ref for pending in paused.interrupts)
        results = results_in(final.messages)
        assert results[transfer_ref] == {
            "status": "sent",
            "to": "ACME",
            "amount": 125_000,
        }
        assert results[flaky_ref] == "unlocked"
        self.assert_settled(runner, survivor, paused)

    def test_a_continuation_that_paused_again_is_recovered_once(
        self,
        open_session: OpenSession,
        store: Store,
        reopen: Callable[[], Store],
        log: RunLog,
        runner: asyncio.Runner,
    ) -> None:
        """Crashed after saving the next turn: recover keeps it and runs nothing."""
        paused = self.crash(
            runner, open_session, store, "ask then pay", "before complete"
        )
        survivor = open_session(on=reopen())
        second = runner.run(survivor.recover())
        assert second is not None
        assert second.finish_reason == "interrupted"
        assert second.turn is not None
        assert second.turn.turn_id == 2
        assert runner.run(survivor.pending()) == second.interrupts
        self.assert_settled(runner, survivor, paused)
        final = runner.run(survivor.resume(yes_to(second.interrupts), turn_id=2))
        assert final.finish_reason == "stop"
        assert log["transfer_money"] == 1

    def test_a_finished_continuation_is_not_run_again(
        self,
        open_session: OpenSession,
        store: Store,
        reopen: Callable[[], Store],
        log: RunLog,
        runner: asyncio.Runner,
    ) -> None:
        """A crash before finishing: recover asks only for the final answer again."""
        paused = self.crash(runner, open_session, store, "pay", "before complete")
        survivor = open_session(on=reopen())
        final = runner.run(survivor.recover())
        assert final is not None
        assert final.finish_reason == "stop"
        assert final.message.text.startswith("done: ")
        assert isinstance(survivor.model, ScriptedModel)
        assert len(survivor.model.requests) == 1
        assert log["transfer_money"] == 1
        assert runner.run(store.load_history(SESSION)) == final.messages
        self.assert_settled(runner, survivor, paused)

    def test_recovery_keeps_to_the_turns_left(
        self,
        store: Store,
        tools: list[Tool[Any, Any, Any]],
        clock: Clock,
        runner: asyncio.Runner,
    ) -> None:
        """A continuation that used its model calls before the crash ends max_turns."""
        script = [
            Message(Role.MODEL, (transfer(),)),
            Message(Role.MODEL, (ToolRequest("lookup", input={}),)),
        ]
        options: dict[str, Any] = {
            "id": SESSION,
            "approver": APPROVER,
            "now": clock,
            "max_turns": 1,
        }
        session = Session(store, ScriptedModel(script), tools, **options)
        paused = runner.run(session.send("pay"))
        dying = Session(
            CrashingStore(store, "before complete"),
            ScriptedModel(script[1:]),
            tools,
            **options,
        )
        with pytest.raises(Crash):
            runner.run(dying.resume(yes_to(paused.interrupts)))
        model = ScriptedModel([])
        final = runner.run(Session(store, model, tools, **options).recover())
        assert final is not None
        assert final.finish_reason == "max_turns"
        assert [r.name for r in final.message.tool_requests] == ["lookup"]
        assert final.messages[-1].role is Role.TOOL
        assert model.requests == []

    def test_a_call_cut_short_runs_again_as_recorded(
        self,
        store: Store,
        reopen: Callable[[], Store],
        clock: Clock,
        runner: asyncio.Runner,
    ) -> None:
        """Dying mid-call, recovery runs the recorded request, not a new answer."""
        ran: list[JSON] = []

        @tool(input=TRANSFER_INPUT, output={"type": "object"})
        def transfer_money(_ctx: ToolContext[JSON], data: JSON) -> JSON:
            """Send money; the process dies during the first small transfer."""
            assert isinstance(data, dict)
            ran.append(data["to"])
            if ran == ["ACME", "BOB"]:
                raise Crash
            return {"status": "sent", "to": data["to"], "amount": data["amount"]}

        def model(to: str) -> ScriptedModel:
            """Pay ACME (held), then pay *to* 50 (not held), then stop."""

            def answer(request: ModelRequest) -> Message:
                done = sum(len(m.tool_responses) for m in request.messages)
                if done == 0:
                    return Message(Role.MODEL, (transfer(),))
                if done == 1:
                    small: JSON = {"to": to, "amount": 50}
                    return Message(
                        Role.MODEL, (ToolRequest("transfer_money", input=small),)
                    )
                return Message.of_text(Role.MODEL, "done")

            return ScriptedModel(answer)

        options: dict[str, Any] = {"id": SESSION, "approver": APPROVER, "now": clock}
        first = Session(store, model("BOB"), [transfer_money], **options)
        paused = runner.run(first.send("pay"))
        with pytest.raises(Crash):
            runner.run(first.resume(yes_to(paused.interrupts), turn_id=1))
        survivor = Session(reopen(), model("CAROL"), [transfer_money], **options)
        final = runner.run(survivor.recover())
        assert final is not None
        assert final.finish_reason == "stop"
        assert ran == ["ACME", "BOB", "BOB"]
        asked = [r.input for m in final.messages for r in m.tool_requests]
        small: JSON = {"to": "BOB", "amount": 50}
        assert asked == [transfer().input, small]
        assert list(results_in(final.messages).values())[-1] == {
            "status": "sent",
            "to": "BOB",
            "amount": 50,
        }

    def test_an_expiry_answer_survives_a_crash(
        self,
        open_session: OpenSession,
        store: Store,
        reopen: Callable[[], Store],
        clock: Clock,
        runner: asyncio.Runner,
    ) -> None:
        """A turn resolved by its expiry answer is recovered with that answer."""
        session = open_session(ttl=timedelta(minutes=5), expiry_answers=True)
        paused = runner.run(session.send("ask"))
        clock.advance(timedelta(minutes=10))
        dying = open_session(
            on=CrashingStore(store, "after consume"), expiry_answers=True
        )
        with pytest.raises(Crash):
            runner.run(dying.resume(Resume(), turn_id=1))
        final = runner.run(open_session(on=reopen()).recover())
        assert final is not None
        assert final.finish_reason == "stop"
        (ref,) = (pending.ref for pending in paused.interrupts)
        assert results_in(final.messages) == {ref: "No"}


# --- replay ------------------------------------------------------------------


class FollowUp:
    """A model that looks a balance up after the question, then reports.

    With *die_at* set, the model call of that number (counted from 1)
    'kills the process' instead of answering.
    """

    def __init__(self, die_at: int | None = None) -> None:
        self.calls = 0
        self.die_at = die_at

    async def __call__(self, request: ModelRequest) -> Message:
        """Answer like `agent`, with a lookup once the question is answered."""
        self.calls += 1
        if self.calls == self.die_at:
            raise Crash
        last = request.messages[-1]
        names = [response.name for response in last.tool_responses]
        if names == ["ask_user"]:
            return Message(Role.MODEL, (ToolRequest("lookup", input={}),))
        return agent(request)


class TestRecoveryOfEveryStep:
    def test_a_tool_that_finished_later_in_the_continuation_does_not_run_again(
        self, store: Store, log: RunLog, clock: Clock, runner: asyncio.Runner
    ) -> None:
        """A result recorded after a later model call is reused by recover()."""
        tools = make_tools(log)
        paused = runner.run(
            Session(store, FollowUp(), tools, id=SESSION, now=clock).send("ask")
        )
        dying = Session(store, FollowUp(die_at=2), tools, id=SESSION, now=clock)
        with pytest.raises(Crash):
            runner.run(dying.resume(yes_to(paused.interrupts)))
        assert log["lookup"] == 1
        survivor = Session(store, FollowUp(), tools, id=SESSION, now=clock)
        final = runner.run(survivor.recover())
        assert final is not None
        assert final.finish_reason == "stop"
        assert log["lookup"] == 1
        lookups = [
            response
            for message in final.messages
            for response in message.tool_responses
            if response.name == "lookup"
        ]
        assert [response.output for response in lookups] == [500]
        assert runner.run(survivor.recover()) is None

    def test_a_crash_before_finishing_asks_only_for_the_last_answer(
        self, store: Store, log: RunLog, clock: Clock, runner: asyncio.Runner
    ) -> None:
        """Died before finish: recorded calls stand; only the final answer is redone."""
        tools = make_tools(log)
        paused = runner.run(
            Session(store, FollowUp(), tools, id=SESSION, now=clock).send("ask")
        )
        dying = Session(
            CrashingStore(store, "before complete"),
            FollowUp(),
            tools,
            id=SESSION,
            now=clock,
        )
        with pytest.raises(Crash):
            runner.run(dying.resume(yes_to(paused.interrupts)))
        model = FollowUp()
        survivor = Session(store, model, tools, id=SESSION, now=clock)
        final = runner.run(survivor.recover())
        assert final is not None
        assert final.finish_reason == "stop"
        assert final.message.text.startswith("done: ")
        assert model.calls == 1
        assert log["lookup"] == 1
        assert runner.run(survivor.recover()) is None

    def test_an_expired_turn_closed_by_another_is_not_closed_twice(
        self, store: Store, log: RunLog, clock: Clock, runner: asyncio.Runner
    ) -> None:
        """When another process closed the expired turn first, send says so."""
        tools = make_tools(log)
        session = Session(
            store, FollowUp(), tools, id=SESSION, now=clock, ttl=timedelta(minutes=1)
        )
        runner.run(session.send("ask"))
        clock.advance(timedelta(minutes=2))

        class Late(Wrapped):
            async def finish(self, *_args: Any, **_options: Any) -> bool:
                return False

        late = Session(Late(store), FollowUp(), tools, id=SESSION, now=clock)
        with pytest.raises(RuntimeError, match="answered or closed"):
            runner.run(late.send("pay"))

    def test_a_recorded_model_message_is_not_asked_again(
        self, store: Store, log: RunLog, clock: Clock, runner: asyncio.Runner
    ) -> None:
        """The model's request is recorded before its call runs and not redone."""
        tools = make_tools(log)
        paused = runner.run(
            Session(store, FollowUp(), tools, id=SESSION, now=clock).send("ask")
        )

        class DiesInLookup(Wrapped):
            async def record(
                self, session: str, turn_id: int, steps: Sequence[Step]
            ) -> None:
                await self.inner.record(session, turn_id, steps)
                if any(isinstance(s, Message) and s.tool_requests for s in steps):
                    raise Crash

        dying = Session(DiesInLookup(store), FollowUp(), tools, id=SESSION, now=clock)
        with pytest.raises(Crash):
            runner.run(dying.resume(yes_to(paused.interrupts)))
        assert log["lookup"] == 0  # written before its call ran
        model = FollowUp()
        survivor = Session(store, model, tools, id=SESSION, now=clock)
        final = runner.run(survivor.recover())
        assert final is not None
        assert final.finish_reason == "stop"
        assert model.calls == 1  # the report only: the lookup call was recorded
        assert log["lookup"] == 1  # the recorded call ran, once


class TestReplay:
    def test_the_same_resume_twice(
        self,
        log: RunLog,
        runner: asyncio.Runner,
        session: Session,
        paused: GenerateResult,
    ) -> None:
        """A replayed resume is consumed; the tool ran once."""
        resume = yes_to(paused.interrupts)
        runner.run(session.resume(resume, turn_id=1))
        error = rejection(runner, session.resume(resume, turn_id=1))
        assert error.codes == (ProblemCode.CONSUMED,)
        assert "turn 1" in error.problems[0].message
        error = rejection(runner, session.resume(resume))
        assert error.codes == (ProblemCode.CONSUMED,)
        assert log["transfer_money"] == 1

    def test_an_earlier_turn_after_a_later_one(
        self, open_session: OpenSession, log: RunLog, runner: asyncio.Runner
    ) -> None:
        """A stale turn_id is consumed, even while a later turn is open."""
        session = open_session()
        first = runner.run(session.send("ask then pay"))
        second = runner.run(session.resume(yes_to(first.interrupts), turn_id=1))
        error = rejection(runner, session.resume(yes_to(first.interrupts), turn_id=1))
        assert error.codes == (ProblemCode.CONSUMED,)
        runner.run(session.resume(yes_to(second.interrupts), turn_id=2))
        error = rejection(runner, session.resume(yes_to(first.interrupts), turn_id=1))
        assert error.codes == (ProblemCode.CONSUMED,)
        assert log["transfer_money"] == 1

    def test_a_session_that_never_paused(
        self,
        open_session: OpenSession,
        store: Store,
        tools: list[Tool[Any, Any, Any]],
        runner: asyncio.Runner,
    ) -> None:
        """Nothing to resume is unknown_session, for a new or a chatty session."""
        error = rejection(runner, open_session(id="new").resume(Resume()))
        assert error.codes == (ProblemCode.UNKNOWN_SESSION,)
        assert "never paused" in error.problems[0].message
        chat = Session(store, ScriptedModel([Message.of_text(Role.MODEL, "hi")]), tools)
        runner.run(chat.send("hello"))
        error = rejection(
            runner, chat.resume(Resume([Respond("ask_user", "call-1", "Yes")]))
        )
        assert error.codes == (ProblemCode.UNKNOWN_SESSION,)

    def test_a_turn_that_does_not_exist(
        self, runner: asyncio.Runner, session: Session, paused: GenerateResult
    ) -> None:
        """A turn_id the session never had is unknown_turn."""
        error = rejection(runner, session.resume(yes_to(paused.interrupts), turn_id=7))
        assert error.codes == (ProblemCode.UNKNOWN_TURN,)
        assert "no turn 7" in error.problems[0].message

    def test_a_finished_session(
        self,
        log: RunLog,
        runner: asyncio.Runner,
        session: Session,
        paused: GenerateResult,
    ) -> None:
        """Resuming after the session finished is consumed; nothing runs."""
        runner.run(session.resume(yes_to(paused.interrupts)))
        for turn_id in (None, 1):
            error = rejection(runner, session.resume(Resume(), turn_id=turn_id))
            assert error.codes == (ProblemCode.CONSUMED,)
        assert log["transfer_money"] == 1


# --- authorization -----------------------------------------------------------


def owners_only(principal: str | None, pending: PendingInterrupt) -> bool:
    """Only alice approves transfers; anyone answers questions."""
    return pending.name != "transfer_money" or principal == "alice"


class TestAuthorization:
    @pytest.mark.session(authorize=owners_only)
    def test_a_refused_principal_is_not_authorized(
        self,
        store: Store,
        log: RunLog,
        runner: asyncio.Runner,
        session: Session,
        paused: GenerateResult,
    ) -> None:
        """A refusal is one not_authorized naming nothing; the turn stays open."""
        for principal in ("mallory", None):
            for resume in (yes_to(paused.interrupts), Resume()):
                error = rejection(
                    runner, session.resume(resume, turn_id=1, principal=principal)
                )
                assert error.codes == (ProblemCode.NOT_AUTHORIZED,)
                ((problem),) = error.problems
                assert (problem.index, problem.answer) == (None, None)
                assert problem.interrupt_id is None
                for pending in paused.interrupts:
                    assert pending.id not in problem.message
                    assert pending.name not in problem.message
        assert "anonymous" in error.problems[0].message
        assert log["transfer_money"] == 0
        assert not is_consumed(store, runner)
        assert runner.run(session.pending()) == paused.interrupts

    @pytest.mark.parametrize(
        "verdict",
        [
            pytest.param(False, id="False"),
            pytest.param(None, id="None"),
            pytest.param("denied: not the owner", id="truthy string"),
            pytest.param(1, id="one"),
            pytest.param([True], id="truthy list"),
        ],
    )
    @pytest.mark.parametrize("kind", ["sync", "async"])
    def test_only_exactly_true_is_consent(  # noqa: PLR0913, PLR0917 - fixtures
        self,
        open_session: OpenSession,
        store: Store,
        log: RunLog,
        runner: asyncio.Runner,
        verdict: object,
        kind: str,
    ) -> None:
        """Any answer but True, sync or awaited, refuses; the turn stays resumable."""

        def sync(_principal: str | None, _pending: PendingInterrupt) -> Any:
            return verdict

        async def asynchronous(
            _principal: str | None, _pending: PendingInterrupt
        ) -> Any:
            return verdict

        session = open_session(authorize=sync if kind == "sync" else asynchronous)
        paused = runner.run(session.send("pay"))
        error = rejection(
            runner, session.resume(yes_to(paused.interrupts), principal="alice")
        )
        assert error.codes == (ProblemCode.NOT_AUTHORIZED,)
        assert log["transfer_money"] == 0
        assert not is_consumed(store, runner)
        allowed = open_session()
        final = runner.run(allowed.resume(yes_to(paused.interrupts), turn_id=1))
        assert final.finish_reason == "stop"

    def test_an_async_authorizer_is_awaited(
        self, open_session: OpenSession, log: RunLog, runner: asyncio.Runner
    ) -> None:
        """An async authorizer is awaited: True lets one in, False keeps one out."""

        async def owners(principal: str | None, pending: PendingInterrupt) -> bool:
            await asyncio.sleep(0)
            return owners_only(principal, pending)

        session = open_session(authorize=owners)
        paused = runner.run(session.send("pay"))
        error = rejection(
            runner, session.resume(yes_to(paused.interrupts), principal="eve")
        )
        assert error.codes == (ProblemCode.NOT_AUTHORIZED,)
        final = runner.run(session.resume(yes_to(paused.interrupts), principal="alice"))
        assert final.finish_reason == "stop"
        assert log["transfer_money"] == 1

    @pytest.mark.parametrize("kind", ["sync", "async"])
    def test_an_authorizer_that_raises_refuses(
        self,
        open_session: OpenSession,
        store: Store,
        runner: asyncio.Runner,
        kind: str,
    ) -> None:
        """An exception in the authorizer is a refusal, and the turn stays open."""

        def sync(_principal: str | None, _pending: PendingInterrupt) -> bool:
            raise LookupError

        async def asynchronous(
            _principal: str | None, _pending: PendingInterrupt
        ) -> bool:
            raise LookupError

        session = open_session(authorize=sync if kind == "sync" else asynchronous)
        paused = runner.run(session.send("pay"))
        error = rejection(runner, session.resume(yes_to(paused.interrupts)))
        assert error.codes == (ProblemCode.NOT_AUTHORIZED,)
        assert isinstance(error.__cause__, LookupError)
        assert runner.run(session.pending()) == paused.interrupts
        assert not is_consumed(store, runner)

    def test_a_refused_principal_cannot_take_expiry_answers(
        self,
        open_session: OpenSession,
        store: Store,
        clock: Clock,
        runner: asyncio.Runner,
    ) -> None:
        """After expiry, an empty resume from a refused principal consumes nothing."""

        def nobody_but_alice(principal: str | None, _pending: PendingInterrupt) -> bool:
            return principal == "alice"

        session = open_session(
            authorize=nobody_but_alice, expiry_answers=True, ttl=timedelta(minutes=5)
        )
        runner.run(session.send("ask"))
        clock.advance(timedelta(hours=1))
        for principal in ("mallory", None):
            error = rejection(
                runner, session.resume(Resume(), turn_id=1, principal=principal)
            )
            assert error.codes == (ProblemCode.NOT_AUTHORIZED,)
        assert not is_consumed(store, runner)
        final = runner.run(session.resume(Resume(), turn_id=1, principal="alice"))
        assert final.finish_reason == "stop"
        assert principal_of(store, runner, SESSION, 1) == "alice"

    @settings(
        max_examples=25,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )
    @given(
        principal=st.one_of(
            st.none(),
            st.text(
                st.characters(exclude_characters="\x00", exclude_categories=["Cs"]),
                max_size=8,
            ),
        ),
        data=st.data(),
    )
    def test_every_resume_from_a_refused_principal_is_not_authorized(
        self,
        open_session: OpenSession,
        runner: asyncio.Runner,
        principal: str | None,
        data: st.DataObject,
    ) -> None:
        """For every refused principal, every resume is not_authorized alone."""
        session = open_session(
            id=f"refused-{uuid.uuid4().hex}",
            authorize=lambda who, _pending: who == "the-owner",
        )
        paused = runner.run(session.send("pay twice"))
        assume(principal != "the-owner")
        entries = data.draw(
            st.lists(
                st.sampled_from(
                    [
                        *(answer(pending) for pending in paused.interrupts),
                        Respond("transfer_money", "call-1", {"status": "sent"}),
                        Restart("nope", "call-9"),
                    ]
                ),
                max_size=4,
            )
        )
        resume = Resume(
            [e for e in entries if isinstance(e, Respond)],
            [e for e in entries if isinstance(e, Restart)],
        )
        error = rejection(runner, session.resume(resume, principal=principal))
        assert error.codes == (ProblemCode.NOT_AUTHORIZED,)
        assert runner.run(session.pending()) == paused.interrupts

    def test_a_principal_with_a_lone_surrogate_is_an_invalid_argument(
        self, open_session: OpenSession, runner: asyncio.Runner
    ) -> None:
        """A principal the audit trail cannot keep is refused; nothing is spent."""
        session = open_session(
            id=f"surrogate-{uuid.uuid4().hex}",
            authorize=lambda who, _pending: who == "the-owner",
        )
        paused = runner.run(session.send("pay twice"))
        with pytest.raises(InvalidArgument, match=r"principal: .*lone surrogate"):
            runner.run(session.resume(yes_to(paused.interrupts), principal="\ud800"))
        assert runner.run(session.pending()) == paused.interrupts

    @pytest.mark.session(authorize=owners_only)
    def test_an_allowed_principal_is_recorded_with_the_turn(
        self,
        store: Store,
        log: RunLog,
        runner: asyncio.Runner,
        session: Session,
        paused: GenerateResult,
    ) -> None:
        """The authorized principal passes and the store keeps who it was."""
        final = runner.run(
            session.resume(yes_to(paused.interrupts), turn_id=1, principal="alice")
        )
        assert final.finish_reason == "stop"
        assert log["transfer_money"] == 1
        assert principal_of(store, runner, SESSION, 1) == "alice"


# --- expiry ------------------------------------------------------------------


class TestExpiry:
    def test_the_session_ttl_and_a_tool_ttl_set_expires_at(
        self,
        open_session: OpenSession,
        tools: list[Tool[Any, Any, Any]],
        runner: asyncio.Runner,
    ) -> None:
        """Pauses expire after the session's ttl; a tool's own ttl wins."""
        session = open_session(ttl=timedelta(minutes=5))
        (pending,) = runner.run(session.send("ask")).interrupts
        assert pending.expires_at == NOW + timedelta(minutes=5)
        quick = [
            define_interrupt(
                "ask_user",
                "Ask",
                input=ASK_INPUT,
                output={"type": "string"},
                ttl=timedelta(seconds=30),
            ),
            *(t for t in tools if t.name != "ask_user"),
        ]
        other = Session(
            session.store,
            ScriptedModel(agent),
            quick,
            id="quick",
            ttl=timedelta(minutes=5),
            now=session.now,
        )
        (pending,) = runner.run(other.send("ask")).interrupts
        assert pending.expires_at == NOW + timedelta(seconds=30)

    @pytest.mark.session(ttl=timedelta(minutes=5))
    def test_a_resume_after_expiry_is_expired(  # noqa: PLR0913 - fixtures
        self,
        *,
        store: Store,
        clock: Clock,
        log: RunLog,
        runner: asyncio.Runner,
        session: Session,
        paused: GenerateResult,
    ) -> None:
        """At expires_at the resume is rejected as expired and the turn stays open."""
        clock.advance(timedelta(minutes=5))
        error = rejection(runner, session.resume(yes_to(paused.interrupts), turn_id=1))
        assert error.codes == (ProblemCode.EXPIRED,)
        assert log["transfer_money"] == 0
        assert not is_consumed(store, runner)

    def test_an_expired_question_is_answered_by_its_expiry_answer(
        self, open_session: OpenSession, clock: Clock, runner: asyncio.Runner
    ) -> None:
        """With expiry_answers, an expired, unanswered question stands as "No"."""
        session = open_session(ttl=timedelta(minutes=5), expiry_answers=True)
        paused = runner.run(session.send("ask then pay"))
        clock.advance(timedelta(hours=1))
        error = rejection(runner, session.resume(yes_to(paused.interrupts), turn_id=1))
        assert error.codes == (ProblemCode.EXPIRED,)
        final = runner.run(session.resume(Resume(), turn_id=1))
        assert final.finish_reason == "stop"
        (pending,) = paused.interrupts
        assert results_in(final.messages) == {pending.ref: "No"}

    def test_without_expiry_answers_an_expired_question_is_missing(
        self, open_session: OpenSession, clock: Clock, runner: asyncio.Runner
    ) -> None:
        """By default, an empty resume of an expired question is missing."""
        session = open_session(ttl=timedelta(minutes=5))
        runner.run(session.send("ask"))
        clock.advance(timedelta(hours=1))
        error = rejection(runner, session.resume(Resume(), turn_id=1))
        assert error.codes == (ProblemCode.MISSING,)

    @pytest.mark.session(ttl=timedelta(minutes=5))
    def test_an_expired_turn_stops_blocking_its_session(
        self,
        clock: Clock,
        runner: asyncio.Runner,
        session: Session,
        paused: GenerateResult,
    ) -> None:
        """Past expiry nothing is pending and send goes on, every call answered."""
        assert runner.run(session.pending()) == paused.interrupts
        clock.advance(timedelta(minutes=5))
        assert runner.run(session.pending()) == ()
        assert runner.run(session.pending_turn()) is None
        result = runner.run(session.send("ask"))
        assert result.finish_reason == "interrupted"
        assert result.turn is not None
        assert result.turn.turn_id == 2
        history = result.messages
        asked, answered = history[1], history[2]
        assert [r.ref for r in asked.tool_requests] == [
            r.ref for r in answered.tool_responses
        ]
        lookup, transfer_ = answered.tool_responses
        assert lookup.output == 500
        assert isinstance(transfer_.output, dict)
        assert "expired" in str(transfer_.output["error"])
        assert history[3] == Message.of_text(Role.USER, "ask")

    def test_an_expired_question_closes_with_its_expiry_answer(
        self,
        open_session: OpenSession,
        clock: Clock,
        runner: asyncio.Runner,
    ) -> None:
        """With expiry_answers, the declared answer is what the history keeps."""
        session = open_session(ttl=timedelta(minutes=5), expiry_answers=True)
        runner.run(session.send("ask"))
        clock.advance(timedelta(minutes=6))
        result = runner.run(session.send("pay"))
        (closed,) = result.messages[2].tool_responses
        assert closed.output == "No"

    def test_a_resume_for_an_expired_turn_cannot_land_on_the_next(
        self,
        open_session: OpenSession,
        store: Store,
        clock: Clock,
        log: RunLog,
        runner: asyncio.Runner,
    ) -> None:
        """Turn ids are not reused after expiry: the old turn's consume loses."""
        session = open_session(ttl=timedelta(minutes=5))
        old = runner.run(session.send("pay")).turn
        assert old is not None
        clock.advance(timedelta(minutes=10))
        runner.run(store.expire(clock()))
        new = runner.run(session.send("pay")).turn
        assert new is not None
        assert new.turn_id == old.turn_id + 1
        assert not runner.run(store.consume(old, yes_to(old.interrupts), None))
        error = rejection(
            runner, session.resume(yes_to(old.interrupts), turn_id=old.turn_id)
        )
        assert error.codes == (ProblemCode.CONSUMED,)
        assert log["transfer_money"] == 0
        assert runner.run(session.pending()) == new.interrupts


# --- forgery -----------------------------------------------------------------


class TestForgery:
    @settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(tool_sets(), batches(), TTLS, st.data())
    def test_every_mutated_resume_is_rejected_and_the_turn_stays_resumable(  # noqa: PLR0913, PLR0917 - fixtures and draws
        self,
        store: Store,
        runner: asyncio.Runner,
        tools: ToolSet,
        batch: tuple[Call, ...],
        ttl: timedelta | None,
        data: st.DataObject,
    ) -> None:
        """Mutated, late and unauthorized resumes are refused; none runs or spends."""
        ledger = Ledger()
        model = tools.model(batch)
        clock = Clock()
        session = Session(
            store,
            model,
            tools.tools(ledger),
            approver=tools.approver,
            ttl=ttl,
            now=clock,
            authorize=lambda principal, _pending: principal == "alice",
        )

        paused = runner.run(session.send("go"))
        turn = paused.turn
        assert turn is not None
        turn_id = turn.turn_id

        async def refused(resume: Resume, principal: str = "alice") -> ResumeRejected:
            with pytest.raises(ResumeRejected) as caught:
                await session.resume(resume, turn_id=turn_id, principal=principal)
            return caught.value

        runs = ledger.runs.copy()
        resume = resume_of(data.draw(answers(pending)) for pending in turn.interrupts)
        late = sorted({e for p in turn.interrupts if (e := turn.expiry_of(p))})
        event(f"{len(late)} expiry moment(s), {len(turn.interrupts)} pending")

        async def attempt() -> None:
            for mutation in mutations(resume, turn):
                rejected = await refused(mutation.resume)
                assert set(rejected.codes) == mutation.codes, mutation.what
            rejected = await refused(resume, principal="mallory")
            assert rejected.codes == (ProblemCode.NOT_AUTHORIZED,)
            for moment in late:
                clock.moment = moment
                rejected = await refused(resume)
                assert set(rejected.codes) == {ProblemCode.EXPIRED}, moment
            clock.moment = NOW
            assert ledger.runs == runs
            assert len(model.requests) == 1
            kept = await store.load_turn(session.id, turn.turn_id)
            assert kept is not None
            assert kept.state == "open"
            assert await session.pending() == turn.interrupts
            final = await session.resume(
                resume, turn_id=turn.turn_id, principal="alice"
            )
            assert final.finish_reason == "stop"
            rejected = await refused(resume)
            assert rejected.codes == (ProblemCode.CONSUMED,)

        runner.run(attempt())


# --- one send at a time: the session's lease ---------------------------------


class Held:
    """A model step that waits, once entered, until the test lets it go."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.go = asyncio.Event()

    async def __call__(self, request: ModelRequest) -> Message:
        """Say it is in, wait, then answer as `agent` would (or echo)."""
        self.entered.set()
        await self.go.wait()
        last = request.messages[-1]
        if last.role is Role.USER and last.text.startswith("say "):
            return Message.of_text(Role.MODEL, f"said {last.text[4:]}")
        return agent(request)


def said(session: Session, held: Held) -> Session:
    """*session* with a model that waits on *held* at every call."""
    session.model = ScriptedModel(held)
    return session


class TestOneSendAtATime:
    @pytest.mark.parametrize("first", ["say one", "pay"])
    def test_a_second_send_meanwhile_gets_session_in_use_and_nothing_is_lost(
        self,
        open_session: OpenSession,
        reopen: Callable[[], Store],
        log: RunLog,
        runner: asyncio.Runner,
        first: str,
    ) -> None:
        """A send while another runs (any store object) is refused; none is lost."""
        held, free = Held(), Held()
        free.go.set()  # were it let in, the second send would run to its end
        running = said(open_session(), held)
        other = said(open_session(on=reopen()), free)

        async def race() -> tuple[GenerateResult, BaseException | None]:
            task = asyncio.ensure_future(running.send(first))
            await held.entered.wait()
            refused = None
            try:
                await other.send("say two")
            except SessionInUse as error:
                refused = error
            held.go.set()
            return await task, refused

        result, refused = runner.run(race())
        assert isinstance(refused, SessionInUse)
        assert (refused.code, refused.session) == ("session_in_use", SESSION)
        assert isinstance(refused, SessionBusy)
        assert not other.model.requests  # type: ignore[attr-defined]
        history = runner.run(running.store.load_history(SESSION))
        assert history == result.messages
        assert [m.text for m in history if m.role is Role.USER] == [first]
        assert log["lookup"] == (1 if first == "pay" else 0)
        if first == "say one":  # the session is free again: the second goes on
            again = runner.run(said(open_session(on=reopen()), free).send("say two"))
            assert again.messages[:2] == history

    @settings(
        max_examples=30,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )
    @given(waits=st.lists(st.integers(0, 4), min_size=2, max_size=5))
    def test_concurrent_sends_keep_each_exchange_whole(
        self,
        store: Store,
        runner: asyncio.Runner,
        waits: list[int],
    ) -> None:
        """However sends interleave, the history is the winners' exchanges, whole."""
        session_id = f"law-{uuid.uuid4().hex}"

        def model(wait: int) -> ScriptedModel:
            async def answer(request: ModelRequest) -> Message:
                for _ in range(wait):
                    await asyncio.sleep(0)
                return Message.of_text(Role.MODEL, f"re {request.messages[-1].text}")

            return ScriptedModel(answer)

        async def race() -> list[GenerateResult | BaseException]:
            sends = [
                Session(store, model(wait), id=session_id).send(f"m{n}")
                for n, wait in enumerate(waits)
            ]
            return await asyncio.gather(*sends, return_exceptions=True)

        outcomes = runner.run(race())
        won = [o for o in outcomes if isinstance(o, GenerateResult)]
        assert all(isinstance(o, (GenerateResult, SessionInUse)) for o in outcomes), (
            outcomes
        )
        event(f"{len(won)} of {len(waits)} kept")
        history = runner.run(store.load_history(session_id)) or ()
        texts = [message.text for message in history]
        assert len(texts) == 2 * len(won)
        pairs = list(zip(texts[::2], texts[1::2], strict=True))
        assert sorted(pairs) == sorted(
            (r.messages[-2].text, r.message.text) for r in won
        )
        assert all(said == f"re {asked}" for asked, said in pairs)

    def test_a_crashed_holder_blocks_until_its_lease_ends(
        self,
        open_session: OpenSession,
        store: Store,
        clock: Clock,
        runner: asyncio.Runner,
    ) -> None:
        """A lease nobody releases (its process died) ends after `lease`."""
        session = open_session(lease=timedelta(minutes=2))
        session.model = ScriptedModel([Message.of_text(Role.MODEL, "hi")])
        assert runner.run(store.lease(SESSION, "dead", NOW, NOW + LEASE))
        with pytest.raises(SessionInUse):
            runner.run(session.send("hello"))
        clock.advance(LEASE - timedelta(seconds=1))
        with pytest.raises(SessionInUse):
            runner.run(session.send("hello"))
        clock.advance(timedelta(seconds=1))
        assert runner.run(session.send("hello")).finish_reason == "stop"
        assert runner.run(store.load_history(SESSION)) is not None

    def test_the_lease_is_renewed_at_every_step(
        self,
        open_session: OpenSession,
        clock: Clock,
        runner: asyncio.Runner,
    ) -> None:
        """A send that outlasts one lease keeps it: its steps renew it."""
        outcome: list[BaseException | None] = []
        other = open_session()

        async def slow(request: ModelRequest) -> Message:
            clock.advance(timedelta(minutes=4))
            if request.messages[-1].role is Role.USER:
                return Message(Role.MODEL, (ToolRequest("lookup", input={}),))
            try:  # 8 minutes in: past the first lease, within the renewed one
                await other.send("say two")
            except SessionInUse as error:
                outcome.append(error)
            return Message.of_text(Role.MODEL, "done")

        session = open_session(lease=timedelta(minutes=5))
        session.model = ScriptedModel(slow)
        assert runner.run(session.send("look")).finish_reason == "stop"
        assert [type(error) for error in outcome] == [SessionInUse]

    def test_a_quick_send_takes_and_releases_the_lease_once(
        self, open_session: OpenSession, store: Store, runner: asyncio.Runner
    ) -> None:
        """Steps within the first half of the lease do not write it again."""
        calls: list[str] = []

        class Counting(Wrapped):
            async def lease(
                self,
                session: str,
                holder: str,
                now: datetime,
                until: datetime,
                *,
                renew: bool = False,
            ) -> bool:
                calls.append("renew" if renew else "lease")
                return await self.inner.lease(session, holder, now, until, renew=renew)

            async def release(self, session: str, holder: str) -> None:
                calls.append("release")
                await self.inner.release(session, holder)

        paused = runner.run(open_session(on=Counting(store)).send("pay"))
        assert paused.finish_reason == "interrupted"
        assert calls == ["lease", "release"]

    def test_a_send_that_outlasts_its_lease_stops_before_it_writes(
        self,
        open_session: OpenSession,
        store: Store,
        clock: Clock,
        runner: asyncio.Runner,
    ) -> None:
        """A step past the lease lets another send in; the first writes nothing."""
        free = Held()
        free.go.set()
        other = said(open_session(), free)

        async def stuck(_request: ModelRequest) -> Message:
            clock.advance(timedelta(minutes=6))
            await other.send("say two")  # the lease ended: the other takes it
            return Message.of_text(Role.MODEL, "late")

        session = open_session(lease=timedelta(minutes=5))
        session.model = ScriptedModel(stuck)
        with pytest.raises(SessionInUse, match="outlasted"):
            runner.run(session.send("say one"))
        history = runner.run(store.load_history(SESSION))
        assert history is not None
        assert [m.text for m in history] == ["say two", "said two"]

    def test_two_recoveries_at_once_continue_once(
        self,
        open_session: OpenSession,
        store: Store,
        log: RunLog,
        runner: asyncio.Runner,
    ) -> None:
        """Of two concurrent recoveries, one runs; the other gets SessionInUse."""
        crash_after_consume(open_session, store, runner)
        held = Held()

        async def race() -> list[GenerateResult | BaseException | None]:
            first = asyncio.ensure_future(said(open_session(), held).recover())
            await held.entered.wait()
            free = Held()
            free.go.set()
            second = await asyncio.gather(
                said(open_session(), free).recover(), return_exceptions=True
            )
            held.go.set()
            return [await first, *second]

        won, lost = runner.run(race())
        assert isinstance(won, GenerateResult)
        assert isinstance(lost, SessionInUse)
        assert log["transfer_money"] == 1
        assert runner.run(open_session().recover()) is None

    def test_a_recovery_that_finds_it_done_under_the_lease_does_nothing(
        self,
        open_session: OpenSession,
        store: Store,
        log: RunLog,
        runner: asyncio.Runner,
    ) -> None:
        """A recovery that another finished while it waited for the lease: None."""
        crash_after_consume(open_session, store, runner)

        class OtherFirst(Wrapped):
            async def lease(
                self,
                session: str,
                holder: str,
                now: datetime,
                until: datetime,
                *,
                renew: bool = False,
            ) -> bool:
                await open_session().recover()  # finishes first, and releases
                return await self.inner.lease(session, holder, now, until, renew=renew)

        assert runner.run(open_session(on=OtherFirst(store)).recover()) is None
        assert log["transfer_money"] == 1

    @pytest.mark.usefixtures("paused")
    def test_nothing_to_recover_takes_no_lease(
        self, open_session: OpenSession, store: Store, runner: asyncio.Runner
    ) -> None:
        """recover() with nothing to finish returns None, even while a lease is held."""
        assert runner.run(store.lease(SESSION, "dead", NOW, NOW + LEASE))
        assert runner.run(open_session().recover()) is None

    def test_a_session_id_no_store_holds_is_refused_up_front(
        self, store: Store, tools: list[Tool[Any, Any, Any]]
    ) -> None:
        """An id with NUL, empty or too long is InvalidArgument when built."""
        for bad in ("a\x00b", "", "s" * (MAX_ID + 1), "\ud800", 7):
            with pytest.raises(InvalidArgument) as caught:
                Session(store, ScriptedModel(agent), tools, id=bad)  # type: ignore[arg-type]
            assert caught.value.where == "Session: id"
        with pytest.raises(InvalidArgument):
            Session(store, ScriptedModel(agent), tools, lease=timedelta(0))

    def test_a_send_of_no_message_is_refused(
        self, open_session: OpenSession, store: Store, runner: asyncio.Runner
    ) -> None:
        """send([]) is InvalidArgument; the model is not asked, nothing is kept."""
        session = open_session()
        with pytest.raises(InvalidArgument, match="send: messages"):
            runner.run(session.send([]))
        assert not session.model.requests  # type: ignore[attr-defined]
        assert runner.run(store.load_history(SESSION)) is None


# --- a call that ran keeps its output ----------------------------------------


class TestPausedAfterItRan:
    @pytest.mark.session(schedule=PauseSchedule(after={"lookup"}))
    def test_cancel_keeps_the_real_output_of_a_call_that_ran(
        self,
        store: Store,
        log: RunLog,
        runner: asyncio.Runner,
        session: Session,
        paused: GenerateResult,
    ) -> None:
        """Cancelled, a call that ran keeps its output; the trail says cancelled."""
        assert {p.name for p in paused.interrupts} == {"lookup", "transfer_money"}
        assert log["lookup"] == 1
        runner.run(session.cancel("not today", principal="alice"))
        history = runner.run(store.load_history(SESSION))
        assert history is not None
        outputs = {r.name: r.output for r in history[-1].tool_responses}
        assert outputs == {
            "lookup": 500,
            "transfer_money": {"error": "cancelled: not today"},
        }
        assert runner.run(session.audit())[-1].reason == "not today"
        assert (log["lookup"], log["transfer_money"]) == (1, 0)

    def test_expiry_keeps_the_real_output_of_a_call_that_ran(
        self,
        open_session: OpenSession,
        store: Store,
        clock: Clock,
        runner: asyncio.Runner,
    ) -> None:
        """Expired, a call paused after it ran keeps its output."""
        session = open_session(
            schedule=PauseSchedule(after={"lookup"}), ttl=timedelta(minutes=5)
        )
        runner.run(session.send("pay"))
        clock.advance(timedelta(hours=1))
        assert runner.run(session.expire())
        history = runner.run(store.load_history(SESSION))
        assert history is not None
        outputs = {r.name: r.output for r in history[-1].tool_responses}
        assert outputs["lookup"] == 500
        assert isinstance(outputs["transfer_money"], dict)
        assert "expired" in str(outputs["transfer_money"]["error"])


# --- arguments and authorization first ---------------------------------------


class TestArguments:
    @pytest.mark.parametrize("turn_id", [0, -1, 2**63, 2**64, True])
    def test_a_turn_id_out_of_range_is_invalid(
        self,
        runner: asyncio.Runner,
        turn_id: int,
        session: Session,
        paused: GenerateResult,
    ) -> None:
        """Resume and cancel take turn ids from 1 to 2**63 - 1; others are invalid."""
        with pytest.raises(InvalidArgument) as caught:
            runner.run(session.resume(yes_to(paused.interrupts), turn_id=turn_id))
        assert caught.value.where == "turn_id"
        with pytest.raises(InvalidArgument):
            runner.run(session.cancel("no", turn_id=turn_id))
        assert runner.run(session.pending()) == paused.interrupts

    @pytest.mark.parametrize("reason", ["", "   ", "\n\t", "x" * (MAX_REASON + 1)])
    def test_a_blank_or_oversized_reason_is_invalid(
        self,
        runner: asyncio.Runner,
        reason: str,
        session: Session,
        paused: GenerateResult,
    ) -> None:
        """A cancel reason is non-blank text of at most MAX_REASON characters."""
        with pytest.raises(InvalidArgument) as caught:
            runner.run(session.cancel(reason))
        assert caught.value.where == "cancel: reason"
        assert caught.value.code == "invalid_argument"
        assert len(str(caught.value)) < 200
        assert runner.run(session.pending()) == paused.interrupts
        assert [e.kind for e in runner.run(session.audit())] == ["paused"]
        runner.run(session.cancel("x" * MAX_REASON))

    @settings(
        max_examples=40,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )
    @given(session_id=st.text(max_size=300))
    def test_every_session_id_is_taken_or_invalid(
        self,
        store: Store,
        tools: list[Tool[Any, Any, Any]],
        runner: asyncio.Runner,
        session_id: str,
    ) -> None:
        """Any text as a session id is refused as invalid, or read and written."""
        try:
            session = Session(store, ScriptedModel(agent), tools, id=session_id)
        except InvalidArgument:
            event("invalid")
            assert not session_id or "\x00" in session_id or len(session_id) > MAX_ID
            return
        event("taken")
        assert runner.run(session.pending()) == ()
        assert runner.run(session.audit()) == ()
        error = rejection(runner, session.cancel("stop"))
        assert error.codes == (ProblemCode.UNKNOWN_SESSION,)


class TestAuthorizationFirst:
    @settings(
        max_examples=30,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )
    @given(
        turn_id=st.one_of(st.none(), st.integers(1, 3), st.integers(1, MAX_TURN_ID)),
        paused=st.booleans(),
        cancel=st.booleans(),
    )
    def test_a_refused_principal_learns_nothing_about_what_exists(
        self,
        open_session: OpenSession,
        runner: asyncio.Runner,
        turn_id: int | None,
        paused: bool,
        cancel: bool,
    ) -> None:
        """A refused principal gets not_authorized alone, whatever it names."""
        session = open_session(id=f"a-{uuid.uuid4().hex}", authorize=owners_only)
        if paused:
            runner.run(session.send("pay"))
        call = (
            session.cancel("stop", turn_id=turn_id, principal="mallory")
            if cancel
            else session.resume(Resume(), turn_id=turn_id, principal="mallory")
        )
        error = rejection(runner, call)
        assert error.codes == (ProblemCode.NOT_AUTHORIZED,)
        assert session.id not in error.problems[0].message
        if paused:
            assert runner.run(session.pending()) != ()

    def test_an_allowed_principal_still_learns_what_is_missing(
        self, open_session: OpenSession, runner: asyncio.Runner
    ) -> None:
        """An allowed principal naming a turn the session never had: unknown_turn."""
        session = open_session(authorize=owners_only)
        runner.run(session.send("pay"))
        error = rejection(
            runner, session.resume(Resume(), turn_id=7, principal="alice")
        )
        assert error.codes == (ProblemCode.UNKNOWN_TURN,)
        kinds = [e.codes for e in runner.run(session.audit()) if e.kind == "rejected"]
        assert kinds == [("unknown_turn",)]


class GatedFinish(Wrapped):
    """A store whose `finish` waits until *parties* callers are at it."""

    def __init__(self, inner: Store, parties: int) -> None:
        super().__init__(inner)
        self.gate = asyncio.Barrier(parties)

    async def finish(  # noqa: PLR0913 - the protocol's options
        self,
        turn: InterruptedTurn,
        history: Sequence[Message],
        following: InterruptedTurn | None = None,
        *,
        close: Resume | None = None,
        principal: str | None = None,
        events: Sequence[AuditEvent] = (),
    ) -> bool:
        """Wait for the others, then delegate."""
        await self.gate.wait()
        return await self.inner.finish(
            turn, history, following, close=close, principal=principal, events=events
        )


class TestCancelRace:
    @pytest.mark.usefixtures("paused")
    def test_two_cancels_at_the_close_one_wins(
        self, open_session: OpenSession, store: Store, runner: asyncio.Runner
    ) -> None:
        """Two cancels that both found the turn open: one closes it, one is consumed."""

        async def race() -> tuple[BaseException | None, ...]:
            gated = GatedFinish(store, 2)
            return await asyncio.gather(
                open_session(on=gated).cancel("one", turn_id=1),
                open_session(on=gated).cancel("two", turn_id=1),
                return_exceptions=True,
            )

        outcomes = runner.run(race())
        lost = [o for o in outcomes if isinstance(o, ResumeRejected)]
        assert [o for o in outcomes if o is None] == [None]
        assert [error.codes for error in lost] == [(ProblemCode.CONSUMED,)]
        kinds = [e.kind for e in runner.run(store.audit(SESSION))]
        assert kinds == ["paused", "cancelled", "rejected"]


# --- closing expired turns without a send ------------------------------------


class TestExpire:
    def test_expire_closes_an_expired_turn_once_without_a_send(
        self,
        open_session: OpenSession,
        store: Store,
        clock: Clock,
        runner: asyncio.Runner,
    ) -> None:
        """expire() closes a turn nobody can answer; listings follow; once only."""
        session = open_session(ttl=timedelta(minutes=5))
        runner.run(session.send("ask"))
        assert not runner.run(session.expire())
        assert runner.run(store.sessions("open", now=clock())) == (SESSION,)
        clock.advance(timedelta(minutes=5))
        assert runner.run(store.sessions("open", now=clock())) == ()
        assert runner.run(store.sessions("expired", now=clock())) == (SESSION,)
        assert session.expire_sync()
        assert not runner.run(open_session().expire())
        assert runner.run(store.sessions("expired", now=clock())) == ()
        assert [e.kind for e in runner.run(session.audit())] == ["paused", "expired"]
        stored = runner.run(store.load_turn(SESSION))
        assert stored is not None
        assert stored.state == "completed"
