"""Typed payloads for asking a human: a confirmation, or a line of input.

Each prompt is a tagged record (``{"type": "confirm", ...}``) a tool can use
as an interrupt payload, declares the JSON Schema of its answer, and the
answer that stands when the human closes the dialog or it expires::

    payload = unstructure(Confirm("Invoice", "Pay INV-7 today?"))
    prompt = pending.payload_as(Confirm)
"""

from __future__ import annotations

from typing import ClassVar, Literal, TypeAlias, final

import attrs

from interruption._json import JSON
from interruption._validators import NON_EMPTY, non_empty, wrong_type
from interruption.errors import FieldError

__all__ = ["Confirm", "Input", "Prompt"]


def _choices(value: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    choices = tuple(value)
    for choice in choices:
        if not isinstance(choice, str):
            raise wrong_type("choices", "strings", choice)
    return choices


def _valid_choices(
    _instance: object,
    attribute: attrs.Attribute[tuple[str, ...]],
    value: tuple[str, ...],
) -> None:
    texts = set(value) - {""}
    if len(value) < 2 or len(texts) != len(value):
        raise FieldError(
            attribute.name, "at least two distinct non-empty strings", repr(value)
        )


@final
@attrs.frozen
class Confirm:
    """Ask the human to pick one of a few choices.

    The answer is one of *choices*; closing the dialog means the last one.

    Attributes:
        title: A short heading.
        text: The question.
        choices: What the human may answer, ``("Yes", "No")`` by default.
    """

    tag: ClassVar[Literal["confirm"]] = "confirm"

    title: str = attrs.field(validator=non_empty, metadata=NON_EMPTY)
    text: str = attrs.field(validator=non_empty, metadata=NON_EMPTY)
    choices: tuple[str, ...] = attrs.field(
        default=("Yes", "No"),
        converter=_choices,
        validator=_valid_choices,
        metadata={"json_schema": {"minItems": 2, "uniqueItems": True}},
    )

    @property
    def answer_schema(self) -> dict[str, JSON]:
        """The JSON Schema of an answer: one of the choices."""
        return {"enum": list(self.choices)}

    @property
    def default_answer(self) -> str:
        """The answer when the human closes the dialog or it expires."""
        return self.choices[-1]


@final
@attrs.frozen
class Input:
    """Ask the human for a line of text.

    The answer is a string; closing the dialog means ``""``.

    Attributes:
        title: A short heading.
        text: The question.
        placeholder: A hint shown in the empty field, or None.
    """

    tag: ClassVar[Literal["input"]] = "input"

    title: str = attrs.field(validator=non_empty, metadata=NON_EMPTY)
    text: str = attrs.field(validator=non_empty, metadata=NON_EMPTY)
    placeholder: str | None = None

    @property
    def answer_schema(self) -> dict[str, JSON]:
        """The JSON Schema of an answer: a string."""
        return {"type": "string"}

    @property
    def default_answer(self) -> str:
        """The answer when the human closes the dialog or it expires."""
        return ""


Prompt: TypeAlias = Confirm | Input
"""A prompt payload; narrow it with ``match``."""
