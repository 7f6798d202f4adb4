"""The LangGraph adapter: typed pauses in nodes, and one validated resume."""

from __future__ import annotations

import asyncio
import gc
import itertools
import sqlite3
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypedDict

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from interruption import (
    JSON,
    Accepts,
    ApprovalPending,
    ArgumentTypeError,
    Confirm,
    Custom,
    DecodeError,
    Input,
    InvalidArgument,
    MemoryStore,
    Phase,
    ProblemCode,
    Respond,
    Restart,
    Resume,
    ResumePolicy,
    ResumeRejected,
    ScheduledPause,
    SchemaError,
    SqliteStore,
    ToolRequest,
)
from interruption.adapters.langgraph import (
    MARK,
    ToolApproval,
    apending,
    approve_call,
    aresume,
    aresume_stream,
    ask,
    pending,
    resume,
    resume_stream,
    send_tool_calls,
)
from interruption.runtime.approval import DECISION_SCHEMA
from interruption.runtime.store import Store
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    HumanMessage,
    ToolCall,
    ToolMessage,
)
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command, interrupt

from tests.adapters._common import import_error

THREADS = itertools.count()


def thread() -> RunnableConfig:
    """A config naming a thread no other test uses."""
    return {"configurable": {"thread_id": f"t-{next(THREADS)}"}}


def codes(rejected: pytest.ExceptionInfo[ResumeRejected]) -> list[str]:
    """The problem codes of a rejection, as strings."""
    return [code.value for code in rejected.value.codes]


@pytest.fixture(name="marks")
def _marks() -> MemoryStore:
    return MemoryStore()


# --- graphs -------------------------------------------------------------------


class Answers(TypedDict, total=False):
    """A state that keeps what the node got and how often it ran."""

    got: list[Any]


@attrs.frozen
class Shipping:
    """An attrs answer class."""

    city: str
    days: int


@attrs.define
class Log:
    """How often a node started and what it received."""

    starts: int = 0
    got: list[object] = attrs.Factory(list)


def one_node(
    body: Callable[[], object], log: Log, **compile_options: Any
) -> CompiledStateGraph[Answers]:
    """A one-node graph whose node runs *body* and records its result."""

    def node(state: Answers) -> Answers:
        log.starts += 1
        value = body()
        log.got.append(value)
        kept = repr(value) if attrs.has(type(value)) else value
        return {"got": [*state.get("got", []), kept]}

    builder = StateGraph(Answers)
    builder.add_node("node", node)
    builder.add_edge(START, "node")
    builder.add_edge("node", END)
    checkpointer = compile_options.pop("checkpointer", None) or InMemorySaver()
    return builder.compile(checkpointer=checkpointer, **compile_options)


CONFIRM = Confirm("Invoice", "Pay INV-7 today?")


class Chat(TypedDict):
    """A conversation."""

    messages: Annotated[list[AnyMessage], add_messages]


CALLS: list[ToolCall] = [
    {"name": "transfer", "args": {"to": "ACME", "amount": 5}, "id": "c-1"},
    {"name": "transfer", "args": {"to": "MALLORY", "amount": 9}, "id": "c-2"},
]


def tool_graph(
    sent: list[tuple[str, int]],
    seen: list[ToolMessage],
    checkpointer: Any = None,
) -> CompiledStateGraph[Chat]:
    """A model that asks for two transfers at once, each held for approval."""

    @tool
    def transfer(to: str, amount: int) -> str:
        """Send money."""
        sent.append((to, amount))
        return f"sent {amount} to {to}"

    def model(state: Chat) -> Chat:
        last = state["messages"][-1]
        if isinstance(last, HumanMessage):
            return {"messages": [AIMessage("", tool_calls=CALLS)]}
        seen.extend(m for m in state["messages"] if isinstance(m, ToolMessage))
        return {"messages": [AIMessage("done")]}

    builder = StateGraph(Chat)
    builder.add_node("model", model)
    builder.add_node("tools", ToolApproval({"transfer"}).node([transfer]))
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", send_tool_calls("tools"), ["tools", END])
    builder.add_edge("tools", "model")
    return builder.compile(checkpointer=checkpointer or InMemorySaver())


def start(graph: CompiledStateGraph[Any], first: object) -> RunnableConfig:
    """Run *graph* on a new thread until it pauses; return the thread."""
    config = thread()
    graph.invoke(first, config)
    return config


# --- inside nodes ---------------------------------------------------------------


