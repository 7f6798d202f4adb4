"""LangChain agents' `HumanInTheLoopMiddleware`, behind the library's validator.

An agent made by ``langchain.agents.create_agent`` with
``HumanInTheLoopMiddleware(interrupt_on=...)`` pauses through LangGraph's
``interrupt``: in ``"batched"`` mode (the default) once per model turn with
an ``HITLRequest`` whose decisions are matched to the gated calls *by
position*; in ``"per_call"`` mode once per gated call with a
``ToolApprovalRequest`` answered by interrupt id. This module reads such a
pause from the agent's checkpoint (never from the client) and shows each
gated call as its own `PendingInterrupt`:

* a call whose review does not allow ``respond`` is
  ``ApprovalPending(<tool call id>)``, answered only by ``pending.approve()``
  or ``pending.reject(reason)``; when the review allows ``edit`` too, its
  ``accepts.replace_input`` is the tool's argument schema (the
  ``tool_call_schema`` the agent's tool shows the model), and an approval
  with other arguments that fit it,
  ``pending.restart("approve", replace_input=args)``, is the middleware's
  ``edit``;
* a call whose review allows ``respond`` (an ``ask_user`` style tool, or
  any tool under ``interrupt_on={name: True}``) lets the human answer in
  the tool's place, which an approval never takes: it is `Custom()`,
  answered by ``pending.respond(text)`` against a string schema (narrowed
  per tool with *questions*) and, where the review allows them, by the same
  decisions as a restart (``pending.restart("approve")``,
  ``pending.restart({"reject": {"reason": ...}})``, an edit as above).

`resume` authorizes the client's `Resume`, refuses decisions the call's
review does not allow (the middleware's four: ``approve``, ``edit``,
``reject``, ``respond``), validates the rest with `interruption.admit` and
spends the pause once in a `Store`; only then does it build the
middleware's own answer, call by call id, and run the agent from the very
checkpoint it validated. `from_decisions` turns a reviewer UI's answer in
the middleware's shape (Agent Chat UI, Agent Inbox) into a `Resume`.
`bridge` shows every thread an app names to the inbox (`interruption.Bridge`),
through `apending` and `aresume`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Iterator,
    Mapping,
)
from datetime import datetime
from typing import Final, Protocol, TypeAlias, cast, final

import attrs

from interruption import JSON, Mismatch, canonical, json_equal
from interruption.adapters import _bridged, _hitl
from interruption.adapters._bridged import listed
from interruption.audit import AuditEvent
from interruption.errors import (
    DecodeError,
    PayloadError,
    Problem,
    ProblemCode,
    ResumeRejected,
)
from interruption.kinds import ApprovalPending, Custom
from interruption.parts import ToolRequest
from interruption.resume import (
    APPROVAL_ONLY,
    Accepts,
    InterruptedTurn,
    PendingInterrupt,
    Respond,
    Restart,
    Resume,
)
from interruption.runtime.admission import (
    admit,
    pause_key,
    record_paused,
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
from interruption.runtime.store import Store
from interruption.validation import (
    Authorize,
    ResolvedResume,
    ResumePolicy,
    authorize_turn,
    validate_resume,
)
from interruption.wire import child_path, copy_json, describe

try:
    from langchain.agents.middleware.human_in_the_loop import (
        HumanInTheLoopMiddleware,
    )
    from langchain_core.messages import AIMessage
    from langchain_core.runnables import RunnableConfig
    from langchain_core.tools import BaseTool
    from langgraph.prebuilt import ToolNode
    from langgraph.types import Command, StateSnapshot
    from pydantic import BaseModel, ValidationError
except ImportError as error:  # pragma: no cover - exercised in a subprocess
    msg = (
        "interruption.adapters.langchain needs the [langgraph] extra: "
        "pip install 'interruption[langgraph]'"
    )
    raise ImportError(msg) from error

__all__ = [
    "DEFAULT_REJECTION",
    "HISTORY",
    "Agent",
    "AgentBridge",
    "Mode",
    "Pause",
    "Review",
    "Threads",
    "apending",
    "aresume",
    "bridge",
    "from_decisions",
    "pending",
    "resume",
]

Mode: TypeAlias = _hitl.Mode
"""The middleware's ``interrupt_mode`` that raised a pause."""

DEFAULT_REJECTION: Final = "rejected by the reviewer"
"""The reason `from_decisions` gives a reject decision that carries none."""

_STRING: Final[dict[str, JSON]] = {"type": "string"}

HISTORY: Final = 64
"""How many checkpoints back a resume that fits no pending call is looked
for, to tell a replay (``consumed``) from a forgery."""

_MIDDLEWARE: Final = HumanInTheLoopMiddleware.__name__
"""The middleware's name, for messages (its import is what needs the extra)."""


class Agent(Protocol):
    """What this adapter needs of an agent: a compiled LangGraph graph.

    ``create_agent(...)`` returns one (a ``CompiledStateGraph``); it must
    have a checkpointer, since the pause lives in its checkpoint. Its
    ``"tools"`` node (the ``ToolNode`` ``create_agent`` builds) gives the
    argument schemas an ``edit`` must fit.
    """

    @property
    def nodes(self) -> Mapping[str, object]:
        """The graph's nodes by name."""

    def get_state(self, config: RunnableConfig) -> StateSnapshot:
        """Read the thread's checkpoint."""

    async def aget_state(self, config: RunnableConfig) -> StateSnapshot:
        """Read the thread's checkpoint, asynchronously."""

    def get_state_history(
        self, config: RunnableConfig, *, limit: int | None = None
    ) -> Iterator[StateSnapshot]:
        """Read the thread's checkpoints, newest first."""

    def aget_state_history(
        self, config: RunnableConfig, *, limit: int | None = None
    ) -> AsyncIterator[StateSnapshot]:
        """Read the thread's checkpoints, newest first, asynchronously."""

    def invoke(self, input: Command[str], config: RunnableConfig) -> object:  # noqa: A002 - LangGraph's name
        """Run the graph from its checkpoint with *input*."""

    async def ainvoke(self, input: Command[str], config: RunnableConfig) -> object:  # noqa: A002 - LangGraph's name
        """Run the graph from its checkpoint with *input*, asynchronously."""


