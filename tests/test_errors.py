import asyncio
import copy
import json
import math
import pickle
import subprocess
import sys
from collections.abc import Callable
from typing import Any, NoReturn

import pytest
from hypothesis import given
from hypothesis import strategies as st
from interruption import (
    JSON,
    Accepts,
    ApprovalPending,
    ArgumentTypeError,
    Confirm,
    Custom,
    DecodeError,
    EventLoopRunning,
    FieldError,
    FieldTypeError,
    Interrupted,
    InterruptionError,
    InterruptionKind,
    InvalidArgument,
    Mismatch,
    PayloadError,
    PendingInterrupt,
    Phase,
    Problem,
    ProblemCode,
    ResumeRejected,
    ScheduledPause,
    SchemaError,
    dumps,
    interrupt,
    interrupt_with,
    json_schema,
    loads,
)
from interruption._json import MAX_DEPTH
from interruption.schemas import conforms

from tests.strategies import interrupteds, json_values, kinds

WRONG: Any = 5
"""A value of the wrong type for any field (typed Any: the checks are run-time)."""


@pytest.fixture(name="paused")
def _paused() -> Interrupted:
    return Interrupted(ApprovalPending("tu-1"), {"tool": "transfer", "amount": 125})


def _deep(levels: int) -> JSON:
    value: JSON = []
    for _ in range(levels - 1):
        value = [value]
    return value


