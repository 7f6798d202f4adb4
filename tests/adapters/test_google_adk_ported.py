"""ADK's long-running and confirmation tests, answered through the adapter.

``tests/unittests/flows/llm_flows/test_functions_long_running.py`` of
google/adk-python runs a ``LongRunningFunctionTool`` that answers
``{"status": "pending"}`` at once, then feeds the runner a progress report
(``{"status": "still waiting"}``), the result (``{"result": 2}``) and a
second result (``{"result": 3}``), checking what the model is sent each
time and that the function ran once. ``tools/test_confirmation.py`` and
``test_request_confirmation.py`` pin a confirmed call running, a refused
one not running, and one concurrent claim of a confirmation. Here every
answer goes through `interruption.adapters.google_adk` instead of a raw
``FunctionResponse``; where this library refuses on purpose (a second
result), the test says so and pins the code.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable
from typing import Any, Final

import attrs
import pytest
from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.events.event import Event
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.adk.tools.function_tool import FunctionTool
from google.adk.tools.long_running_tool import LongRunningFunctionTool
from google.adk.tools.tool_context import ToolContext
from google.genai import types
from interruption import (
    JSON,
    Custom,
    MemoryStore,
    ProblemCode,
    Respond,
    Resume,
    ResumeRejected,
)
from interruption.adapters.google_adk import (
    PROGRESS_KEY,
    Paused,
    RejectionReasons,
    pending,
    resume,
)

USER: Final = "test_user"
APP: Final = "test_app"


class MockModel(BaseLlm):
    """ADK's test ``MockModel``: answers in order, keeps every request."""

    model: str = "mock"
    responses: list[types.Part]
    requests: list[LlmRequest] = []  # noqa: RUF012 - pydantic copies it

    async def generate_content_async(
        self,
        llm_request: LlmRequest,
        stream: bool = False,  # noqa: FBT002 - BaseLlm's own signature
    ) -> AsyncGenerator[LlmResponse, None]:
        """The next scripted response."""
        del stream
        self.requests.append(llm_request)
        part = self.responses.pop(0)
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


def _text(text: str) -> types.Part:
    return types.Part(text=text)


@attrs.define
class Bench:
    """One agent over one session, its model, and the store answers spend in."""

    model: MockModel
    runner: InMemoryRunner
    session_id: str = ""
    store: MemoryStore = attrs.Factory(MemoryStore)
    called: list[JSON] = attrs.Factory(list)

    async def start(self, text: str = "test1") -> list[Event]:
        """A new session, and its first run."""
        session = await self.runner.session_service.create_session(
            app_name=APP, user_id=USER
        )
        self.session_id = session.id
        message = types.Content(role="user", parts=[_text(text)])
        return [
            event
            async for event in self.runner.run_async(
                user_id=USER, session_id=session.id, new_message=message
            )
        ]

    async def pending(self) -> Paused | None:
        """What the adapter says is open."""
        return await pending(
            self.runner, user_id=USER, session_id=self.session_id, store=self.store
        )

    async def answer(self, answer: Resume, *, progress: bool = False) -> list[Event]:
        """Answer through the adapter."""
        return await resume(
            self.runner,
            answer,
            self.store,
            user_id=USER,
            session_id=self.session_id,
            progress=progress,
        )

    def last_sent(self) -> JSON:
        """The function response the model's latest request ends with."""
        last = self.model.requests[-1].contents[-1]
        (part,) = last.parts or []
        assert part.function_response is not None
        response: JSON = part.function_response.response
        return response


def _texts(events: list[Event]) -> list[str]:
    return [
        part.text
        for event in events
        if event.content is not None
        for part in event.content.parts or []
        if part.text is not None
    ]


def _long_running(returned: JSON) -> Bench:
    responses = [
        types.Part.from_function_call(name="increase_by_one", args={"x": 1}),
        *(_text(f"response{n}") for n in range(1, 5)),
    ]
    model = MockModel(responses=responses, requests=[])
    bench: Bench

    def increase_by_one(x: int, tool_context: ToolContext) -> JSON:
        """Add one, later."""
        del tool_context
        bench.called.append(x)
        return returned

    agent = LlmAgent(
        name="root_agent",
        model=model,
        tools=[LongRunningFunctionTool(func=increase_by_one)],
    )
    bench = Bench(model, InMemoryRunner(app=App(name=APP, root_agent=agent)))
    return bench


def _respond(paused: Paused | None, value: JSON) -> Resume:
    assert paused is not None
    (call,) = paused.interrupts
    return Resume(respond=[Respond(call.name, call.ref, value)])


def _codes(run: Callable[[], object]) -> tuple[ProblemCode, ...]:
    with pytest.raises(ResumeRejected) as caught:
        run()
    return caught.value.codes


