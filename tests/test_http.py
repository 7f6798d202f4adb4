"""Tests of interruption.http: the code -> HTTP status table and the bodies."""

from __future__ import annotations

import importlib
import json
import pkgutil
import random
from typing import Final

import interruption
import jsonschema_rs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from interruption import (
    Custom,
    DecodeError,
    FieldError,
    InterruptionError,
    InvalidArgument,
    Mismatch,
    PauseRefused,
    Problem,
    ProblemCode,
    ResumeRejected,
    SessionPaused,
    StoreUnavailable,
    dumps,
    loads,
)
from interruption.http import (
    DECODE_ERROR_SCHEMA,
    ERROR_STATUS,
    PRECEDENCE,
    PROBLEM_STATUS,
    SERVER_ERROR,
    SERVER_MESSAGE,
    decode_error_from,
    problem_body,
    status_of,
)


def _every_error_class() -> set[type[InterruptionError]]:
    """Import every module of the package and walk the error tree."""
    for module in pkgutil.walk_packages(interruption.__path__, "interruption."):
        if module.name != "interruption.__main__":  # runs the command
            importlib.import_module(module.name)
    found: set[type[InterruptionError]] = set()
    todo: list[type[InterruptionError]] = [InterruptionError]
    while todo:
        cls = todo.pop()
        if cls.__module__.startswith("interruption") and cls not in found:
            found.add(cls)
            todo.extend(cls.__subclasses__())
    return found


_CLASSES: Final = sorted(_every_error_class(), key=lambda cls: cls.__qualname__)


class TestTable:
    @pytest.mark.parametrize("cls", _CLASSES, ids=lambda cls: cls.__qualname__)
    def test_every_error_code_has_a_status(self, cls: type[InterruptionError]) -> None:
        """Each error class the library defines has its code in the table."""
        if cls is ResumeRejected:
            return
        assert cls.code in ERROR_STATUS, cls

    def test_the_walk_finds_the_adapters_errors(self) -> None:
        """The walk reaches errors defined outside errors.py (tools, adapters)."""
        codes = {cls.code for cls in _CLASSES}
        assert {"tool_contract_error", "form_schema_error", "tool_routing"} <= codes

    @pytest.mark.parametrize("code", list(ProblemCode))
    def test_every_problem_code_has_a_ranked_status(self, code: ProblemCode) -> None:
        """Each problem code maps to a status that the precedence ranks."""
        assert PROBLEM_STATUS[code] in PRECEDENCE

    def test_no_status_for_codes_nobody_defines(self) -> None:
        """The table names only codes that exist (no stale entries)."""
        assert set(ERROR_STATUS) == {cls.code for cls in _CLASSES} - {"resume_rejected"}

    def test_examples(self) -> None:
        """A few statuses, spelled out."""
        assert status_of(DecodeError([Mismatch("$", "an object", "null")])) == 400
        assert status_of(InvalidArgument("f: x", "a", "b")) == 400
        assert status_of(FieldError("reason", "text", "''")) == 422
        assert status_of(SessionPaused("s", "paused")) == 409
        assert status_of(StoreUnavailable("db", "closed", "closed")) == 503
        assert status_of(ResumeRejected.of(ProblemCode.CONSUMED, "replay")) == 409
        assert status_of(ResumeRejected.of(ProblemCode.EXPIRED, "late")) == 410

    def test_an_unknown_code_is_a_server_error(self) -> None:
        """A third party's error with a code the table lacks is a 500."""

        class Theirs(InterruptionError):
            code = "theirs"

        assert status_of(Theirs("boom")) == SERVER_ERROR == 500


_problem = st.builds(Problem, st.sampled_from(list(ProblemCode)), st.just("m"))


class TestPrecedence:
    @given(st.lists(_problem, min_size=1, max_size=8))
    def test_the_first_ranked_status_wins(self, problems: list[Problem]) -> None:
        """A rejection's status is its problems' status that PRECEDENCE ranks first."""
        statuses = {PROBLEM_STATUS[problem.code] for problem in problems}
        expected = next(status for status in PRECEDENCE if status in statuses)
        assert status_of(ResumeRejected(problems)) == expected

    @given(st.lists(_problem, min_size=1, max_size=8), st.randoms())
    def test_order_does_not_matter(
        self, problems: list[Problem], rnd: random.Random
    ) -> None:
        """Shuffling the problems never changes the status."""
        shuffled = list(problems)
        rnd.shuffle(shuffled)
        assert status_of(ResumeRejected(shuffled)) == status_of(
            ResumeRejected(problems)
        )

    @given(st.lists(_problem, min_size=1, max_size=6), _problem)
    def test_more_problems_never_rank_later(
        self, problems: list[Problem], extra: Problem
    ) -> None:
        """Adding a problem moves the status earlier in PRECEDENCE or keeps it."""
        before = PRECEDENCE.index(status_of(ResumeRejected(problems)))
        after = PRECEDENCE.index(status_of(ResumeRejected([*problems, extra])))
        assert after <= before

    def test_not_authorized_beats_everything(self) -> None:
        """A refused principal gets 403 whatever else is wrong."""
        problems = [Problem(code, "m") for code in ProblemCode]
        assert status_of(ResumeRejected(problems)) == 403


