from __future__ import annotations

import contextlib
import json
import math
from datetime import UTC, datetime, timedelta, timezone
from typing import ClassVar, Literal

import attrs
import cattrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from interruption import (
    JSON,
    ApprovalPending,
    ArgumentTypeError,
    Custom,
    DecodeError,
    Interrupted,
    InterruptedTurn,
    InterruptionKind,
    Message,
    Mismatch,
    PayloadError,
    PendingInterrupt,
    Phase,
    Respond,
    Restart,
    Resume,
    Role,
    ScheduledPause,
    Text,
    dumps,
    json_schema,
    loads,
    structure,
    unstructure,
    wire,
)
from interruption._converter import _detailed, converter, mismatches
from interruption._json import DOCUMENT_DEPTH, MAX_DEPTH, describe, owned
from interruption._validators import non_empty, optional_string, payload_json
from interruption.wire import MAX_BYTES
from jsonschema import Draft202012Validator

from tests.strategies import (
    ANY_KIND,
    TAGS,
    Corruption,
    corruptions,
    json_values,
    kinds,
    records,
    texts,
    wire_values,
)

ONE_OF_TAGS = "one of 'custom', 'approval_pending', 'scheduled_pause'"
A_KIND = "an object tagged 'custom', 'approval_pending', 'scheduled_pause'"
A_KIND_OR_NULL = (
    "an object tagged 'custom' or an object tagged 'approval_pending' "
    "or an object tagged 'scheduled_pause' or null"
)
CUSTOM = '{"kind": {"type": "custom"}, "payload": '
PART_TAGS = ("text", "tool_request", "tool_response")
ONE_OF_PARTS = "one of 'text', 'tool_request', 'tool_response'"
PENDING = (
    '{"id": "c", "kind": {"type": TAG}, "payload": null, "tool": null,'
    ' "accepts": {"respond": null, "restart": null, "replace_input": null}}'
)
TURN = (
    '{"session": "s", "turn_id": 1, "messages": [MESSAGE], "interrupts": [PENDING],'
    ' "completed": [], "created_at": "2024-01-01T00:00:00Z"}'
)
TAGGED_PLACES = [
    ('{"type": TAG}', ANY_KIND, "$.type", ONE_OF_TAGS),
    ('{"kind": {"type": TAG}, "payload": 1}', Interrupted, "$.kind.type", ONE_OF_TAGS),
    (PENDING, PendingInterrupt, "$.kind.type", ONE_OF_TAGS),
    (
        '{"role": "user", "parts": [{"type": TAG}]}',
        Message,
        "$.parts[0].type",
        ONE_OF_PARTS,
    ),
    (
        TURN.replace("MESSAGE", '{"role": "user", "parts": [{"type": TAG}]}').replace(
            "PENDING", PENDING.replace("TAG", '"custom"')
        ),
        InterruptedTurn,
        "$.messages[0].parts[0].type",
        ONE_OF_PARTS,
    ),
    (
        TURN.replace("MESSAGE", '{"role": "user", "parts": []}').replace(
            "PENDING", PENDING
        ),
        InterruptedTurn,
        "$.interrupts[0].kind.type",
        ONE_OF_TAGS,
    ),
    ('{"type": TAG}', Custom, "$.type", "one of 'custom'"),
    ('{"type": TAG, "text": "hi"}', Text, "$.type", "one of 'text'"),
]
"""Every place a tag picks a record: the document, its type, the tag's path, words."""


@attrs.frozen(slots=False)
class Unslotted:
    """A record kept in a ``__dict__``, not in slots.

    Attributes:
        name: A name.
        count: A count.
    """

    name: str
    count: int = 0


class TestUnslotted:
    def test_a_record_without_slots_decodes(self) -> None:
        """A record kept in a __dict__ decodes, every field set, defaults too."""
        assert structure({"name": "a", "count": 2}, Unslotted) == Unslotted("a", 2)
        assert loads('{"name": "a"}', Unslotted) == Unslotted("a")


@attrs.frozen
class Everything:
    """A record of every field shape the codec supports."""

    s: str
    i: int
    f: float
    b: bool
    items: list[int]
    names: tuple[str, ...]
    counts: dict[str, int]
    maybe: int | None
    lit: Literal["a", 1]
    phase: Phase
    kinds: list[InterruptionKind]
    kind: InterruptionKind | None
    data: JSON
    pause: Interrupted | None = None
    note: str = "-"


EVERYTHING: JSON = {
    "s": "a",
    "i": 1,
    "f": 1.5,
    "b": True,
    "items": [1, 2],
    "names": ["x"],
    "counts": {"a": 1},
    "maybe": None,
    "lit": 1,
    "phase": "after",
    "kinds": [{"type": "custom"}, {"type": "approval_pending", "tool_use_id": "t"}],
    "kind": None,
    "data": {"z": [1, None]},
    "pause": {"kind": {"type": "custom"}, "payload": [1]},
    "note": "-",
}

WIRE = [
    (Custom(), {"type": "custom"}),
    (ApprovalPending("tu-1"), {"type": "approval_pending", "tool_use_id": "tu-1"}),
    (
        ScheduledPause(Phase.BEFORE, "charge"),
        {"type": "scheduled_pause", "phase": "before", "node": "charge"},
    ),
    (
        ScheduledPause(Phase.AFTER, "ship"),
        {"type": "scheduled_pause", "phase": "after", "node": "ship"},
    ),
    (
        Interrupted(ApprovalPending("tu-1"), {"tool": "transfer_money", "amount": 125}),
        {
            "kind": {"type": "approval_pending", "tool_use_id": "tu-1"},
            "payload": {"tool": "transfer_money", "amount": 125},
        },
    ),
    (
        Interrupted(Custom()),
        {"kind": {"type": "custom"}, "payload": None},
    ),
]


def _problems(data: str | bytes, cls: type[object]) -> list[tuple[str, str, str]]:
    with pytest.raises(DecodeError) as caught:
        loads(data, cls)
    assert isinstance(caught.value, ValueError)
    return [(p.path, p.expected, p.got) for p in caught.value.problems]


def _is_valid(document: JSON, cls: type[object]) -> bool:
    return Draft202012Validator(json_schema(cls)).is_valid(document)


