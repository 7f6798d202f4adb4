"""LangGraph: typed pauses inside nodes, and one validated resume channel.

Inside a node, `ask` pauses with a typed question and `approve_call` holds a
tool call for a human; both raise LangGraph's own ``interrupt()``, whose
value carries the `PendingInterrupt` wire form (kind, payload, accepted
answer schemas), and both hand the node the validated, typed answer on
resume. `ToolApproval.node` is a ``ToolNode`` that gates its calls and runs
one call per task; `send_tool_calls` routes each call of a model message to
its own task, so that each paused call has its own LangGraph interrupt, each
decision reaches its own call, and no call runs again for another's pause
(a task with several calls is refused before any runs: `ToolRoutingError`).

Outside the graph, `pending` reads a thread's pauses from the checkpointer
(LangGraph's own interrupt ids, never computed here), subgraphs included,
less those already spent: adapter-made pauses as they were declared, plain
``interrupt(value)`` calls as `Custom` (any JSON answer), static breakpoints
as `ScheduledPause`. `resume` validates a `Resume` against that
authoritative state with `interruption.admit`, spends each answered
interrupt once, on its own key, in a `Store`, and only then sends LangGraph
the id-keyed map ``Command(resume={id: value})`` (or ``invoke(None)`` for a
breakpoint)::

    for pending_interrupt in pending(graph, config, store):
        ...  # show it; the client answers with pending_interrupt.respond(...)
    resume(graph, config, Resume(respond=[...]), store)
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Collection,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from typing import (
    TYPE_CHECKING,
    ClassVar,
    Final,
    Generic,
    Literal,
    TypeAlias,
    TypeVar,
    cast,
    final,
    overload,
)

import attrs

from interruption import JSON, json_equal
from interruption.adapters import _bridged
from interruption.adapters._bridged import listed
from interruption.adapters._hitl import review_mode
from interruption.audit import AuditEvent
from interruption.errors import (
    ArgumentTypeError,
    InterruptionError,
    InvalidArgument,
    PayloadError,
    ProblemCode,
    ResumeRejected,
    SchemaError,
)
from interruption.kinds import ApprovalPending, Custom, Phase, ScheduledPause
from interruption.parts import ToolRequest
from interruption.prompts import Confirm, Input
from interruption.resume import (
    APPROVAL_ONLY,
    Accepts,
    PendingInterrupt,
    Respond,
    Restart,
    Resume,
)
from interruption.runtime.admission import (
    admit,
    interrupt_keys,
    refuse,
    unspent,
)
from interruption.runtime.approval import (
    ApprovalDecision,
    Reject,
    decision_from_json,
)
from interruption.runtime.bridge import PendingPause, newest_first
from interruption.runtime.loop import run_sync
from interruption.validation import (
    Authorize,
    ResolvedResume,
    ResumePolicy,
)
from interruption.wire import (
    check_schema,
    copy_json,
    describe,
    json_schema,
    structure,
    unstructure,
)

try:
    from langchain_core.messages import AIMessage, AnyMessage, ToolCall, ToolMessage
    from langgraph.constants import END
    from langgraph.errors import GraphBubbleUp
    from langgraph.prebuilt import ToolNode
    from langgraph.prebuilt.tool_node import ToolCallRequest, ToolCallWithContext
    from langgraph.pregel import Pregel
    from langgraph.types import (
        Command,
        GraphOutput,
        Interrupt,
        Send,
        StateSnapshot,
        StreamMode,
        StreamPart,
        interrupt,
    )
    from langgraph.typing import ContextT, InputT, OutputT, StateT
except ImportError as error:  # pragma: no cover - tested in a subprocess
    msg = (
        "interruption.adapters.langgraph needs the [langgraph] extra: "
        "pip install 'interruption[langgraph]'"
    )
    raise ImportError(msg) from error

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig
    from langchain_core.tools import BaseTool
    from langgraph.runtime import Runtime

    from interruption.runtime.store import Store

__all__ = [
    "MARK",
    "GraphBridge",
    "Threads",
    "ToolApproval",
    "ToolRoutingError",
    "apending",
    "approve_call",
    "aresume",
    "aresume_stream",
    "ask",
    "bridge",
    "pending",
    "resume",
    "resume_stream",
    "send_tool_calls",
]

T = TypeVar("T")

MARK: Final = "interruption"
"""The key of an adapter-made pause's interrupt value, and of its answer.

A pause is ``{"interruption": <PendingInterrupt wire form without its id>}``;
the answer the adapter sends for it is ``{"interruption": {"for": <that wire
form, as the checkpoint holds it>, "respond" | "restart": <the validated
answer>}}``: the asking node takes it only if the question it asks again is
that very one (`json_equal`, what equal digests would tell, without
writing one on each side).
"""

HISTORY: Final = 32
"""How many recent checkpoints a resume of a thread with nothing pending
looks through to tell a replay (``consumed``) from ``nothing_pending``."""

_BREAKPOINT: Final = Accepts(restart={"type": "null"})
"""A static breakpoint accepts only a restart, with no data: continue."""

_ANY: Final[dict[str, JSON]] = {}


# --- inside nodes ------------------------------------------------------------


_SHOWN: Final = "-"
"""The id, name and ref of the pause a node shows before LangGraph has an id.

