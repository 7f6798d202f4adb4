"""The Google ADK adapter, against real runners on a scripted BaseLlm."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable, Sequence
from types import SimpleNamespace
from typing import Any, cast

import attrs
import pytest
from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.adk.sessions.in_memory_session_service import InMemorySessionService
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.function_tool import FunctionTool
from google.adk.tools.long_running_tool import LongRunningFunctionTool
from google.adk.tools.tool_confirmation import ToolConfirmation
from google.adk.tools.tool_context import ToolContext
from google.genai import types
from hypothesis import given
from hypothesis import strategies as st
from interruption import (
    JSON,
    ApprovalPending,
    Bridge,
    Custom,
    DecodeError,
    InvalidArgument,
    MemoryStore,
    PendingInterrupt,
    ProblemCode,
    Respond,
    Restart,
    Resume,
    ResumePolicy,
    ResumeRejected,
    SchemaError,
    ToolRequest,
    json_equal,
    pending_everywhere,
)
from interruption.adapters.google_adk import (
    ANY_JSON,
    CONFIRMATION,
    REJECTION_KEY,
    AdkBridge,
    Paused,
    RejectionReasons,
    _session_of,
    bridge,
    pending,
    resume,
    scope_of,
)
from interruption.runtime.approval import DECISION_SCHEMA

from tests.adapters._common import import_error
from tests.strategies import json_values

USER = "alice"
TRANSFER: dict[str, JSON] = {"to": "ACME", "amount": 125000}
ANSWER: dict[str, JSON] = {"enum": ["Yes", "No"]}
SCHEMAS: dict[str, dict[str, JSON]] = {"ask_user": ANSWER}


def call(name: str, args: dict[str, Any]) -> types.Part:
    """A model's function call part (ADK gives it an id)."""
    return types.Part(function_call=types.FunctionCall(name=name, args=args))


@attrs.define
class World:
    """What the tools did and what the model read.

    ``seen``: the results of each model call's last content, after the
    pause; ``shown``: every result in the model's latest request.
    """

    plan: list[types.Part]
    transfers: list[dict[str, JSON]] = attrs.Factory(list)
    seen: list[dict[str, JSON]] = attrs.Factory(list)
    shown: list[dict[str, JSON]] = attrs.Factory(list)


class ScriptedLlm(BaseLlm):
    """Calls the world's plan after a user's text; says "done" after results."""

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
        self.world.shown = [
            cast("dict[str, JSON]", part.function_response.response)
            for content in llm_request.contents
            for part in content.parts or []
            if part.function_response is not None
        ]
        if last.role == "user" and parts and parts[0].text is not None:
            content = types.Content(role="model", parts=list(self.world.plan))
        else:
            self.world.seen.extend(
                cast("dict[str, JSON]", part.function_response.response)
                for part in parts
                if part.function_response is not None
            )
            content = types.Content(role="model", parts=[types.Part(text="done")])
        yield LlmResponse(content=content)


def make_runner(world: World, *, reasons: bool = True) -> InMemoryRunner:
    """A runner: a confirmed transfer, a question, a tool that asks itself."""

    def transfer_money(to: str, amount: int) -> dict[str, str]:
        """Send money."""
        world.transfers.append({"to": to, "amount": amount})
        return {"status": "sent"}

    def ask_user(question: str) -> None:
        """Ask the user; the answer comes later."""
        del question

    def wipe(disk: str, tool_context: ToolContext) -> dict[str, str]:
        """Wipe a disk, once someone confirms it."""
        if tool_context.tool_confirmation is None:
            tool_context.request_confirmation(hint="sure?", payload={"disk": disk})
            return {"status": "asked"}
        return {"status": "wiped"}

    agent = LlmAgent(
        name="payer",
        model=ScriptedLlm(world=world),
        tools=[
            FunctionTool(transfer_money, require_confirmation=True),
            LongRunningFunctionTool(ask_user),
            FunctionTool(wipe),
        ],
    )
    plugins: list[Any] = [RejectionReasons()] if reasons else []
    return InMemoryRunner(app=App(name="bank", root_agent=agent, plugins=plugins))


@attrs.frozen
class Setup:
    """A session paused on the world's plan."""

    world: World
    runner: InMemoryRunner
    session_id: str
    store: MemoryStore

    async def pending(self) -> Paused:
        """The open pause (it must be there)."""
        paused = await pending(
            self.runner,
            user_id=USER,
            session_id=self.session_id,
            answer_schemas=SCHEMAS,
        )
        assert paused is not None
        return paused

    async def resume(
        self, answer: Resume, policy: ResumePolicy | None = None
    ) -> list[Any]:
        """Answer the pause through the adapter."""
        return await resume(
            self.runner,
            answer,
            self.store,
            user_id=USER,
            session_id=self.session_id,
            answer_schemas=SCHEMAS,
            policy=policy,
        )


