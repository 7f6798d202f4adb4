"""Typing tests for the pydantic-ai adapter: checked by mypy, never run."""

from __future__ import annotations

from typing import assert_type

from interruption import (
    MemoryStore,
    PendingInterrupt,
    Resume,
    ResumePolicy,
    SqliteStore,
)
from interruption.adapters.pydantic_ai import (
    Keeper,
    MemoryKeeper,
    PausedRun,
    SqliteKeeper,
    load_paused,
    pause,
    pause_sync,
    resume,
    resume_sync,
)
from pydantic_ai import Agent, DeferredToolRequests
from pydantic_ai.run import AgentRunResult

Output = str | DeferredToolRequests


def keepers() -> None:
    keeper: Keeper = MemoryKeeper()
    keeper = SqliteKeeper("runs.db")
    keeper = SqliteStore(":memory:")  # type: ignore[assignment]
    del keeper


async def pausing(result: AgentRunResult[Output], keeper: Keeper) -> None:
    paused = await pause(result, keeper, answer_schemas={"ask_user": {"enum": ["Y"]}})
    assert_type(paused, PausedRun | None)
    assert paused is not None
    assert_type(paused.id, str)
    assert_type(paused.interrupts, tuple[PendingInterrupt, ...])
    assert_type(await load_paused(paused.id, keeper), PausedRun)
    assert_type(pause_sync(result, keeper), PausedRun | None)
    assert_type(paused.key, str)
    await pause(result, keeper, answer_schemas={"ask_user": "any"})  # type: ignore[dict-item]
    await pause(result.output, keeper)  # type: ignore[arg-type]


async def resuming(
    agent: Agent[None, Output], typed: Agent[int, Output], keeper: Keeper
) -> None:
    store = MemoryStore()
    answer = Resume()
    result = await resume(agent, "run", answer, keeper, store)
    assert_type(result, AgentRunResult[Output])
    assert_type(result.output, Output)
    policy = ResumePolicy(principal="alice")
    assert_type(
        resume_sync(typed, "run", answer, keeper, store, deps=3, policy=policy),
        AgentRunResult[Output],
    )
    await resume(typed, "run", answer, keeper, store, deps="three")  # type: ignore[misc]
    await resume(agent, "run", answer, keeper, "store")  # type: ignore[arg-type]
    await resume(agent, "run", {"restart": []}, keeper, store)  # type: ignore[arg-type]
