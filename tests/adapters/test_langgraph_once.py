"""The LangGraph adapter spends each pause once, whoever answers it and how.

Two clients over one ``SqliteSaver`` file and one `SqliteStore` file, a
``transfer`` tool that counts its runs and can be held mid-run: an approved
call runs once, however its answers are split, and a pause whose
continuation is running is neither pending nor resumable.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Protocol, TypedDict

import attrs
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from interruption import (
    Confirm,
    MemoryStore,
    ProblemCode,
    Resume,
    ResumePolicy,
    ResumeRejected,
    SqliteStore,
    pause_key,
)
from interruption.adapters.langgraph import (
    ToolApproval,
    ask,
    pending,
    resume,
    send_tool_calls,
)
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolCall
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.graph.state import CompiledStateGraph

WAIT = 30.0
"""Seconds a test waits for another thread before it fails."""


class Chat(TypedDict):
    """A conversation."""

    messages: Annotated[list[AnyMessage], add_messages]


def call(ref: str, to: str, amount: int) -> ToolCall:
    """A model's transfer call."""
    return {"name": "transfer", "args": {"to": to, "amount": amount}, "id": ref}


CALLS = [call("c1", "ACME", 125000), call("c2", "MALLORY", 9)]


class Teller(Protocol):
    """Runs one transfer and counts it."""

    def transfer(self, to: str) -> None:
        """Send money to *to*."""


@attrs.define
class Bank:
    """What every client thread of one conversation shares: the transfers made.

    ``hold`` is cleared to keep a running transfer from finishing; ``running``
    is set once one started.
    """

    sent: list[str] = attrs.Factory(list)
    lock: threading.Lock = attrs.Factory(threading.Lock)
    running: threading.Event = attrs.Factory(threading.Event)
    hold: threading.Event = attrs.Factory(threading.Event)

    def transfer(self, to: str) -> None:
        """Run one transfer (counted), waiting while it is held."""
        with self.lock:
            self.sent.append(to)
        self.running.set()
        assert self.hold.wait(WAIT)


@attrs.frozen
class Ledger:
    """What every process of one conversation shares: files under *where*.

    Each transfer appends a line to ``ledger``, then waits for ``release``.
    """

    where: Path

    def transfer(self, to: str) -> None:
        """Run one transfer (a line in the ledger), waiting for the release."""
        with (self.where / "ledger").open("a") as ledger:
            ledger.write(f"{to}\n")
        until((self.where / "release").exists)

    def sent(self) -> list[str]:
        """The transfers made, in order."""
        path = self.where / "ledger"
        return path.read_text().split() if path.exists() else []


def build(bank: Teller, connection: sqlite3.Connection) -> CompiledStateGraph[Chat]:
    """The README's graph (two calls at once, each held) over *connection*."""

    @tool
    def transfer(to: str, amount: int) -> str:
        """Send money."""
        bank.transfer(to)
        return f"sent {amount} to {to}"

    def model(state: Chat) -> Chat:
        if isinstance(state["messages"][-1], HumanMessage):
            return {"messages": [AIMessage("", tool_calls=CALLS)]}
        return {"messages": [AIMessage("done")]}

    builder = StateGraph(Chat)
    builder.add_node("model", model)
    builder.add_node("tools", ToolApproval({"transfer"}).node([transfer]))
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", send_tool_calls("tools"))
    builder.add_edge("tools", "model")
    return builder.compile(checkpointer=SqliteSaver(connection))


@attrs.define
class Client:
    """One client (a server process): its own graph, connections and store."""

    graph: CompiledStateGraph[Chat]
    connection: sqlite3.Connection
    store: SqliteStore

    @classmethod
    def open(cls, where: Path, bank: Teller) -> Client:
        """A client over the conversation's files under *where*."""
        connection = sqlite3.connect(
            where / "checkpoints.db", check_same_thread=False, timeout=WAIT
        )
        return cls(build(bank, connection), connection, SqliteStore(where / "spent.db"))


CONFIG: RunnableConfig = {"configurable": {"thread_id": "inv-7"}}


def until(done: Callable[[], bool]) -> None:
    """Wait until *done* says so (polling), or fail."""
    deadline = time.monotonic() + WAIT
    while not done():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


