"""The MCP SDK's own elicitation tests, ported to answer through `mcp_tool`.

Each test below is one of ``tests/server/mcpserver/test_elicitation.py`` of
the MCP python-sdk (2.x), with the SDK's ``ctx.elicit(message, schema=Model)``
tool rewritten as a tool of this library that pauses with ``ctx.interrupt``
and whose resume schema is the same pydantic model's JSON Schema
(``Model.model_json_schema()``, so ``X | None`` arrives as ``anyOf``). The
client's elicitation callback answers as the SDK's test does, and the
caller must see what the SDK's test asserts; where this library refuses on
purpose, the test says so and pins the refusal's code.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from typing import Any, Final, Literal

import mcp_types
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from interruption import (
    JSON,
    MemoryStore,
    ProblemCode,
    ResumeRejected,
    Tool,
    ToolContext,
    tool,
)
from interruption.adapters.mcp import (
    FormSchemaError,
    dismissal,
    form_of,
    mcp_tool,
    rejection_of,
)
from mcp import Client
from mcp.client.session import ClientRequestContext, ElicitationFnT
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types._v2025_11_25 import PrimitiveSchemaDefinition
from pydantic import BaseModel, Field, TypeAdapter, ValidationError

Reply = ElicitationFnT
MCP_PROPERTY: Final = TypeAdapter[Any](PrimitiveSchemaDefinition)
"""MCP's own check of one form property (what ``ctx.elicit`` sends)."""


class AnswerSchema(BaseModel):
    """The SDK test's one-field form."""

    answer: str = Field(description="The user's answer to the question")


def _asking(
    schema: type[BaseModel],
    done: Callable[[dict[str, Any]], str],
    *,
    name: str = "ask_user",
    on_dismiss: Callable[[str], str] | None = None,
) -> Tool[Any, Any, Any]:
    """A tool that asks with *schema*'s form and returns ``done(answer)``."""

    @tool(
        name=name,
        input={"type": "object"},
        output={"type": "string"},
        resume=schema.model_json_schema(),
    )
    def ask(ctx: ToolContext[JSON], args: JSON) -> str:
        """Ask the user."""
        if ctx.restarted and ctx.resumed is None:
            said = dismissal()
            assert said is not None
            assert on_dismiss is not None
            return on_dismiss(said)
        if ctx.resumed is None:
            ctx.interrupt({"message": f"Tool wants to ask: {args}"})
        assert isinstance(ctx.resumed, dict)
        return done(ctx.resumed)

    return ask


def _served(each: Tool[Any, Any, Any], **options: Any) -> MCPServer:
    return MCPServer("ported", tools=[mcp_tool(each, MemoryStore(), **options)])


def _reply(
    result: mcp_types.ElicitResult, seen: list[dict[str, Any]] | None = None
) -> Reply:
    async def callback(
        context: ClientRequestContext, params: mcp_types.ElicitRequestParams
    ) -> mcp_types.ElicitResult:
        del context
        assert isinstance(params, mcp_types.ElicitRequestFormParams)
        if seen is not None:
            seen.append(params.requested_schema)
        return result

    return callback


async def _legacy(server: MCPServer, callback: Reply, name: str = "ask_user") -> str:
    """Call *name* in the handshake flow the SDK's tests use; the text seen."""
    async with Client(server, mode="legacy", elicitation_callback=callback) as client:
        result = await client.call_tool(name, {"prompt": "What is your name?"})
    return _text(result)


def _text(result: mcp_types.CallToolResult) -> str:
    """What the caller reads: a string result, or an error's text."""
    (block,) = result.content
    assert isinstance(block, mcp_types.TextContent)
    if result.is_error:
        return block.text
    value = json.loads(block.text)
    assert isinstance(value, str)
    return value


async def _modern(
    server: MCPServer, result: mcp_types.ElicitResult, name: str = "ask_user"
) -> str | ResumeRejected:
    """Call *name* in the 2026 flow and retry it with *result*."""
    args: dict[str, Any] = {"prompt": "What is your name?"}
    async with Client(server) as client:
        paused = await client.session.call_tool(name, args, allow_input_required=True)
        assert isinstance(paused, mcp_types.InputRequiredResult)
        assert paused.input_requests is not None
        (key,) = paused.input_requests
        try:
            done = await client.session.call_tool(
                name,
                args,
                input_responses={key: result},
                request_state=paused.request_state,
                allow_input_required=True,
            )
        except MCPError as error:
            rejected = rejection_of(error)
            assert rejected is not None
            return rejected
    assert isinstance(done, mcp_types.CallToolResult)
    return _text(done)


