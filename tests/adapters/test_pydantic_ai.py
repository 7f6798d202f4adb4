"""The pydantic-ai adapter, against real agents on scripted FunctionModels."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Coroutine, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar, cast

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from interruption import (
    JSON,
    ApprovalPending,
    Custom,
    DecodeError,
    EventLoopRunning,
    InvalidArgument,
    MemoryStore,
    PendingInterrupt,
    ProblemCode,
    Respond,
    Restart,
    Resume,
    ResumePolicy,
    ResumeRejected,
    SchemaError,
    SqliteStore,
    Store,
    ToolRequest,
    json_equal,
)
from interruption.adapters import _kept
from interruption.adapters.pydantic_ai import (
    PausedRun,
    failed,
    load_paused,
    pause,
    pause_sync,
    resume,
    resume_sync,
)
from interruption.runtime.approval import DECISION_SCHEMA
from pydantic_ai import (
    Agent,
    ApprovalRequired,
    CallDeferred,
    DeferredToolRequests,
    DeferredToolResults,
    RunContext,
)
from pydantic_ai._utils import run_until_complete
from pydantic_ai.conversation import Conversation, ConversationTypeAdapter
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.run import AgentRunResult
from pydantic_graph._utils import get_event_loop

from tests.adapters._common import import_error
from tests.strategies import json_values

TRANSFER: dict[str, JSON] = {"to": "ACME", "amount": 125000}
ANSWER: dict[str, JSON] = {"enum": ["Yes", "No"]}
SCHEMAS: dict[str, dict[str, JSON]] = {"ask_user": ANSWER}

Output = str | DeferredToolRequests
T = TypeVar("T")


def drive(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run *coroutine* on the thread's loop, the one ``agent.run_sync`` uses.

    ``asyncio.run`` would unset that loop and leak it (a ResourceWarning).
    """
    return run_until_complete(coroutine)


@pytest.fixture(autouse=True)
def _close_the_loop() -> Iterator[None]:
    """Close the loop ``agent.run_sync`` left on the thread, after each test."""
    yield
    get_event_loop().close()
    asyncio.set_event_loop(None)


def transfer(
    ref: str = "t1", args: dict[str, JSON] | str | None = None
) -> ToolCallPart:
    """The model's call of ``transfer_money``."""
    return ToolCallPart("transfer_money", TRANSFER if args is None else args, ref)


def question(ref: str = "q1") -> ToolCallPart:
    """The model's call of ``ask_user``."""
    return ToolCallPart("ask_user", {"question": "Pay INV-7 today?"}, ref)


def lookup(ref: str = "l1") -> ToolCallPart:
    """The model's call of ``lookup``, which finishes in its batch."""
    return ToolCallPart("lookup", {"invoice": "INV-7"}, ref)


@attrs.define
class World:
    """One conversation's effects and what its model was shown.

    Attributes:
        steps: The model's tool calls, one batch per model call; after the
            last batch it says "done".
    """

    steps: Sequence[Sequence[ToolCallPart]]
    transfers: list[dict[str, JSON]] = attrs.Factory(list)
    lookups: int = 0
    seen: list[object] = attrs.Factory(list)

    def model(self, messages: list[ModelMessage], _info: AgentInfo) -> ModelResponse:
        """Call the next batch; record the tool results shown."""
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        self.seen.extend(
            part.content for part in last.parts if isinstance(part, ToolReturnPart)
        )
        step = sum(isinstance(message, ModelResponse) for message in messages)
        if step < len(self.steps):
            return ModelResponse(parts=[copy.deepcopy(p) for p in self.steps[step]])
        return ModelResponse(parts=[TextPart("done")])

    def agent(self) -> Agent[None, Output]:
        """A fresh agent (one "process") over this world."""
        agent: Agent[None, Output] = Agent(
            FunctionModel(self.model), output_type=[str, DeferredToolRequests]
        )

        @agent.tool_plain(requires_approval=True)
        def transfer_money(to: str, amount: int) -> str:
            """Send money."""
            self.transfers.append({"to": to, "amount": amount})
            return "sent"

        @agent.tool_plain
        def ask_user(question: str) -> str:
            """Ask the user."""
            raise CallDeferred(kind="question", metadata={"question": question})

        @agent.tool_plain
        def lookup(invoice: str) -> str:
            """Look an invoice up."""
            self.lookups += 1
            return f"{invoice}: 125000"

        del transfer_money, ask_user, lookup
        return agent