async def paused_on(plan: Sequence[types.Part], *, reasons: bool = True) -> Setup:
    """Run *plan* in a fresh session until it pauses."""
    world = World(list(plan))
    runner = make_runner(world, reasons=reasons)
    session = await runner.session_service.create_session(app_name="bank", user_id=USER)
    message = types.Content(role="user", parts=[types.Part(text="go")])
    async for _ in runner.run_async(
        user_id=USER, session_id=session.id, new_message=message
    ):
        pass
    return Setup(world, runner, session.id, MemoryStore())


def setup(plan: Sequence[types.Part], *, reasons: bool = True) -> Setup:
    """`paused_on`, for synchronous tests."""
    return asyncio.run(paused_on(plan, reasons=reasons))


def transfer() -> types.Part:
    """The model's call of the confirmed transfer."""
    return call("transfer_money", dict(TRANSFER))


def question() -> types.Part:
    """The model's call of the long-running question."""
    return call("ask_user", {"question": "Pay today?"})


def rejected(run: Callable[[], object]) -> tuple[ProblemCode, ...]:
    """The codes *run* is rejected with."""
    with pytest.raises(ResumeRejected) as caught:
        run()
    return caught.value.codes


def stored_events(state: Setup) -> list[Any]:
    """The events the in-memory session service holds (to tamper with)."""
    service = state.runner.session_service
    assert isinstance(service, InMemorySessionService)
    return service.sessions["bank"][USER][state.session_id].events


class TestImport:
    @pytest.mark.parametrize("missing", ["google.adk", "google.genai"])
    def test_a_missing_extra_is_named(self, missing: str) -> None:
        """Without google-adk, importing the adapter names the extra."""
        out = import_error("interruption.adapters.google_adk", missing)
        assert "pip install 'interruption[google-adk]'" in out


class TestPending:
    def test_a_confirmation_keeps_both_ids(self) -> None:
        """A confirmation is ApprovalPending of the original call, its id ADK's."""
        state = setup([transfer()])
        paused = asyncio.run(state.pending())
        (approval,) = paused.interrupts
        events = stored_events(state)
        original = next(
            fc.id
            for event in events
            for fc in event.get_function_calls()
            if fc.name == "transfer_money"
        )
        asked = next(
            fc.id
            for event in events
            for fc in event.get_function_calls()
            if fc.name == CONFIRMATION
        )
        assert original != asked
        assert approval.id == asked
        assert approval.kind == ApprovalPending(original)
        assert approval.tool == ToolRequest("transfer_money", original, TRANSFER)
        assert approval.accepts.restart == DECISION_SCHEMA
        assert approval.accepts.respond is None
        assert approval.payload == {
            "tool": "transfer_money",
            "args": TRANSFER,
            "hint": (
                "Please approve or reject the tool call transfer_money() by"
                " responding with a FunctionResponse with an expected"
                " ToolConfirmation payload."
            ),
            "payload": None,
        }
        assert paused.session_id == state.session_id

    def test_a_long_running_call_is_a_question(self) -> None:
        """A long-running call is Custom, answered against its tool's schema."""
        state = setup([question()])
        (asked,) = asyncio.run(state.pending()).interrupts
        assert asked.kind == Custom()
        assert asked.tool is not None
        assert asked.id == asked.ref == asked.tool.ref
        assert asked.payload == {"tool": "ask_user", "args": {"question": "Pay today?"}}
        assert asked.accepts.respond == ANSWER

    def test_a_tool_without_a_schema_takes_any_json(self) -> None:
        """Without a declared schema a long-running call takes any JSON."""
        state = setup([question()])
        paused = asyncio.run(
            pending(state.runner, user_id=USER, session_id=state.session_id)
        )
        assert paused is not None
        assert paused.interrupts[0].accepts.respond == ANY_JSON

    def test_a_requested_confirmation_shows_its_payload(self) -> None:
        """request_confirmation's hint and payload are shown, as JSON."""
        state = setup([call("wipe", {"disk": "d1"})])
        (approval,) = asyncio.run(state.pending()).interrupts
        assert isinstance(approval.kind, ApprovalPending)
        assert approval.payload == {
            "tool": "wipe",
            "args": {"disk": "d1"},
            "hint": "sure?",
            "payload": {"disk": "d1"},
        }

    def test_parallel_calls_are_one_pause(self) -> None:
        """Two paused calls of one model turn are listed together, in order."""
        state = setup([transfer(), question()])
        kinds = [each.kind for each in asyncio.run(state.pending()).interrupts]
        assert [type(kind) for kind in kinds] == [Custom, ApprovalPending]

    def test_a_finished_session_is_not_paused(self) -> None:
        """A session whose model only talked has no pause."""
        state = setup([types.Part(text="hello")])
        assert (
            asyncio.run(
                pending(state.runner, user_id=USER, session_id=state.session_id)
            )
            is None
        )

    def test_an_unknown_session_is_named(self) -> None:
        """A session the runner does not have is unknown_session."""
        state = setup([transfer()])
        codes = rejected(
            lambda: asyncio.run(pending(state.runner, user_id=USER, session_id="nope"))
        )
        assert codes == (ProblemCode.UNKNOWN_SESSION,)

    def test_the_key_is_the_pause(self) -> None:
        """Two reads of one pause share a key; two pauses do not."""
        one, other = setup([transfer()]), setup([transfer()])
        first, again = asyncio.run(one.pending()), asyncio.run(one.pending())
        assert first.keys == again.keys
        assert first.keys != asyncio.run(other.pending()).keys

    def test_a_bad_schema_is_refused(self) -> None:
        """An answer schema that cannot run is a SchemaError."""
        state = setup([question()])
        with pytest.raises(SchemaError):
            asyncio.run(
                pending(
                    state.runner,
                    user_id=USER,
                    session_id=state.session_id,
                    answer_schemas={"ask_user": {"type": "nonsense"}},
                )
            )


