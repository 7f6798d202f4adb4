"""Time one pause → resume cycle of pydantic-ai, alone and adapted.

Run with ``python benchmarks/adapter_pydantic_ai.py``. One *cycle*: a
`FunctionModel` asks for a ``requires_approval`` tool, so the run ends with
`DeferredToolRequests`; the run is resumed with the call approved; the tool
runs and the model answers.

* *pydantic-ai alone* — its own durable flow: the run's `Conversation` is
  serialized with ``ConversationTypeAdapter`` (what a server would keep),
  read back, answered with ``requests.build_results(approvals={id: True})``
  and continued with ``agent.run(conversation=..., deferred_tool_results=...)``.
* *with the adapter* — `pause` (serialize the conversation, derive the
  interrupts from the record, keep it in a `MemoryStore`) and `resume`
  (load the record, validate the `Resume` against it, spend the run id once
  in the same store, build the results, continue).

Both run on one event loop, interleaved, best of 30 repeats; before
timing, each must pause, finish and run the tool exactly once per cycle.
"""

from __future__ import annotations

from typing import Final

from interruption import MemoryStore, Resume
from interruption.adapters.pydantic_ai import pause, resume
from pydantic_ai import Agent, DeferredToolRequests
from pydantic_ai.conversation import ConversationTypeAdapter
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from _common import Cycle, measure_cycle, print_cycle

FRAMEWORK: Final = "pydantic-ai 2.68"

Output = str | DeferredToolRequests


def _answer(messages: list[ModelMessage], _info: AgentInfo) -> ModelResponse:
    if any(isinstance(part, ToolReturnPart) for part in messages[-1].parts):
        return ModelResponse(parts=[TextPart("done")])
    return ModelResponse(parts=[ToolCallPart("ping", {"n": 1}, "call-1")])


class Bench(Cycle):
    """One agent, one model, one loop."""

    def __init__(self) -> None:
        super().__init__()
        self.agent: Agent[None, Output] = Agent(
            FunctionModel(_answer), output_type=[str, DeferredToolRequests]
        )

        @self.agent.tool_plain(requires_approval=True)
        def ping(n: int) -> int:
            """Reply."""
            self.runs += 1
            return n

        del ping
        self.store = MemoryStore()

    async def _alone(self) -> str:
        result = await self.agent.run("go")
        kept = ConversationTypeAdapter.dump_json(result.conversation)
        conversation = ConversationTypeAdapter.validate_json(kept)
        requests = conversation.deferred_tool_requests
        assert requests is not None
        approvals = {call.tool_call_id: True for call in requests.approvals}
        results = requests.build_results(approvals=approvals)
        done = await self.agent.run(
            conversation=conversation, deferred_tool_results=results
        )
        return str(done.output)

    async def _adapted(self) -> str:
        paused = await pause(await self.agent.run("go"), self.store)
        assert paused is not None
        answer = Resume(restart=[pending.approve() for pending in paused.interrupts])
        done = await resume(self.agent, paused.id, answer, self.store)
        return str(done.output)


def measure() -> tuple[str, float, float]:
    """Time one cycle alone and with the adapter, interleaved.

    Returns:
        (framework, pydantic-ai-alone µs, with-adapter µs).
    """
    return measure_cycle(FRAMEWORK, Bench())


def main() -> None:
    """Print the table."""
    print_cycle(*measure())


if __name__ == "__main__":
    main()
