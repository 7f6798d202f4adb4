"""The OpenAI Agents SDK adapter: tool approvals and questions, sealed.

The SDK pauses a run when a tool that ``needs_approval`` is called: the
`RunResult` lists ``interruptions`` (`ToolApprovalItem`), and the run goes
on with ``state = result.to_state(); state.approve(item)`` (or
``state.reject(item, rejection_message=...)``) and ``Runner.run(agent,
state)``. That channel trusts whoever holds the state: ``RunState.to_json``
is unauthenticated, an edited state runs edited arguments, and one approved
state resumed twice runs its tool twice.

This adapter puts the library's guarantees on that channel:

* `pause` turns a paused result into `PendingInterrupt`s (an approval is
  `ApprovalPending` with the call id, answered only by ``approve()`` /
  ``reject(reason)``; a `question_tool` call is `Custom`, answered by
  ``respond(answer)`` against its declared schema) and seals the serialized
  run state with a `Sealer`, for this adapter's audience only: the client
  holds only the token.
* `resume` opens the token (an edited, re-signed or foreign token is
  ``bad_token``, and so is a token minted for another channel, a core
  sealed turn included), rebuilds the run state from it, reads what is pending from
  that state (never from the client), validates the client's `Resume`
  against it and spends the pause once in a `Store` (`interruption.admit`),
  and only then applies the decisions with ``state.approve`` /
  ``state.reject`` and runs the agent on.

What the SDK's approval API says beyond a decision travels beside the
`Resume`, as a `DecisionOptions` record (decoded strictly with
`interruption.wire.structure`): a decision that *stands* for the tool's later
calls in this run (``approve(always_approve=True)``,
``reject(always_reject=True, rejection_message=...)``), and a rejection the
model sees in the words of the run's ``tool_error_formatter`` instead of its
reason (``reject`` without a ``rejection_message``). A standing decision is
a security decision: it covers only the one run (it lives in that run's
state, sealed in its next token; a new run pauses again), it is filed in the
audit trail (an ``accepted`` event naming the call, its reason saying what
stands), and it ends with the run.

Why sealed rather than stored: a `Sealer` keeps the server stateless, as the
SDK's own ``to_state`` flow is, and a `Store` is needed anyway only for the
small spent marks. The token is signed, not encrypted: its holder can read
the run state (its JSON, zlib-compressed: the conversation, tool arguments,
a mapping context), so keep secrets out of the run context or pass
``context=`` to `resume`.
"""

from __future__ import annotations

import base64
import binascii
import contextvars
import dataclasses
import hashlib
import json
import zlib
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final, NoReturn, TypeVar, cast, final

import attrs

from interruption import (
    JSON,
    Accepts,
    ApprovalPending,
    AuditEvent,
    Custom,
    DecodeError,
    FieldError,
    InterruptedTurn,
    InvalidArgument,
    Message,
    PayloadError,
    PendingInterrupt,
    Problem,
    ProblemCode,
    Reject,
    Respond,
    Restart,
    Resume,
    ResumeRejected,
    Role,
    Text,
    ToolRequest,
)
from interruption.adapters import _bridged
from interruption.resume import APPROVAL_ONLY
from interruption.runtime.admission import (
    ADAPTER_TURN,
    admit,
    pause_key,
    refuse,
    unspent,
)
from interruption.runtime.approval import Approve, decision_from_json
from interruption.runtime.bridge import Bridge
from interruption.runtime.loop import run_sync
from interruption.validation import ResolvedResume, ResumePolicy, utc_now
from interruption.wire import MAX_BYTES

try:
    from agents import (
        Agent,
        FunctionTool,
        RunConfig,
        Runner,
        RunResult,
        RunResultStreaming,
        RunState,
    )
    from agents.items import ToolApprovalItem
    from agents.run_context import RunContextWrapper
    from agents.tool_context import ToolContext
except ImportError as error:  # pragma: no cover - exercised in a subprocess
    _MISSING = (
        "interruption.adapters.openai_agents needs the [openai-agents] extra: "
        "pip install 'interruption[openai-agents]'"
    )
    raise ImportError(_MISSING) from error

