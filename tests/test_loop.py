from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import gc
import threading
from collections import Counter
from collections.abc import AsyncIterator, Callable
from datetime import datetime, timedelta
from typing import Any, Final

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from interruption import (
    JSON,
    Accepts,
    ApprovalPending,
    Custom,
    DecodeError,
    Finished,
    GenerateResult,
    Interrupted,
    InterruptedTurn,
    InterruptionError,
    Message,
    ModelMessage,
    ModelRequest,
    Paused,
    PauseSchedule,
    PayloadError,
    PendingInterrupt,
    Phase,
    ProblemCode,
    Respond,
    Restart,
    Resume,
    ResumePolicy,
    ResumeRejected,
    Role,
    ScheduledPause,
    StreamEvent,
    Text,
    Tool,
    ToolContext,
    ToolFinished,
    ToolRequest,
    ToolResponse,
    ToolStarted,
    continue_resolved,
    define_interrupt,
    dumps,
    generate,
    generate_stream,
    generate_sync,
    interrupt_with,
    loads,
    resume_turn,
    resume_turn_stream,
    resume_turn_sync,
    tool,
)
from interruption.errors import (
    ArgumentTypeError,
    EventLoopRunning,
    InvalidArgument,
    PauseRefused,
)
from interruption.runtime.approval import (
    DECISION_SCHEMA,
    Approve,
    Reject,
    always,
    await_human,
    by_tool,
    decision_from_json,
    when,
)
from interruption.runtime.loop import _ThreadRunner, last_result, run_sync
from interruption.testing import ScriptedModel
from interruption.validation import Answer, ResolvedResume

from tests.sessions import ASK_INPUT, NOW, over_the_limit, transfer
from tests.strategies import DECISIONS, raised_trees

SESSION = "s-3f2a"
BIG = transfer()
"""A transfer over the limit: `GATED` pauses it for a human."""


def clock() -> datetime:
    """The tests' fixed clock."""
    return NOW


def model_says(*parts: ToolRequest | str) -> Message:
    """A model message of tool requests and texts."""
    return Message(
        Role.MODEL,
        tuple(Text(part) if isinstance(part, str) else part for part in parts),
    )


def last_tool_message(model: ScriptedModel) -> Message:
    """The tool message the model saw last."""
    message = model.requests[-1].messages[-1]
    assert message.role is Role.TOOL
    return message


def outputs(message: Message) -> dict[str, JSON]:
    """A tool message's outputs by ref."""
    return {response.ref: response.output for response in message.tool_responses}


@attrs.frozen
class Transfer:
    """A transfer's input."""

    to: str
    amount: int


@attrs.frozen
class Note:
    """Resumed data for `confirm`."""

    text: str


class Calls:
    """Counts tool runs by name."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()

    def __getitem__(self, name: str) -> int:
        return self.counts[name]


@pytest.fixture(name="calls")
def _calls() -> Calls:
    return Calls()


@pytest.fixture(name="tools")
def _tools(calls: Calls) -> list[Tool[Any, Any, Any]]:
    @tool(input=Transfer, output={"type": "object"})
    def transfer_money(_ctx: ToolContext[JSON], transfer: Transfer) -> JSON:
        """Send money."""
        calls.counts["transfer_money"] += 1
        return {"status": "sent", "to": transfer.to, "amount": transfer.amount}

    @tool(input={"type": "object"}, output={"type": "number"})
    async def lookup(_ctx: ToolContext[JSON], _data: JSON) -> JSON:
        """Look a balance up."""
        calls.counts["lookup"] += 1
        await asyncio.sleep(0)
        return 500

    @tool(input={"type": "object"}, output={"type": "string"}, resume=Note)
    def confirm(ctx: ToolContext[Note], _data: JSON) -> JSON:
        """Ask until the note says go."""
        calls.counts["confirm"] += 1
        if ctx.resumed is None:
            ctx.interrupt({"ask": "first"})
        if ctx.resumed.text == "again":
            ctx.interrupt({"ask": "again"})
        return f"confirmed: {ctx.resumed.text}"

    @tool(input={"type": "object"}, output={"type": "string"})
    def explode(_ctx: ToolContext[JSON], _data: JSON) -> JSON:
        """Always fails."""
        calls.counts["explode"] += 1
        msg = "the ledger is locked"
        raise LookupError(msg)

    ask_user = define_interrupt(
        "ask_user", "Ask the user", input=ASK_INPUT, output={"type": "string"}
    )
    return [transfer_money, lookup, confirm, explode, ask_user]


GATED = by_tool({"transfer_money": when(over_the_limit)})


def run(
    script: list[Message],
    tools: list[Tool[Any, Any, Any]],
    **options: Any,
) -> tuple[ScriptedModel, GenerateResult]:
    """Generate with a scripted model, a fixed clock and session."""
    model = ScriptedModel(script)
    options.setdefault("now", clock)
    options.setdefault("session", SESSION)
    return model, generate_sync(model, "Pay INV-7", tools=tools, **options)


def resume(
    model: ScriptedModel,
    result: GenerateResult,
    answer: Resume,
    tools: list[Tool[Any, Any, Any]],
    **options: Any,
) -> GenerateResult:
    """Resume the result's turn."""
    assert result.turn is not None
    options.setdefault("now", clock)
    return resume_turn_sync(model, result.turn, answer, tools=tools, **options)


@attrs.frozen
class PausedRun:
    """A run paused on one interrupt, and the options to resume it with."""

    model: ScriptedModel
    result: GenerateResult
    tools: list[Tool[Any, Any, Any]]
    options: dict[str, Any] = attrs.field(factory=dict)

    @property
    def pending(self) -> PendingInterrupt:
        """The one interrupt pending."""
        (only,) = self.result.interrupts
        return only

    def resume(self, answer: Resume) -> GenerateResult:
        """Resume the paused turn with *answer*, with the same tools and options."""
        return resume(self.model, self.result, answer, self.tools, **self.options)


@pytest.fixture(name="gated")
def _gated(tools: list[Tool[Any, Any, Any]]) -> PausedRun:
    """`BIG` paused behind `GATED`; after it, the model says "Done."."""
    model, result = run([model_says(BIG), model_says("Done.")], tools, approver=GATED)
    return PausedRun(model, result, tools, {"approver": GATED})


@pytest.fixture(name="wiping")
def _wiping(calls: Calls) -> PausedRun:
    """`WIPE` paused by the tool's own approval; after it, the model says "Done."."""
    wipe = _self_approving(calls, [])
    model, result = run([model_says(WIPE), model_says("Done.")], [wipe])
    return PausedRun(model, result, [wipe])


class TestTrivia:
    def test_an_interrupt_only_tool_is_answered_by_respond(
        self, tools: list[Tool[Any, Any, Any]]
    ) -> None:
        """A question to the user pauses, and the respond output reaches the model."""
        ask = ToolRequest("ask_user", input={"question": "Capital of France?"})
        model, result = run([model_says(ask), model_says("Paris it is.")], tools)
        assert result.finish_reason == "interrupted"
        (pending,) = result.interrupts
        assert pending.kind == Custom()
        assert pending.payload == {"question": "Capital of France?"}
        assert pending.accepts.restart is None
        assert result.turn is not None
        assert result.turn.turn_id == 1
        assert result.turn.session == SESSION
        assert len(model.requests) == 1
        final = resume(model, result, Resume([pending.respond("Paris")]), tools)
        assert final.finish_reason == "stop"
        assert final.message.text == "Paris it is."
        assert outputs(last_tool_message(model)) == {pending.ref: "Paris"}
        assert final.interrupts == ()
        assert final.turn is None


