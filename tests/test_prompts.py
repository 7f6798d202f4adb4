from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from interruption import (
    Confirm,
    DecodeError,
    Input,
    Prompt,
    dumps,
    loads,
    structure,
    unstructure,
)
from interruption.schemas import conforms


class TestConfirm:
    def test_defaults(self) -> None:
        """Choices default to Yes / No; closing the dialog means the last one."""
        prompt = Confirm("Invoice", "Pay INV-7 today?")
        assert prompt.choices == ("Yes", "No")
        assert prompt.default_answer == "No"
        assert prompt.answer_schema == {"enum": ["Yes", "No"]}
        assert conforms(prompt.default_answer, prompt.answer_schema)
        assert not conforms("Maybe", prompt.answer_schema)

    @given(choices=st.lists(st.text(min_size=1), min_size=2, max_size=5, unique=True))
    def test_the_default_answer_is_the_last_choice(self, choices: list[str]) -> None:
        """The default answer is a string, the last choice, and fits the schema."""
        prompt = Confirm("Invoice", "Pay?", choices)
        assert type(prompt.default_answer) is str
        assert prompt.default_answer == choices[-1]
        assert conforms(prompt.default_answer, prompt.answer_schema)

    def test_wire_form(self) -> None:
        """A confirmation is tagged "confirm" and round-trips."""
        prompt = Confirm("Invoice", "Pay?", ["Pay", "Wait", "Never"])
        assert unstructure(prompt) == {
            "type": "confirm",
            "title": "Invoice",
            "text": "Pay?",
            "choices": ["Pay", "Wait", "Never"],
        }
        assert loads(dumps(prompt), Confirm) == prompt

    @pytest.mark.parametrize("choices", [("Yes",), ("Yes", "Yes"), ("Yes", ""), ()])
    def test_choices_are_two_distinct_texts(self, choices: tuple[str, ...]) -> None:
        """Fewer than two, repeated or empty choices are refused."""
        with pytest.raises(ValueError, match="choices"):
            Confirm("t", "q", choices)

    def test_choices_are_strings(self) -> None:
        """A choice that is not a string is a TypeError."""
        with pytest.raises(TypeError, match="choices"):
            Confirm("t", "q", ("Yes", 1))  # type: ignore[arg-type]

    def test_title_and_text_are_required(self) -> None:
        """Empty title or text is refused."""
        with pytest.raises(ValueError, match="title"):
            Confirm("", "q")
        with pytest.raises(DecodeError):
            structure({"type": "confirm", "title": "t", "text": ""}, Confirm)


class TestInput:
    def test_defaults(self) -> None:
        """An input's answer is a string; closing the dialog means ""."""
        prompt = Input("Memo", "What for?")
        assert prompt.placeholder is None
        assert prompt.default_answer == ""
        assert prompt.answer_schema == {"type": "string"}
        assert conforms(prompt.default_answer, prompt.answer_schema)

    def test_round_trip(self) -> None:
        """An input prompt is tagged "input" and round-trips."""
        prompt = Input("Memo", "What for?", "e.g. INV-7")
        assert unstructure(prompt)["type"] == "input"  # type: ignore[index, call-overload]
        assert loads(dumps(prompt), Input) == prompt


class TestPrompt:
    def test_the_union_decodes_by_tag(self) -> None:
        """The Prompt union picks its member by the "type" tag."""
        prompt: Prompt = Input("Memo", "What for?")
        decoded: object = structure(unstructure(prompt), Prompt)  # type: ignore[arg-type]
        assert decoded == prompt