if TYPE_CHECKING:
    from interruption.runtime.sealing import Sealer
    from interruption.runtime.store import Store

__all__ = [
    "AUDIENCE",
    "DecisionOptions",
    "PausedRun",
    "QuestionTool",
    "bridge",
    "pause",
    "pending",
    "question_tool",
    "resume",
    "resume_sync",
]

TContext = TypeVar("TContext")

AUDIENCE: Final = "interruption.adapters.openai_agents"
"""The ``aud`` of this adapter's tokens: they open in `resume` only.

A run state is spent under its own key here (`pause_key` of the session
and the state's digest); `Sealer.redeem` spends a sealed turn under
another. Bound to this channel, a token cannot be answered once through
each door.
"""

_DOOR: Final = "openai_agents"
"""The framework this adapter's spend keys and bridge name (`pause_key`)."""

_MARK: Final = "openai-agents run state"
"""The first part of a sealed turn's one message: the state follows as JSON
text (tokens sealed before the state was packed; still opened)."""

_PACKED: Final = "openai-agents run state, zlib"
"""The first part of a sealed turn's one message: the state follows as its
JSON text's zlib stream, in base64 (`_pack`)."""

_LEVEL: Final = 1
"""zlib's fastest level: a run state's JSON shrinks about threefold."""

_ANSWERS: contextvars.ContextVar[Mapping[str, JSON]] = contextvars.ContextVar(
    "interruption_openai_agents_answers"
)
"""Validated answers to question calls, by call id, while `resume` runs."""


def _reject(message: str) -> NoReturn:
    raise ResumeRejected.of(ProblemCode.BAD_TOKEN, message)


@final
@attrs.frozen
class PausedRun:
    """A paused run, sealed: what a stateless server hands its client.

    Attributes:
        token: The signed run state; the client sends it back with its
            `Resume`, and nothing else of the run.
        interrupts: What is pending, with the answers each accepts.
        session: The conversation the run belongs to.
    """

    token: str
    interrupts: tuple[PendingInterrupt, ...]
    session: str


def _ids(ids: Iterable[str]) -> tuple[str, ...]:
    """Call ids, as a tuple; a single string is refused (not a list of ids)."""
    if isinstance(ids, str) or not isinstance(ids, Iterable):
        raise FieldError("ids", "a list of call ids", _type_name(ids))
    return tuple(ids)


_EACH_ID: Final = attrs.validators.deep_iterable(attrs.validators.instance_of(str))


def _type_name(value: object) -> str:
    """*value*'s type, for a message."""
    return type(value).__name__


@final
@attrs.frozen
class DecisionOptions:
    """What the SDK's approval API says beyond a decision, per paused call.

    Sent beside a `Resume` (the client's JSON decoded with
    ``interruption.wire.structure(data, DecisionOptions)``) and checked
    against it before anything is spent: each id must be an approval of
    the pause that the resume decides (``unknown_interrupt`` otherwise), and
    a ``formatted`` id must be rejected there (``answer_not_accepted``).

    Attributes:
        always: Call ids whose decision stands for their tool's later calls
            in this run (the SDK's ``always_approve`` / ``always_reject``;
            a standing rejection tells the model its reason each time). It
            covers this run only, is filed in the audit trail, and ends
            with the run.
        formatted: Call ids whose rejection the model sees in the words of
            the run's ``tool_error_formatter`` (or the SDK's default), not
            in its reason: the SDK's ``reject`` without a
            ``rejection_message``. The reason stays in the record.
    """

    always: tuple[str, ...] = attrs.field(
        default=(), converter=_ids, validator=_EACH_ID
    )
    formatted: tuple[str, ...] = attrs.field(
        default=(), converter=_ids, validator=_EACH_ID
    )


async def _no_answer(context: ToolContext[Any], arguments: str) -> str:
    del arguments
    answers = _ANSWERS.get({})
    if context.tool_call_id not in answers:
        # Approved outside `resume`: there is no validated answer to give.
        msg = f"no validated answer for question call {context.tool_call_id!r}"
        raise LookupError(msg)
    answer = answers[context.tool_call_id]
    return answer if isinstance(answer, str) else json.dumps(answer)


