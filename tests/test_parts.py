from __future__ import annotations

import pytest
from interruption import (
    DecodeError,
    Message,
    PayloadError,
    Role,
    Text,
    ToolRequest,
    ToolResponse,
    dumps,
    loads,
    unstructure,
)


@pytest.fixture(name="message")
def _message() -> Message:
    return Message(
        Role.MODEL,
        [
            Text("Paying. "),
            ToolRequest("transfer_money", "call-1", {"to": "ACME", "amount": 5}),
            Text("Asking."),
            ToolRequest("ask_user", input={"question": "?"}),
        ],
    )


class TestRole:
    def test_values(self) -> None:
        """The roles are the design's four words."""
        assert [role.value for role in Role] == ["system", "user", "model", "tool"]


class TestText:
    def test_wire_form(self) -> None:
        """A text part is tagged "text"."""
        assert unstructure(Text("hi")) == {"type": "text", "text": "hi"}

    def test_text_must_be_a_string(self) -> None:
        """Non-strings are refused."""
        with pytest.raises(TypeError, match=r"^text: expected a string, got 5$"):
            Text(5)  # type: ignore[arg-type]


class TestToolRequest:
    def test_ref_is_optional(self) -> None:
        """A model may leave the ref out; input defaults to null."""
        request = ToolRequest("lookup")
        assert (request.ref, request.input) == (None, None)
        assert loads(dumps(request), ToolRequest) == request

    def test_ref_may_not_be_empty(self) -> None:
        """An empty ref or name is refused."""
        with pytest.raises(ValueError, match="ref"):
            ToolRequest("lookup", "")
        with pytest.raises(ValueError, match="name"):
            ToolRequest("", "r")

    def test_ref_must_be_a_string(self) -> None:
        """A ref that is neither None nor a string is a TypeError naming the field."""
        with pytest.raises(TypeError, match=r"^ref: expected a string, got 5$"):
            ToolRequest("lookup", 5)  # type: ignore[arg-type]

    def test_input_must_be_json(self) -> None:
        """A non-JSON input is a PayloadError at construction."""
        with pytest.raises(PayloadError) as caught:
            ToolRequest("lookup", "r", {"x": {1}})  # type: ignore[dict-item]
        assert caught.value.path == "$.input.x"

    def test_wire_form(self) -> None:
        """A request is tagged "tool_request"."""
        assert unstructure(ToolRequest("t", "r", [1])) == {
            "type": "tool_request",
            "name": "t",
            "ref": "r",
            "input": [1],
        }


class TestToolResponse:
    def test_wire_form_and_round_trip(self) -> None:
        """A response is tagged "tool_response" and round-trips."""
        response = ToolResponse("t", "r", {"ok": True})
        assert unstructure(response) == {
            "type": "tool_response",
            "name": "t",
            "ref": "r",
            "output": {"ok": True},
        }
        assert loads(dumps(response), ToolResponse) == response


class TestMessage:
    def test_parts_become_a_tuple(self, message: Message) -> None:
        """Parts given as a list are kept as a tuple."""
        assert isinstance(message.parts, tuple)

    def test_views(self, message: Message) -> None:
        """Text joins text parts; tool_requests and tool_responses filter."""
        assert message.text == "Paying. Asking."
        assert [r.name for r in message.tool_requests] == ["transfer_money", "ask_user"]
        assert message.tool_responses == ()
        reply = Message(Role.TOOL, (ToolResponse("t", "r", 1),))
        assert reply.tool_responses == (ToolResponse("t", "r", 1),)
        assert reply.text == ""

    def test_of_text(self) -> None:
        """of_text makes a one-part message."""
        assert Message.of_text(Role.USER, "hi") == Message(Role.USER, (Text("hi"),))

    def test_round_trip(self, message: Message) -> None:
        """A message of mixed parts survives dumps and loads."""
        assert loads(dumps(message), Message) == message

    def test_unknown_part_tags_are_refused(self) -> None:
        """A part with an unknown tag is a DecodeError at its path."""
        raw = '{"role": "user", "parts": [{"type": "image", "url": "x"}]}'
        with pytest.raises(DecodeError) as caught:
            loads(raw, Message)
        assert caught.value.path == "$.parts[0].type"

    def test_unknown_roles_are_refused(self) -> None:
        """A role outside the four is a DecodeError."""
        with pytest.raises(DecodeError) as caught:
            loads('{"role": "admin", "parts": []}', Message)
        assert caught.value.path == "$.role"
