"""Running a service on sessions: cancel, the audit trail, start-up recovery.

Every test runs against each store (the ``store`` fixture): what a service
needs must hold the same on the embedded default and on PostgreSQL.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from interruption import (
    ApprovalPending,
    AuditEvent,
    InvalidArgument,
    Message,
    PendingInterrupt,
    PendingTurn,
    ProblemCode,
    Resume,
    ResumeRejected,
    Role,
    Session,
    dumps,
    json_schema,
    loads,
    unstructure,
    wire_digest,
)
from interruption.runtime.store import MAX_REJECTED, MemoryStore, Store
from interruption.testing import ScriptedModel

from tests.sessions import APPROVER, RunLog, agent, make_tools

NOW = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)
SESSION = "s-ops"


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.moment = NOW

    def __call__(self) -> datetime:
        """The time it reads."""
        return self.moment


@pytest.fixture(name="clock")
def _clock() -> Clock:
    return Clock()


@pytest.fixture(name="log")
def _log(tmp_path: Path) -> RunLog:
    return RunLog(tmp_path / "runs.db")


@pytest.fixture(name="open_session")
def _open_session(store: Store, log: RunLog, clock: Clock) -> Callable[..., Session]:
    """Make a session on the store, with a fresh model each time."""

    def open_session(**options: Any) -> Session:
        options.setdefault("id", SESSION)
        options.setdefault("approver", APPROVER)
        options.setdefault("now", clock)
        return Session(store, ScriptedModel(agent), make_tools(log), **options)

    return open_session


OpenSession = Callable[..., Session]


def approve_all(interrupts: tuple[PendingInterrupt, ...]) -> Resume:
    """A resume approving every (approval) interrupt."""
    return Resume(restart=tuple(pending.approve("ok") for pending in interrupts))


def rejection(runner: asyncio.Runner, coroutine: Any) -> ResumeRejected:
    """The `ResumeRejected` a coroutine raises; fails if it returns."""
    with pytest.raises(ResumeRejected) as caught:
        runner.run(coroutine)
    return caught.value


class TestCancel:
    def test_cancel_answers_each_paused_call_and_the_conversation_goes_on(
        self, open_session: OpenSession, runner: asyncio.Runner, log: RunLog
    ) -> None:
        """A cancelled call is told why; a finished sibling keeps its output."""
        session = open_session()
        runner.run(session.send("pay"))
        runner.run(session.cancel("wrong account", principal="alice"))
        assert runner.run(session.pending()) == ()
        history = runner.run(session.store.load_history(SESSION))
        assert history is not None
        last = history[-1]
        assert last.role is Role.TOOL
        outputs = {r.name: r.output for r in last.tool_responses}
        assert outputs == {
            "lookup": 500,
            "transfer_money": {"error": "cancelled: wrong account"},
        }
        assert log["transfer_money"] == 0
        result = runner.run(session.send("ask"))
        assert result.finish_reason == "interrupted"
        assert result.messages[: len(history)] == history

    def test_a_cancelled_turn_cannot_be_resumed_or_cancelled_again(
        self, open_session: OpenSession, runner: asyncio.Runner, log: RunLog
    ) -> None:
        """Cancel is single use, like a resume: both get consumed afterwards."""
        session = open_session()
        paused = runner.run(session.send("pay"))
        assert paused.turn is not None
        runner.run(session.cancel("no"))
        again = rejection(runner, session.cancel("no"))
        late = rejection(
            runner,
            session.resume(approve_all(paused.turn.interrupts), turn_id=1),
        )
        assert again.codes == late.codes == (ProblemCode.CONSUMED,)
        assert log["transfer_money"] == 0

    def test_cancel_is_authorized_like_a_resume(
        self, open_session: OpenSession, runner: asyncio.Runner
    ) -> None:
        """A refused, raising or truthy-but-not-True authorizer leaves it open."""
        answers: dict[str | None, object] = {"alice": True, "bob": 1}

        def authorize(principal: str | None, _pending: PendingInterrupt) -> bool:
            if principal == "mallory":
                msg = "directory down"
                raise RuntimeError(msg)
            return answers.get(principal, False)  # type: ignore[return-value]

        session = open_session(authorize=authorize)
        runner.run(session.send("pay"))
        for principal in ("bob", "mallory", None):
            refused = rejection(runner, session.cancel("x", principal=principal))
            assert refused.codes == (ProblemCode.NOT_AUTHORIZED,)
            assert runner.run(session.pending()) != ()
        runner.run(session.cancel("x", principal="alice"))
        assert runner.run(session.pending()) == ()

    def test_an_async_authorizer_is_awaited(
        self, open_session: OpenSession, runner: asyncio.Runner
    ) -> None:
        """An async authorizer's True allows the cancel; its False refuses."""

        async def authorize(principal: str | None, _pending: PendingInterrupt) -> bool:
            await asyncio.sleep(0)
            return principal == "alice"

        session = open_session(authorize=authorize)
        runner.run(session.send("pay"))
        refused = rejection(runner, session.cancel("x", principal="eve"))
        assert refused.codes == (ProblemCode.NOT_AUTHORIZED,)
        runner.run(session.cancel("x", principal="alice"))
        assert runner.run(session.pending()) == ()

    @pytest.mark.parametrize("reason", ["", "   ", None, 7])
    def test_a_reason_is_required(
        self, open_session: OpenSession, runner: asyncio.Runner, reason: object
    ) -> None:
        """A missing or blank reason is an InvalidArgument; nothing changes."""
        session = open_session()
        runner.run(session.send("pay"))
        with pytest.raises(InvalidArgument, match="cancel: reason: expected text"):
            runner.run(session.cancel(reason))  # type: ignore[arg-type]
        assert runner.run(session.pending()) != ()

    def test_unknown_sessions_and_turns_are_named(
        self, open_session: OpenSession, runner: asyncio.Runner
    ) -> None:
        """Cancel of a session never paused, or of a turn it never had, says so."""
        fresh = open_session(id="s-never")
        assert rejection(runner, fresh.cancel("x")).codes == (
            ProblemCode.UNKNOWN_SESSION,
        )
        session = open_session()
        runner.run(session.send("pay"))
        assert rejection(runner, session.cancel("x", turn_id=9)).codes == (
            ProblemCode.UNKNOWN_TURN,
        )
        runner.run(session.cancel("x", turn_id=1))

    def test_a_stale_turn_id_is_consumed(
        self, open_session: OpenSession, runner: asyncio.Runner
    ) -> None:
        """Cancelling turn 1 after it was answered (turn 2 pending) is refused."""
        session = open_session()
        first = runner.run(session.send("pay twice"))
        assert first.turn is not None
        runner.run(session.resume(approve_all(first.turn.interrupts), turn_id=1))
        runner.run(session.send("ask"))
        stale = rejection(runner, session.cancel("x", turn_id=1))
        assert stale.codes == (ProblemCode.CONSUMED,)
        pending = runner.run(session.pending_state())
        assert pending is not None
        assert pending.turn_id == 2

    def test_cancel_and_resume_race_with_one_winner(
        self, open_session: OpenSession, runner: asyncio.Runner, log: RunLog
    ) -> None:
        """A cancel and a resume at once: exactly one wins, the other is consumed."""
        session = open_session()
        paused = runner.run(session.send("pay"))
        assert paused.turn is not None
        resume = approve_all(paused.turn.interrupts)

        async def race() -> tuple[object, ...]:
            other = open_session()
            return await asyncio.gather(
                session.cancel("stop"),
                other.resume(resume, turn_id=1),
                return_exceptions=True,
            )

        outcomes = runner.run(race())
        losers = [o for o in outcomes if isinstance(o, ResumeRejected)]
        assert len(losers) == 1
        assert losers[0].codes == (ProblemCode.CONSUMED,)
        assert log["transfer_money"] == (0 if outcomes[0] is None else 1)

    def test_the_sync_twin_cancels(self, open_session: OpenSession) -> None:
        """cancel_sync does what cancel does, without an event loop."""
        session = open_session()
        session.send_sync("pay")
        session.cancel_sync("not today", principal="alice")
        assert session.pending_sync() == ()
        assert session.audit_sync()[-1].reason == "not today"