class TestAsk:
    """`ask` pauses with a typed question and returns the validated answer."""

    def test_a_confirm_is_a_custom_pause_accepting_its_choices(
        self, marks: Store
    ) -> None:
        """A Confirm shows as Custom with its wire form, accepting its choices."""
        log = Log()
        graph = one_node(lambda: ask(CONFIRM), log)
        config = start(graph, {})
        (question,) = pending(graph, config, marks)
        assert question.kind == Custom()
        assert question.payload_as(Confirm) == CONFIRM
        assert question.accepts == Accepts(respond={"enum": ["Yes", "No"]})
        assert question.id == graph.get_state(config).interrupts[0].id
        resume(graph, config, Resume(respond=[question.respond("Yes")]), marks)
        assert log.got == ["Yes"]
        assert pending(graph, config, marks) == ()

    def test_an_attrs_answer_comes_back_structured(self, marks: Store) -> None:
        """With answer=<attrs class> the node gets an instance of it."""
        log = Log()
        graph = one_node(lambda: ask({"where": "to?"}, answer=Shipping), log)
        config = start(graph, {})
        (question,) = pending(graph, config, marks)
        answer = Resume(respond=[question.respond({"city": "Oslo", "days": 2})])
        resume(graph, config, answer, marks)
        assert log.got == [Shipping("Oslo", 2)]

    def test_an_input_with_a_schema_returns_json(self, marks: Store) -> None:
        """An Input prompt with an explicit schema returns the JSON answer."""
        log = Log()
        schema: dict[str, JSON] = {"type": "string", "minLength": 3}
        graph = one_node(lambda: ask(Input("Name", "Who?"), answer=schema), log)
        config = start(graph, {})
        (question,) = pending(graph, config, marks)
        assert question.accepts.respond == schema
        with pytest.raises(ResumeRejected) as rejected:
            resume(
                graph,
                config,
                Resume(respond=[Respond("custom", question.ref, "x")]),
                marks,
            )
        assert codes(rejected) == ["schema_violation"]
        resume(graph, config, Resume(respond=[question.respond("Ada")]), marks)
        assert log.got == ["Ada"]

    def test_a_json_prompt_needs_an_answer_schema(self) -> None:
        """A JSON prompt without answer= is a TypeError at the call site."""
        graph = one_node(lambda: ask({"q": 1}), Log())  # type: ignore[call-overload]
        with pytest.raises(TypeError, match="for a JSON prompt, got None"):
            graph.invoke({}, thread())

    def test_a_missing_answer_schema_is_an_argument_type_error(self) -> None:
        """Without answer=, ask raises the library's ArgumentTypeError at answer."""
        graph = one_node(lambda: ask({"q": 1}), Log())  # type: ignore[call-overload]
        with pytest.raises(ArgumentTypeError) as caught:
            graph.invoke({}, thread())
        error = caught.value
        assert (error.code, error.where, error.got) == (
            "argument_type_error",
            "ask: answer",
            "None",
        )

    def test_an_unusable_schema_is_a_type_error(self) -> None:
        """An answer schema that cannot run is a TypeError before any pause."""
        graph = one_node(lambda: ask({"q": 1}, answer={"type": 12}), Log())
        with pytest.raises(TypeError, match="expected a usable JSON Schema"):
            graph.invoke({}, thread())

    def test_an_unusable_schema_is_an_argument_type_error(self) -> None:
        """The refusal is ArgumentTypeError; its cause is the SchemaError."""
        graph = one_node(lambda: ask({"q": 1}, answer={"type": 12}), Log())
        with pytest.raises(ArgumentTypeError) as caught:
            graph.invoke({}, thread())
        error = caught.value
        assert (error.where, error.expected) == ("ask: answer", "a usable JSON Schema")
        assert isinstance(error.__cause__, SchemaError)
        assert error.__cause__.path == "$.type"

    def test_a_raw_resume_never_reaches_the_node(self, marks: Store) -> None:
        """A client bypassing the adapter gets the node refused, not continued."""
        log = Log()
        graph = one_node(lambda: ask(CONFIRM), log)
        config = start(graph, {})
        (question,) = pending(graph, config, marks)
        with pytest.raises(ResumeRejected) as rejected:
            graph.invoke(Command(resume={question.id: "Yes"}), config)
        assert codes(rejected) == ["answer_not_accepted"]
        assert log.got == []

    def test_an_answer_to_another_question_is_refused_in_the_node(
        self, marks: Store
    ) -> None:
        """An envelope made for another pause is refused by the asking node."""
        log = Log()
        graph = one_node(lambda: ask(CONFIRM), log)
        config = start(graph, {})
        (question,) = pending(graph, config, marks)
        forged = {MARK: {"for": {"another": "question"}, "respond": "Yes"}}
        with pytest.raises(ResumeRejected) as rejected:
            graph.invoke(Command(resume={question.id: forged}), config)
        assert codes(rejected) == ["unknown_interrupt"]
        assert log.got == []

    @pytest.mark.parametrize(
        ("bound", "accepted"),
        [(1.0, True), (True, False), ("1", False)],
        ids=["json-equal", "true-is-not-1", "a-string"],
    )
    def test_an_answer_is_bound_to_its_question_as_json(
        self, marks: Store, bound: JSON, accepted: bool
    ) -> None:
        """An envelope binds to a JSON-equal question only: 1 = 1.0, not true."""
        log = Log()
        graph = one_node(lambda: ask({"n": 1}, answer={"type": "string"}), log)
        config = start(graph, {})
        (question,) = pending(graph, config, marks)
        stored = graph.get_state(config).interrupts[0].value[MARK]
        envelope = {MARK: {"for": {**stored, "payload": {"n": bound}}, "respond": "y"}}
        if accepted:
            graph.invoke(Command(resume={question.id: envelope}), config)
            assert log.got == ["y"]
            return
        with pytest.raises(ResumeRejected) as rejected:
            graph.invoke(Command(resume={question.id: envelope}), config)
        assert codes(rejected) == ["unknown_interrupt"]
        assert log.got == []

    def test_an_answer_outside_the_schema_is_refused_in_the_node(
        self, marks: Store
    ) -> None:
        """A forged envelope whose answer breaks the schema is refused by the node."""
        log = Log()
        graph = one_node(lambda: ask(CONFIRM), log)
        config = start(graph, {})
        (question,) = pending(graph, config, marks)
        stored = graph.get_state(config).interrupts[0].value[MARK]
        forged = {MARK: {"for": stored, "respond": "Maybe"}}
        with pytest.raises(ResumeRejected) as rejected:
            graph.invoke(Command(resume={question.id: forged}), config)
        assert codes(rejected) == ["schema_violation"]
        assert log.got == []

    def test_an_answer_that_is_not_json_is_refused_in_the_node(
        self, marks: Store
    ) -> None:
        """A forged envelope whose answer is not JSON is a schema_violation there."""
        log = Log()
        graph = one_node(lambda: ask(CONFIRM), log)
        config = start(graph, {})
        (question,) = pending(graph, config, marks)
        stored = graph.get_state(config).interrupts[0].value[MARK]
        forged = {MARK: {"for": stored, "respond": {"nan": float("nan")}}}
        with pytest.raises(ResumeRejected) as rejected:
            graph.invoke(Command(resume={question.id: forged}), config)
        assert codes(rejected) == ["schema_violation"]
        assert "$.output.nan" in str(rejected.value)
        assert log.got == []

    def test_an_approval_outside_the_decision_schema_is_refused_in_the_node(
        self, marks: Store
    ) -> None:
        """A forged decision that is no decision is refused by the approving node."""
        log = Log()
        call = ToolCall(name="transfer", args={"amount": 5}, id="call-1")
        graph = one_node(lambda: approve_call(call), log)
        config = start(graph, {})
        (approval,) = pending(graph, config, marks)
        stored = graph.get_state(config).interrupts[0].value[MARK]
        forged = {MARK: {"for": stored, "restart": {"decision": "maybe"}}}
        with pytest.raises(ResumeRejected) as rejected:
            graph.invoke(Command(resume={approval.id: forged}), config)
        assert codes(rejected) == ["schema_violation"]
        assert log.got == []

    def test_a_changed_question_refuses_the_answer(self, marks: Store) -> None:
        """If the node asks something else on resume, the old answer is refused."""
        texts = iter(["Pay INV-7 today?", "Pay INV-8 today?"])
        graph = one_node(lambda: ask(Confirm("Invoice", next(texts))), Log())
        config = start(graph, {})
        (question,) = pending(graph, config, marks)
        with pytest.raises(ResumeRejected) as rejected:
            resume(graph, config, Resume(respond=[question.respond("Yes")]), marks)
        assert codes(rejected) == ["unknown_interrupt"]