@dataclasses.dataclass
class QuestionTool(FunctionTool):
    """A tool that asks the user: it always pauses, and a client answers it.

    Make one with `question_tool`. The SDK pauses its call like any
    ``needs_approval`` tool; `pause` shows it as a `Custom` interrupt that
    accepts ``respond(answer)`` against `answer_schema`, and `resume` lets
    the call run only to return that validated answer to the model (a string
    as it is, other JSON as its text).

    Attributes:
        answer_schema: The JSON Schema an answer must fit.
    """

    answer_schema: dict[str, JSON] = dataclasses.field(
        default_factory=dict, kw_only=True
    )


def question_tool(
    name: str,
    description: str,
    *,
    input_schema: Mapping[str, JSON],
    answer_schema: Mapping[str, JSON],
) -> QuestionTool:
    """Make a tool the model calls to ask the user something.

    Args:
        name: The tool's name, as the model sees it.
        description: What it is for, as the model sees it.
        input_schema: The JSON Schema of the model's arguments (an object).
        answer_schema: The JSON Schema an answer must fit.

    Returns:
        A `QuestionTool` to put in an agent's ``tools``.

    Raises:
        ValueError: if either schema is not one this library runs
            (a `SchemaError`).
    """
    _runnable(dict(input_schema))
    _runnable(dict(answer_schema))
    return QuestionTool(
        name=name,
        description=description,
        params_json_schema=dict(input_schema),
        on_invoke_tool=_no_answer,
        strict_json_schema=False,
        needs_approval=True,
        answer_schema=dict(answer_schema),
    )


def _runnable(schema: dict[str, JSON]) -> None:
    """Make sure *schema* can be run, as a resume would run it.

    Raises:
        SchemaError: if it is not one this library runs (a `ValueError`).
    """
    probe = PendingInterrupt("probe", Custom(), None, None, Accepts(respond=schema))
    probe.problems_with(Respond(probe.name, probe.ref, None))


def _no_constant(name: str) -> NoReturn:
    raise ValueError(name)  # NaN and Infinity are not JSON


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        raise ValueError(pairs)  # a key written twice: which one is meant?
    return value


def _arguments(item: ToolApprovalItem) -> JSON:
    """The call's arguments as JSON; the raw text when they are not JSON.

    Not JSON: not parsed by the standard library, a key written twice,
    ``NaN`` or ``Infinity``, more than `MAX_BYTES`, or a value the library
    does not hold for JSON (nested too deep, an integer out of range).
    """
    text = item.arguments
    if text is None:
        return None
    try:
        if len(text.encode()) > MAX_BYTES:
            return text
        value = json.loads(
            text, parse_constant=_no_constant, object_pairs_hook=_no_duplicates
        )
        ToolRequest(item.name or "?", None, value)  # the records' JSON check
    except (ValueError, RecursionError, PayloadError, DecodeError):
        return text  # shown as the model wrote it, never as a guess
    return cast("JSON", value)


def _question(item: ToolApprovalItem) -> QuestionTool | None:
    agent = item.agent
    for tool in getattr(agent, "tools", ()):
        if isinstance(tool, QuestionTool) and tool.name == item.name:
            return tool
    return None


def _interrupt(item: ToolApprovalItem) -> PendingInterrupt:
    name, call_id = item.name, item.call_id
    if not name or not call_id:
        expected = "a tool call with a name and a call id"
        raise InvalidArgument("interruptions", expected, repr(item.raw_item))
    request = ToolRequest(name, call_id, _arguments(item))
    question = _question(item)
    if question is not None:
        return PendingInterrupt(
            id=call_id,
            kind=Custom(),
            payload=request.input,
            tool=request,
            accepts=Accepts(respond=question.answer_schema),
        )
    return PendingInterrupt(
        id=call_id,
        kind=ApprovalPending(call_id),
        payload={"tool": name, "input": request.input},
        tool=request,
        accepts=APPROVAL_ONLY,
    )


