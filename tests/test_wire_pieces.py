"""`interruption.wire`'s pieces for an adapter's own records and shapes.

`copy_json`, `check_schema`, `describe`, `child_path`, `non_empty` and
`NON_EMPTY`: what the adapters need of the core, public, so that no adapter
imports a private module. Each is the core's own rule, not a copy of it: the
laws below tie each to what the codec and the records do.
"""

from __future__ import annotations

import math

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from interruption import (
    JSON,
    ArgumentTypeError,
    DecodeError,
    FieldError,
    FieldTypeError,
    PayloadError,
    SchemaError,
    Text,
    ToolRequest,
    json_equal,
    json_schema,
    structure,
)
from interruption.wire import (
    NON_EMPTY,
    check_schema,
    child_path,
    copy_json,
    describe,
    non_empty,
)

from tests.strategies import json_scalars, json_values, keys


@attrs.frozen
class Named:
    """An adapter's own record: one name, checked as the library's are."""

    name: str = attrs.field(validator=non_empty, metadata=NON_EMPTY)


def _containers(value: JSON) -> list[object]:
    """Every object and array in *value*, itself included."""
    if isinstance(value, dict):
        return [value, *(c for item in value.values() for c in _containers(item))]
    if isinstance(value, list):
        return [value, *(c for item in value for c in _containers(item))]
    return []


def _plain(value: JSON) -> bool:
    """Whether every container of *value* is exactly a `dict` or a `list`."""
    return all(type(c) is dict or type(c) is list for c in _containers(value))


class TestCopyJson:
    @given(json_values())
    def test_a_copy_is_equal_plain_and_shares_nothing(self, value: JSON) -> None:
        """Law: a record's JSON copies equal, plain, sharing no container."""
        held = ToolRequest("tool", "ref", {"value": value}).input
        copied = copy_json(held)
        assert json_equal(copied, held)
        assert _plain(copied)
        shared = {id(c) for c in _containers(held)} & {
            id(c) for c in _containers(copied)
        }
        assert shared == set()

    def test_a_copy_can_change_and_the_record_does_not(self) -> None:
        """A framework may change what it is handed; the record keeps its own."""
        request = ToolRequest("tool", "ref", {"to": ["ACME"]})
        copied = copy_json(request.input)
        assert isinstance(copied, dict)
        copied["to"] = ["BOB"]
        assert request.input == {"to": ["ACME"]}

    @given(json_scalars())
    def test_a_scalar_is_itself(self, value: JSON) -> None:
        """Law: scalars are immutable, so a scalar's copy is the scalar."""
        assert copy_json(value) is value

    def test_what_is_not_json_is_refused_at_every_path(self) -> None:
        """Values JSON cannot hold are a PayloadError (and a TypeError) naming each."""
        value = {"a": math.nan, "b": [1, {2}], "c": 2**60}
        with pytest.raises(PayloadError) as caught:
            copy_json(value)
        assert isinstance(caught.value, TypeError)
        assert [p.path for p in caught.value.problems] == ["$.a", "$.b[1]", "$.c"]

    def test_what_nests_too_deep_is_refused(self) -> None:
        """A value nested past a record's limit is refused, as a record refuses it."""
        deep: JSON = []
        for _ in range(80):
            deep = [deep]
        with pytest.raises(PayloadError) as caught:
            copy_json(deep)
        assert "levels of nesting" in caught.value.problems[0].expected
        with pytest.raises(PayloadError):
            ToolRequest("tool", "ref", {"deep": deep})


class TestCheckSchema:
    @pytest.mark.parametrize(
        "schema",
        [{}, {"type": "string", "minLength": 3}, {"enum": ["Yes", "No"]}],
    )
    def test_a_schema_that_runs_passes(self, schema: dict[str, JSON]) -> None:
        """A valid, self-contained, linear-time schema raises nothing."""
        assert check_schema(schema) is None  # type: ignore[func-returns-value]

    @pytest.mark.parametrize(
        ("schema", "path"),
        [
            ({"type": 12}, "$.type"),
            ({"$ref": "https://example.com/schema"}, "$"),
            ({"pattern": "(?=a)"}, "$.pattern"),
        ],
    )
    def test_a_schema_that_does_not_run_is_a_schema_error(
        self, schema: dict[str, JSON], path: str
    ) -> None:
        """Invalid, fetching or backtracking schemas are a SchemaError at their path."""
        with pytest.raises(SchemaError) as caught:
            check_schema(schema)
        assert isinstance(caught.value, ValueError)
        assert caught.value.path == path

    def test_a_schema_that_is_not_json_is_a_payload_error(self) -> None:
        """A schema holding what JSON cannot is a PayloadError, never a crash."""
        with pytest.raises(PayloadError) as caught:
            check_schema({"maximum": math.inf, "items": {"const": {1, 2}}})  # type: ignore[dict-item]
        assert [p.path for p in caught.value.problems] == [
            "$.maximum",
            "$.items.const",
        ]

    def test_a_schema_that_is_not_a_mapping_is_an_argument_type_error(self) -> None:
        """A list where a schema belongs is refused by type, naming what it got."""
        with pytest.raises(ArgumentTypeError) as caught:
            check_schema([{"type": "string"}])  # type: ignore[arg-type]
        assert caught.value.got == "an array"

    def test_a_mapping_that_is_not_a_dict_is_checked(self) -> None:
        """Any mapping is taken: its items are what is checked."""
        with pytest.raises(SchemaError):
            check_schema(_Schema({"type": 12}))


