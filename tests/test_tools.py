from __future__ import annotations

import asyncio
from datetime import timedelta

import attrs
import pytest
from interruption import (
    JSON,
    Accepts,
    ApprovalPending,
    ArgumentTypeError,
    Custom,
    DecodeError,
    ExpiryAnswer,
    Interrupted,
    InterruptionError,
    InterruptionKind,
    InvalidArgument,
    PayloadError,
    PendingInterrupt,
    Phase,
    Restart,
    ScheduledPause,
    SchemaError,
    Tool,
    ToolContext,
    ToolRequest,
    define_interrupt,
    json_schema,
    tool,
)
from interruption.runtime.approval import DECISION_SCHEMA
from interruption.runtime.tools import NULL_ONLY, ToolContractError


@attrs.frozen
class Transfer:
    """A transfer's input."""

    to: str
    amount: int


@attrs.frozen
class Receipt:
    """A transfer's output."""

    id: str


@attrs.frozen
class Note:
    """Resumed data."""

    text: str


@pytest.fixture(name="pay")
def _pay() -> Tool[Transfer, Receipt, Note]:
    @tool(input=Transfer, output=Receipt, resume=Note, ttl=timedelta(minutes=5))
    def pay(ctx: ToolContext[Note], transfer: Transfer) -> Receipt:
        """Pay someone."""
        if ctx.resumed is None:
            ctx.interrupt({"to": transfer.to})
        return Receipt(f"{transfer.to}-{transfer.amount}-{ctx.resumed.text}")

    return pay


class TestTool:
    def test_schemas_come_from_classes(
        self, pay: Tool[Transfer, Receipt, Note]
    ) -> None:
        """Class specs give json_schema schemas and structuring types."""
        assert pay.name == "pay"
        assert pay.description == "Pay someone."
        assert pay.input_schema == json_schema(Transfer)
        assert pay.output_schema == json_schema(Receipt)
        assert pay.resume_schema == json_schema(Note)
        assert (pay.input_type, pay.resume_type) == (Transfer, Note)
        assert pay.ttl == timedelta(minutes=5)
        assert not pay.interrupt_only
        assert not pay.replace_input

    def test_call_structures_and_unstructures(
        self, pay: Tool[Transfer, Receipt, Note]
    ) -> None:
        """The input is structured, ctx.resumed typed, the output unstructured."""
        ctx = ToolContext("pay", "call-1", pay.parse_resumed({"text": "ok"}))
        output = asyncio.run(pay.call(ctx, {"to": "ACME", "amount": 5}))
        assert output == {"id": "ACME-5-ok"}

    def test_first_run_pauses(self, pay: Tool[Transfer, Receipt, Note]) -> None:
        """ctx.resumed is None on a first run, and ctx.interrupt pauses."""
        ctx: ToolContext[Note] = ToolContext("pay", "call-1")
        with pytest.raises(Interrupted) as caught:
            asyncio.run(pay.call(ctx, {"to": "ACME", "amount": 5}))
        assert caught.value == Interrupted(Custom(), {"to": "ACME"})

    def test_bad_input_is_a_decode_error(
        self, pay: Tool[Transfer, Receipt, Note]
    ) -> None:
        """An input that does not fit the input class raises DecodeError."""
        with pytest.raises(DecodeError):
            pay.parse_input({"to": "ACME", "amount": "5"})
        with pytest.raises(DecodeError):
            pay.parse_resumed({"txt": "ok"})

    def test_dict_schemas_pass_json_through(self) -> None:
        """With schema dicts the function gets and returns plain JSON."""

        @tool(input={"type": "object"}, output={}, name="echo", description="Echo.")
        def anything(ctx: ToolContext[JSON], data: JSON) -> JSON:
            return [data, ctx.resumed]

        assert (anything.name, anything.description) == ("echo", "Echo.")
        assert anything.resume_schema == NULL_ONLY
        assert anything.parse_input({"a": 1}) == {"a": 1}
        assert anything.parse_resumed("x") == "x"
        output = asyncio.run(anything.call(ToolContext("echo", "r", "x"), {"a": 1}))
        assert output == [{"a": 1}, "x"]

    def test_async_functions_are_awaited(self) -> None:
        """An async tool function is awaited."""

        @tool(input={}, output={}, resume={"type": "string"}, replace_input=True)
        async def later(_ctx: ToolContext[JSON], data: JSON) -> JSON:
            await asyncio.sleep(0)
            return data

        assert later.replace_input
        assert later.resume_schema == {"type": "string"}
        assert asyncio.run(later.call(ToolContext("later", "r"), 3)) == 3

    def test_description_defaults_to_empty(self) -> None:
        """A function without a docstring has an empty description."""

        @tool(input={}, output={})
        def bare(_ctx: ToolContext[JSON], data: JSON) -> JSON:
            return data

        assert bare.description == ""

    def test_a_non_json_output_is_a_payload_error(self) -> None:
        """A tool returning something that is not JSON fails loudly."""

        @tool(input={}, output={})
        def odd(_ctx: ToolContext[JSON], _data: JSON) -> JSON:
            return {1, 2}  # type: ignore[return-value]

        with pytest.raises(PayloadError):
            asyncio.run(odd.call(ToolContext("odd", "r"), None))

    def test_a_bad_schema_dict_is_refused(self) -> None:
        """A dict that is not a JSON Schema is refused when the tool is made."""
        with pytest.raises(TypeError, match="tool 'f': its output schema"):

            @tool(input={}, output={"type": 5}, name="f")
            def f(_ctx: ToolContext[JSON], data: JSON) -> JSON:
                return data

    def test_a_bad_schema_dict_is_an_argument_type_error(self) -> None:
        """The refusal is ArgumentTypeError, its cause the SchemaError's problems."""
        with pytest.raises(ArgumentTypeError) as caught:
            define_interrupt("ask", "Ask", input={}, output={"type": 5})
        error = caught.value
        assert (error.code, error.where, error.expected) == (
            "argument_type_error",
            "tool 'ask': its output schema",
            "a usable JSON Schema",
        )
        assert isinstance(error.__cause__, SchemaError)
        assert error.got == error.__cause__.message
        assert error.__cause__.path == "$.type"

    def test_a_non_json_schema_dict_is_refused(self) -> None:
        """A schema dict must itself be JSON."""
        with pytest.raises(PayloadError):

            @tool(input={"enum": [{1}]}, output={})  # type: ignore[list-item]
            def f(_ctx: ToolContext[JSON], data: JSON) -> JSON:
                return data