def _interrupts(items: Sequence[ToolApprovalItem]) -> tuple[PendingInterrupt, ...]:
    interrupts = tuple(_interrupt(item) for item in items)
    keys = [(each.name, each.ref) for each in interrupts]
    if len(set(keys)) != len(keys):
        raise InvalidArgument("interruptions", "distinct tool calls", str(keys))
    return interrupts


def pending(result: RunResult | RunResultStreaming) -> tuple[PendingInterrupt, ...]:
    """What a paused run waits for, as the client sees it.

    Args:
        result: A run that stopped with ``interruptions``.

    Returns:
        One `PendingInterrupt` per interruption, in the SDK's order.

    Raises:
        InvalidArgument: if an interruption has no tool name or call id, or
            two share one (a `ValueError`).
    """
    return _interrupts(result.interruptions)


def _serialized(state: RunState[Any, Any]) -> tuple[str, int]:
    """The state's JSON text, and its turn (the SDK's count of model calls)."""
    data = state.to_json()
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text, max(1, int(data["current_turn"]))


async def _keys(
    store: Store, session: str, state_text: str, interrupts: Sequence[PendingInterrupt]
) -> dict[str, str]:
    """Each interrupt's spend key: one for the pause, whichever door answers it.

    A pause is its conversation and the digest of its run state, spent
    whole under `pause_key` of both. A release before this one spent it
    under a key of its own (`_old_key`): a pause spent there is named by
    that key, so that it stays spent (``consumed``, and listed nowhere).
    Only the new key is ever spent here.
    """
    state = hashlib.sha256(state_text.encode()).hexdigest()
    old = _old_key(session, state)
    try:
        spent_before = bool(await store.spent([old]))
    except InvalidArgument:  # too long for a store: no release could spend it
        spent_before = False
    chosen = old if spent_before else pause_key(_DOOR, session, state)
    return dict.fromkeys((pending.id for pending in interrupts), chosen)


def _old_key(session: str, state: str) -> str:
    """The key releases before `pause_key` spent a pause under.

    Its marks are kept until the token expires (for ever for a token
    without ``exp``), and a token opens only until then: drop it once no
    token sealed by such a release can open.
    """
    return json.dumps([_DOOR, session, state])


def pause(
    result: RunResult | RunResultStreaming,
    sealer: Sealer,
    *,
    session: str,
    now: datetime | None = None,
) -> PausedRun:
    """Seal a paused run: a token for the client, and what is pending.

    Args:
        result: A run that stopped with ``interruptions``.
        sealer: Signs the run state (its keys stay on the server), for
            `AUDIENCE`: the token resumes through `resume` only.
        session: The conversation; `resume` must name it again. A pause is
            spent once per (session, run state), however often it is sealed.
        now: The sealing time (default: the clock), timezone-aware.

    Returns:
        The token and the pending interrupts.

    Raises:
        InvalidArgument: if the run did not pause, an interruption has no
            tool name or call id, two share one, or the token would exceed
            the sealer's size limit (a `ValueError`).
        agents.exceptions.UserError: if the SDK cannot serialize the state.
    """
    if not result.interruptions:
        expected = "a run paused with interruptions"
        raise InvalidArgument("result", expected, "a finished one")
    interrupts = pending(result)
    text, turn_id = _serialized(result.to_state())
    turn = InterruptedTurn(
        session=session,
        turn_id=turn_id,
        messages=(Message(Role.SYSTEM, (Text(_PACKED), Text(_pack(text)))),),
        interrupts=interrupts,
        completed=(),
        created_at=now if now is not None else utc_now(),
    )
    token = sealer.seal(turn, now=now, audience=AUDIENCE)
    return PausedRun(token, interrupts, session)


def _pack(text: str) -> str:
    """The run state's JSON *text*, compressed: a token a third the size.

    A token is signed, encoded and checked character by character when it
    is sealed and opened (the signature's encoding, the claims' JSON): the
    run state is most of it, and its JSON compresses well.
    """
    return base64.b64encode(zlib.compress(text.encode(), _LEVEL)).decode("ascii")