@final
@attrs.frozen
class Review:
    """One LangGraph interrupt the middleware raised, as a reviewer UI sees it.

    Attributes:
        id: LangGraph's interrupt id (what ``Command(resume={id: ...})``
            answers).
        request: The interrupt's value exactly as the middleware raised it:
            an ``HITLRequest`` (batched) or a ``ToolApprovalRequest``
            (per call), for the UIs that render those.
        interrupts: One `PendingInterrupt` per gated call, in the request's
            order (the ``action_requests`` order in batched mode).
        allowed: Per gated call, the decisions its review allows, in the
            same order.
    """

    id: str
    request: JSON
    interrupts: tuple[PendingInterrupt, ...]
    allowed: tuple[frozenset[str], ...]


@final
@attrs.frozen
class Pause:
    """What a paused agent thread waits for, read from its checkpoint.

    Attributes:
        thread_id: The thread (LangGraph's ``thread_id``).
        checkpoint_ns: The checkpoint namespace (``""`` at the top level).
        checkpoint_id: The checkpoint the pause was read from; a resume
            runs from exactly this checkpoint.
        mode: How the middleware paused.
        reviews: The middleware's interrupts, in LangGraph's order.
    """

    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str
    mode: Mode
    reviews: tuple[Review, ...]

    @property
    def interrupts(self) -> tuple[PendingInterrupt, ...]:
        """Every gated call's `PendingInterrupt`, review by review."""
        return tuple(p for review in self.reviews for p in review.interrupts)

    @property
    def keys(self) -> dict[str, str]:
        """What `resume` spends in the store, per gated call's id.

        A review is one LangGraph interrupt, spent once, ever, whichever
        adapter answers it: its key is the one the LangGraph adapter spends
        for that interrupt (`pause_key` of ``"langgraph"``, the thread, the
        checkpoint namespace and id, and the interrupt's id), shared by the
        review's calls.
        """
        return {
            pending.id: pause_key(
                "langgraph",
                self.thread_id,
                self.checkpoint_ns,
                self.checkpoint_id,
                review.id,
            )
            for review in self.reviews
            for pending in review.interrupts
        }


# -- reading the checkpoint ---------------------------------------------------


def _fail(path: str, expected: str, value: object) -> DecodeError:
    return DecodeError([Mismatch(path, expected, describe(value))])


def _text(value: object, path: str, *, empty: bool = False) -> str:
    if not isinstance(value, str) or (not value and not empty):
        raise _fail(path, "a string" if empty else "a non-empty string", value)
    return value


def _allowed(values: list[object], path: str) -> frozenset[str]:
    """A non-empty set of the middleware's decisions, from its response schema."""
    expected = f"a non-empty array of {', '.join(map(repr, _hitl.DECISION_TYPES))}"
    if not values:
        raise _fail(path, expected, [])
    for index, decision in enumerate(values):
        if decision not in _hitl.DECISION_TYPES:
            raise _fail(f"{path}[{index}]", expected, decision)
    return frozenset(str(decision) for decision in values)


def _schema_decisions(schema: object, path: str) -> frozenset[str]:
    """The decisions a per-call ``response_schema`` lists (one, or a union)."""
    if isinstance(schema, dict):
        mapping = schema.get("discriminator", {}).get("mapping")
        if isinstance(mapping, dict):
            return _allowed(list(mapping), f"{path}.discriminator.mapping")
        kind = schema.get("properties", {}).get("type", {}).get("const")
        return _allowed([kind], f"{path}.properties.type.const")
    raise _fail(path, "the middleware's decision schema", schema)


@attrs.frozen
class _Call:
    """One gated tool call, as the middleware shows it."""

    ref: str
    name: str
    args: dict[str, JSON]
    description: str
    allowed: frozenset[str]

    def pending(
        self, questions: Mapping[str, dict[str, JSON]], tools: Mapping[str, BaseTool]
    ) -> PendingInterrupt:
        payload: dict[str, JSON] = {
            "name": self.name,
            "args": self.args,
            "description": self.description,
            "allowed_decisions": [d for d in _hitl.DECISION_TYPES if d in self.allowed],
        }
        tool = ToolRequest(self.name, self.ref, self.args)
        edit = _args_schema(tools.get(self.name)) if "edit" in self.allowed else None
        if "respond" not in self.allowed:
            accepts = (
                APPROVAL_ONLY
                if edit is None
                else Accepts(restart=APPROVAL_ONLY.restart, replace_input=edit)
            )
            return PendingInterrupt(
                self.ref, ApprovalPending(self.ref), payload, tool, accepts
            )
        # The human may answer in the tool's place: not an approval, which
        # never takes a result (`PendingInterrupt.allowed`), but a pause that
        # takes that answer and, where the review allows them, decisions.
        declared = questions.get(self.name)
        answer: dict[str, JSON] = (
            _STRING if declared is None else {"allOf": [_STRING, declared]}
        )
        decides = APPROVAL_ONLY.restart if self.allowed - {"respond"} else None
        accepts = Accepts(respond=answer, restart=decides, replace_input=edit)
        return PendingInterrupt(self.ref, Custom(), payload, tool, accepts)


def _args_schema(tool: BaseTool | None) -> dict[str, JSON] | None:
    """The JSON schema an edit's arguments must fit: what the model is shown.

    The tool's ``tool_call_schema``, as the middleware checks a per-call
    edit: a Pydantic model's JSON schema, or a JSON-schema tool's own
    schema. None (no edit can be validated, so none is taken) for a tool
    the agent does not have or a schema of another sort.
    """
    model = _model(tool)
    if model is not None:
        return model.model_json_schema()
    schema = None if tool is None else tool.tool_call_schema
    if isinstance(schema, dict):
        # A copy: the tool's own stays the tool's. Not JSON: no edit is taken.
        with contextlib.suppress(PayloadError):
            return cast("dict[str, JSON]", copy_json(schema))
    return None