@attrs.define
class Setup:
    """A world, its agent and the store it paused in, paused on the first batch."""

    world: World
    agent: Agent[None, Output]
    store: Store
    result: AgentRunResult[Output]
    paused: PausedRun

    def resume(
        self, answer: Resume, policy: ResumePolicy | None = None
    ) -> AgentRunResult[Output]:
        """Resume the paused run (sync)."""
        return resume_sync(
            self.agent, self.paused.id, answer, self.store, policy=policy
        )

    def refused(self, answer: Resume, run_id: str | None = None) -> tuple[str, ...]:
        """Resume, expecting a refusal; return its problem codes."""
        run = self.paused.id if run_id is None else run_id
        with pytest.raises(ResumeRejected) as refused:
            resume_sync(self.agent, run, answer, self.store)
        return tuple(code.value for code in refused.value.codes)


def paused_on(*batches: Sequence[ToolCallPart], store: Store | None = None) -> Setup:
    """Run a fresh world until it pauses on its first batch."""
    world = World(batches)
    agent = world.agent()
    store = store or MemoryStore()
    result = agent.run_sync("Pay INV-7")
    paused = pause_sync(result, store, answer_schemas=SCHEMAS)
    assert paused is not None
    return Setup(world, agent, store, result, paused)


def by_id(paused: PausedRun) -> dict[str, PendingInterrupt]:
    """The paused run's interrupts by id."""
    return {pending.id: pending for pending in paused.interrupts}


class TestImport:
    @pytest.mark.parametrize("missing", ["pydantic_ai", "pydantic"])
    def test_a_missing_extra_is_named(self, missing: str) -> None:
        """Without pydantic-ai (or pydantic), importing the adapter names the extra."""
        out = import_error("interruption.adapters.pydantic_ai", missing)
        assert "pip install 'interruption[pydantic-ai]'" in out