def _accept(content: dict[str, Any]) -> mcp_types.ElicitResult:
    return mcp_types.ElicitResult(action="accept", content=content)


def _answered(answer: dict[str, Any]) -> str:
    return f"User answered: {answer['answer']}"


def _said(action: str) -> str:
    return "User declined to answer" if action == "decline" else "User cancelled"


class TestAcceptDeclineCancel:
    """``test_elicitation_accept_*`` and ``test_elicitation_decline_*``."""

    def test_accept_returns_the_users_answer_to_the_tool(self) -> None:
        """An accepted form restarts the tool with the answer (SDK: passes)."""
        server = _served(_asking(AnswerSchema, _answered))
        text = asyncio.run(_legacy(server, _reply(_accept({"answer": "Test User"}))))
        assert text == "User answered: Test User"

    @pytest.mark.parametrize("action", ["decline", "cancel"])
    def test_a_dismissal_reaches_the_tool_without_content(
        self, action: Literal["decline", "cancel"]
    ) -> None:
        """The tool is told decline from cancel and answers each its own way."""
        ask = _asking(AnswerSchema, _answered, on_dismiss=_said)
        server = _served(ask, restart_dismissed=True)
        result = mcp_types.ElicitResult(action=action)
        assert asyncio.run(_legacy(server, _reply(result))) == _said(action)
        assert asyncio.run(_modern(server, result)) == _said(action)

    @pytest.mark.parametrize(
        ("action", "text"),
        [
            ("decline", "the user declined to answer"),
            ("cancel", "the user cancelled the form"),
        ],
    )
    def test_without_restart_the_caller_still_tells_them_apart(
        self, action: Literal["decline", "cancel"], text: str
    ) -> None:
        """A tool not served to hear dismissals fails the call, each with its text."""
        server = _served(_asking(AnswerSchema, _answered))
        result = mcp_types.ElicitResult(action=action)
        assert asyncio.run(_legacy(server, _reply(result))) == text

    @pytest.mark.parametrize("action", ["decline", "cancel"])
    def test_the_audit_trail_tells_decline_from_cancel(
        self, action: Literal["decline", "cancel"]
    ) -> None:
        """The dismissal is filed as accepted, its reason the action taken."""
        store = MemoryStore()
        ask = _asking(AnswerSchema, _answered)
        server = MCPServer("ported", tools=[mcp_tool(ask, store)])
        result = mcp_types.ElicitResult(action=action)
        asyncio.run(_legacy(server, _reply(result)))
        trail = asyncio.run(store.audit("mcp:ask_user"))
        assert [(event.kind, event.reason) for event in trail] == [
            ("paused", None),
            ("accepted", action),
        ]

    def test_a_dismissal_spends_the_pause(self) -> None:
        """After a decline, an accept of that pause is consumed (ours, on purpose)."""
        ask = _asking(AnswerSchema, _answered, on_dismiss=_said)
        server = _served(ask, restart_dismissed=True)

        async def both() -> tuple[str, str | ResumeRejected]:
            args: dict[str, Any] = {"prompt": "?"}
            async with Client(server) as client:
                paused = await client.session.call_tool(
                    "ask_user", args, allow_input_required=True
                )
                assert isinstance(paused, mcp_types.InputRequiredResult)
                assert paused.input_requests is not None
                (key,) = paused.input_requests
                outcomes: list[str | ResumeRejected] = []
                for result in (
                    mcp_types.ElicitResult(action="decline"),
                    _accept({"answer": "late"}),
                ):
                    try:
                        done = await client.session.call_tool(
                            "ask_user",
                            args,
                            input_responses={key: result},
                            request_state=paused.request_state,
                            allow_input_required=True,
                        )
                    except MCPError as error:
                        rejected = rejection_of(error)
                        assert rejected is not None
                        outcomes.append(rejected)
                        continue
                    assert isinstance(done, mcp_types.CallToolResult)
                    outcomes.append(_text(done))
            first, late = outcomes
            assert isinstance(first, str)
            return first, late

        first, late = asyncio.run(both())
        assert first == "User declined to answer"
        assert isinstance(late, ResumeRejected)
        assert late.codes == (ProblemCode.CONSUMED,)

    def test_a_dismissal_beside_a_stray_response_is_refused(self) -> None:
        """Ours: a response to another key beside a decline is unknown_interrupt."""
        ask = _asking(AnswerSchema, _answered, on_dismiss=_said)
        server = _served(ask, restart_dismissed=True)

        async def stray() -> MCPError:
            args: dict[str, Any] = {"prompt": "?"}
            async with Client(server) as client:
                paused = await client.session.call_tool(
                    "ask_user", args, allow_input_required=True
                )
                assert isinstance(paused, mcp_types.InputRequiredResult)
                assert paused.input_requests is not None
                (key,) = paused.input_requests
                responses: dict[str, Any] = {
                    key: mcp_types.ElicitResult(action="decline"),
                    "other": _accept({"answer": "x"}),
                }
                with pytest.raises(MCPError) as caught:
                    await client.session.call_tool(
                        "ask_user",
                        args,
                        input_responses=responses,
                        request_state=paused.request_state,
                        allow_input_required=True,
                    )
            return caught.value

        rejected = rejection_of(asyncio.run(stray()))
        assert rejected is not None
        assert rejected.codes == (ProblemCode.UNKNOWN_INTERRUPT,)

    def test_dismissal_is_none_outside_a_dismissed_run(self) -> None:
        """Nothing but a restart after a dismissal reads one."""
        assert dismissal() is None