def _tools(agent: Agent) -> Mapping[str, BaseTool]:
    """The agent's tools by name, from the ``ToolNode`` of its ``tools`` node."""
    bound = getattr(agent.nodes.get("tools"), "bound", None)
    return bound.tools_by_name if isinstance(bound, ToolNode) else {}


def _tool_calls(values: object) -> list[tuple[object, str, JSON]]:
    """The tool calls of the state's last AI message: (id, name, args)."""
    messages = values.get("messages") if isinstance(values, dict) else None
    last = next((m for m in reversed(messages or []) if isinstance(m, AIMessage)), None)
    if last is None:
        raise _fail("$.values.messages", "an AI message with tool calls", messages)
    return [(call.get("id"), call["name"], call["args"]) for call in last.tool_calls]


def _mismatch(path: str, expected: str, got: str) -> DecodeError:
    return DecodeError([Mismatch(path, expected, got)])


def _canonical(args: object) -> bytes:
    """The canonical JSON of a call's arguments; empty if they are not JSON.

    `canonical` checks them itself (its refusal is a `PayloadError`): no
    copy is made first.
    """
    try:
        return canonical(cast("JSON", args))
    except PayloadError:
        return b""


def _batched(request: _hitl.HITLRequest, values: object, path: str) -> list[_Call]:
    """Align an ``HITLRequest``'s actions with the tool calls they stand for.

    The middleware gates, in order, the last AI message's calls whose tool
    has a review (and whose ``when`` holds), and lists only their names and
    arguments. The calls gated are the ones whose (name, arguments) the
    request lists; that alignment is taken only when it is exact, so that a
    decision never lands on a call of the same name and arguments that was
    not gated.
    """
    actions, configs = request.action_requests, request.review_configs
    if not actions:
        raise _mismatch(f"{path}.action_requests", "a non-empty array", "[]")
    if len(configs) != len(actions):
        expected = f"an array of {len(actions)} review configs"
        raise _mismatch(f"{path}.review_configs", expected, f"{len(configs)}")
    for index, (action, config) in enumerate(zip(actions, configs, strict=True)):
        where = f"{path}.review_configs[{index}]"
        if config.action_name != action.name:
            raise _fail(f"{where}.action_name", repr(action.name), config.action_name)
        _allowed(list(config.allowed_decisions), f"{where}.allowed_decisions")
    wanted = [(action.name, canonical(action.args)) for action in actions]
    listed = set(wanted)
    gated = [
        (ref, key)
        for ref, name, args in _tool_calls(values)
        if (key := (name, _canonical(args))) in listed
    ]
    if [key for _, key in gated] != wanted:
        expected = (
            "one action per gated call of the last AI message, in order, "
            "each told apart from the calls not gated by name and arguments"
        )
        got = f"{len(actions)} actions for {len(gated)} such calls"
        raise _mismatch(f"{path}.action_requests", expected, got)
    calls = []
    for index, ((ref, _), action, config) in enumerate(
        zip(gated, actions, configs, strict=True)
    ):
        if not isinstance(ref, str) or not ref:
            where = f"{path}.action_requests[{index}] (its tool call id)"
            raise _fail(where, "a non-empty string", ref)
        allowed = frozenset(config.allowed_decisions)
        calls.append(_Call(ref, action.name, action.args, action.description, allowed))
    return calls


def _per_call(value: object, schema: object, path: str) -> _Call:
    """The one call of a ``ToolApprovalRequest``."""
    request = _hitl.decode(value, _hitl.ToolApprovalRequest, path)
    return _Call(
        request.tool_call_id,
        request.name,
        request.args,
        request.description,
        _schema_decisions(schema, path.replace(".value", ".response_schema")),
    )


def _read(
    snapshot: StateSnapshot,
    questions: Mapping[str, dict[str, JSON]],
    tools: Mapping[str, BaseTool],
) -> Pause:
    """The middleware's pause in *snapshot* (no reviews when none is waiting).

    Raises:
        DecodeError: if an interrupt is not the middleware's, or what it
            says cannot be told apart call by call.
    """
    configurable = snapshot.config.get("configurable", {})
    where = "$.config.configurable"
    thread_id = _text(str(configurable.get("thread_id", "")), f"{where}.thread_id")
    checkpoint_ns = _text(
        configurable.get("checkpoint_ns", ""), f"{where}.checkpoint_ns", empty=True
    )
    if not snapshot.interrupts:  # a thread never started has no checkpoint
        return Pause(thread_id, checkpoint_ns, "", "batched", ())
    checkpoint_id = _text(configurable.get("checkpoint_id"), f"{where}.checkpoint_id")
    reviews: list[Review] = []
    modes: set[Mode] = set()
    for index, interrupt in enumerate(snapshot.interrupts):
        path = f"$.interrupts[{index}].value"
        value = interrupt.value
        mode = _hitl.review_mode(value)
        if mode == "per_call":
            calls = [_per_call(value, interrupt.response_schema, path)]
        elif mode == "batched":
            request = _hitl.decode(value, _hitl.HITLRequest, path)
            calls = _batched(request, snapshot.values, path)
        else:
            expected = f"a {_MIDDLEWARE} HITLRequest or ToolApprovalRequest"
            raise _fail(path, expected, value)
        modes.add(mode)
        pending = tuple(call.pending(questions, tools) for call in calls)
        allowed = tuple(call.allowed for call in calls)
        # Decoded, so JSON: kept as the middleware raised it, for the UIs.
        request_json = cast("JSON", value)
        reviews.append(Review(interrupt.id, request_json, pending, allowed))
    if len(modes) > 1:
        raise _fail("$.interrupts", "the interrupts of one interrupt_mode", "both")
    refs = [p.ref for review in reviews for p in review.interrupts]
    if len(set(refs)) != len(refs):
        raise _fail("$.interrupts", "one review per tool call id", "a repeated id")
    return Pause(thread_id, checkpoint_ns, checkpoint_id, modes.pop(), tuple(reviews))