class TestPause:
    def test_a_finished_run_is_not_paused(self) -> None:
        """A run that ends with text keeps nothing and returns None."""
        world = World([])
        store = MemoryStore()
        result = world.agent().run_sync("hi")
        assert result.output == "done"
        assert pause_sync(result, store) is None

    def test_an_approval_is_approval_pending(self) -> None:
        """A requires_approval call is ApprovalPending bound to its exact call."""
        setup = paused_on([transfer()])
        (pending,) = setup.paused.interrupts
        assert pending.id == "t1"
        assert pending.kind == ApprovalPending("t1")
        assert pending.tool == ToolRequest("transfer_money", "t1", TRANSFER)
        assert pending.payload == {"tool": "transfer_money", "args": TRANSFER}
        assert pending.accepts.respond is None
        assert pending.accepts.restart == DECISION_SCHEMA

    def test_a_deferred_call_is_custom_with_its_declared_schema(self) -> None:
        """A CallDeferred call is Custom, answered by its tool's schema or failed."""
        setup = paused_on([question()])
        (pending,) = setup.paused.interrupts
        assert pending.kind == Custom()
        assert pending.tool == ToolRequest(
            "ask_user", "q1", {"question": "Pay INV-7 today?"}
        )
        assert pending.accepts.restart is None
        assert pending.respond("Yes").output == "Yes"
        assert failed(pending, "closed").output == {
            "kind": "tool-failed",
            "message": "closed",
        }
        wrongs: list[JSON] = ["Maybe", {"kind": "tool-failed"}]
        for wrong in wrongs:
            with pytest.raises(ResumeRejected) as refused:
                pending.respond(wrong)
            assert refused.value.codes == (ProblemCode.SCHEMA_VIOLATION,)

    def test_an_undeclared_deferred_call_takes_any_json(self) -> None:
        """An undeclared deferred tool takes any JSON; a failure-shaped one must fit."""
        world = World([[question()]])
        paused = pause_sync(world.agent().run_sync("go"), MemoryStore())
        assert paused is not None
        (pending,) = paused.interrupts
        anythings: list[JSON] = ["Maybe", 7, {"a": [1]}, {"kind": "receipt"}, None]
        for anything in anythings:
            assert pending.respond(anything).output == anything
        with pytest.raises(ResumeRejected) as refused:
            pending.respond({"kind": "tool-failed", "message": ""})
        assert refused.value.codes == (ProblemCode.SCHEMA_VIOLATION,)

    def test_string_arguments_are_shown_parsed(self) -> None:
        """Arguments a model sent as a JSON string are the call's input, parsed."""
        setup = paused_on([transfer(args='{"to": "ACME", "amount": 125000}')])
        (pending,) = setup.paused.interrupts
        assert pending.tool is not None
        assert pending.tool.input == TRANSFER
        setup.resume(Resume(restart=[pending.approve()]))
        assert setup.world.transfers == [TRANSFER]

    def test_approvals_come_before_deferred_calls(self) -> None:
        """Interrupts follow pydantic-ai's order: approvals, then deferred calls."""
        setup = paused_on([question(), transfer(), lookup()])
        assert [p.id for p in setup.paused.interrupts] == ["t1", "q1"]
        assert setup.world.lookups == 1

    def test_an_unrunnable_schema_is_refused_at_pause(self) -> None:
        """A declared answer schema that cannot run fails at pause, not at resume."""
        world = World([[question()]])
        store = MemoryStore()
        result = world.agent().run_sync("go")
        with pytest.raises(SchemaError):
            pause_sync(result, store, answer_schemas={"ask_user": {"type": "nope"}})

    def test_every_pause_gets_a_fresh_id(self) -> None:
        """Pausing the same result twice keeps two runs under different ids."""
        setup = paused_on([transfer()])
        again = pause_sync(setup.result, setup.store, answer_schemas=SCHEMAS)
        assert again is not None
        assert again.id != setup.paused.id
        assert again.interrupts == setup.paused.interrupts

    def test_a_fresh_process_reads_the_same_interrupts(self, tmp_path: Path) -> None:
        """load_paused over the same SQLite file gives back what pause returned."""
        setup = paused_on([transfer(), question()], store=SqliteStore(tmp_path / "k"))
        fresh = SqliteStore(tmp_path / "k")
        loaded = drive(load_paused(setup.paused.id, fresh))
        assert loaded == setup.paused

    def test_an_unknown_run_has_nothing_to_load(self) -> None:
        """load_paused of an unknown or malformed id is unknown_interrupt."""
        for run_id in ("nope", "", "n\x00ul", "x" * 3000, cast("str", 7)):
            with pytest.raises(ResumeRejected) as refused:
                drive(load_paused(run_id, MemoryStore()))
            assert refused.value.codes == (ProblemCode.UNKNOWN_INTERRUPT,)


