"""Typing tests for the pydantic-ai adapter: checked by mypy, never run."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import assert_type

from interruption import (
    AuditEvent,
    Bridge,
    MemoryStore,
    PendingInterrupt,
    PendingPause,
    ResolvedResume,
    Resume,
    ResumePolicy,
    SqliteStore,
    Store,
)
from interruption.adapters.pydantic_ai import (
    PausedRun,
    bridge,
    load_paused,
    pause,
    pause_sync,
    resume,
    resume_sync,
)
from pydantic_ai import Agent, DeferredToolRequests
from pydantic_ai.run import AgentRunResult

Output = str | DeferredToolRequests


async def pausing(result: AgentRunResult[Output], store: Store) -> None:
    paused = await pause(result, store, answer_schemas={"ask_user": {"enum": ["Y"]}})
    assert_type(paused, PausedRun | None)
    assert paused is not None
    assert_type(paused.id, str)
    assert_type(paused.interrupts, tuple[PendingInterrupt, ...])
    assert_type(await load_paused(paused.id, store), PausedRun)
    assert_type(await load_paused(paused.id, SqliteStore("app.db")), PausedRun)
    assert_type(pause_sync(result, store), PausedRun | None)
    until = datetime(2030, 1, 1, tzinfo=UTC)
    assert_type(pause_sync(result, store, keep_until=until), PausedRun | None)
    assert_type(paused.key, str)
    await pause(result, store, keep_until="2030-01-01")  # type: ignore[arg-type]
    await pause(result, store, answer_schemas={"ask_user": "any"})  # type: ignore[dict-item]
    await pause(result.output, store)  # type: ignore[arg-type]
    await pause(result, "runs.db")  # type: ignore[arg-type]


async def resuming(agent: Agent[None, Output], typed: Agent[int, Output]) -> None:
    store = MemoryStore()
    answer = Resume()
    result = await resume(agent, "run", answer, store)
    assert_type(result, AgentRunResult[Output])
    assert_type(result.output, Output)
    policy = ResumePolicy(principal="alice")
    assert_type(
        resume_sync(typed, "run", answer, store, deps=3, policy=policy),
        AgentRunResult[Output],
    )
    await resume(typed, "run", answer, store, deps="three")  # type: ignore[misc]
    await resume(agent, "run", answer, "store")  # type: ignore[arg-type]
    await resume(agent, "run", {"restart": []}, store)  # type: ignore[arg-type]
    await resume(agent, "run", answer, store, store)  # type: ignore[misc]


async def bridging(agent: Agent[int, Output], store: Store) -> None:
    async def runs() -> list[str]:
        return ["run"]

    async def continued(scope: str, result: AgentRunResult[Output]) -> None:
        del scope, result

    door: Bridge = bridge(agent, store, lambda: ["run"], deps=3, continued=continued)
    assert_type(bridge(agent, store, runs), Bridge)
    assert_type(await door.pending(principal="alice"), Sequence[PendingPause])
    assert_type(await door.answer("run", Resume()), ResolvedResume)
    assert_type(await door.audit("run"), Sequence[AuditEvent])
    bridge(agent, store, ["run"])  # type: ignore[arg-type]
    bridge(agent, store, lambda: ["run"], deps="three")  # type: ignore[misc]
    bridge(agent, store, lambda: [1])  # type: ignore[list-item]
