"""The LangChain agents adapter's bridge, driven through a real ``create_agent``."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import pytest
from interruption import (
    JSON,
    ApprovalPending,
    Bridge,
    MemoryStore,
    PendingPause,
    ProblemCode,
    Restart,
    Resume,
    ResumePolicy,
    ResumeRejected,
    SqliteStore,
    Store,
    pending_everywhere,
)
from interruption.adapters import langchain
from interruption.adapters.langchain import AgentBridge, bridge
from interruption.runtime.approval import DECISION_SCHEMA
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import StateSnapshot

from tests.adapters.test_langchain import RAN, SEEN, agent_for, call, transfers

START: Final = {"messages": [{"role": "user", "content": "go"}]}
PAY: Final = [call("transfer_money", "c-1", to="ACME", amount=1)]
TWO_PAYMENTS: Final = [
    call("transfer_money", "c-1", to="ACME", amount=1),
    call("transfer_money", "c-2", to="BOB", amount=2),
]
ALICE_ONLY: Final = ResumePolicy(authorize=lambda who, _pending: who == "alice")


def config(thread: str) -> RunnableConfig:
    """The config naming *thread*."""
    return {"configurable": {"thread_id": thread}}


def started(*threads: str, mode: str = "batched", turn: Any = PAY) -> Any:
    """An agent whose *threads* each wait for a review of *turn*'s calls."""
    agent = agent_for([turn], mode)
    for thread in threads:
        agent.invoke(START, config(thread))
    return agent


def listed(door: AgentBridge, principal: str | None = None) -> list[PendingPause]:
    """What *door* lists for *principal*."""
    return asyncio.run(door.pending(principal=principal))


def answered(
    door: AgentBridge, resume: Resume, principal: str | None = None
) -> tuple[ProblemCode, ...]:
    """Answer thread t-1 through *door*; the refusal's codes, or () if accepted."""
    try:
        asyncio.run(door.answer("t-1", resume, principal=principal))
    except ResumeRejected as rejected:
        return rejected.codes
    return ()


def approval(door: AgentBridge) -> Resume:
    """An approval of every call of thread t-1's review, from the bridge."""
    (pause,) = listed(door)
    return Resume(restart=[p.approve() for p in pause.interrupts])


@pytest.fixture(autouse=True)
def _clean() -> Iterator[None]:
    RAN.clear()
    SEEN.clear()
    yield
    RAN.clear()
    SEEN.clear()


@pytest.fixture(name="mode", params=["batched", "per_call"])
def _mode(request: pytest.FixtureRequest) -> str:
    """Both of the middleware's interrupt modes."""
    mode: str = request.param
    return mode


@pytest.fixture(name="store")
def _store() -> Store:
    return MemoryStore()


