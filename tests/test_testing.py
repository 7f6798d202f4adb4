from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from interruption import (
    JSON,
    Message,
    ModelRequest,
    Resume,
    Role,
    SqliteStore,
    ToolContext,
    ToolRequest,
    tool,
)
from interruption.runtime.approval import await_human
from interruption.runtime.session import Session
from interruption.testing import ScriptedModel

REQUEST = ModelRequest((Message.of_text(Role.USER, "hi"),), ())


def reply(text: str) -> Message:
    """A model message of one text."""
    return Message.of_text(Role.MODEL, text)


class TestScriptedModel:
    def test_replays_messages_in_order(self) -> None:
        """Scripted messages come back in order, and every request is recorded."""
        model = ScriptedModel([reply("one"), reply("two")])
        assert asyncio.run(model(REQUEST)) == reply("one")
        assert asyncio.run(model(REQUEST)) == reply("two")
        assert model.requests == [REQUEST, REQUEST]

    def test_running_out_raises(self) -> None:
        """A request past the script's end is a RuntimeError."""
        model = ScriptedModel([reply("one")])
        asyncio.run(model(REQUEST))
        with pytest.raises(RuntimeError, match="1 steps and all were used"):
            asyncio.run(model(REQUEST))

    def test_callable_steps(self) -> None:
        """A step may be a function of the request, sync or async."""

        async def later(request: ModelRequest) -> Message:
            return reply(f"{len(request.messages)} later")

        model = ScriptedModel([lambda request: reply(request.messages[0].text), later])
        assert asyncio.run(model(REQUEST)) == reply("hi")
        assert asyncio.run(model(REQUEST)) == reply("1 later")

    def test_one_function_answers_everything(self) -> None:
        """A single callable answers every request, without running out."""
        model = ScriptedModel(lambda _request: reply("again"))
        for _ in range(3):
            assert asyncio.run(model(REQUEST)) == reply("again")
        assert len(model.requests) == 3


def history(answered: int) -> ModelRequest:
    """A request whose history holds *answered* model messages."""
    messages = [Message.of_text(Role.USER, "hi")]
    for step in range(answered):
        messages += [reply(f"step {step}"), Message.of_text(Role.USER, "and?")]
    return ModelRequest(tuple(messages), ())


@tool(input={"type": "object"}, output={"type": "string"})
def transfer_money(_ctx: ToolContext[None], _data: JSON) -> JSON:
    """Send money."""
    return "sent"


PAY = Message(Role.MODEL, (ToolRequest("transfer_money", input={"amount": 5}),))


def reopened(path: Path, model: ScriptedModel, session: str) -> Session:
    """A session on a SQLite file, as another process would open it."""
    store = SqliteStore(str(path))
    return Session(store, model, [transfer_money], id=session, approver=await_human())


class TestFollowingHistory:
    @given(
        size=st.integers(1, 6),
        asked=st.lists(st.integers(0, 5), min_size=1, max_size=8),
    )
    def test_the_step_is_the_number_of_model_messages(
        self, size: int, asked: list[int]
    ) -> None:
        """Step i answers a history of i model messages, in any order asked."""
        model = ScriptedModel.following_history(
            reply(f"step {step}") for step in range(size)
        )
        for answered in asked:
            if answered < size:
                got = asyncio.run(model(history(answered)))
                assert got == reply(f"step {answered}")
            else:
                with pytest.raises(RuntimeError, match=f"{answered} model messages"):
                    asyncio.run(model(history(answered)))
        assert len(model.requests) == len(asked)

    def test_callable_steps(self) -> None:
        """A step of a history-following script may be a function."""
        model = ScriptedModel.following_history(
            [reply("zero"), lambda request: reply(f"{len(request.messages)}")]
        )
        assert asyncio.run(model(history(1))) == reply("3")

    def test_a_session_reopened_in_another_process_carries_on(
        self, tmp_path: Path
    ) -> None:
        """A model built again from the same script answers the stored step."""
        script = [PAY, reply("Paid.")]
        path = tmp_path / "sessions.db"
        first = reopened(path, ScriptedModel.following_history(script), "s1")
        paused = first.send_sync("Pay INV-7")
        (pending,) = paused.interrupts
        assert paused.turn is not None
        second = reopened(path, ScriptedModel.following_history(script), "s1")
        answer = Resume(restart=[pending.approve()])
        done = second.resume_sync(answer, turn_id=paused.turn.turn_id)
        assert done.finish_reason == "stop"
        assert done.message == reply("Paid.")

    def test_the_list_form_counts_in_memory(self, tmp_path: Path) -> None:
        """The list form, built again, starts at step 0: one process only."""
        script = [PAY, reply("Paid.")]
        path = tmp_path / "sessions.db"
        paused = reopened(path, ScriptedModel(script), "s1").send_sync("Pay INV-7")
        (pending,) = paused.interrupts
        second = reopened(path, ScriptedModel(script), "s1")
        replayed = second.resume_sync(Resume(restart=[pending.approve()]))
        assert replayed.finish_reason == "interrupted"  # step 0 asked again
