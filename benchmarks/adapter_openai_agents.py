"""Time one pause → resume cycle of the OpenAI Agents SDK, alone and adapted.

Run with ``python benchmarks/adapter_openai_agents.py``. One *cycle*: the SDK's
`ScriptedModel` asks for a ``needs_approval`` tool, so the run pauses; the
run is resumed with the call approved; the tool runs and the model answers.

* *SDK alone* — the SDK's own durable flow: ``result.to_state().to_string()``
  is what a server would keep, ``RunState.from_string`` restores it,
  ``state.approve(item)`` and ``Runner.run`` continue.
* *with the adapter* — `pause` (map the interruptions, serialize and seal the
  state) and `resume` (open the token, restore the state, read what is
  pending from it, validate the `Resume`, spend the pause once in a
  `MemoryStore`, approve, continue), a new session each cycle.

Both run on one event loop, interleaved, best of 30 repeats; before
timing, each must pause, finish and run the tool exactly once per cycle.
"""

from __future__ import annotations

import itertools
from typing import Any, Final

from agents import Agent, Runner, RunState, function_tool, set_tracing_disabled
from agents.items import TResponseOutputItem
from agents.testing import (
    ModelCall,
    ModelStep,
    ScriptedModel,
    assistant_message,
    function_call,
)
from interruption import MemoryStore, Resume, Sealer
from interruption.adapters.openai_agents import pause, resume

from _common import Cycle, measure_cycle, print_cycle

set_tracing_disabled(disabled=True)

FRAMEWORK: Final = "OpenAI Agents SDK 0.24"


def _answer(call: ModelCall) -> list[TResponseOutputItem]:
    if isinstance(call.input, str) or not any(
        item.get("type") == "function_call_output" for item in call.input
    ):
        return [function_call("ping", {"n": 1}, call_id="call-1")]
    return [assistant_message("done")]


class Bench(Cycle):
    """One agent, one model, one loop; each cycle enqueues its two model steps."""

    def __init__(self) -> None:
        super().__init__()
        self.model = ScriptedModel()

        @function_tool(needs_approval=True)
        def ping(n: int) -> int:
            """Reply."""
            self.runs += 1
            return n

        self.agent: Agent[Any] = Agent(name="bench", model=self.model, tools=[ping])
        self.sealer = Sealer({"k1": b"b" * 32}, active="k1")
        self.store = MemoryStore()
        self.sessions = itertools.count()

    def _script(self) -> None:
        self.model.extend([ModelStep.respond(_answer), ModelStep.respond(_answer)])

    async def _alone(self) -> str:
        self._script()
        result = await Runner.run(self.agent, "go")
        kept = result.to_state().to_string()
        state = await RunState.from_string(self.agent, kept)
        (item,) = state.get_interruptions()
        state.approve(item)
        done = await Runner.run(self.agent, state)
        return str(done.final_output)

    async def _adapted(self) -> str:
        self._script()
        session = f"s-{next(self.sessions)}"
        paused = pause(await Runner.run(self.agent, "go"), self.sealer, session=session)
        (only,) = paused.interrupts
        answer = Resume(restart=[only.approve()])
        done = await resume(
            self.agent, paused.token, answer, self.sealer, self.store, session=session
        )
        return str(done.final_output)


def measure() -> tuple[str, float, float]:
    """Time one cycle alone and with the adapter, interleaved.

    Returns:
        (framework, SDK-alone µs, with-adapter µs).
    """
    return measure_cycle(FRAMEWORK, Bench())


def main() -> None:
    """Print the table."""
    print_cycle(*measure())


if __name__ == "__main__":
    main()