def _latest(config: RunnableConfig) -> RunnableConfig:
    """*config* reading the thread's latest checkpoint, whatever it names."""
    latest = config.copy()
    configurable = dict(config.get("configurable", {}))
    configurable.pop("checkpoint_id", None)
    latest["configurable"] = configurable
    return latest


def _pinned(config: RunnableConfig, pause: Pause) -> RunnableConfig:
    """*config* running from exactly the checkpoint *pause* was read from."""
    pinned = config.copy()
    pinned["configurable"] = {
        **config.get("configurable", {}),
        "checkpoint_ns": pause.checkpoint_ns,
        "checkpoint_id": pause.checkpoint_id,
    }
    return pinned


# -- admitting a resume ------------------------------------------------------


def _changed(pending: PendingInterrupt, entry: Restart) -> bool:
    """Whether *entry* carries arguments other than the call's own."""
    original = pending.tool.input if pending.tool is not None else None
    return entry.input is not None and not json_equal(entry.input, original)


def _verb(
    pending: PendingInterrupt,
    allowed: frozenset[str],
    entry: Restart,
    decision: ApprovalDecision,
) -> str:
    """The middleware's decision type for a restart carrying *decision*.

    *decision* is the restart's own (``decision_from_json(entry.resumed)``,
    decoded once by the caller). An approval with other arguments is an
    ``edit``; so is one with the same arguments spelled out where the
    review allows ``edit`` and not ``approve`` (the call runs as it was
    either way).
    """
    if isinstance(decision, Reject):
        return "reject"
    if _changed(pending, entry):
        return "edit"
    spelled = entry.input is not None and "approve" not in allowed
    return "edit" if spelled and "edit" in allowed else "approve"


def _reviewed(
    pause: Pause,
) -> dict[tuple[str, str], tuple[PendingInterrupt, frozenset[str]]]:
    """Each gated call, and the decisions its review allows, by (name, ref)."""
    return {
        (pending.name, pending.ref): (pending, allowed)
        for review in pause.reviews
        for pending, allowed in zip(review.interrupts, review.allowed, strict=True)
    }


def _not_allowed(resume: Resume, pause: Pause) -> list[Problem]:
    """Decisions the call's review does not allow (the core cannot know).

    Other arguments where the call takes no edit, and a reject that carries
    other arguments, are left to the core (``input_modified``: a rejected
    call runs nothing, so arguments for it can only be a mistake).
    """
    reviewed = _reviewed(pause)
    problems = []
    for index, entry in enumerate(resume.restart):
        pending, allowed = reviewed.get((entry.name, entry.ref), (None, frozenset()))
        if pending is None or pending.accepts.restart is None:
            continue  # the core refuses a restart where none is taken
        try:
            decision = decision_from_json(entry.resumed)
        except DecodeError:
            continue  # the core reports it: schema_violation
        verb = _verb(pending, allowed, entry, decision)
        changed = _changed(pending, entry)
        if verb == "edit" and changed and pending.accepts.replace_input is None:
            continue  # the core refuses other arguments itself: input_modified
        if verb not in allowed:
            message = (
                f"{pending.id} ({pending.name}) allows "
                f"{', '.join(sorted(allowed))}; not {verb}"
            )
            code = ProblemCode.ANSWER_NOT_ACCEPTED
            problems.append(Problem(code, message, index, "restart", pending.id))
    return problems


def _unfit_edits(
    resume: Resume, pause: Pause, tools: Mapping[str, BaseTool]
) -> list[Problem]:
    """Edits whose arguments the tool's own Pydantic model refuses.

    The middleware checks a per-call edit against the tool's
    ``tool_call_schema`` before LangGraph saves it, and the tool checks a
    batched one when it runs. The JSON schema the core validates an edit
    against is that model's, but it cannot say all of it (a ``date`` is a
    string there, its ``format`` only a note): an edit that fits the schema
    and not the model would be spent, then refused by LangChain, and the
    approval lost. The model is asked here, before anything is spent, in
    both modes.
    """
    reviewed = _reviewed(pause)
    problems = []
    for index, entry in enumerate(resume.restart):
        pending, allowed = reviewed.get((entry.name, entry.ref), (None, frozenset()))
        if pending is None or pending.accepts.replace_input is None:
            continue  # not a call, or the core refuses any new input for it
        model = _model(tools.get(pending.name))
        if model is None:
            continue  # a JSON-schema tool: its schema is all there is
        try:
            decision = decision_from_json(entry.resumed)
        except DecodeError:
            continue  # the core reports it: schema_violation
        verb = _verb(pending, allowed, entry, decision)
        if verb != "edit" or not pending.fits(entry):
            continue  # no edit, or the core reports what is wrong with it
        try:
            model.model_validate(entry.input)
        except ValidationError as error:
            where = f"$.restart[{index}].input"
            expected = f"what {pending.name}'s argument model takes"
            message = "; ".join(
                str(
                    Mismatch(
                        _loc(where, e["loc"]),
                        f"{expected} ({e['msg']})",
                        describe(e["input"]),
                    )
                )
                for e in error.errors()
            )
            code = ProblemCode.SCHEMA_VIOLATION
            problems.append(Problem(code, message, index, "restart", pending.id))
    return problems


def _model(tool: BaseTool | None) -> type[BaseModel] | None:
    """The Pydantic model a tool's edit is checked against, if it has one."""
    schema = None if tool is None else tool.tool_call_schema
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return schema
    return None


def _loc(path: str, loc: tuple[int | str, ...]) -> str:
    for part in loc:
        path = child_path(path, part)
    return path


def _screen(
    resume: Resume,
    pause: Pause,
    turn: InterruptedTurn,
    *,
    checked: ResumePolicy,
    tools: Mapping[str, BaseTool],
) -> None:
    """The adapter's own refusals of what the reviews forbid, before `admit`.

    Raises:
        ResumeRejected: what the reviews forbid, with the core's problems
            beside it.
    """
    refused = _not_allowed(resume, pause) + _unfit_edits(resume, pause, tools)
    if refused:
        try:
            validate_resume(resume, turn, policy=checked)
        except ResumeRejected as rejected:
            raise ResumeRejected([*rejected.problems, *refused]) from None
        raise ResumeRejected(refused)


