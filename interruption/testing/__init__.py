"""Helpers for driving the loop with no network: a scripted model.

`ScriptedModel` replays scripted messages in order, or calls a function for
each request, and records every request it saw::

    model = ScriptedModel(
        [
            Message(Role.MODEL, (ToolRequest("ask_user", input={"question": "Pay?"}),)),
            Message.of_text(Role.MODEL, "Paid."),
        ]
    )
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable
from typing import final

from interruption.loop import ModelRequest
from interruption.parts import Message

__all__ = ["ScriptedModel"]

Step = Message | Callable[[ModelRequest], Message | Awaitable[Message]]


@final
class ScriptedModel:
    """A model that follows a script.

    Args:
        script: Messages to answer with, in order; a callable step is called
            with the request and answers with its message (sync or async).
            A single callable answers every request.

    Attributes:
        requests: Every request received, in order.
    """

    def __init__(
        self,
        script: Iterable[Step] | Callable[[ModelRequest], Message | Awaitable[Message]],
    ) -> None:
        self._function = script if callable(script) else None
        self._steps: list[Step] = [] if callable(script) else list(script)
        self._next = 0
        self.requests: list[ModelRequest] = []

    async def __call__(self, request: ModelRequest) -> Message:
        """Answer *request* with the script's next message.

        Raises:
            RuntimeError: when the script has run out.
        """
        self.requests.append(request)
        if self._function is not None:
            step: Step = self._function
        else:
            if self._next >= len(self._steps):
                msg = f"the script has {len(self._steps)} steps and all were used"
                raise RuntimeError(msg)
            step = self._steps[self._next]
            self._next += 1
        if isinstance(step, Message):
            return step
        answer = step(request)
        if inspect.isawaitable(answer):
            answer = await answer
        return answer