class TestTwoClients:
    """A second client never runs a call a first client's answer runs."""

    def test_a_second_approval_during_the_first_resume_is_consumed(
        self, tmp_path: Path
    ) -> None:
        """While an approved call runs, it is not pending; a re-approval is consumed."""
        bank = Bank()
        first, second = Client.open(tmp_path, bank), Client.open(tmp_path, bank)
        first.graph.invoke({"messages": [HumanMessage("Pay INV-7")]}, CONFIG)
        acme, mallory = pending(first.graph, CONFIG, first.store)
        answer = Resume(restart=[acme.approve(), mallory.reject("wrong account")])
        failures: list[BaseException] = []

        def run_first() -> None:
            try:
                resume(first.graph, CONFIG, answer, first.store)
            except BaseException as error:  # noqa: BLE001 - reported below
                failures.append(error)

        worker = threading.Thread(target=run_first)
        worker.start()
        try:
            assert bank.running.wait(WAIT)
            # The rejection finished beside the running transfer: LangGraph
            # now lists the approval alone, still waiting.
            until(lambda: len(second.graph.get_state(CONFIG).interrupts) == 1)
            assert pending(second.graph, CONFIG, second.store) == ()
            again = Resume(restart=[acme.approve()])
            with pytest.raises(ResumeRejected) as rejected:
                resume(second.graph, CONFIG, again, second.store)
            assert rejected.value.codes == (ProblemCode.CONSUMED,)
        finally:
            bank.hold.set()
            worker.join(WAIT)
        assert failures == []
        assert bank.sent == ["ACME"]

    def test_a_second_server_process_cannot_approve_it_again(
        self, tmp_path: Path
    ) -> None:
        """Two server processes on one SqliteSaver file: the transfer runs once."""
        ledger = Ledger(tmp_path)
        second = Client.open(tmp_path, ledger)
        second.graph.invoke({"messages": [HumanMessage("Pay INV-7")]}, CONFIG)
        acme, _ = pending(second.graph, CONFIG, second.store)
        spawn = multiprocessing.get_context("spawn")
        first = spawn.Process(target=first_server, args=(str(tmp_path),))
        first.start()
        try:
            until(lambda: ledger.sent() == ["ACME"])
            until(lambda: len(second.graph.get_state(CONFIG).interrupts) == 1)
            assert pending(second.graph, CONFIG, second.store) == ()
            again = Resume(restart=[acme.approve()])
            with pytest.raises(ResumeRejected) as rejected:
                resume(second.graph, CONFIG, again, second.store)
            assert rejected.value.codes == (ProblemCode.CONSUMED,)
        finally:
            (tmp_path / "release").touch()
            first.join(WAIT)
        assert first.exitcode == 0
        assert ledger.sent() == ["ACME"]


def first_server(where: str) -> None:
    """The first server process: approve c1, reject c2, as the README does."""
    client = Client.open(Path(where), Ledger(Path(where)))
    acme, mallory = pending(client.graph, CONFIG, client.store)
    answer = Resume(restart=[acme.approve(), mallory.reject("wrong account")])
    resume(client.graph, CONFIG, answer, client.store)


@attrs.define
class Counter:
    """Transfers made by client threads, each one slow enough to overlap."""

    sent: list[str] = attrs.Factory(list)
    lock: threading.Lock = attrs.Factory(threading.Lock)

    def transfer(self, to: str) -> None:
        """Run one transfer (counted), taking a little while."""
        with self.lock:
            self.sent.append(to)
        time.sleep(0.1)


REFS = {"c1": "ACME", "c2": "MALLORY"}

Plan = list[tuple[float, dict[str, str]]]

batches = st.lists(
    st.tuples(
        st.sampled_from([0.0, 0.03, 0.06, 0.12]),
        st.dictionaries(
            st.sampled_from(sorted(REFS)),
            st.sampled_from(["approve", "reject"]),
            min_size=1,
        ),
    ),
    min_size=1,
    max_size=3,
)
"""What one client sends, in order: each batch, after a delay, decides some
calls (the delays place it before, during or after the other's resume)."""


@attrs.define
class Race:
    """Two clients answering one pause at once, and what came of it."""

    barrier: threading.Barrier
    accepted: list[dict[str, str]] = attrs.Factory(list)
    failures: list[BaseException] = attrs.Factory(list)

    def answer(self, client: Client, plan: Plan) -> None:
        """Send *plan*'s batches in order, each for those of its calls still shown."""
        self.barrier.wait(WAIT)
        for delay, batch in plan:
            time.sleep(delay)
            shown = {p.ref: p for p in pending(client.graph, CONFIG, client.store)}
            sent = {ref: v for ref, v in batch.items() if ref in shown}
            entries = [
                shown[ref].approve()
                if verdict == "approve"
                else shown[ref].reject("no")
                for ref, verdict in sent.items()
            ]
            partial = ResumePolicy(allow_partial=True)
            try:
                resume(
                    client.graph,
                    CONFIG,
                    Resume(restart=entries),
                    client.store,
                    policy=partial,
                )
            except ResumeRejected:
                continue
            except BaseException as error:  # noqa: BLE001 - reported by the test
                self.failures.append(error)
            else:
                self.accepted.append(sent)