class TestDamagedSessions:
    def confirmation_args(self, state: Setup) -> dict[str, Any]:
        """The stored adk_request_confirmation call's arguments."""
        for event in stored_events(state):
            for fc in event.get_function_calls():
                if fc.name == CONFIRMATION:
                    return cast("dict[str, Any]", fc.args)
        raise AssertionError

    def test_changed_arguments_are_refused(self) -> None:
        """A confirmation whose arguments differ from the recorded call is damage."""
        state = setup([transfer()])
        original = self.confirmation_args(state)["originalFunctionCall"]
        original["args"] = {**TRANSFER, "to": "MALLORY"}
        with pytest.raises(DecodeError) as caught:
            asyncio.run(state.pending())
        assert caught.value.path.endswith(".args.originalFunctionCall.args")
        assert state.world.transfers == []

    def test_a_confirmation_of_no_call_is_refused(self) -> None:
        """A confirmation naming no call of the session is damage."""
        state = setup([transfer()])
        self.confirmation_args(state)["originalFunctionCall"]["id"] = "elsewhere"
        with pytest.raises(DecodeError) as caught:
            asyncio.run(state.pending())
        assert caught.value.got == "'elsewhere'"

    def test_a_malformed_confirmation_is_refused(self) -> None:
        """A confirmation without its two objects is damage."""
        state = setup([transfer()])
        del self.confirmation_args(state)["toolConfirmation"]
        with pytest.raises(DecodeError) as caught:
            asyncio.run(state.pending())
        assert caught.value.expected == (
            "originalFunctionCall and toolConfirmation objects"
        )

    def test_a_call_without_an_id_is_no_pause(self) -> None:
        """A recorded call without an id is neither pending nor an original."""
        state = setup([question()])
        model = next(e for e in stored_events(state) if e.get_function_calls())
        assert model.content is not None
        assert model.content.parts is not None
        stray = types.FunctionCall(name="ask_user", args={"question": "?"})
        model.content.parts.append(types.Part(function_call=stray))
        (asked,) = asyncio.run(state.pending()).interrupts
        assert asked.payload == {"tool": "ask_user", "args": {"question": "Pay today?"}}

    def test_a_payload_that_is_not_json_is_refused(self) -> None:
        """An untyped payload that is not JSON is named, with its path."""
        state = setup([call("wipe", {"disk": "d1"})])
        self.confirmation_args(state)["toolConfirmation"]["payload"] = {"d": {1, 2}}
        with pytest.raises(DecodeError) as caught:
            asyncio.run(state.pending())
        assert caught.value.path.endswith(".args.toolConfirmation.payload.d")