class TestInterrupted:
    def test_is_control_flow_not_a_failure(self) -> None:
        """A pause derives from BaseException, outside the failure tree."""
        assert issubclass(Interrupted, BaseException)
        assert not issubclass(Interrupted, Exception)
        assert not issubclass(Interrupted, InterruptionError)

    def test_except_exception_does_not_swallow_it(self, paused: Interrupted) -> None:
        """A tool body's ``except Exception:`` lets a pause through."""
        swallowed = False

        def pause() -> NoReturn:
            raise paused

        def tool() -> None:
            nonlocal swallowed
            try:
                pause()
            except Exception:  # noqa: BLE001 - the point of the test
                swallowed = True

        with pytest.raises(Interrupted) as caught:
            tool()
        assert caught.value is paused
        assert not swallowed

    def test_passes_through_asyncio_tasks(self, paused: Interrupted) -> None:
        """A pause raised in a task reaches whoever awaits the task."""

        async def tool() -> None:
            raise paused

        async def main() -> None:
            await asyncio.create_task(tool())

        with pytest.raises(Interrupted) as caught:
            asyncio.run(main())
        assert caught.value == paused

    def test_attributes(self, paused: Interrupted) -> None:
        """The kind and payload are kept as given, and as the exception's args."""
        assert paused.kind == ApprovalPending("tu-1")
        assert paused.payload == {"tool": "transfer", "amount": 125}
        assert paused.args == (paused.kind, paused.payload)

    def test_payload_defaults_to_null(self) -> None:
        """Without a payload, the human is shown ``null``."""
        assert Interrupted(Custom()).payload is None

    @pytest.mark.parametrize(
        ("kind", "text"),
        [
            (Custom(), "dispatch interrupted for human review (custom)"),
            (
                ApprovalPending("tu-1"),
                "dispatch interrupted for human review (approval_pending: tu-1)",
            ),
            (
                ScheduledPause(Phase.BEFORE, "charge"),
                (
                    "dispatch interrupted for human review "
                    "(scheduled_pause: before charge)"
                ),
            ),
            (
                ScheduledPause(Phase.AFTER, "ship"),
                "dispatch interrupted for human review (scheduled_pause: after ship)",
            ),
        ],
    )
    def test_str(self, kind: InterruptionKind, text: str) -> None:
        """The message names the kind's tag and its details."""
        assert str(Interrupted(kind, {"x": 1})) == text

    def test_repr(self) -> None:
        """The repr shows the kind and the payload."""
        assert repr(Interrupted(ApprovalPending("tu-1"), [1])) == (
            "Interrupted(ApprovalPending(tool_use_id='tu-1'), [1])"
        )

    def test_equal_by_kind_and_json_payload(self) -> None:
        """Pauses compare by kind and JSON-equal payload."""
        assert Interrupted(Custom(), {"a": 1, "b": 2}) == Interrupted(
            Custom(), {"b": 2, "a": 1.0}
        )
        assert Interrupted(Custom(), 1) != Interrupted(Custom(), payload=True)
        assert Interrupted(Custom(), 1) != Interrupted(ApprovalPending("tu-1"), 1)
        assert Interrupted(ApprovalPending("a"), 1) != Interrupted(
            ApprovalPending("b"), 1
        )

    def test_not_equal_to_other_types(self, paused: Interrupted) -> None:
        """A pause is never equal to something that is not a pause."""
        assert paused != paused.args
        assert paused != "dispatch interrupted"

    @given(interrupteds())
    def test_equal_pauses_hash_alike(self, paused: Interrupted) -> None:
        """Equal pauses have equal hashes, so they can be set members."""
        twin = Interrupted(paused.kind, copy.deepcopy(paused.payload))
        assert twin == paused
        assert hash(twin) == hash(paused)
        assert len({twin, paused}) == 1

    @given(interrupteds())
    def test_pickles(self, paused: Interrupted) -> None:
        """A pause survives pickling (process pools send exceptions back)."""
        assert pickle.loads(pickle.dumps(paused)) == paused  # noqa: S301 - our own bytes

    def test_copies(self, paused: Interrupted) -> None:
        """A pause can be copied and deep-copied."""
        assert copy.copy(paused) == paused
        assert copy.deepcopy(paused) == paused

    def test_rejects_a_kind_that_is_not_a_kind(self) -> None:
        """The kind must be one of the three kinds, not a tag string."""
        with pytest.raises(TypeError, match=r"^kind: expected Custom, ApprovalPending"):
            Interrupted("custom", 1)  # type: ignore[arg-type]

    @pytest.mark.parametrize(
        ("payload", "path", "expected", "got"),
        [
            ({1, 2}, "$", "a JSON value", "a set"),
            (b"bytes", "$", "a JSON value", "a bytes"),
            (math.nan, "$", "a finite number", "nan"),
            (math.inf, "$", "a finite number", "inf"),
            ({"a": [1, -math.inf]}, "$.a[1]", "a finite number", "-inf"),
            ({1: "x"}, "$", "object keys that are strings", "1"),
            ({"d": {"e": (1,)}}, "$.d.e", "a JSON value", "a tuple"),
            ("\udc00", "$", "a string of valid Unicode", "a lone surrogate"),
            (2**53, "$", "an integer within ±9007199254740991 (I-JSON)", str(2**53)),
        ],
    )
    def test_payload_must_be_json(
        self, payload: object, path: str, expected: str, got: str
    ) -> None:
        """A non-JSON payload fails at the raise site, naming the path."""
        with pytest.raises(PayloadError) as caught:
            Interrupted(Custom(), payload)  # type: ignore[arg-type]
        assert (caught.value.path, caught.value.expected, caught.value.got) == (
            path,
            expected,
            got,
        )
        assert isinstance(caught.value, TypeError)

    def test_payload_cycle(self) -> None:
        """A payload that contains itself is a PayloadError, not a RecursionError."""
        payload: dict[str, object] = {}
        payload["self"] = payload
        with pytest.raises(PayloadError) as caught:
            Interrupted(Custom(), payload)  # type: ignore[arg-type]
        assert (caught.value.path, caught.value.got) == ("$.self", "a reference cycle")

    def test_payload_too_deep(self) -> None:
        """A payload nested deeper than the limit is a PayloadError."""
        Interrupted(Custom(), _deep(MAX_DEPTH))
        with pytest.raises(PayloadError) as caught:
            Interrupted(Custom(), _deep(MAX_DEPTH + 1))
        assert caught.value.expected == f"at most {MAX_DEPTH} levels of nesting"

    def test_payload_errors_are_all_reported(self) -> None:
        """Every bad spot of a payload is listed, not only the first."""
        payload: object = {"a": {1}, "b": [math.nan, b""]}
        with pytest.raises(PayloadError) as caught:
            Interrupted(Custom(), payload)  # type: ignore[arg-type]
        assert [problem.path for problem in caught.value.problems] == [
            "$.a",
            "$.b[0]",
            "$.b[1]",
        ]
        assert str(caught.value) == (
            "3 problems:\n"
            "  $.a: expected a JSON value, got a set\n"
            "  $.b[0]: expected a finite number, got nan\n"
            "  $.b[1]: expected a JSON value, got a bytes"
        )

    @given(kinds(), json_values())
    def test_any_kind_with_any_json(
        self, kind: InterruptionKind, payload: JSON
    ) -> None:
        """Every kind takes every JSON payload."""
        paused = Interrupted(kind, payload)
        assert (paused.kind, paused.payload) == (kind, payload)


