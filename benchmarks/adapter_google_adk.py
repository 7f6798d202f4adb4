"""Time one pause → resume cycle of Google ADK, alone and adapted.

Run with ``python benchmarks/adapter_google_adk.py``. One *cycle*: in a new
session of an `InMemoryRunner`, a scripted `BaseLlm` calls a
``FunctionTool(require_confirmation=True)``, so ADK pauses with an
``adk_request_confirmation`` call; the session is resumed with the call
confirmed; the tool runs and the model answers.

* *ADK alone* — its own flow: read the session, find the
  ``adk_request_confirmation`` call, and answer it with a user
  ``FunctionResponse`` of ``ToolConfirmation(confirmed=True)``.
* *with the adapter* — `pending` (read the session, build the interrupts),
  then `resume` (read the session again, validate the `Resume` against it,
  spend the pause once in a `MemoryStore`, build the same message, run).

Both run on one event loop, interleaved, best of 30 repeats; before
timing, each must pause, finish and run the tool exactly once per cycle.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator
from typing import Final

from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.adk.tools.function_tool import FunctionTool
from google.adk.tools.tool_confirmation import ToolConfirmation
from google.genai import types
from interruption import MemoryStore, Resume
from interruption.adapters.google_adk import CONFIRMATION, pending, resume

from _common import Cycle, measure_cycle, print_cycle

FRAMEWORK: Final = "google-adk 2.13"
USER: Final = "bench"

# The scripted model reports no token usage, and ADK warns once per call.
logging.getLogger("google_adk.google.adk.telemetry._metrics").setLevel(logging.ERROR)


class _Scripted(BaseLlm):
    """Calls ``ping`` after the user's text; says "done" after its result."""

    model: str = "scripted"

    async def generate_content_async(
        self,
        llm_request: LlmRequest,
        stream: bool = False,  # noqa: FBT001, FBT002 - BaseLlm's own signature
    ) -> AsyncGenerator[LlmResponse, None]:
        del stream
        last = llm_request.contents[-1]
        parts = last.parts or []
        if last.role == "user" and parts and parts[0].text is not None:
            call = types.FunctionCall(name="ping", args={"n": 1})
            part = types.Part(function_call=call)
        else:
            part = types.Part(text="done")
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


def _text(events: list[object]) -> str:
    for event in reversed(events):
        content = getattr(event, "content", None)
        parts = content.parts if content is not None else None
        if parts and parts[0].text is not None:
            return str(parts[0].text)
    return ""


class Bench(Cycle):
    """One runner, one model, one loop."""

    def __init__(self) -> None:
        super().__init__()

        def ping(n: int) -> int:
            """Reply."""
            self.runs += 1
            return n

        agent = LlmAgent(
            name="bench",
            model=_Scripted(),
            tools=[FunctionTool(ping, require_confirmation=True)],
        )
        self.runner = InMemoryRunner(app=App(name="bench", root_agent=agent))
        self.store = MemoryStore()

    async def _pause(self) -> str:
        session = await self.runner.session_service.create_session(
            app_name="bench", user_id=USER
        )
        message = types.Content(role="user", parts=[types.Part(text="go")])
        async for _ in self.runner.run_async(
            user_id=USER, session_id=session.id, new_message=message
        ):
            pass
        return session.id

    async def _alone(self) -> str:
        session_id = await self._pause()
        session = await self.runner.session_service.get_session(
            app_name="bench", user_id=USER, session_id=session_id
        )
        assert session is not None
        asked = [
            call
            for event in session.events
            for call in event.get_function_calls()
            if call.name == CONFIRMATION
        ]
        confirmed = ToolConfirmation(confirmed=True).model_dump(by_alias=True)
        parts = [
            types.Part(
                function_response=types.FunctionResponse(
                    id=call.id, name=CONFIRMATION, response=confirmed
                )
            )
            for call in asked
        ]
        message = types.Content(role="user", parts=parts)
        events = [
            event
            async for event in self.runner.run_async(
                user_id=USER, session_id=session_id, new_message=message
            )
        ]
        return _text(list(events))

    async def _adapted(self) -> str:
        session_id = await self._pause()
        paused = await pending(self.runner, user_id=USER, session_id=session_id)
        assert paused is not None
        answer = Resume(restart=[each.approve() for each in paused.interrupts])
        events = await resume(
            self.runner, answer, self.store, user_id=USER, session_id=session_id
        )
        return _text(list(events))


def measure() -> tuple[str, float, float]:
    """Time one cycle alone and with the adapter, interleaved.

    Returns:
        (framework, ADK-alone µs, with-adapter µs).
    """
    return measure_cycle(FRAMEWORK, Bench())


def main() -> None:
    """Print the table."""
    print_cycle(*measure())


if __name__ == "__main__":
    main()