class TestAuditTrail:
    def test_every_step_of_a_turn_is_recorded(
        self, open_session: OpenSession, runner: asyncio.Runner, clock: Clock
    ) -> None:
        """Paused, rejected, accepted, paused again, cancelled: who, when, what."""
        session = open_session()
        first = runner.run(session.send("pay twice"))
        assert first.turn is not None
        ids = tuple(pending.id for pending in first.turn.interrupts)
        bad = Resume()
        clock.moment += timedelta(minutes=1)
        refused = rejection(runner, session.resume(bad, principal="eve"))
        assert refused.codes == (ProblemCode.MISSING, ProblemCode.MISSING)
        good = approve_all(first.turn.interrupts)
        clock.moment += timedelta(minutes=1)
        runner.run(session.resume(good, turn_id=1, principal="alice"))
        second = runner.run(session.send("pay"))
        assert second.turn is not None
        clock.moment += timedelta(minutes=1)
        runner.run(session.cancel("wrong account", principal="bob"))
        minute = timedelta(minutes=1)
        assert runner.run(session.audit()) == (
            AuditEvent(SESSION, 1, "paused", NOW, pending=ids),
            AuditEvent(
                SESSION,
                1,
                "rejected",
                NOW + minute,
                principal="eve",
                codes=("missing",),
                digest=wire_digest(bad),
            ),
            AuditEvent(
                SESSION,
                1,
                "accepted",
                NOW + 2 * minute,
                principal="alice",
                digest=wire_digest(good),
            ),
            AuditEvent(
                SESSION,
                2,
                "paused",
                NOW + 2 * minute,
                pending=tuple(pending.id for pending in second.turn.interrupts),
            ),
            AuditEvent(
                SESSION,
                2,
                "cancelled",
                NOW + 3 * minute,
                principal="bob",
                reason="wrong account",
            ),
        )

    def test_an_expired_turn_is_recorded_when_it_closes(
        self, open_session: OpenSession, runner: asyncio.Runner, clock: Clock
    ) -> None:
        """Send closes an expired turn, and the trail says it expired."""
        session = open_session(ttl=timedelta(minutes=5))
        runner.run(session.send("pay"))
        clock.moment += timedelta(minutes=6)
        runner.run(session.send("ask"))
        kinds = [(event.turn_id, event.kind) for event in runner.run(session.audit())]
        assert kinds == [(1, "paused"), (1, "expired"), (2, "paused")]

    def test_a_recovery_is_recorded(
        self, open_session: OpenSession, runner: asyncio.Runner, store: Store
    ) -> None:
        """A continuation taken up again after a crash is marked recovered."""
        session = open_session()
        paused = runner.run(session.send("pay"))
        assert paused.turn is not None
        # The crash: the turn was consumed, and its process died at once.
        resume = approve_all(paused.turn.interrupts)
        assert runner.run(store.consume(paused.turn, resume, "alice"))
        assert runner.run(store.sessions("consumed")) == (SESSION,)
        result = runner.run(open_session().recover())
        assert result is not None
        assert result.finish_reason == "stop"
        kinds = [event.kind for event in runner.run(session.audit())]
        assert kinds == ["paused", "recovered"]

    def test_rejected_attempts_are_bounded(
        self, open_session: OpenSession, runner: asyncio.Runner
    ) -> None:
        """Past MAX_REJECTED refused attempts a turn's trail stops growing."""
        session = open_session()
        runner.run(session.send("pay"))
        for _ in range(MAX_REJECTED + 3):
            rejection(runner, session.resume(Resume(), principal="eve"))
        trail = runner.run(session.audit())
        rejected = [event for event in trail if event.kind == "rejected"]
        assert len(rejected) == MAX_REJECTED
        assert len(trail) == MAX_REJECTED + 1

    def test_an_unknown_turn_is_logged_against_the_latest(
        self, open_session: OpenSession, runner: asyncio.Runner
    ) -> None:
        """A resume naming a turn never had is recorded on the latest turn."""
        session = open_session()
        runner.run(session.send("pay"))
        rejection(runner, session.resume(Resume(), turn_id=42, principal="eve"))
        last = runner.run(session.audit())[-1]
        assert (last.turn_id, last.kind, last.codes, last.principal) == (
            1,
            "rejected",
            ("unknown_turn",),
            "eve",
        )

    def test_a_session_that_never_paused_records_nothing(
        self, open_session: OpenSession, runner: asyncio.Runner
    ) -> None:
        """Attempts at an unknown session leave no trail (nothing to attach to)."""
        session = open_session(id="s-none")
        rejection(runner, session.resume(Resume(), principal="eve"))
        assert runner.run(session.audit()) == ()

    def test_events_round_trip_and_fit_their_schema(
        self, open_session: OpenSession, runner: asyncio.Runner
    ) -> None:
        """Every event's wire form reads back equal and fits the published schema."""
        session = open_session()
        runner.run(session.send("pay"))
        rejection(runner, session.resume(Resume(), principal="eve"))
        runner.run(session.cancel("no"))
        schema = json_schema(AuditEvent)
        for event in runner.run(session.audit()):
            jsonschema.validate(unstructure(event), schema)
            assert loads(dumps(event), AuditEvent) == event