class TestApproveCall:
    """`approve_call`, `ToolApproval` and `send_tool_calls` on a ToolNode."""

    def test_each_parallel_call_is_its_own_approval(self, marks: Store) -> None:
        """Two paused calls are two ApprovalPending, each with its call."""
        graph = tool_graph([], [])
        config = start(graph, {"messages": [HumanMessage("pay")]})
        first, second = pending(graph, config, marks)
        assert [first.kind, second.kind] == [
            ApprovalPending("c-1"),
            ApprovalPending("c-2"),
        ]
        assert first.tool == ToolRequest("transfer", "c-1", {"to": "ACME", "amount": 5})
        assert first.accepts == Accepts(restart=DECISION_SCHEMA)
        assert first.allowed.respond is None
        ids = {found.id for found in graph.get_state(config).interrupts}
        assert {first.id, second.id} == ids

    def test_approve_one_reject_the_other(self, marks: Store) -> None:
        """Each decision reaches its own call; the rejected reason reaches the model."""
        sent: list[tuple[str, int]] = []
        seen: list[ToolMessage] = []
        graph = tool_graph(sent, seen)
        config = start(graph, {"messages": [HumanMessage("pay")]})
        acme, mallory = pending(graph, config, marks)
        answer = Resume(restart=[mallory.reject("wrong account"), acme.approve()])
        resume(graph, config, answer, marks)
        assert sent == [("ACME", 5)]
        by_call = {message.tool_call_id: message for message in seen}
        assert by_call["c-1"].content == "sent 5 to ACME"
        assert by_call["c-2"].content == "wrong account"
        assert by_call["c-2"].status == "error"

    def test_the_async_path_routes_each_decision(self, marks: Store) -> None:
        """The async path (the gate's async wrapper): the same routing, awaited."""
        sent: list[tuple[str, int]] = []
        seen: list[ToolMessage] = []
        graph = tool_graph(sent, seen)

        async def scenario() -> None:
            config = thread()
            await graph.ainvoke({"messages": [HumanMessage("pay")]}, config)
            acme, mallory = await apending(graph, config, marks)
            answer = Resume(restart=[acme.reject("no"), mallory.approve("ok")])
            await aresume(graph, config, answer, marks)
            assert await apending(graph, config, marks) == ()

        asyncio.run(scenario())
        assert sent == [("MALLORY", 9)]

    def test_a_decision_routed_to_another_call_is_refused(self, marks: Store) -> None:
        """A decision made for one call, delivered to another's pause, is refused."""
        sent: list[tuple[str, int]] = []
        graph = tool_graph(sent, [])
        config = start(graph, {"messages": [HumanMessage("pay")]})
        acme, mallory = pending(graph, config, marks)
        values = {i.id: i.value[MARK] for i in graph.get_state(config).interrupts}
        for_acme = {MARK: {"for": values[acme.id], "restart": "approve"}}
        with pytest.raises(ResumeRejected) as rejected:
            graph.invoke(
                Command(resume={mallory.id: for_acme, acme.id: for_acme}), config
            )
        assert "unknown_interrupt" in codes(rejected)
        assert ("MALLORY", 9) not in sent

    def test_a_call_without_an_id_cannot_be_held(self) -> None:
        """approve_call refuses a call it could not name."""
        with pytest.raises(ValueError, match="expected a non-empty call id"):
            approve_call({"name": "transfer", "args": {}, "id": None})

    def test_a_call_without_an_id_is_an_invalid_argument(self) -> None:
        """approve_call's refusal is the library's InvalidArgument, naming the call."""
        with pytest.raises(InvalidArgument) as caught:
            approve_call({"name": "transfer", "args": {}, "id": ""})
        error = caught.value
        assert (error.code, error.where, error.got) == (
            "invalid_argument",
            "approve_call: the id of the call of 'transfer'",
            "''",
        )

    @pytest.mark.parametrize("awaited", [False, True])
    def test_calls_that_need_no_approval_run(self, marks: Store, awaited: bool) -> None:
        """A predicate gate lets other calls through without a pause (sync, async)."""
        sent: list[tuple[str, int]] = []

        @tool
        def transfer(to: str, amount: int) -> str:
            """Send money."""
            sent.append((to, amount))
            return "sent"

        def model(state: Chat) -> Chat:
            if isinstance(state["messages"][-1], HumanMessage):
                return {"messages": [AIMessage("", tool_calls=CALLS)]}
            return {"messages": [AIMessage("done")]}

        gate = ToolApproval(lambda call: call["args"]["amount"] > 6)
        builder = StateGraph(Chat)
        builder.add_node("model", model)
        builder.add_node("tools", gate.node([transfer]))
        builder.add_edge(START, "model")
        builder.add_conditional_edges("model", send_tool_calls(), ["tools", END])
        builder.add_edge("tools", "model")
        graph = builder.compile(checkpointer=InMemorySaver())
        config = thread()
        first: Chat = {"messages": [HumanMessage("pay")]}

        async def run() -> None:
            await graph.ainvoke(first, config)
            (held,) = await apending(graph, config, marks)
            assert held.kind == ApprovalPending("c-2")
            assert sent == [("ACME", 5)]
            await aresume(graph, config, Resume(restart=[held.approve()]), marks)

        if awaited:
            asyncio.run(run())
        else:
            graph.invoke(first, config)
            (held,) = pending(graph, config, marks)
            resume(graph, config, Resume(restart=[held.approve()]), marks)
        assert sent == [("ACME", 5), ("MALLORY", 9)]

    @pytest.mark.parametrize("answer", [None, 0, 1, "", "yes", [], {"hold": True}])
    @pytest.mark.parametrize("awaited", [False, True])
    def test_a_predicate_answering_no_bool_fails_closed(
        self, answer: object, awaited: bool
    ) -> None:
        """A predicate answering anything but True or False raises; nothing runs."""
        sent: list[tuple[str, int]] = []

        @tool
        def transfer(to: str, amount: int) -> str:
            """Send money."""
            sent.append((to, amount))
            return "sent"

        def model(state: Chat) -> Chat:  # noqa: ARG001 - LangGraph names it
            return {"messages": [AIMessage("", tool_calls=CALLS[1:])]}

        builder = StateGraph(Chat)
        builder.add_node("model", model)
        gate = ToolApproval(lambda _call: answer)  # type: ignore[arg-type, return-value]
        builder.add_node("tools", gate.node([transfer]))
        builder.add_edge(START, "model")
        builder.add_conditional_edges("model", send_tool_calls(), ["tools", END])
        builder.add_edge("tools", END)
        graph = builder.compile(checkpointer=InMemorySaver())
        first: Chat = {"messages": [HumanMessage("pay")]}
        run: Callable[[], object] = (
            (lambda: asyncio.run(graph.ainvoke(first, thread())))
            if awaited
            else (lambda: graph.invoke(first, thread()))
        )
        with pytest.raises(ArgumentTypeError) as caught:
            run()
        assert caught.value.where == "ToolApproval predicate for 'transfer'"
        assert caught.value.expected == "True or False"
        assert sent == []

    def test_an_async_predicate_is_refused_not_taken_as_yes(self) -> None:
        """A coroutine is no answer: the gate raises, closes it, nothing runs."""
        sent: list[tuple[str, int]] = []

        @tool
        def transfer(to: str, amount: int) -> str:
            """Send money."""
            sent.append((to, amount))
            return "sent"

        async def needs(_call: ToolCall) -> bool:
            return False

        def model(state: Chat) -> Chat:  # noqa: ARG001 - LangGraph names it
            return {"messages": [AIMessage("", tool_calls=CALLS[1:])]}

        builder = StateGraph(Chat)
        builder.add_node("model", model)
        gate = ToolApproval(needs)  # type: ignore[arg-type]
        builder.add_node("tools", gate.node([transfer]))
        builder.add_edge(START, "model")
        builder.add_conditional_edges("model", send_tool_calls(), ["tools", END])
        builder.add_edge("tools", END)
        graph = builder.compile(checkpointer=InMemorySaver())
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a coroutine never awaited warns
            with pytest.raises(ArgumentTypeError) as caught:
                graph.invoke({"messages": [HumanMessage("pay")]}, thread())
            gc.collect()
        assert "coroutine" in caught.value.got
        assert sent == []

    @pytest.mark.parametrize("awaited", [False, True])
    def test_an_approved_call_that_fails_is_not_run_again_by_a_retry(
        self, awaited: bool, marks: MemoryStore
    ) -> None:
        """A failed approved call ends its task: a retry of the thread runs nothing."""
        sent: list[str] = []
        seen: list[ToolMessage] = []

        @tool
        def transfer(to: str, amount: int) -> str:
            """Send money; the bank times out after taking it."""
            sent.append(f"{to} {amount}")
            msg = "timeout after the bank took it"
            raise RuntimeError(msg)

        def model(state: Chat) -> Chat:
            last = state["messages"][-1]
            if isinstance(last, HumanMessage):
                return {"messages": [AIMessage("", tool_calls=CALLS[:1])]}
            seen.extend(m for m in state["messages"] if isinstance(m, ToolMessage))
            return {"messages": [AIMessage("done")]}

        builder = StateGraph(Chat)
        builder.add_node("model", model)
        builder.add_node("tools", ToolApproval({"transfer"}).node([transfer]))
        builder.add_edge(START, "model")
        builder.add_conditional_edges("model", send_tool_calls("tools"), ["tools", END])
        builder.add_edge("tools", "model")
        graph = builder.compile(checkpointer=InMemorySaver())
        config = thread()
        graph.invoke({"messages": [HumanMessage("pay")]}, config)
        (held,) = pending(graph, config, marks)
        approved = Resume(restart=[held.approve()])
        if awaited:
            asyncio.run(aresume(graph, config, approved, marks))
        else:
            resume(graph, config, approved, marks)
        (failed,) = seen
        assert failed.status == "error"
        assert "timeout after the bank took it" in str(failed.content)
        assert pending(graph, config, marks) == ()
        graph.invoke(None, config)
        assert sent == ["ACME 5"]

    @pytest.mark.parametrize("awaited", [False, True])
    def test_an_approved_call_may_still_pause(
        self, awaited: bool, marks: MemoryStore
    ) -> None:
        """A pause inside an approved call is a pause, not an error the gate ends."""
        asked: list[object] = []

        @tool
        def transfer(to: str, amount: int) -> str:
            """Send money, once the user names the account."""
            asked.append(interrupt({"account for": f"{to} {amount}"}))
            return "sent"

        def model(state: Chat) -> Chat:
            if isinstance(state["messages"][-1], HumanMessage):
                return {"messages": [AIMessage("", tool_calls=CALLS[:1])]}
            return {"messages": [AIMessage("done")]}

        builder = StateGraph(Chat)
        builder.add_node("model", model)
        builder.add_node("tools", ToolApproval({"transfer"}).node([transfer]))
        builder.add_edge(START, "model")
        builder.add_conditional_edges("model", send_tool_calls("tools"), ["tools", END])
        builder.add_edge("tools", "model")
        graph = builder.compile(checkpointer=InMemorySaver())
        config = thread()
        graph.invoke({"messages": [HumanMessage("pay")]}, config)
        (held,) = pending(graph, config, marks)
        approved = Resume(restart=[held.approve()])
        if awaited:
            asyncio.run(aresume(graph, config, approved, marks))
        else:
            resume(graph, config, approved, marks)
        (question,) = pending(graph, config, marks)
        assert question.payload == {"account for": "ACME 5"}
        assert asked == []

    def test_the_router_ends_without_calls(self) -> None:
        """send_tool_calls goes to `otherwise` when the last message calls nothing."""
        route = send_tool_calls(otherwise="finish")
        assert route({"messages": [AIMessage("hi")]}) == "finish"
        assert route({"messages": []}) == "finish"