class TestInterrupt:
    def test_raises_custom(self) -> None:
        """`interrupt` pauses with the Custom kind and the given payload."""
        with pytest.raises(Interrupted) as caught:
            interrupt({"question": "Pay INV-7 today?"})
        assert caught.value == Interrupted(Custom(), {"question": "Pay INV-7 today?"})

    def test_payload_defaults_to_null(self) -> None:
        """Without a payload, `interrupt` pauses with ``null``."""
        with pytest.raises(Interrupted) as caught:
            interrupt()
        assert caught.value.payload is None

    def test_not_json_is_a_payload_error_instead(self) -> None:
        """A bad payload raises PayloadError rather than pausing."""
        with pytest.raises(PayloadError, match=r"^\$\.when: expected a JSON value"):
            interrupt({"when": object()})  # type: ignore[dict-item]

    def test_huge_integer_is_a_payload_error(self) -> None:
        """An integer too large to print is still a PayloadError."""
        with pytest.raises(PayloadError) as caught:
            interrupt([10**5000])
        assert (caught.value.path, caught.value.got) == (
            "$[0]",
            "an integer of 16610 bits",
        )

    def test_is_not_caught_by_except_exception(self) -> None:
        """A function that calls `interrupt` under ``except Exception`` still pauses."""

        def tool() -> NoReturn:
            try:
                interrupt("stop")
            except Exception:  # noqa: BLE001 - the point of the test
                pytest.fail("except Exception caught a pause")

        with pytest.raises(Interrupted):
            tool()


class TestInterruptWith:
    @given(kinds(), json_values())
    def test_raises_the_kind(self, kind: InterruptionKind, payload: JSON) -> None:
        """`interrupt_with` pauses with the given kind and payload."""
        with pytest.raises(Interrupted) as caught:
            interrupt_with(kind, payload)
        assert caught.value == Interrupted(kind, payload)

    def test_not_a_kind(self) -> None:
        """A tag string is not a kind."""
        with pytest.raises(TypeError, match="got str"):
            interrupt_with("custom")  # type: ignore[arg-type]

    def test_not_json_is_a_payload_error_instead(self) -> None:
        """A bad payload raises PayloadError rather than pausing."""
        with pytest.raises(PayloadError):
            interrupt_with(ApprovalPending("tu-1"), {"amount": math.nan})


class TestInterruptionError:
    @pytest.mark.parametrize("cls", [DecodeError, PayloadError, ResumeRejected])
    def test_is_the_base_of_every_failure(self, cls: type[Exception]) -> None:
        """Every failure is an InterruptionError, and thus an Exception."""
        assert issubclass(cls, InterruptionError)
        assert issubclass(InterruptionError, Exception)

    @pytest.mark.parametrize(
        ("cls", "std"),
        [
            (DecodeError, ValueError),
            (PayloadError, TypeError),
            (ResumeRejected, ValueError),
        ],
    )
    def test_share_the_stdlib_meaning(
        self, cls: type[Exception], std: type[Exception]
    ) -> None:
        """``except ValueError`` / ``except TypeError`` catch the matching failure."""
        assert issubclass(cls, std)