async def _admit(  # noqa: PLR0913 - keyword-only options
    pause: Pause,
    resume: Resume,
    store: Store,
    *,
    policy: ResumePolicy | None,
    history: Callable[[], AsyncIterator[StateSnapshot]],
    tools: Mapping[str, BaseTool],
) -> ResolvedResume:
    """Authorize, tell a replay, refuse what the reviews forbid, validate, spend.

    Every refusal is in the thread's audit trail: `admit` files its own,
    and those of the steps before it are filed with `refuse`.
    """
    policy = policy or ResumePolicy()
    interrupts, keys = pause.interrupts, pause.keys
    turn = InterruptedTurn(
        session=pause.thread_id,
        turn_id=1,
        messages=(),
        interrupts=interrupts,
        completed=(),
        created_at=policy.now(),
    )
    # A batched review takes a decision for every call: never partial.
    partial = policy.allow_partial and pause.mode == "per_call"
    checked = attrs.evolve(policy, authorize=None, allow_partial=partial)
    shown = interrupts
    try:
        await authorize_turn(turn, policy.authorize, policy.principal)
        earlier = await _replayed(resume, pause, history)
        if earlier is not None:
            shown = earlier.interrupts
            message = (
                f"the pause of thread {pause.thread_id!r} that this resume "
                "answers was already resumed"
            )
            raise ResumeRejected.of(ProblemCode.CONSUMED, message)
        _screen(resume, pause, turn, checked=checked, tools=tools)
    except ResumeRejected as rejected:
        # Refused before `admit` could: filed in the audit trail as it files
        # (the pause first, as `admit` files it before any refusal), the
        # principal asked about the pause the resume answers.
        session = pause.thread_id
        await record_paused(
            store,
            interrupts,
            keys,
            session=session,
            at=policy.now(),
        )
        raise await refuse(
            rejected, resume, store, session=session, policy=policy, shown=shown
        ) from None
    # `admit` files the pause and reads what is spent in one store read.
    return await admit(
        resume,
        interrupts,
        store,
        session=pause.thread_id,
        keys=keys,
        policy=checked,
    )


async def _replayed(
    resume: Resume, pause: Pause, history: Callable[[], AsyncIterator[StateSnapshot]]
) -> Pause | None:
    """The earlier pause *resume* answers when it answers none of *pause*.

    The thread's last `HISTORY` checkpoints are read, newest first; a
    checkpoint read from the history lists its interrupts answered since,
    so a per-call pause answered in part is found too.
    """
    asked = {(entry.name, entry.ref) for entry in resume.respond} | {
        (entry.name, entry.ref) for entry in resume.restart
    }
    if not asked or asked & {(p.name, p.ref) for p in pause.interrupts}:
        return None
    async for snapshot in history():
        try:
            earlier = _read(snapshot, {}, {})
        except DecodeError:
            continue
        if asked & {(p.name, p.ref) for p in earlier.interrupts}:
            return earlier
    return None


async def _each(snapshots: Iterable[StateSnapshot]) -> AsyncIterator[StateSnapshot]:
    for snapshot in snapshots:
        yield snapshot


def _decision(
    pending: PendingInterrupt, allowed: frozenset[str], entry: Respond | Restart
) -> JSON:
    """The middleware's decision for one validated answer (plain copies)."""
    if isinstance(entry, Respond):
        return {"type": "respond", "message": copy_json(entry.output)}
    decision = decision_from_json(entry.resumed)
    if isinstance(decision, Reject):
        return {"type": "reject", "message": decision.reason}
    if _verb(pending, allowed, entry, decision) == "edit":
        action: JSON = {"name": pending.name, "args": copy_json(entry.input)}
        return {"type": "edit", "edited_action": action}
    return {"type": "approve"}


def _command(pause: Pause, resolved: ResolvedResume) -> Command[str]:
    """LangGraph's resume, keyed by interrupt id, built call id by call id."""
    allowed = {
        pending.id: decisions
        for review in pause.reviews
        for pending, decisions in zip(review.interrupts, review.allowed, strict=True)
    }
    decided = {
        answer.interrupt.id: _decision(
            answer.interrupt, allowed[answer.interrupt.id], answer.entry
        )
        for answer in resolved.answers
    }
    answers: dict[str, JSON] = {}
    for review in pause.reviews:
        if pause.mode == "batched":
            decisions = [decided[pending.id] for pending in review.interrupts]
            answers[review.id] = {"decisions": decisions}
        elif (ref := review.interrupts[0].id) in decided:
            answers[review.id] = decided[ref]
    return Command(resume=answers)


# -- the public functions ----------------------------------------------------


async def _listed(pause: Pause, store: Store | None) -> Pause | None:
    """*pause* as listed: None when no review waits; spent reviews left out.

    A review is spent whole (its calls share one key), so `unspent` keeps
    all of its calls or none.
    """
    if store is not None and pause.reviews:
        shown = await unspent(
            pause.interrupts, pause.keys, store, session=pause.thread_id
        )
        live = {p.id for p in shown}
        reviews = tuple(r for r in pause.reviews if r.interrupts[0].id in live)
        pause = attrs.evolve(pause, reviews=reviews)
    return pause if pause.reviews else None


def pending(
    agent: Agent,
    config: RunnableConfig,
    *,
    questions: Mapping[str, dict[str, JSON]] | None = None,
    store: Store | None = None,
) -> Pause | None:
    """Read what the agent's thread waits for, from its latest checkpoint.

    With *store* (the one `resume` spends in), a review already answered
    is not listed, even while the run it started still goes on and the
    checkpoint shows it waiting. Must not be called from a running event
    loop then (use `apending`).

    Args:
        agent: The agent (``create_agent(...)`` with a checkpointer).
        config: Names the thread (``{"configurable": {"thread_id": ...}}``).
        questions: Per tool name, the schema of a respond answer, for tools
            whose review allows ``respond``; the answer is a string in any
            case.
        store: Where `resume` spends reviews; when given, an answered review
            is not listed.

    Returns:
        The pause, or None when the thread waits for no review.

    Raises:
        DecodeError: if the checkpoint holds an interrupt that is not the
            middleware's, or one whose calls cannot be told apart.
        EventLoopRunning: if called with *store* from a running event loop.
    """
    pause = _read(agent.get_state(_latest(config)), questions or {}, _tools(agent))
    if store is None:
        return pause if pause.reviews else None
    return run_sync(_listed(pause, store))