# --- pending ----------------------------------------------------------------------


class TestPending:
    """`pending` reads the thread's pauses from the checkpointer."""

    def test_a_plain_interrupt_is_custom_accepting_any_json(self, marks: Store) -> None:
        """interrupt(value) written without the adapter is Custom, payload the value."""
        graph = one_node(lambda: interrupt({"q": "why?"}), Log())
        config = start(graph, {})
        (plain,) = pending(graph, config, marks)
        assert (plain.kind, plain.payload, plain.tool) == (
            Custom(),
            {"q": "why?"},
            None,
        )
        assert plain.accepts == Accepts(respond={})
        assert plain.ref == plain.id == graph.get_state(config).interrupts[0].id

    def test_a_value_that_is_not_json_shows_no_payload(self, marks: Store) -> None:
        """A non-JSON interrupt value is shown as a None payload."""
        graph = one_node(lambda: interrupt({1, 2}), Log())
        (plain,) = pending(graph, start(graph, {}), marks)
        assert plain.payload is None

    def test_a_fresh_thread_has_nothing_pending(self, marks: Store) -> None:
        """A thread that never ran waits for nothing."""
        graph = one_node(lambda: 1, Log())
        assert pending(graph, thread(), marks) == ()

    @pytest.mark.parametrize(
        ("options", "expected"),
        [
            ({"interrupt_before": ["b"]}, ScheduledPause(Phase.BEFORE, "b")),
            ({"interrupt_before": "*"}, ScheduledPause(Phase.BEFORE, "a")),
            ({"interrupt_after": ["a"]}, ScheduledPause(Phase.AFTER, "a")),
        ],
    )
    def test_a_static_breakpoint_is_a_scheduled_pause(
        self, options: dict[str, Any], expected: ScheduledPause, marks: Store
    ) -> None:
        """Breakpoints show as ScheduledPause(phase, node); a restart continues."""
        graph = two_nodes(**options)
        config = start(graph, {"got": []})
        (stop,) = pending(graph, config, marks)
        assert stop.kind == expected
        assert stop.accepts == Accepts(restart={"type": "null"})
        with pytest.raises(ResumeRejected) as rejected:
            resume(
                graph,
                config,
                Resume(respond=[Respond(stop.name, stop.ref, None)]),
                marks,
            )
        assert codes(rejected) == ["answer_not_accepted"]
        out = resume(graph, config, Resume(restart=[stop.restart()]), marks)
        assert out.value["got"][-1] == "b" or pending(graph, config, marks)

    def test_a_crash_after_a_breakpoint_is_no_pause(self, marks: Store) -> None:
        """A node that failed after its breakpoint continued leaves nothing pending."""

        def a(state: Answers) -> Answers:
            return {"got": [*state.get("got", []), "a"]}

        def boom(state: Answers) -> Answers:
            raise RuntimeError(f"boom after {state}")

        builder = StateGraph(Answers)
        builder.add_node("a", a)
        builder.add_node("b", boom)
        builder.add_edge(START, "a")
        builder.add_edge("a", "b")
        graph = builder.compile(checkpointer=InMemorySaver(), interrupt_before=["b"])
        config = start(graph, {"got": []})
        (stop,) = pending(graph, config, marks)
        with pytest.raises(RuntimeError, match="boom"):
            resume(graph, config, Resume(restart=[stop.restart()]), marks)
        assert graph.get_state(config).next == ("b",)
        assert pending(graph, config, marks) == ()

    def test_a_breakpoint_given_at_run_time_is_not_seen(self, marks: Store) -> None:
        """Only compiled breakpoints are known: invoke(interrupt_before=...) is not."""
        graph = two_nodes()
        config = thread()
        graph.invoke({"got": []}, config, interrupt_before=["b"])
        assert graph.get_state(config).next == ("b",)
        assert pending(graph, config, marks) == ()

    def test_a_damaged_adapter_pause_is_a_decode_error(self, marks: Store) -> None:
        """A pause value carrying the mark but not a pause is refused, not guessed."""
        graph = one_node(lambda: interrupt({MARK: {"kind": "nope"}}), Log())
        config = start(graph, {})
        with pytest.raises(DecodeError):
            pending(graph, config, marks)

    def test_an_interrupt_whose_run_failed_is_not_pending(self, marks: Store) -> None:
        """After a refused raw answer the task failed: its pause waits no more."""
        graph = one_node(lambda: ask(CONFIRM), Log())
        config = start(graph, {})
        (question,) = pending(graph, config, marks)
        with pytest.raises(ResumeRejected):
            graph.invoke(Command(resume={question.id: "Yes"}), config)
        assert graph.get_state(config).interrupts  # LangGraph still lists it
        assert pending(graph, config, marks) == ()