class TestSchemaValidation:
    """``test_elicitation_schema_validation``: only primitives travel."""

    class NestedModel(BaseModel):
        """A nested object."""

        value: str

    class InvalidListSchema(BaseModel):
        """A list of numbers."""

        numbers: list[int] = Field(description="List of numbers")

    class InvalidNestedSchema(BaseModel):
        """A nested model."""

        nested: TestSchemaValidation.NestedModel = Field(description="Nested model")

    @pytest.mark.parametrize(
        ("schema", "field"),
        [(InvalidListSchema, "numbers"), (InvalidNestedSchema, "nested")],
    )
    def test_non_primitive_fields_are_refused_naming_the_field(
        self, schema: type[BaseModel], field: str
    ) -> None:
        """MCP refuses with a TypeError at ``ctx.elicit``; we refuse the tool when made.

        Refused on purpose, earlier: `FormSchemaError` (a TypeError, code
        ``form_schema_error``) when `mcp_tool` is called, naming the field.
        """
        with pytest.raises(FormSchemaError) as caught:
            mcp_tool(_asking(schema, _answered), MemoryStore())
        assert caught.value.code == "form_schema_error"
        assert isinstance(caught.value, TypeError)
        assert any(field in problem.path for problem in caught.value.problems)
        with pytest.raises(TypeError, match=field):
            _mcp_renders(schema)


def _mcp_renders(schema: type[BaseModel]) -> dict[str, Any]:
    """What MCP's own ``ctx.elicit`` sends for *schema* (or its TypeError)."""
    from mcp.server.elicitation import render_elicitation_schema  # noqa: PLC0415

    return render_elicitation_schema(schema)


class OptionalSchema(BaseModel):
    """The SDK test's form with optional fields."""

    required_name: str = Field(description="Your name (required)")
    optional_age: int | None = Field(default=None, description="Your age (optional)")
    optional_email: str | None = Field(
        default=None, description="Your email (optional)"
    )
    subscribe: bool | None = Field(
        default=False, description="Subscribe to newsletter?"
    )


def _optional_done(data: dict[str, Any]) -> str:
    info = [f"Name: {data['required_name']}"]
    if data.get("optional_age") is not None:
        info.append(f"Age: {data['optional_age']}")
    if data.get("optional_email") is not None:
        info.append(f"Email: {data['optional_email']}")
    info.append(f"Subscribe: {data['subscribe']}")
    return ", ".join(info)


