from __future__ import annotations

from datetime import UTC, datetime
from typing import Final

import pytest
from hypothesis import given
from hypothesis import strategies as st
from interruption import (
    JSON,
    Accepts,
    Custom,
    Interrupted,
    InterruptedTurn,
    InvalidArgument,
    Message,
    PendingInterrupt,
    Respond,
    Restart,
    ResumeRejected,
    Role,
    ToolRequest,
    ToolResponse,
    dumps,
    loads,
    validate_resume,
)
from interruption._json import is_json
from interruption.runtime.approval import (
    DECISION_SCHEMA,
    decision_from_json,
    decision_to_json,
)
from interruption.schemas import conforms
from interruption.testing.strategies import (
    decisions,
    interrupteds,
    json_scalars,
    json_values,
    kinds,
    mutations,
    object_keys,
    texts,
    turns,
    valid_resumes,
)

from tests.strategies import ANY_KIND

NOON: Final = datetime(2024, 1, 1, 12, tzinfo=UTC)


def _leaves(value: object) -> int:
    if isinstance(value, list):
        return sum(map(_leaves, value))
    if isinstance(value, dict):
        return sum(map(_leaves, value.values()))
    return 1


class TestStrategies:
    @given(st.integers(0, 4), st.integers(0, 8), st.data())
    def test_texts_keep_their_bounds_and_valid_unicode(
        self, low: int, extra: int, data: st.DataObject
    ) -> None:
        """A drawn text keeps its size bounds and encodes as UTF-8."""
        text = data.draw(texts(min_size=low, max_size=low + extra))
        assert low <= len(text) <= low + extra
        assert text.encode("utf-8").decode("utf-8") == text

    @given(object_keys())
    def test_object_keys_are_valid_unicode(self, key: str) -> None:
        """A drawn key encodes as UTF-8 (no lone surrogate)."""
        assert key.encode("utf-8").decode("utf-8") == key

    @given(st.one_of(json_scalars(), json_values()))
    def test_json_values_are_json_and_survive_the_codec(self, value: JSON) -> None:
        """Drawn scalars and values are JSON by the library's rule, on the wire too."""
        assert is_json(value)
        paused = Interrupted(Custom(), value)
        assert loads(dumps(paused), Interrupted).payload == value

    @given(json_scalars())
    def test_json_scalars_are_not_containers(self, value: object) -> None:
        """A drawn scalar is never an array or an object."""
        assert not isinstance(value, list | dict)

    @given(json_values(max_leaves=1))
    def test_max_leaves_bounds_the_scalars(self, value: object) -> None:
        """With max_leaves=1 a value holds at most one scalar."""
        assert _leaves(value) <= 1

    @given(kinds())
    def test_kinds_round_trip(self, kind: object) -> None:
        """Every drawn kind survives the codec."""
        assert loads(dumps(kind), ANY_KIND) == kind

    @given(interrupteds())
    def test_interrupteds_round_trip(self, paused: object) -> None:
        """Every drawn pause survives the codec."""
        assert loads(dumps(paused), type(paused)) == paused

    @given(turns())
    def test_turns_round_trip(self, turn: InterruptedTurn) -> None:
        """Every drawn turn survives the codec."""
        assert loads(dumps(turn), InterruptedTurn) == turn

    @given(decisions())
    def test_decisions_decode_and_fit_their_schema(self, decision: JSON) -> None:
        """A drawn decision decodes, writes back as drawn and fits its schema."""
        assert decision_to_json(decision_from_json(decision)) == decision
        assert conforms(decision, DECISION_SCHEMA)


class TestTheLaws:
    @given(st.data())
    def test_every_valid_resume_is_accepted(self, data: st.DataObject) -> None:
        """A resume drawn for a turn answers every interrupt and passes."""
        turn = data.draw(turns())
        resume = data.draw(valid_resumes(turn))
        resolved = validate_resume(resume, turn)
        assert len(resolved.answers) == len(turn.interrupts)

    @given(st.data())
    def test_every_mutation_is_rejected_with_its_codes(
        self, data: st.DataObject
    ) -> None:
        """Each single mutation of a valid resume gets exactly its codes."""
        turn = data.draw(turns())
        resume = data.draw(valid_resumes(turn))
        found = mutations(resume, turn)
        assert found
        for name, mutated, codes in found:
            with pytest.raises(ResumeRejected) as caught:
                validate_resume(mutated, turn)
            assert set(caught.value.codes) == codes, name

    @given(st.data())
    def test_an_unknown_schema_asks_for_answers(self, data: st.DataObject) -> None:
        """A schema without a built-in strategy is an InvalidArgument when drawn."""
        request = ToolRequest("ask", "c1", {})
        pending = PendingInterrupt(
            "c1",
            Custom(),
            None,
            tool=request,
            accepts=Accepts({"type": "string", "pattern": "^a+$"}),
        )
        turn = InterruptedTurn(
            "s", 1, (Message(Role.MODEL, (request,)),), (pending,), (), NOON
        )
        with pytest.raises(InvalidArgument, match="pass answers=") as caught:
            data.draw(valid_resumes(turn))
        assert caught.value.where == "valid_resumes: answers"

    @given(st.data())
    def test_const_and_boolean_answers_and_a_taken_unknown_ref(
        self, data: st.DataObject
    ) -> None:
        """Const and boolean schemas get answers; a forged ref skips taken ones."""
        request = ToolRequest("ask", "c1", {})
        pending = PendingInterrupt(
            "c1",
            Custom(),
            None,
            tool=request,
            accepts=Accepts({"const": 7}, {"type": "boolean"}),
        )
        done = ToolResponse("ask", "c1-x", 1)
        turn = InterruptedTurn(
            "s",
            1,
            (Message(Role.MODEL, (request, ToolRequest("ask", "c1-x", {}))),),
            (pending,),
            (done,),
            NOON,
        )
        resume = data.draw(valid_resumes(turn))
        answered: list[Respond | Restart] = [*resume.respond, *resume.restart]
        (entry,) = answered
        if isinstance(entry, Respond):
            assert entry.output == 7
        else:
            assert isinstance(entry.resumed, bool)
        validate_resume(resume, turn)
        found = {name: mutated for name, mutated, _ in mutations(resume, turn)}
        unknown = found["unknown ref at 0"]
        entries: list[Respond | Restart] = [*unknown.respond, *unknown.restart]
        assert [forged.ref for forged in entries] == ["c1-xx"]