class TestCodes:
    """Every failure a caller can meet is public, with a stable code."""

    @staticmethod
    def _public_failures() -> list[type[InterruptionError]]:
        import interruption  # noqa: PLC0415 - every public name, lazy ones too

        found = [getattr(interruption, name) for name in dir(interruption)]
        return [
            cls
            for cls in found
            if isinstance(cls, type) and issubclass(cls, InterruptionError)
        ]

    def test_each_public_failure_has_its_own_code(self) -> None:
        """Each exported failure declares a snake_case code no other one has."""
        failures = self._public_failures()
        codes = [cls.__dict__.get("code") for cls in failures]
        assert all(isinstance(code, str) and code.isidentifier() for code in codes)
        assert all(code == code.lower() for code in codes if isinstance(code, str))
        assert len(set(codes)) == len(codes)
        assert {FieldError, SchemaError} <= set(failures)

    def test_codes_are_stable(self) -> None:
        """The codes of the core's failures are these strings, for good."""
        assert {cls.__name__: cls.code for cls in self._public_failures()} == {
            "ArgumentTypeError": "argument_type_error",
            "ContinuationUnfinished": "continuation_unfinished",
            "DecodeError": "decode_error",
            "EventLoopRunning": "event_loop_running",
            "ExtraMissing": "extra_missing",
            "FieldError": "field_error",
            "FieldTypeError": "field_type_error",
            "InterruptionError": "interruption_error",
            "InvalidArgument": "invalid_argument",
            "PauseRefused": "pause_refused",
            "PayloadError": "payload_error",
            "ResumeRejected": "resume_rejected",
            "SchemaError": "schema_error",
            "SessionBusy": "session_busy",
            "SessionInUse": "session_in_use",
            "SessionPaused": "session_paused",
            "StoreUnavailable": "store_unavailable",
            "ToolContractError": "tool_contract_error",
            "TurnIdTaken": "turn_id_taken",
        }

    def test_an_instance_carries_its_class_code(self) -> None:
        """An error's code is its class's, whatever its problems."""
        error = DecodeError([Mismatch("$", "a", "b")])
        assert error.code == "decode_error"
        assert ResumeRejected.of(ProblemCode.MISSING, "m").code == "resume_rejected"

    def test_rejecting_with_no_reason_is_a_library_error(self) -> None:
        """``reject("")`` raises a FieldError, an InterruptionError naming the field."""
        pending = PendingInterrupt(
            "call-1", ApprovalPending("call-1"), None, None, Accepts()
        )
        with pytest.raises(InterruptionError) as caught:
            pending.reject("")
        assert isinstance(caught.value, FieldError)
        assert isinstance(caught.value, ValueError)
        assert (caught.value.code, caught.value.path) == ("field_error", "$.reason")
        assert (caught.value.expected, caught.value.got) == ("a non-empty string", "''")

    def test_an_unusable_schema_is_a_library_error(self) -> None:
        """A schema that cannot run raises SchemaError, an InterruptionError."""
        pending = PendingInterrupt(
            "q-1", Custom(), None, None, Accepts(respond={"type": 5})
        )
        with pytest.raises(InterruptionError) as caught:
            pending.respond("Yes")
        assert isinstance(caught.value, SchemaError)
        assert isinstance(caught.value, ValueError)
        assert caught.value.code == "schema_error"
        assert caught.value.path == "$.type"
        assert caught.value.mismatches == caught.value.problems
        assert caught.value.message == str(caught.value.problems[0])

    @pytest.mark.parametrize(
        ("build", "field", "expected"),
        [
            (lambda: ApprovalPending(WRONG), "tool_use_id", "a string"),
            (
                lambda: ScheduledPause(WRONG, "n"),
                "phase",
                "Phase.BEFORE or Phase.AFTER",
            ),
            (
                lambda: Interrupted(WRONG),
                "kind",
                "Custom, ApprovalPending or ScheduledPause",
            ),
            (lambda: Confirm("t", "q", [WRONG]), "choices", "strings"),
            (lambda: Problem(ProblemCode.MISSING, WRONG), "message", "a string"),
        ],
    )
    def test_a_value_of_the_wrong_type_is_a_library_error(
        self, build: Callable[[], object], field: str, expected: str
    ) -> None:
        """A field given the wrong type raises FieldTypeError: a TypeError and ours."""
        with pytest.raises(FieldTypeError) as caught:
            build()
        error = caught.value
        assert isinstance(error, TypeError)
        assert isinstance(error, FieldError)
        assert isinstance(error, InterruptionError)
        assert (error.code, error.field, error.expected) == (
            "field_type_error",
            field,
            expected,
        )
        assert str(error).startswith(f"{field}: expected {expected}, got ")

    def test_an_argument_of_the_wrong_type_is_both_kinds(self) -> None:
        """ArgumentTypeError is an InvalidArgument and a TypeError, with its pieces."""
        error = ArgumentTypeError("f: names", "a collection", "the string 'x'")
        assert isinstance(error, InvalidArgument)
        assert isinstance(error, TypeError)
        assert isinstance(error, ValueError)
        assert (error.code, error.where, error.expected, error.got) == (
            "argument_type_error",
            "f: names",
            "a collection",
            "the string 'x'",
        )
        assert str(error) == "f: names: expected a collection, got the string 'x'"

    def test_a_blocking_call_in_a_running_loop_is_a_runtime_error(self) -> None:
        """EventLoopRunning is a RuntimeError naming what to await, and pickles."""
        error = EventLoopRunning("generate")
        assert isinstance(error, RuntimeError)
        assert (error.code, error.where) == ("event_loop_running", "generate")
        assert str(error) == (
            "generate: expected no running event loop in this thread, got one: "
            "await generate instead"
        )
        copied = pickle.loads(pickle.dumps(error))  # noqa: S301 - our own bytes
        assert (str(copied), copied.where) == (str(error), "generate")

    def test_field_error_pickles(self) -> None:
        """A field error survives pickling with its pieces."""
        error = pickle.loads(pickle.dumps(FieldError("node", "x", "y")))  # noqa: S301 - our own bytes
        assert (error.field, error.expected, error.got, error.path) == (
            "node",
            "x",
            "y",
            "$.node",
        )