@settings(max_examples=15, deadline=None)
@given(st.tuples(batches, batches))
@example(  # the race: a re-approval while the approved call runs
    ([(0.0, {"c1": "approve", "c2": "reject"})], [(0.05, {"c1": "approve"})])
)
@example(  # a split: the other call answered while the first one runs
    ([(0.0, {"c1": "approve"})], [(0.05, {"c2": "reject"})])
)
def test_an_approved_call_runs_once_however_answers_are_split_and_raced(
    plans: tuple[Plan, Plan],
) -> None:
    """For every split and order of two racing clients' answers, a call runs once."""
    counter = Counter()
    race = Race(threading.Barrier(len(plans)))
    with tempfile.TemporaryDirectory() as where:
        clients = [Client.open(Path(where), counter) for _ in plans]
        clients[0].graph.invoke({"messages": [HumanMessage("Pay INV-7")]}, CONFIG)
        workers = [
            threading.Thread(target=race.answer, args=pair)
            for pair in zip(clients, plans, strict=True)
        ]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(WAIT)
        for client in clients:
            client.connection.close()
    assert race.failures == []
    decided: dict[str, list[str]] = {}
    for batch in race.accepted:
        for ref, verdict in batch.items():
            decided.setdefault(ref, []).append(verdict)
    assert all(len(verdicts) == 1 for verdicts in decided.values()), decided
    approved = sorted(REFS[ref] for ref, (v, *_) in decided.items() if v == "approve")
    assert sorted(counter.sent) == approved


class TestKeys:
    """Each LangGraph interrupt is spent on its own key, built from durable parts."""

    def test_the_key_is_the_thread_checkpoint_and_interrupt_id(
        self, tmp_path: Path
    ) -> None:
        """Approving c1 alone spends its key: thread, namespace, checkpoint, its id."""
        client = Client.open(tmp_path, Counter())
        client.graph.invoke({"messages": [HumanMessage("Pay INV-7")]}, CONFIG)
        acme, mallory = pending(client.graph, CONFIG, client.store)
        checkpoint = client.graph.get_state(CONFIG).config["configurable"]
        keys = {
            shown.ref: pause_key(
                "langgraph", "inv-7", "", checkpoint["checkpoint_id"], shown.id
            )
            for shown in (acme, mallory)
        }
        partial = ResumePolicy(allow_partial=True)
        answer = Resume(restart=[acme.approve()])
        resume(client.graph, CONFIG, answer, client.store, policy=partial)
        spent = asyncio.run(client.store.spent(list(keys.values())))
        assert spent == {keys["c1"]}
        assert pending(client.graph, CONFIG, client.store) == (mallory,)

    def test_a_second_pause_of_one_task_has_its_own_key(self) -> None:
        """Two questions of one task, one checkpoint: each has its own key."""
        store, got = MemoryStore(), []
        question = Confirm("Pay", "Pay INV-7?")

        def node(state: Chat) -> Chat:
            assert state is not None
            got.extend([ask(question), ask(question)])
            return {"messages": []}

        builder = StateGraph(Chat)
        builder.add_node("node", node)
        builder.add_edge(START, "node")
        graph = builder.compile(checkpointer=InMemorySaver())
        graph.invoke({"messages": []}, CONFIG)
        (first,) = pending(graph, CONFIG, store)
        before = graph.get_state(CONFIG).config["configurable"]["checkpoint_id"]
        resume(graph, CONFIG, Resume(respond=[first.respond("Yes")]), store)
        (second,) = pending(graph, CONFIG, store)
        after = graph.get_state(CONFIG).config["configurable"]["checkpoint_id"]
        assert (before, second.payload) == (after, first.payload)
        assert second.id != first.id
        resume(graph, CONFIG, Resume(respond=[second.respond("No")]), store)
        assert pending(graph, CONFIG, store) == ()
        assert got == ["Yes", "No"]


class TestBreakpoints:
    """A breakpoint is continued once, whoever restarts it."""

    def test_a_restart_while_the_continuation_runs_is_consumed(self) -> None:
        """A running breakpoint continuation is not pending; a restart is consumed."""
        ran: list[str] = []
        hold, running = threading.Event(), threading.Event()

        def slow(state: Chat) -> Chat:
            assert state is not None
            ran.append("b")
            running.set()
            assert hold.wait(WAIT)
            return {"messages": []}

        builder = StateGraph(Chat)
        builder.add_node("a", lambda _: {"messages": []})
        builder.add_node("b", slow)
        builder.add_edge(START, "a")
        builder.add_edge("a", "b")
        graph = builder.compile(checkpointer=InMemorySaver(), interrupt_before=["b"])
        graph.invoke({"messages": []}, CONFIG)
        store = MemoryStore()
        (stop,) = pending(graph, CONFIG, store)
        answer = Resume(restart=[stop.restart()])
        worker = threading.Thread(target=resume, args=(graph, CONFIG, answer, store))
        worker.start()
        try:
            assert running.wait(WAIT)
            assert pending(graph, CONFIG, store) == ()
            with pytest.raises(ResumeRejected) as rejected:
                resume(graph, CONFIG, answer, store)
            assert rejected.value.codes == (ProblemCode.CONSUMED,)
        finally:
            hold.set()
            worker.join(WAIT)
        assert ran == ["b"]
