from __future__ import annotations

import asyncio

import pytest
from interruption import Message, ModelRequest, Role
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