class TestPending:
    def test_a_review_is_listed_as_the_adapter_shows_it(
        self, mode: str, store: Store
    ) -> None:
        """A real review is a pause of its thread, with apending's calls."""
        agent = started("t-1", mode=mode)
        door = bridge(agent, store, lambda: ["t-1"])
        (pause,) = listed(door)
        assert isinstance(door, Bridge)
        assert {door: "t-1"}[door] == "t-1"  # a service: hashed by identity
        assert (pause.door, pause.scope) == ("langchain", "t-1")
        (gated,) = pause.interrupts
        assert gated.kind == ApprovalPending("c-1")
        assert gated.accepts.restart == DECISION_SCHEMA
        assert gated.accepts.respond is None
        shown = langchain.pending(agent, config("t-1"))
        assert shown is not None
        assert pause.interrupts == shown.interrupts
        assert asyncio.run(pending_everywhere([door])) == [pause]

    def test_threads_are_listed_newest_first_each_once(self, store: Store) -> None:
        """Async thread lists work; a repeated thread is one pause; idle ones none."""
        agent = started("t-1", "t-2")

        async def threads() -> list[str]:
            return ["t-1", "t-2", "t-1", "idle"]

        door = bridge(agent, store, threads)
        assert [p.scope for p in listed(door)] == ["t-2", "t-1"]

    def test_a_pause_is_dated_by_its_checkpoint(self, store: Store) -> None:
        """created_at is the checkpoint's time, or when first met when it has none."""
        agent = started("t-1")
        written = agent.get_state(config("t-1")).created_at
        (pause,) = listed(bridge(agent, store, lambda: ["t-1"]))
        assert pause.created_at == datetime.fromisoformat(written)

        class Undated:
            """The agent, its checkpoint read without a creation time."""

            def __getattr__(self, name: str) -> Any:
                return getattr(agent, name)

            async def aget_state(self, config: RunnableConfig) -> StateSnapshot:
                snapshot: StateSnapshot = await agent.aget_state(config)
                return snapshot._replace(created_at=None)

        now = datetime(2030, 1, 1, tzinfo=UTC)
        clock = ResumePolicy(now=lambda: now)
        (undated,) = listed(bridge(Undated(), store, lambda: ["t-1"], policy=clock))
        met = [e.at for e in asyncio.run(store.audit("t-1")) if e.kind == "paused"]
        assert [undated.created_at] == met
        assert undated.created_at != now  # the same on every listing

    def test_a_partly_answered_thread_lists_what_is_left(self, store: Store) -> None:
        """Per call, a review answered through the adapter's door leaves the other."""
        agent = started("t-1", mode="per_call", turn=TWO_PAYMENTS)
        door = bridge(agent, store, lambda: ["t-1"])
        (pause,) = listed(door)
        first, second = pause.interrupts
        partial = ResumePolicy(allow_partial=True)
        answer = Resume(restart=[first.approve()])
        langchain.resume(agent, config("t-1"), answer, store, policy=partial)
        (left,) = listed(door)
        assert left.interrupts == (second,)