class TestDecodeError:
    def test_attributes_of_the_first_problem(self) -> None:
        """``.path``, ``.expected`` and ``.got`` are the first problem's pieces."""
        error = DecodeError(
            [
                Mismatch("$.kind.phase", "one of 'before', 'after'", "'during'"),
                Mismatch("$.x", "only the fields kind, payload", "unknown field 'x'"),
            ]
        )
        assert (error.path, error.expected, error.got) == (
            "$.kind.phase",
            "one of 'before', 'after'",
            "'during'",
        )
        assert len(error.problems) == 2

    def test_str_of_one_problem(self) -> None:
        """One problem reads as: path, expected, got."""
        error = DecodeError(
            [Mismatch("$.kind.phase", "one of 'before', 'after'", "'during'")]
        )
        assert (
            str(error)
            == "$.kind.phase: expected one of 'before', 'after', got 'during'"
        )

    def test_str_of_several_problems(self) -> None:
        """Several problems are counted and listed one per line."""
        error = DecodeError([Mismatch("$.a", "x", "y"), Mismatch("$.b", "z", "w")])
        assert (
            str(error)
            == "2 problems:\n  $.a: expected x, got y\n  $.b: expected z, got w"
        )

    def test_needs_a_problem(self) -> None:
        """An error without problems is a programming mistake."""
        with pytest.raises(ValueError, match="expected at least one Mismatch"):
            DecodeError([])

    def test_no_problem_is_an_invalid_argument(self) -> None:
        """An error built of no problem raises the library's InvalidArgument."""
        with pytest.raises(InvalidArgument) as caught:
            DecodeError([])
        assert (caught.value.where, caught.value.got) == (
            "DecodeError: problems",
            "none",
        )

    def test_pickles(self) -> None:
        """A decode error survives pickling with its problems."""
        error = DecodeError([Mismatch("$.a", "x", "y")])
        again = pickle.loads(pickle.dumps(error))  # noqa: S301 - our own bytes
        assert again.problems == error.problems
        assert str(again) == str(error)