class TestPendingState:
    def test_what_a_client_needs_in_one_record(
        self, open_session: OpenSession, runner: asyncio.Runner, clock: Clock
    ) -> None:
        """The turn id to echo, what is pending, and when it all expires."""
        session = open_session(ttl=timedelta(minutes=10))
        assert runner.run(session.pending_state()) is None
        paused = runner.run(session.send("pay"))
        assert paused.turn is not None
        state = runner.run(session.pending_state())
        assert state is not None
        closes = NOW + timedelta(minutes=10)
        assert (state.session, state.turn_id, state.expires_at) == (SESSION, 1, closes)
        assert [p.id for p in state.interrupts] == [
            p.id for p in paused.turn.interrupts
        ]
        assert all(p.expires_at == closes for p in state.interrupts)
        assert isinstance(state.interrupts[0].kind, ApprovalPending)
        assert state.interrupts[0].accepts == paused.turn.interrupts[0].accepts
        assert session.pending_state_sync() == state
        clock.moment = closes
        assert runner.run(session.pending_state()) is None

    def test_its_wire_form_round_trips_and_fits_its_schema(
        self, open_session: OpenSession, runner: asyncio.Runner
    ) -> None:
        """dumps/loads round-trip, and the published schema accepts it."""
        session = open_session()
        runner.run(session.send("pay"))
        state = runner.run(session.pending_state())
        assert state is not None
        jsonschema.validate(unstructure(state), json_schema(PendingTurn))
        assert loads(dumps(state), PendingTurn) == state

    def test_a_client_answers_from_it(
        self, open_session: OpenSession, runner: asyncio.Runner, log: RunLog
    ) -> None:
        """A resume built from the decoded record, with its turn id, is accepted."""
        session = open_session()
        runner.run(session.send("pay"))
        state = loads(dumps(session.pending_state_sync()), PendingTurn)
        answer = approve_all(state.interrupts)
        result = session.resume_sync(answer, turn_id=state.turn_id)
        assert result.finish_reason == "stop"
        assert log["transfer_money"] == 1

    def test_the_sync_twins_read_the_pending_turn(
        self, open_session: OpenSession
    ) -> None:
        """pending_turn_sync returns the turn with its history."""
        session = open_session()
        assert session.pending_turn_sync() is None
        paused = session.send_sync("pay")
        assert session.pending_turn_sync() == paused.turn


