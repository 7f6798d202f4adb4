from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from interruption import (
    JSON,
    ApprovalPending,
    DecodeError,
    InterruptionKind,
    Phase,
    structure,
)
from interruption._record_schema import (
    DATETIME_PATTERN,
    DRAFT,
    describe_type,
    schema_of,
)
from interruption.schemas import conforms
from jsonschema import Draft202012Validator


@attrs.frozen
class Point:
    """A point on a page.

    Attributes:
        x: Across.
        y: Down.
    """

    x: int
    y: int


@attrs.frozen
class Undocumented:
    at: tuple[int, str]
    when: datetime
    where: Point | None = None


class TestDescribeType:
    @pytest.mark.parametrize(
        ("tp", "words"),
        [
            (JSON, "a JSON value"),
            (str, "a string"),
            (int, "an integer"),
            (float, "a number"),
            (bool, "true or false"),
            (type(None), "null"),
            (int | None, "an integer or null"),
            (
                InterruptionKind,
                "an object tagged 'custom', 'approval_pending', 'scheduled_pause'",
            ),
            (Literal["a", 2], "one of 'a', 2"),
            (list[int], "an array"),
            (tuple[int, ...], "an array"),
            (dict[str, int], "an object"),
            (Phase, "one of 'before', 'after'"),
            (ApprovalPending, "an object tagged 'approval_pending'"),
            (Point, "an object (Point)"),
        ],
    )
    def test_words(self, tp: object, words: str) -> None:
        """Every field shape is described as it looks on the wire."""
        assert describe_type(tp) == words

    def test_datetime(self) -> None:
        """A date-time is described with an example."""
        assert describe_type(datetime).startswith("an RFC 3339 date-time")


class TestSchemaOf:
    def test_record_with_a_docstring(self) -> None:
        """A record's first docstring paragraph becomes its description."""
        schema = schema_of(Point)
        assert schema == {
            "$schema": DRAFT,
            "$ref": "#/$defs/Point",
            "$defs": {
                "Point": {
                    "type": "object",
                    "title": "Point",
                    "description": "A point on a page.",
                    "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
                    "required": ["x", "y"],
                    "additionalProperties": False,
                }
            },
        }

    def test_record_without_a_docstring(self) -> None:
        """A record without a docstring has no description; nested records are defs."""
        schema = schema_of(Undocumented)
        defs = schema["$defs"]
        assert isinstance(defs, dict)
        assert sorted(defs) == ["Point", "Undocumented"]
        record = defs["Undocumented"]
        assert isinstance(record, dict)
        assert "description" not in record
        assert record["properties"] == {
            "at": {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "minItems": 2,
                "maxItems": 2,
            },
            "when": {
                "type": "string",
                "format": "date-time",
                "pattern": DATETIME_PATTERN,
            },
            "where": {"anyOf": [{"$ref": "#/$defs/Point"}, {"type": "null"}]},
        }
        Draft202012Validator.check_schema(schema)

    @pytest.mark.parametrize(
        ("tp", "schema"),
        [
            (int, {"type": "integer"}),
            (Literal["only"], {"const": "only"}),
            (list[str], {"type": "array", "items": {"type": "string"}}),
        ],
    )
    def test_non_records_have_no_defs(self, tp: type, schema: dict[str, JSON]) -> None:
        """A schema of a plain type is just that type's schema."""
        assert schema_of(tp) == {"$schema": DRAFT, **schema}

    @given(
        moment=st.datetimes(datetime(1000, 1, 1), timezones=st.just(UTC)),  # noqa: DTZ001 - naive bounds
        spelling=st.sampled_from(["T", " ", "t"]),
        zone=st.sampled_from(["Z", "+01:00", "", "z", "+0100"]),
    )
    def test_a_date_times_schema_and_decoder_agree(
        self, moment: datetime, spelling: str, zone: str
    ) -> None:
        """A date-time the schema takes is one the decoder takes, and no other."""
        text = moment.strftime(f"%Y-%m-%d{spelling}%H:%M:%S") + zone
        takes = conforms(text, schema_of(datetime))
        try:
            structure(text, datetime)
        except DecodeError:
            decodes = False
        else:
            decodes = True
        assert takes == decodes == (spelling == "T" and zone in {"Z", "+01:00"})

    def test_aliases(self) -> None:
        """An alias spells a non-record type by a record, under the alias's name."""
        schema = schema_of(list[bytes], aliases={bytes: (Point, "Spot")})
        assert schema["items"] == {"$ref": "#/$defs/Spot"}
        defs = schema["$defs"]
        assert isinstance(defs, dict)
        assert list(defs) == ["Spot"]
