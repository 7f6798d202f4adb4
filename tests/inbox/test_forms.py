"""Forms from JSON Schemas: what each shape becomes, and the read-back law."""

from __future__ import annotations

from typing import Final

import pytest
from hypothesis import given
from hypothesis import strategies as st
from interruption import JSON
from interruption.inbox._forms import MISSING, Field, field_for, read, strict_json

ROOM: Final[dict[str, JSON]] = {
    "type": "object",
    "properties": {
        "nights": {"type": "integer"},
        "price": {"type": "number"},
        "breakfast": {"type": "boolean"},
        "room": {"enum": ["single", "double", 3, None]},
        "name": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "integer"}},
        "address": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
        "extra": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    },
    "required": ["nights", "price", "breakfast", "room", "name", "tags", "address"],
    "additionalProperties": False,
}


def _submitted(field: Field) -> dict[str, str]:
    """What a browser submits for *field* as rendered (its prefilled values)."""
    form: dict[str, str] = {}
    for one in field.walk():
        if one.widget == "boolean":
            if one.checked:
                form[one.name] = "true"
        elif one.widget not in {"object", "null"}:
            form[one.name] = one.value
    return form


_finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
_rooms = st.fixed_dictionaries(
    {
        "nights": st.integers(-(2**53) + 1, 2**53 - 1),
        "price": _finite | st.integers(-1000, 1000),
        "breakfast": st.booleans(),
        "room": st.sampled_from(["single", "double", 3, None]),
        "name": st.text(st.characters(exclude_categories=["Cs", "Cc"])),
        "tags": st.lists(st.integers(-100, 100)),
        "address": st.fixed_dictionaries({"city": st.text(min_size=1)}),
    },
    optional={"extra": st.text() | st.integers(-5, 5)},
)


class TestReadBack:
    @given(_rooms)
    def test_a_prefilled_form_reads_back_as_its_value(
        self, room: dict[str, JSON]
    ) -> None:
        """Rendering a value into fields and reading the form gives it back, typed."""
        field = field_for(ROOM, "f", "Room", prefill=room)
        problems: list[tuple[str, str]] = []
        form = _submitted(field)
        got = read(field, form.get, problems)
        assert problems == []
        assert got == room
        assert type(got) is dict
        assert type(got["breakfast"]) is bool
        assert type(got["nights"]) is int

    @given(st.text(min_size=1).filter(lambda t: t.strip() != ""))
    def test_text_in_a_number_field_is_a_problem_at_its_path(self, text: str) -> None:
        """What is not a number is noted at the field's path, never guessed."""
        field = field_for({"type": "integer"}, "n", "n", path="$.n")
        problems: list[tuple[str, str]] = []
        try:
            expected = int(text.strip())
        except ValueError:
            assert read(field, {"n": text}.get, problems) is MISSING
            assert problems[0][0] == "$.n"
        else:
            assert read(field, {"n": text}.get, problems) == expected


class TestShapes:
    @pytest.mark.parametrize(
        ("schema", "widget"),
        [
            ({"type": "string"}, "text"),
            ({"type": "string", "maxLength": 20}, "text"),
            ({"type": "integer"}, "integer"),
            ({"type": "number"}, "number"),
            ({"type": "boolean"}, "boolean"),
            ({"type": "null"}, "null"),
            ({"enum": ["a", 1]}, "select"),
            ({"enum": [{"a": 1}]}, "json"),
            ({"type": "array", "items": {"type": "string"}}, "lines"),
            ({"type": "array", "items": {"type": "object"}}, "json"),
            ({"type": ["string", "null"]}, "json"),
            ({"type": "object"}, "json"),
            ({"type": "object", "properties": {}, "patternProperties": {}}, "json"),
            ({"type": "object", "properties": {}, "additionalProperties": {}}, "json"),
            ({}, "json"),
            (True, "json"),
        ],
    )
    def test_each_shape_gets_its_widget(self, schema: JSON, widget: str) -> None:
        """Scalars get typed inputs, enum a choice; the rest a JSON editor."""
        assert field_for(schema, "f", "f").widget == widget

    def test_a_reason_is_a_text_area(self) -> None:
        """A long text labelled as a reason gets a text area."""
        assert field_for({"type": "string"}, "f", "Reason").widget == "textarea"

    def test_descriptions_are_hints(self) -> None:
        """A schema's description is shown as the field's hint."""
        assert field_for({"type": "integer", "description": "How many"}, "f", "n").hint

    @pytest.mark.parametrize(
        ("schema", "text", "expected"),
        [
            ({"type": "integer"}, "", MISSING),
            ({"type": "number"}, "2.5", 2.5),
            ({"type": "number"}, "7", 7),
            ({"type": "string"}, "", MISSING),
            ({"enum": ["a", "b"]}, "", MISSING),
            ({}, "", MISSING),
            ({}, '{"a": [1, true]}', {"a": [1, True]}),
            ({"type": "array", "items": {"type": "number"}}, "1\n\n2.5", [1, 2.5]),
        ],
    )
    def test_optional_and_typed_values(
        self, schema: JSON, text: str, expected: object
    ) -> None:
        """An optional empty field is missing; numbers and JSON keep their types."""
        field = field_for(schema, "f", "f", required=False)
        problems: list[tuple[str, str]] = []
        assert read(field, {"f": text}.get, problems) == expected
        assert problems == []

    @pytest.mark.parametrize(
        ("schema", "text"),
        [
            ({"type": "integer"}, ""),
            ({"type": "integer"}, "1.5"),
            ({"type": "number"}, "NaN"),
            ({"type": "number"}, "inf"),
            ({"enum": ["a", "b"]}, '"c"'),
            ({}, "{"),
            ({}, "NaN"),
            ({}, '{"a": 1, "a": 2}'),
            ({"type": "array", "items": {"type": "integer"}}, "1\nx"),
        ],
    )
    def test_unreadable_values_are_problems(self, schema: JSON, text: str) -> None:
        """A required field left empty, or text of the wrong kind, is noted."""
        field = field_for(schema, "f", "f", path="$.f")
        problems: list[tuple[str, str]] = []
        assert read(field, {"f": text}.get, problems) is MISSING
        assert [path for path, _ in problems] == ["$.f"]

    def test_a_long_value_is_cut_short_in_the_message(self) -> None:
        """The message quotes at most 40 characters of what was typed."""
        problems: list[tuple[str, str]] = []
        read(field_for({"type": "integer"}, "f", "f"), {"f": "x" * 100}.get, problems)
        assert "x" * 37 + "..." in problems[0][1]
        assert "x" * 41 not in problems[0][1]

    def test_strict_json(self) -> None:
        """The JSON editor's parser refuses NaN and repeated keys."""
        assert strict_json("[1, 2.0]") == [1, 2.0]
        with pytest.raises(ValueError, match="Infinity"):
            strict_json("Infinity")
        assert repr(MISSING) == "MISSING"


class TestStrictJson:
    """The form's JSON fields are read as the library reads any JSON it is sent."""

    def test_deep_or_overflowing_json_is_a_value_error(self) -> None:
        """Nesting past the wire's depth and 1e400 are refused, never a crash."""
        with pytest.raises(ValueError, match="nested less deeply"):
            strict_json("[" * 200_000)
        with pytest.raises(ValueError, match="overflows"):
            strict_json("1e400")
        with pytest.raises(ValueError, match="twice"):
            strict_json('{"a": 1, "a": 2}')