class TestStartUpRecovery:
    def test_a_server_finds_and_recovers_every_cut_short_session(
        self, open_session: OpenSession, runner: asyncio.Runner, store: Store
    ) -> None:
        """sessions('consumed') lists them; recovering each empties the list."""
        for name in ("s-b", "s-a", "s-c"):
            paused = runner.run(open_session(id=name).send("pay"))
            assert paused.turn is not None
            if name != "s-c":  # s-c stays pending
                resume = approve_all(paused.turn.interrupts)
                assert runner.run(store.consume(paused.turn, resume, None))
        assert runner.run(store.sessions("consumed")) == ("s-a", "s-b")
        assert runner.run(store.sessions("open")) == ("s-c",)
        for name in runner.run(store.sessions("consumed")):
            assert runner.run(open_session(id=name).recover()) is not None
        assert runner.run(store.sessions("consumed")) == ()

    def test_an_unknown_state_is_refused(self, runner: asyncio.Runner) -> None:
        """Listing by a state the stores do not list by is an InvalidArgument."""
        with pytest.raises(InvalidArgument, match="expected 'open', 'expired' or"):
            runner.run(MemoryStore().sessions("completed"))  # type: ignore[arg-type]


class TestRecording:
    def test_results_that_finish_together_are_recorded_in_one_write(
        self, log: RunLog, clock: Clock, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Two approved transfers finishing at one wake-up make one record call."""
        store = MemoryStore()
        writes: list[int] = []
        record = store.record

        async def counting(session: str, turn_id: int, steps: Any) -> None:
            writes.append(sum(1 for step in steps if not isinstance(step, Message)))
            await record(session, turn_id, steps)

        monkeypatch.setattr(store, "record", counting)
        session = Session(
            store,
            ScriptedModel(agent),
            make_tools(log),
            id=SESSION,
            approver=APPROVER,
            now=clock,
        )
        paused = session.send_sync("pay twice")
        assert paused.turn is not None
        session.resume_sync(approve_all(paused.turn.interrupts), turn_id=1)
        assert writes == [2]
        assert log["transfer_money"] == 2