Its wire form leaves the id out (LangGraph's interrupt id is the pending
one's); the name and ref only fill the answer whose fit the node checks
(`PendingInterrupt.problems_with` judges an answer, not what it targets)."""


def _wire(shown: PendingInterrupt) -> dict[str, JSON]:
    wire = cast("dict[str, JSON]", unstructure(shown))
    del wire["id"]
    return wire


def _refused(code: ProblemCode, message: str) -> ResumeRejected:
    return ResumeRejected.of(code, message)


def _await_answer(shown: PendingInterrupt, answer: str) -> JSON:
    """Pause with *shown*; return the answer the adapter validated for it.

    The node runs again on resume and asks again: LangGraph hands back the
    value sent for this pause. Anything but the adapter's answer to this very
    pause (a raw ``Command(resume=...)``, an answer to another pause, one
    *shown* does not accept) is refused here, so it never reaches the node.
    """
    wire = _wire(shown)
    raw = interrupt({MARK: wire})
    body = raw.get(MARK) if isinstance(raw, dict) and len(raw) == 1 else None
    if not isinstance(body, dict) or set(body) != {"for", answer}:
        message = (
            f"this pause takes a {answer} sent by interruption.adapters.langgraph"
            f".resume, got {type(raw).__name__}: answer through the adapter"
        )
        raise _refused(ProblemCode.ANSWER_NOT_ACCEPTED, message)
    if not json_equal(body["for"], wire):
        message = "the answer was given to another pause than the one asking"
        raise _refused(ProblemCode.UNKNOWN_INTERRUPT, message)
    value = cast("JSON", body[answer])
    try:
        entry = (
            Respond(_SHOWN, _SHOWN, value)
            if answer == "respond"
            else Restart(_SHOWN, _SHOWN, value)
        )
    except PayloadError as error:
        raise _refused(ProblemCode.SCHEMA_VIOLATION, str(error)) from None
    problems = shown.problems_with(entry)
    if problems:
        raise ResumeRejected(problems)
    return value


def _schema(answer: type[object] | Mapping[str, JSON]) -> dict[str, JSON]:
    if isinstance(answer, type):
        return json_schema(answer)
    schema = dict(answer)
    try:
        check_schema(schema)
    except SchemaError as error:
        expected = "a usable JSON Schema"
        raise ArgumentTypeError("ask: answer", expected, error.message) from error
    return schema


@overload
def ask(prompt: Confirm | Input) -> str: ...


@overload
def ask(prompt: Confirm | Input | JSON, *, answer: type[T]) -> T: ...


@overload
def ask(prompt: Confirm | Input | JSON, *, answer: Mapping[str, JSON]) -> JSON: ...


def ask(
    prompt: Confirm | Input | JSON,
    *,
    answer: type[object] | Mapping[str, JSON] | None = None,
) -> object:
    """Pause the node with a question; return the human's validated answer.

    The pause is a `Custom` kind whose payload is *prompt* and which accepts
    a respond that fits the answer schema. LangGraph runs the node again on
    resume, so the code before ``ask`` runs twice; *prompt* must be built
    the same way both times (an answer is bound to the question it was given
    to, and a changed question refuses it).

    Args:
        prompt: A `Confirm` or `Input` (their answer schema is the default),
            or any JSON payload to show.
        answer: What an answer must be: an attrs class (the answer is
            structured into it) or a JSON Schema; required for a JSON prompt.

    Returns:
        The answer: a string for a prompt, an instance of an *answer* class,
        or the JSON value for an *answer* schema.

    Raises:
        GraphInterrupt: the first time (LangGraph's pause).
        ArgumentTypeError: if no answer schema is known, or it is not
            usable (a `TypeError`; for an unusable one, its ``__cause__`` is
            the `SchemaError`).
        PayloadError: if *prompt* is not JSON.
        ResumeRejected: if the value LangGraph hands back did not come from
            `resume` for this very question (a client that bypassed the
            adapter); the node does not continue.
        DecodeError: if the answer does not fit the *answer* class.
    """
    if isinstance(prompt, Confirm | Input):
        payload = unstructure(prompt)
        schema = prompt.answer_schema if answer is None else _schema(answer)
    else:
        if answer is None:
            expected = "an attrs class or a JSON Schema for a JSON prompt"
            raise ArgumentTypeError("ask: answer", expected, "None")
        payload = copy_json(prompt)
        schema = _schema(answer)
    shown = PendingInterrupt(_SHOWN, Custom(), payload, None, Accepts(respond=schema))
    value = _await_answer(shown, "respond")
    if isinstance(answer, type):
        return structure(value, answer)
    return value


def approve_call(call: ToolCall) -> ApprovalDecision:
    """Hold a tool call for a human's decision; return it on resume.

    The pause is ``ApprovalPending(<the call's id>)``, answered only by
    ``pending.approve()`` or ``pending.reject(reason)`` (a client-made
    result would skip the approval).

    Args:
        call: The model's tool call (its ``id`` is required).

    Returns:
        `Approve` or `Reject`.

    Raises:
        GraphInterrupt: the first time (LangGraph's pause).
        InvalidArgument: if the call has no id (a `ValueError`).
        PayloadError: if its arguments are not JSON.
        ResumeRejected: if the value LangGraph hands back is not the
            adapter's decision for this very call (a bypass, or a decision
            routed to another call).
    """
    ref = call.get("id")
    if not ref:
        where = f"approve_call: the id of the call of {call['name']!r}"
        raise InvalidArgument(where, "a non-empty call id", repr(ref))
    arguments = copy_json(call["args"])
    tool = ToolRequest(call["name"], ref, arguments)
    payload: JSON = {"tool": call["name"], "input": arguments}
    shown = PendingInterrupt(_SHOWN, ApprovalPending(ref), payload, tool, APPROVAL_ONLY)
    return decision_from_json(_await_answer(shown, "restart"))


ToolResult = ToolMessage | Command[str]
"""What a ``ToolNode`` call produces."""

RoutingCode = Literal["shared_task", "ungated_node"]
"""Why `ToolRoutingError` refused a gated call: ``shared_task``, several
calls in one task; ``ungated_node``, the gate outside `ToolApproval.node`."""


@final
class ToolRoutingError(InterruptionError, ValueError):
    """A gated call was routed so that a pause could run another call twice.

    LangGraph runs a paused task again from its start on resume, so every
    call that ran beside a pause in that task runs again. A `ToolApproval`
    node therefore takes one call per task (route with `send_tool_calls`),
    and its gate runs only in that node, which counts the task's calls:
    nothing of the task has run when this is raised.

    Attributes:
        code: ``"tool_routing"``, as for every instance of this class.
        reason: ``shared_task`` (several calls in one task, as LangGraph's
            ``tools_condition`` routes them) or ``ungated_node`` (the gate
            in a node that does not count its calls).
        refs: The ids of the task's calls.
    """

    code: ClassVar[str] = "tool_routing"

    def __init__(self, reason: RoutingCode, refs: Sequence[str], message: str) -> None:
        super().__init__(message)
        self.reason: RoutingCode = reason
        self.refs = tuple(refs)


_ALONE: Final[ContextVar[bool]] = ContextVar(
    "interruption_langgraph_alone", default=False
)
"""Set while a `ToolApproval` node runs the one call of its task."""


def _rejection(call: ToolCall, decision: Reject) -> ToolMessage:
    return ToolMessage(
        content=decision.reason,
        name=call["name"],
        tool_call_id=call["id"],
        status="error",
    )


def _failed(call: ToolCall, error: Exception) -> ToolMessage:
    """An approved call that raised, as the model reads it: its task ends here.

    LangGraph keeps a failed task's resume values: a retry of the task
    (``graph.invoke(None, config)``) would hand the same approval to the
    call again and run it twice. Ending the task spends the approval on
    this one run; the model reads the error, and a new call needs a new
    approval.
    """
    return ToolMessage(
        content=f"Error: {error!r}",
        name=call["name"],
        tool_call_id=call["id"],
        status="error",
    )


def _alone(call: ToolCall) -> None:
    if not _ALONE.get():
        message = (
            f"ToolApproval gates the call {call['id']!r} only in its own node: "
            "build it with ToolApproval(...).node(tools)"
        )
        raise ToolRoutingError("ungated_node", [call["id"] or ""], message)


@final
class ToolApproval:
    """Holds chosen calls of a ``ToolNode`` for a human (`approve_call`).

    An approved call runs; a rejected one does not, and the model gets a
    ``ToolMessage`` whose content is the reason. Build the node with `node`
    and route the model's calls to it with `send_tool_calls`, so that each
    call is its own task: then each paused call is its own interrupt, each
    decision reaches its own call, and a call that ran is never run again
    for another call's pause. The node refuses a task with several calls
    (LangGraph's ``tools_condition`` sends them all at once) before any of
    them runs, and the gate refuses to run in any other node
    (`ToolRoutingError`).
    """

    def __init__(self, needs: Callable[[ToolCall], bool] | Collection[str]) -> None:
        """Gate the calls *needs* selects.

        Args:
            needs: Tool names to hold, or a predicate on the call. The
                predicate must answer ``True`` (hold it) or ``False`` (run
                it); anything else raises `ArgumentTypeError` and the call
                does not run, as with the loop's `when`.
        """
        if callable(needs):
            self._needs = needs
        else:
            names = frozenset(needs)
            self._needs = lambda call: call["name"] in names

    def _held(self, call: ToolCall) -> bool:
        """Whether *call* waits for a human. Fails closed, as `when` does.

        Raises:
            ArgumentTypeError: if the predicate answers anything but True or
                False (``None`` from a missing key, a coroutine); the call
                does not run.
        """
        holds: object = self._needs(call)
        if holds is True or holds is False:
            return holds
        if inspect.iscoroutine(holds):
            holds.close()
        where = f"ToolApproval predicate for {call['name']!r}"
        raise ArgumentTypeError(where, "True or False", describe(holds))

    def __call__(
        self,
        request: ToolCallRequest,
        execute: Callable[[ToolCallRequest], ToolResult],
    ) -> ToolResult:
        """Run *request* if it needs no approval or a human approved it.

        Args:
            request: The call, as the node hands it over.
            execute: Runs the call.

        Returns:
            The call's result, or the rejection; for an approved call that
            raised, an error ``ToolMessage`` (the approval is spent on that
            run: a retry of the task does not run it again).

        Raises:
            GraphInterrupt: while the call awaits a decision.
            ResumeRejected: as `approve_call`.
            ToolRoutingError: outside the node `node` builds.
            ArgumentTypeError: if the predicate answers anything but True
                or False (the call does not run).
        """
        call = request.tool_call
        _alone(call)
        if not self._held(call):
            return execute(request)
        decision = approve_call(call)
        if isinstance(decision, Reject):
            return _rejection(call, decision)
        try:
            return execute(request)
        except GraphBubbleUp:
            raise
        except Exception as error:  # noqa: BLE001 - the approval is spent on this run
            return _failed(call, error)

    async def acall(
        self,
        request: ToolCallRequest,
        execute: Callable[[ToolCallRequest], Awaitable[ToolResult]],
    ) -> ToolResult:
        """The asynchronous `__call__`.

        Args:
            request: The call.
            execute: Runs the call.

        Returns:
            The call's result, or the rejection; for an approved call that
            raised, an error ``ToolMessage`` (the approval is spent on that
            run: a retry of the task does not run it again).

        Raises:
            GraphInterrupt: while the call awaits a decision.
            ResumeRejected: as `approve_call`.
            ToolRoutingError: outside the node `node` builds.
            ArgumentTypeError: if the predicate answers anything but True
                or False (the call does not run).
        """
        call = request.tool_call
        _alone(call)
        if not self._held(call):
            return await execute(request)
        decision = approve_call(call)
        if isinstance(decision, Reject):
            return _rejection(call, decision)
        try:
            return await execute(request)
        except GraphBubbleUp:
            raise
        except Exception as error:  # noqa: BLE001 - the approval is spent on this run
            return _failed(call, error)

    def node(
        self, tools: Sequence[BaseTool | Callable[..., object]], *, name: str = "tools"
    ) -> ToolNode:
        """A ``ToolNode`` over *tools*, gated by this approval, one call a task.

        Args:
            tools: The tools.
            name: The node's name.

        Returns:
            The node. Running a task with several calls raises
            `ToolRoutingError` (``shared_task``) before any of them runs.
        """
        return _GatedNode(
            tools, name=name, wrap_tool_call=self, awrap_tool_call=self.acall
        )


class _GatedNode(ToolNode):
    """A ``ToolNode`` that runs one call per task, its gate told so."""

    @contextmanager
    def _one_call(self, state: object) -> Iterator[None]:
        calls, _ = self._parse_input(cast("dict[str, object]", state))
        if len(calls) > 1:
            refs = [call["id"] or "" for call in calls]
            message = (
                f"node {self.name!r} got {len(calls)} calls in one task "
                f"({', '.join(refs)}): a pause of one would run the others "
                "again on resume; route them with send_tool_calls"
            )
            raise ToolRoutingError("shared_task", refs, message)
        token = _ALONE.set(True)
        try:
            yield
        finally:
            _ALONE.reset(token)

    def _func(
        self, state: object, config: RunnableConfig, runtime: Runtime[None]
    ) -> object:
        with self._one_call(state):
            return super()._func(state, config, runtime)  # type: ignore[arg-type]

    async def _afunc(
        self, state: object, config: RunnableConfig, runtime: Runtime[None]
    ) -> object:
        with self._one_call(state):
            return await super()._afunc(state, config, runtime)  # type: ignore[arg-type]


def send_tool_calls(
    node: str = "tools", *, messages_key: str = "messages", otherwise: str = END
) -> Callable[[Mapping[str, object]], list[Send] | str]:
    """A conditional edge sending each call of the last message to *node*.

    Each call becomes its own task (a ``Send`` of the call with the state),
    so pauses of parallel calls are separate interrupts that LangGraph
    resumes separately.

    Args:
        node: The ``ToolNode``'s name.
        messages_key: The state key holding the messages.
        otherwise: Where to go when the last message calls no tool.

    Returns:
        The routing function, for ``add_conditional_edges``.
    """

    def route(state: Mapping[str, object]) -> list[Send] | str:
        messages = cast("Sequence[AnyMessage]", state[messages_key])
        last = messages[-1] if messages else None
        if not isinstance(last, AIMessage) or not last.tool_calls:
            return otherwise
        return [Send(node, _with_context(call, state)) for call in last.tool_calls]

    return route


def _with_context(call: ToolCall, state: Mapping[str, object]) -> ToolCallWithContext:
    return cast(
        "ToolCallWithContext",
        {"__type": "tool_call_with_context", "tool_call": call, "state": state},
    )


# --- outside the graph: what is pending -------------------------------------


@final
@attrs.frozen
class _Pause:
    """What a thread waits for, read from its checkpoint.

    Attributes:
        thread: The thread id.
        keys: Per interrupt LangGraph shows, the key that spends it, once,
            ever: `pause_key` of ``"langgraph"``, the thread, the checkpoint
            namespace and id read for the thread, and the interrupt's id
            (LangGraph's, unique per pause of a task: it hashes the task's
            namespace, whose task id hashes the checkpoint, with how many
            answers the task had; a breakpoint's is its task's id). The
            LangChain adapter spends a middleware review under the same key.
        interrupts: Every interrupt LangGraph shows, spent or not.
        sends: Per pending id, the wire form of an adapter-made pause (its
            answer is wrapped), or None for a plain ``interrupt()``.
        breakpoint: Whether it is a static breakpoint (``invoke(None)``).
        created_at: When the checkpoint was written (LangGraph's ISO text),
            or None when it does not say.
    """

    thread: str
    keys: Mapping[str, str]
    interrupts: tuple[PendingInterrupt, ...]
    sends: Mapping[str, dict[str, JSON] | None]
    breakpoint: bool
    created_at: str | None = None


def _of_interrupt(
    found: Interrupt[object],
) -> tuple[PendingInterrupt, dict[str, JSON] | None]:
    value = found.value
    if (
        isinstance(value, dict)
        and len(value) == 1
        and isinstance(value.get(MARK), dict)
    ):
        wire = cast("dict[str, JSON]", value[MARK])
        return structure({**wire, "id": found.id}, PendingInterrupt), wire
    try:
        payload = copy_json(value)
    except PayloadError:  # not JSON: the pause is shown without a payload
        payload = None
    if review_mode(value) is not None:
        # A LangChain HumanInTheLoopMiddleware review: only its own adapter
        # (interruption.adapters.langchain) applies its rules, so this door
        # accepts no answer; any is refused before anything is spent.
        return PendingInterrupt(found.id, Custom(), payload, None, Accepts()), None
    return PendingInterrupt(
        found.id, Custom(), payload, None, Accepts(respond=_ANY)
    ), None


def _breakpoints(nodes: object, names: Sequence[str]) -> list[str]:
    if nodes == "*":
        return list(names)
    chosen = set(cast("Sequence[str]", nodes))
    return [name for name in names if name in chosen]


@final
@attrs.frozen
class _Level:
    """A graph of the thread's tree whose own breakpoint may hold it.

    Attributes:
        before: Its compiled ``interrupt_before`` nodes (``"*"`` for all).
        after: Its compiled ``interrupt_after`` nodes.
        snapshot: Its state (the root's, or a started subgraph's).
        parent: Its previous checkpoint, read when an ``interrupt_after``
            breakpoint may hold it (what ran there is what stopped).
    """

    before: object
    after: object
    snapshot: StateSnapshot
    parent: StateSnapshot | None = None


def _levels(
    graph: Pregel[StateT, ContextT, InputT, OutputT], snapshot: StateSnapshot
) -> list[_Level]:
    """Where a breakpoint may hold the thread: the deepest started subgraphs.

    A subgraph with more to run has started (one that has not shows nothing
    next): the step of the graph above it is under way, so that graph's
    breakpoints are behind it, and what holds the thread is inside it.
    """
    started = [
        (task.name, task.state)
        for task in snapshot.tasks
        if isinstance(task.state, StateSnapshot) and task.state.next
    ]
    if started:
        return [
            level
            for name, state in started
            for _, sub in graph.get_subgraphs(namespace=name)
            if isinstance(sub, Pregel)
            for level in _levels(sub, state)
        ]
    before, after = graph.interrupt_before_nodes, graph.interrupt_after_nodes
    return [_Level(before, after, snapshot)]


def _scheduled(level: _Level) -> tuple[PendingInterrupt, ...]:
    snapshot, parent = level.snapshot, level.parent
    if not snapshot.next or any(task.error is not None for task in snapshot.tasks):
        return ()
    tasks = [task for task in snapshot.tasks if task.name in snapshot.next]
    before = set(_breakpoints(level.before, snapshot.next))
    if before:
        return tuple(
            PendingInterrupt(
                task.id,
                ScheduledPause(Phase.BEFORE, task.name),
                None,
                None,
                _BREAKPOINT,
            )
            for task in tasks
            if task.name in before
        )
    if parent is None:
        return ()
    ran = [task for task in parent.tasks if task.name in parent.next]
    after = set(_breakpoints(level.after, [t.name for t in ran]))
    return tuple(
        PendingInterrupt(
            task.id, ScheduledPause(Phase.AFTER, task.name), None, None, _BREAKPOINT
        )
        for task in ran
        if task.name in after
    )


def _needs_parent(level: _Level) -> RunnableConfig | None:
    snapshot = level.snapshot
    if snapshot.interrupts or not snapshot.next or not level.after:
        return None
    return snapshot.parent_config


def _pause(snapshot: StateSnapshot, levels: Sequence[_Level]) -> _Pause:
    configurable = snapshot.config.get("configurable", {})
    thread = str(configurable.get("thread_id", ""))
    failed = {
        found.id
        for task in snapshot.tasks
        if task.error is not None
        for found in task.interrupts
    }
    interrupts: list[PendingInterrupt] = []
    sends: dict[str, dict[str, JSON] | None] = {}
    for found in snapshot.interrupts:
        if found.id in failed:  # answered, and the run failed after it
            continue
        shown, wire = _of_interrupt(found)
        interrupts.append(shown)
        sends[shown.id] = wire
    scheduled = (
        ()
        if snapshot.interrupts
        else tuple(stop for level in levels for stop in _scheduled(level))
    )
    interrupts.extend(scheduled)
    keys = interrupt_keys(
        "langgraph",
        interrupts,
        thread,
        str(configurable.get("checkpoint_ns", "")),
        str(configurable.get("checkpoint_id", "")),
    )
    return _Pause(
        thread, keys, tuple(interrupts), sends, bool(scheduled), snapshot.created_at
    )


def pending(
    graph: Pregel[StateT, ContextT, InputT, OutputT],
    config: RunnableConfig,
    store: Store,
) -> tuple[PendingInterrupt, ...]:
    """What the thread of *config* still waits for, from the checkpointer.

    An interrupt spent in *store* (answered through any door, its
    continuation perhaps still running) is not listed.

    Args:
        graph: The compiled graph (with a checkpointer).
        config: Names the thread (``{"configurable": {"thread_id": ...}}``).
        store: Where `resume` marks spent pauses.

    Returns:
        Its answerable interrupts, with LangGraph's ids: adapter-made pauses
        as declared, plain ``interrupt(value)`` calls as `Custom` (the value
        as payload when it is JSON, else None; any JSON answer), static
        breakpoints, of the graph or of a subgraph, as `ScheduledPause`.
        Empty when nothing is pending.

    Raises:
        DecodeError: if an adapter-made pause in the checkpoint is damaged.
        EventLoopRunning: if called from a running event loop (use `apending`).
    """
    pause = _read(graph, config)
    return run_sync(
        unspent(
            pause.interrupts, pause.keys, store, session=pause.thread or "langgraph"
        )
    )


async def apending(
    graph: Pregel[StateT, ContextT, InputT, OutputT],
    config: RunnableConfig,
    store: Store,
) -> tuple[PendingInterrupt, ...]:
    """The asynchronous `pending`.

    Args:
        graph: The compiled graph.
        config: Names the thread.
        store: Where `resume` marks spent pauses.

    Returns:
        Its answerable interrupts.

    Raises:
        DecodeError: if an adapter-made pause in the checkpoint is damaged.
    """
    pause = await _aread(graph, config)
    return await unspent(
        pause.interrupts, pause.keys, store, session=pause.thread or "langgraph"
    )


def _read(
    graph: Pregel[StateT, ContextT, InputT, OutputT], config: RunnableConfig
) -> _Pause:
    snapshot = graph.get_state(config, subgraphs=True)
    levels = [
        level
        if (above := _needs_parent(level)) is None
        else attrs.evolve(level, parent=graph.get_state(above))
        for level in _levels(graph, snapshot)
    ]
    return _pause(snapshot, levels)


async def _aread(
    graph: Pregel[StateT, ContextT, InputT, OutputT], config: RunnableConfig
) -> _Pause:
    snapshot = await graph.aget_state(config, subgraphs=True)
    levels = [
        level
        if (above := _needs_parent(level)) is None
        else attrs.evolve(level, parent=await graph.aget_state(above))
        for level in _levels(graph, snapshot)
    ]
    return _pause(snapshot, levels)


# --- outside the graph: resuming --------------------------------------------


def _answered(resume: Resume) -> set[tuple[str, str]]:
    entries: list[Respond | Restart] = [*resume.respond, *resume.restart]
    return {(entry.name, entry.ref) for entry in entries}


def _earlier(
    history: Sequence[StateSnapshot],
    resume: Resume,
) -> _Pause | None:
    """The latest earlier pause that *resume* answers, if any."""
    answered = _answered(resume)
    for snapshot in history:
        if not snapshot.interrupts:
            continue
        earlier = _pause(snapshot, ())
        if answered and answered <= {(p.name, p.ref) for p in earlier.interrupts}:
            return earlier
    return None


async def _admit(
    pause: _Pause,
    resume: Resume,
    store: Store,
    policy: ResumePolicy | None,
    earlier: _Pause | None,
) -> tuple[ResolvedResume, Command[str] | None]:
    """Validate, spend once, and build what LangGraph is sent.

    Returns:
        What was accepted, and the id-keyed resume command (None to
        continue a breakpoint).
    """
    if (
        not pause.interrupts
        and earlier is not None
        and await store.spent(
            [
                earlier.keys[p.id]
                for p in earlier.interrupts
                if (p.name, p.ref) in _answered(resume)
            ]
        )
    ):
        message = f"thread {pause.thread!r} was already resumed from this pause"
        rejected = _refused(ProblemCode.CONSUMED, message)
        thread = pause.thread or "langgraph"
        raise await refuse(
            rejected,
            resume,
            store,
            session=thread,
            policy=policy,
            shown=earlier.interrupts,
        )
    if pause.breakpoint or not _answered(resume):
        # A breakpoint continues with one invoke(None), so every one must be
        # answered; an empty resume answers nothing, so none may be missing.
        policy = attrs.evolve(policy or ResumePolicy(), allow_partial=False)
    resolved = await admit(
        resume,
        pause.interrupts,
        store,
        session=pause.thread or "langgraph",
        keys=pause.keys,
        policy=policy,
    )
    if pause.breakpoint:
        return resolved, None
    answers: dict[str, object] = {}
    for answer in resolved.answers:
        entry, wire = answer.entry, pause.sends[answer.interrupt.id]
        if isinstance(entry, Respond):
            verb, value = "respond", copy_json(entry.output)
        else:  # LangGraph gets plain copies: the records keep their own
            verb, value = "restart", copy_json(entry.resumed)
        answers[answer.interrupt.id] = (
            value if wire is None else {MARK: {"for": wire, verb: value}}
        )
    return resolved, Command(resume=answers)


def _history(
    graph: Pregel[StateT, ContextT, InputT, OutputT],
    config: RunnableConfig,
    pause: _Pause,
) -> list[StateSnapshot]:
    if pause.interrupts:
        return []
    return list(graph.get_state_history(config, limit=HISTORY))


async def _ahistory(
    graph: Pregel[StateT, ContextT, InputT, OutputT],
    config: RunnableConfig,
    pause: _Pause,
) -> list[StateSnapshot]:
    if pause.interrupts:
        return []
    return [state async for state in graph.aget_state_history(config, limit=HISTORY)]


def _admitted(
    graph: Pregel[StateT, ContextT, InputT, OutputT],
    config: RunnableConfig,
    resume: Resume,
    store: Store,
    policy: ResumePolicy | None,
) -> tuple[ResolvedResume, Command[str] | None]:
    pause = _read(graph, config)
    earlier = _earlier(_history(graph, config, pause), resume)
    return run_sync(_admit(pause, resume, store, policy, earlier))


async def _aadmitted(
    graph: Pregel[StateT, ContextT, InputT, OutputT],
    config: RunnableConfig,
    resume: Resume,
    store: Store,
    policy: ResumePolicy | None,
) -> tuple[ResolvedResume, Command[str] | None]:
    pause = await _aread(graph, config)
    earlier = _earlier(await _ahistory(graph, config, pause), resume)
    return await _admit(pause, resume, store, policy, earlier)


def _resumed(  # noqa: PLR0913, PLR0917 - resume's parts
    graph: Pregel[StateT, ContextT, InputT, OutputT],
    config: RunnableConfig,
    resume: Resume,
    store: Store,
    policy: ResumePolicy | None,
    context: ContextT | None,
) -> tuple[ResolvedResume, GraphOutput[OutputT]]:
    """`resume`'s one path: what was accepted, and LangGraph's output."""
    resolved, command = _admitted(graph, config, resume, store, policy)
    return resolved, graph.invoke(command, config, context=context, version="v2")


async def _aresumed(  # noqa: PLR0913, PLR0917 - aresume's parts
    graph: Pregel[StateT, ContextT, InputT, OutputT],
    config: RunnableConfig,
    resume: Resume,
    store: Store,
    policy: ResumePolicy | None,
    context: ContextT | None,
) -> tuple[ResolvedResume, GraphOutput[OutputT]]:
    """`aresume`'s one path: what was accepted, and LangGraph's output."""
    resolved, command = await _aadmitted(graph, config, resume, store, policy)
    output = await graph.ainvoke(command, config, context=context, version="v2")
    return resolved, output


def resume(  # noqa: PLR0913 - keyword-only options
    graph: Pregel[StateT, ContextT, InputT, OutputT],
    config: RunnableConfig,
    resume: Resume,
    store: Store,
    *,
    policy: ResumePolicy | None = None,
    context: ContextT | None = None,
) -> GraphOutput[OutputT]:
    """Validate *resume* against the thread's checkpoint, spend it, continue.

    The pending state is read from the checkpointer, never from the client.
    The resume is authorized and validated (`interruption.admit`: unknown
    id, duplicate, missing, wrong kind of answer, schema), and each
    answered interrupt is spent in *store* on its own key (all of them or,
    if one was spent already, none: ``consumed``), all before LangGraph is
    sent anything; an interrupt is spent once however its answers are split
    or batched, and whichever process or adapter answers it. LangGraph then
    gets the
    id-keyed map ``Command(resume={id: value})``, never a bare value or
    None; a static breakpoint continues with ``invoke(None, config)``.

    Args:
        graph: The compiled graph (with a checkpointer).
        config: Names the thread.
        resume: The client's answers.
        store: Where spent pauses are marked (share it across processes).
        policy: Authorization, partial resumes, the clock; strict by default.
        context: The graph's run context, if it takes one.

    Returns:
        LangGraph's output (``version="v2"``): the state and any new
        interrupts (read them with `pending`).

    Raises:
        ResumeRejected: with the core's problem codes (``nothing_pending``
            for a thread that waits for nothing, ``consumed`` for an answer
            to an interrupt spent already, its continuation perhaps still
            running); nothing was sent to LangGraph then.
        DecodeError: if an adapter-made pause in the checkpoint is damaged.
        EventLoopRunning: if called from a running event loop (use `aresume`).
    """
    return _resumed(graph, config, resume, store, policy, context)[1]


async def aresume(  # noqa: PLR0913 - keyword-only options
    graph: Pregel[StateT, ContextT, InputT, OutputT],
    config: RunnableConfig,
    resume: Resume,
    store: Store,
    *,
    policy: ResumePolicy | None = None,
    context: ContextT | None = None,
) -> GraphOutput[OutputT]:
    """The asynchronous `resume`.

    Args:
        graph: The compiled graph.
        config: Names the thread.
        resume: The client's answers.
        store: Where spent pauses are marked.
        policy: Authorization, partial resumes, the clock.
        context: The graph's run context, if it takes one.

    Returns:
        LangGraph's output (``version="v2"``).

    Raises:
        ResumeRejected: as `resume`; nothing was sent to LangGraph then.
        DecodeError: if an adapter-made pause in the checkpoint is damaged.
    """
    return (await _aresumed(graph, config, resume, store, policy, context))[1]


def resume_stream(  # noqa: PLR0913 - keyword-only options
    graph: Pregel[StateT, ContextT, InputT, OutputT],
    config: RunnableConfig,
    resume: Resume,
    store: Store,
    *,
    policy: ResumePolicy | None = None,
    context: ContextT | None = None,
    stream_mode: StreamMode | Sequence[StreamMode] = "updates",
) -> Iterator[StreamPart[StateT, OutputT]]:
    """`resume`, streaming LangGraph's parts (``version="v2"``).

    The resume is validated and spent when this is called, before the
    iterator is returned; iterating runs the graph.

    Args:
        graph: The compiled graph.
        config: Names the thread.
        resume: The client's answers.
        store: Where spent pauses are marked.
        policy: Authorization, partial resumes, the clock.
        context: The graph's run context, if it takes one.
        stream_mode: LangGraph's stream mode(s).

    Returns:
        LangGraph's stream parts.

    Raises:
        ResumeRejected: as `resume`; nothing was sent to LangGraph then.
        DecodeError: if an adapter-made pause in the checkpoint is damaged.
        EventLoopRunning: if called from a running event loop.
    """
    _, command = _admitted(graph, config, resume, store, policy)
    return graph.stream(
        command, config, context=context, stream_mode=stream_mode, version="v2"
    )


async def aresume_stream(  # noqa: PLR0913 - keyword-only options
    graph: Pregel[StateT, ContextT, InputT, OutputT],
    config: RunnableConfig,
    resume: Resume,
    store: Store,
    *,
    policy: ResumePolicy | None = None,
    context: ContextT | None = None,
    stream_mode: StreamMode | Sequence[StreamMode] = "updates",
) -> AsyncIterator[StreamPart[StateT, OutputT]]:
    """The asynchronous `resume_stream`: await it, then iterate.

    Args:
        graph: The compiled graph.
        config: Names the thread.
        resume: The client's answers.
        store: Where spent pauses are marked.
        policy: Authorization, partial resumes, the clock.
        context: The graph's run context, if it takes one.
        stream_mode: LangGraph's stream mode(s).

    Returns:
        LangGraph's stream parts.

    Raises:
        ResumeRejected: as `resume`; nothing was sent to LangGraph then.
        DecodeError: if an adapter-made pause in the checkpoint is damaged.
    """
    _, command = await _aadmitted(graph, config, resume, store, policy)
    return graph.astream(
        command, config, context=context, stream_mode=stream_mode, version="v2"
    )


# --- the bridge: every thread's pauses, for the inbox ------------------------


Threads: TypeAlias = Callable[[], Iterable[str] | Awaitable[Iterable[str]]]
"""Lists the thread ids that may hold a pause, sync or async (LangGraph's
checkpointers cannot list threads cheaply: the app says where to look)."""


@final
@attrs.frozen
class GraphBridge(Generic[StateT, ContextT, InputT, OutputT]):
    """The `Bridge` over a compiled graph's threads (build it with `bridge`).

    What is pending is `apending` of each thread *threads* lists; an answer
    is `aresume` (authorize, validate against the checkpoint, spend once
    under the same keys as every door, audit, then continue the graph).

    Attributes:
        graph: The compiled graph (with a checkpointer).
        store: Where spent pauses are marked and the audit trail is kept.
        threads: Lists the thread ids to look in.
        policy: Authorization, partial resumes, the clock (its principal is
            each call's).
        context: The graph's run context, if it takes one.
        blocking: Whether the checkpointer is synchronous only (LangGraph's
            ``SqliteSaver``): then `pending` and `resume` run in a worker
            thread, else `apending` and `aresume` run on the loop.
    """

    graph: Pregel[StateT, ContextT, InputT, OutputT]
    store: Store
    threads: Threads
    policy: ResumePolicy = attrs.field(factory=ResumePolicy)
    context: ContextT | None = None
    blocking: bool = False

    @property
    def door(self) -> str:
        """``"langgraph"``: the framework its spend keys name (`pause_key`)."""
        return "langgraph"

    def _config(self, thread: str) -> RunnableConfig:
        return {"configurable": {"thread_id": thread}}

    async def _read(self, config: RunnableConfig) -> _Pause:
        """What the thread's checkpoint shows, spent or not; nothing is filed."""
        if self.blocking:
            return await asyncio.to_thread(_read, self.graph, config)
        return await _aread(self.graph, config)

    def _as(self, principal: str | None) -> ResumePolicy:
        return attrs.evolve(self.policy, principal=principal)

    async def _paused(self, thread: str) -> _bridged.Paused | None:
        """The thread's pause: everything its checkpoint shows, spent or not."""
        config = self._config(thread)
        pause = await self._read(config)
        if not pause.interrupts:
            return None
        created = pause.created_at
        at = None if created is None else datetime.fromisoformat(created)
        session = pause.thread or "langgraph"
        return _bridged.Paused(thread, session, pause.interrupts, pause.keys, at)

    async def _pause(self, thread: str, policy: ResumePolicy) -> PendingPause | None:
        paused = await self._paused(thread)
        return await _bridged.shown(self.door, self.store, policy, paused)

    async def pending(self, *, principal: str | None = None) -> list[PendingPause]:
        """Every thread's pause *principal* may answer, newest first.

        Args:
            principal: Who asks; the policy's authorizer must allow them for
                every interrupt of a thread's pause, answered or not (a
                refused principal's listing files nothing).

        Returns:
            One `PendingPause` per paused thread (its scope the thread id),
            with what `apending` shows; spent interrupts are not listed.
        """
        threads = await listed(self.threads)
        policy = self._as(principal)
        return await newest_first(threads, lambda t: self._pause(t, policy))

    async def pause(
        self, scope: str, *, principal: str | None = None
    ) -> PendingPause | None:
        """Thread *scope*'s pause, as `pending` lists it, or None.

        Args:
            scope: The thread id.
            principal: Who asks (as for `pending`).

        Returns:
            Its `PendingPause`, or None (nothing pending there, or a refused
            principal).
        """
        return await self._pause(scope, self._as(principal))

    async def answer(
        self, scope: str, resume: Resume, *, principal: str | None = None
    ) -> ResolvedResume:
        """Answer thread *scope*'s pause through `aresume`; the graph runs on.

        Args:
            scope: The thread id.
            resume: The answers.
            principal: Who answers.

        Returns:
            What was accepted.

        Raises:
            ResumeRejected: as `aresume` (``consumed`` for a pause answered
                through any door); nothing was sent to LangGraph then.
        """
        config = self._config(scope)
        policy = self._as(principal)
        graph, store, context = self.graph, self.store, self.context
        if self.blocking:
            resolved, _ = await asyncio.to_thread(
                lambda: _resumed(graph, config, resume, store, policy, context)
            )
        else:
            resolved, _ = await _aresumed(graph, config, resume, store, policy, context)
        return resolved

    async def _shown(self, thread: str) -> tuple[PendingInterrupt, ...]:
        """The thread's latest pause, answered or not, from its checkpoints.

        What is pending (a breakpoint included), else the interrupts of the
        latest of its recent checkpoints (`HISTORY`) that shows some.
        """
        config = self._config(thread)
        # Read, not listed: asking who may read the trail files nothing.
        live = (await self._read(config)).interrupts
        if live:
            return live
        if self.blocking:
            history = await asyncio.to_thread(
                lambda: list(self.graph.get_state_history(config, limit=HISTORY))
            )
        else:
            history = [
                state
                async for state in self.graph.aget_state_history(config, limit=HISTORY)
            ]
        for state in history:
            if state.interrupts:
                return tuple(_of_interrupt(found)[0] for found in state.interrupts)
        return ()

    async def audit(
        self, scope: str, *, principal: str | None = None
    ) -> tuple[AuditEvent, ...]:
        """Thread *scope*'s audit trail, every door's attempts included.

        Args:
            scope: The thread id.
            principal: Who asks; with an authorizer, they must be allowed
                for the thread's latest pause (else they see nothing; nor
                does anyone once a breakpoint, which leaves no interrupt
                in the checkpoints, was answered).

        Returns:
            Its events, oldest first.
        """
        if self.policy.authorize is not None:
            shown = await self._shown(scope)
            policy = self._as(principal)
            if not shown or not await _bridged.allowed(policy, scope, shown):
                return ()
        return tuple(await self.store.audit(scope))


def bridge(  # noqa: PLR0913 - keyword-only options
    graph: Pregel[StateT, ContextT, InputT, OutputT],
    store: Store,
    threads: Threads,
    *,
    authorize: Authorize | None = None,
    policy: ResumePolicy | None = None,
    context: ContextT | None = None,
    blocking: bool = False,
) -> GraphBridge[StateT, ContextT, InputT, OutputT]:
    """The `Bridge` over *graph*'s threads: what the inbox lists and answers.

    Args:
        graph: The compiled graph (with a checkpointer).
        store: Where `resume` marks spent pauses (the store every door of
            these threads uses).
        threads: Lists the thread ids that may hold a pause (sync or async).
        authorize: Who may see and answer a pause (`ResumePolicy.authorize`);
            None: the policy's.
        policy: Partial resumes, the clock; strict by default.
        context: The graph's run context, if it takes one.
        blocking: Whether the checkpointer is synchronous only (LangGraph's
            ``SqliteSaver``, ``PostgresSaver``): its reads and the resume
            then run in a worker thread (`pending`, `resume`).

    Returns:
        A `GraphBridge`: door ``"langgraph"``, scope a thread id.
    """
    chosen = policy or ResumePolicy()
    if authorize is not None:
        chosen = attrs.evolve(chosen, authorize=authorize)
    return GraphBridge(graph, store, threads, chosen, context, blocking)