_VALIDATOR: Final = jsonschema_rs.validator_for(DECODE_ERROR_SCHEMA)


class TestBodies:
    def test_a_rejection_body_is_its_wire_form(self) -> None:
        """The body of a ResumeRejected reads back with loads, every problem kept."""
        rejected = ResumeRejected(
            [
                Problem(ProblemCode.SCHEMA_VIOLATION, "bad", 0, "respond", "c-1"),
                Problem(ProblemCode.MISSING, "none", interrupt_id="c-2"),
            ]
        )
        body = problem_body(rejected)
        assert body["type"] == "resume_rejected"
        assert loads(json.dumps(body), ResumeRejected).problems == rejected.problems

    def test_a_server_failure_keeps_its_words_on_the_server(self) -> None:
        """A 5xx body names the code (and a store's reason), never the message."""
        driver = '/srv/app/sessions.db: connection to "10.0.0.5" failed for "app"'
        down = StoreUnavailable("/srv/app/sessions.db", "unreachable", driver)
        assert status_of(down) == 503
        assert problem_body(down) == {
            "type": "store_unavailable",
            "message": SERVER_MESSAGE,
            "reason": "unreachable",
        }
        refused = PauseRefused(
            "pay", "c-1", Custom(), "the tool paused twice at /srv/app/tools.py"
        )
        assert status_of(refused) == 500
        assert problem_body(refused) == {
            "type": "pause_refused",
            "message": SERVER_MESSAGE,
        }

    def test_a_decode_error_body(self) -> None:
        """A DecodeError's body lists path, expected and got, and fits its schema."""
        error = DecodeError(
            [Mismatch("$.a", "a string", "1"), Mismatch("$.b", "no field", "x")]
        )
        body = problem_body(error)
        assert body == {
            "type": "decode_error",
            "problems": [
                {"path": "$.a", "expected": "a string", "got": "1"},
                {"path": "$.b", "expected": "no field", "got": "x"},
            ],
        }
        assert _VALIDATOR.is_valid(body)
        assert decode_error_from(body).problems == error.problems

    @given(
        st.lists(
            st.builds(Mismatch, st.text(), st.text(), st.text()),
            min_size=1,
            max_size=5,
        )
    )
    def test_decode_error_round_trips(self, mismatches: list[Mismatch]) -> None:
        """Any DecodeError's body fits the schema and reads back equal."""
        body = problem_body(DecodeError(mismatches))
        assert _VALIDATOR.is_valid(body)
        assert decode_error_from(json.loads(json.dumps(body))).problems == tuple(
            mismatches
        )

    @given(
        st.lists(
            st.builds(Mismatch, st.text(), st.text(), st.text()),
            min_size=1,
            max_size=5,
        )
    )
    def test_a_decode_error_is_a_wire_record(self, mismatches: list[Mismatch]) -> None:
        """A DecodeError is written by dumps as its body and read back by loads."""
        error = DecodeError(mismatches)
        text = dumps(error)
        assert json.loads(text) == problem_body(error)
        assert loads(text, DecodeError).problems == tuple(mismatches)

    @pytest.mark.parametrize(
        ("body", "path"),
        [
            ([], "$"),
            ({"type": "resume_rejected", "problems": []}, "$.type"),
            ({"type": "decode_error", "problems": [], "x": 1}, "$.x"),
            ({"type": "decode_error", "problems": []}, "$.problems"),
            ({"type": "decode_error", "problems": [{"path": 1}]}, "$.problems[0].path"),
        ],
    )
    def test_decode_error_from_refuses_other_bodies(
        self, body: interruption.JSON, path: str
    ) -> None:
        """A body that is not a decode_error body is a DecodeError at its path."""
        with pytest.raises(DecodeError) as caught:
            decode_error_from(body)
        assert path in {found.path for found in caught.value.problems}

    def test_other_errors_say_message_expected_got_where(self) -> None:
        """An InvalidArgument's body carries its pieces as fields."""
        body = problem_body(InvalidArgument("cancel: reason", "text", "''"))
        assert body == {
            "type": "invalid_argument",
            "message": "cancel: reason: expected text, got ''",
            "where": "cancel: reason",
            "expected": "text",
            "got": "''",
        }
        field = problem_body(FieldError("reason", "text", "''"))
        assert field["path"] == "$.reason"
        assert problem_body(SessionPaused("s", "paused")) == {
            "type": "session_paused",
            "message": "paused",
        }
