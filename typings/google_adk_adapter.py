"""Typing tests for the Google ADK adapter: checked by mypy, never run."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Literal, assert_type

from google.adk.events.event import Event
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.runners import InMemoryRunner, Runner
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
    pending_everywhere,
)
from interruption.adapters.google_adk import (
    ANY_JSON,
    CONFIRMATION,
    PROGRESS,
    PROGRESS_KEY,
    REJECTION_KEY,
    AdkBridge,
    Paused,
    RejectionReasons,
    bridge,
    pending,
    resume,
    scope_of,
)


async def reading(runner: Runner, in_memory: InMemoryRunner) -> None:
    paused = await pending(runner, user_id="alice", session_id="s1")
    assert_type(paused, Paused | None)
    assert paused is not None
    assert_type(paused.interrupts, tuple[PendingInterrupt, ...])
    assert_type(paused.session_id, str)
    assert_type(paused.keys, Mapping[str, str])
    assert_type(paused.created_at, datetime | None)
    schemas: dict[str, dict[str, JSON]] = {"ask_user": {"enum": ["Yes", "No"]}}
    await pending(in_memory, user_id="alice", session_id="s1", answer_schemas=schemas)
    await pending(runner, "alice", "s1")  # type: ignore[call-arg]
    await pending(runner, user_id=1, session_id="s1")  # type: ignore[arg-type]
    await pending(  # type: ignore[call-arg]
        runner, user_id="alice", session_id="s1", answers=schemas
    )


async def resuming(runner: Runner) -> None:
    store = MemoryStore()
    answer = Resume()
    events = await resume(runner, answer, store, user_id="alice", session_id="s1")
    assert_type(events, list[Event])
    policy = ResumePolicy(principal="alice")
    await resume(runner, answer, store, user_id="alice", session_id="s1", policy=policy)
    await resume(runner, {}, store, user_id="a", session_id="s")  # type: ignore[arg-type]
    await resume(runner, answer, {}, user_id="a", session_id="s")  # type: ignore[arg-type]
    await resume(runner, answer, store)  # type: ignore[call-arg]
    reports: dict[str, dict[str, JSON]] = {"ask_user": {"type": "object"}}
    await resume(
        runner,
        answer,
        store,
        user_id="a",
        session_id="s",
        progress=True,
        progress_schemas=reports,
    )
    await resume(
        runner,
        answer,
        store,
        user_id="a",
        session_id="s",
        progress="yes",  # type: ignore[arg-type]
    )


def constants() -> None:
    plugin: BasePlugin = RejectionReasons()
    assert_type(plugin.name, str)
    assert_type(CONFIRMATION, Literal["adk_request_confirmation"])
    assert_type(REJECTION_KEY, Literal["interruption_rejection"])
    assert_type(ANY_JSON, dict[str, JSON])
    assert_type(PROGRESS, dict[str, JSON])
    assert_type(PROGRESS_KEY, Literal["interruption_progress"])


async def bridged(runner: Runner, answer: Resume) -> None:
    store = MemoryStore()
    door = bridge(runner, store)
    assert_type(door, AdkBridge)
    seen: Bridge = door
    assert_type(seen.door, str)
    assert_type(await door.pending(principal="bob"), list[PendingPause])
    scope = scope_of("alice", "s1")
    assert_type(scope, str)
    assert_type(await door.answer(scope, answer), ResolvedResume)
    assert_type(await door.audit(scope), tuple[AuditEvent, ...])
    assert_type(await pending_everywhere([door]), list[PendingPause])

    async def sessions() -> list[tuple[str, str]]:
        return [("alice", "s1")]

    bridge(runner, store, sessions)
    bridge(runner, store, lambda: [("alice", "s1")], authorize=lambda _w, _p: True)
    bridge(runner, store, answer_schemas={"ask_user": {"enum": ["Yes"]}})
    bridge(runner)  # type: ignore[call-arg]
    bridge(runner, store, lambda: ["s1"])  # type: ignore[list-item]
    scope_of("alice")  # type: ignore[call-arg]
