"""Time one pause → resume cycle of LangGraph, alone and adapted.

Run with ``python benchmarks/adapter_langgraph.py``. One *cycle*: a one-node
graph on ``InMemorySaver`` pauses in its node with a yes/no question, is
resumed with "Yes" on the same thread, and the node finishes; a new thread
each cycle.

* *LangGraph alone* — the node calls ``interrupt(payload)``; the client reads
  the pending id from ``get_state(config).interrupts`` and resumes with
  ``invoke(Command(resume={id: "Yes"}))``.
* *with the adapter* — the node calls `ask(Confirm(...))`; the client reads
  `pending` (typed `PendingInterrupt`s) and calls `resume`, which reads the
  checkpoint again, validates the `Resume`, spends the pause once in a
  `MemoryStore` and sends the id-keyed ``Command``; the node checks the
  answer it gets back.

Both interleaved, best of 30 repeats; before timing, each must pause,
finish and hand the node "Yes" exactly once per cycle.

``--steps`` also times the cycle's three steps on their own (threads paused
beforehand, best of several batches), to say where the adapter's time goes:
the run that pauses, the listing (``get_state`` against `pending`) and the
resume (``invoke(Command)`` against `resume`, which reads the checkpoint,
validates, spends and files the answer before LangGraph runs).
"""

from __future__ import annotations

import itertools
import sys
import time
from collections.abc import Callable, Sequence
from typing import Final, TypedDict

from interruption import Confirm, MemoryStore, PendingInterrupt, Resume
from interruption.adapters.langgraph import ask, pending, resume
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command, interrupt

from _common import best_us, print_cycle, table

FRAMEWORK: Final = "LangGraph 1.2"

QUESTION: Final = Confirm("Invoice", "Pay INV-7 today?")


class State(TypedDict, total=False):
    """What the node got."""

    answer: str


class Bench:
    """Two graphs (plain interrupt, adapter ask) and a new thread per cycle."""

    def __init__(self) -> None:
        self.answers: list[str] = []
        self.threads = itertools.count()
        self.store = MemoryStore()
        # The very JSON the adapter's node shows for QUESTION, so that both
        # sides keep and read the same question in their checkpoints.
        payload = {
            "type": "confirm",
            "title": "Invoice",
            "text": "Pay INV-7 today?",
            "choices": ["Yes", "No"],
        }

        def plain(_state: State) -> State:
            answer = str(interrupt(payload))
            self.answers.append(answer)
            return {"answer": answer}

        def typed(_state: State) -> State:
            answer = ask(QUESTION)
            self.answers.append(answer)
            return {"answer": answer}

        self.plain = self._graph(plain)
        self.typed = self._graph(typed)

    @staticmethod
    def _graph(node: object) -> CompiledStateGraph[State]:
        builder = StateGraph(State)
        builder.add_node("node", node)  # type: ignore[call-overload]
        builder.add_edge(START, "node")
        builder.add_edge("node", END)
        return builder.compile(checkpointer=InMemorySaver())

    def _config(self) -> RunnableConfig:
        return {"configurable": {"thread_id": f"t-{next(self.threads)}"}}

    def alone(self) -> object:
        """One cycle through LangGraph alone."""
        config = self._config()
        self.plain.invoke({}, config)
        (found,) = self.plain.get_state(config).interrupts
        return self.plain.invoke(Command(resume={found.id: "Yes"}), config)

    def adapted(self) -> object:
        """One cycle through the adapter."""
        config = self._config()
        self.typed.invoke({}, config)
        (question,) = pending(self.typed, config, self.store)
        answer = Resume(respond=[question.respond("Yes")])
        return resume(self.typed, config, answer, self.store)

    def check(self) -> None:
        """Each cycle must pause, finish, and hand the node "Yes" once."""
        for cycle in (self.alone, self.adapted):
            self.answers.clear()
            cycle()
            if self.answers != ["Yes"]:
                msg = f"{cycle.__name__}: the node got {self.answers}"
                raise AssertionError(msg)


def measure() -> tuple[str, float, float]:
    """Time one cycle alone and with the adapter, interleaved.

    Returns:
        (framework, LangGraph-alone µs, with-adapter µs).
    """
    bench = Bench()
    bench.check()
    alone, adapted = best_us(bench.alone, bench.adapted)
    return FRAMEWORK, alone, adapted


STEPS: Final = ("pause", "list", "resume")
"""The cycle's steps, as `steps` times them."""


def _per_call(
    step: Callable[[RunnableConfig], object], threads: Sequence[str]
) -> float:
    """The µs one call of *step* takes, over every thread of *threads*."""
    start = time.perf_counter()
    for thread in threads:
        step({"configurable": {"thread_id": thread}})
    return (time.perf_counter() - start) / len(threads) * 1e6


def steps(batch: int = 200, repeats: int = 7) -> dict[str, tuple[float, float]]:
    """Time each step of the cycle alone and adapted, on threads made for it.

    Returns:
        Per step (`STEPS`), (LangGraph-alone µs, with-adapter µs): the best
        batch's mean.
    """
    bench = Bench()
    bench.check()
    found: dict[str, str] = {}
    questions: dict[str, PendingInterrupt] = {}

    def listed(config: RunnableConfig) -> None:
        (only,) = bench.plain.get_state(config).interrupts
        found[config["configurable"]["thread_id"]] = only.id

    def resumed(config: RunnableConfig) -> None:
        answer = {found[config["configurable"]["thread_id"]]: "Yes"}
        bench.plain.invoke(Command(resume=answer), config)

    def pended(config: RunnableConfig) -> None:
        (question,) = pending(bench.typed, config, bench.store)
        questions[config["configurable"]["thread_id"]] = question

    def answered(config: RunnableConfig) -> None:
        # The answer is built here, as LangGraph alone builds its own in resumed.
        question = questions[config["configurable"]["thread_id"]]
        answer = Resume(respond=[question.respond("Yes")])
        resume(bench.typed, config, answer, bench.store)

    sides = (
        (lambda config: bench.plain.invoke({}, config), listed, resumed),
        (lambda config: bench.typed.invoke({}, config), pended, answered),
    )
    best = {step: [float("inf"), float("inf")] for step in STEPS}
    for _ in range(repeats):
        for side, chain in enumerate(sides):
            threads = [f"s-{next(bench.threads)}" for _ in range(batch)]
            for step, function in zip(STEPS, chain, strict=True):
                spent = _per_call(function, threads)
                best[step][side] = min(best[step][side], spent)
    return {step: (alone, adapted) for step, (alone, adapted) in best.items()}


def print_steps(found: dict[str, tuple[float, float]]) -> None:
    """Print each step alone and adapted, with the adapter's share."""
    header = ["step", "alone µs", "with adapter µs", "overhead µs"]
    rows = [
        [step, f"{alone:,.1f}", f"{adapted:,.1f}", f"{adapted - alone:,.1f}"]
        for step, (alone, adapted) in found.items()
    ]
    print(table(header, rows))


def main() -> None:
    """Print the table (and, with ``--steps``, the steps' table)."""
    print_cycle(*measure())
    if "--steps" in sys.argv[1:]:
        print()
        print_steps(steps())


if __name__ == "__main__":
    main()
