"""The approval decision, declared once, and the words for what is not one."""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from interruption import JSON, DecodeError
from interruption._json import frozen
from interruption.decisions import (
    DECISIONS,
    VERBS,
    ApprovalDecision,
    Approve,
    Reject,
    _fields,
    decision_from_json,
    decision_mismatches,
    decision_to_json,
    is_rejection,
)
from interruption.errors import Mismatch
from interruption.runtime.approval import DECISION_SCHEMA
from interruption.schemas import conforms

from tests.strategies import json_values

_PARTS: st.SearchStrategy[JSON] = st.one_of(
    st.none(), st.text(max_size=3), st.integers(-1, 1), json_values(max_leaves=2)
)
NEAR_DECISIONS: st.SearchStrategy[JSON] = st.one_of(
    st.just("approve"),
    st.dictionaries(
        st.sampled_from(["approve", "reject", "note", "reason", "x"]),
        st.one_of(
            _PARTS,
            st.dictionaries(
                st.sampled_from(["note", "reason", "x"]), _PARTS, max_size=3
            ),
        ),
        max_size=3,
    ),
)
"""Values near a decision: its verbs and keys, with any values."""

DECISIONS_DRAWN: st.SearchStrategy[ApprovalDecision] = st.one_of(
    st.builds(Approve, st.none() | st.text(max_size=5)),
    st.builds(Reject, st.text(min_size=1, max_size=5)),
)
"""Every decision a person can make."""


class TestDecisionMismatches:
    @given(st.one_of(NEAR_DECISIONS, json_values()))
    def test_a_mismatch_exactly_when_the_schema_refuses(self, value: JSON) -> None:
        """The words find a problem exactly when DECISION_SCHEMA refuses the value."""
        assert (not decision_mismatches(value)) == conforms(value, DECISION_SCHEMA)

    def test_no_decision_at_all_is_said_whole(self) -> None:
        """A value that is no decision is said to be one of the three forms."""
        assert decision_mismatches("yes please", "$.r") == [
            Mismatch("$.r", DECISIONS, "'yes please'")
        ]
        assert decision_mismatches({"approve": {}, "reject": {}}) == [
            Mismatch("$", DECISIONS, "an object with the keys 'approve', 'reject'")
        ]
        assert decision_mismatches({}) == [Mismatch("$", DECISIONS, "an empty object")]
        assert decision_mismatches({"maybe": 1}) == [
            Mismatch("$", DECISIONS, "an object {'maybe': ...}")
        ]

    def test_the_wrong_part_of_a_decision_is_named(self) -> None:
        """A decision's wrong parts are named at their own paths."""
        assert decision_mismatches({"reject": {"why": "x"}}) == [
            Mismatch("$.reject.why", "only the key 'reason'", "unknown key 'why'"),
            Mismatch("$.reject.reason", "non-empty text", "nothing"),
        ]
        assert decision_mismatches({"approve": "ok"}) == [
            Mismatch("$.approve", '{"note": <text or null, optional>}', "'ok'")
        ]
        assert decision_mismatches({"reject": None}) == [
            Mismatch("$.reject", '{"reason": <non-empty text>}', "null")
        ]
        assert decision_mismatches({"approve": {"note": 3, "x": 1}}) == [
            Mismatch("$.approve.x", "only the key 'note'", "unknown key 'x'"),
            Mismatch("$.approve.note", "text or null", "3"),
        ]
        assert decision_mismatches({"reject": {"reason": ""}}) == [
            Mismatch("$.reject.reason", "non-empty text", "''")
        ]
        assert decision_mismatches({"approve": {"note": None}}) == []

    def test_a_records_frozen_decision_is_a_decision(self) -> None:
        """A decision as a record holds it (frozen) reads as that decision."""
        decisions: list[JSON] = [
            "approve",
            {"approve": {"note": None}},
            {"reject": {"reason": "too much"}},
        ]
        for value in decisions:
            assert decision_mismatches(frozen(value)) == []
        assert decision_mismatches(frozen({"reject": {"reason": "x", "y": 1}})) == [
            Mismatch("$.reject.y", "only the key 'reason'", "unknown key 'y'")
        ]
        assert decision_mismatches(frozen({"reject": ["x"]})) == [
            Mismatch("$.reject", '{"reason": <non-empty text>}', "an array")
        ]


class TestTheDeclaration:
    def test_the_schema_is_derived_as_published(self) -> None:
        """DECISION_SCHEMA, derived from the records, is the published schema."""
        published = Path(__file__).parent.parent / "schemas" / "approval_decision.json"
        schema = json.loads(published.read_text())
        assert schema == DECISION_SCHEMA
        verbs = [next(iter(form["properties"])) for form in schema["oneOf"][1:]]
        assert verbs == list(VERBS)

    def test_the_words_are_derived_from_the_records(self) -> None:
        """What a decision is, in words, names each verb's fields and their kind."""
        assert DECISIONS == (
            '"approve", {"approve": {"note": <text or null, optional>}} or '
            '{"reject": {"reason": <non-empty text>}}'
        )

    @given(DECISIONS_DRAWN)
    def test_every_decision_round_trips(self, decision: ApprovalDecision) -> None:
        """A decision's wire form fits the schema and reads back as the decision."""
        wire = decision_to_json(decision)
        assert conforms(wire, DECISION_SCHEMA)
        assert not decision_mismatches(wire)
        assert decision_from_json(wire) == decision
        assert decision_from_json(frozen(wire)) == decision

    @given(st.one_of(NEAR_DECISIONS, json_values()))
    def test_the_decoder_refuses_what_the_schema_refuses(self, value: JSON) -> None:
        """decision_from_json reads exactly what DECISION_SCHEMA accepts, in words."""
        if conforms(value, DECISION_SCHEMA):
            assert decision_to_json(decision_from_json(value)) in (
                value,
                "approve",  # {"approve": {}} and a null note are Approve()
            )
            return
        with pytest.raises(DecodeError) as caught:
            decision_from_json(value)
        assert list(caught.value.problems) == decision_mismatches(value)

    @pytest.mark.parametrize(
        ("value", "rejection"),
        [
            ({"reject": {"reason": "no"}}, True),
            ({"reject": "anything"}, True),
            ({"approve": {"note": "reject"}}, False),
            ("reject", False),
            (None, False),
        ],
    )
    def test_a_rejection_is_known_by_its_verb(
        self, value: JSON, rejection: bool
    ) -> None:
        """is_rejection tells an object keyed by reject's verb from anything else."""
        assert is_rejection(value) is rejection

    def test_a_field_of_another_type_has_no_wire_form(self) -> None:
        """A decision record with a field the wire cannot carry is refused when read."""

        @attrs.frozen
        class Odd:
            count: int

        with pytest.raises(TypeError, match=r"Odd\.count: no wire form"):
            _fields(Odd)
