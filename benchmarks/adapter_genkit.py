"""Time one pause → resume cycle of Genkit, alone and adapted.

Run with ``python benchmarks/adapter_genkit.py``. One *cycle*: a scripted
model (``define_model``) asks for a tool that raises ``Interrupt``, so
``generate`` ends ``interrupted``; the turn is resumed with the tool
restarted; the tool runs and the model answers.

* *Genkit alone* — its own flow: the paused history is dumped to Genkit's
  wire JSON (what a server would keep), read back, and ``generate`` is
  called on it with ``resume_restart=[restart_tool(...)]``.
* *with the adapter* — `pause` (dump the history, mint refs, derive the
  interrupts from the record, keep it in a `MemoryStore`) and `resume`
  (load the record, validate the `Resume` against it, spend the turn id
  once in the same store, build the restart part, continue).

Both run on one event loop, interleaved, best of 30 repeats; before
timing, each must pause, finish and run the tool exactly once per cycle.
"""

from __future__ import annotations

from typing import Final

from genkit import (
    ActionRunContext,
    FinishReason,
    Genkit,
    Message,
    ModelRequest,
    ModelResponse,
    Part,
    Role,
    ToolRequest,
    ToolRunContext,
    restart_tool,
)
from interruption import MemoryStore, Resume
from interruption.adapters.genkit import (
    approved,
    needs_approval,
    pause,
    resume,
)

from _common import Cycle, measure_cycle, print_cycle

FRAMEWORK: Final = "genkit 0.12"
APPROVAL: Final[dict[str, object]] = {"approve": {}}


async def _answer(
    request: ModelRequest[object], _ctx: ActionRunContext
) -> ModelResponse:
    if request.messages[-1].role == Role.TOOL:
        content = [Part(text="done")]
    else:
        call = ToolRequest(name="ping", input=1, ref="call-1")
        content = [Part(tool_request=call)]
    message = Message(role=Role.MODEL, content=content)
    return ModelResponse(message=message, finish_reason=FinishReason.STOP)


class Bench(Cycle):
    """One app, one model, one loop."""

    def __init__(self) -> None:
        super().__init__()
        self.ai = Genkit()
        self.ai.define_model("scripted", _answer)

        @self.ai.tool()
        async def ping(n: int, ctx: ToolRunContext) -> int:
            """Reply, once approved."""
            if not approved(ctx):
                raise needs_approval({"n": n})
            self.runs += 1
            return n

        self.tools = [ping]
        self.store = MemoryStore()

    async def _first(self) -> ModelResponse[object]:
        response: ModelResponse[object] = await self.ai.generate(
            model="scripted", prompt="go", tools=self.tools
        )
        return response

    async def _alone(self) -> str:
        paused = await self._first()
        kept = [
            message.model_dump_json(by_alias=True, exclude_none=True)
            for message in paused.messages
        ]
        messages = [Message.model_validate_json(message) for message in kept]
        restart = [
            restart_tool(interrupt=part, resumed_metadata=APPROVAL)
            for part in messages[-1].interrupts
        ]
        done = await self.ai.generate(
            model="scripted",
            messages=messages,
            tools=self.tools,
            resume_restart=restart,
        )
        return done.text

    async def _adapted(self) -> str:
        paused = await pause(await self._first(), self.store, tools=self.tools)
        assert paused is not None
        answer = Resume(restart=[pending.approve() for pending in paused.interrupts])
        done = await resume(
            self.ai,
            paused.id,
            answer,
            self.store,
            model="scripted",
            tools=self.tools,
        )
        return done.text


def measure() -> tuple[str, float, float]:
    """Time one cycle alone and with the adapter, interleaved.

    Returns:
        (framework, Genkit-alone µs, with-adapter µs).
    """
    return measure_cycle(FRAMEWORK, Bench())


def main() -> None:
    """Print the table."""
    print_cycle(*measure())


if __name__ == "__main__":
    main()