class TestOptionalFields:
    """``test_elicitation_with_optional_fields``."""

    @pytest.mark.parametrize(
        ("content", "expected"),
        [
            (
                {
                    "required_name": "John Doe",
                    "optional_age": 30,
                    "optional_email": "john@example.com",
                    "subscribe": True,
                },
                "Name: John Doe, Age: 30, Email: john@example.com, Subscribe: True",
            ),
            ({"required_name": "Jane Smith"}, "Name: Jane Smith, Subscribe: False"),
        ],
    )
    def test_optional_fields_are_a_form_and_their_answers_reach_the_tool(
        self, content: dict[str, Any], expected: str
    ) -> None:
        """``X | None`` (anyOf) travels as its bare primitive, outside ``required``."""
        seen: list[dict[str, Any]] = []
        server = _served(_asking(OptionalSchema, _optional_done))
        text = asyncio.run(_legacy(server, _reply(_accept(content), seen)))
        assert text == expected
        (requested,) = seen
        assert requested["properties"]["optional_age"] == {
            "type": "integer",
            "title": "Optional Age",
            "description": "Your age (optional)",
        }
        assert requested["required"] == ["required_name"]

    def test_the_form_is_the_one_mcp_sends(self) -> None:
        """Our form of the model is MCP's own rendering of it, property by property."""
        ours = form_of(OptionalSchema.model_json_schema())
        theirs = _mcp_renders(OptionalSchema)
        assert ours["properties"] == theirs["properties"]
        assert ours["required"] == theirs["required"]

    def test_an_explicit_null_is_the_tools_own_schema_speaking(self) -> None:
        """A null for an optional field is accepted: the tool's schema takes it."""
        content = {"required_name": "Ann", "optional_age": None}
        server = _served(_asking(OptionalSchema, _optional_done))
        text = asyncio.run(_legacy(server, _reply(_accept(content))))
        assert text == "Name: Ann, Subscribe: False"

    class InvalidOptionalSchema(BaseModel):
        """An optional list of numbers."""

        name: str = Field(description="Name")
        optional_list: list[int] | None = Field(default=None, description="Invalid")

    class BareListSchema(BaseModel):
        """A list of free strings."""

        name: str = Field(description="Name")
        tags: list[str] = Field(description="Tags")

    class MultiPrimitiveSchema(BaseModel):
        """A union of two primitives."""

        value: int | str = Field(description="Value")

    @pytest.mark.parametrize(
        ("schema", "field"),
        [
            (InvalidOptionalSchema, "optional_list"),
            (BareListSchema, "tags"),
            (MultiPrimitiveSchema, "value"),
        ],
    )
    def test_what_mcp_refuses_is_refused_with_the_code(
        self, schema: type[BaseModel], field: str
    ) -> None:
        """MCP refuses these forms; so do we, naming the field (refused on purpose)."""
        with pytest.raises(FormSchemaError) as caught:
            mcp_tool(_asking(schema, _answered), MemoryStore())
        assert caught.value.code == "form_schema_error"
        assert any(field in problem.path for problem in caught.value.problems)
        with pytest.raises(TypeError, match=field):
            _mcp_renders(schema)


class DefaultsSchema(BaseModel):
    """The SDK test's form with defaults."""

    name: str = Field(default="Guest", description="User name")
    age: int = Field(default=18, description="User age")
    subscribe: bool = Field(default=True, description="Subscribe to newsletter")
    email: str = Field(description="Email address (required)")


def _defaults_done(data: dict[str, Any]) -> str:
    return (
        f"Name: {data['name']}, Age: {data['age']}, "
        f"Subscribe: {data['subscribe']}, Email: {data['email']}"
    )


class TestDefaults:
    """``test_elicitation_with_default_values``."""

    def test_the_form_carries_the_defaults(self) -> None:
        """The requested schema shows each default; the required field has none."""
        seen: list[dict[str, Any]] = []
        server = _served(_asking(DefaultsSchema, _defaults_done))
        asyncio.run(_legacy(server, _reply(_accept({"email": "t@example.com"}), seen)))
        (requested,) = seen
        props = requested["properties"]
        assert props["name"]["default"] == "Guest"
        assert props["age"]["default"] == 18
        assert props["subscribe"]["default"] is True
        assert "default" not in props["email"]

    @pytest.mark.parametrize("flow", ["legacy", "modern"])
    def test_defaults_are_filled_into_what_the_tool_gets(self, flow: str) -> None:
        """The tool reads every field, as with ``ctx.elicit``: no KeyError."""
        server = _served(_asking(DefaultsSchema, _defaults_done))
        result = _accept({"email": "test@example.com"})
        text = (
            asyncio.run(_legacy(server, _reply(result)))
            if flow == "legacy"
            else asyncio.run(_modern(server, result))
        )
        assert text == "Name: Guest, Age: 18, Subscribe: True, Email: test@example.com"

    def test_an_answer_overrides_the_defaults(self) -> None:
        """What the human filled in wins over each default."""
        content = {"email": "john@example.com", "name": "John", "age": 25}
        server = _served(_asking(DefaultsSchema, _defaults_done))
        text = asyncio.run(
            _legacy(server, _reply(_accept({**content, "subscribe": False})))
        )
        assert text == "Name: John, Age: 25, Subscribe: False, Email: john@example.com"

    def test_filled_content_is_still_checked(self) -> None:
        """Filling defaults never lets a wrong value through: it is schema_violation."""
        server = _served(_asking(DefaultsSchema, _defaults_done))
        rejected = asyncio.run(_modern(server, _accept({"email": 5})))
        assert isinstance(rejected, ResumeRejected)
        assert rejected.codes == (ProblemCode.SCHEMA_VIOLATION,)

    def test_a_default_its_field_refuses_is_refused_when_made(self) -> None:
        """A default outside its own property is a FormSchemaError at that path."""
        schema: dict[str, JSON] = {
            "type": "object",
            "properties": {"age": {"type": "integer", "minimum": 18, "default": 3}},
        }
        with pytest.raises(FormSchemaError) as caught:
            form_of(schema)
        assert [p.path for p in caught.value.problems] == ["$.properties.age.default"]


