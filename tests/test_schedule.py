from __future__ import annotations

import pytest
from interruption import PauseSchedule


class TestPauseSchedule:
    def test_defaults_pause_nowhere(self) -> None:
        """An empty schedule pauses before and after nothing."""
        assert PauseSchedule() == PauseSchedule(frozenset(), frozenset())

    def test_any_collection_of_names(self) -> None:
        """Lists, sets and generators become frozensets."""
        schedule = PauseSchedule(before=["a", "b"], after=(n for n in "c"))
        assert schedule.before == frozenset({"a", "b"})
        assert schedule.after == frozenset({"c"})

    def test_a_string_is_refused(self) -> None:
        """A bare string is not read as a collection of one-letter names."""
        with pytest.raises(TypeError, match="the string 'charge'"):
            PauseSchedule(before="charge")