def _unpack(packed: str, limit: int) -> str:
    """The JSON text `_pack` compressed, at most *limit* bytes of it.

    Only a token whose signature verified is unpacked; *limit* still bounds
    what it inflates to (the sealer's token limit, which bounded the state
    before it was packed).

    Raises:
        ResumeRejected: ``bad_token`` if it is not such a text.
    """
    inflate = zlib.decompressobj()
    try:
        raw = inflate.decompress(base64.b64decode(packed, validate=True), limit + 1)
        if len(raw) > limit or not inflate.eof or inflate.unused_data:
            _reject(f"token: expected a run state of at most {limit} bytes, got more")
        return raw.decode()
    except (binascii.Error, zlib.error, UnicodeDecodeError) as error:
        _reject(f"token: expected a packed run state, got {error}")


def _sealed_state(turn: InterruptedTurn, limit: int) -> str:
    match turn.messages:
        case (Message(role=Role.SYSTEM, parts=(Text(text=mark), Text(text=text))),):
            if mark == _PACKED:
                return _unpack(text, limit)
            if mark == _MARK:
                return text
    _reject("token: expected a sealed OpenAI Agents run, got another turn")


async def _restore(
    agent: Agent[Any],
    text: str,
    context: Mapping[str, object] | RunContextWrapper[Any] | None,
) -> RunState[Any, Agent[Any]]:
    if isinstance(context, RunContextWrapper):
        # The SDK restores the run's decisions into the wrapper it is given:
        # a fresh one keeps them (standing ones too) in this run alone, never
        # in an object the caller may hand to another run.
        context = RunContextWrapper(context=context.context)
    try:
        return await RunState.from_string(agent, text, context_override=context)
    except Exception as error:  # noqa: BLE001 - any refusal of the SDK's is one answer
        _reject(f"token: expected a run state this agent restores, got {error}")


def _option_problems(
    options: DecisionOptions,
    answer: Resume,
    interrupts: Sequence[PendingInterrupt],
) -> list[Problem]:
    """What of *options* the resume does not back: see `DecisionOptions`."""
    approvals = {p.ref: p for p in interrupts if isinstance(p.kind, ApprovalPending)}
    decided: dict[str, Restart] = {}
    for restart in answer.restart:
        pending = approvals.get(restart.ref)
        if pending is not None and restart.name == pending.name:
            decided.setdefault(restart.ref, restart)
    problems: list[Problem] = []
    for field, ids in (("always", options.always), ("formatted", options.formatted)):
        for ref in ids:
            pending = approvals.get(ref)
            entry = decided.get(ref)
            if pending is None or entry is None:
                message = (
                    f"options.{field}: expected the call id of an approval this "
                    f"resume decides, got {ref!r}"
                )
                problems.append(Problem(ProblemCode.UNKNOWN_INTERRUPT, message))
                continue
            if field == "formatted" and not _rejects(entry):
                message = (
                    f"options.formatted: expected a rejection of {ref!r}, got "
                    "another answer (only a rejection is worded by the formatter)"
                )
                problems.append(
                    Problem(
                        ProblemCode.ANSWER_NOT_ACCEPTED,
                        message,
                        interrupt_id=pending.id,
                    )
                )
    return problems


def _rejects(entry: Restart) -> bool:
    try:
        return isinstance(decision_from_json(entry.resumed), Reject)
    except DecodeError:
        return False  # not a decision: validation refuses it, with its path


def _standing(
    answer: Resume,
    interrupts: Sequence[PendingInterrupt],
    options: DecisionOptions,
    *,
    session: str,
    policy: ResumePolicy,
) -> tuple[AuditEvent, ...]:
    """The audit events of *options*' standing decisions, if *answer* is admitted.

    Written by `admit` in the spend's own transaction, so a decision stands
    in the trail exactly when the answer that makes it was accepted.
    """
    by_ref = {pending.ref: pending for pending in interrupts}
    events = []
    for entry in answer.restart:
        pending = by_ref.get(entry.ref)
        if pending is None or entry.ref not in options.always:
            continue
        verb = "rejection" if _rejects(entry) else "approval"
        reason = (
            f"standing {verb} of {entry.name!r} (from call {entry.ref!r}) "
            "for the rest of this run"
        )
        events.append(
            AuditEvent(
                session,
                ADAPTER_TURN,
                "accepted",
                policy.now(),
                principal=policy.principal,
                pending=(pending.id,),
                reason=reason,
            )
        )
    return tuple(events)