async def apending(
    agent: Agent,
    config: RunnableConfig,
    *,
    questions: Mapping[str, dict[str, JSON]] | None = None,
    store: Store | None = None,
) -> Pause | None:
    """`pending`, reading the checkpoint asynchronously.

    Args:
        agent: The agent (``create_agent(...)`` with a checkpointer).
        config: Names the thread.
        questions: Per tool name, the schema of a respond answer.
        store: Where `resume` spends reviews; when given, an answered review
            is not listed.

    Returns:
        The pause, or None when the thread waits for no review.

    Raises:
        DecodeError: as `pending`.
    """
    snapshot = await agent.aget_state(_latest(config))
    return await _listed(_read(snapshot, questions or {}, _tools(agent)), store)


def _resumed(  # noqa: PLR0913 - keyword-only options
    agent: Agent,
    config: RunnableConfig,
    resume: Resume,
    store: Store,
    *,
    questions: Mapping[str, dict[str, JSON]] | None,
    policy: ResumePolicy | None,
) -> tuple[ResolvedResume, Pause | None]:
    """`resume`: what was accepted, and what the thread waits for next."""
    questions, tools = questions or {}, _tools(agent)
    pause = _read(agent.get_state(_latest(config)), questions, tools)
    latest = _latest(config)

    def history() -> AsyncIterator[StateSnapshot]:
        return _each(agent.get_state_history(latest, limit=HISTORY))

    resolved = run_sync(
        _admit(
            pause,
            resume,
            store,
            policy=policy,
            history=history,
            tools=tools,
        )
    )
    # The checkpoint, not the run's output, says whether a review waits: a
    # paused run's output need not show "__interrupt__" (an interrupt in a
    # node the output does not show, an agent of another shape).
    agent.invoke(_command(pause, resolved), _pinned(config, pause))
    after = _read(agent.get_state(_latest(config)), questions, tools)
    return resolved, after if after.reviews else None


async def _aresumed(  # noqa: PLR0913 - keyword-only options
    agent: Agent,
    config: RunnableConfig,
    resume: Resume,
    store: Store,
    *,
    questions: Mapping[str, dict[str, JSON]] | None,
    policy: ResumePolicy | None,
) -> tuple[ResolvedResume, Pause | None]:
    """`aresume`: what was accepted, and what the thread waits for next."""
    questions, tools = questions or {}, _tools(agent)
    pause = _read(await agent.aget_state(_latest(config)), questions, tools)
    latest = _latest(config)

    def history() -> AsyncIterator[StateSnapshot]:
        return agent.aget_state_history(latest, limit=HISTORY)

    resolved = await _admit(
        pause,
        resume,
        store,
        policy=policy,
        history=history,
        tools=tools,
    )
    await agent.ainvoke(_command(pause, resolved), _pinned(config, pause))
    after = _read(await agent.aget_state(_latest(config)), questions, tools)
    return resolved, after if after.reviews else None


def resume(  # noqa: PLR0913 - keyword-only options
    agent: Agent,
    config: RunnableConfig,
    resume: Resume,
    store: Store,
    *,
    questions: Mapping[str, dict[str, JSON]] | None = None,
    policy: ResumePolicy | None = None,
) -> Pause | None:
    """Validate *resume* against the thread's pause, spend it, run the agent.

    The pause is read from the agent's latest checkpoint. The principal is
    authorized first; then decisions the call's review does not allow are
    refused, the rest is validated by `interruption.admit` (an edit's
    arguments against the tool's argument schema) and the pause is spent
    once in *store*. Only then are the middleware's decisions built, one per
    tool call id (an approval with other arguments is an ``edit``), and the
    agent runs from the checkpoint that was validated. Must not be called
    from a running event loop.

    Args:
        agent: The agent (``create_agent(...)`` with a checkpointer).
        config: Names the thread; passed on to the run.
        resume: What the client sent.
        store: Where spent pauses are marked.
        questions: Per tool name, the schema of a respond answer.
        policy: Authorization, the clock, partial resumes (``per_call``
            only: a batched review takes every decision at once).

    Returns:
        What the thread waits for next, or None when the run finished.

    Raises:
        ResumeRejected: with the core's codes; nothing ran and nothing was
            spent, except for ``consumed`` (spent already).
        DecodeError: as `pending`.
        EventLoopRunning: if called from a running event loop.
    """
    _, after = _resumed(
        agent,
        config,
        resume,
        store,
        questions=questions,
        policy=policy,
    )
    return after


async def aresume(  # noqa: PLR0913 - keyword-only options
    agent: Agent,
    config: RunnableConfig,
    resume: Resume,
    store: Store,
    *,
    questions: Mapping[str, dict[str, JSON]] | None = None,
    policy: ResumePolicy | None = None,
) -> Pause | None:
    """`resume`, running the agent asynchronously (``ainvoke``).

    Args:
        agent: The agent (``create_agent(...)`` with a checkpointer).
        config: Names the thread; passed on to the run.
        resume: What the client sent.
        store: Where spent pauses are marked.
        questions: Per tool name, the schema of a respond answer.
        policy: Authorization, the clock, partial resumes (``per_call``).

    Returns:
        What the thread waits for next, or None when the run finished.

    Raises:
        ResumeRejected: as `resume`.
        DecodeError: as `pending`.
    """
    _, after = await _aresumed(
        agent,
        config,
        resume,
        store,
        questions=questions,
        policy=policy,
    )
    return after


# -- answers in the middleware's own shape ------------------------------------