class TestAnswer:
    def test_a_valid_answer_runs_the_call_once(self, mode: str, store: Store) -> None:
        """An approval is accepted once; the approved call runs once, as approved."""
        agent = started("t-1", mode=mode)
        door = bridge(agent, store, lambda: ["t-1"])
        answer = approval(door)
        resolved = asyncio.run(door.answer("t-1", answer))
        assert [a.entry for a in resolved.answers] == list(answer.restart)
        assert transfers() == [{"to": "ACME", "amount": 1}]

    def test_an_edit_runs_exactly_the_validated_arguments(self, store: Store) -> None:
        """An approval with other arguments that fit runs with exactly those."""
        agent = started("t-1")
        door = bridge(agent, store, lambda: ["t-1"])
        (pause,) = listed(door)
        (gated,) = pause.interrupts
        edit: JSON = {"to": "ACME", "amount": 2}
        answer = Resume(restart=[gated.restart("approve", replace_input=edit)])
        (accepted,) = asyncio.run(door.answer("t-1", answer)).answers
        assert accepted.entry.input == edit  # type: ignore[union-attr]
        assert transfers() == [edit]

    def test_a_second_answer_is_consumed_through_either_door(
        self, mode: str, store: Store
    ) -> None:
        """After the bridge's answer, the bridge and the adapter's door are refused."""
        agent = started("t-1", mode=mode)
        door = bridge(agent, store, lambda: ["t-1"])
        answer = approval(door)
        assert answered(door, answer) == ()
        assert answered(door, answer) == (ProblemCode.CONSUMED,)
        with pytest.raises(ResumeRejected) as rejected:
            langchain.resume(agent, config("t-1"), answer, store)
        assert rejected.value.codes == (ProblemCode.CONSUMED,)
        assert transfers() == [{"to": "ACME", "amount": 1}]

    def test_an_answer_through_the_adapters_door_is_consumed_here(
        self, mode: str, store: Store
    ) -> None:
        """After the adapter's own resume, the bridge refuses the same answer."""
        agent = started("t-1", mode=mode)
        door = bridge(agent, store, lambda: ["t-1"])
        answer = approval(door)
        langchain.resume(agent, config("t-1"), answer, store)
        assert answered(door, answer) == (ProblemCode.CONSUMED,)
        assert transfers() == [{"to": "ACME", "amount": 1}]

    def test_an_invalid_answer_is_refused_and_spends_nothing(
        self, mode: str, store: Store
    ) -> None:
        """A decision outside its schema is a schema_violation; the review waits on."""
        agent = started("t-1", mode=mode)
        door = bridge(agent, store, lambda: ["t-1"])
        (before,) = listed(door)
        bad = Resume(restart=[Restart("transfer_money", "c-1", {"decision": "maybe"})])
        assert answered(door, bad) == (ProblemCode.SCHEMA_VIOLATION,)
        assert listed(door) == [before]
        assert transfers() == []
        assert answered(door, approval(door)) == ()
        trail = asyncio.run(door.audit("t-1"))
        assert [e.kind for e in trail] == ["paused", "rejected", "accepted"]

    def test_a_forbidden_decision_is_refused_by_the_review(self, store: Store) -> None:
        """A reject where the review allows only approve is answer_not_accepted."""
        gates: Any = {"transfer_money": {"allowed_decisions": ["approve"]}}
        agent = agent_for([PAY], "batched", gates)
        agent.invoke(START, config("t-1"))
        door = bridge(agent, store, lambda: ["t-1"])
        ((gated,),) = [p.interrupts for p in listed(door)]
        assert answered(door, Resume(restart=[gated.reject("no")])) == (
            ProblemCode.ANSWER_NOT_ACCEPTED,
        )
        assert len(listed(door)) == 1

    def test_once_answered_the_pause_is_not_listed(
        self, mode: str, store: Store
    ) -> None:
        """An answered review leaves the list (another bridge on the store agrees)."""
        agent = started("t-1", "t-2", mode=mode)
        door = bridge(agent, store, lambda: ["t-1", "t-2"])
        answered(door, approval(bridge(agent, store, lambda: ["t-1"])))
        assert [p.scope for p in listed(door)] == ["t-2"]
        assert [p.scope for p in listed(bridge(agent, store, lambda: ["t-1"]))] == []


class TestWho:
    def test_a_refused_principal_sees_and_answers_nothing(self, store: Store) -> None:
        """Refused: no pause, no trail, not_authorized; alice sees and answers."""
        agent = started("t-1")
        door = bridge(agent, store, lambda: ["t-1"], authorize=ALICE_ONLY.authorize)
        (pause,) = listed(door, "alice")
        answer = Resume(restart=[pause.interrupts[0].approve()])
        assert listed(door, "eve") == []
        assert asyncio.run(door.audit("t-1", principal="eve")) == ()
        assert answered(door, answer, "eve") == (ProblemCode.NOT_AUTHORIZED,)
        assert transfers() == []
        assert answered(door, answer, "alice") == ()
        assert asyncio.run(door.audit("t-1", principal="eve")) == ()
        assert asyncio.run(door.audit("t-1", principal="alice")) != ()

    def test_a_thread_without_a_review_shows_no_trail(self, store: Store) -> None:
        """With an authorizer, a thread with no middleware review shows no trail."""
        agent = agent_for([[call("wild", "w-1", question="?")]])
        agent.invoke(START, config("t-1"))
        door = bridge(agent, store, list, policy=ALICE_ONLY)
        assert asyncio.run(door.audit("t-1", principal="alice")) == ()
        assert asyncio.run(door.audit("never", principal="alice")) == ()


