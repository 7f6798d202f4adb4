"""Typing tests for the loop, sessions and stores: checked by mypy, never run."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import assert_type

from interruption import (
    JSON,
    Answered,
    AuditEvent,
    Authorize,
    ExpiryAnswer,
    GenerateResult,
    InterruptedTurn,
    MemoryStore,
    Message,
    PauseRefused,
    PendingInterrupt,
    PendingTurn,
    ResolvedResume,
    Resume,
    Role,
    Session,
    Spend,
    SqliteStore,
    Store,
    StreamEvent,
    continue_resolved,
    generate_stream,
    generate_sync,
    validate_and_spend,
)
from interruption.runtime.store import MAX_REJECTED, AuditKind, Listed, PostgresStore
from interruption.testing import ScriptedModel

NOW = datetime(2026, 11, 21, tzinfo=UTC)


def keeps(store: Store) -> Store:
    return store


def stores() -> None:
    keeps(MemoryStore())
    keeps(SqliteStore(":memory:"))
    keeps(PostgresStore("postgresql://127.0.0.1/app"))
    keeps("memory")  # type: ignore[arg-type]


async def session_api(store: Store, resume: Resume) -> None:
    session = Session(store, ScriptedModel([Message.of_text(Role.MODEL, "hi")]))
    assert_type(await session.send("hello"), GenerateResult)
    assert_type(
        await session.resume(resume, turn_id=1, principal="alice"), GenerateResult
    )
    assert_type(await session.pending(), tuple[PendingInterrupt, ...])
    assert_type(await session.pending_turn(), InterruptedTurn | None)
    assert_type(await session.recover(), GenerateResult | None)
    assert_type(session.send_sync("hello"), GenerateResult)
    await session.resume(resume, turn_id="1")  # type: ignore[arg-type]
    answered = await session.answer(resume, turn_id=1, principal="alice")
    assert_type(answered, Answered)
    assert_type(answered.accepted, ResolvedResume)
    assert_type(answered.result, GenerateResult)


async def operating(session: Session, store: Store) -> None:
    assert_type(await session.pending_state(), PendingTurn | None)
    assert_type(session.pending_state_sync(), PendingTurn | None)
    assert_type(session.pending_turn_sync(), InterruptedTurn | None)
    assert_type(await session.cancel("wrong account", turn_id=1, principal="a"), None)
    assert_type(session.cancel_sync("wrong account"), None)
    assert_type(await session.audit(), tuple[AuditEvent, ...])
    assert_type(session.audit_sync(), tuple[AuditEvent, ...])
    assert_type(await store.sessions("consumed"), tuple[str, ...])
    page = await store.sessions("expired", after="s-1", limit=100)
    assert_type(page, tuple[str, ...])
    assert_type(await session.expire(), bool)
    assert_type(session.expire_sync(), bool)
    assert_type(await store.lease("s-1", "me", NOW, NOW, renew=True), bool)
    await store.sessions("open", limit="100")  # type: ignore[arg-type]
    assert_type(await store.audit("s-1"), tuple[AuditEvent, ...])
    event = (await session.audit())[0]
    assert_type(event.kind, AuditKind)
    assert_type(event.codes, tuple[str, ...])
    limit: int = MAX_REJECTED
    listed: Listed = "open"
    await store.sessions("completed")  # type: ignore[arg-type]
    await session.cancel(reason=None)  # type: ignore[arg-type]
    del listed, limit


async def streams(model: ScriptedModel) -> None:
    async for event in generate_stream(model, "hello"):
        assert_type(event, StreamEvent)
    result = generate_sync(model, "hello", max_turns=3)
    assert_type(result.turn, InterruptedTurn | None)
    generate_sync(model, "hello", max_turns="3")  # type: ignore[arg-type]


def expiry() -> None:
    assert_type(ExpiryAnswer("No").output, JSON)


async def allowed(principal: str | None, _pending: PendingInterrupt) -> bool:
    return principal == "alice"


def sync_allowed(principal: str | None, _pending: PendingInterrupt) -> bool:
    return principal == "alice"


def one_argument(principal: str | None) -> bool:
    return principal == "alice"


async def authorizing(
    store: Store, model: ScriptedModel, turn: InterruptedTurn
) -> None:
    Session(store, model, authorize=allowed)
    Session(store, model, authorize=sync_allowed)
    checks: Authorize = allowed
    Session(store, model, authorize=one_argument)  # type: ignore[arg-type]

    async def spend(kept: Resume) -> bool:
        return await store.consume(turn, kept, None)

    spender: Spend = spend
    resolved = await validate_and_spend(Resume(), turn, spender)
    assert_type(resolved, ResolvedResume)
    assert_type(resolved.kept, Resume)
    async for event in continue_resolved(model, resolved, max_turns=2):
        assert_type(event, StreamEvent)
    await validate_and_spend(Resume(), turn, store.consume)  # type: ignore[arg-type]
    del checks


def durable(error: PauseRefused) -> None:
    SqliteStore(":memory:", synchronous="NORMAL")
    SqliteStore(":memory:", synchronous="OFF")  # type: ignore[arg-type]
    assert_type(error.ref, str)
    assert isinstance(error, ValueError)
