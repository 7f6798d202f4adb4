"""Typing tests for the OpenAI Agents SDK adapter: checked by mypy, never run."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import assert_type

from agents import Agent, RunContextWrapper, RunResult
from interruption import (
    JSON,
    AuditEvent,
    Bridge,
    MemoryStore,
    PendingInterrupt,
    PendingPause,
    ResolvedResume,
    Resume,
    ResumePolicy,
    Sealer,
)
from interruption.adapters.openai_agents import (
    AUDIENCE,
    PausedRun,
    QuestionTool,
    bridge,
    pause,
    pending,
    question_tool,
    resume,
    resume_sync,
)


def pausing(result: RunResult, sealer: Sealer) -> None:
    assert_type(pending(result), tuple[PendingInterrupt, ...])
    paused = pause(result, sealer, session="s-1", now=datetime.now(UTC))
    assert_type(paused, PausedRun)
    assert_type(paused.token, str)
    assert_type(paused.interrupts, tuple[PendingInterrupt, ...])
    pause(result, sealer)  # type: ignore[call-arg]
    pause(result, sealer, session=1)  # type: ignore[arg-type]
    pause("result", sealer, session="s-1")  # type: ignore[arg-type]
    pending(paused)  # type: ignore[arg-type]


async def resuming(agent: Agent[dict[str, str]], paused: PausedRun) -> None:
    sealer, store = Sealer({"k1": b"0" * 32}, "k1"), MemoryStore()
    answer = Resume(restart=[paused.interrupts[0].approve()])
    assert_type(
        await resume(agent, paused.token, answer, sealer, store, session="s-1"),
        RunResult,
    )
    assert_type(
        await resume(
            agent,
            paused.token,
            answer,
            sealer,
            store,
            session="s-1",
            policy=ResumePolicy(allow_partial=True),
            context=RunContextWrapper({"user": "alice"}),
        ),
        RunResult,
    )
    assert_type(
        resume_sync(agent, paused.token, answer, sealer, store, session="s-1"),
        RunResult,
    )
    await resume(agent, paused, answer, sealer, store, session="s-1")  # type: ignore[arg-type]
    await resume(agent, paused.token, answer, sealer, store)  # type: ignore[call-arg]
    await resume(agent, paused.token, {"approve": True}, sealer, store, session="s")  # type: ignore[arg-type]
    await resume(agent, paused.token, answer, sealer, "store", session="s")  # type: ignore[arg-type]


def questions() -> None:
    ask = question_tool(
        "ask", "Ask.", input_schema={"type": "object"}, answer_schema={"enum": [1]}
    )
    assert_type(ask, QuestionTool)
    assert_type(ask.answer_schema, dict[str, JSON])
    question_tool("ask", "Ask.", input_schema={}, answer_schema=3)  # type: ignore[arg-type]
    question_tool("ask", "Ask.")  # type: ignore[call-arg]
    audience: str = AUDIENCE
    assert_type(audience, str)


async def bridging(agent: Agent[None], sealer: Sealer) -> None:
    store = MemoryStore()

    async def tokens() -> dict[str, str]:
        return {"s-1": "token"}

    def continued(scope: str, result: RunResult) -> None:
        del scope, result

    door: Bridge = bridge(agent, sealer, store, tokens, continued=continued)
    assert_type(bridge(agent, sealer, store, lambda: {"s-1": "t"}), Bridge)
    assert_type(await door.pending(principal="alice"), Sequence[PendingPause])
    assert_type(await door.answer("s-1", Resume()), ResolvedResume)
    assert_type(await door.audit("s-1"), Sequence[AuditEvent])
    bridge(agent, sealer, store, {"s-1": "t"})  # type: ignore[arg-type]
    bridge(agent, sealer, store, lambda: ["t"])  # type: ignore[arg-type, return-value]
    bridge(agent, store, sealer, tokens)  # type: ignore[arg-type]