class TestPayloadError:
    def test_attributes(self) -> None:
        """A payload error carries its problems like a decode error."""
        error = PayloadError([Mismatch("$.a", "a JSON value", "a set")])
        assert (error.path, error.expected, error.got) == (
            "$.a",
            "a JSON value",
            "a set",
        )
        assert str(error) == "$.a: expected a JSON value, got a set"

    def test_needs_a_problem(self) -> None:
        """An error without problems is a programming mistake."""
        with pytest.raises(ValueError, match="PayloadError: problems: expected"):
            PayloadError(iter(()))


@pytest.fixture(name="problems")
def _problems() -> list[Problem]:
    return [
        Problem(
            ProblemCode.ANSWER_NOT_ACCEPTED,
            "call-1 accepts restart, got respond",
            index=0,
            answer="respond",
            interrupt_id="call-1",
        ),
        Problem(ProblemCode.MISSING, "call-2 got no answer", interrupt_id="call-2"),
    ]


class TestProblem:
    def test_str_of_an_entry(self, problems: list[Problem]) -> None:
        """A problem with an entry names its list and position."""
        assert str(problems[0]) == (
            "answer_not_accepted at respond[0]: call-1 accepts restart, got respond"
        )

    def test_str_without_an_entry(self, problems: list[Problem]) -> None:
        """A problem that concerns no entry names the interrupt instead."""
        assert str(problems[1]) == "missing for call-2: call-2 got no answer"

    def test_str_of_the_whole_resume(self) -> None:
        """A problem with neither entry nor interrupt is the code and message."""
        assert str(Problem(ProblemCode.CONSUMED, "already resumed")) == (
            "consumed: already resumed"
        )

    def test_defaults(self) -> None:
        """Only the code and the message are required."""
        problem = Problem(ProblemCode.CONSUMED, "already resumed")
        assert (problem.index, problem.answer, problem.interrupt_id) == (
            None,
            None,
            None,
        )


class TestProblemText:
    @pytest.mark.parametrize("field", ["message", "answer", "interrupt_id"])
    def test_a_lone_surrogate_is_refused(self, field: str) -> None:
        """A problem's text must have a wire form: no lone surrogate anywhere."""
        words = {"message": "m", "answer": "respond", "interrupt_id": "call-1"}
        with pytest.raises(PayloadError) as caught:
            Problem(ProblemCode.MISSING, **{**words, field: "x\ud800"})  # type: ignore[arg-type]
        assert caught.value.path == f"$.{field}"


class TestProblemCode:
    def test_codes_are_the_designs(self) -> None:
        """The codes are stable strings, exactly the design's table."""
        assert [code.value for code in ProblemCode] == [
            "unknown_interrupt",
            "not_interrupted",
            "duplicate",
            "conflict",
            "missing",
            "answer_not_accepted",
            "input_modified",
            "schema_violation",
            "expired",
            "consumed",
            "bad_token",
            "not_authorized",
            "nothing_pending",
            "unknown_session",
            "unknown_turn",
        ]

    def test_compares_to_its_string(self) -> None:
        """A code equals its wire string, so callers can match either."""
        wire: object = "expired"
        assert wire == ProblemCode.EXPIRED