class TestInvoke:
    def test_a_fitting_call_returns_the_output(
        self, pay: Tool[Transfer, Receipt, Note]
    ) -> None:
        """Input checked, function called, output checked and returned as JSON."""
        ctx = ToolContext("pay", "call-1", Note("ok"))
        output = asyncio.run(pay.invoke(ctx, {"to": "ACME", "amount": 5}))
        assert output == {"id": "ACME-5-ok"}

    def test_an_input_outside_the_schema_is_refused_before_the_call(self) -> None:
        """A bad input raises ToolContractError("input") and the function never runs."""
        ran: list[JSON] = []

        @tool(input={"type": "object"}, output={})
        def record(_ctx: ToolContext[JSON], data: JSON) -> JSON:
            ran.append(data)
            return data

        with pytest.raises(ToolContractError) as caught:
            asyncio.run(record.invoke(ToolContext("record", "r"), [1]))
        assert caught.value.side == "input"
        assert [problem.path for problem in caught.value.problems] == ["$.input"]
        assert str(caught.value).startswith("invalid input: $.input")
        assert isinstance(caught.value, InterruptionError)
        assert isinstance(caught.value, ValueError)
        assert ran == []

    def test_an_output_outside_the_schema_is_refused_after_the_call(self) -> None:
        """An output outside the output schema raises ToolContractError("output")."""

        @tool(input={}, output={"type": "string"})
        def wrong(_ctx: ToolContext[JSON], _data: JSON) -> JSON:
            return 1

        with pytest.raises(ToolContractError) as caught:
            asyncio.run(wrong.invoke(ToolContext("wrong", "r"), None))
        assert caught.value.side == "output"
        assert [problem.path for problem in caught.value.problems] == ["$.output"]
        assert "does not fit its schema" in str(caught.value)

    def test_a_pause_passes_through(self, pay: Tool[Transfer, Receipt, Note]) -> None:
        """Interrupted raised by the function is not a contract failure."""
        with pytest.raises(Interrupted):
            asyncio.run(pay.invoke(ToolContext("pay", "r"), {"to": "A", "amount": 1}))


QUESTION = Custom()
APPROVAL = ApprovalPending("call-1")
BEFORE = ScheduledPause(Phase.BEFORE, "t")
AFTER = ScheduledPause(Phase.AFTER, "t")