def two_nodes(**options: Any) -> CompiledStateGraph[Answers]:
    """Nodes a then b, each appending its name."""
    builder = StateGraph(Answers)
    builder.add_node("a", lambda s: {"got": [*s.get("got", []), "a"]})
    builder.add_node("b", lambda s: {"got": [*s.get("got", []), "b"]})
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("b", END)
    return builder.compile(checkpointer=InMemorySaver(), **options)


# --- resume: LangGraph's flaws, refused -------------------------------------------


class TestResume:
    """`resume` validates against the checkpoint and spends each pause once."""

    def test_langgraph_alone_reruns_the_node_for_an_unknown_id(self) -> None:
        """The flaw: a map naming no pending id re-runs the node and says nothing."""
        log = Log()
        graph = one_node(lambda: interrupt("q"), log)
        config = start(graph, {})
        graph.invoke(Command(resume={"0" * 32: "forged"}), config)
        assert log.starts == 2

    def test_an_unknown_id_is_refused_and_nothing_runs(self, marks: Store) -> None:
        """Through the adapter, an unknown id is refused before the node runs."""
        log = Log()
        graph = one_node(lambda: interrupt("q"), log)
        config = start(graph, {})
        forged = Respond("custom", "0" * 32, "forged")
        with pytest.raises(ResumeRejected) as rejected:
            resume(graph, config, Resume(respond=[forged]), marks)
        assert codes(rejected) == ["unknown_interrupt", "missing"]
        assert log.starts == 1
        (plain,) = pending(graph, config, marks)
        resume(graph, config, Resume(respond=[plain.respond("real")]), marks)
        assert log.got == ["real"]

    def test_a_dict_with_id_like_keys_reaches_the_node_as_a_value(
        self, marks: Store
    ) -> None:
        """The flaw: LangGraph reads such a dict as a map; the adapter wraps it."""
        log = Log()
        graph = one_node(lambda: interrupt("q"), log)
        config = start(graph, {})
        answer: JSON = {"ab" * 16: "looks like an id"}
        graph.invoke(Command(resume=answer), config)  # LangGraph alone: lost
        assert log.got == []
        (plain,) = pending(graph, config, marks)
        resume(graph, config, Resume(respond=[plain.respond(answer)]), marks)
        assert log.got == [answer]

    def test_the_node_gets_a_plain_copy_of_the_answer(self, marks: Store) -> None:
        """The node gets a plain dict it may change; the answer keeps its own."""
        log = Log()
        graph = one_node(lambda: interrupt("q"), log)
        config = start(graph, {})
        (plain,) = pending(graph, config, marks)
        answer = plain.respond({"items": [1]})
        resume(graph, config, Resume(respond=[answer]), marks)
        (got,) = log.got
        assert type(got) is dict
        assert type(got["items"]) is list
        got["items"].append(2)
        assert answer.output == {"items": [1]}

    def test_a_null_answer_is_sent_in_the_map(self, marks: Store) -> None:
        """The flaw: Command(resume=None) crashes; a null answer goes in the map."""
        log = Log()
        graph = one_node(lambda: interrupt("q"), log)
        config = start(graph, {})
        with pytest.raises(UnboundLocalError):
            graph.invoke(Command(resume=None), config)
        (plain,) = pending(graph, config, marks)
        resume(graph, config, Resume(respond=[plain.respond(None)]), marks)
        assert log.got == [None]

    def test_langgraph_alone_redelivers_a_stale_answer(self) -> None:
        """The flaw: invoke(None) hands a bare answer to the next question too."""
        graph = one_node(lambda: [interrupt("first?"), interrupt("second?")], Log())
        config = start(graph, {})
        graph.invoke(Command(resume="A"), config)
        out = graph.invoke(None, config)
        assert out["got"] == [["A", "A"]]

    def test_each_question_gets_its_own_answer(self, marks: Store) -> None:
        """Through the adapter, a second question needs its own answer."""
        log = Log()
        graph = one_node(lambda: [ask(CONFIRM), ask(Input("Note", "Why?"))], log)
        config = start(graph, {})
        (first,) = pending(graph, config, marks)
        first_answer = Resume(respond=[first.respond("Yes")])
        resume(graph, config, first_answer, marks)
        (second,) = pending(graph, config, marks)
        assert second.id != first.id
        assert second.payload_as(Input) == Input("Note", "Why?")
        with pytest.raises(ResumeRejected) as rejected:
            resume(graph, config, first_answer, marks)
        assert codes(rejected) == ["unknown_interrupt", "missing"]
        stop = Restart("scheduled_pause", second.id)
        with pytest.raises(ResumeRejected) as rejected:
            resume(graph, config, Resume(restart=[stop]), marks)
        assert codes(rejected) == ["unknown_interrupt", "missing"]
        resume(graph, config, Resume(respond=[second.respond("late")]), marks)
        assert log.got == [["Yes", "late"]]
        with pytest.raises(ResumeRejected) as rejected:
            resume(graph, config, Resume(respond=[second.respond("late")]), marks)
        assert codes(rejected) == ["consumed"]
        with pytest.raises(ResumeRejected) as rejected:  # LangGraph kept no trace
            resume(graph, config, first_answer, marks)
        assert codes(rejected) == ["nothing_pending"]

    def test_a_finished_thread_has_nothing_to_resume(self, marks: Store) -> None:
        """The flaw: LangGraph resumes a finished thread; the adapter refuses."""
        log = Log()
        graph = one_node(lambda: 1, log)
        config = start(graph, {})
        graph.invoke(Command(resume={"0" * 32: "x"}), config)
        assert log.starts == 1  # LangGraph said nothing
        with pytest.raises(ResumeRejected) as rejected:
            resume(graph, config, Resume(respond=[Respond("custom", "x", 1)]), marks)
        assert codes(rejected) == ["nothing_pending"]

    def test_a_replay_after_the_run_is_consumed(self, marks: Store) -> None:
        """The same answer again, once the thread finished: consumed."""
        log = Log()
        graph = one_node(lambda: ask(CONFIRM), log)
        config = start(graph, {})
        (question,) = pending(graph, config, marks)
        answer = Resume(respond=[question.respond("Yes")])
        resume(graph, config, answer, marks)
        with pytest.raises(ResumeRejected) as rejected:
            resume(graph, config, answer, marks)
        assert codes(rejected) == ["consumed"]
        assert log.got == ["Yes"]

    def test_a_refused_principal_learns_nothing_of_a_replay(self, marks: Store) -> None:
        """A replay after the run, by a refused principal: not_authorized, filed."""
        graph = one_node(lambda: ask(CONFIRM), Log())
        config = start(graph, {})
        (question,) = pending(graph, config, marks)
        answer = Resume(respond=[question.respond("Yes")])
        resume(graph, config, answer, marks)
        nobody = ResumePolicy(authorize=lambda _principal, _pending: False)
        with pytest.raises(ResumeRejected) as rejected:
            resume(graph, config, answer, marks, policy=nobody)
        assert codes(rejected) == ["not_authorized"]
        thread = config["configurable"]["thread_id"]
        trail = asyncio.run(marks.audit(thread))
        assert [(e.kind, e.codes) for e in trail][-1] == (
            "rejected",
            ("not_authorized",),
        )

    def test_a_listed_pause_is_filed_once_before_its_answer(self, marks: Store) -> None:
        """Listing files the pause once (thread's trail); the answer follows it."""
        graph = one_node(lambda: ask(CONFIRM), Log())
        config = start(graph, {})
        (question,) = pending(graph, config, marks)
        pending(graph, config, marks)
        resume(graph, config, Resume(respond=[question.respond("Yes")]), marks)
        trail = asyncio.run(marks.audit(config["configurable"]["thread_id"]))
        assert [(e.kind, e.pending) for e in trail] == [
            ("paused", (question.id,)),
            ("accepted", (question.id,)),
        ]

    def test_a_pause_spent_elsewhere_is_consumed(self, marks: Store) -> None:
        """Two resumes of one pause (as two racing processes see it): one wins."""
        log = Log()
        graph = one_node(lambda: ask(CONFIRM), log)
        config = start(graph, {})
        (question,) = pending(graph, config, marks)
        answer = Resume(respond=[question.respond("No")])

        async def both() -> list[object]:
            return await asyncio.gather(  # type: ignore[no-any-return]
                aresume(graph, config, answer, marks),
                aresume(graph, config, answer, marks),
                return_exceptions=True,
            )

        outcomes = asyncio.run(both())
        refused = [o for o in outcomes if isinstance(o, ResumeRejected)]
        assert [r.codes for r in refused] == [(ProblemCode.CONSUMED,)]
        assert log.got == ["No"]

    def test_an_async_resume_of_a_finished_thread(self, marks: Store) -> None:
        """The async resume reads the history too: a replay is consumed."""
        graph = one_node(lambda: ask(CONFIRM), Log())

        async def scenario() -> None:
            config = thread()
            await graph.ainvoke({}, config)
            (question,) = await apending(graph, config, marks)
            answer = Resume(respond=[question.respond("Yes")])
            await aresume(graph, config, answer, marks)
            with pytest.raises(ResumeRejected) as rejected:
                await aresume(graph, config, answer, marks)
            assert codes(rejected) == ["consumed"]

        asyncio.run(scenario())

    def test_a_thread_that_moved_on_without_the_adapter(self, marks: Store) -> None:
        """An answer to a pause resumed by someone else is nothing_pending."""
        graph = one_node(lambda: interrupt("q"), Log())
        config = start(graph, {})
        (plain,) = pending(graph, config, marks)
        graph.invoke(Command(resume={plain.id: "bypass"}), config)
        with pytest.raises(ResumeRejected) as rejected:
            resume(graph, config, Resume(respond=[plain.respond("x")]), marks)
        assert codes(rejected) == ["nothing_pending"]

    def test_wrong_answers_are_refused_and_nothing_is_spent(self, marks: Store) -> None:
        """Wrong kind, duplicate, missing and empty resumes change nothing."""
        sent: list[tuple[str, int]] = []
        graph = tool_graph(sent, [])
        config = start(graph, {"messages": [HumanMessage("pay")]})
        acme, mallory = pending(graph, config, marks)
        bad = {
            "answer_not_accepted": Resume(
                respond=[Respond("transfer", "c-1", "sent")],
                restart=[mallory.approve()],
            ),
            "duplicate": Resume(
                restart=[acme.approve(), acme.approve(), mallory.approve()]
            ),
            "missing": Resume(restart=[acme.approve()]),
            "input_modified": Resume(
                restart=[
                    Restart("transfer", "c-1", "approve", {"to": "EVE", "amount": 5}),
                    mallory.approve(),
                ]
            ),
        }
        for code, answer in bad.items():
            with pytest.raises(ResumeRejected) as rejected:
                resume(graph, config, answer, marks)
            assert codes(rejected) == [code]
        with pytest.raises(ResumeRejected) as rejected:
            resume(
                graph, config, Resume(), marks, policy=ResumePolicy(allow_partial=True)
            )
        assert codes(rejected) == ["missing", "missing"]
        assert sent == []
        resume(
            graph, config, Resume(restart=[acme.approve(), mallory.approve()]), marks
        )
        assert sorted(sent) == [("ACME", 5), ("MALLORY", 9)]

    def test_a_partial_resume_leaves_the_rest_pending(self, marks: Store) -> None:
        """With allow_partial, one call runs and the other still waits, once each."""
        sent: list[tuple[str, int]] = []
        graph = tool_graph(sent, [])
        config = start(graph, {"messages": [HumanMessage("pay")]})
        acme, mallory = pending(graph, config, marks)
        partial = ResumePolicy(allow_partial=True)
        first = Resume(restart=[acme.approve()])
        resume(graph, config, first, marks, policy=partial)
        assert sent == [("ACME", 5)]
        assert pending(graph, config, marks) == (mallory,)
        with pytest.raises(ResumeRejected) as rejected:
            resume(graph, config, first, marks, policy=partial)
        assert codes(rejected) == ["unknown_interrupt"]
        resume(graph, config, Resume(restart=[mallory.reject("no")]), marks)
        assert sent == [("ACME", 5)]

    def test_a_refused_principal_runs_nothing(self, marks: Store) -> None:
        """The policy's authorizer is asked first; a refusal names nothing."""
        log = Log()
        graph = one_node(lambda: ask(CONFIRM), log)
        config = start(graph, {})
        (question,) = pending(graph, config, marks)
        policy = ResumePolicy(authorize=lambda who, _p: who == "alice", principal="eve")
        with pytest.raises(ResumeRejected) as rejected:
            resume(
                graph,
                config,
                Resume(respond=[question.respond("Yes")]),
                marks,
                policy=policy,
            )
        assert codes(rejected) == ["not_authorized"]
        assert log.got == []

    def test_a_refused_principal_is_not_told_nothing_is_pending(
        self, marks: Store
    ) -> None:
        """With an authorizer, a thread with nothing pending is not_authorized."""
        log = Log()
        graph = one_node(lambda: 1, log)
        config = start(graph, {})
        answer = Resume(respond=[Respond("custom", "x", 1)])
        for who in ("eve", "alice"):
            policy = ResumePolicy(
                authorize=lambda principal, _p: principal == "alice", principal=who
            )
            with pytest.raises(ResumeRejected) as rejected:
                resume(graph, config, answer, marks, policy=policy)
            assert codes(rejected) == ["not_authorized"]
        with pytest.raises(ResumeRejected) as rejected:
            resume(graph, config, answer, marks)
        assert codes(rejected) == ["nothing_pending"]

    def test_a_breakpoint_replay_is_refused(self, marks: Store) -> None:
        """A breakpoint continues once; its restart again finds nothing pending."""
        graph = two_nodes(interrupt_before=["b"])
        config = start(graph, {"got": []})
        (stop,) = pending(graph, config, marks)
        answer = Resume(restart=[stop.restart()])
        assert resume(graph, config, answer, marks).value == {"got": ["a", "b"]}
        with pytest.raises(ResumeRejected) as rejected:
            resume(graph, config, answer, marks)
        assert codes(rejected) == ["nothing_pending"]

    def test_parallel_breakpoints_must_all_be_restarted(self, marks: Store) -> None:
        """Two nodes held before they run continue together, never one alone."""
        builder = StateGraph(Answers)
        builder.add_node("a", lambda _s: {"got": ["a"]})
        builder.add_node("b", lambda _s: {"got": ["b"]})
        builder.add_edge(START, "a")
        builder.add_edge(START, "b")
        graph = builder.compile(checkpointer=InMemorySaver(), interrupt_before="*")
        config = start(graph, {"got": []})
        stops = pending(graph, config, marks)
        assert sorted(
            s.kind.node for s in stops if isinstance(s.kind, ScheduledPause)
        ) == ["a", "b"]
        one = Resume(restart=[stops[0].restart()])
        with pytest.raises(ResumeRejected) as rejected:
            resume(graph, config, one, marks, policy=ResumePolicy(allow_partial=True))
        assert codes(rejected) == ["missing"]

    def test_resume_from_a_running_loop_is_an_error(self, marks: Store) -> None:
        """The sync resume refuses to block an event loop."""
        graph = one_node(lambda: ask(CONFIRM), Log())
        config = start(graph, {})
        (question,) = pending(graph, config, marks)

        async def inside() -> None:
            resume(graph, config, Resume(respond=[question.respond("Yes")]), marks)

        with pytest.raises(RuntimeError, match="running event loop"):
            asyncio.run(inside())