_DEFAULTS: Final[dict[str, Any]] = {"name": "Guest", "age": 18, "subscribe": True}


class TestDefaultsLaw:
    """Ours: the tool gets the defaults under what was sent, whatever was sent."""

    @settings(max_examples=25)
    @given(
        sent=st.fixed_dictionaries(
            {"email": st.emails()},
            optional={
                "name": st.text(max_size=5),
                "age": st.integers(-5, 99),
                "subscribe": st.booleans(),
            },
        )
    )
    def test_what_the_tool_gets_is_the_defaults_then_the_answer(
        self, sent: dict[str, Any]
    ) -> None:
        """Each field left out is its default; each field sent is as sent."""
        server = _served(_asking(DefaultsSchema, json.dumps))
        got = asyncio.run(_modern(server, _accept(sent)))
        assert isinstance(got, str)
        assert json.loads(got) == {**_DEFAULTS, **sent}


COLORS: Final[list[Any]] = [
    {"const": "red", "title": "Red"},
    {"const": "green", "title": "Green"},
    {"const": "blue", "title": "Blue"},
    {"const": "yellow", "title": "Yellow"},
]


class FavoriteColorSchema(BaseModel):
    """A titled single choice."""

    user_name: str = Field(description="Your name")
    favorite_color: str = Field(
        description="Select your favorite color",
        json_schema_extra={"oneOf": COLORS},
    )


class LegacyColorSchema(BaseModel):
    """The legacy ``enumNames`` choice."""

    user_name: str = Field(description="Your name")
    color: str = Field(
        description="Select a color",
        json_schema_extra={
            "enum": ["red", "green", "blue"],
            "enumNames": ["Red", "Green", "Blue"],
        },
    )


class FavoriteColorsSchema(BaseModel):
    """A titled multi-select."""

    user_name: str = Field(description="Your name")
    favorite_colors: list[str] = Field(
        description="Select your favorite colors",
        json_schema_extra={"items": {"anyOf": COLORS}},
    )


class LiteralSchema(BaseModel):
    """Literal choices."""

    size: Literal["s", "m", "l"] = Field(description="Size")
    extras: list[Literal["a", "b"]] = Field(description="Extras")


