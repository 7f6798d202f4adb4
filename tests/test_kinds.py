import pickle
import typing
from pathlib import Path

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from interruption import (
    ApprovalPending,
    Custom,
    DecodeError,
    FieldError,
    InterruptionKind,
    PayloadError,
    Phase,
    ScheduledPause,
    dumps,
    loads,
)
from interruption.kinds import KINDS, tag_of
from interruption.wire import MAX_BYTES

from tests.strategies import kinds


class TestPhase:
    def test_members(self) -> None:
        """A pause happens before or after its node, spelled as on the wire."""
        assert [phase.value for phase in Phase] == ["before", "after"]

    def test_is_a_string(self) -> None:
        """A phase is its wire string, so it formats and compares as one."""
        wire: object = "before"
        assert wire == Phase.BEFORE
        assert f"{Phase.AFTER}" == "after"
        assert Phase("after") is Phase.AFTER

    def test_unknown_value(self) -> None:
        """Anything but the two values is not a phase."""
        with pytest.raises(ValueError, match="during"):
            Phase("during")


class TestCustom:
    def test_tag(self) -> None:
        """Custom's wire tag is ``custom``."""
        assert Custom.tag == "custom"

    def test_all_equal(self) -> None:
        """Custom has no fields: every instance is equal, with one hash."""
        assert Custom() == Custom()
        assert hash(Custom()) == hash(Custom())

    def test_tag_is_not_a_field(self) -> None:
        """The tag is a class constant, not a field to construct with."""
        assert attrs.fields(Custom) == ()


class TestApprovalPending:
    def test_tag_and_field(self) -> None:
        """An approval pause carries the tool call's ref."""
        assert ApprovalPending.tag == "approval_pending"
        assert ApprovalPending("tu-1").tool_use_id == "tu-1"

    def test_empty_tool_use_id(self) -> None:
        """An empty ref is rejected at construction, naming the field."""
        with pytest.raises(FieldError) as caught:
            ApprovalPending("")
        assert (caught.value.field, caught.value.expected, caught.value.got) == (
            "tool_use_id",
            "a non-empty string",
            "''",
        )
        assert isinstance(caught.value, ValueError)

    def test_not_a_string(self) -> None:
        """A ref that is not a string is a TypeError, naming the field."""
        with pytest.raises(TypeError, match=r"^tool_use_id: expected a string, got 1$"):
            ApprovalPending(1)  # type: ignore[arg-type]

    def test_frozen(self) -> None:
        """Kinds are immutable values."""
        kind = ApprovalPending("tu-1")
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            kind.tool_use_id = "tu-2"  # type: ignore[misc]

    def test_equal_by_value(self) -> None:
        """Two approvals are equal when their refs are."""
        assert ApprovalPending("tu-1") == ApprovalPending("tu-1")
        assert ApprovalPending("tu-1") != ApprovalPending("tu-2")


class TestScheduledPause:
    def test_tag_and_fields(self) -> None:
        """A scheduled pause carries its phase and node."""
        kind = ScheduledPause(Phase.BEFORE, "charge")
        assert ScheduledPause.tag == "scheduled_pause"
        assert (kind.phase, kind.node) == (Phase.BEFORE, "charge")

    def test_empty_node(self) -> None:
        """An empty node name is rejected at construction."""
        with pytest.raises(FieldError, match=r"^node: expected a non-empty string"):
            ScheduledPause(Phase.AFTER, "")

    def test_node_not_a_string(self) -> None:
        """A node that is not a string is a TypeError."""
        with pytest.raises(TypeError, match=r"^node: expected a string, got null$"):
            ScheduledPause(Phase.AFTER, None)  # type: ignore[arg-type]

    def test_phase_must_be_a_phase(self) -> None:
        """A phase given as a plain string is rejected: use `Phase`."""
        with pytest.raises(TypeError, match=r"^phase: expected Phase\.BEFORE or"):
            ScheduledPause("before", "charge")  # type: ignore[arg-type]

    def test_different_phases_differ(self) -> None:
        """Before and after the same node are different pauses."""
        assert ScheduledPause(Phase.BEFORE, "n") != ScheduledPause(Phase.AFTER, "n")


class TestInterruptionKind:
    def test_is_the_closed_union(self) -> None:
        """The union holds exactly the three kinds, in the design's order."""
        assert typing.get_args(InterruptionKind) == (
            Custom,
            ApprovalPending,
            ScheduledPause,
        )
        assert (Custom, ApprovalPending, ScheduledPause) == KINDS

    def test_different_kinds_differ(self) -> None:
        """No two kinds are equal across classes."""
        other: object = ApprovalPending("custom")
        assert Custom() != other

    @given(kinds())
    def test_pickles(self, kind: InterruptionKind) -> None:
        """Kinds survive pickling."""
        assert pickle.loads(pickle.dumps(kind)) == kind  # noqa: S301 - our own bytes

    @given(kinds())
    def test_match_narrows(self, kind: InterruptionKind) -> None:
        """``match`` tells the kinds apart by class and field."""
        match kind:
            case Custom():
                assert tag_of(kind) == "custom"
            case ApprovalPending(tool_use_id=ref):
                assert ref == kind.tool_use_id
                assert tag_of(kind) == "approval_pending"
            case ScheduledPause(phase=phase, node=node):
                assert phase in Phase
                assert node
                assert tag_of(kind) == "scheduled_pause"