class TestStreaming:
    """`resume_stream` / `aresume_stream` validate before returning the stream."""

    def test_a_stream_yields_langgraph_parts(self, marks: Store) -> None:
        """A valid resume streams the node's updates."""
        graph = one_node(lambda: ask(CONFIRM), Log())
        config = start(graph, {})
        (question,) = pending(graph, config, marks)
        parts = list(
            resume_stream(
                graph, config, Resume(respond=[question.respond("No")]), marks
            )
        )
        assert [part["data"] for part in parts] == [{"node": {"got": ["No"]}}]

    def test_a_bad_stream_resume_raises_at_the_call(self, marks: Store) -> None:
        """A refused resume raises before any iterator exists; nothing runs."""
        log = Log()
        graph = one_node(lambda: ask(CONFIRM), log)
        config = start(graph, {})
        (question,) = pending(graph, config, marks)
        with pytest.raises(ResumeRejected):
            resume_stream(
                graph,
                config,
                Resume(respond=[Respond("custom", question.ref, "?")]),
                marks,
            )
        assert log.starts == 1

    def test_an_async_stream(self, marks: Store) -> None:
        """aresume_stream validates when awaited, then streams."""
        graph = one_node(lambda: ask(CONFIRM), Log())

        async def scenario() -> list[object]:
            config = thread()
            await graph.ainvoke({}, config)
            (question,) = await apending(graph, config, marks)
            answer = Resume(respond=[question.respond("Yes")])
            stream = await aresume_stream(
                graph, config, answer, marks, stream_mode="values"
            )
            return [part["data"] async for part in stream]

        assert asyncio.run(scenario())[-1] == {"got": ["Yes"]}