class TestChoices:
    """``test_elicitation_with_enum_titles`` and the Literal test."""

    @pytest.mark.parametrize(
        ("schema", "content", "expected"),
        [
            (
                FavoriteColorSchema,
                {"user_name": "Alice", "favorite_color": "blue"},
                "User: Alice, Favorite: blue",
            ),
            (
                FavoriteColorsSchema,
                {"user_name": "Bob", "favorite_colors": ["red", "green"]},
                "User: Bob, Colors: red, green",
            ),
            (
                LegacyColorSchema,
                {"user_name": "Charlie", "color": "green"},
                "User: Charlie, Color: green",
            ),
        ],
    )
    def test_titled_choices_are_accepted(
        self, schema: type[BaseModel], content: dict[str, Any], expected: str
    ) -> None:
        """Titled single, titled multi and legacy choices are forms MCP sends."""

        def done(data: dict[str, Any]) -> str:
            if "favorite_colors" in data:
                return f"User: {data['user_name']}, Colors: " + ", ".join(
                    data["favorite_colors"]
                )
            if "favorite_color" in data:
                return f"User: {data['user_name']}, Favorite: {data['favorite_color']}"
            return f"User: {data['user_name']}, Color: {data['color']}"

        server = _served(_asking(schema, done))
        assert asyncio.run(_legacy(server, _reply(_accept(content)))) == expected
        assert (
            form_of(schema.model_json_schema())["properties"]
            == (_mcp_renders(schema)["properties"])
        )

    def test_a_choice_outside_the_titles_is_refused(self) -> None:
        """A value no option has is a schema_violation, nothing spent for it."""
        server = _served(_asking(FavoriteColorSchema, str))
        content = {"user_name": "Eve", "favorite_color": "mauve"}
        rejected = asyncio.run(_modern(server, _accept(content)))
        assert isinstance(rejected, ResumeRejected)
        assert rejected.codes == (ProblemCode.SCHEMA_VIOLATION,)

    def test_literal_fields_render_as_a_spec_enum_schema(self) -> None:
        """Literal and list[Literal] are an enum and a multi-select."""
        seen: list[dict[str, Any]] = []

        def done(data: dict[str, Any]) -> str:
            return f"{data['size']}:{','.join(data['extras'])}"

        server = _served(_asking(LiteralSchema, done))
        content = {"size": "m", "extras": ["a"]}
        assert asyncio.run(_legacy(server, _reply(_accept(content), seen))) == "m:a"
        (requested,) = seen
        props = requested["properties"]
        assert props["size"]["enum"] == ["s", "m", "l"]
        assert props["extras"]["items"]["enum"] == ["a", "b"]


_PRIMITIVES: Final[list[dict[str, JSON]]] = [
    {"type": "string"},
    {"type": "string", "format": "email", "maxLength": 9},
    {"type": "integer", "minimum": 0, "default": 3},
    {"type": "number"},
    {"type": "boolean", "default": False},
    {"type": "string", "enum": ["a", "b"], "default": "a"},
    {"type": "string", "oneOf": [{"const": "a", "title": "A"}]},
    {"type": "array", "items": {"type": "string", "enum": ["a"]}},
    {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}},
]
_REFUSED: Final[list[dict[str, JSON]]] = [
    {"type": "object"},
    {"type": "array", "items": {"type": "integer"}},
    {"type": "string", "pattern": "^a"},
    {"anyOf": [{"type": "integer"}, {"type": "string"}]},
    {"type": "string", "oneOf": [{"const": 1, "title": "One"}]},
    {"type": "integer", "default": "many"},
]


def _property() -> st.SearchStrategy[dict[str, JSON]]:
    """A property schema: one MCP carries, its optional form, or one it refuses."""
    carried = st.sampled_from(_PRIMITIVES)
    optional = carried.map(lambda prop: {"anyOf": [prop, {"type": "null"}]})
    return st.one_of(carried, optional, st.sampled_from(_REFUSED))


def _sent(schema: dict[str, JSON]) -> dict[str, JSON] | None:
    """The form *schema* is sent as, or None when it is refused."""
    try:
        return form_of(schema)
    except FormSchemaError:
        return None


class TestFormLaws:
    """What `form_of` sends is what MCP itself would send."""

    @given(st.dictionaries(st.sampled_from("abcdef"), _property(), max_size=4))
    def test_every_form_sent_is_one_mcp_accepts(
        self, properties: Mapping[str, dict[str, JSON]]
    ) -> None:
        """A form is refused exactly when a property is; MCP accepts every one sent."""
        schema: dict[str, JSON] = {"type": "object", "properties": dict(properties)}
        sent = _sent(schema)
        refused = any(prop in _REFUSED for prop in properties.values())
        assert (sent is None) == refused
        sent_properties = sent["properties"] if sent is not None else {}
        assert isinstance(sent_properties, dict)
        for prop in sent_properties.values():
            try:
                MCP_PROPERTY.validate_python(prop)
            except ValidationError as error:  # pragma: no cover - the law failing
                pytest.fail(f"MCP refuses {prop!r}: {error}")

    @given(st.sampled_from(_REFUSED))
    def test_what_mcp_cannot_carry_is_never_sent(self, prop: dict[str, JSON]) -> None:
        """A form with any refused property raises, whatever else it holds."""
        schema: dict[str, JSON] = {
            "type": "object",
            "properties": {"ok": {"type": "string"}, "bad": prop},
        }
        with pytest.raises(FormSchemaError) as caught:
            form_of(schema)
        assert all(".bad" in p.path for p in caught.value.problems)