class TestResume:
    def test_approving_runs_the_call_once_with_its_arguments(self) -> None:
        """An approval runs the call once, as paused; the model sees its result."""
        setup = paused_on([transfer()])
        (pending,) = setup.paused.interrupts
        result = setup.resume(Resume(restart=[pending.approve("checked")]))
        assert result.output == "done"
        assert setup.world.transfers == [TRANSFER]
        assert setup.world.seen == ["sent"]

    def test_rejecting_tells_the_model_and_runs_nothing(self) -> None:
        """A rejection runs nothing and the model sees the reason."""
        setup = paused_on([transfer()])
        (pending,) = setup.paused.interrupts
        setup.resume(Resume(restart=[pending.reject("wrong account")]))
        assert setup.world.transfers == []
        assert setup.world.seen == ["wrong account"]

    def test_an_answer_is_what_the_model_sees(self) -> None:
        """A valid answer to a deferred call is the tool result the model sees."""
        setup = paused_on([question()])
        (pending,) = setup.paused.interrupts
        setup.resume(Resume(respond=[pending.respond("Yes")]))
        assert setup.world.seen == ["Yes"]

    def test_an_object_answer_is_a_plain_result(self) -> None:
        """An answer shaped like a pydantic-ai result kind is still just data."""
        world = World([[question()]])
        agent = world.agent()
        store = MemoryStore()
        paused = pause_sync(agent.run_sync("go"), store)
        assert paused is not None
        forged_kind: JSON = {"kind": "model-retry", "message": "try again"}
        answer = Resume(respond=[paused.interrupts[0].respond(forged_kind)])
        resume_sync(agent, paused.id, answer, store)
        assert world.seen == [forged_kind]

    def test_the_model_sees_a_plain_copy_of_an_answer(self) -> None:
        """pydantic-ai gets a plain dict it may change; the answer keeps its own."""
        world = World([[question()]])
        agent = world.agent()
        store = MemoryStore()
        paused = pause_sync(agent.run_sync("go"), store)
        assert paused is not None
        answer = paused.interrupts[0].respond({"answer": ["Yes"]})
        resume_sync(agent, paused.id, Resume(respond=[answer]), store)
        (seen,) = world.seen
        assert type(seen) is dict
        assert type(seen["answer"]) is list
        seen["answer"].append("No")
        assert answer.output == {"answer": ["Yes"]}

    def test_a_mixed_batch_reuses_the_finished_call(self) -> None:
        """Approval and question answered together; the finished call is not rerun."""
        setup = paused_on([transfer(), question(), lookup()])
        pending = by_id(setup.paused)
        answer = Resume(
            respond=[pending["q1"].respond("No")],
            restart=[pending["t1"].approve()],
        )
        setup.resume(answer)
        assert setup.world.transfers == [TRANSFER]
        assert setup.world.lookups == 1
        assert "No" in setup.world.seen
        assert "sent" in setup.world.seen

    def test_a_continued_run_may_pause_again(self) -> None:
        """A resumed run that pauses again is paused under a new id; both spend once."""
        setup = paused_on([transfer("t1")], [transfer("t2")])
        first = setup.resume(Resume(restart=[setup.paused.interrupts[0].approve()]))
        again = pause_sync(first, setup.store)
        assert again is not None
        assert [p.id for p in again.interrupts] == ["t2"]
        resume_sync(
            setup.agent,
            again.id,
            Resume(restart=[again.interrupts[0].approve()]),
            setup.store,
        )
        assert len(setup.world.transfers) == 2
        codes = setup.refused(Resume(restart=[setup.paused.interrupts[0].approve()]))
        assert codes == ("consumed",)

    def test_deps_reach_the_resumed_tool(self) -> None:
        """The deps given to resume are the continued run's deps."""
        used: list[str] = []

        def model(messages: list[ModelMessage], _info: AgentInfo) -> ModelResponse:
            if len(messages) == 1:
                return ModelResponse(parts=[ToolCallPart("wipe", {}, "w1")])
            return ModelResponse(parts=[TextPart("done")])

        agent: Agent[str, Output] = Agent(
            FunctionModel(model), deps_type=str, output_type=[str, DeferredToolRequests]
        )

        @agent.tool(requires_approval=True)
        def wipe(ctx: RunContext[str]) -> str:
            """Wipe a disk."""
            used.append(ctx.deps)
            return "wiped"

        store = MemoryStore()
        paused = pause_sync(agent.run_sync("go", deps="first"), store)
        assert paused is not None
        answer = Resume(restart=[paused.interrupts[0].approve()])
        resume_sync(agent, paused.id, answer, store, deps="ops")
        assert used == ["ops"]
        del wipe

    def test_a_tool_asking_for_approval_itself_runs_once_approved(self) -> None:
        """A tool raising ApprovalRequired pauses as an approval and runs once."""
        wiped: list[str] = []

        def model(messages: list[ModelMessage], _info: AgentInfo) -> ModelResponse:
            if len(messages) == 1:
                return ModelResponse(parts=[ToolCallPart("wipe", {"disk": "d1"}, "w1")])
            return ModelResponse(parts=[TextPart("done")])

        agent: Agent[None, Output] = Agent(
            FunctionModel(model), output_type=[str, DeferredToolRequests]
        )

        @agent.tool
        def wipe(ctx: RunContext[None], disk: str) -> str:
            """Wipe a disk, once a human approved."""
            if not ctx.tool_call_approved:
                raise ApprovalRequired
            wiped.append(disk)
            return "wiped"

        store = MemoryStore()
        paused = pause_sync(agent.run_sync("go"), store)
        assert paused is not None
        (pending,) = paused.interrupts
        assert pending.kind == ApprovalPending("w1")
        resume_sync(agent, paused.id, Resume(restart=[pending.approve()]), store)
        assert wiped == ["d1"]
        del wipe

    def test_resume_is_async_too(self) -> None:
        """The async pause and resume are the same channel as the sync twins."""
        world = World([[transfer()]])
        agent = world.agent()

        async def cycle() -> None:
            store = MemoryStore()
            paused = await pause(await agent.run("go"), store)
            assert paused is not None
            answer = Resume(restart=[paused.interrupts[0].approve()])
            await resume(agent, paused.id, answer, store)
            with pytest.raises(RuntimeError, match="running event loop"):
                resume_sync(agent, paused.id, answer, store)
            with pytest.raises(RuntimeError, match="running event loop"):
                pause_sync(await agent.run("again"), store)

        drive(cycle())
        assert world.transfers == [TRANSFER]

    def test_a_sync_twin_in_a_running_loop_is_event_loop_running(self) -> None:
        """pause_sync in a running loop raises the library's EventLoopRunning."""
        world = World([[transfer()]])
        agent = world.agent()

        async def inside() -> None:
            result = await agent.run("go")
            with pytest.raises(EventLoopRunning) as caught:
                pause_sync(result, MemoryStore())
            assert (caught.value.code, caught.value.where) == (
                "event_loop_running",
                "pause",
            )

        drive(inside())


