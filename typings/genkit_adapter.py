"""Typing tests for the Genkit adapter: checked by mypy, never run."""

from __future__ import annotations

from typing import assert_type

from genkit import Genkit, Interrupt, ModelResponse, Tool, ToolRunContext
from interruption import (
    JSON,
    MemoryStore,
    PendingInterrupt,
    Resume,
    ResumePolicy,
    SqliteStore,
)
from interruption.adapters.genkit import (
    Keeper,
    MemoryKeeper,
    PausedTurn,
    SqliteKeeper,
    approved,
    from_parts,
    load_paused,
    needs_approval,
    pause,
    rejection,
    resume,
    spent_key,
)


def keepers() -> None:
    keeper: Keeper = MemoryKeeper()
    keeper = SqliteKeeper("turns.db")
    keeper = SqliteStore(":memory:")  # type: ignore[assignment]
    del keeper


def tools(ctx: ToolRunContext) -> None:
    assert_type(needs_approval({"amount": 5}), Interrupt)
    assert_type(approved(ctx), bool)
    assert_type(rejection("no"), dict[str, JSON])
    needs_approval({1, 2})  # type: ignore[arg-type]


async def pausing(response: ModelResponse[object], keeper: Keeper, ask: Tool) -> None:
    paused = await pause(response, keeper, tools=[ask, "lookup"])
    assert_type(paused, PausedTurn | None)
    assert paused is not None
    assert_type(paused.id, str)
    assert_type(paused.interrupts, tuple[PendingInterrupt, ...])
    assert_type(paused.parts, tuple[dict[str, JSON], ...])
    assert_type(await load_paused(paused.id, keeper), PausedTurn)
    assert_type(spent_key(paused.id), str)
    await pause(response, keeper, answer_schemas={"ask_user": "any"})  # type: ignore[dict-item]
    await pause(response.message, keeper)  # type: ignore[arg-type]


async def resuming(ai: Genkit, keeper: Keeper, ask: Tool) -> None:
    store = MemoryStore()
    answer = from_parts(respond=[{"toolResponse": {"name": "a", "ref": "r"}}])
    assert_type(answer, Resume)
    policy = ResumePolicy(principal="alice")
    done = await resume(
        ai, "turn", answer, keeper, store, policy=policy, model="m", tools=[ask]
    )
    assert_type(done, ModelResponse[object])
    await resume(ai, "turn", answer, keeper, store, prompt="hi")  # type: ignore[call-arg]
    await resume(ai, "turn", answer, keeper, "store")  # type: ignore[arg-type]
    await resume(ai, "turn", {"restart": []}, keeper, store)  # type: ignore[arg-type]