class TestResumeRejected:
    def test_attributes(self, problems: list[Problem]) -> None:
        """The error keeps every problem, and their codes in order."""
        error = ResumeRejected(problems)
        assert error.problems == tuple(problems)
        assert error.codes == (ProblemCode.ANSWER_NOT_ACCEPTED, ProblemCode.MISSING)

    def test_str_of_one_problem(self, problems: list[Problem]) -> None:
        """One problem reads on one line."""
        assert str(ResumeRejected(problems[1:])) == (
            "resume rejected: missing for call-2: call-2 got no answer"
        )

    def test_str_of_several_problems(self, problems: list[Problem]) -> None:
        """Several problems are counted and listed one per line."""
        assert str(ResumeRejected(problems)) == (
            "resume rejected, 2 problems:\n"
            "  answer_not_accepted at respond[0]: call-1 accepts restart, got respond\n"
            "  missing for call-2: call-2 got no answer"
        )

    def test_needs_a_problem(self) -> None:
        """An error without problems is a programming mistake."""
        with pytest.raises(ValueError, match="ResumeRejected: problems: expected"):
            ResumeRejected([])

    def test_no_problem_is_an_invalid_argument(self) -> None:
        """A rejection built of no problem raises the library's InvalidArgument."""
        with pytest.raises(InvalidArgument) as caught:
            ResumeRejected([])
        assert (caught.value.where, caught.value.expected, caught.value.got) == (
            "ResumeRejected: problems",
            "at least one Problem",
            "none",
        )

    def test_pickles(self, problems: list[Problem]) -> None:
        """A rejection survives pickling with its problems."""
        again = pickle.loads(pickle.dumps(ResumeRejected(problems)))  # noqa: S301 - our own bytes
        assert again.problems == tuple(problems)

    def test_of_builds_a_rejection_of_one_problem(self) -> None:
        """ResumeRejected.of is a one-problem rejection that names no entry."""
        error = ResumeRejected.of(ProblemCode.CONSUMED, "already resumed")
        assert error.problems == (Problem(ProblemCode.CONSUMED, "already resumed"),)
        assert str(error) == "resume rejected: consumed: already resumed"

    def test_of_may_name_the_interrupt(self) -> None:
        """A one-problem rejection may name the interrupt it concerns."""
        error = ResumeRejected.of(
            ProblemCode.ANSWER_NOT_ACCEPTED, "no decision", interrupt_id="call-1"
        )
        (problem,) = error.problems
        assert (problem.index, problem.answer, problem.interrupt_id) == (
            None,
            None,
            "call-1",
        )


class TestResumeRejectedOnTheWire:
    def test_the_wire_form_is_spelled_out(self) -> None:
        """A rejection's wire form is tagged and lists every problem's fields."""
        rejection = ResumeRejected(
            [
                Problem(ProblemCode.DUPLICATE, "twice", 1, "respond", "tu-1"),
                Problem(ProblemCode.MISSING, "no answer"),
            ]
        )
        assert json.loads(dumps(rejection)) == {
            "type": "resume_rejected",
            "problems": [
                {
                    "code": "duplicate",
                    "message": "twice",
                    "index": 1,
                    "answer": "respond",
                    "interrupt_id": "tu-1",
                },
                {
                    "code": "missing",
                    "message": "no answer",
                    "index": None,
                    "answer": None,
                    "interrupt_id": None,
                },
            ],
        }

    @given(
        st.lists(
            st.builds(
                Problem,
                st.sampled_from(ProblemCode),
                st.text(max_size=8),
                st.none() | st.integers(0, 9),
                st.none() | st.sampled_from(["respond", "restart"]),
                st.none() | st.text(max_size=4),
            ),
            min_size=1,
            max_size=4,
        )
    )
    def test_dumps_and_loads_round_trip(self, problems: list[Problem]) -> None:
        """loads(dumps(rejection), ResumeRejected) gives back the same problems."""
        again = loads(dumps(ResumeRejected(problems)), ResumeRejected)
        assert isinstance(again, ResumeRejected)
        assert again.problems == tuple(problems)

    def test_a_rejection_without_problems_is_a_decode_error(self) -> None:
        """An empty list of problems is refused at its path."""
        with pytest.raises(DecodeError) as caught:
            loads('{"type": "resume_rejected", "problems": []}', ResumeRejected)
        assert (caught.value.path, caught.value.got) == ("$.problems", "none")

    def test_not_an_object_is_a_decode_error(self) -> None:
        """A rejection's wire form must be an object."""
        with pytest.raises(DecodeError) as caught:
            loads("[]", ResumeRejected)
        assert caught.value.expected == "an object (ResumeRejected)"

    def test_its_schema_accepts_what_dumps_writes(self) -> None:
        """The published schema of the wire form accepts dumps' output."""
        rejection = ResumeRejected.of(ProblemCode.CONSUMED, "replayed")
        schema = json_schema(ResumeRejected)
        assert conforms(json.loads(dumps(rejection)), schema)
        assert not conforms({"type": "resume_rejected", "problems": []}, schema)


