"""Messages and their parts: text, tool requests and tool responses.

On the wire each part is tagged by ``"type"`` like the kinds::

    {"type": "text", "text": "Pay INV-7?"}
    {"type": "tool_request", "name": "transfer_money", "ref": "call-1", "input": {...}}
    {
        "type": "tool_response",
        "name": "transfer_money",
        "ref": "call-1",
        "output": {...},
    }
"""

from __future__ import annotations

import enum
from typing import ClassVar, Literal, TypeAlias, final

import attrs

from interruption._json import JSON
from interruption._validators import (
    NON_EMPTY,
    input_json,
    non_empty,
    optional_non_empty,
    output_json,
    string,
)

__all__ = ["Message", "Part", "Role", "Text", "ToolRequest", "ToolResponse"]


@final
class Role(enum.StrEnum):
    """Who speaks a message."""

    SYSTEM = "system"
    USER = "user"
    MODEL = "model"
    TOOL = "tool"


@final
@attrs.frozen
class Text:
    """Plain text.

    Attributes:
        text: The words.
    """

    tag: ClassVar[Literal["text"]] = "text"

    text: str = attrs.field(validator=string)


@final
@attrs.frozen
class ToolRequest:
    """A model asks for a tool to run.

    Attributes:
        name: The tool's name.
        ref: Identifies this call within the session. A model may leave it
            out; the loop then assigns one, so two calls of one tool are never
            confused.
        input: The tool's input, as JSON.
    """

    tag: ClassVar[Literal["tool_request"]] = "tool_request"

    name: str = attrs.field(validator=non_empty, metadata=NON_EMPTY)
    ref: str | None = attrs.field(
        default=None, validator=optional_non_empty, metadata=NON_EMPTY
    )
    input: JSON = attrs.field(default=None, converter=input_json)


@final
@attrs.frozen
class ToolResponse:
    """A tool's result, answering the request with the same ``ref``.

    Attributes:
        name: The tool's name.
        ref: The ``ref`` of the request it answers.
        output: The result, as JSON.
    """

    tag: ClassVar[Literal["tool_response"]] = "tool_response"

    name: str = attrs.field(validator=non_empty, metadata=NON_EMPTY)
    ref: str = attrs.field(validator=non_empty, metadata=NON_EMPTY)
    output: JSON = attrs.field(converter=output_json)


Part: TypeAlias = Text | ToolRequest | ToolResponse
"""A message part; narrow it with ``match``."""


def _parts(value: tuple[Part, ...] | list[Part]) -> tuple[Part, ...]:
    return tuple(value)


@final
@attrs.frozen
class Message:
    """One message of a conversation.

    Attributes:
        role: Who speaks.
        parts: What is said, in order.
    """

    role: Role
    parts: tuple[Part, ...] = attrs.field(converter=_parts)

    @classmethod
    def of_text(cls, role: Role, text: str) -> Message:
        """Build a message of one text part.

        Args:
            role: Who speaks.
            text: The words.

        Returns:
            The message.
        """
        return cls(role, (Text(text),))

    @property
    def text(self) -> str:
        """The message's text parts, joined."""
        return "".join(part.text for part in self.parts if isinstance(part, Text))

    @property
    def tool_requests(self) -> tuple[ToolRequest, ...]:
        """The message's tool requests, in order."""
        return tuple(part for part in self.parts if isinstance(part, ToolRequest))

    @property
    def tool_responses(self) -> tuple[ToolResponse, ...]:
        """The message's tool responses, in order."""
        return tuple(part for part in self.parts if isinstance(part, ToolResponse))
