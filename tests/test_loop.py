from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import attrs
import pytest
from interruption import (
    JSON,
    ApprovalPending,
    Custom,
    Finished,
    GenerateResult,
    InterruptedTurn,
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
    define_interrupt,
    dumps,
    generate,
    generate_stream,
    generate_sync,
    loads,
    resume_turn,
    resume_turn_stream,
    resume_turn_sync,
    tool,
)
from interruption.approval import Approve, Reject, always, await_human, by_tool, when
from interruption.testing import ScriptedModel

NOW = datetime(2026, 11, 21, 23, 0, tzinfo=UTC)
SESSION = "s-3f2a"


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


ASK_INPUT: dict[str, JSON] = {
    "type": "object",
    "properties": {"question": {"type": "string"}},
    "required": ["question"],
}


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


def over_the_limit(request: ToolRequest) -> bool:
    """The seed's rule: a transfer over 100 awaits a human."""
    assert isinstance(request.input, dict)
    amount = request.input["amount"]
    assert isinstance(amount, int)
    return amount > 100


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
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """A transfer over 100 awaits a human; the tool has not run."""
        big = ToolRequest("transfer_money", input={"to": "ACME", "amount": 125000})
        _, result = run([model_says(big)], tools, approver=GATED)
        (pending,) = result.interrupts
        assert pending.kind == ApprovalPending(pending.ref)
        assert pending.payload == {"tool": "transfer_money", "input": big.input}
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

    def test_approved_transfer_runs_once(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """Approving runs the tool with its original input, once."""
        big = ToolRequest("transfer_money", input={"to": "ACME", "amount": 125000})
        model, result = run(
            [model_says(big), model_says("Paid.")], tools, approver=GATED
        )
        (pending,) = result.interrupts
        final = resume(
            model,
            result,
            Resume(restart=[pending.approve("ok")]),
            tools,
            approver=GATED,
        )
        assert final.finish_reason == "stop"
        assert calls["transfer_money"] == 1
        assert outputs(last_tool_message(model))[pending.ref] == {
            "status": "sent",
            "to": "ACME",
            "amount": 125000,
        }

    def test_rejected_transfer_never_runs_and_the_model_hears_why(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """Rejecting tells the model the rejection and reason; the tool never ran."""
        big = ToolRequest("transfer_money", input={"to": "ACME", "amount": 125000})
        model, result = run(
            [model_says(big), model_says("Not paid.")], tools, approver=GATED
        )
        (pending,) = result.interrupts
        answer = Resume(restart=[pending.reject("wrong account")])
        final = resume(model, result, answer, tools, approver=GATED)
        assert final.finish_reason == "stop"
        assert calls["transfer_money"] == 0
        assert outputs(last_tool_message(model)) == {
            pending.ref: {"status": "rejected", "reason": "wrong account"}
        }

    def test_policy_rejection_is_told_to_the_model(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """An approver's own Reject answers the model without a pause."""
        big = ToolRequest("transfer_money", input={"to": "ACME", "amount": 125000})
        model, result = run(
            [model_says(big), model_says("Refused.")],
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

    def test_respond_to_an_approval_is_refused_and_nothing_runs(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """A client-made result cannot skip the approval."""
        big = ToolRequest("transfer_money", input={"to": "ACME", "amount": 125000})
        model, result = run([model_says(big)], tools, approver=GATED)
        (pending,) = result.interrupts
        forged = Resume([Respond(pending.name, pending.ref, {"status": "sent"})])
        with pytest.raises(ResumeRejected) as caught:
            resume(model, result, forged, tools, approver=GATED)
        assert caught.value.codes == (ProblemCode.ANSWER_NOT_ACCEPTED,)
        assert calls["transfer_money"] == 0

    def test_tampered_amount_is_refused(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """Approving with a changed amount is input_modified; nothing runs."""
        big = ToolRequest("transfer_money", input={"to": "ACME", "amount": 125000})
        model, result = run([model_says(big)], tools, approver=GATED)
        (pending,) = result.interrupts
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
            resume(model, result, forged, tools, approver=GATED)
        assert caught.value.codes == (ProblemCode.INPUT_MODIFIED,)
        assert calls["transfer_money"] == 0


class TestBatch:
    def test_two_interrupts_and_a_finished_sibling(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """The finished sibling's output is reused on resume, not run again."""
        batch = model_says(
            ToolRequest("ask_user", input={"question": "Pay INV-7 today?"}),
            ToolRequest("transfer_money", input={"to": "ACME", "amount": 125000}),
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
        """A restart's replaced input runs, and the history's request reads it."""
        seen: list[JSON] = []

        @tool(
            input={"type": "object"},
            output={"type": "object"},
            name="book",
            replace_input=True,
        )
        def book(ctx: ToolContext[JSON], data: JSON) -> JSON:
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
        asked = final.messages[-3]
        assert asked.tool_requests[0].input == {"seat": "14C"}
        assert outputs(final.messages[-2]) == {"call-1": {"booked": {"seat": "14C"}}}

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
        big = ToolRequest("transfer_money", input={"to": "ACME", "amount": 125000})
        model, result = run(
            [model_says(big), model_says("ok")],
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
        with pytest.raises(ValueError, match="two tools are named 'lookup'"):
            generate_sync(ScriptedModel([]), "go", tools=[tools[1], tools[1]])

    def test_unknown_options_are_refused(self) -> None:
        """A misspelt option is a TypeError naming it, not silently ignored."""
        options: Any = {"max_turn": 3}
        with pytest.raises(TypeError, match="unknown loop options: max_turn"):
            generate_sync(ScriptedModel([]), "go", **options)

    def test_an_unknown_tool_error_policy_is_refused(self) -> None:
        """on_tool_error is 'respond' or 'raise'; anything else says so."""
        options: Any = {"on_tool_error": "ignore"}
        with pytest.raises(ValueError, match="expected 'respond' or 'raise'"):
            generate_sync(ScriptedModel([]), "go", **options)

    def test_no_messages_are_refused(self) -> None:
        """A conversation needs at least one message."""
        with pytest.raises(ValueError, match="at least one message"):
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
            ToolRequest("transfer_money", input={"to": "ACME", "amount": 125000}),
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
        assert [type(event) for event in events] == [ModelMessage, Finished]
        final = events[-1]
        assert isinstance(final, Finished)
        expected = asyncio.run(
            resume_turn(
                ScriptedModel(script[1:]), result.turn, answer, tools=tools, now=clock
            )
        )
        assert final.result == expected

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


class TestWire:
    def test_turn_and_interrupts_round_trip(
        self, tools: list[Tool[Any, Any, Any]]
    ) -> None:
        """InterruptedTurn and every PendingInterrupt survive dumps and loads."""
        batch = model_says(
            "Let me check.",
            ToolRequest("ask_user", input={"question": "Pay INV-7 today?"}),
            ToolRequest("transfer_money", input={"to": "ACME", "amount": 125000}),
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

    def test_a_decoded_turn_resumes(
        self, tools: list[Tool[Any, Any, Any]], calls: Calls
    ) -> None:
        """A turn stored as JSON and read back resumes like the original."""
        big = ToolRequest("transfer_money", input={"to": "ACME", "amount": 125000})
        model, result = run(
            [model_says(big), model_says("Paid.")], tools, approver=GATED
        )
        assert result.turn is not None
        turn = loads(dumps(result.turn), InterruptedTurn)
        pending = loads(dumps(result.interrupts[0]), PendingInterrupt)
        final = resume_turn_sync(
            model,
            turn,
            Resume(restart=[pending.approve()]),
            tools=tools,
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
        big = ToolRequest("transfer_money", input={"to": "ACME", "amount": 125000})
        _, result = run([model_says(big), model_says("ok")], tools, approver=always())
        assert result.finish_reason == "stop"
        assert calls["transfer_money"] == 1