def test_the_pause_is_control_flow_outside_the_error_tree() -> None:
    """`Interrupted` lives in `interruption.pause`, a BaseException, not an error."""
    import interruption.errors  # noqa: PLC0415
    import interruption.pause  # noqa: PLC0415

    assert interruption.pause.Interrupted.__module__ == "interruption.pause"
    assert not issubclass(interruption.pause.Interrupted, Exception)
    assert not hasattr(interruption.errors, "Interrupted")
    assert not set(interruption.pause.__all__) & set(interruption.errors.__all__)


BASE_ERRORS = [
    FieldError,
    FieldTypeError,
    InterruptionError,
    InvalidArgument,
    Mismatch,
    PayloadError,
]
"""The classes the lowest modules raise, defined beneath `interruption.errors`."""

RAISE_LOW = """
import math, sys
from interruption._json import canonical
from interruption._validators import frozen_payload
from interruption.kinds import ApprovalPending
for fail in (
    lambda: canonical(math.nan),
    lambda: frozen_payload({1: 2}),
    lambda: ApprovalPending(5),
    lambda: ApprovalPending(""),
):
    try:
        fail()
    except Exception as error:
        print(type(error).__name__)
print(sorted(m for m in sys.modules if m.startswith("interruption")))
"""
"""Raises a failure of each low module, then lists the modules of ours loaded."""


class TestBaseErrors:
    """The failures of the lowest modules are public in `interruption.errors`."""

    @pytest.mark.parametrize("cls", BASE_ERRORS)
    def test_errors_is_their_public_home(self, cls: type[object]) -> None:
        """Each names `interruption.errors` as its module, which exports it."""
        import interruption.errors  # noqa: PLC0415

        assert cls.__module__ == "interruption.errors"
        assert getattr(interruption.errors, cls.__name__) is cls
        assert cls.__name__ in interruption.errors.__all__

    def test_every_failure_of_errors_is_exported(self) -> None:
        """`interruption.errors.__all__` names every failure class it holds."""
        import interruption.errors  # noqa: PLC0415

        failures = {
            name
            for name, value in vars(interruption.errors).items()
            if isinstance(value, type)
            and issubclass(value, InterruptionError)
            and value.__module__ == "interruption.errors"
            and not name.startswith("_")
        }
        assert failures - {"MismatchError"} <= set(interruption.errors.__all__)

    @given(
        problems=st.lists(
            st.builds(Mismatch, st.text(), st.text(), st.text()), min_size=1
        )
    )
    def test_a_payload_error_pickles(self, problems: list[Mismatch]) -> None:
        """A payload error and its mismatches survive pickling, by their public home."""
        error = PayloadError(problems)
        again = pickle.loads(pickle.dumps(error))  # noqa: S301 - our own bytes
        assert type(again) is PayloadError
        assert again.problems == error.problems
        assert str(again) == str(error)

    def test_the_low_modules_raise_without_reaching_up(self) -> None:
        """The JSON checks, field validators and kinds raise without loading errors."""
        found = subprocess.run(  # noqa: S603 - our own interpreter and code
            [sys.executable, "-c", RAISE_LOW],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.splitlines()
        assert found[:4] == [
            "PayloadError",
            "PayloadError",
            "FieldTypeError",
            "FieldError",
        ]
        assert "interruption.errors" not in found[4]
        assert "interruption._base_errors" in found[4]

    def test_the_base_errors_import_nothing_of_ours(self) -> None:
        """`interruption._base_errors` stands on the ground floor of the package."""
        check = (
            "import sys, interruption._base_errors; "
            "print(*sorted(m for m in sys.modules if m.startswith('interruption')))"
        )
        found = subprocess.run(  # noqa: S603 - our own interpreter and code
            [sys.executable, "-c", check], capture_output=True, text=True, check=True
        )
        assert found.stdout.split() == ["interruption", "interruption._base_errors"]
