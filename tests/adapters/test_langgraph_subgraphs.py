"""Every pause LangGraph reports, subgraphs included, the adapter shows and resumes.

A breakpoint compiled into a subgraph stops the thread as a parent's does
(``invoke(None)`` continues it); `pending` reads the whole tree
(``get_state(config, subgraphs=True)``) to find it.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any, TypedDict

import pytest
from interruption import MemoryStore, Phase, Resume, ScheduledPause
from interruption.adapters.langgraph import apending, aresume, pending, resume
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

THREADS = itertools.count()


class Trail(TypedDict, total=False):
    """The nodes that ran, in order."""

    got: list[str]


def step(name: str) -> Any:
    """A node appending *name* to the trail."""
    return lambda state: {"got": [*state.get("got", []), name]}


def nested(
    inner: dict[str, list[str]], outer: dict[str, list[str]]
) -> CompiledStateGraph[Trail]:
    """Nodes a, sub (inner_1, inner_2) and z, with breakpoints compiled in."""
    builder = StateGraph(Trail)
    builder.add_node("inner_1", step("i1"))
    builder.add_node("inner_2", step("i2"))
    builder.add_edge(START, "inner_1")
    builder.add_edge("inner_1", "inner_2")
    builder.add_edge("inner_2", END)
    sub = builder.compile(**inner)  # type: ignore[arg-type]
    parent = StateGraph(Trail)
    parent.add_node("a", step("a"))
    parent.add_node("sub", sub)
    parent.add_node("z", step("z"))
    parent.add_edge(START, "a")
    parent.add_edge("a", "sub")
    parent.add_edge("sub", "z")
    parent.add_edge("z", END)
    return parent.compile(checkpointer=InMemorySaver(), **outer)  # type: ignore[arg-type]


def thread() -> RunnableConfig:
    """A config naming a fresh thread."""
    return {"configurable": {"thread_id": f"sub-{next(THREADS)}"}}


BEFORE_INNER_2 = ScheduledPause(Phase.BEFORE, "inner_2")

CASES = [
    ({"interrupt_before": ["inner_2"]}, {}, [BEFORE_INNER_2]),
    (
        {"interrupt_after": ["inner_1"]},
        {},
        [ScheduledPause(Phase.AFTER, "inner_1")],
    ),
    (
        {"interrupt_before": ["inner_2"]},
        {"interrupt_before": ["sub"]},
        [ScheduledPause(Phase.BEFORE, "sub"), BEFORE_INNER_2],
    ),
    (
        {"interrupt_before": ["inner_2"]},
        {"interrupt_after": ["a"]},
        [ScheduledPause(Phase.AFTER, "a"), BEFORE_INNER_2],
    ),
]


class TestSubgraphBreakpoints:
    """A subgraph's compiled breakpoint is a ScheduledPause, resumed once."""

    @pytest.mark.parametrize(("inner", "outer", "stops"), CASES)
    def test_each_stop_is_shown_and_continued(
        self,
        inner: dict[str, list[str]],
        outer: dict[str, list[str]],
        stops: list[ScheduledPause],
    ) -> None:
        """Each stop, the parent's then the subgraph's, is pending until restarted."""
        graph = nested(inner, outer)
        config = thread()
        store = MemoryStore()
        graph.invoke({"got": []}, config)
        for expected in stops:
            (stop,) = pending(graph, config, store)
            assert stop.kind == expected
            resume(graph, config, Resume(restart=[stop.restart()]), store)
        assert pending(graph, config, store) == ()
        assert graph.get_state(config).values == {"got": ["a", "i1", "i2", "z"]}

    def test_the_async_reader_sees_it_too(self) -> None:
        """The async reader and resume walk the subgraphs as the sync pair does."""
        graph = nested({"interrupt_before": ["inner_2"]}, {})

        async def scenario() -> list[str]:
            config = thread()
            await graph.ainvoke({"got": []}, config)
            store = MemoryStore()
            (stop,) = await apending(graph, config, store)
            assert stop.kind == BEFORE_INNER_2
            out = await aresume(graph, config, Resume(restart=[stop.restart()]), store)
            return list(out.value["got"])

        assert asyncio.run(scenario()) == ["a", "i1", "i2", "z"]
