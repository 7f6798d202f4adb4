"""The LangChain agents adapter, driven through a real ``create_agent``."""

from __future__ import annotations

import asyncio
import datetime as dt
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Final

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from interruption import (
    JSON,
    Accepts,
    ApprovalPending,
    Custom,
    DecodeError,
    MemoryStore,
    PendingInterrupt,
    ProblemCode,
    Respond,
    Restart,
    Resume,
    ResumePolicy,
    ResumeRejected,
    SqliteStore,
    pause_key,
)
from interruption.adapters import langchain
from interruption.adapters import langgraph as langgraph_adapter
from interruption.adapters.langchain import Pause, from_decisions, pending, resume
from interruption.runtime.approval import DECISION_SCHEMA
from langchain.agents import create_agent
from langchain.agents.middleware import (
    AgentState,
    HumanInTheLoopMiddleware,
    InterruptOnConfig,
)
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolCall, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.runtime import Runtime
from langgraph.types import Interrupt, StateSnapshot, interrupt

from tests.adapters._common import import_error

CONFIG: Final[RunnableConfig] = {"configurable": {"thread_id": "t-1"}}
RAN: list[tuple[str, JSON]] = []
SEEN: list[str] = []
MODES: Final = ("batched", "per_call")


def call(name: str, ref: str, **args: JSON) -> dict[str, object]:
    """A tool call as a chat model emits it."""
    return {"name": name, "args": args, "id": ref, "type": "tool_call"}


class Script(BaseChatModel):
    """Emits the n-th batch of tool calls at its n-th turn, then "done"."""

    turns: list[list[dict[str, Any]]]

    @property
    def _llm_type(self) -> str:
        return "script"

    def bind_tools(self, *_args: object, **_kwargs: object) -> Script:
        """The tools are known already."""
        return self

    def _generate(
        self, messages: list[BaseMessage], *_args: object, **_kwargs: object
    ) -> ChatResult:
        turn = sum(isinstance(m, AIMessage) for m in messages)
        if isinstance(messages[-1], ToolMessage):
            SEEN.extend(str(m.content) for m in messages if isinstance(m, ToolMessage))
        calls = self.turns[turn] if turn < len(self.turns) else []
        message = AIMessage(content="" if calls else "done", tool_calls=calls)
        return ChatResult(generations=[ChatGeneration(message=message)])


@tool
def transfer_money(to: str, amount: int) -> str:
    """Send money."""
    RAN.append(("transfer_money", {"to": to, "amount": amount}))
    return f"sent {amount} to {to}"


@tool
def lookup(query: str) -> str:
    """Look something up."""
    RAN.append(("lookup", {"query": query}))
    return "found"


@tool
def ask_user(question: str) -> str:
    """Ask the user; a human answers in its place."""
    RAN.append(("ask_user", {"question": question}))
    return "unanswered"


JOT_SCHEMA: Final[dict[str, JSON]] = {
    "type": "object",
    "properties": {"text": {"type": "string", "maxLength": 5}},
    "required": ["text"],
}


@tool(args_schema=JOT_SCHEMA)
def jot(text: str) -> str:
    """Write a note; its arguments are a JSON schema, not a Pydantic model."""
    RAN.append(("jot", {"text": text}))
    return "noted"


@tool
def schedule(when: dt.date) -> str:
    """Book a payment for a day; its argument is a date, not any string."""
    RAN.append(("schedule", {"when": when.isoformat()}))
    return f"booked for {when}"


@tool
def wild(question: str) -> str:
    """A tool that pauses by itself, not through the middleware."""
    return str(interrupt({"ask": question}))


GATES: Final[dict[str, bool | InterruptOnConfig]] = {
    "transfer_money": {"allowed_decisions": ["approve", "edit", "reject"]},
    "ask_user": {"allowed_decisions": ["respond"]},
    "schedule": {"allowed_decisions": ["approve", "edit"]},
}
TWO: Final = [
    call("transfer_money", "c-1", to="ACME", amount=1),
    call("lookup", "c-2", query="rates"),
    call("transfer_money", "c-3", to="BOB", amount=2),
]


def agent_for(
    turns: list[list[dict[str, Any]]],
    mode: str = "batched",
    gates: dict[str, bool | InterruptOnConfig] | None = None,
    saver: BaseCheckpointSaver[str] | None = None,
) -> Any:
    """A real agent with the HITL middleware, a script, and a checkpointer."""
    middleware = HumanInTheLoopMiddleware(
        interrupt_on=gates if gates is not None else GATES,
        interrupt_mode=mode,  # type: ignore[arg-type]
    )
    return create_agent(
        Script(turns=turns),
        tools=[transfer_money, lookup, ask_user, wild, jot, schedule],
        middleware=[middleware],
        checkpointer=saver if saver is not None else InMemorySaver(),
    )


def paused(agent: Any, config: RunnableConfig = CONFIG) -> Pause:
    """Start the thread and return its pause."""
    agent.invoke({"messages": [{"role": "user", "content": "go"}]}, config)
    pause = pending(agent, config, questions={"ask_user": {"enum": ["Yes", "No"]}})
    assert pause is not None
    return pause


def by_ref(pause: Pause) -> dict[str, PendingInterrupt]:
    """The pause's calls by tool call id."""
    return {p.ref: p for p in pause.interrupts}


def transfers() -> list[JSON]:
    """The arguments of every transfer that ran, in order."""
    return [args for name, args in RAN if name == "transfer_money"]


def codes(attempt: Callable[[], object]) -> tuple[ProblemCode, ...]:
    """The codes of the rejection *attempt* raises."""
    with pytest.raises(ResumeRejected) as caught:
        attempt()
    return caught.value.codes


@pytest.fixture(autouse=True)
def _clean() -> Iterator[None]:
    RAN.clear()
    SEEN.clear()
    yield
    RAN.clear()
    SEEN.clear()


@pytest.fixture(name="mode", params=MODES)
def _mode(request: pytest.FixtureRequest) -> str:
    """Both of the middleware's interrupt modes."""
    mode: str = request.param
    return mode