class TestResume:
    def test_a_report_on_one_call_leaves_the_others_open(self) -> None:
        """A progress report on one of two calls: both stay open, answered whole."""
        state = setup([question(), call("ask_user", {"question": "Ship too?"})])
        runner, store, session = state.runner, state.store, state.session_id

        async def answer(given: Resume, *, progress: bool = False) -> object:
            return await resume(
                runner,
                given,
                store,
                user_id=USER,
                session_id=session,
                progress=progress,
            )

        async def listed() -> tuple[PendingInterrupt, ...]:
            paused = await pending(
                runner, user_id=USER, session_id=session, store=store
            )
            return () if paused is None else paused.interrupts

        first, second = asyncio.run(listed())
        report = Resume(respond=[first.respond({"status": "asked"})])
        asyncio.run(answer(report, progress=True))
        assert asyncio.run(listed()) == (first, second)
        alone = Resume(respond=[first.respond({"result": "Yes"})])
        assert rejected(lambda: asyncio.run(answer(alone))) == (ProblemCode.MISSING,)
        both = Resume(
            respond=[first.respond({"result": "Yes"}), second.respond({"result": "No"})]
        )
        asyncio.run(answer(both))
        assert asyncio.run(listed()) == ()
        assert rejected(lambda: asyncio.run(answer(both))) == (ProblemCode.CONSUMED,)

    def test_a_pause_being_resumed_is_neither_listed_nor_resumable(self) -> None:
        """Once spent (its continuation running), a pause is not pending, not open."""
        state = setup([transfer()])
        paused = asyncio.run(state.pending())
        (approval,) = paused.interrupts
        # What `resume` has done by the time ADK runs the call: the keys spent.
        assert asyncio.run(state.store.spend_all(list(paused.keys.values()), None))
        listed = pending(
            state.runner,
            user_id=USER,
            session_id=state.session_id,
            answer_schemas=SCHEMAS,
            store=state.store,
        )
        assert asyncio.run(listed) is None
        answer = Resume(restart=[approval.approve()])
        codes = rejected(lambda: asyncio.run(state.resume(answer)))
        assert codes == (ProblemCode.CONSUMED,)
        assert state.world.transfers == []

    def test_an_approval_runs_the_call_once(self) -> None:
        """Approving runs the original call with its recorded arguments, once."""
        state = setup([transfer()])
        (approval,) = asyncio.run(state.pending()).interrupts
        answer = Resume(restart=[approval.approve("checked")])
        asyncio.run(state.resume(answer))
        assert state.world.transfers == [TRANSFER]
        assert state.world.seen == [{"status": "sent"}]
        assert rejected(lambda: asyncio.run(state.resume(answer))) == (
            ProblemCode.CONSUMED,
        )
        assert state.world.transfers == [TRANSFER]

    def test_a_rejection_tells_the_model_why(self) -> None:
        """A rejection never runs the tool; the model reads the reason."""
        state = setup([transfer()])
        (approval,) = asyncio.run(state.pending()).interrupts
        asyncio.run(state.resume(Resume(restart=[approval.reject("wrong account")])))
        assert state.world.transfers == []
        assert state.world.seen == [{"error": "wrong account"}]

    def test_without_the_plugin_adk_says_rejected(self) -> None:
        """Without RejectionReasons the tool still does not run; ADK's words."""
        state = setup([transfer()], reasons=False)
        (approval,) = asyncio.run(state.pending()).interrupts
        asyncio.run(state.resume(Resume(restart=[approval.reject("wrong account")])))
        assert state.world.transfers == []
        assert state.world.seen == [{"error": "This tool call is rejected."}]

    def test_a_requested_confirmation_runs_its_tool(self) -> None:
        """A tool that asked for confirmation runs again, confirmed."""
        state = setup([call("wipe", {"disk": "d1"})])
        (approval,) = asyncio.run(state.pending()).interrupts
        asyncio.run(state.resume(Resume(restart=[approval.approve()])))
        assert state.world.seen[-1] == {"status": "wiped"}

    def test_an_answer_reaches_the_model(self) -> None:
        """A long-running call's answer is its result, as ADK wraps a value."""
        state = setup([question()])
        (asked,) = asyncio.run(state.pending()).interrupts
        asyncio.run(state.resume(Resume(respond=[asked.respond("Yes")])))
        assert state.world.seen == [{"result": "Yes"}]

    def test_an_answer_outside_its_schema_is_refused(self) -> None:
        """An answer breaking its schema is refused; nothing runs or is spent."""
        state = setup([question()])
        (asked,) = asyncio.run(state.pending()).interrupts
        forged = Resume(respond=[Respond(asked.name, asked.ref, "Maybe")])
        codes = rejected(lambda: asyncio.run(state.resume(forged)))
        assert codes == (ProblemCode.SCHEMA_VIOLATION,)
        assert state.world.seen == []
        asyncio.run(state.resume(Resume(respond=[asked.respond("No")])))
        assert state.world.seen == [{"result": "No"}]

    def test_a_coerced_decision_is_refused(self) -> None:
        """A decision ADK would coerce ("yes") is not a decision here."""
        state = setup([transfer()])
        (approval,) = asyncio.run(state.pending()).interrupts
        forged = Resume(restart=[Restart(approval.name, approval.ref, "yes")])
        codes = rejected(lambda: asyncio.run(state.resume(forged)))
        assert codes == (ProblemCode.SCHEMA_VIOLATION,)
        assert state.world.transfers == []

    def test_a_result_for_an_approval_is_refused(self) -> None:
        """A client-made result cannot stand in for a confirmation."""
        state = setup([transfer()])
        (approval,) = asyncio.run(state.pending()).interrupts
        forged = Resume(respond=[Respond(approval.name, approval.ref, {"ok": 1})])
        codes = rejected(lambda: asyncio.run(state.resume(forged)))
        assert codes == (ProblemCode.ANSWER_NOT_ACCEPTED,)
        assert state.world.transfers == []

    def test_parallel_calls_are_answered_together(self) -> None:
        """Both calls of one pause are answered in one message, each its own way."""
        state = setup([transfer(), question()])
        asked, approval = asyncio.run(state.pending()).interrupts
        answer = Resume(respond=[asked.respond("Yes")], restart=[approval.approve()])
        asyncio.run(state.resume(answer))
        assert state.world.transfers == [TRANSFER]
        answered = [
            (response.name, response.response)
            for event in stored_events(state)
            if event.author == "user"
            for response in event.get_function_responses()
        ]
        assert answered == [
            ("ask_user", {"result": "Yes"}),
            (CONFIRMATION, {"hint": "", "confirmed": True}),
        ]
        # ADK 2.13 then shows the model the confirmed call's result only.
        assert state.world.shown == [{"status": "sent"}]

    def test_a_missing_answer_is_refused(self) -> None:
        """Every call of a pause must be answered; nothing runs otherwise."""
        state = setup([transfer(), question()])
        asked, _ = asyncio.run(state.pending()).interrupts
        answer = Resume(respond=[asked.respond("Yes")])
        assert rejected(lambda: asyncio.run(state.resume(answer))) == (
            ProblemCode.MISSING,
        )
        assert state.world.seen == []

    def test_partial_resumes_are_not_supported(self) -> None:
        """allow_partial is a ValueError, before anything is read."""
        state = setup([transfer()])
        (approval,) = asyncio.run(state.pending()).interrupts
        answer = Resume(restart=[approval.approve()])
        policy = ResumePolicy(allow_partial=True)
        with pytest.raises(ValueError, match="allow_partial"):
            asyncio.run(state.resume(answer, policy))
        assert state.world.transfers == []

    def test_partial_resumes_are_an_invalid_argument(self) -> None:
        """The refusal is the library's InvalidArgument at policy.allow_partial."""
        state = setup([transfer()])
        (approval,) = asyncio.run(state.pending()).interrupts
        answer = Resume(restart=[approval.approve()])
        with pytest.raises(InvalidArgument) as caught:
            asyncio.run(state.resume(answer, ResumePolicy(allow_partial=True)))
        error = caught.value
        assert (error.code, error.where, error.got) == (
            "invalid_argument",
            "resume: policy.allow_partial",
            "True",
        )
        assert error.expected.startswith("False: ADK")
        assert state.world.transfers == []

    def test_a_refused_principal_spends_nothing(self) -> None:
        """A principal authorize refuses gets not_authorized; the pause stays."""
        state = setup([transfer()])
        (approval,) = asyncio.run(state.pending()).interrupts
        answer = Resume(restart=[approval.approve()])
        policy = ResumePolicy(authorize=lambda who, _: who == "bob", principal="eve")
        codes = rejected(lambda: asyncio.run(state.resume(answer, policy)))
        assert codes == (ProblemCode.NOT_AUTHORIZED,)
        asyncio.run(state.resume(answer))
        assert state.world.transfers == [TRANSFER]

    def test_nothing_pending(self) -> None:
        """A resume of a session that never paused is nothing_pending."""
        state = setup([types.Part(text="hello")])
        answer = Resume(restart=[Restart("transfer_money", "c1", "approve")])
        assert rejected(lambda: asyncio.run(state.resume(answer))) == (
            ProblemCode.NOTHING_PENDING,
        )

    def test_a_pause_answered_around_the_adapter_is_consumed(self) -> None:
        """A pause a raw ADK message answered is consumed for the adapter."""
        state = setup([transfer()])
        (approval,) = asyncio.run(state.pending()).interrupts
        raw = types.FunctionResponse(
            id=approval.id,
            name=CONFIRMATION,
            response=ToolConfirmation(confirmed=False).model_dump(by_alias=True),
        )
        message = types.Content(role="user", parts=[types.Part(function_response=raw)])

        async def answer_raw() -> None:
            async for _ in state.runner.run_async(
                user_id=USER, session_id=state.session_id, new_message=message
            ):
                pass

        asyncio.run(answer_raw())
        answer = Resume(restart=[approval.approve()])
        assert rejected(lambda: asyncio.run(state.resume(answer))) == (
            ProblemCode.CONSUMED,
        )
        assert state.world.transfers == []

    def test_with_an_authorizer_a_session_not_paused_tells_nothing(self) -> None:
        """No pause to authorize against: with an authorizer, not_authorized."""
        state = setup([transfer()])
        (approval,) = asyncio.run(state.pending()).interrupts
        answer = Resume(restart=[approval.approve()])
        asyncio.run(state.resume(answer))
        anyone = ResumePolicy(authorize=lambda _principal, _pending: True)
        assert rejected(lambda: asyncio.run(state.resume(answer, anyone))) == (
            ProblemCode.NOT_AUTHORIZED,
        )
        assert rejected(lambda: asyncio.run(state.resume(answer))) == (
            ProblemCode.CONSUMED,
        )
        assert state.world.transfers == [TRANSFER]

    @given(value=json_values())
    def test_any_json_answer_reaches_the_model_as_it_was(self, value: JSON) -> None:
        """Any JSON answer to a schema-less call is the result the model reads."""

        async def scenario() -> None:
            state = await paused_on([question()])
            paused = await pending(
                state.runner, user_id=USER, session_id=state.session_id
            )
            assert paused is not None
            (asked,) = paused.interrupts
            await resume(
                state.runner,
                Resume(respond=[asked.respond(value)]),
                state.store,
                user_id=USER,
                session_id=state.session_id,
            )
            expected: JSON = value if isinstance(value, dict) else {"result": value}
            (seen,) = state.world.seen
            assert json_equal(cast("JSON", seen), expected)

        asyncio.run(scenario())