class TestApproval:
    def test_over_the_limit_pauses_with_approval_pending(
        self, gated: PausedRun, calls: Calls
    ) -> None:
        """A transfer over 100 awaits a human; the tool has not run."""
        pending = gated.pending
        assert gated.result.finish_reason == "interrupted"
        assert pending.kind == ApprovalPending(pending.ref)
        assert pending.payload == {"tool": "transfer_money", "input": BIG.input}
        assert pending.accepts.respond is None
        assert calls["transfer_money"] == 0

    def test_under_the_limit_runs_without_asking(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """A small transfer is approved by the policy and runs at once."""
        small = ToolRequest("transfer_money", input={"to": "ACME", "amount": 5})
        model, result = run(
            [model_says(small), model_says("Done.")], tools, approver=GATED
        )
        assert result.finish_reason == "stop"
        assert calls["transfer_money"] == 1
        assert outputs(last_tool_message(model)) == {
            "call-1": {"status": "sent", "to": "ACME", "amount": 5}
        }

    def test_approved_transfer_runs_once(self, gated: PausedRun, calls: Calls) -> None:
        """Approving runs the tool with its original input, once."""
        pending = gated.pending
        final = gated.resume(Resume(restart=[pending.approve("ok")]))
        assert final.finish_reason == "stop"
        assert final.message.text == "Done."
        assert calls["transfer_money"] == 1
        assert outputs(last_tool_message(gated.model))[pending.ref] == {
            "status": "sent",
            "to": "ACME",
            "amount": 125000,
        }

    def test_rejected_transfer_never_runs_and_the_model_hears_why(
        self, gated: PausedRun, calls: Calls
    ) -> None:
        """Rejecting tells the model the rejection and reason; the tool never ran."""
        pending = gated.pending
        final = gated.resume(Resume(restart=[pending.reject("wrong account")]))
        assert final.finish_reason == "stop"
        assert calls["transfer_money"] == 0
        assert outputs(last_tool_message(gated.model)) == {
            pending.ref: {"status": "rejected", "reason": "wrong account"}
        }

    def test_policy_rejection_is_told_to_the_model(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """An approver's own Reject answers the model without a pause."""
        model, result = run(
            [model_says(BIG), model_says("Refused.")],
            tools,
            approver=lambda _request: Reject("limits"),
        )
        assert result.finish_reason == "stop"
        assert calls["transfer_money"] == 0
        assert outputs(last_tool_message(model)) == {
            "call-1": {"status": "rejected", "reason": "limits"}
        }

    def test_async_approver_is_awaited(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """An approver may be a coroutine function."""

        async def approver(_request: ToolRequest) -> Approve:
            return Approve()

        small = ToolRequest("transfer_money", input={"to": "ACME", "amount": 500})
        _, result = run(
            [model_says(small), model_says("Paid.")], tools, approver=approver
        )
        assert result.finish_reason == "stop"
        assert calls["transfer_money"] == 1

    @pytest.mark.parametrize(
        "broken",
        [
            pytest.param("raises", id="raises"),
            pytest.param("yes", id="answers a string"),
            pytest.param(True, id="answers True"),
        ],
    )
    def test_a_broken_approver_fails_closed(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls, broken: object
    ) -> None:
        """An approver that raises or answers no decision refuses; nothing runs."""

        def approver(_request: ToolRequest) -> Any:
            if broken == "raises":
                raise LookupError("the policy service is down")
            return broken

        model, result = run(
            [model_says(BIG), model_says("Not paid.")], tools, approver=approver
        )
        assert result.finish_reason == "stop"
        assert calls["transfer_money"] == 0
        (output,) = outputs(last_tool_message(model)).values()
        assert isinstance(output, dict)
        assert output["status"] == "rejected"
        assert "the approver failed" in str(output["reason"])
        with pytest.raises((LookupError, TypeError)):
            run([model_says(BIG)], tools, approver=approver, on_tool_error="raise")
        assert calls["transfer_money"] == 0

    def test_respond_to_an_approval_is_refused_and_nothing_runs(
        self, gated: PausedRun, calls: Calls
    ) -> None:
        """A client-made result cannot skip the approval."""
        pending = gated.pending
        forged = Resume([Respond(pending.name, pending.ref, {"status": "sent"})])
        with pytest.raises(ResumeRejected) as caught:
            gated.resume(forged)
        assert caught.value.codes == (ProblemCode.ANSWER_NOT_ACCEPTED,)
        assert calls["transfer_money"] == 0

    def test_tampered_amount_is_refused(self, gated: PausedRun, calls: Calls) -> None:
        """Approving with a changed amount is input_modified; nothing runs."""
        pending = gated.pending
        forged = Resume(
            restart=[
                Restart(
                    pending.name,
                    pending.ref,
                    "approve",
                    {"to": "EVIL", "amount": 125000},
                )
            ]
        )
        with pytest.raises(ResumeRejected) as caught:
            gated.resume(forged)
        assert caught.value.codes == (ProblemCode.INPUT_MODIFIED,)
        assert calls["transfer_money"] == 0


class TestBatch:
    def test_two_interrupts_and_a_finished_sibling(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """The finished sibling's output is reused on resume, not run again."""
        batch = model_says(
            ToolRequest("ask_user", input={"question": "Pay INV-7 today?"}),
            BIG,
            ToolRequest("lookup", input={}),
        )
        model, result = run([batch, model_says("All done.")], tools, approver=GATED)
        assert result.finish_reason == "interrupted"
        ask, pay = result.interrupts
        assert (ask.name, pay.name) == ("ask_user", "transfer_money")
        assert result.turn is not None
        assert result.turn.completed == (ToolResponse("lookup", "call-3", 500),)
        assert calls["lookup"] == 1
        final = resume(
            model,
            result,
            Resume([ask.respond("Yes")], [pay.approve()]),
            tools,
            approver=GATED,
        )
        assert final.finish_reason == "stop"
        assert calls["lookup"] == 1
        assert calls["transfer_money"] == 1
        seen = last_tool_message(model)
        assert [response.ref for response in seen.tool_responses] == [
            "call-1",
            "call-2",
            "call-3",
        ]
        assert outputs(seen)["call-3"] == 500
        assert outputs(seen)["call-1"] == "Yes"

    def test_interrupts_follow_the_request_order(
        self, tools: list[Tool[Any, Any, Any]]
    ) -> None:
        """Pending interrupts are listed in the order the model asked."""
        batch = model_says(
            ToolRequest("confirm", input={}),
            ToolRequest("ask_user", input={"question": "?"}),
        )
        _, result = run([batch], tools)
        assert [pending.name for pending in result.interrupts] == [
            "confirm",
            "ask_user",
        ]


class TestRestart:
    def test_a_restart_that_pauses_again(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """A restarted tool may pause again: a fresh turn, outputs carried forward."""
        batch = model_says(
            ToolRequest("confirm", input={}), ToolRequest("lookup", input={})
        )
        model, first = run([batch, model_says("Confirmed.")], tools)
        (pending,) = first.interrupts
        assert pending.payload == {"ask": "first"}
        assert pending.accepts.restart is not None
        second = resume(
            model, first, Resume(restart=[pending.restart({"text": "again"})]), tools
        )
        assert second.finish_reason == "interrupted"
        assert second.turn is not None
        assert first.turn is not None
        assert second.turn.turn_id == first.turn.turn_id + 1
        assert second.turn.session == first.turn.session
        assert second.turn.completed == first.turn.completed
        (again,) = second.interrupts
        assert again.payload == {"ask": "again"}
        assert again.ref == pending.ref
        assert len(model.requests) == 1
        final = resume(
            model, second, Resume(restart=[again.restart({"text": "go"})]), tools
        )
        assert final.finish_reason == "stop"
        assert calls["lookup"] == 1
        assert calls["confirm"] == 3
        assert outputs(last_tool_message(model)) == {
            "call-1": "confirmed: go",
            "call-2": 500,
        }

    def test_a_replaced_input_runs_and_rewrites_the_request(self) -> None:
        """A replaced input runs and is the request; the tool sees the original."""
        seen: list[JSON] = []
        originals: list[JSON] = []

        @tool(
            input={"type": "object"},
            output={"type": "object"},
            name="book",
            replace_input=True,
        )
        def book(ctx: ToolContext[JSON], data: JSON) -> JSON:
            originals.append(ctx.original_input)
            if not ctx.restarted:
                ctx.interrupt({"check": data})
            seen.append(data)
            return {"booked": data}

        model, first = run(
            [
                model_says(ToolRequest("book", input={"seat": "12A"})),
                model_says("Booked."),
            ],
            [book],
        )
        (pending,) = first.interrupts
        answer = pending.restart(replace_input={"seat": "14C"})
        final = resume(model, first, Resume(restart=[answer]), [book])
        assert seen == [{"seat": "14C"}]
        assert originals == [None, {"seat": "12A"}]
        asked = final.messages[-3]
        assert asked.tool_requests[0].input == {"seat": "14C"}
        assert outputs(final.messages[-2]) == {"call-1": {"booked": {"seat": "14C"}}}

    def test_a_tool_may_change_the_original_input_it_is_shown(self) -> None:
        """A tool's ``ctx.original_input`` is its own plain copy, free to change."""

        @tool(input={"type": "object"}, output={}, name="book", replace_input=True)
        def book(ctx: ToolContext[JSON], data: JSON) -> JSON:
            if not ctx.restarted:
                ctx.interrupt({"check": data})
            assert type(ctx.original_input) is dict
            ctx.original_input["seat"] = "1A"
            return "booked"

        model, first = run(
            [
                model_says(ToolRequest("book", input={"seat": "12A"})),
                model_says("Booked."),
            ],
            [book],
        )
        (pending,) = first.interrupts
        answer = pending.restart(replace_input={"seat": "14C"})
        final = resume(model, first, Resume(restart=[answer]), [book])
        assert outputs(final.messages[-2]) == {"call-1": "booked"}
        assert pending.tool is not None
        assert pending.tool.input == {"seat": "12A"}

    def test_the_old_turn_still_validates_against_itself_only(
        self, tools: list[Tool[Any, Any, Any]]
    ) -> None:
        """An answer built for a turn is checked against that turn's interrupts."""
        model, first = run([model_says(ToolRequest("confirm", input={}))], tools)
        (pending,) = first.interrupts
        with pytest.raises(ResumeRejected) as caught:
            resume(model, first, Resume(restart=[pending.restart({"txt": "x"})]), tools)
        assert caught.value.codes == (ProblemCode.SCHEMA_VIOLATION,)


def _ask_until_done(request: ModelRequest) -> Message:
    last = request.messages[-1]
    if last.role is Role.TOOL and last.tool_responses[0].output == "done":
        return model_says("Finished.")
    return model_says(ToolRequest("ask_user", input={"question": "More?"}))


class TestAskUntilDone:
    def test_a_multi_turn_loop_of_questions(
        self, tools: list[Tool[Any, Any, Any]]
    ) -> None:
        """Each answer feeds the model, which asks again until told it is done."""
        model = ScriptedModel(_ask_until_done)
        result = generate_sync(model, "Start", tools=tools, now=clock)
        turn_ids = []
        refs = []
        for answer in ("more", "more", "done"):
            assert result.finish_reason == "interrupted"
            assert result.turn is not None
            turn_ids.append(result.turn.turn_id)
            (pending,) = result.interrupts
            refs.append(pending.ref)
            result = resume_turn_sync(
                model,
                result.turn,
                Resume([pending.respond(answer)]),
                tools=tools,
                now=clock,
            )
        assert result.finish_reason == "stop"
        assert result.message.text == "Finished."
        assert turn_ids == [1, 2, 3]
        assert len(set(refs)) == 3
        assert len(model.requests) == 4
        assert [m.role for m in result.messages].count(Role.TOOL) == 3


class TestSchedule:
    def test_pause_before_a_tool(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """Pausing before a tool holds it unrun; a restart runs it."""
        schedule = PauseSchedule(before={"lookup"})
        model, result = run(
            [model_says(ToolRequest("lookup", input={})), model_says("ok")],
            tools,
            schedule=schedule,
        )
        (pending,) = result.interrupts
        assert pending.kind == ScheduledPause(Phase.BEFORE, "lookup")
        assert pending.accepts.respond is None
        assert calls["lookup"] == 0
        final = resume(
            model, result, Resume(restart=[pending.restart()]), tools, schedule=schedule
        )
        assert final.finish_reason == "stop"
        assert calls["lookup"] == 1
        assert outputs(last_tool_message(model)) == {"call-1": 500}

    def test_pause_after_a_tool(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """Pausing after a tool holds its output; continuing does not run it again."""
        schedule = PauseSchedule(after={"lookup"})
        model, result = run(
            [model_says(ToolRequest("lookup", input={})), model_says("ok")],
            tools,
            schedule=schedule,
        )
        (pending,) = result.interrupts
        assert pending.kind == ScheduledPause(Phase.AFTER, "lookup")
        assert pending.payload == {"tool": "lookup", "input": {}, "output": 500}
        assert result.turn is not None
        assert result.turn.completed == (ToolResponse("lookup", "call-1", 500),)
        assert calls["lookup"] == 1
        final = resume(
            model, result, Resume(restart=[pending.restart()]), tools, schedule=schedule
        )
        assert final.finish_reason == "stop"
        assert calls["lookup"] == 1
        assert outputs(last_tool_message(model)) == {"call-1": 500}

    def test_before_then_approval(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """Continuing past a scheduled pause still asks the approver."""
        schedule = PauseSchedule(before={"transfer_money"})
        model, result = run(
            [model_says(BIG), model_says("ok")],
            tools,
            schedule=schedule,
            approver=GATED,
        )
        (pending,) = result.interrupts
        assert pending.kind == ScheduledPause(Phase.BEFORE, "transfer_money")
        second = resume(
            model,
            result,
            Resume(restart=[pending.restart()]),
            tools,
            schedule=schedule,
            approver=GATED,
        )
        (approval,) = second.interrupts
        assert approval.kind == ApprovalPending(approval.ref)
        assert calls["transfer_money"] == 0
        final = resume(
            model,
            second,
            Resume(restart=[approval.approve()]),
            tools,
            schedule=schedule,
            approver=GATED,
        )
        assert final.finish_reason == "stop"
        assert calls["transfer_money"] == 1


class TestRefs:
    def test_refs_are_assigned_when_the_model_omits_them(
        self, tools: list[Tool[Any, Any, Any]]
    ) -> None:
        """Refs are assigned, unique within the session, across model turns."""
        first = model_says(
            ToolRequest("lookup", input={}), ToolRequest("lookup", input={})
        )
        second = model_says(ToolRequest("lookup", input={}))
        _, result = run([first, second, model_says("ok")], tools)
        refs = [
            request.ref
            for message in result.messages
            for request in message.tool_requests
        ]
        assert refs == ["call-1", "call-2", "call-3"]
        responses = [
            response.ref
            for message in result.messages
            for response in message.tool_responses
        ]
        assert responses == refs

    def test_duplicate_refs_from_the_model_are_reassigned(
        self, tools: list[Tool[Any, Any, Any]]
    ) -> None:
        """A ref the model repeats, in one message or across turns, is replaced."""
        first = model_says(
            ToolRequest("lookup", "a", {}), ToolRequest("lookup", "a", {})
        )
        second = model_says(
            ToolRequest("lookup", "a", {}), ToolRequest("lookup", "call-2", {})
        )
        _, result = run([first, second, model_says("ok")], tools)
        refs = [
            request.ref
            for message in result.messages
            for request in message.tool_requests
        ]
        assert refs[0] == "a"
        assert len(set(refs)) == len(refs) == 4

    def test_an_assigned_ref_skips_the_models_own(
        self, tools: list[Tool[Any, Any, Any]]
    ) -> None:
        """A ref the loop assigns never collides with one the model chose."""
        first = model_says(
            ToolRequest("lookup", "call-1", {}), ToolRequest("lookup", input={})
        )
        _, result = run([first, model_says("ok")], tools)
        assert [r.ref for r in result.messages[1].tool_requests] == [
            "call-1",
            "call-2",
        ]

    def test_model_refs_are_kept_when_unique(
        self, tools: list[Tool[Any, Any, Any]]
    ) -> None:
        """A model's own unique refs are used as they are, and as interrupt ids."""
        _, result = run(
            [model_says(ToolRequest("ask_user", "q-1", {"question": "?"}))], tools
        )
        (pending,) = result.interrupts
        assert (pending.id, pending.ref) == ("q-1", "q-1")


class TestToolErrors:
    def test_an_ordinary_exception_becomes_an_error_response(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """The model is told the tool failed, with the exception's words."""
        model, result = run(
            [model_says(ToolRequest("explode", input={})), model_says("Sorry.")], tools
        )
        assert result.finish_reason == "stop"
        assert calls["explode"] == 1
        assert outputs(last_tool_message(model)) == {
            "call-1": {"error": "LookupError: the ledger is locked"}
        }

    def test_on_tool_error_raise_lets_the_exception_out(
        self, tools: list[Tool[Any, Any, Any]]
    ) -> None:
        """With on_tool_error="raise" the tool's exception propagates."""
        with pytest.raises(LookupError, match="ledger is locked"):
            run(
                [model_says(ToolRequest("explode", input={}))],
                tools,
                on_tool_error="raise",
            )

    def test_an_unknown_tool_is_an_error_response(
        self, tools: list[Tool[Any, Any, Any]]
    ) -> None:
        """A request for a tool that does not exist answers with an error."""
        model, _ = run(
            [model_says(ToolRequest("nope", input={})), model_says("ok")], tools
        )
        assert outputs(last_tool_message(model)) == {
            "call-1": {"error": "unknown tool 'nope'"}
        }

    def test_an_input_outside_the_schema_is_an_error_response(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """An input that fails the tool's schema is refused before the tool runs."""
        model, _ = run(
            [model_says(ToolRequest("lookup", input=[1])), model_says("ok")], tools
        )
        (output,) = outputs(last_tool_message(model)).values()
        assert isinstance(output, dict)
        assert str(output["error"]).startswith("invalid input: $.input")
        assert calls["lookup"] == 0

    def test_an_output_outside_the_schema_is_an_error_response(self) -> None:
        """A tool whose output fails its schema is reported, or raised on request."""

        @tool(input={}, output={"type": "string"})
        def wrong(_ctx: ToolContext[JSON], _data: JSON) -> JSON:
            return 1

        model, _ = run(
            [model_says(ToolRequest("wrong", input={})), model_says("ok")], [wrong]
        )
        (output,) = outputs(last_tool_message(model)).values()
        assert isinstance(output, dict)
        assert "does not fit its schema" in str(output["error"])
        with pytest.raises(PayloadError):
            run(
                [model_says(ToolRequest("wrong", input={}))],
                [wrong],
                on_tool_error="raise",
            )

    def test_interrupted_is_not_swallowed_by_except_exception(self) -> None:
        """A pause passes through a tool body's ``except Exception``."""

        @tool(input={}, output={})
        def careful(ctx: ToolContext[JSON], _data: JSON) -> JSON:
            try:
                ctx.interrupt("wait")
            except Exception:  # noqa: BLE001 - the point of the test
                return "swallowed"

        _, result = run([model_says(ToolRequest("careful", input={}))], [careful])
        assert result.finish_reason == "interrupted"


class TestMaxTurns:
    def test_the_model_is_called_at_most_max_turns_times(
        self, tools: list[Tool[Any, Any, Any]]
    ) -> None:
        """A model that never stops ends with finish_reason max_turns."""
        model = ScriptedModel(
            lambda _request: model_says(ToolRequest("lookup", input={}))
        )
        result = generate_sync(model, "go", tools=tools, max_turns=2)
        assert result.finish_reason == "max_turns"
        assert len(model.requests) == 2
        assert result.message.role is Role.MODEL
        assert result.messages[-1].role is Role.TOOL

    def test_the_stream_ends_with_max_turns(
        self, tools: list[Tool[Any, Any, Any]]
    ) -> None:
        """Drained to its end, the stream's last event is Finished(max_turns)."""
        model = ScriptedModel(
            lambda _request: model_says(ToolRequest("lookup", input={}))
        )
        events = asyncio.run(
            _drain(generate_stream(model, "go", tools=tools, max_turns=1))
        )
        final = events[-1]
        assert isinstance(final, Finished)
        assert final.result.finish_reason == "max_turns"

    def test_max_turns_must_be_positive(self, tools: list[Tool[Any, Any, Any]]) -> None:
        """max_turns below 1 is refused."""
        with pytest.raises(ValueError, match="max_turns"):
            generate_sync(ScriptedModel([]), "go", tools=tools, max_turns=0)


class TestGenerateArguments:
    def test_two_tools_with_one_name_are_refused(
        self, tools: list[Tool[Any, Any, Any]]
    ) -> None:
        """Tool names must be unique."""
        with pytest.raises(ValueError, match="two named 'lookup'"):
            generate_sync(ScriptedModel([]), "go", tools=[tools[1], tools[1]])

    def test_unknown_options_are_refused(self) -> None:
        """A misspelt option is a TypeError naming it, not silently ignored."""
        options: Any = {"max_turn": 3}
        with pytest.raises(TypeError, match="unknown loop options: max_turn"):
            generate_sync(ScriptedModel([]), "go", **options)

    def test_an_unknown_option_is_an_argument_type_error(self) -> None:
        """A misspelt option is the library's ArgumentTypeError, code and pieces."""
        options: Any = {"max_turn": 3, "tool": []}
        with pytest.raises(ArgumentTypeError) as caught:
            generate_sync(ScriptedModel([]), "go", **options)
        error = caught.value
        assert (error.code, error.where, error.got) == (
            "argument_type_error",
            "options",
            "unknown loop options: max_turn, tool",
        )

    @pytest.mark.parametrize(
        ("options", "where", "expected", "got"),
        [
            ({"max_turns": 0}, "max_turns", "at least 1", "0"),
            (
                {"on_tool_error": "ignore"},
                "on_tool_error",
                "'respond' or 'raise'",
                "'ignore'",
            ),
            ({"on_tool_error": []}, "on_tool_error", "'respond' or 'raise'", "[]"),
        ],
    )
    def test_an_option_out_of_range_is_an_invalid_argument(
        self, options: Any, where: str, expected: str, got: str
    ) -> None:
        """max_turns and on_tool_error out of range raise InvalidArgument, named."""
        with pytest.raises(InvalidArgument) as caught:
            generate_sync(ScriptedModel([]), "go", **options)
        error = caught.value
        assert type(error) is InvalidArgument
        assert (error.code, error.where, error.expected, error.got) == (
            "invalid_argument",
            where,
            expected,
            got,
        )

    def test_two_tools_of_one_name_are_an_invalid_argument(
        self, tools: list[Tool[Any, Any, Any]]
    ) -> None:
        """A second tool of one name raises InvalidArgument at ``tools``."""
        with pytest.raises(InvalidArgument) as caught:
            generate_sync(ScriptedModel([]), "go", tools=[tools[1], tools[1]])
        error = caught.value
        assert (error.where, error.expected, error.got) == (
            "tools",
            "tools of distinct names",
            "two named 'lookup'",
        )

    def test_an_unknown_tool_error_policy_is_refused(self) -> None:
        """on_tool_error is 'respond' or 'raise'; anything else says so."""
        options: Any = {"on_tool_error": "ignore"}
        with pytest.raises(ValueError, match="expected 'respond' or 'raise'"):
            generate_sync(ScriptedModel([]), "go", **options)

    def test_no_messages_are_refused(self) -> None:
        """A conversation needs at least one message."""
        with pytest.raises(InvalidArgument, match="at least one message"):
            generate_sync(ScriptedModel([]), [])

    def test_a_message_list_is_taken_as_history(self) -> None:
        """Messages are the history; the model sees them and the tools' specs."""
        history = [
            Message.of_text(Role.SYSTEM, "Be brief."),
            Message.of_text(Role.USER, "Hi"),
        ]
        model = ScriptedModel([model_says("Hello.")])
        result = generate_sync(model, history)
        assert result.messages == (*history, model_says("Hello."))
        assert model.requests[0].messages == tuple(history)
        assert model.requests[0].tools == ()

    def test_the_model_is_told_the_tools(
        self, tools: list[Tool[Any, Any, Any]]
    ) -> None:
        """Each tool's name, description and schemas go to the model."""
        model = ScriptedModel([model_says("Hello.")])
        generate_sync(model, "Hi", tools=tools)
        specs = {spec.name: spec for spec in model.requests[0].tools}
        assert specs["lookup"].description == "Look a balance up."
        assert specs["ask_user"].input_schema == ASK_INPUT


class TestTtl:
    def test_pauses_expire_after_their_ttl(
        self, tools: list[Tool[Any, Any, Any]]
    ) -> None:
        """A session ttl stamps expires_at; answering later is expired."""
        model, result = run(
            [model_says(ToolRequest("ask_user", input={"question": "?"}))],
            tools,
            ttl=timedelta(minutes=15),
        )
        (pending,) = result.interrupts
        assert pending.expires_at == NOW + timedelta(minutes=15)
        with pytest.raises(ResumeRejected) as caught:
            resume(
                model,
                result,
                Resume([pending.respond("x")]),
                tools,
                now=lambda: NOW + timedelta(minutes=15),
            )
        assert caught.value.codes == (ProblemCode.EXPIRED,)


class TestPartial:
    def test_unanswered_interrupts_stay_pending_in_a_new_turn(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """With allow_partial, the answered run and the rest pause again."""
        batch = model_says(
            ToolRequest("ask_user", input={"question": "?"}),
            ToolRequest("confirm", input={}),
        )
        model, result = run([batch, model_says("ok")], tools)
        ask, confirm = result.interrupts
        policy = ResumePolicy(allow_partial=True, now=clock)
        second = resume(
            model,
            result,
            Resume(restart=[confirm.restart({"text": "go"})]),
            tools,
            policy=policy,
        )
        assert second.finish_reason == "interrupted"
        assert second.interrupts == (ask,)
        assert second.turn is not None
        assert second.turn.completed == (
            ToolResponse("confirm", "call-2", "confirmed: go"),
        )
        final = resume(model, second, Resume([ask.respond("y")]), tools)
        assert final.finish_reason == "stop"
        assert calls["confirm"] == 2


async def _drain(events: AsyncIterator[StreamEvent]) -> list[StreamEvent]:
    return [event async for event in events]


class TestStream:
    def test_events_and_the_final_result(
        self, tools: list[Tool[Any, Any, Any]]
    ) -> None:
        """The stream yields every step, and Finished carries generate's result."""
        batch = model_says(
            ToolRequest("lookup", input={}),
            BIG,
        )
        options: dict[str, Any] = {
            "tools": tools,
            "approver": GATED,
            "now": clock,
            "session": SESSION,
        }
        events = asyncio.run(
            _drain(generate_stream(ScriptedModel([batch]), "go", **options))
        )
        kinds = [type(event) for event in events]
        assert kinds[0] is ModelMessage
        assert kinds.count(ToolStarted) == 2
        assert kinds.count(ToolFinished) == 1
        assert kinds.count(Paused) == 1
        assert kinds[-1] is Finished
        assert kinds.index(ToolStarted) < kinds.index(ToolFinished)
        final = events[-1]
        assert isinstance(final, Finished)
        expected = asyncio.run(generate(ScriptedModel([batch]), "go", **options))
        assert final.result == expected
        paused = next(event for event in events if isinstance(event, Paused))
        assert paused.interrupt == expected.interrupts[0]

    def test_resume_stream_matches_resume_turn(
        self, tools: list[Tool[Any, Any, Any]]
    ) -> None:
        """resume_turn_stream ends with the result resume_turn returns."""
        script = [
            model_says(ToolRequest("ask_user", input={"question": "?"})),
            model_says("ok"),
        ]
        _, result = run(script, tools)
        assert result.turn is not None
        answer = Resume([result.interrupts[0].respond("y")])
        events = asyncio.run(
            _drain(
                resume_turn_stream(
                    ScriptedModel(script[1:]),
                    result.turn,
                    answer,
                    tools=tools,
                    now=clock,
                )
            )
        )
        assert [type(event) for event in events] == [
            ToolFinished,
            ModelMessage,
            Finished,
        ]
        assert events[0] == ToolFinished(ToolResponse("ask_user", "call-1", "y"))
        final = events[-1]
        assert isinstance(final, Finished)
        expected = asyncio.run(
            resume_turn(
                ScriptedModel(script[1:]), result.turn, answer, tools=tools, now=clock
            )
        )
        assert final.result == expected

    def test_every_answer_reaches_the_resume_stream(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """Each respond, rejection and carried output is one ToolFinished, in order."""
        batch = model_says(
            ToolRequest("ask_user", input={"question": "?"}),
            BIG,
            ToolRequest("lookup", input={}),
            ToolRequest("confirm", input={}),
        )
        script = [batch, model_says("done")]
        _, result = run(script, tools, approver=GATED)
        assert result.turn is not None
        ask, transfer, confirm = result.interrupts
        answer = Resume(
            respond=[ask.respond("Yes")],
            restart=[transfer.reject("too much"), confirm.restart({"text": "go"})],
        )
        events = asyncio.run(
            _drain(
                resume_turn_stream(
                    ScriptedModel(script[1:]),
                    result.turn,
                    answer,
                    tools=tools,
                    approver=GATED,
                    now=clock,
                )
            )
        )
        kinds = [type(event) for event in events]
        assert kinds == [
            ToolFinished,
            ToolFinished,
            ToolFinished,
            ToolStarted,
            ToolFinished,
            ModelMessage,
            Finished,
        ]
        final = events[-1]
        assert isinstance(final, Finished)
        answered = final.result.messages[-2]
        finished = [
            event.response for event in events if isinstance(event, ToolFinished)
        ]
        assert finished == list(answered.tool_responses)
        assert [response.ref for response in finished] == [
            "call-1",
            "call-2",
            "call-3",
            "call-4",
        ]
        assert finished[1].output == {"status": "rejected", "reason": "too much"}
        assert (calls["lookup"], calls["confirm"], calls["transfer_money"]) == (1, 2, 0)

    def test_a_held_output_reaches_the_resume_stream(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """Continuing past a pause after a tool announces its held output."""
        schedule = PauseSchedule(after={"lookup"})
        script = [model_says(ToolRequest("lookup", input={})), model_says("ok")]
        _, result = run(script, tools, schedule=schedule)
        assert result.turn is not None
        (pending,) = result.interrupts
        events = asyncio.run(
            _drain(
                resume_turn_stream(
                    ScriptedModel(script[1:]),
                    result.turn,
                    Resume(restart=[pending.restart()]),
                    tools=tools,
                    schedule=schedule,
                    now=clock,
                )
            )
        )
        assert events[0] == ToolFinished(ToolResponse("lookup", "call-1", 500))
        assert [type(event) for event in events[1:]] == [ModelMessage, Finished]
        assert calls["lookup"] == 1

    def test_last_result_drains_the_stream(self) -> None:
        """last_result runs a stream to its end, leaving nothing for a finalizer."""
        ended: list[bool] = []
        said = Message.of_text(Role.MODEL, "ok")

        async def stream() -> AsyncIterator[StreamEvent]:
            yield Finished(GenerateResult("stop", said, (said,)))
            ended.append(True)

        result = run_sync(last_result(stream()))
        assert result.message == said
        assert ended == [True]

    def test_a_rejected_resume_yields_nothing(
        self, tools: list[Tool[Any, Any, Any]]
    ) -> None:
        """The stream raises ResumeRejected before its first event."""
        _, result = run(
            [model_says(ToolRequest("ask_user", input={"question": "?"}))], tools
        )
        assert result.turn is not None
        stream = resume_turn_stream(
            ScriptedModel([]), result.turn, Resume(), tools=tools
        )
        with pytest.raises(ResumeRejected):
            asyncio.run(_drain(stream))


class TestConcurrency:
    @pytest.mark.parametrize(
        ("count", "inline"),
        [pytest.param(1, True, id="one"), pytest.param(2, False, id="two")],
    )
    def test_a_batch_of_one_runs_inline_and_more_in_tasks(
        self, count: int, inline: bool
    ) -> None:
        """A lone call runs in the dispatch's own task; a batch gets a task each."""
        seen: list[asyncio.Task[Any] | None] = []

        @tool(input={}, output={})
        async def where(_ctx: ToolContext[JSON], _data: JSON) -> JSON:
            seen.append(asyncio.current_task())
            await asyncio.sleep(0)
            return None

        batch = model_says(*(ToolRequest("where", input={}) for _ in range(count)))

        async def dispatch() -> asyncio.Task[Any] | None:
            model = ScriptedModel([batch, model_says("ok")])
            await generate(model, "go", tools=[where])
            return asyncio.current_task()

        outer = asyncio.run(dispatch())
        assert len(seen) == count
        assert all((task is outer) == inline for task in seen)


class TestSync:
    def test_generate_sync_inside_a_running_loop_raises(self) -> None:
        """The sync wrapper refuses to nest inside an event loop."""

        async def inside() -> None:
            generate_sync(ScriptedModel([]), "go")

        with pytest.raises(RuntimeError, match="running event loop"):
            asyncio.run(inside())

    def test_resume_turn_sync_inside_a_running_loop_raises(
        self, tools: list[Tool[Any, Any, Any]]
    ) -> None:
        """resume_turn_sync refuses too, and leaves no coroutine unawaited."""
        _, result = run(
            [model_says(ToolRequest("ask_user", input={"question": "?"}))], tools
        )
        assert result.turn is not None
        turn = result.turn

        async def inside() -> None:
            resume_turn_sync(ScriptedModel([]), turn, Resume(), tools=tools)

        with pytest.raises(RuntimeError, match="running event loop"):
            asyncio.run(inside())

    def test_a_running_loop_is_the_librarys_event_loop_running(self) -> None:
        """generate_sync in a running loop raises EventLoopRunning, naming generate."""

        async def inside() -> None:
            generate_sync(ScriptedModel([]), "go")

        with pytest.raises(EventLoopRunning) as caught:
            asyncio.run(inside())
        assert (caught.value.code, caught.value.where) == (
            "event_loop_running",
            "generate",
        )
        assert "await generate instead" in str(caught.value)


class TestRunSync:
    """The blocking twins' one loop per thread."""

    def test_a_thread_reuses_its_loop(self) -> None:
        """Two blocking calls in one thread run on one loop, still open between."""

        async def loop() -> asyncio.AbstractEventLoop:
            return asyncio.get_running_loop()

        first, second = run_sync(loop()), run_sync(loop())
        assert first is second
        assert not first.is_closed()

    def test_a_call_leaves_no_task_running(self) -> None:
        """A task the call started and left is cancelled before it returns."""
        started: list[asyncio.Task[None]] = []

        async def leave() -> None:
            started.append(asyncio.ensure_future(asyncio.sleep(60)))
            await asyncio.sleep(0)

        run_sync(leave())
        (task,) = started
        assert task.cancelled()

    def test_a_calls_value_is_returned_and_never_shown(self) -> None:
        """The coroutine's value comes back as it is, its repr never made."""
        shown: list[str] = []

        class Costly:
            def __repr__(self) -> str:
                shown.append("repr")
                return "Costly()"

        value = Costly()

        async def give() -> Costly:
            return value

        assert run_sync(give()) is value
        assert shown == []

    def test_a_call_runs_in_a_copy_of_the_callers_context(self) -> None:
        """Each call sees the caller's context variables as they are now."""
        seen: contextvars.ContextVar[str] = contextvars.ContextVar("seen")

        async def read() -> str:
            return seen.get("unset")

        async def write() -> str:
            seen.set("inside")
            return seen.get()

        def calls() -> list[str]:
            first = run_sync(read())
            seen.set("later")
            return [first, run_sync(read()), run_sync(write()), seen.get()]

        assert contextvars.copy_context().run(calls) == [
            "unset",
            "later",
            "inside",
            "later",
        ]

    def test_an_interrupted_call_cancels_what_it_left(self) -> None:
        """KeyboardInterrupt escapes the call; its leftover task is cancelled."""
        started: list[asyncio.Task[None]] = []

        async def interrupted() -> None:
            started.append(asyncio.ensure_future(asyncio.sleep(60)))
            await asyncio.sleep(0)
            raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            run_sync(interrupted())
        (task,) = started
        assert task.cancelled()
        assert run_sync(_running_loop()) is run_sync_loop()

    def test_a_threads_loop_is_closed_with_the_thread(self) -> None:
        """The loop a worker thread made is closed once the thread ends."""
        loops: list[asyncio.AbstractEventLoop] = []

        async def loop() -> None:
            loops.append(asyncio.get_running_loop())

        worker = threading.Thread(target=lambda: run_sync(loop()))
        worker.start()
        worker.join()
        gc.collect()
        (made,) = loops
        assert made.is_closed()
        assert made is not run_sync_loop()

    def test_threads_do_not_share_a_loop(self) -> None:
        """Each thread's calls run on a loop of its own."""
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            loops = list(pool.map(lambda _: run_sync_loop(), range(2)))
        assert run_sync_loop() not in loops


class TestThreadRunner:
    """A thread's runner closes its loop whoever collects it."""

    def test_collecting_a_runner_closes_its_loop(self) -> None:
        """`__del__` closes the loop of a runner nobody closed."""
        runner = _ThreadRunner()
        loop = runner.run(_running_loop())
        runner.__del__()
        assert loop.is_closed()

    def test_collecting_a_closed_runner_does_nothing(self) -> None:
        """A runner closed at exit, then collected, raises nothing."""
        runner = _ThreadRunner()
        loop = runner.run(_running_loop())
        runner.close()
        runner.__del__()
        assert loop.is_closed()

    def test_closing_twice_is_harmless(self) -> None:
        """At exit a runner closed already (or whose loop was) closes nothing."""
        runner = _ThreadRunner()
        loop = runner.run(_running_loop())
        loop.close()
        runner.close()
        runner.close()
        assert loop.is_closed()

    def test_a_loop_closed_already_is_left_alone(self) -> None:
        """A loop closed by hand is not closed again."""
        runner = _ThreadRunner()
        loop = runner.run(_running_loop())
        loop.close()
        runner.__del__()
        assert loop.is_closed()


async def _running_loop() -> asyncio.AbstractEventLoop:
    return asyncio.get_running_loop()


def run_sync_loop() -> asyncio.AbstractEventLoop:
    """The loop `run_sync` runs this thread's calls on."""

    async def loop() -> asyncio.AbstractEventLoop:
        return asyncio.get_running_loop()

    return run_sync(loop())


class TestWire:
    def test_turn_and_interrupts_round_trip(
        self, tools: list[Tool[Any, Any, Any]]
    ) -> None:
        """InterruptedTurn and every PendingInterrupt survive dumps and loads."""
        batch = model_says(
            "Let me check.",
            ToolRequest("ask_user", input={"question": "Pay INV-7 today?"}),
            BIG,
            ToolRequest("lookup", input={}),
            ToolRequest("confirm", input={}),
        )
        _, result = run([batch], tools, approver=GATED, ttl=timedelta(hours=1))
        assert result.turn is not None
        assert loads(dumps(result.turn), InterruptedTurn) == result.turn
        for pending in result.interrupts:
            assert loads(dumps(pending), PendingInterrupt) == pending
        assert loads(dumps(result.interrupts[0]), PendingInterrupt).respond("Yes") == (
            result.interrupts[0].respond("Yes")
        )

    def test_a_decoded_turn_resumes(self, gated: PausedRun, calls: Calls) -> None:
        """A turn stored as JSON and read back resumes like the original."""
        assert gated.result.turn is not None
        turn = loads(dumps(gated.result.turn), InterruptedTurn)
        pending = loads(dumps(gated.pending), PendingInterrupt)
        final = resume_turn_sync(
            gated.model,
            turn,
            Resume(restart=[pending.approve()]),
            tools=gated.tools,
            approver=GATED,
            now=clock,
        )
        assert final.finish_reason == "stop"
        assert calls["transfer_money"] == 1


class TestAwaitHuman:
    def test_a_restarted_tool_is_not_asked_about_twice(self, calls: Calls) -> None:
        """A call a human approved that then pauses itself is not re-approved."""

        @tool(input={}, output={}, resume={"type": "string"})
        def careful(ctx: ToolContext[JSON], _data: JSON) -> JSON:
            calls.counts["careful"] += 1
            if ctx.resumed is None:
                ctx.interrupt("sure?")
            return ctx.resumed

        model, first = run(
            [model_says(ToolRequest("careful", input={})), model_says("ok")],
            [careful],
            approver=await_human(),
        )
        (approval,) = first.interrupts
        second = resume(
            model,
            first,
            Resume(restart=[approval.approve()]),
            [careful],
            approver=await_human(),
        )
        (question,) = second.interrupts
        assert question.kind == Custom()
        assert second.turn is not None
        assert second.turn.approved == (question.ref,)
        final = resume(
            model,
            second,
            Resume(restart=[question.restart("yes")]),
            [careful],
            approver=await_human(),
        )
        assert final.finish_reason == "stop"
        assert calls["careful"] == 2
        assert outputs(last_tool_message(model)) == {"call-1": "yes"}

    def test_always_lets_everything_run(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """The always() approver never pauses."""
        _, result = run([model_says(BIG), model_says("ok")], tools, approver=always())
        assert result.finish_reason == "stop"
        assert calls["transfer_money"] == 1


def _self_approving(calls: Calls, seen: list[ToolContext[JSON]]) -> Tool[Any, Any, Any]:
    """A tool that asks for a human's approval itself, unless it has it."""

    @tool(input={"type": "object"}, output={"type": "string"})
    def wipe(ctx: ToolContext[JSON], data: JSON) -> JSON:
        """Wipe a disk."""
        calls.counts["wipe"] += 1
        seen.append(ctx)
        if not ctx.approved:
            raise Interrupted(ApprovalPending(ctx.ref), {"wipe": data})
        return "wiped"

    return wipe


WIPE = ToolRequest("wipe", input={"disk": "d1"})


class TestToolRaisedApproval:
    def test_it_accepts_only_a_decision(self, wiping: PausedRun) -> None:
        """A tool's own ApprovalPending accepts no respond, only a decision."""
        pending = wiping.pending
        assert pending.kind == ApprovalPending(pending.ref)
        assert pending.payload == {"wipe": {"disk": "d1"}}
        assert pending.accepts == Accepts(restart=DECISION_SCHEMA)
        assert pending.on_expiry is None

    def test_a_respond_is_refused_and_nothing_runs(
        self, wiping: PausedRun, calls: Calls
    ) -> None:
        """A made-up result cannot stand in for the tool's own approval."""
        pending = wiping.pending
        with pytest.raises(ResumeRejected):
            pending.respond("wiped")
        forged = Resume([Respond(pending.name, pending.ref, "wiped")])
        with pytest.raises(ResumeRejected) as caught:
            wiping.resume(forged)
        assert caught.value.codes == (ProblemCode.ANSWER_NOT_ACCEPTED,)
        assert calls["wipe"] == 1
        assert len(wiping.model.requests) == 1

    def test_restart_with_resumed_null_is_a_schema_violation(
        self, wiping: PausedRun, calls: Calls
    ) -> None:
        """A restart without a decision fails validation; nothing runs."""
        pending = wiping.pending
        bare = Resume(restart=[Restart(pending.name, pending.ref)])
        with pytest.raises(ResumeRejected) as caught:
            wiping.resume(bare)
        assert caught.value.codes == (ProblemCode.SCHEMA_VIOLATION,)
        assert calls["wipe"] == 1
        assert len(wiping.model.requests) == 1

    def test_approve_reruns_it_approved_and_the_result_reaches_the_history(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """Approving runs the tool again with ctx.approved; its output is kept."""
        seen: list[ToolContext[JSON]] = []
        everything = [*tools, _self_approving(calls, seen)]
        batch = model_says(WIPE, ToolRequest("lookup", input={}))
        model, result = run([batch, model_says("Wiped.")], everything)
        (pending,) = result.interrupts
        final = resume(model, result, Resume(restart=[pending.approve()]), everything)
        assert final.finish_reason == "stop"
        assert calls["wipe"] == 2
        assert calls["lookup"] == 1
        assert [ctx.approved for ctx in seen] == [False, True]
        assert (seen[1].resumed, seen[1].restarted) == (None, False)
        assert outputs(last_tool_message(model)) == {"call-1": "wiped", "call-2": 500}
        assert final.messages[-2] == last_tool_message(model)

    def test_reject_never_runs_it_and_the_model_sees_the_reason(
        self, wiping: PausedRun, calls: Calls
    ) -> None:
        """Rejecting answers the model with the reason; the tool does not run again."""
        final = wiping.resume(Resume(restart=[wiping.pending.reject("disk in use")]))
        assert final.finish_reason == "stop"
        assert calls["wipe"] == 1
        assert outputs(last_tool_message(wiping.model)) == {
            "call-1": {"status": "rejected", "reason": "disk in use"}
        }

    def test_interrupt_with_is_the_same_approval(self) -> None:
        """interrupt_with(ApprovalPending(ctx.ref)) pauses for a decision too."""

        @tool(input={}, output={})
        def guarded(ctx: ToolContext[JSON], _data: JSON) -> JSON:
            if not ctx.approved:
                interrupt_with(ApprovalPending(ctx.ref), "ok?")
            return "done"

        model, result = run(
            [model_says(ToolRequest("guarded", input={})), model_says("ok")],
            [guarded],
        )
        (pending,) = result.interrupts
        assert pending.accepts == Accepts(restart=DECISION_SCHEMA)
        final = resume(model, result, Resume(restart=[pending.approve()]), [guarded])
        assert outputs(last_tool_message(model)) == {"call-1": "done"}
        assert final.finish_reason == "stop"

    def test_asking_again_once_approved_is_a_tool_error(self) -> None:
        """A tool that asks again after approval gets an error, or PauseRefused."""

        @tool(input={}, output={})
        def stubborn(ctx: ToolContext[JSON], _data: JSON) -> JSON:
            raise Interrupted(ApprovalPending(ctx.ref), "again?")

        model, result = run(
            [model_says(ToolRequest("stubborn", input={})), model_says("ok")],
            [stubborn],
        )
        (pending,) = result.interrupts
        final = resume(model, result, Resume(restart=[pending.approve()]), [stubborn])
        assert final.finish_reason == "stop"
        (output,) = outputs(last_tool_message(model)).values()
        assert isinstance(output, dict)
        assert str(output["error"]).startswith("PauseRefused: tool 'stubborn'")
        assert "check ctx.approved" in str(output["error"])
        with pytest.raises(PauseRefused) as caught:
            resume(
                model,
                result,
                Resume(restart=[pending.approve()]),
                [stubborn],
                on_tool_error="raise",
            )
        assert isinstance(caught.value, InterruptionError)
        assert isinstance(caught.value, ValueError)
        assert (caught.value.name, caught.value.ref) == ("stubborn", "call-1")
        assert caught.value.kind == ApprovalPending("call-1")
        assert isinstance(caught.value.__cause__, Interrupted)

    def test_an_approval_of_another_call_is_a_tool_error(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """ApprovalPending must name the tool's own call; another ref is refused."""

        @tool(input={}, output={})
        def sneaky(_ctx: ToolContext[JSON], _data: JSON) -> JSON:
            raise Interrupted(ApprovalPending("call-2"), "approve the transfer?")

        everything = [*tools, sneaky]
        batch = model_says(
            ToolRequest("sneaky", input={}),
            ToolRequest("transfer_money", input={"to": "ACME", "amount": 5}),
        )
        model, result = run([batch, model_says("ok")], everything)
        assert result.finish_reason == "stop"
        assert calls["transfer_money"] == 1
        error = outputs(last_tool_message(model))["call-1"]
        assert isinstance(error, dict)
        assert "expected its own call's ref 'call-1' (ctx.ref)" in str(error["error"])
        with pytest.raises(PauseRefused, match="raised ApprovalPending for 'call-2'"):
            run([batch], everything, on_tool_error="raise")

    def test_behind_an_approver_it_is_asked_once(self, calls: Calls) -> None:
        """A call the approver's pause got approved does not ask again itself."""
        seen: list[ToolContext[JSON]] = []
        wipe = _self_approving(calls, seen)
        model, result = run(
            [model_says(WIPE), model_says("ok")], [wipe], approver=await_human()
        )
        (pending,) = result.interrupts
        assert calls["wipe"] == 0
        final = resume(
            model,
            result,
            Resume(restart=[pending.approve()]),
            [wipe],
            approver=await_human(),
        )
        assert final.finish_reason == "stop"
        assert [ctx.approved for ctx in seen] == [True]
        assert outputs(last_tool_message(model)) == {"call-1": "wiped"}


class TestToolRaisedSchedule:
    @pytest.mark.parametrize("phase", list(Phase))
    def test_a_scheduled_pause_raised_by_a_tool_is_a_tool_error(
        self, phase: Phase, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """Schedules are the loop's: a tool's own ScheduledPause is refused."""

        @tool(input={}, output={})
        def early(_ctx: ToolContext[JSON], _data: JSON) -> JSON:
            interrupt_with(ScheduledPause(phase, "early"), "stop here")

        everything = [*tools, early]
        batch = model_says(
            ToolRequest("early", input={}), ToolRequest("lookup", input={})
        )
        model, result = run([batch, model_says("ok")], everything)
        assert result.finish_reason == "stop"
        assert calls["lookup"] == 1
        error = outputs(last_tool_message(model))["call-1"]
        assert isinstance(error, dict)
        assert "PauseSchedule" in str(error["error"])
        assert "ctx.interrupt()" in str(error["error"])
        with pytest.raises(PauseRefused) as caught:
            run([batch], everything, on_tool_error="raise")
        assert caught.value.kind == ScheduledPause(phase, "early")

    def test_an_after_pause_keeps_its_output_when_the_schedule_changes(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """A pause after a tool left pending keeps the output, whatever the schedule."""
        schedule = PauseSchedule(after={"lookup"})
        batch = model_says(
            ToolRequest("lookup", input={}),
            ToolRequest("ask_user", input={"question": "?"}),
        )
        model, first = run([batch, model_says("ok")], tools, schedule=schedule)
        after, ask = first.interrupts
        policy = ResumePolicy(allow_partial=True, now=clock)
        second = resume(model, first, Resume([ask.respond("y")]), tools, policy=policy)
        assert second.interrupts == (after,)
        assert second.turn is not None
        assert ToolResponse("lookup", "call-1", 500) in second.turn.completed
        final = resume(model, second, Resume(restart=[after.restart()]), tools)
        assert final.finish_reason == "stop"
        assert calls["lookup"] == 1
        assert outputs(last_tool_message(model)) == {"call-1": 500, "call-2": "y"}


def _as_kind(
    result: GenerateResult, kind: ApprovalPending | ScheduledPause
) -> InterruptedTurn:
    """The result's turn with its first pause's kind swapped, as older loops made it."""
    assert result.turn is not None
    first, *rest = result.turn.interrupts
    return attrs.evolve(result.turn, interrupts=(attrs.evolve(first, kind=kind), *rest))


class TestContinueDefends:
    def test_an_approval_without_a_decision_is_refused_before_anything_runs(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """An approval answered without a decision is ResumeRejected, not a crash."""
        batch = model_says(
            ToolRequest("confirm", input={}), ToolRequest("lookup", input={})
        )
        model, result = run([batch], tools)
        turn = _as_kind(result, ApprovalPending("call-1"))
        entry = Restart("confirm", "call-1", {"text": "go"})
        with pytest.raises(ResumeRejected) as caught:
            resume_turn_sync(
                model, turn, Resume(restart=[entry]), tools=tools, now=clock
            )
        assert caught.value.codes == (ProblemCode.SCHEMA_VIOLATION,)
        # Past validation too (a resolved resume built by hand), the loop refuses.
        (pending,) = turn.interrupts
        forged = ResolvedResume(turn, (Answer(pending, entry),), ())
        with pytest.raises(ResumeRejected) as caught:
            run_sync(last_result(continue_resolved(model, forged, tools=tools)))
        assert caught.value.codes == (ProblemCode.SCHEMA_VIOLATION,)
        assert "awaits an approval decision" in str(caught.value)
        assert (calls["confirm"], calls["lookup"]) == (1, 1)
        assert len(model.requests) == 1

    def test_an_after_pause_without_its_output_is_refused_before_anything_runs(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """Continuing past an output the turn lacks is ResumeRejected, not KeyError."""
        batch = model_says(
            ToolRequest("confirm", input={}), ToolRequest("lookup", input={})
        )
        model, result = run([batch], tools)
        turn = _as_kind(result, ScheduledPause(Phase.AFTER, "confirm"))
        answer = Resume(restart=[Restart("confirm", "call-1", {"text": "go"})])
        with pytest.raises(ResumeRejected) as caught:
            resume_turn_sync(model, turn, answer, tools=tools, now=clock)
        assert caught.value.codes == (ProblemCode.ANSWER_NOT_ACCEPTED,)
        assert "holds no output" in str(caught.value)
        assert (calls["confirm"], calls["lookup"]) == (1, 1)
        assert len(model.requests) == 1


class Halt(BaseException):
    """Neither a pause nor a failure: like KeyboardInterrupt, it passes through."""


def _raising(error: BaseException) -> Tool[Any, Any, Any]:
    """A tool that raises *error* on its first run and returns "done" after."""

    @tool(input={}, output={})
    def grouped(ctx: ToolContext[JSON], _data: JSON) -> JSON:
        if ctx.restarted or ctx.approved:
            return "done"
        raise error

    return grouped


GROUPED = ToolRequest("grouped", input={})


def _pause(payload: JSON) -> Interrupted:
    return Interrupted(Custom(), payload)


def _leaves(error: BaseException) -> list[BaseException]:
    """A (nested) group's exceptions, depth-first."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


class TestExceptionGroups:
    def test_a_task_group_pause_is_a_pause_and_siblings_finish(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """ctx.interrupt() in a TaskGroup pauses the call; the batch's others finish."""

        @tool(input={}, output={"type": "string"}, resume={"type": "string"})
        async def fan_out(ctx: ToolContext[JSON], _data: JSON) -> JSON:
            async def ask() -> None:
                if ctx.resumed is None:
                    ctx.interrupt({"ask": "which?"})

            async with asyncio.TaskGroup() as group:
                group.create_task(ask())
                group.create_task(asyncio.sleep(0))
            return f"picked {ctx.resumed}"

        everything = [*tools, fan_out]
        batch = model_says(
            ToolRequest("fan_out", input={}), ToolRequest("lookup", input={})
        )
        for on_tool_error in ("respond", "raise"):
            model, result = run(
                [batch, model_says("ok")], everything, on_tool_error=on_tool_error
            )
            assert result.finish_reason == "interrupted"
            (pending,) = result.interrupts
            assert (pending.kind, pending.payload) == (Custom(), {"ask": "which?"})
            assert result.turn is not None
            assert result.turn.completed == (ToolResponse("lookup", "call-2", 500),)
            answer = Resume(restart=[pending.restart("b")])
            final = resume(model, result, answer, everything)
            assert final.finish_reason == "stop"
            assert outputs(last_tool_message(model)) == {
                "call-1": "picked b",
                "call-2": 500,
            }
        assert calls["lookup"] == 2

    def test_a_nested_group_of_pauses_is_its_first_pause_depth_first(self) -> None:
        """Of pauses nested in groups, the first found depth-first is the pause."""
        nested = BaseExceptionGroup(
            "outer",
            [
                BaseExceptionGroup("inner", [_pause("deep"), _pause("deep 2")]),
                _pause("shallow"),
            ],
        )
        _, result = run([model_says(GROUPED)], [_raising(nested)])
        (pending,) = result.interrupts
        assert pending.payload == "deep"
        assert pending.accepts.respond is not None

    def test_an_approval_in_a_group_wins_over_a_question(self) -> None:
        """An approval among pauses is the pause, so no respond can skip it."""
        approval = Interrupted(ApprovalPending("call-1"), "approve?")
        group = BaseExceptionGroup("g", [_pause("question"), approval])
        model, result = run([model_says(GROUPED), model_says("ok")], [_raising(group)])
        (pending,) = result.interrupts
        assert pending.kind == ApprovalPending("call-1")
        assert pending.accepts == Accepts(restart=DECISION_SCHEMA)
        answer = Resume(restart=[pending.approve()])
        final = resume(model, result, answer, [_raising(group)])
        assert outputs(last_tool_message(model)) == {"call-1": "done"}
        assert final.finish_reason == "stop"

    def test_a_pause_beside_a_failure_is_a_tool_error(self) -> None:
        """A failure in the group wins: the model hears of it, no pause is made."""
        group = BaseExceptionGroup(
            "g", [_pause("question"), LookupError("the ledger is locked")]
        )
        model, result = run([model_says(GROUPED), model_says("ok")], [_raising(group)])
        assert result.finish_reason == "stop"
        assert outputs(last_tool_message(model)) == {
            "call-1": {"error": "LookupError: the ledger is locked"}
        }

    def test_in_raise_mode_only_the_failures_get_out(self) -> None:
        """With on_tool_error="raise" the group's failures escape, its pauses do not."""
        failure = LookupError("the ledger is locked")
        group = BaseExceptionGroup(
            "g", [_pause("question"), BaseExceptionGroup("h", [failure])]
        )
        with pytest.raises(ExceptionGroup) as caught:
            run([model_says(GROUPED)], [_raising(group)], on_tool_error="raise")
        assert _leaves(caught.value) == [failure]

    def test_a_group_of_two_failures_is_one_tool_error(self) -> None:
        """Two failures in a group are one error response naming both."""
        group = ExceptionGroup("g", [LookupError("locked"), ValueError("bad")])
        model, result = run([model_says(GROUPED), model_says("ok")], [_raising(group)])
        assert result.finish_reason == "stop"
        assert outputs(last_tool_message(model)) == {
            "call-1": {"error": "LookupError: locked; ValueError: bad"}
        }

    def test_a_group_of_failures_is_re_raised_as_it_was(self) -> None:
        """In raise mode a group of failures only gets out unchanged."""
        group = ExceptionGroup("g", [LookupError("locked"), ValueError("bad")])
        with pytest.raises(ExceptionGroup) as caught:
            run([model_says(GROUPED)], [_raising(group)], on_tool_error="raise")
        assert caught.value is group

    def test_a_refused_pause_in_a_group_is_a_tool_error(self) -> None:
        """A ScheduledPause inside a group is refused like one raised alone."""
        schedule = Interrupted(ScheduledPause(Phase.BEFORE, "grouped"), None)
        group = BaseExceptionGroup("g", [_pause("question"), schedule])
        model, _ = run([model_says(GROUPED), model_says("ok")], [_raising(group)])
        error = outputs(last_tool_message(model))["call-1"]
        assert isinstance(error, dict)
        assert str(error["error"]).startswith("PauseRefused: tool 'grouped'")
        with pytest.raises(PauseRefused):
            run([model_says(GROUPED)], [_raising(group)], on_tool_error="raise")

    def test_what_is_no_exception_passes_through_unchanged(self) -> None:
        """A group holding a BaseException that is no pause is not the loop's."""
        group = BaseExceptionGroup("g", [_pause("question"), Halt()])
        with pytest.raises(BaseExceptionGroup) as caught:
            run([model_says(GROUPED)], [_raising(group)])
        assert caught.value is group


class TestApprovalLaws:
    @given(DECISIONS)
    def test_validation_and_the_loop_agree_on_every_resumed(
        self, resumed: JSON
    ) -> None:
        """Any resumed is refused before anything runs, or carried out as decided."""
        calls = Calls()
        wipe = _self_approving(calls, [])
        model, result = run([model_says(WIPE), model_says("ok")], [wipe])
        (pending,) = result.interrupts
        answer = Resume(restart=[Restart(pending.name, pending.ref, resumed)])
        try:
            decision = decision_from_json(resumed)
        except DecodeError:
            with pytest.raises(ResumeRejected) as caught:
                resume(model, result, answer, [wipe])
            assert caught.value.codes == (ProblemCode.SCHEMA_VIOLATION,)
            assert (calls["wipe"], len(model.requests)) == (1, 1)
            return
        final = resume(model, result, answer, [wipe])
        assert final.finish_reason == "stop"
        match decision:
            case Approve():
                assert calls["wipe"] == 2
                expected: JSON = "wiped"
            case Reject(reason=reason):
                assert calls["wipe"] == 1
                expected = {"status": "rejected", "reason": reason}
        assert outputs(last_tool_message(model)) == {"call-1": expected}


class TestGroupLaws:
    @given(raised_trees())
    def test_a_pause_iff_no_failure_and_nothing_escapes(
        self, raised: BaseException
    ) -> None:
        """Pauses alone are the first pause; any failure is the tool's error."""
        leaves = _leaves(raised)
        pauses = [leaf for leaf in leaves if isinstance(leaf, Interrupted)]
        failures = [leaf for leaf in leaves if not isinstance(leaf, Interrupted)]
        model, result = run([model_says(GROUPED), model_says("ok")], [_raising(raised)])
        if not failures:
            assert result.finish_reason == "interrupted"
            (pending,) = result.interrupts
            assert pending.payload == pauses[0].payload
        else:
            assert result.finish_reason == "stop"
            text = "; ".join(f"LookupError: {failure}" for failure in failures)
            assert outputs(last_tool_message(model)) == {"call-1": {"error": text}}

    @given(raised_trees())
    def test_in_raise_mode_exactly_the_failures_get_out(
        self, raised: BaseException
    ) -> None:
        """Raise mode lets out every failure of the tree, and never a pause."""
        failures = [
            leaf for leaf in _leaves(raised) if not isinstance(leaf, Interrupted)
        ]
        if not failures:
            _, result = run([model_says(GROUPED)], [_raising(raised)])
            assert result.finish_reason == "interrupted"
            return
        with pytest.raises(Exception) as caught:  # noqa: PT011 - any failure
            run([model_says(GROUPED)], [_raising(raised)], on_tool_error="raise")
        assert _leaves(caught.value) == failures


def _pause_once(ctx: ToolContext[JSON]) -> JSON:
    if not ctx.restarted:
        ctx.interrupt("more?")
    return "paused once"


def _approval_once(ctx: ToolContext[JSON]) -> JSON:
    if not ctx.approved:
        interrupt_with(ApprovalPending(ctx.ref), "approve?")
    return "approved"


def _group_pause_once(ctx: ToolContext[JSON]) -> JSON:
    if not ctx.restarted:
        raise BaseExceptionGroup("g", [_pause("in a group")])
    return "grouped"


def _group_failure(_ctx: ToolContext[JSON]) -> JSON:
    raise ExceptionGroup("g", [LookupError("a"), ValueError("b")])


def _scheduled(ctx: ToolContext[JSON]) -> JSON:
    interrupt_with(ScheduledPause(Phase.BEFORE, ctx.name))


BODIES: Final[dict[str, Callable[[ToolContext[JSON]], JSON]]] = {
    "finish": lambda _ctx: "finished",
    "pause": _pause_once,
    "gated": lambda _ctx: "ran",
    "self_approval": _approval_once,
    "group_pause": _group_pause_once,
    "group_failure": _group_failure,
    "schedule": _scheduled,
    "after": lambda _ctx: "ran, then paused",
}
"""The body of each behaviour's tool but ``ask``, an interrupt-only tool."""

BEHAVIOURS: Final = ("ask", *BODIES)
"""How each call of a random batch behaves (a tool of that name)."""


def _behaviours(ledger: Counter[str]) -> list[Tool[Any, Any, Any]]:
    """One tool per behaviour; each counts its runs in *ledger*."""

    def make(
        name: str, body: Callable[[ToolContext[JSON]], JSON]
    ) -> Tool[Any, Any, Any]:
        def function(ctx: ToolContext[JSON], _data: JSON) -> JSON:
            ledger[name] += 1
            return body(ctx)

        return tool(input={}, output={"type": "string"}, name=name)(function)

    ask = define_interrupt("ask", "Ask", input={}, output={"type": "string"})
    return [ask, *(make(name, body) for name, body in BODIES.items())]


def _answer(pending: PendingInterrupt, data: st.DataObject) -> Respond | Restart:
    """A valid answer to *pending*, drawn among those it accepts."""
    if pending.accepts.restart == DECISION_SCHEMA:
        return data.draw(
            st.sampled_from([pending.approve(), pending.reject("no")]), pending.id
        )
    if pending.accepts.respond is not None and (
        pending.accepts.restart is None or data.draw(st.booleans(), pending.id)
    ):
        return pending.respond("client's")
    return pending.restart()


class TestTurnLaws:
    @given(
        st.lists(st.sampled_from(BEHAVIOURS), min_size=1, max_size=5),
        st.booleans(),
        st.data(),
    )
    def test_every_turn_has_something_pending_and_every_answer_carries_through(
        self, batch: list[str], partial: bool, data: st.DataObject
    ) -> None:
        """Every turn the loop makes has a pause; every valid answer to it runs."""
        ledger: Counter[str] = Counter()
        tools = _behaviours(ledger)
        requests = tuple(ToolRequest(name, input={}) for name in batch)
        model = ScriptedModel([model_says(*requests), model_says("ok")])
        options: dict[str, Any] = {
            "tools": tools,
            "approver": by_tool({"gated": await_human()}),
            "schedule": PauseSchedule(after={"after"}),
            "now": clock,
        }
        result = generate_sync(model, "go", **options)
        policy = ResumePolicy(allow_partial=partial, now=clock)
        for _ in range(2 * len(batch) + 1):
            assert (result.turn is not None) == (result.finish_reason == "interrupted")
            if result.turn is None:
                break
            assert result.turn.interrupts
            assert result.interrupts == result.turn.interrupts
            answers = [_answer(pending, data) for pending in result.interrupts]
            if partial:
                answers = answers[: data.draw(st.integers(1, len(answers)), "kept")]
            result = resume_turn_sync(
                model,
                result.turn,
                Resume(
                    [a for a in answers if isinstance(a, Respond)],
                    [a for a in answers if isinstance(a, Restart)],
                ),
                policy=policy,
                **options,
            )
        else:  # pragma: no cover - a failing example lands here
            pytest.fail("the dispatch kept pausing")
        assert result.finish_reason == "stop"
        assert len(model.requests) == 2
        asked = model.requests[-1].messages[-2].tool_requests
        seen = last_tool_message(model).tool_responses
        assert [(r.name, r.ref) for r in seen] == [(r.name, r.ref) for r in asked]
        assert ledger["finish"] == batch.count("finish")
        assert ledger["after"] == batch.count("after")
