"""Typing tests for the Genkit adapter: checked by mypy, never run."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import assert_type

from genkit import Genkit, Interrupt, ModelResponse, Tool, ToolRunContext
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
    SqliteStore,
    Store,
)
from interruption.adapters.genkit import (
    PausedTurn,
    approved,
    bridge,
    from_parts,
    load_paused,
    needs_approval,
    pause,
    rejection,
    resume,
    spent_key,
)


def tools(ctx: ToolRunContext) -> None:
    assert_type(needs_approval({"amount": 5}), Interrupt)
    assert_type(approved(ctx), bool)
    assert_type(rejection("no"), dict[str, JSON])
    needs_approval({1, 2})  # type: ignore[arg-type]


async def pausing(response: ModelResponse[object], store: Store, ask: Tool) -> None:
    paused = await pause(response, store, tools=[ask, "lookup"])
    assert_type(paused, PausedTurn | None)
    assert paused is not None
    assert_type(paused.id, str)
    assert_type(paused.interrupts, tuple[PendingInterrupt, ...])
    assert_type(paused.parts, tuple[dict[str, JSON], ...])
    assert_type(await load_paused(paused.id, store), PausedTurn)
    assert_type(await load_paused(paused.id, SqliteStore("app.db")), PausedTurn)
    assert_type(spent_key(paused.id), str)
    until = datetime(2030, 1, 1, tzinfo=UTC)
    assert_type(await pause(response, store, keep_until=until), PausedTurn | None)
    await pause(response, store, keep_until="2030-01-01")  # type: ignore[arg-type]
    await pause(response, store, answer_schemas={"ask_user": "any"})  # type: ignore[dict-item]
    await pause(response.message, store)  # type: ignore[arg-type]
    await pause(response, "turns.db")  # type: ignore[arg-type]


async def resuming(ai: Genkit, ask: Tool) -> None:
    store = MemoryStore()
    answer = from_parts(respond=[{"toolResponse": {"name": "a", "ref": "r"}}])
    assert_type(answer, Resume)
    policy = ResumePolicy(principal="alice")
    done = await resume(
        ai, "turn", answer, store, policy=policy, model="m", tools=[ask]
    )
    assert_type(done, ModelResponse[object])
    await resume(ai, "turn", answer, store, prompt="hi")  # type: ignore[call-arg]
    await resume(ai, "turn", answer, "store")  # type: ignore[arg-type]
    await resume(ai, "turn", {"restart": []}, store)  # type: ignore[arg-type]
    await resume(ai, "turn", answer, store, store)  # type: ignore[arg-type, call-arg]


async def bridging(ai: Genkit, store: Store, tools: list[Tool]) -> None:
    async def turns() -> list[str]:
        return ["turn"]

    def continued(scope: str, response: ModelResponse[object]) -> None:
        del scope, response

    door: Bridge = bridge(ai, store, turns, model="m", tools=tools, continued=continued)
    assert_type(bridge(ai, store, lambda: ["turn"]), Bridge)
    assert_type(await door.pending(principal="alice"), Sequence[PendingPause])
    assert_type(await door.answer("turn", Resume()), ResolvedResume)
    assert_type(await door.audit("turn"), Sequence[AuditEvent])
    bridge(ai, store, ["turn"])  # type: ignore[arg-type]
    bridge(ai, store, turns, max_turns="3")  # type: ignore[arg-type]