class TestRejectionReasons:
    def context(self, confirmation: ToolConfirmation | None) -> ToolContext:
        """A stand-in tool context: the plugin reads only its confirmation."""
        return cast("ToolContext", SimpleNamespace(tool_confirmation=confirmation))

    @pytest.mark.parametrize(
        "confirmation",
        [
            None,
            ToolConfirmation(confirmed=True, payload={REJECTION_KEY: "no"}),
            ToolConfirmation(confirmed=False),
            ToolConfirmation(confirmed=False, payload={REJECTION_KEY: 7}),
            ToolConfirmation(confirmed=False, payload="no"),
        ],
    )
    def test_other_calls_are_let_be(
        self, confirmation: ToolConfirmation | None
    ) -> None:
        """Only a rejection carrying a string reason is answered by the plugin."""
        plugin = RejectionReasons()
        tool = cast("BaseTool", None)
        answer = asyncio.run(
            plugin.before_tool_callback(
                tool=tool, tool_args={}, tool_context=self.context(confirmation)
            )
        )
        assert answer is None

    def test_a_rejection_is_answered_with_its_reason(self) -> None:
        """A rejection carrying a reason is answered {"error": reason}."""
        plugin = RejectionReasons()
        confirmation = ToolConfirmation(confirmed=False, payload={REJECTION_KEY: "no"})
        answer = asyncio.run(
            plugin.before_tool_callback(
                tool=cast("BaseTool", None),
                tool_args={},
                tool_context=self.context(confirmation),
            )
        )
        assert answer == {"error": "no"}
        assert plugin.name == "interruption_rejection_reasons"