def _entry(
    pending: PendingInterrupt, decision: _hitl.Decision, path: str
) -> Respond | Restart:
    """One of the middleware's decisions, as an entry of a `Resume`."""
    match decision:
        case _hitl.Approve():
            return Restart(pending.name, pending.ref, "approve")
        case _hitl.Reject(message=message):
            reason = message or DEFAULT_REJECTION
            return Restart(pending.name, pending.ref, {"reject": {"reason": reason}})
        case _hitl.Respond(message=message):
            return Respond(pending.name, pending.ref, message)
        case _hitl.Edit(edited_action=action):  # pragma: no branch - closed union
            if action.name != pending.name:
                where = f"{path}.edited_action.name"
                raise _fail(where, repr(pending.name), action.name)
            # An edit is an approval of other arguments: `resume` takes it
            # where the review allows ``edit`` and they fit the tool's schema.
            return Restart(pending.name, pending.ref, "approve", input=action.args)


_Pair: TypeAlias = tuple[PendingInterrupt, _hitl.Decision, str]
"""A gated call, the decision for it, and where the decision sits."""


def _positions(
    review: Review, answer: JSON, path: str, problems: list[Problem]
) -> list[_Pair]:
    """Pair a batched answer's decisions with the review's calls, by position."""
    decisions = _hitl.decode(answer, _hitl.HITLResponse, path).decisions
    for extra in range(len(review.interrupts), len(decisions)):
        message = (
            f"decision {extra} of {review.id!r} has no call: the review "
            f"lists {len(review.interrupts)}"
        )
        problems.append(Problem(ProblemCode.UNKNOWN_INTERRUPT, message))
    return [
        (pending, decision, f"{path}.decisions[{index}]")
        for index, (pending, decision) in enumerate(
            zip(review.interrupts, decisions, strict=False)
        )
    ]


def from_decisions(pause: Pause, answers: Mapping[str, JSON]) -> Resume:
    """Turn a reviewer UI's answers, in the middleware's shape, into a `Resume`.

    Agent Chat UI and Agent Inbox answer a review by LangGraph interrupt
    id: a batched ``HITLRequest`` with ``{"decisions": [...]}`` matched by
    position, a per-call ``ToolApprovalRequest`` with one decision. The
    positions are read against *pause* (the authoritative one, from
    `pending`), so each decision becomes an entry keyed by its call's tool
    call id; `resume` then validates it like any other. An ``edit`` becomes
    an approval with its arguments as the new input (taken where the review
    allows ``edit`` and they fit the tool's argument schema, else refused);
    a reject without a message gets `DEFAULT_REJECTION`.

    Args:
        pause: What is pending, from `pending`.
        answers: Per LangGraph interrupt id, the UI's answer.

    Returns:
        The resume, one entry per decision.

    Raises:
        DecodeError: if an answer is not the middleware's shape, listing
            every problem with its path.
        ResumeRejected: ``unknown_interrupt`` for an interrupt id that is
            not pending, or a decision past the last gated call.
    """
    reviews = {review.id: review for review in pause.reviews}
    entries: list[Respond | Restart] = []
    problems: list[Problem] = []
    mismatches: list[Mismatch] = []
    for interrupt_id, answer in answers.items():
        path = child_path("$", interrupt_id)
        review = reviews.get(interrupt_id)
        if review is None:
            message = f"no pending review has interrupt id {interrupt_id!r}"
            problems.append(Problem(ProblemCode.UNKNOWN_INTERRUPT, message))
            continue
        try:
            if pause.mode == "per_call":
                decision = _hitl.decision(answer, path)
                pairs = [(review.interrupts[0], decision, path)]
            else:
                pairs = _positions(review, answer, path, problems)
        except DecodeError as error:
            mismatches.extend(error.problems)
            continue
        for pair in pairs:
            try:
                entries.append(_entry(*pair))
            except DecodeError as error:
                mismatches.extend(error.problems)
    if mismatches:
        raise DecodeError(mismatches)
    if problems:
        raise ResumeRejected(problems)
    return Resume(
        respond=[entry for entry in entries if isinstance(entry, Respond)],
        restart=[entry for entry in entries if isinstance(entry, Restart)],
    )


# -- the bridge: every thread's reviews, for the inbox ------------------------


Threads: TypeAlias = Callable[[], Iterable[str] | Awaitable[Iterable[str]]]
"""Lists the thread ids that may hold a review, sync or async (LangGraph's
checkpointers cannot list threads cheaply: the app says where to look)."""