class TestPending:
    def test_each_gated_call_is_its_own_approval(self, mode: str) -> None:
        """Each gated call is an ApprovalPending of its tool call id; no other is."""
        pause = paused(agent_for([TWO], mode))
        assert pause.mode == mode
        assert [p.kind for p in pause.interrupts] == [
            ApprovalPending("c-1"),
            ApprovalPending("c-3"),
        ]
        first = pause.interrupts[0]
        assert first.accepts.respond is None
        assert first.tool is not None
        assert first.tool.input == {"to": "ACME", "amount": 1}
        assert first.payload["allowed_decisions"] == ["approve", "edit", "reject"]  # type: ignore[index,call-overload]

    def test_batched_keeps_the_original_request(self) -> None:
        """A batched pause carries the HITLRequest as the middleware raised it."""
        (review,) = paused(agent_for([TWO])).reviews
        assert isinstance(review.request, dict)
        actions = review.request["action_requests"]
        assert isinstance(actions, list)
        assert [a["args"] for a in actions] == [  # type: ignore[call-overload,index]
            {"to": "ACME", "amount": 1},
            {"to": "BOB", "amount": 2},
        ]
        assert review.allowed == (frozenset({"approve", "edit", "reject"}),) * 2

    def test_an_editable_call_takes_the_tools_argument_schema(self, mode: str) -> None:
        """A call whose review allows edit takes new input of its tool's schema."""
        gates: dict[str, bool | InterruptOnConfig] = {
            "transfer_money": {"allowed_decisions": ["approve", "edit", "reject"]},
            "lookup": {"allowed_decisions": ["approve", "reject"]},
        }
        pause = paused(agent_for([TWO], mode, gates))
        calls = by_ref(pause)
        schema = transfer_money.tool_call_schema.model_json_schema()  # type: ignore[union-attr]
        assert calls["c-1"].accepts.replace_input == schema
        assert calls["c-1"].allowed.replace_input == schema
        assert calls["c-2"].accepts.replace_input is None

    def test_per_call_keeps_each_request(self) -> None:
        """A per-call pause has one review per call, each its ToolApprovalRequest."""
        pause = paused(agent_for([TWO], "per_call"))
        requests = sorted(str(r.request["tool_call_id"]) for r in pause.reviews)  # type: ignore[call-overload,index]
        assert requests == ["c-1", "c-3"]
        assert all(r.request["type"] == "tool_approval" for r in pause.reviews)  # type: ignore[index,call-overload]

    def test_a_respond_only_tool_is_a_question(self, mode: str) -> None:
        """A respond-only call is Custom, answered by a string of its schema."""
        pause = paused(agent_for([[call("ask_user", "q-1", question="Pay?")]], mode))
        (question,) = pause.interrupts
        assert question.kind == Custom()
        assert question.accepts.respond == {
            "allOf": [{"type": "string"}, {"enum": ["Yes", "No"]}]
        }
        assert question.accepts.restart is None

    def test_a_review_that_allows_respond_is_a_question_with_decisions(
        self, mode: str
    ) -> None:
        """interrupt_on True: a Custom pause taking an answer and the decisions."""
        agent = agent_for([[TWO[0]]], mode, {"transfer_money": True})
        agent.invoke({"messages": [{"role": "user", "content": "go"}]}, CONFIG)
        narrow: dict[str, JSON] = {"maxLength": 40}
        pause = pending(agent, CONFIG, questions={"transfer_money": narrow})
        assert pause is not None
        (transfer,) = pause.interrupts
        schema = transfer_money.tool_call_schema.model_json_schema()  # type: ignore[union-attr]
        assert transfer.kind == Custom()
        assert transfer.accepts == Accepts(
            respond={"allOf": [{"type": "string"}, narrow]},
            restart=DECISION_SCHEMA,
            replace_input=schema,
        )
        assert transfer.allowed == transfer.accepts

    def test_an_undeclared_question_takes_any_string(self) -> None:
        """Without a declared schema a question's answer is any string."""
        agent = agent_for([[call("ask_user", "q-1", question="Pay?")]])
        agent.invoke({"messages": [{"role": "user", "content": "go"}]}, CONFIG)
        pause = pending(agent, CONFIG)
        assert pause is not None
        assert pause.interrupts[0].accepts.respond == {"type": "string"}

    def test_nothing_pending_is_none(self) -> None:
        """A thread that finished, or never started, waits for nothing."""
        agent = agent_for([[call("lookup", "c-1", query="x")]])
        assert pending(agent, CONFIG) is None
        agent.invoke({"messages": [{"role": "user", "content": "go"}]}, CONFIG)
        assert pending(agent, CONFIG) is None

    def test_a_foreign_interrupt_is_refused(self) -> None:
        """An interrupt the middleware did not raise is a DecodeError, not a guess."""
        agent = agent_for([[call("wild", "w-1", question="?")]])
        agent.invoke({"messages": [{"role": "user", "content": "go"}]}, CONFIG)
        with pytest.raises(DecodeError) as caught:
            pending(agent, CONFIG)
        assert caught.value.path == "$.interrupts[0].value"

    def test_indistinguishable_calls_are_refused(self) -> None:
        """Two equal calls of which `when` gated one cannot be told apart: refused."""
        gates: dict[str, bool | InterruptOnConfig] = {
            "transfer_money": {
                "allowed_decisions": ["approve", "reject"],
                "when": lambda request: request.tool_call["id"] == "c-2",
            }
        }
        same = [
            call("transfer_money", "c-1", to="A", amount=1),
            call("transfer_money", "c-2", to="A", amount=1),
        ]
        agent = agent_for([same], gates=gates)
        agent.invoke({"messages": [{"role": "user", "content": "go"}]}, CONFIG)
        with pytest.raises(DecodeError) as caught:
            pending(agent, CONFIG)
        assert caught.value.path == "$.interrupts[0].value.action_requests"

    def test_equal_calls_all_gated_keep_their_order(self) -> None:
        """Equal calls that are all gated are told apart by their order."""
        same = [
            call("transfer_money", "c-1", to="A", amount=1),
            call("transfer_money", "c-2", to="A", amount=1),
        ]
        pause = paused(agent_for([same]))
        assert [p.ref for p in pause.interrupts] == ["c-1", "c-2"]

    def test_an_old_checkpoint_in_the_config_reads_the_latest(self) -> None:
        """A config naming a checkpoint still reads the thread's latest pause."""
        agent = agent_for([TWO, [call("transfer_money", "c-9", to="Z", amount=9)]])
        first = paused(agent)
        answer = Resume(restart=[p.approve() for p in first.interrupts])
        resume(agent, CONFIG, answer, MemoryStore())
        old: RunnableConfig = {
            "configurable": {"thread_id": "t-1", "checkpoint_id": first.checkpoint_id}
        }
        later = pending(agent, old)
        assert later is not None
        assert [p.ref for p in later.interrupts] == ["c-9"]

    def test_with_the_store_an_answered_review_is_not_listed(self, mode: str) -> None:
        """A review spent already (its run still going) is left out, given the store."""
        agent = agent_for([TWO], mode)
        pause = paused(agent)
        store = MemoryStore()
        first = pause.reviews[0]
        asyncio.run(store.spend_all([pause.keys[first.interrupts[0].id]], None))
        assert pending(agent, CONFIG) == pause
        left = pending(agent, CONFIG, store=store)
        later = asyncio.run(langchain.apending(agent, CONFIG, store=store))
        assert later == left
        if mode == "batched":
            assert left is None
        else:
            assert left is not None
            assert left.reviews == pause.reviews[1:]

    def test_apending_reads_asynchronously(self, mode: str) -> None:
        """The async reader sees the same pause."""
        agent = agent_for([TWO], mode)
        pause = paused(agent)
        assert asyncio.run(langchain.apending(agent, CONFIG)) == pause
        assert asyncio.run(langchain.apending(agent_for([TWO]), CONFIG)) is None

    @pytest.mark.parametrize("mode", MODES)
    def test_one_pause_has_one_key_whichever_adapter_reads_it(self, mode: str) -> None:
        """Each review is spent under the LangGraph adapter's key for its interrupt."""
        agent = agent_for([TWO], mode)
        pause = paused(agent)
        graph = langgraph_adapter._read(agent, CONFIG).keys
        for review in pause.reviews:
            key = pause_key("langgraph", "t-1", "", pause.checkpoint_id, review.id)
            assert graph[review.id] == key
            assert [pause.keys[p.id] for p in review.interrupts] == [key] * len(
                review.interrupts
            )
        assert len(set(pause.keys.values())) == len(pause.reviews)


