from __future__ import annotations

from typing import Any

import pytest
from interruption import ArgumentTypeError, PauseSchedule

WRONG: Any = 5
"""Not a collection (typed Any: the check is run-time)."""


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

    @pytest.mark.parametrize(
        ("field", "value", "got"),
        [("before", "charge", "the string 'charge'"), ("after", WRONG, "5")],
    )
    def test_a_refused_collection_is_an_argument_type_error(
        self, field: str, value: object, got: str
    ) -> None:
        """A string or a non-collection is the library's ArgumentTypeError, named."""
        with pytest.raises(ArgumentTypeError) as caught:
            PauseSchedule(**{field: value})  # type: ignore[arg-type]
        error = caught.value
        assert isinstance(error, TypeError)
        assert (error.code, error.where, error.expected, error.got) == (
            "argument_type_error",
            f"PauseSchedule: {field}",
            "a collection of node names",
            got,
        )