@pytest.fixture(
    name="bench",
    params=[{"status": "pending"}, "pending"],
    ids=["test_async_function", "test_async_function_with_none_response"],
)
def _bench(request: pytest.FixtureRequest) -> Bench:
    bench = _long_running(request.param)
    asyncio.run(bench.start())
    return bench


class TestLongRunning:
    """``test_functions_long_running.py``: progress, result, a second result."""

    def test_the_first_run_pauses_on_the_call(self, bench: Bench) -> None:
        """The tool ran once and the model saw its own first answer (as ADK)."""
        assert bench.called == [1]
        assert len(bench.model.requests) == 2
        assert bench.last_sent() in ({"status": "pending"}, {"result": "pending"})
        paused = asyncio.run(bench.pending())
        assert paused is not None
        (call,) = paused.interrupts
        assert call.kind == Custom()
        assert call.name == "increase_by_one"

    def test_progress_then_the_result(self, bench: Bench) -> None:
        """A report reaches the model, the pause stays open; the result spends it."""
        report = _respond(asyncio.run(bench.pending()), {"status": "still waiting"})
        events = asyncio.run(bench.answer(report, progress=True))
        assert len(bench.model.requests) == 3
        assert bench.last_sent() == {"status": "still waiting"}
        assert _texts(events) == ["response2"]
        still = asyncio.run(bench.pending())
        assert still is not None

        events = asyncio.run(bench.answer(_respond(still, {"result": 2})))
        assert len(bench.model.requests) == 4
        assert bench.last_sent() == {"result": 2}
        assert _texts(events) == ["response3"]
        assert asyncio.run(bench.pending()) is None
        assert bench.called == [1]

    def test_a_second_result_is_consumed(self, bench: Bench) -> None:
        """ADK takes ``{"result": 3}`` too and asks the model again; we refuse it.

        Refused on purpose: the pause was answered, so a second result is
        ``consumed`` and the model is not called again.
        """
        paused = asyncio.run(bench.pending())
        asyncio.run(bench.answer(_respond(paused, {"result": 2})))
        again = _respond(paused, {"result": 3})
        assert _codes(lambda: asyncio.run(bench.answer(again))) == (
            ProblemCode.CONSUMED,
        )
        assert len(bench.model.requests) == 3
        assert bench.called == [1]

    def test_many_reports_then_one_result(self, bench: Bench) -> None:
        """Reports never spend the result: after two, the result is admitted once."""
        paused = asyncio.run(bench.pending())
        for status in ("queued", "running"):
            report = _respond(paused, {"status": status})
            asyncio.run(bench.answer(report, progress=True))
        asyncio.run(bench.answer(_respond(paused, {"result": 2})))
        assert bench.last_sent() == {"result": 2}
        audit = asyncio.run(bench.store.audit(bench.session_id))
        assert [(event.kind, event.reason) for event in audit] == [
            ("paused", None),
            ("accepted", "progress"),
            ("accepted", "progress"),
            ("accepted", None),
        ]
        assert paused is not None
        assert audit[0].pending == tuple(p.id for p in paused.interrupts)

    def test_the_session_marks_the_report(self, bench: Bench) -> None:
        """ADK's session says which calls a report was for (it is the authority)."""
        paused = asyncio.run(bench.pending())
        assert paused is not None
        report = _respond(paused, {"status": "still waiting"})
        asyncio.run(bench.answer(report, progress=True))
        session = asyncio.run(
            bench.runner.session_service.get_session(
                app_name=APP, user_id=USER, session_id=bench.session_id
            )
        )
        assert session is not None
        (user_event,) = [e for e in session.events[1:] if e.author == "user"]
        assert user_event.actions.state_delta[PROGRESS_KEY] == [paused.interrupts[0].id]
        without = asyncio.run(
            pending(bench.runner, user_id=USER, session_id=bench.session_id)
        )
        assert without is not None

    def test_a_report_outside_its_schema_is_refused(self, bench: Bench) -> None:
        """A report must be ``{"status": ...}`` by default; the model is not called."""
        report = _respond(asyncio.run(bench.pending()), {"result": 2})
        assert _codes(lambda: asyncio.run(bench.answer(report, progress=True))) == (
            ProblemCode.SCHEMA_VIOLATION,
        )
        assert len(bench.model.requests) == 2

    def test_a_report_after_the_result_is_consumed(self, bench: Bench) -> None:
        """Once the result is in, a late report is consumed."""
        paused = asyncio.run(bench.pending())
        asyncio.run(bench.answer(_respond(paused, {"result": 2})))
        late = _respond(paused, {"status": "still waiting"})
        assert _codes(lambda: asyncio.run(bench.answer(late, progress=True))) == (
            ProblemCode.CONSUMED,
        )

    def test_a_report_while_the_result_runs_is_consumed(self, bench: Bench) -> None:
        """A result spent, not yet in ADK's session, closes the pause to reports."""
        paused = asyncio.run(bench.pending())
        assert paused is not None
        asyncio.run(bench.store.spend_all(list(paused.keys.values()), None, ()))
        report = _respond(paused, {"status": "still waiting"})
        assert _codes(lambda: asyncio.run(bench.answer(report, progress=True))) == (
            ProblemCode.CONSUMED,
        )
        assert len(bench.model.requests) == 2

    def test_two_reports_on_one_state_one_is_consumed(
        self, bench: Bench, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Reports racing on one session state: one is admitted, one consumed."""
        paused = asyncio.run(bench.pending())
        service = bench.runner.session_service
        read = service.get_session

        async def slow_read(**where: Any) -> object:
            found = await read(**where)
            await asyncio.sleep(0.01)  # both reports read the same state
            return found

        monkeypatch.setattr(service, "get_session", slow_read)

        async def both() -> tuple[object, ...]:
            return await asyncio.gather(
                bench.answer(_respond(paused, {"status": "a"}), progress=True),
                bench.answer(_respond(paused, {"status": "b"}), progress=True),
                return_exceptions=True,
            )

        outcomes = asyncio.run(both())
        refused = [o for o in outcomes if isinstance(o, ResumeRejected)]
        assert [r.codes for r in refused] == [(ProblemCode.CONSUMED,)]


def _confirmed(*, reasons: bool = False) -> tuple[Bench, list[str]]:
    responses = [
        types.Part.from_function_call(name="mock_tool", args={"param1": "test"}),
        _text("response1"),
        _text("response2"),
    ]
    model = MockModel(responses=responses, requests=[])
    ran: list[str] = []

    def mock_tool(param1: str) -> str:
        """Mock tool function."""
        ran.append(param1)
        return f"Mock tool result with {param1}"

    agent = LlmAgent(
        name="test_agent",
        model=model,
        tools=[FunctionTool(mock_tool, require_confirmation=True)],
    )
    plugins: list[Any] = [RejectionReasons()] if reasons else []
    app = App(name=APP, root_agent=agent, plugins=plugins)
    bench = Bench(model, InMemoryRunner(app=app))
    asyncio.run(bench.start())
    return bench, ran


class TestConfirmation:
    """``test_request_confirmation.py`` and ``tools/test_confirmation.py``."""

    def test_a_confirmed_call_runs(self) -> None:
        """``processor_success``: the tool runs and the model gets its result."""
        bench, ran = _confirmed()
        paused = asyncio.run(bench.pending())
        assert paused is not None
        (approval,) = paused.interrupts
        asyncio.run(bench.answer(Resume(restart=[approval.approve()])))
        assert ran == ["test"]
        assert bench.last_sent() == {"result": "Mock tool result with test"}

    def test_a_call_not_confirmed_does_not_run(self) -> None:
        """``tool_not_confirmed``: the tool never runs; the model reads an error."""
        bench, ran = _confirmed()
        paused = asyncio.run(bench.pending())
        assert paused is not None
        (approval,) = paused.interrupts
        asyncio.run(bench.answer(Resume(restart=[approval.reject("no")])))
        assert ran == []
        sent = bench.last_sent()
        assert isinstance(sent, dict)
        assert "error" in sent

    def test_a_refusal_reason_reaches_the_model(self) -> None:
        """With `RejectionReasons`, the model reads the reason, not ADK's stock text."""
        bench, ran = _confirmed(reasons=True)
        paused = asyncio.run(bench.pending())
        assert paused is not None
        (approval,) = paused.interrupts
        asyncio.run(bench.answer(Resume(restart=[approval.reject("too much")])))
        assert ran == []
        assert bench.last_sent() == {"error": "too much"}

    def test_the_claim_of_a_confirmation_is_atomic(self) -> None:
        """``claim_is_atomic``: of two concurrent approvals, one is consumed."""
        bench, ran = _confirmed()
        paused = asyncio.run(bench.pending())
        assert paused is not None
        (approval,) = paused.interrupts
        answer = Resume(restart=[approval.approve()])

        async def both() -> tuple[object, ...]:
            return await asyncio.gather(
                bench.answer(answer), bench.answer(answer), return_exceptions=True
            )

        outcomes = asyncio.run(both())
        refused = [o for o in outcomes if isinstance(o, ResumeRejected)]
        assert [r.codes for r in refused] == [(ProblemCode.CONSUMED,)]
        assert ran == ["test"]

    def test_a_report_to_a_confirmation_is_not_accepted(self) -> None:
        """Progress is for long-running calls; a confirmation takes only a decision."""
        bench, ran = _confirmed()
        paused = asyncio.run(bench.pending())
        assert paused is not None
        (approval,) = paused.interrupts
        report = Resume(respond=[Respond(approval.name, approval.ref, {"status": "x"})])
        assert _codes(lambda: asyncio.run(bench.answer(report, progress=True))) == (
            ProblemCode.ANSWER_NOT_ACCEPTED,
        )
        assert ran == []