class TestRefusals:
    def test_a_replay_is_consumed(self) -> None:
        """The same run id and answers twice: the second is consumed; one transfer."""
        setup = paused_on([transfer()])
        answer = Resume(restart=[setup.paused.interrupts[0].approve()])
        setup.resume(answer)
        assert setup.refused(answer) == ("consumed",)
        assert setup.world.transfers == [TRANSFER]

    def test_a_result_for_an_approval_is_refused(self) -> None:
        """A client-made result for an approval call is refused; nothing runs."""
        setup = paused_on([transfer()])
        (pending,) = setup.paused.interrupts
        forged = Respond("transfer_money", "t1", "sent")
        assert setup.refused(Resume(respond=[forged])) == ("answer_not_accepted",)
        assert setup.world.transfers == []
        assert setup.world.seen == []
        setup.resume(Resume(restart=[pending.approve()]))
        assert setup.world.transfers == [TRANSFER]

    def test_changed_arguments_are_refused(self) -> None:
        """An approval carrying other arguments is input_modified; nothing runs."""
        setup = paused_on([transfer()])
        changed = {**TRANSFER, "to": "MALLORY"}
        forged = Restart("transfer_money", "t1", "approve", input=changed)
        assert setup.refused(Resume(restart=[forged])) == ("input_modified",)
        assert setup.world.transfers == []
        same = Restart("transfer_money", "t1", "approve", input={**TRANSFER})
        setup.resume(Resume(restart=[same]))
        assert setup.world.transfers == [TRANSFER]

    def test_history_edited_after_the_pause_never_runs(self) -> None:
        """Editing the run's messages after pause changes nothing that runs."""
        setup = paused_on([transfer()])
        response = setup.result.all_messages()[1]
        assert isinstance(response, ModelResponse)
        call = response.parts[0]
        assert isinstance(call, ToolCallPart)
        assert isinstance(call.args, dict)
        cast("dict[str, object]", call.args)["to"] = "MALLORY"
        tool = setup.paused.interrupts[0].tool
        assert tool is not None
        assert tool.input == TRANSFER  # what the client was shown is a copy
        setup.resume(Resume(restart=[setup.paused.interrupts[0].approve()]))
        assert setup.world.transfers == [TRANSFER]

    def test_an_answer_outside_its_schema_is_refused(self) -> None:
        """An answer that breaks its declared schema is refused; nothing runs."""
        setup = paused_on([question()])
        forged = Respond("ask_user", "q1", "Maybe")
        assert setup.refused(Resume(respond=[forged])) == ("schema_violation",)
        assert setup.world.seen == []

    def test_a_restart_of_a_deferred_call_is_refused(self) -> None:
        """A deferred call takes a result only, never a restart."""
        setup = paused_on([question()])
        forged = Restart("ask_user", "q1", "approve")
        assert setup.refused(Resume(restart=[forged])) == ("answer_not_accepted",)

    def test_an_unknown_run_id_is_refused(self) -> None:
        """A run id nobody paused is unknown_interrupt."""
        setup = paused_on([transfer()])
        answer = Resume(restart=[setup.paused.interrupts[0].approve()])
        assert setup.refused(answer, run_id="forged") == ("unknown_interrupt",)
        assert setup.world.transfers == []

    def test_a_missing_answer_is_refused(self) -> None:
        """Every deferred call needs an answer; a partial resume is missing."""
        setup = paused_on([transfer(), question()])
        answer = Resume(respond=[by_id(setup.paused)["q1"].respond("Yes")])
        assert setup.refused(answer) == ("missing",)
        assert setup.world.seen == []

    def test_partial_resumes_are_not_offered(self) -> None:
        """A policy allowing partial resumes is refused before anything is spent."""
        setup = paused_on([transfer()])
        answer = Resume(restart=[setup.paused.interrupts[0].approve()])
        with pytest.raises(ValueError, match="allow_partial"):
            setup.resume(answer, policy=ResumePolicy(allow_partial=True))
        setup.resume(answer)
        assert setup.world.transfers == [TRANSFER]

    def test_partial_resumes_are_an_invalid_argument(self) -> None:
        """The refusal is the library's InvalidArgument at policy.allow_partial."""
        setup = paused_on([transfer()])
        answer = Resume(restart=[setup.paused.interrupts[0].approve()])
        with pytest.raises(InvalidArgument) as caught:
            setup.resume(answer, policy=ResumePolicy(allow_partial=True))
        error = caught.value
        assert (error.code, error.where, error.got) == (
            "invalid_argument",
            "resume: policy.allow_partial",
            "True",
        )
        assert error.expected.startswith("False: pydantic-ai")

    def test_an_unauthorized_principal_is_refused(self) -> None:
        """A principal the policy refuses spends nothing; an allowed one resumes."""
        setup = paused_on([transfer()])
        answer = Resume(restart=[setup.paused.interrupts[0].approve()])

        def alice_only(principal: str | None, _pending: PendingInterrupt) -> bool:
            return principal == "alice"

        mallory = ResumePolicy(authorize=alice_only, principal="mallory")
        with pytest.raises(ResumeRejected) as refused:
            setup.resume(answer, policy=mallory)
        assert refused.value.codes == (ProblemCode.NOT_AUTHORIZED,)
        alice = ResumePolicy(authorize=alice_only, principal="alice")
        setup.resume(answer, policy=alice)
        assert setup.world.transfers == [TRANSFER]

    def test_concurrent_resumes_run_once(self) -> None:
        """Of two concurrent resumes one runs; the other is consumed."""
        setup = paused_on([transfer()])
        answer = Resume(restart=[setup.paused.interrupts[0].approve()])

        async def both() -> list[object]:
            return await asyncio.gather(
                *(
                    resume(setup.agent, setup.paused.id, answer, setup.store)
                    for _ in range(2)
                ),
                return_exceptions=True,
            )

        outcomes = drive(both())
        refused = [o for o in outcomes if isinstance(o, ResumeRejected)]
        assert [r.codes for r in refused] == [(ProblemCode.CONSUMED,)]
        assert setup.world.transfers == [TRANSFER]

    @settings(max_examples=60)
    @given(data=st.data())
    def test_every_forged_resume_is_refused(
        self, forgery: Setup, data: st.DataObject
    ) -> None:
        """A resume holding any forged entry is refused and runs nothing."""
        pending = by_id(forgery.paused)
        original: JSON = dict(TRANSFER)
        forged = data.draw(
            st.one_of(
                json_values().map(lambda v: Respond("transfer_money", "t1", v)),
                json_values().map(lambda v: Restart("ask_user", "q1", v)),
                json_values()
                .filter(lambda v: v is not None and not json_equal(v, original))
                .map(lambda v: Restart("transfer_money", "t1", "approve", v)),
                json_values()
                .map(lambda v: Restart("transfer_money", "t1", v))
                .filter(pending["t1"].problems_with),
                json_values()
                .map(lambda v: Respond("ask_user", "q1", v))
                .filter(pending["q1"].problems_with),
                st.sampled_from(["t1", "q1", "l1", "x"]).map(
                    lambda ref: Restart("lookup", ref, "approve")
                ),
            )
        )
        valid: list[Respond | Restart] = [
            pending["t1"].approve(),
            pending["q1"].respond("Yes"),
        ]
        kept = data.draw(st.lists(st.booleans(), min_size=2, max_size=2))
        chosen = [entry for entry, keep in zip(valid, kept, strict=True) if keep]
        entries = data.draw(st.permutations([forged, *chosen]))
        answer = Resume(
            respond=[e for e in entries if isinstance(e, Respond)],
            restart=[e for e in entries if isinstance(e, Restart)],
        )
        with pytest.raises(ResumeRejected):
            forgery.resume(answer)
        assert forgery.world.transfers == []
        assert forgery.world.seen == []
        assert forgery.world.lookups == 1