def _apply(
    state: RunState[Any, Any],
    items: Sequence[ToolApprovalItem],
    resolved: ResolvedResume,
    options: DecisionOptions,
) -> dict[str, JSON]:
    """Apply the validated decisions to *state*; the questions' answers."""
    by_call = {item.call_id: item for item in items}
    answers: dict[str, JSON] = {}
    for each in resolved.answers:
        ref = each.interrupt.ref
        item = by_call[ref]
        always = ref in options.always
        match each.entry:
            case Respond(output=output):
                answers[ref] = output
                state.approve(item)
            case entry:
                decision = decision_from_json(entry.resumed)
                if isinstance(decision, Approve):
                    state.approve(item, always_approve=always)
                else:
                    message = None if ref in options.formatted else decision.reason
                    state.reject(item, always_reject=always, rejection_message=message)
    return answers


async def resume(  # noqa: PLR0913 - keyword-only options
    agent: Agent[TContext],
    token: str,
    answer: Resume,
    sealer: Sealer,
    store: Store,
    *,
    session: str,
    policy: ResumePolicy | None = None,
    context: Mapping[str, object] | RunContextWrapper[TContext] | None = None,
    run_config: RunConfig | None = None,
    options: DecisionOptions | None = None,
) -> RunResult:
    """Answer a sealed pause through the SDK's own channel, once.

    The token is opened and must carry a run of *session*; the run state is
    restored from it and what is pending is read from that state. The
    client's *answer* (and *options*) is authorized and validated against
    it, the pause is spent in *store* (`interruption.admit`), each standing
    decision is filed in the audit trail, and only then are the decisions
    applied (``state.approve``, ``state.reject`` with the reason as the
    message the model sees unless the formatter words it, a question call
    approved to return its answer) and the agent run on.

    Args:
        agent: The run's starting agent, built as when it paused.
        token: `PausedRun.token`, as the client sent it back.
        answer: The client's answers.
        sealer: The sealer that made the token.
        store: Where spent pauses are marked (shared by every process).
        session: The conversation the caller serves.
        policy: Partial resumes, the clock, authorization; strict by default.
        context: Replaces the run context kept in the token (the SDK's
            ``context_override``), e.g. server objects rebuilt per request.
            A `RunContextWrapper` is unwrapped into a fresh one, so the
            run's decisions (standing ones included) never reach the
            caller's object, or another run through it.
        run_config: Passed to ``Runner.run`` (its ``tool_error_formatter``
            words the rejections in ``options.formatted``).
        options: Standing decisions and formatter-worded rejections
            (`DecisionOptions`); None for neither.

    Returns:
        The continued run; it may have paused again (`pause` it).

    Raises:
        ResumeRejected: ``bad_token`` or ``expired`` for a token that does
            not verify, was minted for another channel (`AUDIENCE`: a core
            sealed turn's token is refused), belongs to another session or
            does not restore with *agent* (with an authorizer,
            ``not_authorized`` to every principal instead: it is asked
            first, and no pause opened to allow; the attempt is filed in
            *session*'s trail); every problem of *answer*, or of
            *options* (``unknown_interrupt``, ``answer_not_accepted``);
            ``consumed`` for a pause already resumed. Nothing ran and
            nothing was spent then, except for ``consumed``.
        Exception: whatever ``Runner.run`` raises (a model's or a tool's
            failure, ``MaxTurnsExceeded``) propagates; the pause is spent by
            then, so a failed continuation is not resumed again.
    """
    policy = policy or ResumePolicy()
    sealed = _Sealed(token, sealer, session, context)
    _, result = await _resume(
        agent, sealed, answer, store, policy, options or DecisionOptions(), run_config
    )
    return result