# --- durability -------------------------------------------------------------------


@pytest.fixture(name="files")
def _files(tmp_path: Path) -> Path:
    return tmp_path


def sqlite_graph(
    where: Path, sent: list[tuple[str, int]]
) -> tuple[CompiledStateGraph[Chat], sqlite3.Connection]:
    """One "process": a fresh graph over a fresh connection to the file."""
    connection = sqlite3.connect(where / "checkpoints.db", check_same_thread=False)
    return tool_graph(sent, [], SqliteSaver(connection)), connection


class TestDurability:
    """A pause in a SqliteSaver file is resumed from a fresh process, once."""

    def test_a_fresh_process_resumes_the_pause(self, files: Path) -> None:
        """Pause in one process, resume in another, replay in a third: consumed."""
        sent: list[tuple[str, int]] = []
        marks = SqliteStore(files / "marks.db")
        first, one = sqlite_graph(files, sent)
        config = start(first, {"messages": [HumanMessage("pay")]})
        shown = pending(first, config, marks)
        one.close()
        answer = Resume(restart=[shown[0].approve(), shown[1].reject("no")])
        second, two = sqlite_graph(files, sent)
        assert pending(second, config, marks) == shown
        resume(second, config, answer, SqliteStore(files / "marks.db"))
        two.close()
        third, three = sqlite_graph(files, sent)
        with pytest.raises(ResumeRejected) as rejected:
            resume(third, config, answer, SqliteStore(files / "marks.db"))
        three.close()
        assert codes(rejected) == ["consumed"]
        assert sent == [("ACME", 5)]