@pytest.fixture(name="forgery", scope="module")
def _forgery() -> Setup:
    """One run paused on a transfer and a question (a finished lookup beside)."""
    return paused_on([transfer(), question(), lookup()])


class TestKeeping:
    def test_a_fresh_process_resumes_once(self, tmp_path: Path) -> None:
        """A fresh process over the same files resumes; the next one is consumed."""
        world = World([[transfer()]])
        store = SqliteStore(tmp_path / "store.db")
        paused = pause_sync(world.agent().run_sync("go"), store)
        assert paused is not None
        drive(store.close())
        answer = Resume(restart=[paused.interrupts[0].approve()])

        def process() -> AgentRunResult[Output]:
            return resume_sync(
                world.agent(),
                paused.id,
                answer,
                SqliteStore(tmp_path / "store.db"),
            )

        assert process().output == "done"
        with pytest.raises(ResumeRejected) as refused:
            process()
        assert refused.value.codes == (ProblemCode.CONSUMED,)
        assert world.transfers == [TRANSFER]

    def test_the_run_is_kept_in_the_store_until_asked(self) -> None:
        """keep_until: the store keeps the run until then; expired, it is unknown."""
        world = World([[transfer()]])
        store = MemoryStore()
        until = datetime(2030, 1, 1, tzinfo=UTC)
        result = world.agent().run_sync("pay")
        paused = pause_sync(result, store, keep_until=until)
        assert paused is not None
        assert drive(store.kept(_kept.key("pydantic_ai", paused.id))) is not None
        assert drive(store.expire(until - timedelta(seconds=1))) == 0
        assert drive(load_paused(paused.id, store)) == paused
        assert drive(store.expire(until)) == 1
        with pytest.raises(ResumeRejected) as refused:
            drive(load_paused(paused.id, store))
        assert refused.value.codes == (ProblemCode.UNKNOWN_INTERRUPT,)

    def test_one_run_kept_twice_is_resumed_once(self) -> None:
        """A retried pause keeps the run twice; its approval still runs once."""
        world = World([[transfer()]])
        agent = world.agent()
        store = MemoryStore()
        result = agent.run_sync("pay")
        first = pause_sync(result, store)
        again = pause_sync(result, store)
        assert first is not None
        assert again is not None
        assert first.id != again.id
        assert first.key == again.key
        assert "pydantic_ai" in first.key
        answer = Resume(restart=[first.interrupts[0].approve()])
        resume_sync(agent, first.id, answer, store)
        with pytest.raises(ResumeRejected) as refused:
            resume_sync(agent, again.id, answer, store)
        assert refused.value.codes == (ProblemCode.CONSUMED,)
        assert world.transfers == [TRANSFER]

    @pytest.mark.parametrize(
        "record",
        [
            b"not json\n{}",
            b"{}\n{not a conversation",
            b"{}\n" + ConversationTypeAdapter.dump_json(Conversation()),
        ],
        ids=["schemas", "conversation", "nothing-pending"],
    )
    def test_a_damaged_record_is_a_decode_error(self, record: bytes) -> None:
        """A damaged kept record is a DecodeError; nothing is spent or run."""
        store = MemoryStore()
        drive(store.keep(_kept.key("pydantic_ai", "r1"), record, None))
        world = World([[transfer()]])
        answer = Resume(restart=[Restart("transfer_money", "t1", "approve")])
        with pytest.raises(DecodeError):
            resume_sync(world.agent(), "r1", answer, store)
        assert not store._spent
        assert world.transfers == []


