from __future__ import annotations

from datetime import UTC, datetime
from typing import Final

import pytest
from hypothesis import given
from hypothesis import strategies as st
from interruption import (
    Accepts,
    Custom,
    InterruptedTurn,
    InvalidArgument,
    Message,
    PendingInterrupt,
    ResumeRejected,
    Role,
    ToolRequest,
    dumps,
    loads,
    validate_resume,
)
from interruption.testing.strategies import (
    interrupteds,
    kinds,
    mutations,
    turns,
    valid_resumes,
)

from tests.strategies import ANY_KIND

NOON: Final = datetime(2024, 1, 1, 12, tzinfo=UTC)


class TestStrategies:
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