class TestDumps:
    @pytest.mark.parametrize(("value", "document"), WIRE)
    def test_wire_form(self, value: object, document: JSON) -> None:
        """Kinds and pauses are spelled exactly as the design says."""
        assert json.loads(dumps(value)) == document

    def test_compact_text(self) -> None:
        """The text is compact, fields in declaration order after the tag."""
        assert dumps(ScheduledPause(Phase.BEFORE, "charge")) == (
            '{"type":"scheduled_pause","phase":"before","node":"charge"}'
        )
        assert dumps(Interrupted(ApprovalPending("tu-1"), {"q": "é"})) == (
            '{"kind":{"type":"approval_pending","tool_use_id":"tu-1"},"payload":{"q":"é"}}'
        )

    @pytest.mark.usefixtures("parser")
    @given(wire_values())
    def test_round_trip(self, value: InterruptionKind | Interrupted) -> None:
        """Every kind and pause decodes back from its text to an equal value."""
        assert loads(dumps(value), type(value)) == value

    @pytest.mark.usefixtures("parser")
    @given(kinds())
    def test_kinds_round_trip_through_the_union(self, kind: InterruptionKind) -> None:
        """A kind decodes into the union by its tag."""
        decoded = loads(dumps(kind), ANY_KIND)
        assert decoded == kind
        assert type(decoded) is type(kind)


@attrs.frozen
class Unchecked:
    """A caller's own record: fields without validators."""

    name: str
    data: JSON = None