@attrs.frozen
class _Sealed:
    """A sealed pause as `resume` is given it: the token and how to open it."""

    token: str
    sealer: Sealer
    session: str
    context: Mapping[str, object] | RunContextWrapper[Any] | None


@attrs.frozen
class _Opened:
    """A sealed pause, opened: the run state and what is pending in it."""

    expires_at: datetime | None
    created_at: datetime
    state: RunState[Any, Agent[Any]]
    items: Sequence[ToolApprovalItem]
    interrupts: tuple[PendingInterrupt, ...]
    keys: dict[str, str]


async def _open(
    agent: Agent[Any], sealed: _Sealed, store: Store, now: datetime
) -> _Opened:
    """Open *sealed* and restore its run state; what is pending is the state's.

    Its spend keys are read from *store* (`_keys`).

    Raises:
        ResumeRejected: ``bad_token`` or ``expired``, as `resume` says.
    """
    opened = sealed.sealer.open_with_claims(sealed.token, now=now, audience=AUDIENCE)
    turn, session = opened.turn, sealed.session
    if turn.session != session:
        _reject(
            f"token: expected a run of session {session!r}, got one sealed for "
            f"{turn.session!r}"
        )
    text = _sealed_state(turn, sealed.sealer.max_token_chars)
    state = await _restore(agent, text, sealed.context)
    items = state.get_interruptions()
    interrupts = _checked(items, turn)
    keys = await _keys(store, session, text, interrupts)
    return _Opened(opened.expires_at, turn.created_at, state, items, interrupts, keys)


async def _resume(  # noqa: PLR0913, PLR0917 - resume's arguments, passed along
    agent: Agent[Any],
    sealed: _Sealed,
    answer: Resume,
    store: Store,
    policy: ResumePolicy,
    options: DecisionOptions,
    run_config: RunConfig | None,
) -> tuple[ResolvedResume, RunResult]:
    """`resume`'s one path: what was accepted, and the run it continued."""
    session = sealed.session
    try:
        opened = await _open(agent, sealed, store, policy.now())
    except ResumeRejected as unopened:  # no pause opens: the authorizer decides
        raise _bridged.absent(unopened, policy) from None
    interrupts, keys = opened.interrupts, opened.keys
    problems = _option_problems(options, answer, interrupts)
    # A replay is `consumed` whatever its options: admit says so.
    if problems and await unspent(interrupts, keys, store):
        rejected = ResumeRejected(problems)
        raise await refuse(
            rejected, answer, store, session=session, policy=policy, shown=interrupts
        )
    resolved = await admit(
        answer,
        interrupts,
        store,
        session=session,
        keys=keys,
        policy=policy,
        # Kept for ever: sealing the same run state again mints a token that
        # opens later than the one answered, and must still find it spent.
        keep_until=None,
        events=_standing(answer, interrupts, options, session=session, policy=policy),
    )
    answers = _apply(opened.state, opened.items, resolved, options)
    bound = _ANSWERS.set(answers)
    try:
        result: RunResult = await Runner.run(agent, opened.state, run_config=run_config)
    finally:
        _ANSWERS.reset(bound)
    return resolved, result


def _checked(
    items: Sequence[ToolApprovalItem], turn: InterruptedTurn
) -> tuple[PendingInterrupt, ...]:
    interrupts = _interrupts(items)  # pause() refused any state it would refuse
    if interrupts != turn.interrupts:
        _reject(
            "token: expected the sealed interrupts to be the run state's, got others"
        )
    return interrupts


