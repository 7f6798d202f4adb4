"""Time one pause → resume cycle of a LangChain agent, alone and adapted.

Run with ``python benchmarks/adapter_langchain.py``. One *cycle*: an agent
made by ``create_agent`` with ``HumanInTheLoopMiddleware`` (batched mode) on
``InMemorySaver`` and a scripted chat model asks for one gated
``transfer_money`` call, pauses, is approved on the same thread, runs the
transfer and answers; a new thread each cycle.

* *LangChain alone* — the client reads the interrupt from
  ``get_state(config).interrupts`` and resumes with
  ``invoke(Command(resume={id: {"decisions": [{"type": "approve"}]}}))``.
* *with the adapter* — the client reads `pending` (a typed
  `PendingInterrupt` per gated call) and calls `resume`, which reads the
  checkpoint again, authorizes, checks the review's allowed decisions,
  validates the `Resume`, spends the pause once in a `MemoryStore`, builds
  the decisions by tool call id, runs from the validated checkpoint and
  reads what is pending next.

Both interleaved, best of 30 repeats; before timing, each must pause,
finish and transfer exactly once per cycle.
"""

from __future__ import annotations

import itertools
from typing import Any, Final

from interruption import MemoryStore, Resume
from interruption.adapters.langchain import pending, resume
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from _common import best_us, print_cycle

FRAMEWORK: Final = "LangChain 1.4 agent (HITL middleware)"

SENT: list[int] = []


class Pay(BaseChatModel):
    """Asks for one transfer, then says it is done."""

    @property
    def _llm_type(self) -> str:
        return "pay"

    def bind_tools(self, *_args: object, **_kwargs: object) -> Pay:
        """The tools are known already."""
        return self

    def _generate(
        self, messages: list[BaseMessage], *_args: object, **_kwargs: object
    ) -> ChatResult:
        if messages[-1].type == "human":
            call = {
                "name": "transfer_money",
                "args": {"to": "ACME", "amount": 125000},
                "id": "call-1",
                "type": "tool_call",
            }
            message = AIMessage(content="", tool_calls=[call])
        else:
            message = AIMessage(content="Paid.")
        return ChatResult(generations=[ChatGeneration(message=message)])


@tool
def transfer_money(to: str, amount: int) -> str:
    """Send money."""
    SENT.append(amount)
    return f"sent {amount} to {to}"


class Bench:
    """One agent and a new thread per cycle."""

    def __init__(self) -> None:
        self.threads = itertools.count()
        self.store = MemoryStore()
        middleware = HumanInTheLoopMiddleware(
            interrupt_on={
                "transfer_money": {"allowed_decisions": ["approve", "reject"]}
            }
        )
        self.agent: Any = create_agent(
            Pay(),
            tools=[transfer_money],
            middleware=[middleware],
            checkpointer=InMemorySaver(),
        )

    def _start(self) -> RunnableConfig:
        config: RunnableConfig = {
            "configurable": {"thread_id": f"t-{next(self.threads)}"}
        }
        self.agent.invoke({"messages": [{"role": "user", "content": "Pay"}]}, config)
        return config

    def alone(self) -> object:
        """One cycle through LangChain alone."""
        config = self._start()
        (found,) = self.agent.get_state(config).interrupts
        decisions = {"decisions": [{"type": "approve"}]}
        return self.agent.invoke(Command(resume={found.id: decisions}), config)

    def adapted(self) -> object:
        """One cycle through the adapter."""
        config = self._start()
        pause = pending(self.agent, config)
        assert pause is not None
        (approval,) = pause.interrupts
        return resume(
            self.agent, config, Resume(restart=[approval.approve()]), self.store
        )

    def check(self) -> None:
        """Each cycle must pause, finish, and transfer once."""
        for cycle in (self.alone, self.adapted):
            SENT.clear()
            cycle()
            if SENT != [125000]:
                msg = f"{cycle.__name__}: transferred {SENT}"
                raise AssertionError(msg)


def measure() -> tuple[str, float, float]:
    """Time one cycle alone and with the adapter, interleaved.

    Returns:
        (framework, LangChain-alone µs, with-adapter µs).
    """
    bench = Bench()
    bench.check()
    alone, adapted = best_us(bench.alone, bench.adapted)
    return FRAMEWORK, alone, adapted


def main() -> None:
    """Print the table."""
    print_cycle(*measure())


if __name__ == "__main__":
    main()
