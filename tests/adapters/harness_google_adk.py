"""The Google ADK row of the conformance table: a real runner on a scripted model.

Every process builds its own `Runner` over one ``SqliteSessionService``
file and one `SqliteStore` file: ADK's session is the authority, the store
spends each pause once.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Sequence
from pathlib import Path
from typing import cast

import attrs
from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions.sqlite_session_service import SqliteSessionService
from google.adk.tools.function_tool import FunctionTool
from google.adk.tools.long_running_tool import LongRunningFunctionTool
from google.genai import types
from interruption import JSON, AuditEvent, PendingInterrupt, Resume, SqliteStore
from interruption.adapters.google_adk import RejectionReasons, pending, resume
from interruption.testing.conformance import (
    ANSWER_SCHEMA,
    QUESTION,
    TRANSFER,
    Harness,
    Plan,
)

from tests.adapters._common import Effects

APP = "conformance"
USER = "alice"
SCHEMAS = {"ask_user": ANSWER_SCHEMA}


@attrs.define
class World(Effects):
    """What every process of one conversation shares.

    Its effects, what the model was shown, and the session's id (what the
    client holds between processes).
    """

    where: Path
    transfers: int = 0
    during: Callable[[], None] | None = None
    seen: list[JSON] = attrs.Factory(list)
    session_id: str | None = None


class ScriptedLlm(BaseLlm):
    """Asks for the plan's call after a user's text; says "done" after results.

    Every function response it is shown after the pause is recorded.
    """

    model: str = "scripted"
    world: World

    async def generate_content_async(
        self,
        llm_request: LlmRequest,
        stream: bool = False,  # noqa: FBT002 - BaseLlm's own signature
    ) -> AsyncGenerator[LlmResponse, None]:
        """Answer the last content of *llm_request*."""
        del stream
        last = llm_request.contents[-1]
        parts = last.parts or []
        text = parts[0].text if parts else None
        if last.role == "user" and text is not None:
            call = (
                types.FunctionCall(name="transfer_money", args=dict(TRANSFER))
                if text == "transfer"
                else types.FunctionCall(name="ask_user", args={"question": QUESTION})
            )
            yield LlmResponse(
                content=types.Content(
                    role="model", parts=[types.Part(function_call=call)]
                )
            )
            return
        for part in parts:
            if part.function_response is not None:
                response = cast("dict[str, JSON]", part.function_response.response)
                self.world.seen.extend(response.values())
        yield LlmResponse(
            content=types.Content(role="model", parts=[types.Part(text="done")])
        )


def _runner(world: World) -> Runner:
    """A fresh runner: the scripted model, the two tools, the shared session file."""

    def transfer_money(to: str, amount: int) -> dict[str, str | int]:
        """Send money."""
        world.transfer()
        return {"status": "sent", "to": to, "amount": amount}

    def ask_user(question: str) -> None:
        """Ask the user; the answer comes later."""
        del question

    agent = LlmAgent(
        name="payer",
        model=ScriptedLlm(world=world),
        tools=[
            FunctionTool(transfer_money, require_confirmation=True),
            LongRunningFunctionTool(ask_user),
        ],
    )
    return Runner(
        app=App(name=APP, root_agent=agent, plugins=[RejectionReasons()]),
        session_service=SqliteSessionService(str(world.where / "sessions.db")),
    )


class GoogleAdkHarness:
    """One process: a fresh runner and store over the same files."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.runner = _runner(world)
        self.store = SqliteStore(world.where / "store.db")

    async def pause(self, plan: Plan) -> Sequence[PendingInterrupt]:
        """Run the plan in a new session until it pauses."""
        session = await self.runner.session_service.create_session(
            app_name=APP, user_id=USER
        )
        self.world.session_id = session.id
        message = types.Content(role="user", parts=[types.Part(text=plan)])
        async for _ in self.runner.run_async(
            user_id=USER, session_id=session.id, new_message=message
        ):
            pass
        paused = await pending(
            self.runner, user_id=USER, session_id=session.id, answer_schemas=SCHEMAS
        )
        assert paused is not None, "the run did not pause"
        return paused.interrupts

    async def resume(self, resume_: Resume) -> None:
        """Resume the session through the adapter."""
        assert self.world.session_id is not None
        await resume(
            self.runner,
            resume_,
            self.store,
            user_id=USER,
            session_id=self.world.session_id,
            answer_schemas=SCHEMAS,
        )

    def transfers(self) -> int:
        """How often the transfer ran."""
        return self.world.transfers

    def during_transfer(self, hook: Callable[[], None]) -> None:
        """Call *hook* inside the next transfer, before its effect."""
        self.world.during = hook

    def seen(self) -> Sequence[JSON]:
        """What the model was shown after the pause."""
        return tuple(self.world.seen)

    async def audit(self) -> Sequence[AuditEvent]:
        """The store's audit trail of this conversation."""
        return await self.store.audit(self.world.session_id or "")

    async def reopen(self) -> Harness:
        """A new process over the same files."""
        return GoogleAdkHarness(self.world)


def harness(where: Path) -> Harness:
    """A fresh conversation kept under *where*."""
    return GoogleAdkHarness(World(where))