class TestAudit:
    def test_the_trail_shows_paused_rejected_and_accepted(
        self, mode: str, store: Store
    ) -> None:
        """Every attempt through the bridge is in the thread's trail, in order."""
        agent = started("t-1", mode=mode)
        door = bridge(agent, store, lambda: ["t-1"], authorize=ALICE_ONLY.authorize)
        (pause,) = listed(door, "alice")
        answer = Resume(restart=[pause.interrupts[0].approve()])
        answered(door, answer, "eve")
        answered(door, answer, "alice")
        answered(door, answer, "alice")
        trail = asyncio.run(door.audit("t-1", principal="alice"))
        assert [(e.kind, e.codes, e.principal) for e in trail] == [
            ("paused", (), None),
            ("rejected", ("not_authorized",), "eve"),
            ("accepted", (), "alice"),
            ("rejected", ("consumed",), "alice"),
        ]
        assert trail == asyncio.run(store.audit("t-1"))


class TestBlocking:
    def test_a_sync_checkpointer_is_read_and_run_off_the_loop(
        self, tmp_path: Path
    ) -> None:
        """With SqliteSaver, listing, answering and the trail go to a worker thread."""
        connection = sqlite3.connect(tmp_path / "c.db", check_same_thread=False)
        agent = agent_for([PAY], "batched", saver=SqliteSaver(connection))
        agent.invoke(START, config("t-1"))
        store = SqliteStore(tmp_path / "spent.db")
        door = bridge(
            agent,
            store,
            lambda: ["t-1"],
            authorize=ALICE_ONLY.authorize,
            blocking=True,
        )
        (pause,) = listed(door, "alice")
        answer = Resume(restart=[pause.interrupts[0].approve()])
        assert answered(door, answer, "alice") == ()
        assert answered(door, answer, "alice") == (ProblemCode.CONSUMED,)
        assert listed(door, "alice") == []
        trail = asyncio.run(door.audit("t-1", principal="alice"))
        assert [e.kind for e in trail] == ["paused", "accepted", "rejected"]
        assert transfers() == [{"to": "ACME", "amount": 1}]


class TestAuthorizedFirst:
    def test_a_refused_listing_files_nothing(self, store: Store) -> None:
        """Mallory's listing and pause() are authorized first: no paused event."""
        agent = started("t-1")
        door = bridge(agent, store, lambda: ["t-1"], policy=ALICE_ONLY)
        assert listed(door, "mallory") == []
        assert asyncio.run(door.pause("t-1", principal="mallory")) is None
        assert asyncio.run(store.audit("t-1")) == ()
        listed(door, "alice")
        assert [e.kind for e in asyncio.run(store.audit("t-1"))] == ["paused"]

    def test_the_verdict_does_not_depend_on_what_is_spent(self, store: Store) -> None:
        """Refused for a call spent while the checkpoint still shows it: nothing."""
        agent = started("t-1", mode="per_call", turn=TWO_PAYMENTS)

        def not_c1(who: str | None, pending: Any) -> bool:
            return who == "alice" or pending.ref != "c-1"

        door = bridge(agent, store, lambda: ["t-1"], authorize=not_c1)
        shown = langchain.pending(agent, config("t-1"))
        assert shown is not None
        first, second = shown.interrupts
        # Spent (its continuation still running), yet shown by the checkpoint.
        asyncio.run(store.spend_all([shown.keys[first.id]], None))
        assert asyncio.run(door.pending(principal="mallory")) == []
        assert asyncio.run(door.pause("t-1", principal="mallory")) is None
        (left,) = listed(door, "alice")
        assert left.interrupts == (second,)


class TestPause:
    def test_one_thread_is_what_the_listing_shows(self, store: Store) -> None:
        """pause(thread) is the listing's pause; None elsewhere or once answered."""
        agent = started("t-1", "t-2")
        door = bridge(agent, store, lambda: ["t-1", "t-2"])
        (one,) = [pause for pause in listed(door) if pause.scope == "t-1"]
        assert asyncio.run(door.pause("t-1")) == one
        assert asyncio.run(door.pause("idle")) is None
        asyncio.run(door.answer("t-1", approval_of(one)))
        assert asyncio.run(door.pause("t-1")) is None


def approval_of(pause: PendingPause) -> Resume:
    """An approval of every call of *pause*."""
    return Resume(restart=[p.approve() for p in pause.interrupts])
