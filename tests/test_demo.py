"""The demo's human: where answers come from, how replies are read."""

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st
from interruption import Message, Role, ToolResponse
from interruption._demo import (
    APPROVAL_DEFAULT,
    QUESTION_DEFAULT,
    Human,
    NoAnswer,
    decision,
    script,
)
from interruption.runtime.loop import ModelRequest

_SEPARATORS = " \t\n\r\f\v,:;.-"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _ctrl_c(monkeypatch: pytest.MonkeyPatch) -> _Terminal:
    """A terminal where the person presses Ctrl-C at the first prompt."""
    terminal = _Terminal()

    def pressed(*_: object) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(terminal, "readline", pressed)
    return terminal


class TestDecision:
    @pytest.mark.parametrize("reply", ["y", "Y", "yes", "YES", "approve", "Approve"])
    def test_approvals(self, reply: str) -> None:
        """y, yes and approve approve, in any case."""
        assert decision(reply) == (True, "")

    @pytest.mark.parametrize(
        ("reply", "reason"),
        [
            ("n", "rejected by the human"),
            ("No", "rejected by the human"),
            ("reject", "rejected by the human"),
            ("n wrong account", "wrong account"),
            ("n, wrong account, call me", "wrong account, call me"),
            ("no: wrong account", "wrong account"),
            ("REJECT   wrong\naccount  ", "wrong\naccount"),
            ("n -", "rejected by the human"),
        ],
    )
    def test_rejections_keep_their_reason(self, reply: str, reason: str) -> None:
        """n, no or reject, then an optional reason that may hold commas."""
        assert decision(reply) == (False, reason)

    @pytest.mark.parametrize(
        "reply", ["", " ", "maybe", "not sure", "yes please", "nope", "yy", "approved"]
    )
    def test_anything_else_is_neither(self, reply: str) -> None:
        """A reply that is neither is None, so the prompt asks again."""
        assert decision(reply) is None

    @given(
        word=st.sampled_from(["n", "no", "reject", "N", "No", "REJECT"]),
        gap=st.text(_SEPARATORS, min_size=1, max_size=3).filter(
            lambda gap: not gap[0].isalnum()
        ),
        reason=st.text(min_size=1).filter(
            lambda text: text.strip() != "" and text[0] not in _SEPARATORS
        ),
    )
    def test_a_reason_reaches_the_model_whole(
        self, word: str, gap: str, reason: str
    ) -> None:
        """Whatever follows the word and its separators is the reason, trimmed."""
        assert decision(f"{word}{gap}{reason}") == (False, reason.strip())

    @given(st.text(max_size=20))
    def test_approve_and_reject_never_overlap(self, reply: str) -> None:
        """No reply both approves and rejects; an approval carries no reason."""
        decided = decision(reply)
        if decided is not None and decided[0]:
            assert decided == (True, "")
            assert reply.lower() in {"y", "yes", "approve"}


class TestHuman:
    def test_scripted_answers_in_order_then_no_answer(self) -> None:
        """Scripted answers are given in order; when they run out, NoAnswer (0)."""
        out = io.StringIO()
        human = Human(["Yes", "y"], _Terminal(), out)
        assert human.ask("q1?", QUESTION_DEFAULT) == "Yes"
        assert human.ask("q2?", APPROVAL_DEFAULT) == "y"
        with pytest.raises(NoAnswer) as stopped:
            human.ask("q3?", APPROVAL_DEFAULT)
        assert (stopped.value.how, stopped.value.status) == ("the answers ran out", 0)
        assert out.getvalue() == "q1? Yes\nq2? y\nq3?\n"

    def test_defaults_are_announced_once(self) -> None:
        """Without a terminal each default is shown, the announcement only once."""
        out = io.StringIO()
        human = Human(None, io.StringIO("ignored\n"), out)
        assert human.ask("q1?", "Yes") == "Yes"
        assert human.ask("q2?", "y") == "y"
        lines = out.getvalue().splitlines()
        assert lines[0].startswith("(no terminal on standard input and no --answers")
        assert lines[1:] == [
            "q1? Yes (the default: no terminal)",
            "q2? y (the default: no terminal)",
        ]

    def test_a_terminal_line_is_trimmed(self) -> None:
        """At a terminal the typed line is the answer, without its spaces."""
        out = io.StringIO()
        human = Human(None, _Terminal("  n wrong account \n"), out)
        assert human.ask("approve?", APPROVAL_DEFAULT) == "n wrong account"
        assert out.getvalue() == "approve? "

    def test_end_of_input_is_no_answer(self) -> None:
        """Ctrl-D (end of input) at a terminal is NoAnswer with status 0."""
        out = io.StringIO()
        human = Human(None, _Terminal(""), out)
        with pytest.raises(NoAnswer) as stopped:
            human.ask("approve?", APPROVAL_DEFAULT)
        assert (stopped.value.how, stopped.value.status) == ("end of input", 0)
        assert out.getvalue() == "approve? \n"

    def test_ctrl_c_is_no_answer(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Ctrl-C at a terminal is NoAnswer with status 130, not a traceback."""
        human = Human(None, _ctrl_c(monkeypatch), io.StringIO())
        with pytest.raises(NoAnswer) as stopped:
            human.ask("approve?", APPROVAL_DEFAULT)
        assert (stopped.value.how, stopped.value.status) == ("Ctrl-C", 130)
        assert stopped.value.__suppress_context__


class TestScript:
    def test_a_failed_transfer_is_reported(self) -> None:
        """A transfer that neither sent nor was rejected is reported as failed."""
        failed = ToolResponse("transfer_money", "call-2", {"error": "bank down"})
        request = ModelRequest((Message(Role.TOOL, (failed,)),), ())
        reply = script(request)
        assert reply.text == 'The transfer failed: {"error": "bank down"}'