def bob_only(principal: str | None, _pending: object) -> bool:
    """An authorizer that lets only bob see and answer."""
    return principal == "bob"


def on(state: Setup, **options: Any) -> AdkBridge:
    """The bridge over *state*'s runner and store."""
    return bridge(state.runner, state.store, answer_schemas=SCHEMAS, **options)


class TestBridge:
    """`bridge`: every session's pause listed and answered through `resume`."""

    def test_a_real_pause_is_listed_everywhere(self) -> None:
        """ADK's confirmation is listed with its kind, accepts and scope."""
        state = setup([transfer()])
        door = on(state)
        assert isinstance(door, Bridge)
        (pause,) = asyncio.run(door.pending())
        assert (pause.door, pause.scope) == (
            "google_adk",
            scope_of(USER, state.session_id),
        )
        (approval,) = pause.interrupts
        assert isinstance(approval.kind, ApprovalPending)
        assert approval.accepts.restart == DECISION_SCHEMA
        assert approval.accepts.respond is None
        assert pause.interrupts == asyncio.run(state.pending()).interrupts
        assert asyncio.run(pending_everywhere([door])) == [pause]

    def test_an_answer_runs_the_call_once_with_it(self) -> None:
        """The bridge's accepted answer is what ADK runs: the transfer, once."""
        state = setup([transfer()])
        door = on(state)
        (pause,) = asyncio.run(door.pending())
        (approval,) = pause.interrupts
        answer = Resume(restart=[approval.approve()])
        resolved = asyncio.run(door.answer(pause.scope, answer))
        (accepted,) = resolved.answers
        assert accepted.entry == approval.approve()
        assert state.world.transfers == [TRANSFER]
        assert state.world.seen == [{"status": "sent"}]

    def test_a_second_answer_through_either_door_is_consumed(self) -> None:
        """Answered through the bridge, a replay via either door is consumed."""
        state = setup([transfer()])
        door = on(state)
        (pause,) = asyncio.run(door.pending())
        answer = Resume(restart=[pause.interrupts[0].approve()])
        asyncio.run(door.answer(pause.scope, answer))
        again = rejected(lambda: asyncio.run(door.answer(pause.scope, answer)))
        assert again == (ProblemCode.CONSUMED,)
        assert rejected(lambda: asyncio.run(state.resume(answer))) == (
            ProblemCode.CONSUMED,
        )
        assert state.world.transfers == [TRANSFER]

    def test_an_answer_through_resume_first_is_consumed_for_the_bridge(self) -> None:
        """Answered through `resume`, the bridge refuses it consumed."""
        state = setup([transfer()])
        door = on(state)
        (pause,) = asyncio.run(door.pending())
        answer = Resume(restart=[pause.interrupts[0].approve()])
        asyncio.run(state.resume(answer))
        again = rejected(lambda: asyncio.run(door.answer(pause.scope, answer)))
        assert again == (ProblemCode.CONSUMED,)
        assert state.world.transfers == [TRANSFER]

    def test_an_invalid_answer_spends_nothing(self) -> None:
        """An answer off its schema is schema_violation; the pause stays listed."""
        state = setup([question()])
        door = on(state)
        (pause,) = asyncio.run(door.pending())
        (asked,) = pause.interrupts
        forged = Resume(respond=[Respond(asked.name, asked.ref, "Maybe")])
        codes = rejected(lambda: asyncio.run(door.answer(pause.scope, forged)))
        assert codes == (ProblemCode.SCHEMA_VIOLATION,)
        assert asyncio.run(door.pending()) == [pause]
        assert state.world.seen == []

    def test_a_refused_principal_sees_and_answers_nothing(self) -> None:
        """A refused principal: no pause, no trail, not_authorized; bob sees it."""
        state = setup([transfer()])
        door = on(state, authorize=bob_only)
        (pause,) = asyncio.run(door.pending(principal="bob"))
        assert asyncio.run(door.pending(principal="eve")) == []
        assert asyncio.run(door.audit(pause.scope, principal="eve")) == ()
        answer = Resume(restart=[pause.interrupts[0].approve()])
        refused = rejected(
            lambda: asyncio.run(door.answer(pause.scope, answer, principal="eve"))
        )
        assert refused == (ProblemCode.NOT_AUTHORIZED,)
        assert state.world.transfers == []
        asyncio.run(door.answer(pause.scope, answer, principal="bob"))
        trail = asyncio.run(door.audit(pause.scope, principal="bob"))
        assert [event.kind for event in trail][-1] == "accepted"
        assert asyncio.run(door.audit(pause.scope, principal="eve")) == ()

    def test_the_audit_trail_shows_every_attempt(self) -> None:
        """Paused, rejected and accepted events, in order, with the principal."""
        state = setup([question()])
        door = on(state)
        (pause,) = asyncio.run(door.pending())
        (asked,) = pause.interrupts
        forged = Resume(respond=[Respond(asked.name, asked.ref, "Maybe")])
        rejected(lambda: asyncio.run(door.answer(pause.scope, forged, principal="al")))
        good = Resume(respond=[asked.respond("Yes")])
        asyncio.run(door.answer(pause.scope, good, principal="al"))
        trail = asyncio.run(door.audit(pause.scope))
        assert [event.kind for event in trail] == ["paused", "rejected", "accepted"]
        assert trail[0].pending == (asked.id,)
        assert trail[1].codes == ("schema_violation",)
        assert {event.principal for event in trail[1:]} == {"al"}

    def test_an_answered_pause_is_not_listed(self) -> None:
        """Once answered, the session is not listed (ADK moved on)."""
        state = setup([question()])
        door = on(state)
        (pause,) = asyncio.run(door.pending())
        asyncio.run(
            door.answer(
                pause.scope, Resume(respond=[pause.interrupts[0].respond("No")])
            )
        )
        assert asyncio.run(door.pending()) == []
        assert state.world.seen == [{"result": "No"}]

    def test_a_spent_pause_whose_run_goes_on_is_not_listed(self) -> None:
        """Spent through any door while ADK still shows it: not listed."""
        state = setup([transfer()])
        paused = asyncio.run(state.pending())
        assert asyncio.run(state.store.spend_all(list(paused.keys.values()), None))
        assert asyncio.run(on(state).pending()) == []

    def test_the_app_may_say_where_to_look(self) -> None:
        """A sessions callable (sync or async) is where pauses are looked for."""
        state = setup([transfer()])
        listed = [(USER, state.session_id), (USER, state.session_id), (USER, "gone")]

        async def later() -> list[tuple[str, str]]:
            return listed

        for sessions in (lambda: listed, later):
            (pause,) = asyncio.run(on(state, sessions=sessions).pending())
            assert pause.scope == scope_of(USER, state.session_id)
        assert asyncio.run(on(state, sessions=list).pending()) == []

    def test_pauses_come_newest_first(self) -> None:
        """Two paused sessions: the later pause first."""
        state = setup([transfer()])

        async def second() -> str:
            session = await state.runner.session_service.create_session(
                app_name="bank", user_id="zed"
            )
            message = types.Content(role="user", parts=[types.Part(text="go")])
            async for _ in state.runner.run_async(
                user_id="zed", session_id=session.id, new_message=message
            ):
                pass
            return session.id

        later = asyncio.run(second())
        pauses = asyncio.run(on(state).pending())
        assert [pause.scope for pause in pauses] == [
            scope_of("zed", later),
            scope_of(USER, state.session_id),
        ]
        assert pauses[0].created_at >= pauses[1].created_at

    def test_a_scope_that_names_no_session_is_unknown(self) -> None:
        """A malformed scope, or one of no session, is unknown_session."""
        state = setup([transfer()])
        door = on(state)
        answer = Resume(restart=[Restart("transfer_money", "c1", "approve")])
        for scope in ("nobody", "a/b/c", "/x", f"{USER}/missing"):
            with pytest.raises(ResumeRejected) as caught:
                asyncio.run(door.answer(scope, answer))
            assert caught.value.codes == (ProblemCode.UNKNOWN_SESSION,)
        assert state.world.transfers == []

    def test_with_an_authorizer_a_session_without_a_pause_shows_no_trail(self) -> None:
        """No pause ever (or no session): an authorizer lets no one read a trail."""
        state = setup([types.Part(text="hello")])
        door = on(state, authorize=bob_only)
        scope = scope_of(USER, state.session_id)
        assert asyncio.run(door.audit(scope, principal="bob")) == ()
        assert asyncio.run(door.audit(scope_of(USER, "gone"), principal="bob")) == ()
        assert asyncio.run(on(state).audit(scope)) == ()

    @given(st.text(min_size=1), st.text(min_size=1))
    def test_a_scope_reads_back_as_its_session(self, user: str, session: str) -> None:
        """`scope_of` is read back exactly, whatever the ids hold (``/``, ``%``)."""
        assert _session_of(scope_of(user, session)) == (user, session)

    def test_a_bridge_refuses_partial_resumes_when_it_is_built(self) -> None:
        """allow_partial is an InvalidArgument at build time, as for `resume`."""
        state = setup([transfer()])
        partial = ResumePolicy(allow_partial=True)
        with pytest.raises(InvalidArgument, match="allow_partial"):
            bridge(state.runner, state.store, policy=partial)

    def test_listing_files_the_pause_once(self) -> None:
        """The first listing with a store files a paused event; later ones do not."""
        state = setup([transfer()])
        door = on(state)
        (pause,) = asyncio.run(door.pending())
        asyncio.run(door.pending())
        trail = asyncio.run(state.store.audit(state.session_id))
        assert [event.kind for event in trail] == ["paused"]
        assert trail[0].pending == (pause.interrupts[0].id,)
        assert trail[0].at >= pause.created_at