class TestTagOf:
    @pytest.mark.parametrize(
        ("kind", "tag"),
        [
            (Custom(), "custom"),
            (ApprovalPending("tu-1"), "approval_pending"),
            (ScheduledPause(Phase.BEFORE, "charge"), "scheduled_pause"),
        ],
    )
    def test_tags(self, kind: InterruptionKind, tag: str) -> None:
        """Each kind's tag is the entelix serde tag, snake_case."""
        assert tag_of(kind) == tag


class TestModule:
    def test_exports_only_the_kinds(self) -> None:
        """The module exports the kinds and tag_of; field validators are private."""
        import interruption.kinds  # noqa: PLC0415 - the module itself is under test

        assert sorted(interruption.kinds.__all__) == [
            "ApprovalPending",
            "Custom",
            "InterruptionKind",
            "Phase",
            "ScheduledPause",
            "tag_of",
        ]


class TestKindText:
    """Kind fields hold the text a payload's strings may hold: valid Unicode."""

    @pytest.mark.parametrize(
        ("build", "field"),
        [
            (ApprovalPending, "tool_use_id"),
            (lambda text: ScheduledPause(Phase.BEFORE, text), "node"),
        ],
    )
    @pytest.mark.parametrize("text", ["\ud800", "tu-\udfff", "\udc00x\ud83d"])
    def test_lone_surrogate_is_refused_at_construction(
        self, build: typing.Callable[[str], InterruptionKind], field: str, text: str
    ) -> None:
        """A lone surrogate in a kind field is a PayloadError at that field."""
        with pytest.raises(PayloadError) as caught:
            build(text)
        assert (caught.value.path, caught.value.expected, caught.value.got) == (
            f"$.{field}",
            "a string of valid Unicode",
            "a lone surrogate",
        )

    @given(
        st.text(
            st.characters() | st.characters(categories=["Cs"]),  # lone surrogates
            min_size=1,
            max_size=4,
        )
    )
    def test_a_kind_built_is_a_kind_that_travels(self, text: str) -> None:
        """Whatever text builds a kind, its UTF-8 wire form reads back equal."""
        for build in (
            ApprovalPending,
            lambda node: ScheduledPause(Phase.AFTER, node),
        ):
            try:
                kind = build(text)
            except PayloadError:
                continue
            data = dumps(kind).encode("utf-8")
            assert loads(data, type(kind)) == kind


class TestEntelixDifferences:
    """The docs state where this library is stricter than entelix, exactly."""

    SENTENCE = (
        "The tags and field names are entelix's; two rules are this library's own. "
        'An empty `tool_use_id` or `node` is refused, though entelix writes `""`: '
        "building one raises `FieldError`, decoding one `DecodeError`. And `loads` "
        "refuses a document over 1 MiB (1,048,576 bytes) unless given a larger "
        "`max_bytes`."
    )

    def test_the_concepts_page_says_it_in_the_pause_section(self) -> None:
        """The pause section of docs/concepts.md carries the sentence, word for word."""
        page = Path(__file__).parent.parent / "docs" / "concepts.md"
        section = (
            page.read_text("utf-8").split("## The pause", 1)[1].split("\n## ", 1)[0]
        )
        assert self.SENTENCE in " ".join(section.split())

    @pytest.mark.parametrize(
        ("text", "cls", "path"),
        [
            (
                '{"type": "approval_pending", "tool_use_id": ""}',
                ApprovalPending,
                "$.tool_use_id",
            ),
            (
                '{"type": "scheduled_pause", "phase": "before", "node": ""}',
                ScheduledPause,
                "$.node",
            ),
        ],
    )
    def test_an_empty_field_entelix_writes_is_refused(
        self, text: str, cls: type[InterruptionKind], path: str
    ) -> None:
        """Entelix's empty ``tool_use_id`` / ``node`` decodes to a DecodeError."""
        with pytest.raises(DecodeError) as caught:
            loads(text, cls)
        assert (caught.value.path, caught.value.expected) == (
            path,
            "a non-empty string",
        )

    def test_building_one_is_a_field_error(self) -> None:
        """Building a kind with an empty field raises FieldError."""
        with pytest.raises(FieldError):
            ApprovalPending("")
        with pytest.raises(FieldError):
            ScheduledPause(Phase.BEFORE, "")

    def test_a_document_over_one_mib_is_refused(self) -> None:
        """``loads`` takes 1,048,576 bytes by default, and not one more."""
        assert MAX_BYTES == 1_048_576
        body = '{"type": "approval_pending", "tool_use_id": "%s"}'
        fits = body % ("x" * (MAX_BYTES - len(body % "")))
        assert loads(fits, ApprovalPending).tool_use_id.startswith("x")
        with pytest.raises(DecodeError, match="at most 1048576 bytes"):
            loads(fits.replace('"x', '"xx', 1), ApprovalPending)
        assert loads(fits + " ", ApprovalPending, max_bytes=MAX_BYTES + 1).tool_use_id