class TestDumpsRefusesWhatJSONCannot:
    @pytest.mark.usefixtures("parser")
    @pytest.mark.parametrize(
        ("record", "path"),
        [
            (Unchecked("\ud800"), "$.name"),
            (Unchecked("n", {"k": "x\udfff"}), "$.data.k"),
        ],
    )
    def test_a_lone_surrogate_with_and_without_orjson(
        self, record: Unchecked, path: str
    ) -> None:
        """A lone surrogate is a PayloadError at its path, never a bare TypeError."""
        with pytest.raises(PayloadError) as caught:
            dumps(record)
        assert (caught.value.path, caught.value.expected) == (
            path,
            "a string of valid Unicode",
        )

    @pytest.mark.parametrize(
        ("data", "path", "expected"),
        [
            ({1: "x"}, "$.data", "object keys that are strings"),
            ([2**70], "$.data[0]", "an integer within"),
        ],
    )
    def test_what_orjson_refuses(self, data: object, path: str, expected: str) -> None:
        """What orjson refuses to write is a PayloadError naming the path."""
        with pytest.raises(PayloadError) as caught:
            dumps(Unchecked("n", data))  # type: ignore[arg-type]
        assert caught.value.path == path
        assert caught.value.expected.startswith(expected)

    @pytest.mark.usefixtures("parser")
    @given(texts(min_size=0) | st.text(st.characters(categories=["Cs"]), min_size=1))
    def test_whatever_dumps_writes_is_utf8(self, text: str) -> None:
        """Text dumps returns always encodes as UTF-8, and reads back equal."""
        try:
            written = dumps(Unchecked(text))
        except PayloadError:
            return
        assert loads(written.encode("utf-8"), Unchecked) == Unchecked(text)

    def test_an_unexpected_encoder_error_keeps_its_words(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """An encoder error on a JSON value still surfaces as a PayloadError."""

        def refuse(_value: JSON) -> str:
            msg = "no"
            raise ValueError(msg)

        monkeypatch.setattr(wire, "ENCODE", refuse)
        with pytest.raises(PayloadError, match="ValueError: no"):
            dumps(Unchecked("n"))


class TestUnstructure:
    @pytest.mark.parametrize(("value", "document"), WIRE)
    def test_wire_form(self, value: object, document: JSON) -> None:
        """The in-memory wire form is the same plain JSON."""
        assert unstructure(value) == document

    def test_payload_is_passed_through(self) -> None:
        """The payload of a pause is put on the wire as the pause holds it."""
        payload: JSON = {"a": [1, 2.5, None, True]}
        pause = Interrupted(Custom(), payload)
        document = unstructure(pause)
        assert isinstance(document, dict)
        assert document["payload"] is pause.payload
        assert document["payload"] == payload

    def test_every_field_shape(self) -> None:
        """Records of lists, tuples, maps, unions and JSON unstructure to JSON."""
        assert unstructure(structure(EVERYTHING, Everything)) == EVERYTHING

    @given(wire_values())
    def test_the_schema_accepts_it(self, value: InterruptionKind | Interrupted) -> None:
        """The published schema accepts every value's wire form."""
        assert _is_valid(unstructure(value), type(value))

    @given(kinds())
    def test_the_union_schema_accepts_kinds(self, kind: InterruptionKind) -> None:
        """The union's schema accepts every kind."""
        assert _is_valid(unstructure(kind), ANY_KIND)


class TestLoads:
    @pytest.mark.usefixtures("parser")
    @pytest.mark.parametrize(("value", "document"), WIRE)
    def test_wire_form(self, value: object, document: JSON) -> None:
        """The literal wire documents decode to the values."""
        assert loads(json.dumps(document), type(value)) == value
        assert loads(json.dumps(document).encode(), type(value)) == value

    @pytest.mark.parametrize(
        ("document", "kind"),
        [
            ('{"type": "custom"}', Custom()),
            (
                '{"tool_use_id": "tu-1", "type": "approval_pending"}',
                ApprovalPending("tu-1"),
            ),
            (
                '{"node": "charge", "phase": "after", "type": "scheduled_pause"}',
                ScheduledPause(Phase.AFTER, "charge"),
            ),
        ],
    )
    def test_union_by_tag_in_any_position(
        self, document: str, kind: InterruptionKind
    ) -> None:
        """The tag picks the kind wherever it appears in the object."""
        assert loads(document, ANY_KIND) == kind

    @pytest.mark.parametrize(
        ("document", "cls", "problems"),
        [
            (
                '{"type": "paused"}',
                ANY_KIND,
                [("$.type", ONE_OF_TAGS, "'paused'")],
            ),
            (
                '{"tool_use_id": "tu-1"}',
                ANY_KIND,
                [("$.type", "a tag, " + ONE_OF_TAGS, "nothing")],
            ),
            (
                '{"type": 1}',
                ANY_KIND,
                [("$.type", ONE_OF_TAGS, "1")],
            ),
            (
                '{"type": "custom", "tool_use_id": "tu-1"}',
                ApprovalPending,
                [("$.type", "one of 'approval_pending'", "'custom'")],
            ),
            (
                '{"tool_use_id": "tu-1"}',
                ApprovalPending,
                [("$.type", "a tag, one of 'approval_pending'", "nothing")],
            ),
            (
                '{"type": true}',
                Custom,
                [("$.type", "one of 'custom'", "true")],
            ),
            (
                '{"type": "custom", "note": "x"}',
                ANY_KIND,
                [("$.note", "only the fields type", "unknown field 'note'")],
            ),
            (
                '{"type": "approval_pending"}',
                ApprovalPending,
                [("$.tool_use_id", "a string", "nothing")],
            ),
            (
                '{"type": "approval_pending", "tool_use_id": 123}',
                ApprovalPending,
                [("$.tool_use_id", "a string", "123")],
            ),
            (
                '{"type": "approval_pending", "tool_use_id": ""}',
                ApprovalPending,
                [("$.tool_use_id", "a non-empty string", "''")],
            ),
            (
                '{"type": "scheduled_pause", "phase": "during", "node": "charge"}',
                ScheduledPause,
                [("$.phase", "one of 'before', 'after'", "'during'")],
            ),
            (
                '{"type": "scheduled_pause", "phase": 0, "node": "charge"}',
                ScheduledPause,
                [("$.phase", "one of 'before', 'after'", "0")],
            ),
            (
                '["custom"]',
                ANY_KIND,
                [("$", A_KIND, "an array")],
            ),
            ("null", Custom, [("$", "an object (Custom)", "null")]),
            ("3", Interrupted, [("$", "an object (Interrupted)", "3")]),
            (
                '{"kind": {"type": "custom"}}',
                Interrupted,
                [("$.payload", "a JSON value", "nothing")],
            ),
            (
                '{"payload": 1}',
                Interrupted,
                [("$.kind", A_KIND, "nothing")],
            ),
            (
                '{"kind": "custom", "payload": 1}',
                Interrupted,
                [("$.kind", A_KIND, "'custom'")],
            ),
        ],
    )
    def test_rejects(
        self, document: str, cls: type[object], problems: list[tuple[str, str, str]]
    ) -> None:
        """Unknown tags and fields, missing ones and wrong types are each named."""
        assert _problems(document, cls) == problems

    @pytest.mark.usefixtures("parser")
    @pytest.mark.parametrize(
        "tag", [("[]", "an array"), ('{"type": "custom"}', "an object")]
    )
    @pytest.mark.parametrize(("template", "cls", "path", "expected"), TAGGED_PLACES)
    def test_unhashable_tags(
        self,
        tag: tuple[str, str],
        template: str,
        cls: type[object],
        path: str,
        expected: str,
    ) -> None:
        """An array or object where a tag belongs is named at its path as no tag."""
        text, got = tag
        assert _problems(template.replace("TAG", text), cls) == [(path, expected, got)]

    @given(json_values())
    def test_any_json_as_a_tag(self, tag: JSON) -> None:
        """Any JSON value that is not a tag, in a tag's place, is named as no tag."""
        if tag not in TAGS:
            assert _problems(json.dumps({"type": tag}), ANY_KIND) == [
                ("$.type", ONE_OF_TAGS, describe(tag))
            ]
        if tag not in PART_TAGS:
            message = {"role": "user", "parts": [{"type": tag}]}
            assert _problems(json.dumps(message), Message) == [
                ("$.parts[0].type", ONE_OF_PARTS, describe(tag))
            ]

    def test_every_problem_is_reported(self) -> None:
        """Several problems in one document are all listed, in document order."""
        document = json.dumps(
            {
                "kind": {"type": "scheduled_pause", "phase": "x", "node": 7, "z": 1},
                "payload": 1,
                "extra": True,
            }
        )
        assert _problems(document, Interrupted) == [
            ("$.kind.phase", "one of 'before', 'after'", "'x'"),
            ("$.kind.node", "a string", "7"),
            ("$.kind.z", "only the fields type, phase, node", "unknown field 'z'"),
            ("$.extra", "only the fields kind, payload", "unknown field 'extra'"),
        ]

    def test_message_lists_every_problem(self) -> None:
        """The message of several problems counts them and lists each."""
        with pytest.raises(DecodeError) as caught:
            loads('{"type": "scheduled_pause"}', ScheduledPause)
        assert str(caught.value) == (
            "2 problems:\n"
            "  $.phase: expected one of 'before', 'after', got nothing\n"
            "  $.node: expected a string, got nothing"
        )

    @pytest.mark.usefixtures("parser")
    @pytest.mark.parametrize(
        ("document", "expected"),
        [
            (CUSTOM + "NaN}", "a JSON value (NaN"),
            (CUSTOM + "-Infinity}", "a JSON value (NaN"),
            (CUSTOM + "1e400}", "a finite number"),
            (CUSTOM + "9007199254740992}", "an integer within"),
            (CUSTOM + "1" + "0" * 400 + "}", "an integer within"),
            (
                '{"kind": {"type": "custom"}, ' + CUSTOM[1:] + "2}",
                "object keys that are unique",
            ),
            (
                '{"kind": {"type": "custom", "type": "custom"}, "payload": 1}',
                "object keys that are unique",
            ),
            (CUSTOM + '{"a": [{"b": 1, "b": 2}]}}', "object keys that are unique"),
            (CUSTOM + '"\\udc00"}', "a string of valid Unicode"),
            (CUSTOM + '"\udc00"}', "text of valid Unicode"),
            (CUSTOM.encode() + b'"\xff"}', "UTF-8 bytes"),
            (CUSTOM + "[" * 10**5 + "]" * 10**5 + "}", "a document nested less"),
            (
                CUSTOM + "[" * DOCUMENT_DEPTH + "]" * DOCUMENT_DEPTH + "}",
                f"at most {DOCUMENT_DEPTH} levels",
            ),
            ("{]", "a JSON document"),
        ],
    )
    def test_rejects_what_the_parser_rejects(
        self, document: str | bytes, expected: str
    ) -> None:
        """Malformed JSON, with or without orjson, is a DecodeError and no other."""
        ((_, found, _),) = _problems(document, Interrupted)
        assert found.startswith(expected)

    def test_bytes_and_text_agree(self) -> None:
        """Bytes take loads' in-line path, text the general one: same verdicts."""
        good = dumps(Interrupted(Custom(), {"a": [1]}))
        containers = dumps(Interrupted(Custom(), [[1]] * MAX_DEPTH))
        assert len(containers) <= 1024  # small, with more containers than MAX_DEPTH
        assert containers.count("[") > MAX_DEPTH
        for text in (good, containers, good.replace(",", ", ")):
            assert loads(text.encode(), Interrupted) == loads(text, Interrupted)
        repeated = '{"kind": {"type": "custom"}, "payload": 1, "payload": 2}'
        for text in (good.replace("custom", "nope"), repeated, "[1,]", "[1e400]"):
            with pytest.raises(DecodeError) as from_bytes:
                loads(text.encode(), Interrupted)
            with pytest.raises(DecodeError) as from_text:
                loads(text, Interrupted)
            assert from_bytes.value.problems == from_text.value.problems

    def test_max_bytes(self) -> None:
        """A document over ``max_bytes`` is refused before it is parsed."""
        document = dumps(Interrupted(Custom(), "x" * 100))
        assert loads(document, Interrupted, max_bytes=len(document)).payload
        with pytest.raises(DecodeError) as caught:
            loads(document, Interrupted, max_bytes=len(document) - 1)
        assert (
            caught.value.expected == f"a document of at most {len(document) - 1} bytes"
        )

    def test_default_max_bytes(self) -> None:
        """By default, documents over a mebibyte are refused."""
        document = dumps(Interrupted(Custom(), "x" * MAX_BYTES))
        with pytest.raises(DecodeError, match="at most 1048576 bytes"):
            loads(document, Interrupted)

    def test_max_depth(self) -> None:
        """``max_depth`` bounds the whole document, kind and payload included."""
        document = dumps(Interrupted(Custom(), [[1]]))
        assert loads(document, Interrupted, max_depth=3).payload == [[1]]
        with pytest.raises(DecodeError, match="at most 2 levels"):
            loads(document, Interrupted, max_depth=2)

    def test_payload_deeper_than_a_pause_allows(self) -> None:
        """A larger ``max_depth`` does not let a payload past the pause's own limit."""
        payload = "[" * MAX_DEPTH + "]" * MAX_DEPTH
        document = CUSTOM + "[" + payload + "]}"
        ((path, expected, got),) = _problems_at_depth(document, MAX_DEPTH + 5)
        assert path == "$.payload" + "[0]" * MAX_DEPTH
        assert (expected, got) == (
            f"at most {MAX_DEPTH} levels of nesting",
            "a deeper document",
        )

    @pytest.mark.usefixtures("parser")
    @given(corruptions())
    def test_single_point_corruptions_are_rejected(self, broken: Corruption) -> None:
        """A document broken at one point is a DecodeError at that point's path."""
        with pytest.raises(DecodeError) as caught:
            loads(json.dumps(broken.document), broken.cls)
        found = sorted(problem.path for problem in caught.value.problems)
        assert found == sorted(broken.paths)

    @given(corruptions(kinds()))
    def test_corrupted_kinds_are_rejected_by_the_union(
        self, broken: Corruption
    ) -> None:
        """A broken kind is rejected by the union too, not decoded as another kind."""
        with pytest.raises(DecodeError):
            loads(json.dumps(broken.document), ANY_KIND)

    @given(corruptions())
    def test_codec_and_schema_agree_on_corruptions(self, broken: Corruption) -> None:
        """Whatever single-point break the codec rejects, the schema rejects too."""
        assert not _is_valid(broken.document, broken.cls)

    @given(json_values())
    def test_any_json_is_decoded_or_a_decode_error(self, document: JSON) -> None:
        """Arbitrary JSON yields a value or a DecodeError, as the schema says."""
        text = json.dumps(document)
        for cls in (Interrupted, Custom, ApprovalPending, ScheduledPause, ANY_KIND):
            try:
                decoded = loads(text, cls)
            except DecodeError:
                decodes = False
            else:
                decodes = True
                assert _is_valid(unstructure(decoded), cls)
            assert _is_valid(document, cls) == decodes
        with contextlib.suppress(DecodeError):
            loads(text, Everything)

    @given(
        st.builds(
            dict,
            kind=st.one_of(kinds().map(unstructure), json_values()),
            payload=json_values(),
        )
    )
    def test_codec_and_schema_agree_on_pauses(self, document: JSON) -> None:
        """A pause document decodes exactly when its schema accepts it."""
        try:
            loads(json.dumps(document), Interrupted)
        except DecodeError:
            assert not _is_valid(document, Interrupted)
        else:
            assert _is_valid(document, Interrupted)


def _problems_at_depth(document: str, max_depth: int) -> list[tuple[str, str, str]]:
    with pytest.raises(DecodeError) as caught:
        loads(document, Interrupted, max_depth=max_depth)
    return [(p.path, p.expected, p.got) for p in caught.value.problems]


class TestStructure:
    @given(wire_values())
    def test_round_trip(self, value: InterruptionKind | Interrupted) -> None:
        """Every kind and pause structures back from its wire form."""
        assert structure(unstructure(value), type(value)) == value

    def test_every_field_shape(self) -> None:
        """Lists, tuples, maps, optionals, literals, enums and unions structure."""
        record = structure(EVERYTHING, Everything)
        assert record.names == ("x",)
        assert record.phase is Phase.AFTER
        assert record.kinds == [Custom(), ApprovalPending("t")]
        assert record.pause == Interrupted(Custom(), [1])

    def test_defaults_fill_missing_optional_fields(self) -> None:
        """Fields with defaults may be left out."""
        assert isinstance(EVERYTHING, dict)
        document = {
            key: item
            for key, item in EVERYTHING.items()
            if key not in {"pause", "note"}
        }
        record = structure(document, Everything)
        assert (record.pause, record.note) == (None, "-")

    def test_every_shape_is_strict(self) -> None:
        """Each field shape rejects a wrong value with its own words and path."""
        document: JSON = {
            "s": 1,
            "i": "1",
            "f": "1",
            "b": 1,
            "items": [1, "2", True],
            "names": "x",
            "counts": {"a": "1", "b": 2},
            "maybe": "1",
            "lit": "1",
            "phase": "AFTER",
            "kinds": [{"type": "custom"}, {"type": "x"}, 3],
            "kind": [1],
            "data": {"z": [1]},
            "pause": {"kind": {"type": "custom"}},
            "extra": 1,
        }
        with pytest.raises(DecodeError) as caught:
            structure(document, Everything)
        assert list(caught.value.problems) == [
            Mismatch("$.s", "a string", "1"),
            Mismatch("$.i", "an integer", "'1'"),
            Mismatch("$.f", "a number", "'1'"),
            Mismatch("$.b", "true or false", "1"),
            Mismatch("$.items[1]", "an integer", "'2'"),
            Mismatch("$.items[2]", "an integer", "true"),
            Mismatch("$.names", "an array", "'x'"),
            Mismatch("$.counts.a", "an integer", "'1'"),
            Mismatch("$.maybe", "an integer", "'1'"),
            Mismatch("$.lit", "one of 'a', 1", "'1'"),
            Mismatch("$.phase", "one of 'before', 'after'", "'AFTER'"),
            Mismatch("$.kinds[1].type", ONE_OF_TAGS, "'x'"),
            Mismatch("$.kinds[2]", A_KIND, "3"),
            Mismatch("$.kind", A_KIND_OR_NULL, "an array"),
            Mismatch("$.pause.payload", "a JSON value", "nothing"),
            Mismatch(
                "$.extra",
                "only the fields s, i, f, b, items, names, counts, maybe, lit, "
                "phase, kinds, kind, data, pause, note",
                "unknown field 'extra'",
            ),
        ]

    @pytest.mark.parametrize(
        ("field", "value", "expected"),
        [
            ("f", 1, 1.0),
            ("f", -0.0, -0.0),
            ("i", 1.0, 1),
            ("i", -0.0, 0),
            ("maybe", 3, 3),
            ("lit", "a", "a"),
            ("lit", 1.0, 1),
            ("data", None, None),
        ],
    )
    def test_accepts(self, field: str, value: JSON, expected: object) -> None:
        """Integers are numbers, 1.0 the integer 1 (as JSON Schema reads it)."""
        assert isinstance(EVERYTHING, dict)
        record = structure({**EVERYTHING, field: value}, Everything)
        assert getattr(record, field) == expected

    @pytest.mark.parametrize(
        ("field", "value", "got"),
        [
            ("i", 1.5, "1.5"),
            ("i", 2.0**60, "1.152921504606847e+18"),
            ("i", True, "true"),
            ("b", 0, "0"),
            ("f", True, "true"),
            ("f", None, "null"),
            ("lit", True, "true"),
            ("lit", 1.5, "1.5"),
            ("items", {}, "an object"),
            ("counts", [], "an array"),
            ("s", Phase.AFTER, "'after'"),
        ],
    )
    def test_no_coercion(self, field: str, value: JSON, got: str) -> None:
        """Nothing is coerced: not 1.0 to 1, not true to 1, not 1 to true."""
        assert isinstance(EVERYTHING, dict)
        with pytest.raises(DecodeError) as caught:
            structure({**EVERYTHING, field: value}, Everything)
        assert (caught.value.path, caught.value.got) == (f"$.{field}", got)

    @pytest.mark.parametrize(
        ("data", "problem"),
        [
            (
                {"kind": {"type": "custom"}, "payload": {1, 2}},
                Mismatch("$.payload", "a JSON value", "a set"),
            ),
            (
                {"kind": {"type": "custom"}, "payload": math.nan},
                Mismatch("$.payload", "a finite number", "nan"),
            ),
            (
                {"kind": {"type": "custom"}, "payload": {1: 2}},
                Mismatch("$.payload", "object keys that are strings", "1"),
            ),
            (("custom",), Mismatch("$", "a JSON value", "a tuple")),
        ],
    )
    def test_rejects_values_that_are_not_json(
        self, data: object, problem: Mismatch
    ) -> None:
        """What is not JSON is a DecodeError before it is looked at as a record."""
        with pytest.raises(DecodeError) as caught:
            structure(data, Interrupted)  # type: ignore[arg-type]
        assert caught.value.problems == (problem,)

    def test_max_depth(self) -> None:
        """``max_depth`` bounds the value handed in."""
        value: JSON = {"kind": {"type": "custom"}, "payload": [[1]]}
        assert structure(value, Interrupted, max_depth=3).payload == [[1]]
        with pytest.raises(DecodeError, match="at most 2 levels"):
            structure(value, Interrupted, max_depth=2)


class TestJsonSchema:
    def test_kind_schema(self) -> None:
        """A kind's schema is its tag as a constant and its fields, nothing more."""
        assert json_schema(ApprovalPending) == {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$ref": "#/$defs/ApprovalPending",
            "$defs": {
                "ApprovalPending": {
                    "type": "object",
                    "title": "ApprovalPending",
                    "description": "A tool call is waiting for a human's approval.",
                    "properties": {
                        "type": {"const": "approval_pending"},
                        "tool_use_id": {"type": "string", "minLength": 1},
                    },
                    "required": ["type", "tool_use_id"],
                    "additionalProperties": False,
                }
            },
        }

    def test_interrupted_schema(self) -> None:
        """A pause's schema has the kinds as a tagged union and any JSON payload."""
        schema = json_schema(Interrupted)
        assert schema["$ref"] == "#/$defs/Interrupted"
        defs = schema["$defs"]
        assert isinstance(defs, dict)
        assert sorted(defs) == [
            "ApprovalPending",
            "Custom",
            "Interrupted",
            "ScheduledPause",
        ]
        assert defs["Interrupted"] == {
            "type": "object",
            "title": "Interrupted",
            "description": (
                "A paused dispatch: why it paused, and what the human is shown."
            ),
            "properties": {
                "kind": {
                    "oneOf": [
                        {"$ref": "#/$defs/Custom"},
                        {"$ref": "#/$defs/ApprovalPending"},
                        {"$ref": "#/$defs/ScheduledPause"},
                    ]
                },
                "payload": {},
            },
            "required": ["kind", "payload"],
            "additionalProperties": False,
        }

    def test_every_field_shape(self) -> None:
        """Every supported field shape has a schema, and it accepts a valid value."""
        properties = json_schema(Everything)["$defs"]
        assert isinstance(properties, dict)
        record = properties["Everything"]
        assert isinstance(record, dict)
        assert record["properties"] == {
            "s": {"type": "string"},
            "i": {"type": "integer"},
            "f": {"type": "number"},
            "b": {"type": "boolean"},
            "items": {"type": "array", "items": {"type": "integer"}},
            "names": {"type": "array", "items": {"type": "string"}},
            "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
            "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "lit": {"enum": ["a", 1]},
            "phase": {"enum": ["before", "after"]},
            "kinds": {
                "type": "array",
                "items": {
                    "oneOf": [
                        {"$ref": "#/$defs/Custom"},
                        {"$ref": "#/$defs/ApprovalPending"},
                        {"$ref": "#/$defs/ScheduledPause"},
                    ]
                },
            },
            "kind": {
                "oneOf": [
                    {"$ref": "#/$defs/Custom"},
                    {"$ref": "#/$defs/ApprovalPending"},
                    {"$ref": "#/$defs/ScheduledPause"},
                    {"type": "null"},
                ]
            },
            "data": {},
            "pause": {"anyOf": [{"$ref": "#/$defs/Interrupted"}, {"type": "null"}]},
            "note": {"type": "string"},
        }
        assert record["required"] == [
            "s",
            "i",
            "f",
            "b",
            "items",
            "names",
            "counts",
            "maybe",
            "lit",
            "phase",
            "kinds",
            "kind",
            "data",
        ]
        assert _is_valid(EVERYTHING, Everything)

    @pytest.mark.parametrize(
        "cls", [Custom, ApprovalPending, ScheduledPause, Interrupted, ANY_KIND]
    )
    def test_is_a_valid_draft_2020_12_schema(self, cls: type[object]) -> None:
        """Every schema is itself valid under the Draft 2020-12 meta-schema."""
        Draft202012Validator.check_schema(json_schema(cls))

    def test_unsupported_field_type(self) -> None:
        """A field type with no JSON form is a TypeError, naming the type."""
        with pytest.raises(TypeError, match="<class 'bytes'>, with no JSON Schema"):
            json_schema(_Unsupported)

    def test_unsupported_field_type_is_an_argument_type_error(self) -> None:
        """The refusal is the library's ArgumentTypeError, naming the type."""
        with pytest.raises(ArgumentTypeError) as caught:
            json_schema(_Unsupported)
        error = caught.value
        assert (error.code, error.where, error.expected, error.got) == (
            "argument_type_error",
            "json_schema: a field type",
            "a JSON-ish type",
            "<class 'bytes'>, with no JSON Schema",
        )


@attrs.frozen
class _Unsupported:
    raw: bytes


@attrs.frozen
class Stamped:
    """A record with a date-time and a field that is always null."""

    when: datetime
    nothing: None = None


class TestDatetimes:
    @pytest.mark.parametrize(
        ("text", "utc"),
        [
            ("2026-11-21T23:15:00Z", datetime(2026, 11, 21, 23, 15, tzinfo=UTC)),
            ("2026-11-22T00:15:00+01:00", datetime(2026, 11, 21, 23, 15, tzinfo=UTC)),
        ],
    )
    def test_aware_date_times_decode_to_utc(self, text: str, utc: datetime) -> None:
        """A date-time with an offset decodes to the same instant in UTC."""
        stamped = structure({"when": text}, Stamped)
        assert stamped.when == utc
        assert stamped.when.tzinfo is UTC

    def test_encode_as_utc_with_z(self) -> None:
        """A date-time is written in UTC, with a Z."""
        when = datetime(2026, 11, 22, 0, 15, tzinfo=timezone(timedelta(hours=1)))
        assert unstructure(Stamped(when)) == {
            "when": "2026-11-21T23:15:00Z",
            "nothing": None,
        }

    @pytest.mark.parametrize(
        ("value", "got"),
        [
            ("2026-11-21T23:15:00", "'2026-11-21T23:15:00'"),
            ("soon", "'soon'"),
            (1700000000, "1700000000"),
        ],
    )
    def test_rejects_naive_or_malformed(self, value: JSON, got: str) -> None:
        """A date-time without a time zone, or not a date-time, is refused."""
        with pytest.raises(DecodeError) as caught:
            structure({"when": value}, Stamped)
        assert (caught.value.path, caught.value.got) == ("$.when", got)
        assert caught.value.expected.startswith("an RFC 3339 date-time")

    def test_a_null_field_takes_only_null(self) -> None:
        """A field typed None accepts null and nothing else."""
        stamped = structure({"when": "2026-11-21T23:15:00Z", "nothing": None}, Stamped)
        assert stamped.nothing is None
        with pytest.raises(DecodeError) as caught:
            structure({"when": "2026-11-21T23:15:00Z", "nothing": 0}, Stamped)
        assert caught.value.problems == (Mismatch("$.nothing", "null", "0"),)


class TestMismatches:
    def test_decode_errors_are_placed_under_the_path(self) -> None:
        """A DecodeError from inside a hook keeps its problems, under the path."""
        inner = DecodeError([Mismatch("$", "a", "b"), Mismatch("$[1]", "c", "d")])
        assert mismatches(inner, "$.x") == [
            Mismatch("$.x", "a", "b"),
            Mismatch("$.x[1]", "c", "d"),
        ]

    def test_unexpected_errors_keep_their_words(self) -> None:
        """An error no hook expected still becomes a mismatch, not a crash."""
        assert mismatches(LookupError("boom"), "$.x") == [
            Mismatch("$.x", "a valid value", "LookupError: boom")
        ]


def _verdict(value: JSON, cls: type[object]) -> object:
    """The codec's record, or `DecodeError` if it refuses *value*."""
    try:
        return structure(value, cls)
    except DecodeError:
        return DecodeError


def _run(conv: cattrs.Converter, value: JSON, cls: type[object]) -> object:
    """*conv*'s record of *value*, or `DecodeError` if it raises anything."""
    try:
        return conv.structure(value, cls)
    except Exception:  # noqa: BLE001 - any refusal is the verdict
        return DecodeError


def _refused_at(value: JSON, cls: type[object]) -> list[str]:
    """The paths `structure` refuses *value* at."""
    with pytest.raises(DecodeError) as caught:
        structure(value, cls)
    return [problem.path for problem in caught.value.problems]


def _strings(names: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    return tuple(names)


NOT_JSON: JSON = float("nan")


@attrs.frozen
class Checked:
    """A record whose validators the fast path cannot prove redundant."""

    small: int = attrs.field(validator=attrs.validators.in_([1, 2]))
    exact: int = attrs.field(default=0, validator=attrs.validators.instance_of(int))
    names: tuple[str, ...] = attrs.field(
        default=(), converter=_strings, validator=attrs.validators.max_len(2)
    )
    items: list[int] = attrs.field(factory=list, validator=attrs.validators.max_len(1))


@attrs.frozen
class BadDefault:
    """A record whose default its own validator refuses."""

    name: str = attrs.field(default="", validator=non_empty)
    data: JSON = attrs.field(default=NOT_JSON, converter=payload_json)


@attrs.frozen
class AfterInit:
    """A record whose ``__attrs_post_init__`` has a rule of its own."""

    low: int
    high: int

    def __attrs_post_init__(self) -> None:
        if self.low > self.high:
            msg = "low above high"
            raise ValueError(msg)


@attrs.frozen
class Shapes:
    """Field shapes the encoder writes by the value's class or item by item."""

    when: datetime | None
    phase: Phase | None
    grid: list[list[int]]
    by_name: dict[str, InterruptionKind]
    pair: tuple[str, int] = ("a", 1)


@attrs.frozen
class Tree:
    """A recursive record."""

    name: str
    children: list[Tree] = attrs.Factory(list)


@attrs.frozen
class Untagged:
    """A union the codec does not decode: its members carry no tag."""

    either: int | str


@attrs.frozen
class Noted:
    """A field checked by `optional_string`."""

    note: str | None = attrs.field(default=None, validator=optional_string)


@attrs.frozen
class Derived:
    """A record with a field its __init__ does not take."""

    x: int
    double: int = attrs.field(init=False, default=0)


@attrs.frozen
class FromSelf:
    """A record whose default is made from another field."""

    x: int
    y: int = attrs.field(default=attrs.Factory(lambda self: self.x, takes_self=True))


@attrs.frozen
class Leafy:
    """A tagged record of leaf fields only: built in line within its union."""

    tag: ClassVar[Literal["leafy"]] = "leafy"
    note: str | None
    names: list[str]
    counts: dict[str, int]


@attrs.frozen
class Nesting:
    """A tagged record that holds a record: built by its own function."""

    tag: ClassVar[Literal["nesting"]] = "nesting"
    inner: Custom


@attrs.frozen
class Ordered(AfterInit):
    """A tagged record with an __init__ rule of its own: built by attrs."""

    tag: ClassVar[Literal["ordered"]] = "ordered"


@attrs.frozen
class Holder:
    """A union whose members are built in line, by a call, or by attrs."""

    item: Leafy | Nesting | Ordered


@attrs.frozen
class Shelf:
    """A sequence of records of leaves: each built in line, in the loop."""

    items: tuple[Leafy, ...]
    last: str


class Tag(str):
    """A str subclass: JSON to `structure`, but never an exact tag."""

    __slots__ = ()


class TestOnePath:
    """Every document decodes through the one converter, records by their __init__."""

    @given(corruptions())
    def test_rejects_every_corruption(self, broken: Corruption) -> None:
        """A document broken at one point is refused with a `DecodeError`."""
        assert _verdict(broken.document, broken.cls) is DecodeError

    @given(json_values())
    def test_accepts_only_what_round_trips(self, document: JSON) -> None:
        """On any JSON, what decodes is a record whose wire form is that JSON."""
        for cls in (Interrupted, ApprovalPending, ScheduledPause, ANY_KIND):
            made = _verdict(document, cls)
            if made is not DecodeError:
                assert unstructure(made) == document

    @given(wire_values())
    def test_builds_the_record_encoded(
        self, value: InterruptionKind | Interrupted
    ) -> None:
        """A valid document gives back the record it was encoded from."""
        document = unstructure(value)
        assert _verdict(document, type(value)) == value

    @given(corruptions())
    def test_the_worded_run_refuses_every_corruption_too(
        self, broken: Corruption
    ) -> None:
        """A refused document is refused again by the run that words it."""
        value = owned(broken.document)
        assert _run(converter(), value, broken.cls) is DecodeError
        assert _run(_detailed(), value, broken.cls) is DecodeError

    @given(st.one_of(json_values(), records().map(lambda case: unstructure(case[1]))))
    def test_both_runs_reach_one_verdict(self, document: JSON) -> None:
        """The converter and its detailed run accept alike, and build equal records."""
        value = owned(document)
        for cls in (Interrupted, ANY_KIND, Resume, Respond, Restart, PendingInterrupt):
            assert _run(converter(), value, cls) == _run(_detailed(), value, cls)

    def test_unproven_validators_still_run(self) -> None:
        """A validator the codec does not repeat runs, as attrs would run it."""
        record = structure({"small": 1, "exact": 5, "names": ["a"]}, Checked)
        assert record == Checked(1, 5, ("a",))
        documents: list[JSON] = [
            {"small": 3},
            {"small": 1, "names": ["a", "b", "c"]},
            {"small": 1, "items": [1, 2]},
        ]
        for document in documents:
            with pytest.raises(DecodeError):
                structure(document, Checked)

    def test_defaults_are_checked_as_attrs_checks_them(self) -> None:
        """A left-out field whose default its validator refuses is refused."""
        with pytest.raises(DecodeError):
            structure({"data": None}, BadDefault)
        with pytest.raises(DecodeError):
            structure({"name": "x"}, BadDefault)
        assert structure({"name": "x", "data": 1}, BadDefault) == BadDefault("x", 1)

    def test_records_with_their_own_init_rules(self) -> None:
        """A record whose __init__ does more than set fields is built by attrs."""
        assert structure({"low": 1, "high": 2}, AfterInit) == AfterInit(1, 2)
        with pytest.raises(DecodeError, match="low above high"):
            structure({"low": 2, "high": 1}, AfterInit)

    def test_recursive_records(self) -> None:
        """A record that holds records of its own type decodes."""
        document: JSON = {"name": "a", "children": [{"name": "b"}]}
        assert structure(document, Tree) == Tree("a", [Tree("b")])
        assert _refused_at({"name": "a", "children": [1]}, Tree) == ["$.children[0]"]

    def test_unusual_shapes(self) -> None:
        """Untagged unions are refused; bytes and init-only fields as attrs has them."""
        with pytest.raises(DecodeError, match="cannot tell apart"):
            structure({"either": 1}, Untagged)
        with pytest.raises(ArgumentTypeError, match="cannot tell apart"):
            json_schema(Untagged)
        assert _verdict({"raw": "x"}, _Unsupported) is DecodeError
        assert structure({"x": 1}, Derived) == Derived(1)
        assert structure({"x": 1}, FromSelf) == FromSelf(1, 1)

    def test_a_problem_beside_what_fits(self) -> None:
        """Beside a problem, an integer still fits a float and null a null field."""
        document = {**EVERYTHING, "f": 1, "extra": True}  # type: ignore[dict-item]
        with pytest.raises(DecodeError) as caught:
            structure(document, Everything)
        assert [problem.path for problem in caught.value.problems] == ["$.extra"]
        with pytest.raises(DecodeError) as caught:
            structure({"when": "soon", "nothing": None}, Stamped)
        assert [problem.path for problem in caught.value.problems] == ["$.when"]

    def test_optional_strings(self) -> None:
        """An optional string field takes a string or null, nothing else."""
        assert structure({"note": None}, Noted) == Noted()
        assert structure({"note": "n"}, Noted) == Noted("n")
        with pytest.raises(DecodeError):
            structure({"note": 5}, Noted)

    def test_union_members_in_line_or_by_call(self) -> None:
        """Each member of a tagged union decodes, built in line or not."""
        leafy = Holder(Leafy(None, ["a"], {"b": 1}))
        nesting = Holder(Nesting(Custom()))
        for value in (leafy, nesting):
            assert structure(unstructure(value), Holder) == value
            assert loads(dumps(value), Holder) == value
        ordered: JSON = {"item": {"type": "ordered", "low": 1, "high": 2}}
        assert structure(ordered, Holder) == Holder(Ordered(1, 2))

    def test_records_in_a_sequence_built_in_line(self) -> None:
        """Records of leaves in an array decode in line, their own arrays too."""
        shelf = Shelf(
            (
                Leafy(None, ["a", "b"], {"c": 1}),
                Leafy("n", [], {}),
                Leafy("m", ["z"], {}),
            ),
            "end",
        )
        assert structure(unstructure(shelf), Shelf) == shelf
        assert loads(dumps(shelf), Shelf) == shelf
        assert loads(dumps(Shelf((), "")), Shelf) == Shelf((), "")

    def test_a_record_in_a_sequence_is_as_strict(self) -> None:
        """A problem in a record built in line in an array is found at its path."""
        good: dict[str, JSON] = {"type": "leafy", "note": None, "names": ["a"]}
        good["counts"] = {}
        bad: JSON = {**good, "names": ["a", 3]}
        document: JSON = {"items": [good, bad, {**good, "type": "other"}], "last": ""}
        assert _refused_at(document, Shelf) == [
            "$.items[1].names[1]",
            "$.items[2].type",
        ]

    def test_a_member_built_in_line_is_as_strict(self) -> None:
        """A problem inside a member built in line is found, at its path."""
        document: JSON = {"item": {"type": "leafy", "note": 1, "names": [2]}}
        assert _refused_at(document, Holder) == [
            "$.item.note",
            "$.item.names[0]",
            "$.item.counts",
        ]

    def test_a_tag_must_be_exactly_a_string(self) -> None:
        """A str subclass spelling the tag is refused, on the union as well."""
        for cls in (Custom, ANY_KIND):
            with pytest.raises(DecodeError):
                structure({"type": Tag("custom")}, cls)

    def test_a_larger_depth_checks_payloads_on_the_way(self) -> None:
        """Past MAX_DEPTH, records check their JSON fields themselves."""
        document = dumps(Interrupted(Custom(), {"a": [1]}))
        assert loads(document, Interrupted, max_depth=MAX_DEPTH + 8).payload == {
            "a": [1]
        }
        message = dumps(Message.of_text(Role.USER, "hi"))
        assert loads(message, Message, max_depth=MAX_DEPTH + 8).text == "hi"


@attrs.frozen
class Described:
    """A record holding a JSON object without a converter of its own.

    Attributes:
        schema: Any JSON object.
    """

    schema: dict[str, JSON]


class TestJsonObjects:
    def test_a_json_object_field_takes_an_object(self) -> None:
        """A ``dict[str, JSON]`` field takes any object, and refuses the rest."""
        assert structure({"schema": {"a": [1]}}, Described) == Described({"a": [1]})
        assert _refused_at({"schema": [1]}, Described) == ["$.schema"]
        with pytest.raises(DecodeError, match="expected an object, got an array"):
            loads('{"schema": [1]}', Described)

    def test_a_pause_words_its_payload_at_its_path(self) -> None:
        """A payload too deep for a pause is refused at ``$.payload``, inside."""
        deep = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
        document = '{"kind": {"type": "custom"}, "payload": ' + deep + "}"
        with pytest.raises(DecodeError) as caught:
            loads(document, Interrupted, max_depth=MAX_DEPTH + 8)
        assert caught.value.problems[0].path.startswith("$.payload[0]")
        assert caught.value.problems[0].expected == (
            f"at most {MAX_DEPTH} levels of nesting"
        )


class TestEncodingShapes:
    def test_fields_by_class_and_by_item(self) -> None:
        """Optional date-times and enums, nested lists and maps of records encode."""
        when = datetime(2026, 1, 2, 3, 4, tzinfo=UTC)
        shapes = Shapes(when, Phase.AFTER, [[1], []], {"a": Custom()})
        assert json.loads(dumps(shapes)) == {
            "when": "2026-01-02T03:04:00Z",
            "phase": "after",
            "grid": [[1], []],
            "by_name": {"a": {"type": "custom"}},
            "pair": ["a", 1],
        }
        assert json.loads(dumps(Shapes(None, None, [], {})))["when"] is None

    def test_values_that_are_not_records(self) -> None:
        """Lists, maps, enums and date-times encode alone as well."""
        when = datetime(2026, 1, 2, tzinfo=UTC)
        assert unstructure([Custom(), {"k": Phase.BEFORE}, when]) == [
            {"type": "custom"},
            {"k": "before"},
            "2026-01-02T00:00:00Z",
        ]
        assert unstructure((Custom(),)) == [{"type": "custom"}]
