import json
import types
import typing
from pathlib import Path

import attrs
import pytest
from interruption import JSON, Interrupted, ResumeRejected, json_schema
from interruption._converter import InterruptedWire, ResumeRejectedWire
from interruption._json import FIELD_NESTING, is_json_type
from interruption._published_schemas import WIRE_TYPES, expected_files, render, write
from jsonschema import Draft202012Validator

SCHEMAS = Path(__file__).parent.parent / "schemas"
STALE = "schemas/ is out of date: run `make schemas` and commit the result"


@pytest.fixture(name="expected")
def _expected() -> dict[str, str]:
    return expected_files()


class TestPublishedSchemas:
    def test_no_file_is_missing_or_extra(self, expected: dict[str, str]) -> None:
        """schemas/ holds exactly the published schemas."""
        on_disk = sorted(path.name for path in SCHEMAS.glob("*.json"))
        assert on_disk == sorted(expected), STALE

    @pytest.mark.parametrize("name", sorted(expected_files()))
    def test_file_is_up_to_date(self, expected: dict[str, str], name: str) -> None:
        """Each file holds exactly what the code generates today."""
        path = SCHEMAS / name
        assert path.exists(), STALE
        assert path.read_text(encoding="utf-8") == expected[name], STALE

    @pytest.mark.parametrize("name", sorted(expected_files()))
    def test_is_a_draft_2020_12_schema(
        self, expected: dict[str, str], name: str
    ) -> None:
        """Each published schema is valid under the Draft 2020-12 meta-schema."""
        schema = json.loads(expected[name])
        Draft202012Validator.check_schema(schema)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"

    @pytest.mark.parametrize(
        ("name", "document"),
        [
            ("custom.json", {"type": "custom"}),
            ("approval_pending.json", {"type": "approval_pending", "tool_use_id": "t"}),
            (
                "scheduled_pause.json",
                {"type": "scheduled_pause", "phase": "after", "node": "n"},
            ),
            ("interrupted.json", {"kind": {"type": "custom"}, "payload": [1]}),
        ],
    )
    def test_core_schemas_accept_the_wire_forms(
        self, expected: dict[str, str], name: str, document: JSON
    ) -> None:
        """The core's published schemas accept the design's literal wire forms."""
        assert Draft202012Validator(json.loads(expected[name])).is_valid(document)

    def test_interrupted_is_published_as_its_wire_form(
        self, expected: dict[str, str]
    ) -> None:
        """interrupted.json is the schema `json_schema(Interrupted)` gives."""
        assert json.loads(expected["interrupted.json"]) == json_schema(Interrupted)


class TestRender:
    def test_stable_text(self) -> None:
        """A schema is written indented, unescaped, with a final newline."""
        assert render({"title": "é", "type": "object"}) == (
            '{\n  "title": "é",\n  "type": "object"\n}\n'
        )


class TestWrite:
    def test_writes_every_file_once(
        self, tmp_path: Path, expected: dict[str, str]
    ) -> None:
        """Writing reports what changed; writing again changes nothing."""
        target = tmp_path / "out"
        written = write(target)
        assert sorted(path.name for path in written) == sorted(expected)
        assert all(
            (target / name).read_text(encoding="utf-8") == text
            for name, text in expected.items()
        )
        assert write(target) == []

    def test_rewrites_a_stale_file(self, tmp_path: Path) -> None:
        """Only a file whose text differs is written again."""
        write(tmp_path)
        (tmp_path / "custom.json").write_text("{}\n", encoding="utf-8")
        assert write(tmp_path) == [tmp_path / "custom.json"]


_WIRE_FORMS: dict[object, type] = {
    Interrupted: InterruptedWire,
    ResumeRejected: ResumeRejectedWire,
}


def _nesting(tp: object, seen: tuple[object, ...] = ()) -> int:
    """The most containers *tp*'s wire form puts around a JSON field (-1: none)."""
    tp = _WIRE_FORMS.get(tp, tp)
    if is_json_type(tp):
        return 0
    assert tp not in seen, f"{tp!r} nests itself: no bound"
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in {typing.Union, types.UnionType}:
        return max(_nesting(member, seen) for member in args)
    inner = -1
    if origin in {list, tuple, dict}:
        inner = _nesting(args[-1] if origin is dict else args[0], seen)
    elif isinstance(tp, type) and attrs.has(tp):
        hints = typing.get_type_hints(tp)
        fields = attrs.fields(tp)
        nested = (_nesting(hints[field.name], (*seen, tp)) for field in fields)
        inner = max(nested, default=-1)
    return inner + 1 if inner >= 0 else -1


class TestFieldNesting:
    def test_the_constant_is_the_deepest_record(self) -> None:
        """`FIELD_NESTING` is the most containers any wire type puts around JSON."""
        deepest = max(_nesting(cls) for cls in WIRE_TYPES.values())
        assert deepest == FIELD_NESTING

    def test_the_walk_sees_every_shape(self) -> None:
        """Lists, tuples, objects, options and records each count as they nest."""
        assert _nesting(JSON) == 0
        assert _nesting(int) == -1
        assert _nesting(dict[str, tuple[JSON, ...]] | None) == 2
        assert _nesting(Interrupted) == 1
        assert _nesting(ResumeRejected) == -1