@final
@attrs.frozen(eq=False)
class AgentBridge:
    """The `Bridge` over an agent's threads (build it with `bridge`).

    A service, not a value: two bridges are equal only if they are one, and
    each hashes by identity (its *questions* are a dict).

    What is pending is what `apending` shows of each thread *threads*
    lists; an answer goes through `aresume` (authorize, refuse what the
    reviews forbid, validate against the checkpoint, spend once under the
    key every door spends the review under, audit, then run the agent).

    Attributes:
        agent: The agent (``create_agent(...)`` with a checkpointer).
        store: Where reviews are spent and the audit trail is kept.
        threads: Lists the thread ids to look in.
        policy: Authorization, partial resumes, the clock (its principal is
            each call's).
        questions: Per tool name, the schema of a respond answer.
        blocking: Whether the checkpointer is synchronous only (LangGraph's
            ``SqliteSaver``): then the agent's reads and runs go to a worker
            thread (`pending`, `resume`), else they run on the loop.
    """

    agent: Agent
    store: Store
    threads: Threads
    policy: ResumePolicy = attrs.field(factory=ResumePolicy)
    questions: Mapping[str, dict[str, JSON]] = attrs.field(factory=dict)
    blocking: bool = False

    @property
    def door(self) -> str:
        """``"langchain"``: the name its pauses carry, apart from a LangGraph bridge's.

        The door only routes (an inbox mounts a LangGraph bridge and this one
        side by side). A review lives in a LangGraph checkpoint and is spent
        under the LangGraph adapter's key for its interrupt (`Pause.keys`),
        whichever adapter or bridge answers it.
        """
        return "langchain"

    async def _state(self, thread: str) -> StateSnapshot:
        config = _latest({"configurable": {"thread_id": thread}})
        if self.blocking:
            return await asyncio.to_thread(self.agent.get_state, config)
        return await self.agent.aget_state(config)

    async def _history(self, thread: str) -> list[StateSnapshot]:
        config: RunnableConfig = {"configurable": {"thread_id": thread}}
        if self.blocking:
            return await asyncio.to_thread(
                lambda: list(self.agent.get_state_history(config, limit=HISTORY))
            )
        history = self.agent.aget_state_history(config, limit=HISTORY)
        return [snapshot async for snapshot in history]

    def _as(self, principal: str | None) -> ResumePolicy:
        return attrs.evolve(self.policy, principal=principal)

    async def _pause(self, thread: str, policy: ResumePolicy) -> PendingPause | None:
        snapshot = await self._state(thread)
        pause = _read(snapshot, self.questions, _tools(self.agent))
        created = snapshot.created_at
        at = None if created is None else datetime.fromisoformat(created)
        # Every review the checkpoint shows, answered or not: the principal
        # is authorized against all of it before anything is read or filed.
        paused = (
            _bridged.Paused(thread, pause.thread_id, pause.interrupts, pause.keys, at)
            if pause.reviews
            else None
        )
        return await _bridged.shown(self.door, self.store, policy, paused)

    async def pending(self, *, principal: str | None = None) -> list[PendingPause]:
        """Every thread's review *principal* may answer, newest first.

        Args:
            principal: Who asks; the policy's authorizer must allow them for
                every gated call of a thread's pause, answered or not (a
                refused principal's listing files nothing).

        Returns:
            One `PendingPause` per thread with a review waiting (its scope
            the thread id), with the calls `apending` shows; a review
            answered through any door is not listed.

        Raises:
            DecodeError: as `pending`, for a thread whose checkpoint holds
                an interrupt that is not the middleware's.
        """
        threads = await listed(self.threads)
        policy = self._as(principal)
        return await newest_first(threads, lambda t: self._pause(t, policy))

    async def pause(
        self, scope: str, *, principal: str | None = None
    ) -> PendingPause | None:
        """Thread *scope*'s review, as `pending` lists it, or None.

        Args:
            scope: The thread id.
            principal: Who asks (as for `pending`).

        Returns:
            Its `PendingPause`, or None (no review waiting there, or a
            refused principal).

        Raises:
            DecodeError: as `pending`.
        """
        return await self._pause(scope, self._as(principal))

    async def answer(
        self, scope: str, resume: Resume, *, principal: str | None = None
    ) -> ResolvedResume:
        """Answer thread *scope*'s review through `aresume`; the agent runs on.

        Args:
            scope: The thread id.
            resume: The answers, one entry per gated call (by tool call id).
            principal: Who answers.

        Returns:
            What was accepted.

        Raises:
            ResumeRejected: as `aresume` (``consumed`` for a review answered
                through any door); nothing ran then.
            DecodeError: as `pending`.
        """
        config: RunnableConfig = {"configurable": {"thread_id": scope}}
        policy = self._as(principal)
        questions = self.questions
        if self.blocking:
            agent, store = self.agent, self.store
            resolved, _ = await asyncio.to_thread(
                lambda: _resumed(
                    agent,
                    config,
                    resume,
                    store,
                    questions=questions,
                    policy=policy,
                )
            )
        else:
            resolved, _ = await _aresumed(
                self.agent,
                config,
                resume,
                self.store,
                questions=questions,
                policy=policy,
            )
        return resolved

    async def _reviewed(self, thread: str) -> Pause | None:
        """The thread's latest review, answered or not, from its checkpoints."""
        tools = _tools(self.agent)
        for snapshot in await self._history(thread):
            try:
                pause = _read(snapshot, self.questions, tools)
            except DecodeError:
                continue  # another interrupt than the middleware's
            if pause.reviews:
                return pause
        return None

    async def audit(
        self, scope: str, *, principal: str | None = None
    ) -> tuple[AuditEvent, ...]:
        """Thread *scope*'s audit trail, every door's attempts included.

        Args:
            scope: The thread id.
            principal: Who asks; with an authorizer, they must be allowed
                for the thread's latest review, answered or not (else they
                see nothing).

        Returns:
            Its events, oldest first.
        """
        if self.policy.authorize is not None:
            latest = await self._reviewed(scope)
            if latest is None or not await _bridged.allowed(
                self._as(principal), latest.thread_id, latest.interrupts
            ):
                return ()
        return tuple(await self.store.audit(scope))


def bridge(  # noqa: PLR0913 - keyword-only options
    agent: Agent,
    store: Store,
    threads: Threads,
    *,
    authorize: Authorize | None = None,
    policy: ResumePolicy | None = None,
    questions: Mapping[str, dict[str, JSON]] | None = None,
    blocking: bool = False,
) -> AgentBridge:
    """The `Bridge` over *agent*'s threads: what the inbox lists and answers.

    Args:
        agent: The agent (``create_agent(...)`` with a checkpointer).
        store: Where `resume` spends reviews (the store every door of these
            threads uses: the LangGraph adapter's too).
        threads: Lists the thread ids that may hold a review (sync or async).
        authorize: Who may see and answer a review (`ResumePolicy.authorize`);
            None: the policy's.
        policy: Partial resumes (``per_call`` only), the clock; strict by
            default.
        questions: Per tool name, the schema of a respond answer.
        blocking: Whether the checkpointer is synchronous only (LangGraph's
            ``SqliteSaver``, ``PostgresSaver``): its reads and the run then
            go to a worker thread.

    Returns:
        An `AgentBridge`: door ``"langchain"``, scope a thread id.
    """
    chosen = policy or ResumePolicy()
    if authorize is not None:
        chosen = attrs.evolve(chosen, authorize=authorize)
    return AgentBridge(agent, store, threads, chosen, dict(questions or {}), blocking)