class TestAccepts:
    @pytest.fixture(name="plain")
    def _plain(self) -> Tool[JSON, JSON, JSON]:
        @tool(
            input={"type": "object"},
            output={"type": "string"},
            resume={"type": "integer"},
            name="t",
        )
        def plain(_ctx: ToolContext[JSON], _data: JSON) -> JSON:
            return "done"

        return plain

    @pytest.mark.parametrize(
        ("kind", "expected"),
        [
            pytest.param(
                QUESTION,
                Accepts(respond={"type": "string"}, restart={"type": "integer"}),
                id="question",
            ),
            pytest.param(APPROVAL, Accepts(restart=DECISION_SCHEMA), id="approval"),
            pytest.param(BEFORE, Accepts(restart=NULL_ONLY), id="before"),
            pytest.param(AFTER, Accepts(restart=NULL_ONLY), id="after"),
        ],
    )
    def test_an_ordinary_tool(
        self, plain: Tool[JSON, JSON, JSON], kind: InterruptionKind, expected: Accepts
    ) -> None:
        """Each kind of pause of an ordinary tool accepts the design's answers."""
        assert plain.accepts(kind) == expected

    @pytest.mark.parametrize(
        ("kind", "replace"),
        [
            pytest.param(QUESTION, True, id="question"),
            pytest.param(APPROVAL, False, id="approval"),
            pytest.param(BEFORE, True, id="before"),
            pytest.param(AFTER, False, id="after"),
        ],
    )
    def test_a_replaced_input_only_where_the_tool_runs_again_on_it(
        self, plain: Tool[JSON, JSON, JSON], kind: InterruptionKind, replace: bool
    ) -> None:
        """Opting in allows a replaced input on a question or before the tool only."""
        opted = attrs.evolve(plain, replace_input=True)
        assert opted.accepts(kind).replace_input == (
            {"type": "object"} if replace else None
        )
        assert plain.accepts(kind).replace_input is None

    def test_an_interrupt_only_tool_accepts_a_respond_only(self) -> None:
        """define_interrupt's pause is answered by respond, never restarted."""
        ask = define_interrupt(
            "ask", "Ask", input={"type": "object"}, output={"enum": ["Yes", "No"]}
        )
        assert ask.accepts(QUESTION) == Accepts(respond={"enum": ["Yes", "No"]})

    def test_an_approval_agrees_with_the_validation_side(
        self, plain: Tool[JSON, JSON, JSON]
    ) -> None:
        """What a tool's approval accepts is what PendingInterrupt.allowed enforces."""
        pending = PendingInterrupt(
            "call-1",
            APPROVAL,
            None,
            ToolRequest("t", "call-1"),
            plain.accepts(QUESTION),
        )
        assert plain.accepts(APPROVAL) == pending.allowed


class TestToolContext:
    def test_interrupt_raises_a_custom_pause(self) -> None:
        """ctx.interrupt raises Interrupted with a Custom kind."""
        ctx: ToolContext[JSON] = ToolContext("t", "r")
        with pytest.raises(Interrupted) as caught:
            ctx.interrupt({"q": 1})
        assert caught.value.kind == Custom()
        assert caught.value.payload == {"q": 1}

    def test_interrupt_checks_the_payload(self) -> None:
        """A payload that is not JSON raises PayloadError instead of pausing."""
        ctx: ToolContext[JSON] = ToolContext("t", "r")
        with pytest.raises(PayloadError):
            ctx.interrupt({1, 2})  # type: ignore[arg-type]

    def test_repr(self) -> None:
        """The repr names the call, the resumed data and every flag."""
        ctx = ToolContext(
            "t", "r", "x", restarted=True, approved=True, original_input={"n": 1}
        )
        assert repr(ctx) == (
            "ToolContext(name='t', ref='r', resumed='x', restarted=True, "
            "approved=True, original_input={'n': 1})"
        )
        assert not ToolContext("t", "r").restarted

    def test_original_input_defaults_to_none(self) -> None:
        """A call runs with the model's own input unless the loop says otherwise."""
        assert ToolContext("t", "r").original_input is None
        assert ToolContext("t", "r", original_input=[1]).original_input == [1]

    def test_approved_defaults_to_false(self) -> None:
        """A call is not approved unless the loop says a human approved it."""
        assert ToolContext("t", "r").approved is False
        assert ToolContext("t", "r", approved=True).approved is True

    def test_approved_is_keyword_only(self) -> None:
        """The approved flag is keyword-only, never set by position by mistake."""
        with pytest.raises(TypeError):
            ToolContext("t", "r", None, True)  # type: ignore[call-arg]  # noqa: FBT003