class TestResume:
    def test_a_review_stays_spent_while_its_run_goes_on(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A second tab while a per_call run still runs: consumed, expire or not."""
        started, release = threading.Event(), threading.Event()

        def slow(to: str, amount: int) -> str:
            RAN.append(("transfer_money", {"to": to, "amount": amount}))
            started.set()
            release.wait(10)
            return "sent"

        monkeypatch.setattr(transfer_money, "func", slow)
        sent = call("transfer_money", "c-1", to="MALLORY", amount=9000)
        agent = agent_for([[sent]], "per_call")
        (only,) = paused(agent).interrupts
        answer, store = Resume(restart=[only.approve()]), MemoryStore()
        first = threading.Thread(target=lambda: resume(agent, CONFIG, answer, store))
        first.start()
        try:
            assert started.wait(10)
            later = dt.datetime.now(dt.UTC) + dt.timedelta(days=3650)
            asyncio.run(store.expire(later))
            again = codes(lambda: resume(agent, CONFIG, answer, store))
        finally:
            release.set()
            first.join(10)
        assert again == (ProblemCode.CONSUMED,)
        assert transfers() == [{"to": "MALLORY", "amount": 9000}]

    def test_a_retry_runs_an_approved_tool_that_raised_again(
        self, mode: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """The docs' limit: a second answer is refused, a thread retry reruns."""
        failing = [True]

        def flaky(to: str, amount: int) -> str:
            RAN.append(("transfer_money", {"to": to, "amount": amount}))
            if failing.pop() if failing else False:
                msg = "the bank timed out after taking it"
                raise RuntimeError(msg)
            return "sent"

        monkeypatch.setattr(transfer_money, "func", flaky)
        agent = agent_for([[call("transfer_money", "c-1", to="ACME", amount=5)]], mode)
        (only,) = paused(agent).interrupts
        answer, store = Resume(restart=[only.approve()]), MemoryStore()
        with pytest.raises(RuntimeError, match="timed out"):
            resume(agent, CONFIG, answer, store)
        assert pending(agent, CONFIG, store=store) is None
        assert codes(lambda: resume(agent, CONFIG, answer, store)) == (
            ProblemCode.CONSUMED,
        )
        agent.invoke(None, CONFIG)
        assert transfers() == [{"to": "ACME", "amount": 5}] * 2

    def test_decisions_reach_their_own_calls(self, mode: str) -> None:
        """Two gated calls, answered out of order, each get their own decision."""
        agent = agent_for([TWO], mode)
        calls = by_ref(paused(agent))
        answer = Resume(restart=[calls["c-3"].approve(), calls["c-1"].reject("no")])
        assert resume(agent, CONFIG, answer, MemoryStore()) is None
        assert sorted(RAN) == [
            ("lookup", {"query": "rates"}),
            ("transfer_money", {"to": "BOB", "amount": 2}),
        ]
        assert (
            "User rejected the tool call for `transfer_money` with reason: no" in SEEN
        )

    def test_an_answer_reaches_the_model(self, mode: str) -> None:
        """A respond to a question is what the model sees; the tool never runs."""
        agent = agent_for([[call("ask_user", "q-1", question="Pay?")]], mode)
        (question,) = paused(agent).interrupts
        answer = Resume(respond=[question.respond("Yes")])
        resume(agent, CONFIG, answer, MemoryStore(), questions={"ask_user": {}})
        assert SEEN == ["Yes"]
        assert RAN == []

    def test_an_answer_outside_its_schema_is_refused(self, mode: str) -> None:
        """A respond that breaks the declared schema is refused; nothing runs."""
        agent = agent_for([[call("ask_user", "q-1", question="Pay?")]], mode)
        paused(agent)
        forged = Resume(respond=[Respond("ask_user", "q-1", "Maybe")])
        questions: dict[str, dict[str, JSON]] = {"ask_user": {"enum": ["Yes", "No"]}}
        refused = codes(
            lambda: resume(agent, CONFIG, forged, MemoryStore(), questions=questions)
        )
        assert refused == (ProblemCode.SCHEMA_VIOLATION,)
        assert SEEN == []

    def test_a_decision_the_review_forbids_is_refused(self, mode: str) -> None:
        """A decision its review does not allow is refused; nothing runs."""
        gates: dict[str, bool | InterruptOnConfig] = {
            "transfer_money": {"allowed_decisions": ["reject"]},
            "lookup": {"allowed_decisions": ["approve"]},
        }
        turns = [[TWO[0], TWO[1]]]
        agent = agent_for(turns, mode, gates)
        calls = by_ref(paused(agent))
        store = MemoryStore()
        forbidden = Resume(restart=[calls["c-1"].approve(), calls["c-2"].reject("x")])
        with pytest.raises(ResumeRejected) as rejected:
            resume(agent, CONFIG, forbidden, store)
        assert rejected.value.codes == (ProblemCode.ANSWER_NOT_ACCEPTED,) * 2
        assert {p.interrupt_id for p in rejected.value.problems} == {"c-1", "c-2"}
        assert RAN == []
        allowed = Resume(restart=[calls["c-1"].reject("no"), calls["c-2"].approve()])
        resume(agent, CONFIG, allowed, store)
        assert RAN == [("lookup", {"query": "rates"})]

    def test_every_refusal_of_the_adapter_is_in_the_audit_trail(self) -> None:
        """A refused principal, a forbidden decision, an unfit edit: all audited."""
        gates: dict[str, bool | InterruptOnConfig] = {
            "transfer_money": {"allowed_decisions": ["reject"]},
            "schedule": {"allowed_decisions": ["edit"]},
        }
        turn = [TWO[0], call("schedule", "s-1", when="2026-01-02")]
        agent = agent_for([turn], "per_call", gates)
        calls = by_ref(paused(agent))
        store = MemoryStore()
        eve = ResumePolicy(authorize=lambda who, _p: who == "alice", principal="eve")
        bad = Restart("schedule", "s-1", "approve", {"when": "next friday"})
        attempts = [
            (Resume(restart=[calls["c-1"].reject("no")]), eve),
            (Resume(restart=[calls["c-1"].approve()]), None),
            (Resume(restart=[calls["c-1"].reject("no"), bad]), None),
        ]
        for answer, policy in attempts:
            with pytest.raises(ResumeRejected):
                resume(agent, CONFIG, answer, store, policy=policy)
        trail = asyncio.run(store.audit("t-1"))
        assert [(event.kind, event.codes) for event in trail] == [
            ("paused", ()),
            ("rejected", ("not_authorized",)),
            ("rejected", ("missing", "answer_not_accepted")),
            ("rejected", ("schema_violation",)),
        ]
        assert [event.principal for event in trail] == [None, "eve", None, None]
        assert set(trail[0].pending) == {p.id for p in calls.values()}
        assert RAN == []

    def test_a_pause_first_met_by_its_answer_is_filed_once(self) -> None:
        """A review never listed is filed once, then accepted: two events."""
        agent = agent_for([TWO])
        calls = by_ref(paused(agent))
        store = MemoryStore()
        answer = Resume(restart=[p.approve() for p in calls.values()])
        resume(agent, CONFIG, answer, store)
        trail = asyncio.run(store.audit("t-1"))
        assert [event.kind for event in trail] == ["paused", "accepted"]
        assert set(trail[0].pending) == {p.id for p in calls.values()}

    def test_forbidden_and_other_problems_travel_together(self) -> None:
        """A forbidden decision is reported with the core's problems, all at once."""
        gates: dict[str, bool | InterruptOnConfig] = {
            "transfer_money": {"allowed_decisions": ["reject"]}
        }
        agent = agent_for([TWO], gates=gates)
        calls = by_ref(paused(agent))
        answer = Resume(restart=[calls["c-1"].approve()])
        refused = codes(lambda: resume(agent, CONFIG, answer, MemoryStore()))
        assert refused == (ProblemCode.MISSING, ProblemCode.ANSWER_NOT_ACCEPTED)

    def test_a_malformed_decision_is_left_to_the_core(self) -> None:
        """A restart that is no decision at all is the core's schema_violation."""
        agent = agent_for([[TWO[0]]])
        paused(agent)
        forged = Resume(restart=[Restart("transfer_money", "c-1", {"maybe": 1})])
        refused = codes(lambda: resume(agent, CONFIG, forged, MemoryStore()))
        assert refused == (ProblemCode.SCHEMA_VIOLATION,)

    def test_an_edit_runs_the_edited_call_once(self, mode: str) -> None:
        """An approval with other arguments runs them once; the model is told."""
        agent = agent_for([TWO], mode)
        calls = by_ref(paused(agent))
        edited = calls["c-1"].restart(
            "approve", replace_input={"to": "EVE", "amount": 5}
        )
        answer = Resume(restart=[edited, calls["c-3"].approve()])
        store = MemoryStore()
        assert resume(agent, CONFIG, answer, store) is None
        assert sorted(transfers(), key=repr) == [
            {"amount": 2, "to": "BOB"},
            {"amount": 5, "to": "EVE"},
        ]
        notice = (
            'Executed instead: transfer_money with arguments {"to": "EVE", "amount": 5}'
        )
        assert [seen for seen in SEEN if notice in seen] == [
            next(seen for seen in SEEN if "sent 5 to EVE" in seen)
        ]
        assert codes(lambda: resume(agent, CONFIG, answer, store)) == (
            ProblemCode.CONSUMED,
        )
        assert len(transfers()) == 2

    def test_an_unchanged_edit_is_an_approval(self, mode: str) -> None:
        """The original arguments spelled out approve the call as it was."""
        agent = agent_for([[TWO[0]]], mode)
        (transfer,) = paused(agent).interrupts
        same = transfer.restart("approve", replace_input={"amount": 1.0, "to": "ACME"})
        resume(agent, CONFIG, Resume(restart=[same]), MemoryStore())
        assert transfers() == [{"to": "ACME", "amount": 1}]
        assert not [seen for seen in SEEN if "Executed instead" in seen]

    @pytest.mark.parametrize(
        ("args", "where"),
        [
            ({"to": "EVE", "amount": "lots"}, "$.restart[0].input.amount"),
            ({"to": "EVE"}, "$.restart[0].input.amount"),
            ({"to": 5, "amount": 1}, "$.restart[0].input.to"),
        ],
    )
    def test_an_edit_outside_the_tools_schema_is_refused(
        self, mode: str, args: JSON, where: str
    ) -> None:
        """An edit whose arguments break the tool's schema is refused; nothing runs."""
        agent = agent_for([TWO], mode)
        calls = by_ref(paused(agent))
        edited = Restart("transfer_money", "c-1", "approve", args)
        answer = Resume(restart=[edited, calls["c-3"].approve()])
        with pytest.raises(ResumeRejected) as caught:
            resume(agent, CONFIG, answer, MemoryStore())
        (problem,) = caught.value.problems
        assert problem.code is ProblemCode.SCHEMA_VIOLATION
        assert problem.message.startswith(where)
        assert transfers() == []
        assert pending(agent, CONFIG) is not None

    def test_an_edit_the_review_forbids_is_refused(self, mode: str) -> None:
        """Where edit is not allowed, other arguments are refused; nothing runs."""
        gates: dict[str, bool | InterruptOnConfig] = {
            "transfer_money": {"allowed_decisions": ["approve", "reject"]}
        }
        agent = agent_for([TWO], mode, gates)
        calls = by_ref(paused(agent))
        edited = Restart("transfer_money", "c-1", "approve", {"to": "EVE", "amount": 1})
        answer = Resume(restart=[edited, calls["c-3"].approve()])
        with pytest.raises(ResumeRejected) as caught:
            resume(agent, CONFIG, answer, MemoryStore())
        assert caught.value.codes == (ProblemCode.INPUT_MODIFIED,)
        assert transfers() == []

    def test_a_review_without_approve_or_edit_takes_no_approval(self) -> None:
        """Where only reject is allowed, an approval is refused, arguments or not."""
        gates: dict[str, bool | InterruptOnConfig] = {
            "transfer_money": {"allowed_decisions": ["reject"]}
        }
        agent = agent_for([[TWO[0]]], gates=gates)
        (transfer,) = paused(agent).interrupts
        assert transfer.tool is not None
        spelled = transfer.restart("approve", replace_input=transfer.tool.input)
        with pytest.raises(ResumeRejected) as caught:
            resume(agent, CONFIG, Resume(restart=[spelled]), MemoryStore())
        assert [p.message for p in caught.value.problems] == [
            "c-1 (transfer_money) allows reject; not approve"
        ]
        assert transfers() == []

    def test_an_edit_only_review_takes_arguments_not_a_bare_approval(
        self, mode: str
    ) -> None:
        """Where edit is allowed and approve is not, the arguments must be given."""
        gates: dict[str, bool | InterruptOnConfig] = {
            "transfer_money": {"allowed_decisions": ["edit", "reject"]}
        }
        agent = agent_for([[TWO[0]]], mode, gates)
        (transfer,) = paused(agent).interrupts
        store = MemoryStore()
        bare = Resume(restart=[transfer.approve()])
        assert codes(lambda: resume(agent, CONFIG, bare, store)) == (
            ProblemCode.ANSWER_NOT_ACCEPTED,
        )
        assert transfer.tool is not None
        spelled = transfer.restart("approve", replace_input=transfer.tool.input)
        resume(agent, CONFIG, Resume(restart=[spelled]), store)
        assert transfers() == [{"to": "ACME", "amount": 1}]

    def test_a_reject_with_other_arguments_is_refused(self, mode: str) -> None:
        """A reject carrying other arguments is input_modified; nothing runs."""
        agent = agent_for([[TWO[0]]], mode)
        (transfer,) = paused(agent).interrupts
        with pytest.raises(ResumeRejected):  # the builder refuses it too
            transfer.restart(
                {"reject": {"reason": "no"}}, replace_input={"to": "EVE", "amount": 1}
            )
        rejected = Restart(
            transfer.name,
            transfer.ref,
            {"reject": {"reason": "no"}},
            {"to": "EVE", "amount": 1},
        )
        with pytest.raises(ResumeRejected) as caught:
            resume(agent, CONFIG, Resume(restart=[rejected]), MemoryStore())
        assert caught.value.codes == (ProblemCode.INPUT_MODIFIED,)
        assert caught.value.problems[0].interrupt_id == "c-1"
        assert SEEN == []
        assert transfer.tool is not None
        same = transfer.restart(
            {"reject": {"reason": "no"}}, replace_input=transfer.tool.input
        )
        resume(agent, CONFIG, Resume(restart=[same]), MemoryStore())
        assert transfers() == []
        assert (
            "User rejected the tool call for `transfer_money` with reason: no" in SEEN
        )

    def test_a_json_schema_tools_edit_fits_its_schema(self, mode: str) -> None:
        """A tool whose arguments are a JSON schema checks an edit against it."""
        agent = agent_for([[call("jot", "j-1", text="hi")]], mode, {"jot": True})
        (note,) = paused(agent).interrupts
        assert note.accepts.replace_input == jot.tool_call_schema
        assert note.accepts.replace_input["properties"] == JOT_SCHEMA["properties"]
        assert note.accepts.replace_input is not jot.tool_call_schema
        store = MemoryStore()
        long = Restart("jot", "j-1", "approve", {"text": "too long"})
        assert codes(lambda: resume(agent, CONFIG, Resume(restart=[long]), store)) == (
            ProblemCode.SCHEMA_VIOLATION,
        )
        short = note.restart("approve", replace_input={"text": "bye"})
        resume(agent, CONFIG, Resume(restart=[short]), store)
        assert RAN == [("jot", {"text": "bye"})]

    def test_an_edit_the_tools_model_refuses_is_refused_unspent(
        self, mode: str
    ) -> None:
        """An edit its schema takes and the tool's model refuses is refused, unspent."""
        agent = agent_for([[call("schedule", "s-1", when="2026-01-02")]], mode)
        (booking,) = paused(agent).interrupts
        assert booking.accepts.replace_input is not None
        store = MemoryStore()
        bad = Restart("schedule", "s-1", "approve", {"when": "next friday"})
        with pytest.raises(ResumeRejected) as caught:
            resume(agent, CONFIG, Resume(restart=[bad]), store)
        (problem,) = caught.value.problems
        assert (problem.code, problem.interrupt_id) == (
            ProblemCode.SCHEMA_VIOLATION,
            "s-1",
        )
        assert problem.message.startswith("$.restart[0].input.when: expected")
        assert RAN == []
        good = booking.restart("approve", replace_input={"when": "2026-01-09"})
        resume(agent, CONFIG, Resume(restart=[good]), store)
        assert RAN == [("schedule", {"when": "2026-01-09"})]

    def test_an_edit_of_a_tool_the_agent_lacks_is_refused(self) -> None:
        """A gated call of a tool the agent does not have takes no edit."""
        gates: dict[str, bool | InterruptOnConfig] = {"ghost": True}
        agent = agent_for([[call("ghost", "g-1", x=1)]], gates=gates)
        (ghost,) = paused(agent).interrupts
        assert ghost.accepts.replace_input is None
        edited = Restart("ghost", "g-1", "approve", {"x": 2})
        assert codes(
            lambda: resume(agent, CONFIG, Resume(restart=[edited]), MemoryStore())
        ) == (ProblemCode.INPUT_MODIFIED,)

    def test_a_result_for_an_approval_is_refused(self, mode: str) -> None:
        """Where the review does not allow respond, a result is refused, unspent."""
        agent = agent_for([[TWO[0]]], mode)
        (transfer,) = paused(agent).interrupts
        store = MemoryStore()
        forged = Resume(respond=[Respond("transfer_money", "c-1", "sent")])
        refused = codes(lambda: resume(agent, CONFIG, forged, store))
        assert refused == (ProblemCode.ANSWER_NOT_ACCEPTED,)
        assert SEEN == []
        resume(agent, CONFIG, Resume(restart=[transfer.approve()]), store)
        assert transfers() == [{"to": "ACME", "amount": 1}]

    def test_a_review_that_allows_respond_takes_an_answer(self, mode: str) -> None:
        """interrupt_on True allows respond: the model gets it as the tool's result."""
        agent = agent_for([[TWO[0]]], mode, {"transfer_money": True})
        (transfer,) = paused(agent).interrupts
        answer = Resume(respond=[transfer.respond("paid by cheque")])
        assert resume(agent, CONFIG, answer, MemoryStore()) is None
        assert transfers() == []
        assert SEEN == ["paid by cheque"]
        (message,) = [
            m
            for m in agent.get_state(CONFIG).values["messages"]
            if isinstance(m, ToolMessage)
        ]
        assert (message.tool_call_id, message.status) == ("c-1", "success")

    @pytest.mark.parametrize(
        ("decide", "ran"),
        [
            (lambda p: p.restart("approve"), [{"to": "ACME", "amount": 1}]),
            (
                lambda p: p.restart(
                    "approve", replace_input={"to": "EVE", "amount": 1}
                ),
                [{"to": "EVE", "amount": 1}],
            ),
            (lambda p: p.restart({"reject": {"reason": "no"}}), []),
        ],
        ids=["approve", "edit", "reject"],
    )
    def test_a_review_that_allows_respond_takes_its_decisions(
        self, mode: str, decide: Callable[[PendingInterrupt], Restart], ran: list[JSON]
    ) -> None:
        """interrupt_on True takes approve, edit and reject too, each once."""
        agent = agent_for([[TWO[0]]], mode, {"transfer_money": True})
        (transfer,) = paused(agent).interrupts
        store = MemoryStore()
        answer = Resume(restart=[decide(transfer)])
        resume(agent, CONFIG, answer, store)
        assert transfers() == ran
        assert codes(lambda: resume(agent, CONFIG, answer, store)) == (
            ProblemCode.CONSUMED,
        )
        assert transfers() == ran

    def test_only_the_decisions_a_respond_review_allows(self, mode: str) -> None:
        """A review of respond and reject refuses an approval, unspent."""
        gates: dict[str, bool | InterruptOnConfig] = {
            "transfer_money": {"allowed_decisions": ["respond", "reject"]}
        }
        agent = agent_for([[TWO[0]]], mode, gates)
        (transfer,) = paused(agent).interrupts
        store = MemoryStore()
        approve = transfer.restart("approve")
        edit = Restart("transfer_money", "c-1", "approve", {"to": "EVE", "amount": 1})
        assert codes(
            lambda: resume(agent, CONFIG, Resume(restart=[approve]), store)
        ) == (ProblemCode.ANSWER_NOT_ACCEPTED,)
        assert codes(lambda: resume(agent, CONFIG, Resume(restart=[edit]), store)) == (
            ProblemCode.INPUT_MODIFIED,
        )
        assert transfers() == []
        rejected = Resume(restart=[transfer.restart({"reject": {"reason": "no"}})])
        resume(agent, CONFIG, rejected, store)
        assert transfers() == []
        assert any("with reason: no" in seen for seen in SEEN)

    def test_approve_and_respond_in_one_batch(self, mode: str) -> None:
        """One call approved and one answered in its place, together (LangChain's)."""
        gates: dict[str, bool | InterruptOnConfig] = {
            "lookup": {"allowed_decisions": ["approve"]},
            "ask_user": {"allowed_decisions": ["respond"]},
        }
        turn = [
            call("lookup", "c-1", query="SF"),
            call("ask_user", "c-2", question="?"),
        ]
        agent = agent_for([turn], mode, gates)
        calls = by_ref(paused(agent))
        answer = Resume(
            restart=[calls["c-1"].approve()], respond=[calls["c-2"].respond("Yes")]
        )
        resume(agent, CONFIG, answer, MemoryStore())
        assert RAN == [("lookup", {"query": "SF"})]
        assert "Yes" in SEEN

    def test_a_wrong_count_is_refused(self, mode: str) -> None:
        """Too few answers are missing, one too many is unknown; nothing runs."""
        agent = agent_for([TWO], mode)
        calls = by_ref(paused(agent))
        store = MemoryStore()
        few = Resume(restart=[calls["c-1"].approve()])
        assert codes(lambda: resume(agent, CONFIG, few, store)) == (
            ProblemCode.MISSING,
        )
        extra = Restart("transfer_money", "c-4", "approve")
        many = Resume(restart=[*(p.approve() for p in calls.values()), extra])
        assert codes(lambda: resume(agent, CONFIG, many, store)) == (
            ProblemCode.UNKNOWN_INTERRUPT,
        )
        assert transfers() == []

    def test_a_batched_review_is_never_partial(self) -> None:
        """A partial resume is missing in batched mode, whatever the policy."""
        agent = agent_for([TWO])
        calls = by_ref(paused(agent))
        few = Resume(restart=[calls["c-1"].approve()])
        partial = ResumePolicy(allow_partial=True)
        refused = codes(
            lambda: resume(agent, CONFIG, few, MemoryStore(), policy=partial)
        )
        assert refused == (ProblemCode.MISSING,)

    def test_a_per_call_pause_may_be_answered_in_part(self) -> None:
        """Per call, a partial resume runs its call; the rest stays pending."""
        agent = agent_for([TWO], "per_call")
        calls = by_ref(paused(agent))
        store = MemoryStore()
        partial = ResumePolicy(allow_partial=True)
        first = Resume(restart=[calls["c-1"].approve()])
        rest = resume(agent, CONFIG, first, store, policy=partial)
        assert rest is not None
        assert [p.ref for p in rest.interrupts] == ["c-3"]
        assert codes(lambda: resume(agent, CONFIG, first, store, policy=partial)) == (
            ProblemCode.CONSUMED,
        )
        resume(agent, CONFIG, Resume(restart=[calls["c-3"].reject("no")]), store)
        assert [name for name, _ in RAN].count("transfer_money") == 1

    def test_a_replay_is_consumed(self, mode: str) -> None:
        """The same resume twice: the second is consumed; the calls ran once."""
        agent = agent_for([TWO], mode)
        calls = by_ref(paused(agent))
        store = MemoryStore()
        answer = Resume(restart=[p.approve() for p in calls.values()])
        resume(agent, CONFIG, answer, store)
        assert codes(lambda: resume(agent, CONFIG, answer, store)) == (
            ProblemCode.CONSUMED,
        )
        assert len(RAN) == 3

    def test_a_spent_pause_is_consumed_even_unrun(self) -> None:
        """A pause spent in the store is consumed, whoever asks again at it."""
        agent = agent_for([[TWO[0]]])
        pause = paused(agent)
        store = MemoryStore()
        assert asyncio.run(store.spend_all(list(pause.keys.values()), None))
        answer = Resume(restart=[pause.interrupts[0].approve()])
        assert codes(lambda: resume(agent, CONFIG, answer, store)) == (
            ProblemCode.CONSUMED,
        )
        assert RAN == []

    def test_an_unknown_call_is_refused(self) -> None:
        """An answer naming no call of this or an earlier pause is unknown."""
        agent = agent_for([[TWO[0]]])
        paused(agent)
        forged = Resume(restart=[Restart("transfer_money", "c-404", "approve")])
        assert codes(lambda: resume(agent, CONFIG, forged, MemoryStore())) == (
            ProblemCode.UNKNOWN_INTERRUPT,
            ProblemCode.MISSING,
        )

    def test_nothing_pending_is_refused(self) -> None:
        """A thread that waits for nothing takes no resume."""
        agent = agent_for([])
        answer = Resume(restart=[Restart("transfer_money", "c-1", "approve")])
        assert codes(lambda: resume(agent, CONFIG, answer, MemoryStore())) == (
            ProblemCode.NOTHING_PENDING,
        )

    def test_a_refused_principal_learns_nothing(self) -> None:
        """A refused principal gets only not_authorized, whatever it sent."""
        gates: dict[str, bool | InterruptOnConfig] = {
            "transfer_money": {"allowed_decisions": ["reject"]}
        }
        agent = agent_for([[TWO[0]]], gates=gates)
        (only,) = paused(agent).interrupts
        policy = ResumePolicy(authorize=lambda who, _p: who == "alice", principal="eve")
        answer = Resume(restart=[only.approve()])
        refused = codes(
            lambda: resume(agent, CONFIG, answer, MemoryStore(), policy=policy)
        )
        assert refused == (ProblemCode.NOT_AUTHORIZED,)

    def test_an_allowed_principal_is_told_what_is_wrong(self) -> None:
        """With an authorizer, an allowed principal's refusals keep their codes."""
        gates: dict[str, bool | InterruptOnConfig] = {
            "transfer_money": {"allowed_decisions": ["approve"]}
        }
        agent = agent_for([[TWO[0]]], gates=gates)
        (only,) = paused(agent).interrupts
        store = MemoryStore()
        alice = ResumePolicy(
            authorize=lambda who, _p: who == "alice", principal="alice"
        )
        eve = attrs.evolve(alice, principal="eve")

        def attempt(answer: Resume, policy: ResumePolicy) -> tuple[ProblemCode, ...]:
            return codes(lambda: resume(agent, CONFIG, answer, store, policy=policy))

        forbidden = Resume(restart=[only.reject("no")])
        assert attempt(forbidden, alice) == (ProblemCode.ANSWER_NOT_ACCEPTED,)
        approval = Resume(restart=[only.approve()])
        resume(agent, CONFIG, approval, store, policy=alice)
        assert attempt(approval, alice) == (ProblemCode.CONSUMED,)
        assert attempt(approval, eve) == (ProblemCode.NOT_AUTHORIZED,)
        trail = asyncio.run(store.audit("t-1"))
        assert [(event.codes, event.principal) for event in trail[1:]] == [
            (("answer_not_accepted",), "alice"),
            ((), "alice"),
            (("consumed",), "alice"),
            (("not_authorized",), "eve"),
        ]
        assert transfers() == [{"to": "ACME", "amount": 1}]

    def test_the_next_pause_is_returned(self) -> None:
        """When the agent pauses again, resume returns the new pause."""
        agent = agent_for([[TWO[0]], [call("transfer_money", "c-5", to="Z", amount=5)]])
        first = paused(agent)
        store = MemoryStore()
        second = resume(
            agent, CONFIG, Resume(restart=[first.interrupts[0].approve()]), store
        )
        assert second is not None
        assert second.checkpoint_id != first.checkpoint_id
        assert [p.ref for p in second.interrupts] == ["c-5"]
        resume(agent, CONFIG, Resume(restart=[second.interrupts[0].approve()]), store)
        assert len(RAN) == 2

    def test_the_next_pause_is_returned_asynchronously(self) -> None:
        """When the agent pauses again, aresume returns the new pause."""
        agent = agent_for([[TWO[0]], [call("transfer_money", "c-5", to="Z", amount=5)]])
        first = paused(agent)
        answer = Resume(restart=[first.interrupts[0].approve()])
        second = asyncio.run(langchain.aresume(agent, CONFIG, answer, MemoryStore()))
        assert second is not None
        assert [p.ref for p in second.interrupts] == ["c-5"]

    def test_an_output_that_tells_nothing_has_the_checkpoint_read(self) -> None:
        """A run whose output shows no "__interrupt__" still gets its next pause."""
        agent = agent_for([[TWO[0]], [call("transfer_money", "c-5", to="Z", amount=5)]])
        first = paused(agent)

        class Silent:
            """The agent, its run's output dropped (an Agent of another shape)."""

            nodes = agent.nodes
            get_state = agent.get_state
            get_state_history = agent.get_state_history

            def invoke(self, command: Any, config: RunnableConfig) -> object:
                """Run the agent; say nothing of how it ended."""
                agent.invoke(command, config)
                return {}

        answer = Resume(restart=[first.interrupts[0].approve()])
        second = resume(Silent(), CONFIG, answer, MemoryStore())  # type: ignore[arg-type]
        assert second is not None
        assert [p.ref for p in second.interrupts] == ["c-5"]

    def test_a_fresh_process_resumes_from_sqlite(
        self, tmp_path: Path, mode: str
    ) -> None:
        """A fresh agent over a fresh checkpointer resumes the pause, once."""
        database, spent = tmp_path / "checkpoints.db", tmp_path / "spent.db"

        def process() -> Any:
            connection = sqlite3.connect(database, check_same_thread=False)
            return agent_for([TWO], mode, saver=SqliteSaver(connection))

        calls = by_ref(paused(process()))
        answer = Resume(restart=[calls["c-1"].approve(), calls["c-3"].reject("no")])
        resume(process(), CONFIG, answer, SqliteStore(spent))
        assert ("transfer_money", {"to": "ACME", "amount": 1}) in RAN
        assert codes(lambda: resume(process(), CONFIG, answer, SqliteStore(spent))) == (
            ProblemCode.CONSUMED,
        )

    def test_aresume_runs_asynchronously(self, tmp_path: Path, mode: str) -> None:
        """The async resume validates, spends and runs through ainvoke."""

        async def scenario() -> tuple[ProblemCode, ...]:
            async with AsyncSqliteSaver.from_conn_string(
                str(tmp_path / "checkpoints.db")
            ) as saver:
                agent = agent_for([TWO], mode, saver=saver)
                start = {"messages": [{"role": "user", "content": "go"}]}
                await agent.ainvoke(start, CONFIG)
                pause = await langchain.apending(agent, CONFIG)
                assert pause is not None
                store = MemoryStore()
                answer = Resume(restart=[p.approve() for p in pause.interrupts])
                assert await langchain.aresume(agent, CONFIG, answer, store) is None
                try:
                    await langchain.aresume(agent, CONFIG, answer, store)
                except ResumeRejected as rejected:
                    return rejected.codes
                return ()

        assert asyncio.run(scenario()) == (ProblemCode.CONSUMED,)
        assert len(RAN) == 3

    def test_sync_resume_refuses_a_running_loop(self) -> None:
        """The sync resume cannot run inside an event loop; nothing is spent."""
        agent = agent_for([[TWO[0]]])
        (only,) = paused(agent).interrupts
        store = MemoryStore()
        answer = Resume(restart=[only.approve()])

        async def inside() -> None:
            resume(agent, CONFIG, answer, store)

        with pytest.raises(RuntimeError, match="running event loop"):
            asyncio.run(inside())
        resume(agent, CONFIG, answer, store)
        assert len(RAN) == 1


class Frozen:
    """An agent stub over fixed snapshots: a checkpoint as damaged as a test needs."""

    def __init__(
        self, now: StateSnapshot, history: Sequence[StateSnapshot] = ()
    ) -> None:
        self.now = now
        self.history = history

    @property
    def nodes(self) -> dict[str, object]:
        """No tools node: no call takes an edit."""
        return {}

    def get_state(self, _config: RunnableConfig) -> StateSnapshot:
        """The fixed latest snapshot."""
        return self.now

    async def aget_state(self, config: RunnableConfig) -> StateSnapshot:
        """The fixed latest snapshot."""
        return self.get_state(config)

    def get_state_history(
        self, _config: RunnableConfig, *, limit: int | None = None
    ) -> Iterator[StateSnapshot]:
        """The fixed history."""
        return iter(self.history[:limit])

    async def aget_state_history(  # pragma: no cover - the sync path reads it
        self, _config: RunnableConfig, *, limit: int | None = None
    ) -> Any:
        """The fixed history."""
        for snapshot in self.history[:limit]:
            yield snapshot

    def invoke(self, _input: object, _config: RunnableConfig) -> object:
        """Never reached by a refused resume."""
        raise AssertionError  # pragma: no cover

    async def ainvoke(self, _input: object, _config: RunnableConfig) -> object:
        """Never reached by a refused resume."""
        raise AssertionError  # pragma: no cover


def damaged(
    snapshot: StateSnapshot, *values: JSON, schema: object = None
) -> StateSnapshot:
    """*snapshot* with its interrupts replaced by ones carrying *values*."""
    interrupts = tuple(
        Interrupt(value, f"i-{index}", response_schema=schema)  # type: ignore[arg-type]
        for index, value in enumerate(values)
    )
    return snapshot._replace(interrupts=interrupts)


def request(**changes: JSON) -> dict[str, JSON]:
    """The batched request of one transfer, with *changes*."""
    base: dict[str, JSON] = {
        "action_requests": [
            {"name": "transfer_money", "args": {"to": "ACME", "amount": 1}}
        ],
        "review_configs": [
            {"action_name": "transfer_money", "allowed_decisions": ["approve"]}
        ],
    }
    return {**base, **changes}


PER_CALL: Final[dict[str, JSON]] = {
    "type": "tool_approval",
    "tool_call_id": "c-1",
    "name": "transfer_money",
    "args": {"to": "ACME", "amount": 1},
    "description": "",
}
APPROVE_ONLY: Final = {"properties": {"type": {"const": "approve"}}}


class TestDamagedCheckpoints:
    @pytest.mark.parametrize(
        ("values", "where"),
        [
            ([request(action_requests=[])], ".value.action_requests"),
            ([request(review_configs=[])], ".value.review_configs"),
            (
                [request(action_requests=[{"name": "transfer_money", "args": 1}])],
                ".action_requests[0].args",
            ),
            (
                [
                    request(
                        review_configs=[
                            {"action_name": "lookup", "allowed_decisions": ["approve"]}
                        ]
                    )
                ],
                ".review_configs[0].action_name",
            ),
            (
                [
                    request(
                        review_configs=[
                            {
                                "action_name": "transfer_money",
                                "allowed_decisions": "all",
                            }
                        ]
                    )
                ],
                ".review_configs[0].allowed_decisions",
            ),
            (
                [
                    request(
                        review_configs=[
                            {
                                "action_name": "transfer_money",
                                "allowed_decisions": ["approve", "maybe"],
                            }
                        ]
                    )
                ],
                ".review_configs[0].allowed_decisions[1]",
            ),
            ([request(extra=1)], ".value.extra"),
            (
                [
                    request(
                        review_configs=[
                            {"action_name": "transfer_money", "allowed_decisions": []}
                        ]
                    )
                ],
                ".review_configs[0].allowed_decisions",
            ),
            ([request(), PER_CALL], "$.interrupts"),
            ([PER_CALL, PER_CALL], "$.interrupts"),
        ],
    )
    def test_a_damaged_request_names_its_path(
        self, values: list[JSON], where: str
    ) -> None:
        """A checkpoint the middleware could not write is a DecodeError there."""
        real = agent_for([[TWO[0]]])
        paused(real)
        snapshot = damaged(real.get_state(CONFIG), *values, schema=APPROVE_ONLY)
        with pytest.raises(DecodeError) as caught:
            pending(Frozen(snapshot), CONFIG)
        assert caught.value.path.endswith(where)

    def test_a_call_whose_arguments_are_not_json_is_never_gated(self) -> None:
        """A call of the AI message with non-JSON arguments aligns with no action."""
        real = agent_for([[TWO[0]]])
        paused(real)
        snapshot = real.get_state(CONFIG)
        messages = snapshot.values["messages"]
        last = messages[-1]
        odd = ToolCall(name="lookup", args={"query": float("nan")}, id="c-odd")
        message = last.model_copy(update={"tool_calls": [*last.tool_calls, odd]})
        values = {**snapshot.values, "messages": [*messages[:-1], message]}
        pause = pending(Frozen(snapshot._replace(values=values)), CONFIG)
        assert pause is not None
        assert [p.ref for p in pause.interrupts] == ["c-1"]

    def test_a_per_call_schema_must_be_the_middlewares(self) -> None:
        """A per-call interrupt without a decision schema is refused."""
        real = agent_for([[TWO[0]]])
        paused(real)
        snapshot = damaged(real.get_state(CONFIG), PER_CALL, schema=None)
        with pytest.raises(DecodeError) as caught:
            pending(Frozen(snapshot), CONFIG)
        assert caught.value.path == "$.interrupts[0].response_schema"

    def test_a_per_call_schema_of_another_decision_is_refused(self) -> None:
        """A per-call schema naming a decision the middleware has not is refused."""
        real = agent_for([[TWO[0]]])
        paused(real)
        maybe = {"properties": {"type": {"const": "maybe"}}}
        snapshot = damaged(real.get_state(CONFIG), PER_CALL, schema=maybe)
        with pytest.raises(DecodeError) as caught:
            pending(Frozen(snapshot), CONFIG)
        assert caught.value.path == (
            "$.interrupts[0].response_schema.properties.type.const[0]"
        )

    def test_a_checkpoint_without_its_id_is_refused(self) -> None:
        """A pause read from a config that names no checkpoint is refused."""
        real = agent_for([[TWO[0]]])
        paused(real)
        snapshot = real.get_state(CONFIG)
        snapshot = snapshot._replace(config={"configurable": {"thread_id": "t-1"}})
        with pytest.raises(DecodeError) as caught:
            pending(Frozen(snapshot), CONFIG)
        assert caught.value.path == "$.config.configurable.checkpoint_id"

    def test_a_single_decision_schema_is_read(self) -> None:
        """A per-call tool allowing one decision lists just that decision."""
        real = agent_for([[TWO[0]]])
        paused(real)
        snapshot = damaged(real.get_state(CONFIG), PER_CALL, schema=APPROVE_ONLY)
        pause = pending(Frozen(snapshot), CONFIG)
        assert pause is not None
        assert pause.reviews[0].allowed == (frozenset({"approve"}),)

    def test_a_batch_without_its_message_is_refused(self) -> None:
        """A batched request with no AI message to align with is refused."""
        real = agent_for([[TWO[0]]])
        paused(real)
        snapshot = real.get_state(CONFIG)._replace(values={"messages": []})
        with pytest.raises(DecodeError) as caught:
            pending(Frozen(snapshot), CONFIG)
        assert caught.value.path == "$.values.messages"

    def test_a_replay_is_found_past_foreign_checkpoints(self) -> None:
        """The history search skips unreadable checkpoints, finds the pause."""
        real = agent_for([[TWO[0]]])
        pause = paused(real)
        now = real.get_state(CONFIG)
        finished = now._replace(interrupts=())
        history = [damaged(now, "not the middleware's"), now]
        answer = Resume(restart=[pause.interrupts[0].approve()])
        stub = Frozen(finished, history)
        assert codes(lambda: resume(stub, CONFIG, answer, MemoryStore())) == (
            ProblemCode.CONSUMED,
        )


def ui_answers(pause: Pause, decisions: dict[str, JSON]) -> dict[str, JSON]:
    """What a reviewer UI sends: per interrupt id, in the middleware's shape."""
    if pause.mode == "per_call":
        return {r.id: decisions[r.interrupts[0].ref] for r in pause.reviews}
    (review,) = pause.reviews
    return {review.id: {"decisions": [decisions[p.ref] for p in review.interrupts]}}


class TestFromDecisions:
    def test_positions_become_tool_call_ids(self, mode: str) -> None:
        """A UI's decisions become entries keyed by the calls they sit at."""
        agent = agent_for([TWO], mode)
        pause = paused(agent)
        answers = ui_answers(
            pause,
            {"c-1": {"type": "reject", "message": "no"}, "c-3": {"type": "approve"}},
        )
        converted = from_decisions(pause, answers)
        assert sorted(converted.restart, key=lambda r: r.ref) == [
            Restart("transfer_money", "c-1", {"reject": {"reason": "no"}}),
            Restart("transfer_money", "c-3", "approve"),
        ]
        resume(agent, CONFIG, converted, MemoryStore())
        assert ("transfer_money", {"to": "BOB", "amount": 2}) in RAN
        assert ("transfer_money", {"to": "ACME", "amount": 1}) not in RAN

    def test_a_bare_reject_gets_a_reason(self) -> None:
        """A reject without a message carries the default reason."""
        pause = paused(agent_for([[TWO[0]]]))
        converted = from_decisions(
            pause, ui_answers(pause, {"c-1": {"type": "reject"}})
        )
        reason: JSON = {"reject": {"reason": langchain.DEFAULT_REJECTION}}
        assert converted.restart == (Restart("transfer_money", "c-1", reason),)

    def test_a_respond_becomes_a_respond(self) -> None:
        """A respond decision is the client's answer to a question."""
        pause = paused(agent_for([[call("ask_user", "q-1", question="?")]]))
        answers = ui_answers(pause, {"q-1": {"type": "respond", "message": "Yes"}})
        assert from_decisions(pause, answers).respond == (
            Respond("ask_user", "q-1", "Yes"),
        )

    def test_an_edit_is_an_approval_of_other_arguments(self) -> None:
        """A UI's edit is an approval with its arguments as the new input."""
        agent = agent_for([[TWO[0]]])
        pause = paused(agent)
        same: dict[str, JSON] = {
            "name": "transfer_money",
            "args": {"to": "ACME", "amount": 1},
        }
        unchanged: JSON = {"type": "edit", "edited_action": same}
        changed: JSON = {
            "type": "edit",
            "edited_action": {**same, "args": {"to": "EVE", "amount": 1}},
        }
        assert from_decisions(pause, ui_answers(pause, {"c-1": unchanged})).restart == (
            Restart("transfer_money", "c-1", "approve", {"to": "ACME", "amount": 1}),
        )
        edit = from_decisions(pause, ui_answers(pause, {"c-1": changed}))
        assert edit.restart == (
            Restart("transfer_money", "c-1", "approve", {"to": "EVE", "amount": 1}),
        )
        resume(agent, CONFIG, edit, MemoryStore())
        assert transfers() == [{"to": "EVE", "amount": 1}]

    def test_a_ui_edit_outside_the_schema_is_refused(self, mode: str) -> None:
        """A UI's edit whose arguments break the tool's schema is refused."""
        agent = agent_for([[TWO[0]]], mode)
        pause = paused(agent)
        bad: JSON = {
            "type": "edit",
            "edited_action": {"name": "transfer_money", "args": {"to": "EVE"}},
        }
        edit = from_decisions(pause, ui_answers(pause, {"c-1": bad}))
        assert codes(lambda: resume(agent, CONFIG, edit, MemoryStore())) == (
            ProblemCode.SCHEMA_VIOLATION,
        )
        assert RAN == []

    def test_an_edit_cannot_switch_tools(self) -> None:
        """An edit naming another tool is malformed."""
        pause = paused(agent_for([[TWO[0]]]))
        switched: JSON = {
            "type": "edit",
            "edited_action": {"name": "lookup", "args": {"query": "x"}},
        }
        with pytest.raises(DecodeError) as caught:
            from_decisions(pause, ui_answers(pause, {"c-1": switched}))
        assert caught.value.path.endswith(".decisions[0].edited_action.name")

    @pytest.mark.parametrize(
        ("decision", "where"),
        [
            ({"type": "maybe"}, ".decisions[0].type"),
            ("approve", ".decisions[0]"),
            ({"type": "approve", "note": "ok"}, ".decisions[0].note"),
            ({"type": "respond"}, ".decisions[0].message"),
            ({"type": "reject", "message": 3}, ".decisions[0].message"),
            ({"type": "edit", "edited_action": {"name": "x"}}, ".edited_action.args"),
        ],
    )
    def test_a_malformed_decision_names_its_path(
        self, decision: JSON, where: str
    ) -> None:
        """A decision not in the middleware's shape is a DecodeError at its path."""
        pause = paused(agent_for([[TWO[0]]]))
        with pytest.raises(DecodeError) as caught:
            from_decisions(pause, ui_answers(pause, {"c-1": decision}))
        assert caught.value.path.endswith(where)

    @pytest.mark.parametrize("body", [[], {"decisions": "all"}, {"all": []}])
    def test_a_malformed_batch_is_refused(self, body: JSON) -> None:
        """A batched answer must be an object with a decisions array."""
        pause = paused(agent_for([[TWO[0]]]))
        with pytest.raises(DecodeError):
            from_decisions(pause, {pause.reviews[0].id: body})

    def test_unknown_targets_are_refused(self) -> None:
        """An unknown interrupt id and a decision past the last call are unknown."""
        pause = paused(agent_for([[TWO[0]]]))
        (review,) = pause.reviews
        approve: JSON = {"type": "approve"}
        answers: dict[str, JSON] = {
            review.id: {"decisions": [approve, approve]},
            "elsewhere": {"decisions": [approve]},
        }
        with pytest.raises(ResumeRejected) as caught:
            from_decisions(pause, answers)
        assert caught.value.codes == (ProblemCode.UNKNOWN_INTERRUPT,) * 2


EDIT_TO_EVE: Final[JSON] = {
    "type": "edit",
    "edited_action": {"name": "transfer_money", "args": {"to": "EVE", "amount": 1}},
}


def tool_messages(agent: Any) -> dict[str, ToolMessage]:
    """The thread's tool messages, by tool call id."""
    messages = agent.get_state(CONFIG).values["messages"]
    return {m.tool_call_id: m for m in messages if isinstance(m, ToolMessage)}


class TestLangChainsOwnCases:
    """LangChain's HumanInTheLoopMiddleware tests, run through the adapter."""

    def test_a_false_gate_pauses_nothing(self, mode: str) -> None:
        """interrupt_on False auto-approves: nothing is pending, the call ran."""
        agent = agent_for([[TWO[0]]], mode, {"transfer_money": False})
        agent.invoke({"messages": [{"role": "user", "content": "go"}]}, CONFIG)
        assert pending(agent, CONFIG) is None
        assert transfers() == [{"to": "ACME", "amount": 1}]

    @pytest.mark.parametrize(
        ("decision", "ran", "status", "content"),
        [
            ({"type": "approve"}, [{"to": "ACME", "amount": 1}], "success", "to ACME"),
            (EDIT_TO_EVE, [{"to": "EVE", "amount": 1}], "success", "sent 1 to EVE"),
            (
                {"type": "reject", "message": "not now"},
                [],
                "error",
                "User rejected the tool call for `transfer_money` with reason: not now",
            ),
            (
                {"type": "respond", "message": "already sent"},
                [],
                "success",
                "already sent",
            ),
        ],
        ids=["approve", "edit", "reject", "respond"],
    )
    def test_each_decision_under_true(
        self, mode: str, decision: JSON, ran: list[JSON], status: str, content: str
    ) -> None:
        """A UI's four decisions under interrupt_on True, as LangChain runs them."""
        agent = agent_for([[TWO[0]]], mode, {"transfer_money": True})
        pause = paused(agent)
        answer = from_decisions(pause, ui_answers(pause, {"c-1": decision}))
        assert resume(agent, CONFIG, answer, MemoryStore()) is None
        assert transfers() == ran
        message = tool_messages(agent)["c-1"]
        assert message.status == status
        assert str(message.content).endswith(content)
        edited = "Executed instead: transfer_money" in str(message.content)
        assert edited == (decision == EDIT_TO_EVE)

    def test_two_edits_in_one_batch(self, mode: str) -> None:
        """Two calls edited at once each run with their own new arguments."""
        agent = agent_for([TWO], mode)
        pause = paused(agent)
        edits: dict[str, JSON] = {
            ref: {
                "type": "edit",
                "edited_action": {
                    "name": "transfer_money",
                    "args": {"to": "NY", "amount": amount},
                },
            }
            for ref, amount in (("c-1", 10), ("c-3", 30))
        }
        answer = from_decisions(pause, ui_answers(pause, edits))
        resume(agent, CONFIG, answer, MemoryStore())
        assert sorted(transfers(), key=repr) == [
            {"to": "NY", "amount": 10},
            {"to": "NY", "amount": 30},
        ]

    def test_the_calls_keep_their_order(self, mode: str) -> None:
        """Auto-approved and reviewed calls stay in the model's order, ids kept."""
        calls = [
            call("lookup", "id-a", query="a"),
            call("transfer_money", "id-b", to="B", amount=2),
            call("lookup", "id-c", query="c"),
            call("transfer_money", "id-d", to="D", amount=4),
        ]
        agent = agent_for([calls], mode)
        pause = paused(agent)
        decisions: dict[str, JSON] = {"id-b": EDIT_TO_EVE, "id-d": {"type": "approve"}}
        answer = from_decisions(pause, ui_answers(pause, decisions))
        resume(agent, CONFIG, answer, MemoryStore())
        messages = agent.get_state(CONFIG).values["messages"]
        model_call = next(m for m in messages if isinstance(m, AIMessage))
        assert [c["id"] for c in model_call.tool_calls] == [c["id"] for c in calls]
        assert sorted(transfers(), key=repr) == [
            {"to": "D", "amount": 4},
            {"to": "EVE", "amount": 1},
        ]

    def test_the_review_description_is_shown(self, mode: str) -> None:
        """A static, a callable and the default description reach the payload."""

        def described(
            tool_call: ToolCall, state: AgentState[Any], runtime: Runtime[Any]
        ) -> str:
            del state, runtime  # LangChain's factory signature, by name
            return f"Custom: {tool_call['name']} with args {tool_call['args']}"

        gates: dict[str, bool | InterruptOnConfig] = {
            "transfer_money": InterruptOnConfig(
                allowed_decisions=["approve"], description=described
            ),
            "lookup": {"allowed_decisions": ["approve"], "description": "Static"},
            "jot": {"allowed_decisions": ["approve"]},
        }
        turn = [*TWO[:2], call("jot", "j-1", text="hi")]
        calls = by_ref(paused(agent_for([turn], mode, gates)))
        said = {ref: p.payload["description"] for ref, p in calls.items()}  # type: ignore[call-overload,index]
        assert said == {
            "c-1": "Custom: transfer_money with args {'to': 'ACME', 'amount': 1}",
            "c-2": "Static",
            "j-1": (
                "Tool execution requires approval\n\nTool: jot\nArgs: {'text': 'hi'}"
            ),
        }

    def test_a_ui_respond_the_review_forbids_is_refused(self, mode: str) -> None:
        """A respond where the review allows approve, edit, reject: refused, unspent."""
        agent = agent_for([[TWO[0]]], mode)
        pause = paused(agent)
        store = MemoryStore()
        respond: JSON = {"type": "respond", "message": "synthetic"}
        answer = from_decisions(pause, ui_answers(pause, {"c-1": respond}))
        assert codes(lambda: resume(agent, CONFIG, answer, store)) == (
            ProblemCode.ANSWER_NOT_ACCEPTED,
        )
        approve: JSON = {"type": "approve"}
        answer = from_decisions(pause, ui_answers(pause, {"c-1": approve}))
        resume(agent, CONFIG, answer, store)
        assert transfers() == [{"to": "ACME", "amount": 1}]

    def test_a_malformed_edit_is_refused_then_a_good_one_runs(self, mode: str) -> None:
        """An edit without its action is malformed; the call waits, then runs once."""
        agent = agent_for([[TWO[0]]], mode, {"transfer_money": True})
        pause = paused(agent)
        with pytest.raises(DecodeError) as caught:
            from_decisions(pause, ui_answers(pause, {"c-1": {"type": "edit"}}))
        assert caught.value.path.endswith(".edited_action")
        answer = from_decisions(pause, ui_answers(pause, {"c-1": EDIT_TO_EVE}))
        resume(agent, CONFIG, answer, MemoryStore())
        assert transfers() == [{"to": "EVE", "amount": 1}]

    def test_an_undeclared_edit_argument_is_passed_on(self, mode: str) -> None:
        """An argument the tool does not declare is let through, and ignored."""
        agent = agent_for([[TWO[0]]], mode)
        (transfer,) = paused(agent).interrupts
        extra: JSON = {"to": "EVE", "amount": 5, "memo": "x"}
        answer = Resume(restart=[transfer.restart("approve", replace_input=extra)])
        resume(agent, CONFIG, answer, MemoryStore())
        assert transfers() == [{"to": "EVE", "amount": 5}]

    def test_too_few_ui_decisions_are_missing(self) -> None:
        """A batch with no decision for its call is missing, not run."""
        agent = agent_for([[TWO[0]]])
        pause = paused(agent)
        answer = from_decisions(pause, {pause.reviews[0].id: {"decisions": []}})
        assert codes(lambda: resume(agent, CONFIG, answer, MemoryStore())) == (
            ProblemCode.MISSING,
        )
        assert RAN == []

    def test_an_empty_tool_call_id_is_refused(self, mode: str) -> None:
        """LangChain runs a call with an empty id; the adapter refuses to guess it."""
        agent = agent_for([[call("transfer_money", "", to="A", amount=1)]], mode)
        agent.invoke({"messages": [{"role": "user", "content": "go"}]}, CONFIG)
        with pytest.raises(DecodeError) as caught:
            pending(agent, CONFIG)
        where = ".tool_call_id" if mode == "per_call" else "(its tool call id)"
        assert caught.value.path.endswith(where)
        assert RAN == []


def graph_answer(pause: Pause, decision: JSON) -> Resume:
    """What a LangGraph adapter client sends for a one-call review."""
    (review,) = pause.reviews
    body: JSON = decision if pause.mode == "per_call" else {"decisions": [decision]}
    return Resume(respond=[Respond("custom", review.id, body)])


class TestThroughTheLangGraphAdapter:
    def test_a_review_is_listed_accepting_no_answer(self, mode: str) -> None:
        """The LangGraph adapter shows each review as raised, taking no answer."""
        agent = agent_for([TWO], mode)
        pause = paused(agent)
        seen = langgraph_adapter.pending(agent, CONFIG, MemoryStore())
        assert [(p.id, p.kind, p.payload) for p in seen] == [
            (review.id, Custom(), review.request) for review in pause.reviews
        ]
        assert [p.accepts for p in seen] == [Accepts()] * len(pause.reviews)

    def test_a_review_gets_the_same_rules_through_both_doors(self, mode: str) -> None:
        """A forbidden edit is refused by both doors, unspent; approval runs once."""
        gates: dict[str, bool | InterruptOnConfig] = {
            "transfer_money": {"allowed_decisions": ["approve", "reject"]}
        }
        agent = agent_for([[TWO[0]]], mode, gates)
        pause = paused(agent)
        (transfer,) = pause.interrupts
        store = MemoryStore()

        def through_graph(decision: JSON) -> tuple[ProblemCode, ...]:
            answer = graph_answer(pause, decision)
            return codes(lambda: langgraph_adapter.resume(agent, CONFIG, answer, store))

        assert through_graph(EDIT_TO_EVE) == (ProblemCode.ANSWER_NOT_ACCEPTED,)
        edit = from_decisions(pause, ui_answers(pause, {"c-1": EDIT_TO_EVE}))
        assert codes(lambda: resume(agent, CONFIG, edit, store)) == (
            ProblemCode.INPUT_MODIFIED,
        )
        assert through_graph({"type": "approve"}) == (ProblemCode.ANSWER_NOT_ACCEPTED,)
        assert transfers() == []
        answer = Resume(restart=[transfer.approve()])
        assert resume(agent, CONFIG, answer, store) is None
        assert transfers() == [{"to": "ACME", "amount": 1}]
        assert codes(lambda: resume(agent, CONFIG, answer, store)) == (
            ProblemCode.CONSUMED,
        )
        with pytest.raises(ResumeRejected):
            langgraph_adapter.resume(
                agent, CONFIG, graph_answer(pause, {"type": "approve"}), store
            )
        assert transfers() == [{"to": "ACME", "amount": 1}]

    @pytest.mark.parametrize(
        "value",
        [
            {"action_requests": "damaged"},
            {"type": "tool_approval"},
            {"action_requests": [], "review_configs": [], "extra": 1},
        ],
    )
    def test_a_damaged_review_is_still_a_review(self, value: JSON) -> None:
        """Whatever its state, a review is not taken for a plain interrupt."""
        shown, wire = langgraph_adapter._of_interrupt(Interrupt(value, "i-1"))
        assert (shown.accepts, wire) == (Accepts(), None)


class TestForgeries:
    @pytest.mark.parametrize(
        "gates", [GATES, {"transfer_money": True}], ids=["approvals", "true"]
    )
    @settings(
        max_examples=25,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )
    @given(
        entries=st.lists(
            st.tuples(
                st.sampled_from(["transfer_money", "lookup", "ask_user"]),
                st.sampled_from(["c-1", "c-3", "c-2", "c-9"]),
                st.sampled_from(
                    [
                        "approve",
                        {"reject": {"reason": "no"}},
                        {"approve": {"note": None}},
                        "yes",
                        None,
                        {"to": "EVE"},
                    ]
                ),
                st.sampled_from([None, {"to": "EVE", "amount": 1}]),
                st.booleans(),
            ),
            max_size=4,
        )
    )
    def test_a_resume_runs_only_what_it_validly_approved(
        self,
        gates: dict[str, bool | InterruptOnConfig],
        entries: Sequence[tuple[str, str, JSON, JSON, bool]],
    ) -> None:
        """Any resume: refused with nothing run, or the approved calls ran as told."""
        RAN.clear()
        SEEN.clear()
        agent = agent_for([TWO], gates=gates)
        paused(agent)
        respond = [Respond(n, r, d) for n, r, d, _, as_result in entries if as_result]
        restart = [
            Restart(n, r, d, i) for n, r, d, i, as_result in entries if not as_result
        ]
        try:
            resume(
                agent, CONFIG, Resume(respond=respond, restart=restart), MemoryStore()
            )
        except ResumeRejected:
            assert RAN == []
            assert pending(agent, CONFIG) is not None
            return
        originals: dict[str, JSON] = {
            "c-1": {"to": "ACME", "amount": 1},
            "c-3": {"to": "BOB", "amount": 2},
        }
        approved = [
            originals[r.ref] if r.input is None else r.input
            for r in restart
            if r.resumed != {"reject": {"reason": "no"}}
        ]
        assert sorted(transfers(), key=repr) == sorted(approved, key=repr)
        assert [r.output for r in respond] == [s for s in SEEN if s == "yes"]


def test_a_missing_extra_names_it() -> None:
    """Without LangChain installed, importing the adapter names the extra."""
    out = import_error("interruption.adapters.langchain", "langchain")
    assert "pip install 'interruption[langgraph]'" in out