class _Schema(dict[str, JSON]):
    """A mapping of another type than `dict`."""


class TestDescribe:
    @pytest.mark.parametrize(
        ("value", "words"),
        [
            (None, "null"),
            (True, "true"),
            (False, "false"),
            (5, "5"),
            (2.5, "2.5"),
            ("yes", "'yes'"),
            ("x" * 60, "'" + "x" * 35 + "...'"),
            (2**200, "an integer of 201 bits"),
            ({"a": 1}, "an object"),
            ([1], "an array"),
            ({1}, "a set"),
            (object(), "an object"),
        ],
    )
    def test_words_for_a_value(self, value: object, words: str) -> None:
        """Scalars as short JSON, containers and other objects as a noun."""
        assert describe(value) == words

    @given(json_scalars().filter(lambda value: not isinstance(value, str)))
    def test_the_codecs_own_words(self, value: JSON) -> None:
        """Law: a field given the wrong value names it as `describe` does."""
        with pytest.raises(DecodeError) as caught:
            structure({"type": "text", "text": value}, Text)
        assert caught.value.problems[0].got == describe(value)


class TestChildPath:
    @pytest.mark.parametrize(
        ("path", "key", "extended"),
        [
            ("$", 0, "$[0]"),
            ("$.a", 2, "$.a[2]"),
            ("$", "name", "$.name"),
            ("$.a", "two words", '$.a["two words"]'),
            ("$", "1x", '$["1x"]'),
            ("$", 'say "hi"', '$["say \\"hi\\""]'),
        ],
    )
    def test_one_step(self, path: str, key: str | int, extended: str) -> None:
        """An index in brackets, an identifier after a dot, any other key as JSON."""
        assert child_path(path, key) == extended

    @given(keys().filter(lambda key: key not in {"type", "text"}))
    def test_the_codecs_own_paths(self, key: str) -> None:
        """Law: an unknown field is reported at the path `child_path` writes."""
        with pytest.raises(DecodeError) as caught:
            structure({"type": "text", "text": "hi", key: 1}, Text)
        assert caught.value.problems[0].path == child_path("$", key)


class TestNonEmpty:
    @given(st.text(st.characters(exclude_categories=["Cs"]), min_size=1))
    def test_a_name_is_kept(self, name: str) -> None:
        """Law: any non-empty string of valid Unicode is a name."""
        assert Named(name).name == name

    def test_an_empty_name_is_a_field_error(self) -> None:
        """An empty string is refused at construction, naming the field."""
        with pytest.raises(FieldError) as caught:
            Named("")
        assert (caught.value.path, caught.value.expected) == (
            "$.name",
            "a non-empty string",
        )

    def test_a_name_of_another_type_is_a_field_type_error(self) -> None:
        """A non-string is refused as a TypeError, in the codec's words."""
        with pytest.raises(FieldTypeError) as caught:
            Named(5)  # type: ignore[arg-type]
        assert isinstance(caught.value, TypeError)
        assert caught.value.got == "5"

    def test_a_lone_surrogate_is_a_payload_error(self) -> None:
        """A string no JSON text can carry is refused at the field's path."""
        with pytest.raises(PayloadError) as caught:
            Named("\ud800")
        assert caught.value.problems[0].path == "$.name"

    def test_decoding_reports_the_field(self) -> None:
        """The codec reports an empty name as a DecodeError at its path."""
        with pytest.raises(DecodeError) as caught:
            structure({"name": ""}, Named)
        assert caught.value.path == "$.name"
        assert caught.value.problems[0].expected == "a non-empty string"

    def test_the_schema_says_non_empty(self) -> None:
        """`NON_EMPTY` puts ``minLength: 1`` in the record's JSON Schema."""
        schema = json_schema(Named)
        defs = schema["$defs"]
        assert isinstance(defs, dict)
        (record,) = defs.values()
        assert isinstance(record, dict)
        properties = record["properties"]
        assert isinstance(properties, dict)
        assert properties["name"] == {"type": "string", "minLength": 1}