# --- the law ----------------------------------------------------------------------

LAW_SENT: list[tuple[str, int]] = []
LAW_GRAPH = tool_graph(LAW_SENT, [])

entries = st.one_of(
    st.builds(
        Respond,
        st.sampled_from(["transfer", "custom", "x"]),
        st.sampled_from(["c-1", "c-2", "c-3"]),
        st.sampled_from(["approve", {"status": "sent"}, None]),
    ),
    st.builds(
        Restart,
        st.sampled_from(["transfer", "scheduled_pause"]),
        st.sampled_from(["c-1", "c-2", "c-3"]),
        st.sampled_from(["approve", {"reject": {"reason": ""}}, "yes", None]),
        st.sampled_from([None, {"to": "EVE", "amount": 5}]),
    ),
)


@given(st.lists(entries, max_size=4))
def test_every_forged_resume_is_refused_and_nothing_runs(
    forged: list[Respond | Restart],
) -> None:
    """Any resume that is not a valid answer to both calls is refused; nothing runs."""
    config = start(LAW_GRAPH, {"messages": [HumanMessage("pay")]})
    before = len(LAW_SENT)
    answer = Resume(
        respond=[e for e in forged if isinstance(e, Respond)],
        restart=[e for e in forged if isinstance(e, Restart)],
    )
    valid = {
        (e.ref, repr(e.resumed))
        for e in answer.restart
        if e.name == "transfer" and e.input is None
    }
    answers_both = (
        not answer.respond
        and len(answer.restart) == 2
        and {ref for ref, _ in valid} == {"c-1", "c-2"}
        and all(resumed == "'approve'" for _, resumed in valid)
    )
    marks = MemoryStore()
    try:
        resume(LAW_GRAPH, config, answer, marks)
    except ResumeRejected:
        assert len(LAW_SENT) == before
        assert len(pending(LAW_GRAPH, config, marks)) == 2
    else:
        assert answers_both
        assert len(LAW_SENT) == before + 2


def test_the_extra_is_named_when_langgraph_is_missing() -> None:
    """Importing the adapter without LangGraph names the extra to install."""
    out = import_error("interruption.adapters.langgraph", "langgraph")
    assert "pip install 'interruption[langgraph]'" in out
    assert "interruption.adapters.langgraph needs the [langgraph] extra" in out
