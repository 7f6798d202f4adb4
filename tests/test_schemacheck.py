from __future__ import annotations

import pytest
from interruption import JSON, Mismatch
from interruption._schemacheck import conforms, schema_mismatches


class TestSchemaMismatches:
    @pytest.mark.parametrize(
        ("value", "schema", "expected"),
        [
            (
                True,
                {"type": "integer"},
                Mismatch("$", "a value of type integer", "true"),
            ),
            (2, {"enum": [1]}, Mismatch("$", "one of 1", "2")),
            (2, {"const": 1}, Mismatch("$", "1", "2")),
            (
                {},
                {"required": ["a"]},
                Mismatch("$.a", "a required property", "nothing"),
            ),
            (
                {"a": 1, "b": 2},
                {"properties": {"a": {}}, "additionalProperties": False},
                Mismatch("$.b", "no such property", "2"),
            ),
            ("", {"minLength": 1}, Mismatch("$", "minLength 1", "''")),
            (
                [1, "x"],
                {"items": {"type": "integer"}},
                Mismatch("$[1]", "a value of type integer", "'x'"),
            ),
        ],
    )
    def test_words_each_keyword(
        self, value: JSON, schema: dict[str, JSON], expected: Mismatch
    ) -> None:
        """Each failing keyword is worded as path, expected and got."""
        assert schema_mismatches(value, schema) == [expected]

    def test_valid_values_have_no_mismatches(self) -> None:
        """A conforming value, the empty schema and the null schema pass fast."""
        assert schema_mismatches(1, {"type": "integer"}, "$.x") == []
        assert conforms({"any": [1]}, {})
        assert conforms(None, {"type": "null"})
        assert not conforms(0, {"type": "null"})

    def test_integers_as_json(self) -> None:
        """1.0 is an integer and true is not, as JSON Schema says."""
        assert conforms(1.0, {"type": "integer"})
        true: JSON = True
        assert not conforms(true, {"type": "integer"})
        assert not conforms(1, {"enum": [True]})
