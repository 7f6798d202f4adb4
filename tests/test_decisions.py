"""The words of an approval decision that does not fit (``_decisions``)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from interruption import JSON
from interruption._decisions import DECISIONS, decision_mismatches
from interruption._json import Mismatch, frozen
from interruption._schemacheck import conforms
from interruption.approval import DECISION_SCHEMA

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