class TestDefineInterrupt:
    def test_an_expiry_answer_must_fit_the_output(self) -> None:
        """An on_expiry outside the output schema is refused when the tool is made."""
        yes_no: dict[str, JSON] = {"enum": ["Yes", "No"]}
        with pytest.raises(InvalidArgument) as caught:
            define_interrupt(
                "confirm",
                "Confirm.",
                input={"type": "object"},
                output=yes_no,
                on_expiry=ExpiryAnswer({"approved": True}),
            )
        assert caught.value.where == "tool 'confirm': on_expiry"
        assert "$.on_expiry.output" in caught.value.got
        fits = define_interrupt(
            "confirm",
            "Confirm.",
            input={"type": "object"},
            output=yes_no,
            on_expiry=ExpiryAnswer("No"),
        )
        assert fits.on_expiry == ExpiryAnswer("No")

    def test_always_pauses_with_its_input(self) -> None:
        """An interrupt-only tool pauses with its input as the payload."""
        ask = define_interrupt(
            "ask_user",
            "Ask the user",
            input={"type": "object"},
            output={"type": "string"},
            ttl=timedelta(hours=1),
        )
        assert ask.interrupt_only
        assert ask.ttl == timedelta(hours=1)
        assert ask.output_schema == {"type": "string"}
        with pytest.raises(Interrupted) as caught:
            asyncio.run(ask.call(ToolContext("ask_user", "r"), {"q": "?"}))
        assert caught.value == Interrupted(Custom(), {"q": "?"})

    def test_a_tool_keeps_its_own_schemas(self) -> None:
        """Changing the dicts a tool was defined with changes nothing it checks."""
        output: dict[str, JSON] = {"enum": ["Yes", "No"]}
        given_input: dict[str, JSON] = {"type": "object", "required": ["q"]}
        ask = define_interrupt("ask", "Ask", input=given_input, output=output)
        output["enum"].append("Maybe")  # type: ignore[union-attr]
        given_input["required"] = []
        assert ask.output_schema == {"enum": ["Yes", "No"]}
        assert ask.input_schema == {"type": "object", "required": ["q"]}
        with pytest.raises(TypeError):
            ask.output_schema["enum"].append("Maybe")  # type: ignore[union-attr]
        pending = PendingInterrupt(
            "r", Custom(), None, None, Accepts(respond=ask.output_schema)
        )
        assert pending.fits(pending.respond("Yes"))
        with pytest.raises(InterruptionError):
            pending.respond("Maybe")

    def test_a_tool_that_changes_its_input_changes_no_record(self) -> None:
        """A JSON-input tool gets copies: changing them leaves the call as it was."""

        @tool(input={"type": "object"}, output={}, resume={})
        def meddle(ctx: ToolContext[JSON], data: JSON) -> JSON:
            assert isinstance(data, dict)
            data["amount"] = 0
            if isinstance(ctx.resumed, dict):
                ctx.resumed.clear()
            return None

        request = ToolRequest("meddle", "r", {"amount": 125000})
        restart = Restart("meddle", "r", {"ok": True})
        resumed = meddle.parse_resumed(restart.resumed)
        context: ToolContext[JSON] = ToolContext("meddle", "r", resumed=resumed)
        asyncio.run(meddle.call(context, request.input))
        assert request.input == {"amount": 125000}
        assert restart.resumed == {"ok": True}

    def test_classes_give_schemas(self) -> None:
        """Class specs are turned into their JSON Schemas."""
        ask = define_interrupt("ask", "Ask", input=Transfer, output=Receipt)
        assert ask.input_schema == json_schema(Transfer)
        assert ask.output_schema == json_schema(Receipt)


class TestNoResumeData:
    def test_a_context_of_none_runs_and_restarts(self) -> None:
        """A tool without resume data takes a ToolContext[None]; a restart runs it."""
        seen: list[tuple[bool, None]] = []

        @tool(input=Transfer, output=Receipt)
        def pay(ctx: ToolContext[None], transfer: Transfer) -> Receipt:
            seen.append((ctx.restarted, ctx.resumed))
            if not ctx.restarted:
                ctx.interrupt({"to": transfer.to})
            return Receipt(transfer.to)

        data: JSON = {"to": "ACME", "amount": 5}
        with pytest.raises(Interrupted):
            asyncio.run(pay.invoke(ToolContext("pay", "c1"), data))
        restarted: ToolContext[None] = ToolContext(
            "pay", "c1", pay.parse_resumed(None), restarted=True
        )
        assert asyncio.run(pay.invoke(restarted, data)) == {"id": "ACME"}
        assert seen == [(False, None), (True, None)]
        assert pay.resume_schema == NULL_ONLY
        assert pay.resume_type is None
