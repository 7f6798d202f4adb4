"""Typing tests for the loop, sessions and stores: checked by mypy, never run."""

from __future__ import annotations

from typing import assert_type

from interruption import (
    JSON,
    ExpiryAnswer,
    GenerateResult,
    InterruptedTurn,
    MemoryStore,
    Message,
    PendingInterrupt,
    Resume,
    Session,
    SqliteStore,
    Store,
    StreamEvent,
    generate_stream,
    generate_sync,
)
from interruption.store import PostgresStore
from interruption.testing import ScriptedModel


def keeps(store: Store) -> Store:
    return store


def stores() -> None:
    keeps(MemoryStore())
    keeps(SqliteStore(":memory:"))
    keeps(PostgresStore("postgresql://127.0.0.1/app"))
    keeps("memory")  # type: ignore[arg-type]


async def session_api(store: Store, resume: Resume) -> None:
    session = Session(store, ScriptedModel([Message.of_text("model", "hi")]))  # type: ignore[arg-type]
    assert_type(await session.send("hello"), GenerateResult)
    assert_type(
        await session.resume(resume, turn_id=1, principal="alice"), GenerateResult
    )
    assert_type(await session.pending(), tuple[PendingInterrupt, ...])
    assert_type(await session.pending_turn(), InterruptedTurn | None)
    assert_type(await session.recover(), GenerateResult | None)
    assert_type(session.send_sync("hello"), GenerateResult)
    await session.resume(resume, turn_id="1")  # type: ignore[arg-type]


async def streams(model: ScriptedModel) -> None:
    async for event in generate_stream(model, "hello"):
        assert_type(event, StreamEvent)
    result = generate_sync(model, "hello", max_turns=3)
    assert_type(result.turn, InterruptedTurn | None)
    generate_sync(model, "hello", max_turns="3")  # type: ignore[arg-type]


def expiry() -> None:
    assert_type(ExpiryAnswer("No").output, JSON)