class TestFrameworkAlone:
    """What pydantic-ai's own channel lets through: why the adapter exists.

    These pin the framework's behaviour; one failing means pydantic-ai
    closed a hole itself, and the adapter's docs should say so.
    """

    def _paused(self) -> tuple[World, Agent[None, Output], list[ModelMessage]]:
        world = World([[transfer()]])
        agent = world.agent()
        return world, agent, agent.run_sync("go").all_messages()

    def test_a_replayed_history_runs_the_tool_again(self) -> None:
        """The same history and approval twice run the transfer twice."""
        world, agent, history = self._paused()
        results = DeferredToolResults(approvals={"t1": True})
        agent.run_sync(message_history=history, deferred_tool_results=results)
        agent.run_sync(message_history=history, deferred_tool_results=results)
        assert len(world.transfers) == 2

    def test_a_fabricated_result_skips_the_approval(self) -> None:
        """A result for an approval call is shown to the model; nothing ran."""
        world, agent, history = self._paused()
        results = DeferredToolResults(calls={"t1": "sent"})
        agent.run_sync(message_history=history, deferred_tool_results=results)
        assert world.transfers == []
        assert world.seen == ["sent"]

    def test_edited_arguments_run(self) -> None:
        """Arguments edited in the history are what the approved call runs with."""
        world, agent, history = self._paused()
        response = history[1]
        assert isinstance(response, ModelResponse)
        edited = ToolCallPart("transfer_money", {**TRANSFER, "to": "MALLORY"}, "t1")
        history[1] = ModelResponse(parts=[edited])
        results = DeferredToolResults(approvals={"t1": True})
        agent.run_sync(message_history=history, deferred_tool_results=results)
        assert world.transfers == [{**TRANSFER, "to": "MALLORY"}]