def resume_sync(  # noqa: PLR0913 - keyword-only options
    agent: Agent[TContext],
    token: str,
    answer: Resume,
    sealer: Sealer,
    store: Store,
    *,
    session: str,
    policy: ResumePolicy | None = None,
    context: Mapping[str, object] | RunContextWrapper[TContext] | None = None,
    run_config: RunConfig | None = None,
    options: DecisionOptions | None = None,
) -> RunResult:
    """`resume`, for synchronous code (runs its own event loop).

    Args:
        agent: The run's starting agent, built as when it paused.
        token: `PausedRun.token`, as the client sent it back.
        answer: The client's answers.
        sealer: The sealer that made the token.
        store: Where spent pauses are marked.
        session: The conversation the caller serves.
        policy: Partial resumes, the clock, authorization.
        context: Replaces the run context kept in the token.
        run_config: Passed to ``Runner.run``.
        options: Standing decisions and formatter-worded rejections.

    Returns:
        The continued run.

    Raises:
        ResumeRejected: as `resume`.
        EventLoopRunning: if called while an event loop runs in this thread.
    """
    return run_sync(
        resume(
            agent,
            token,
            answer,
            sealer,
            store,
            session=session,
            policy=policy,
            context=context,
            run_config=run_config,
            options=options,
        )
    )


def bridge(  # noqa: PLR0913 - keyword-only options
    agent: Agent[TContext],
    sealer: Sealer,
    store: Store,
    tokens: Callable[[], Mapping[str, str] | Awaitable[Mapping[str, str]]],
    *,
    policy: ResumePolicy | None = None,
    context: Mapping[str, object] | RunContextWrapper[TContext] | None = None,
    run_config: RunConfig | None = None,
    continued: Callable[[str, RunResult], Awaitable[None] | None] | None = None,
) -> Bridge:
    """The `Bridge` to the sealed pauses of *agent*'s runs (`pause`).

    A sealed pause lives in its token, which only the application holds, so
    *tokens* lists them: each session's latest `PausedRun.token`, by
    session (the bridge's ``scope``, and the session its audit trail is
    filed under). Each token is opened and its run state restored as
    `resume` does, and what is pending is read from that state; what is
    spent (through this bridge or `resume`: one key) is not listed, and a
    token that no longer opens (expired, or sealed with a key the sealer
    dropped) is skipped: answering it says why. A pause is dated by when it
    was sealed. `Bridge.answer` is `resume` (the same checks, spend and
    audit trail; no `DecisionOptions`), and hands the continued run to
    *continued*: it may have paused again (`pause` it, and list its new
    token for the session).

    Args:
        agent: The run's starting agent, built as when it paused.
        sealer: The sealer that made the tokens.
        store: Where spent pauses are marked (shared by every process).
        tokens: Each session's latest token (sync or async).
        policy: Partial resumes, the clock and the authorizer, for every
            call (its ``principal`` is each call's).
        context: Replaces the run context kept in the tokens (`resume`'s
            ``context``).
        run_config: Passed to ``Runner.run``.
        continued: Called with the scope and the continued run (sync or
            async), after each accepted answer.

    Returns:
        A `Bridge` whose door is ``"openai_agents"``.
    """

    async def sealed(session: str) -> _Sealed | None:
        token = (await _bridged.listed(tokens)).get(session)
        return None if token is None else _Sealed(token, sealer, session, context)

    async def read(found: _Sealed, now: datetime) -> _bridged.Paused | None:
        try:
            opened = await _open(agent, found, store, now)
        except ResumeRejected:  # expired, or a key the sealer dropped
            return None
        return _bridged.Paused(
            found.session,
            found.session,
            opened.interrupts,
            opened.keys,
            opened.created_at,
        )

    async def one(session: str) -> _bridged.Paused | None:
        found = await sealed(session)
        return None if found is None else await read(found, base.now())

    async def every() -> list[_bridged.Paused]:
        listed = await _bridged.listed(tokens)
        now = base.now()
        found = [
            await read(_Sealed(token, sealer, session, context), now)
            for session, token in listed.items()
        ]
        return [paused for paused in found if paused is not None]

    async def answering(
        session: str, answer: Resume, policy: ResumePolicy
    ) -> ResolvedResume:
        found = await sealed(session)
        if found is None:
            unknown = _bridged.unknown("OpenAI Agents run", session)
            raise _bridged.absent(unknown, policy)
        options = DecisionOptions()
        resolved, result = await _resume(
            agent, found, answer, store, policy, options, run_config
        )
        if continued is not None:
            await _bridged.listed(lambda: continued(session, result))
        return resolved

    base = policy or ResumePolicy()
    return _bridged.Bridged(_DOOR, store, base, every, one, answering)
