"""Helpers for driving the loop with no network: a scripted model.

`ScriptedModel` replays scripted messages, or calls a function for each
request, and records every request it saw::

    model = ScriptedModel(
        [
            Message(Role.MODEL, (ToolRequest("ask_user", input={"question": "Pay?"}),)),
            Message.of_text(Role.MODEL, "Paid."),
        ]
    )

The list form counts the steps it has answered in memory: it serves one
conversation in one process. A session that is reopened in another process
(a `SqliteStore` file, a web server's next request) needs
`ScriptedModel.following_history`, which picks each step from the request's
history, so every process that builds the same script answers alike.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable
from typing import final

from interruption.parts import Message, Role
from interruption.runtime.loop import ModelRequest

__all__ = ["ScriptedModel"]

Step = Message | Callable[[ModelRequest], Message | Awaitable[Message]]


@final
class ScriptedModel:
    """A model that follows a script.

    Built from a list, it answers with the list's steps in the order it is
    asked, counting in memory: **one process, one conversation**. A model
    built again (another process reopening a stored session) starts again
    at step 0 and replays it. For a session that outlives its process, use
    `following_history`, which reads the step from the conversation.

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
        self._by_history = False
        self.requests: list[ModelRequest] = []

    @classmethod
    def following_history(cls, script: Iterable[Step]) -> ScriptedModel:
        """A model whose step is read from the history, not counted.

        Step *i* answers a request whose messages hold *i* model messages
        (the answers of steps 0 to *i - 1*), so a session reopened in
        another process, with a model built from the same script, carries
        on where the stored history stands instead of starting again.

        Args:
            script: Messages (or callable steps) to answer with, in order.

        Returns:
            The model.
        """
        model = cls(list(script))
        model._by_history = True
        return model

    async def __call__(self, request: ModelRequest) -> Message:
        """Answer *request* with the script's next message.

        Raises:
            RuntimeError: when the script has run out (for a model that
                follows the history: it holds as many model messages as the
                script has steps, or more).
        """
        self.requests.append(request)
        if self._function is not None:
            step: Step = self._function
        elif self._by_history:
            done = sum(message.role is Role.MODEL for message in request.messages)
            if done >= len(self._steps):
                msg = (
                    f"the script has {len(self._steps)} steps and the history "
                    f"holds {done} model messages"
                )
                raise RuntimeError(msg)
            step = self._steps[done]
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
