"""pydantic-ai: deferred tool calls as typed pauses, resumed once, validated.

pydantic-ai ends a run with `DeferredToolRequests` when a tool needs a
human's approval (``requires_approval=True`` or ``ApprovalRequired``) or is
deferred (``CallDeferred``); the next ``agent.run`` takes the message
history and a `DeferredToolResults`. On its own that channel trusts its
caller: a history replayed with the same approvals runs the tool again, a
made-up result for an approval call skips both the approval and the tool,
and arguments edited in the history are what runs.

This adapter closes each of those:

* `pause` keeps the paused run (its `Conversation`: messages and deferred
  requests, serialized by pydantic-ai's own ``ConversationTypeAdapter``)
  server-side in the `Store` (`Store.keep`), under a fresh id, and returns the
  interrupts a client sees. The client sends back only that id
  and a `Resume`, never history.
* `resume` loads the kept run, validates the resume against the interrupts
  derived from it and spends the id once in the same `Store`
  (`interruption.admit`), and only then builds `DeferredToolResults` (with
  pydantic-ai's own `DeferredToolRequests.build_results`) from the validated
  answers and runs the agent on the kept conversation.

An approval call is ``ApprovalPending(tool_call_id)``, answered only by
``pending.approve(note)`` / ``pending.reject(reason)``; a deferred call is
``Custom()``, answered by ``pending.respond(result)`` against the schema the
application declared for its tool (any JSON by default), or by
``failed(pending, message)``: pydantic-ai's own ``ToolFailed`` wire form
(`FAILED_SCHEMA`), which the model sees as a failed call. Both carry the
call as ``ToolRequest(tool_name, tool_call_id, args)`` and the payload
``{"tool": tool_name, "args": args}``, with ``"metadata"`` added when the
tool attached some (``ApprovalRequired(metadata=...)``,
``CallDeferred(metadata=...)``), so the person deciding sees it.

What an answer carries besides its decision reaches the tool as pydantic-ai
hands it over, ``ctx.tool_call_metadata``: an approval's note as
``{"note": note}``, with whatever the application adds for the call
(`resume`'s ``metadata``, checked to be JSON and bounded). `resume` also
takes a ``user_prompt`` sent alongside the results, as ``agent.run`` does.
"""

from __future__ import annotations

import dataclasses
import hashlib
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping
from datetime import datetime
from typing import Any, Final, TypeAlias, TypeVar, cast, final

import attrs

try:
    import pydantic
    from pydantic_ai import (
        DeferredToolRequests,
        DeferredToolResults,
        ToolApproved,
        ToolDenied,
        ToolFailed,
        ToolReturn,
    )
    from pydantic_ai._utils import run_until_complete
    from pydantic_ai.agent import AbstractAgent
    from pydantic_ai.conversation import Conversation, ConversationTypeAdapter
    from pydantic_ai.messages import ModelResponse, ToolCallPart
    from pydantic_ai.run import AgentRunResult
except ImportError as error:  # pragma: no cover - exercised in a subprocess
    _MISSING = (
        "interruption.adapters.pydantic_ai needs the [pydantic-ai] extra: "
        "pip install 'interruption[pydantic-ai]'"
    )
    raise ImportError(_MISSING) from error

from interruption import (
    JSON,
    Accepts,
    ApprovalPending,
    Custom,
    DecodeError,
    InvalidArgument,
    Mismatch,
    PayloadError,
    PendingInterrupt,
    Respond,
    Restart,
    Resume,
    ToolRequest,
    canonical,
)
from interruption.adapters import _bridged, _kept
from interruption.errors import ResumeRejected
from interruption.runtime.admission import admit, pause_key, refuse
from interruption.runtime.approval import DECISION_SCHEMA, Reject, decision_from_json
from interruption.runtime.bridge import Bridge
from interruption.runtime.loop import refuse_running_loop
from interruption.runtime.store import Store
from interruption.validation import ResolvedResume, ResumePolicy, not_authorized

__all__ = [
    "FAILED_SCHEMA",
    "MAX_METADATA_BYTES",
    "Metadata",
    "PausedRun",
    "bridge",
    "failed",
    "load_paused",
    "pause",
    "pause_sync",
    "resume",
    "resume_sync",
]

DepsT = TypeVar("DepsT")
OutputT = TypeVar("OutputT")
T = TypeVar("T")

JSONSchema: TypeAlias = dict[str, JSON]
"""A JSON Schema (Draft 2020-12), as a JSON object."""

ANY_JSON: Final[JSONSchema] = {}
"""The answer schema of a deferred call whose tool declared none."""

FAILED_SCHEMA: Final[JSONSchema] = {
    "title": "ToolFailed",
    "type": "object",
    "properties": {
        "kind": {"const": "tool-failed"},
        "message": {"type": "string", "minLength": 1},
    },
    "required": ["kind", "message"],
    "additionalProperties": False,
}
"""A deferred call's failed result: pydantic-ai's own ``ToolFailed`` wire form.

A deferred call accepts its answer schema or this one, never both: an
object whose ``kind`` is ``"tool-failed"`` must be a whole failure, and
reaches the model as one (``ToolFailed``), as pydantic-ai itself reads a
result whose ``kind`` is ``"tool-failed"``. Build one with `failed`.
"""

MAX_METADATA_BYTES: Final = 65_536
"""The most one call's `resume` ``metadata`` may take, as canonical JSON."""

_NOTE: Final = "note"
"""The key of an approval's note in the tool's ``ctx.tool_call_metadata``."""


@final
@attrs.frozen
class PausedRun:
    """A pydantic-ai run that paused, as the server hands it to a client.

    Attributes:
        id: The paused run's id: what the client sends back with its
            `Resume`; spent once.
        interrupts: One per deferred call, in pydantic-ai's order
            (approvals, then deferred calls).
        key: What a `Store` spends when it is resumed: the digest of the
            paused conversation itself, not of the id, so the same run kept
            twice (a retried `pause`) is still resumed once.
    """

    id: str
    interrupts: tuple[PendingInterrupt, ...]
    key: str


@attrs.frozen
class _Kept:
    """A paused run as read back from the store: the authoritative state."""

    conversation: Conversation
    requests: DeferredToolRequests
    interrupts: tuple[PendingInterrupt, ...]
    key: str

    @property
    def keys(self) -> dict[str, str]:
        """Each interrupt's spend key: the run's one key (`admit`'s ``keys``)."""
        return dict.fromkeys((p.id for p in self.interrupts), self.key)


def _run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run *coroutine* on the loop pydantic-ai's own ``run_sync`` drives.

    ``agent.run_sync`` keeps one event loop per thread; ``asyncio.run``
    would unset it, and mixing both in one thread would leak it. So the
    sync twins use pydantic-ai's driver, after refusing a running loop.
    """
    refuse_running_loop(coroutine)
    return run_until_complete(coroutine)


def failed(pending: PendingInterrupt, message: str) -> Respond:
    """Answer a deferred call with a failure the model sees (``ToolFailed``).

    Args:
        pending: A deferred call's interrupt (`Custom`).
        message: What the model is told went wrong; not empty.

    Returns:
        The entry for `Resume.respond`, checked against what *pending*
        accepts.

    Raises:
        ResumeRejected: if *pending* takes no result (an approval:
            ``answer_not_accepted``) or *message* is empty
            (``schema_violation``).
    """
    return pending.respond({"kind": "tool-failed", "message": message})


_NOT_FAILED: Final[JSONSchema] = {
    "not": {
        "type": "object",
        "required": ["kind"],
        "properties": {"kind": {"const": "tool-failed"}},
    }
}
"""Anything but an object whose ``kind`` is ``"tool-failed"``."""


def _accepted(answer: JSONSchema) -> JSONSchema:
    """What a deferred call accepts: its answer, or a failure, never both.

    An object whose ``kind`` is ``"tool-failed"`` is a failure, as pydantic-ai
    reads one, so it must be a whole one (`FAILED_SCHEMA`): it is never taken
    for the tool's own answer.
    """
    return {"anyOf": [{"allOf": [answer, _NOT_FAILED]}, FAILED_SCHEMA]}


def _runnable(schema: JSONSchema) -> None:
    """Make sure *schema* can be run, as a resume would run it.

    Raises:
        SchemaError: if it is not one this library runs (a `ValueError`).
    """
    probe = PendingInterrupt("probe", Custom(), None, None, Accepts(respond=schema))
    probe.problems_with(Respond(probe.name, probe.ref, None))


def _answer_schemas(answers: Mapping[str, JSONSchema] | None) -> dict[str, JSONSchema]:
    schemas = dict(answers or {})
    for schema in schemas.values():
        _runnable(schema)
    return schemas


def _call(
    part: ToolCallPart, metadata: Mapping[str, object]
) -> tuple[ToolRequest, JSON]:
    args = cast("JSON", part.args_as_dict())
    request = ToolRequest(part.tool_name, part.tool_call_id, args)
    payload: dict[str, JSON] = {"tool": part.tool_name, "args": args}
    if part.tool_call_id in metadata:
        # JSON already: read back from the kept record, which is JSON.
        payload["metadata"] = cast("JSON", metadata[part.tool_call_id])
    return request, payload


def _interrupts(
    requests: DeferredToolRequests, answers: Mapping[str, JSONSchema]
) -> tuple[PendingInterrupt, ...]:
    """What *requests* are waiting for, as a client sees it."""
    interrupts: list[PendingInterrupt] = []
    for part in requests.approvals:
        request, payload = _call(part, requests.metadata)
        kind = ApprovalPending(part.tool_call_id)
        accepts = Accepts(restart=DECISION_SCHEMA)
        interrupts.append(
            PendingInterrupt(part.tool_call_id, kind, payload, request, accepts)
        )
    for part in requests.calls:
        request, payload = _call(part, requests.metadata)
        accepts = Accepts(respond=_accepted(answers.get(part.tool_name, ANY_JSON)))
        interrupts.append(
            PendingInterrupt(part.tool_call_id, Custom(), payload, request, accepts)
        )
    return tuple(interrupts)


def _damaged(run_id: str, expected: str, got: str) -> DecodeError:
    return DecodeError([Mismatch(f"$[{run_id!r}]", expected, got)])


def _decode(run_id: str, record: bytes) -> _Kept:
    answers, body = _kept.decode_schemas(record)
    try:
        conversation = ConversationTypeAdapter.validate_json(body)
    except pydantic.ValidationError as error:
        expected = "a pydantic-ai Conversation"
        raise _damaged(run_id, expected, f"{error.error_count()} errors") from error
    requests = conversation.deferred_tool_requests
    if requests is None:
        expected = "a conversation paused on deferred tool calls"
        raise _damaged(run_id, expected, "none pending")
    key = pause_key("pydantic_ai", hashlib.sha256(body).hexdigest())
    return _Kept(conversation, requests, _interrupts(requests, answers), key)


async def pause(
    result: AgentRunResult[OutputT],
    store: Store,
    *,
    answer_schemas: Mapping[str, JSONSchema] | None = None,
    keep_until: datetime | None = None,
) -> PausedRun | None:
    """Keep a run that paused on deferred tool calls; say what is pending.

    The run's `Conversation` (messages, deferred requests, usage) is kept in
    *store* (`Store.keep`) under a fresh id, as bytes: nothing the caller
    still holds can change what a resume runs. The interrupts returned are
    derived from that record, exactly as a resume derives them.

    Args:
        result: What ``agent.run`` returned; it paused when its output is a
            `DeferredToolRequests` (the agent's ``output_type`` must allow
            one).
        store: Where the paused run is kept: the store `resume` spends it
            in, shared by every process that resumes.
        answer_schemas: The answer schema of each deferred (``CallDeferred``)
            tool, by tool name; a tool without one takes any JSON. Kept with
            the run, so a resume checks against what the client was shown.
        keep_until: Keep the run at least until then (`Store.expire`
            forgets it afterwards, and a resume of it is
            ``unknown_interrupt``); None keeps it for ever.

    Returns:
        The paused run (its id and interrupts), or None if the run finished.

    Raises:
        ValueError: if a schema in *answer_schemas* cannot be run
            (``SchemaError``).
    """
    requests = result.output
    if not isinstance(requests, DeferredToolRequests):
        return None
    schemas = _answer_schemas(answer_schemas)
    conversation = dataclasses.replace(
        result.conversation, deferred_tool_requests=requests
    )
    run_id = uuid.uuid4().hex
    record = _kept.encode(schemas, ConversationTypeAdapter.dump_json(conversation))
    kept = _decode(run_id, record)  # what the client sees is what resume checks
    await store.keep(_kept.key("pydantic_ai", run_id), record, keep_until)
    return PausedRun(run_id, kept.interrupts, kept.key)


def pause_sync(
    result: AgentRunResult[OutputT],
    store: Store,
    *,
    answer_schemas: Mapping[str, JSONSchema] | None = None,
    keep_until: datetime | None = None,
) -> PausedRun | None:
    """`pause` for callers without an event loop; same arguments.

    Returns:
        The paused run, or None if the run finished.

    Raises:
        ValueError: as `pause`.
        EventLoopRunning: if called from inside a running event loop.
    """
    return _run_sync(
        pause(result, store, answer_schemas=answer_schemas, keep_until=keep_until)
    )


async def _load(run_id: object, store: Store) -> _Kept:
    read = await _kept.read_back(store, "pydantic_ai", run_id, "pydantic-ai run")
    return _decode(*read)


async def load_paused(run_id: str, store: Store) -> PausedRun:
    """Read a paused run back from the store (in any process).

    It lists what was paused; whether it was already resumed is known to
    the `Store` only, and a resume of a spent run is ``consumed``.

    Args:
        run_id: A `PausedRun.id`.
        store: Where it was kept.

    Returns:
        The paused run, with the interrupts derived from the kept state.

    Raises:
        ResumeRejected: ``unknown_interrupt`` if no run has this id.
        DecodeError: if the kept record is damaged.
    """
    kept = await _load(run_id, store)
    return PausedRun(run_id, kept.interrupts, kept.key)


Metadata: TypeAlias = Mapping[str, Mapping[str, JSON]]
"""Per-call metadata for the tools, by tool call id (`resume`'s ``metadata``)."""


def _plain(value: object) -> JSON:
    """A plain copy of *value*, JSON (a frozen one too), sharing nothing with it.

    Objects become dicts and arrays lists; scalars are kept as they are
    (immutable), so numbers keep their type and value exactly.
    """
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return cast("JSON", value)


def _failure(output: JSON) -> str | None:
    """The message of a validated answer in `FAILED_SCHEMA`'s form, or None."""
    if isinstance(output, Mapping) and output.get("kind") == "tool-failed":
        return str(output["message"])  # validated: a non-empty string
    return None


def _checked_metadata(
    metadata: Metadata | None, kept: _Kept
) -> dict[str, dict[str, JSON]]:
    """The application's per-call metadata: for approvals, JSON, bounded.

    Raises:
        InvalidArgument: for a call id that is no approval of this run, a
            ``"note"`` key (an approval's note goes there), or a value over
            `MAX_METADATA_BYTES` (a `ValueError`).
        PayloadError: for a value that is not JSON (a `TypeError`).
    """
    approvals = {part.tool_call_id for part in kept.requests.approvals}
    checked: dict[str, dict[str, JSON]] = {}
    for ref, value in (metadata or {}).items():
        where = f"resume: metadata[{ref!r}]"
        if ref not in approvals:
            expected = (
                f"the id of an approval call of this run, one of {sorted(approvals)}"
            )
            raise InvalidArgument(where, expected, repr(ref))
        if _NOTE in value:
            expected = "no 'note' key: an approval's note is kept there"
            raise InvalidArgument(where, expected, "a 'note' key")
        size = len(canonical(dict(value)))
        if size > MAX_METADATA_BYTES:
            expected = f"at most {MAX_METADATA_BYTES} bytes of canonical JSON"
            raise InvalidArgument(where, expected, f"{size} bytes")
        checked[ref] = cast("dict[str, JSON]", _plain(value))
    return checked


def _results(
    requests: DeferredToolRequests,
    resolved: ResolvedResume,
    metadata: dict[str, dict[str, JSON]],
) -> DeferredToolResults:
    """Build pydantic-ai's results from validated answers only."""
    approvals: dict[str, ToolApproved | ToolDenied] = {}
    calls: dict[str, object] = {}
    for answer in resolved.answers:
        ref, entry = answer.interrupt.ref, answer.entry
        if isinstance(entry, Restart):  # only approvals accept a restart
            decision = decision_from_json(entry.resumed)
            if isinstance(decision, Reject):
                approvals[ref] = ToolDenied(decision.reason)
            else:
                approvals[ref] = ToolApproved()
                if decision.note is not None:
                    metadata[ref] = {**metadata.get(ref, {}), _NOTE: decision.note}
        elif (message := _failure(entry.output)) is not None:
            calls[ref] = ToolFailed(message)
        else:
            calls[ref] = ToolReturn(_plain(entry.output))  # pydantic-ai's own copy
    return requests.build_results(
        approvals=approvals, calls=calls, metadata=dict(metadata)
    )


@attrs.frozen
class _Options:
    """`resume`'s keyword options, declared once and passed along."""

    deps: object = None
    policy: ResumePolicy | None = None
    user_prompt: str | None = None
    metadata: Metadata | None = None


async def _resume(
    agent: AbstractAgent[DepsT, OutputT],
    run_id: str,
    answer: Resume,
    store: Store,
    options: _Options,
) -> tuple[ResolvedResume, AgentRunResult[OutputT]]:
    """`resume`'s one path: what was accepted, and the run it continued."""
    policy = options.policy
    if policy is not None and policy.allow_partial:
        expected = "False: pydantic-ai needs a result for every deferred call"
        raise InvalidArgument("resume: policy.allow_partial", expected, "True")
    try:
        kept = await _load(run_id, store)
    except ResumeRejected as rejected:  # nothing kept: the authorizer decides
        raise _bridged.absent(rejected, policy) from None
    session = kept.conversation.conversation_id
    try:
        metadata = _checked_metadata(options.metadata, kept)
    except (InvalidArgument, PayloadError):
        # Its words name this run's calls: a principal the authorizer
        # refuses is told only that it is refused, as admit would tell it.
        asking = policy or ResumePolicy()
        if not await _bridged.allowed(asking, session, kept.interrupts):
            # Filed as refused; nothing shown, so the authorizer is not
            # asked a second time.
            raise await refuse(
                not_authorized(asking.principal),
                answer,
                store,
                session=session,
                policy=policy,
            ) from None
        raise
    resolved = await admit(
        answer,
        kept.interrupts,
        store,
        session=session,
        keys=kept.keys,
        policy=policy,
    )
    results = _results(kept.requests, resolved, metadata)
    result = await agent.run(
        options.user_prompt,
        conversation=kept.conversation,
        deferred_tool_results=results,
        deps=cast("DepsT", options.deps),
    )
    return resolved, result


async def _continue(
    agent: AbstractAgent[DepsT, OutputT],
    run_id: str,
    answer: Resume,
    store: Store,
    options: _Options,
) -> AgentRunResult[OutputT]:
    """`_resume`, for `resume` and `resume_sync`: the continued run only."""
    _, result = await _resume(agent, run_id, answer, store, options)
    return result


async def resume(  # noqa: PLR0913 - keyword-only options
    agent: AbstractAgent[DepsT, OutputT],
    run_id: str,
    resume: Resume,
    store: Store,
    *,
    deps: DepsT | None = None,
    policy: ResumePolicy | None = None,
    user_prompt: str | None = None,
    metadata: Metadata | None = None,
) -> AgentRunResult[OutputT]:
    """Answer a paused run and continue it, at most once.

    The kept run is loaded from *store*, *resume* is authorized and
    validated against the interrupts derived from it, the run id is spent
    in *store* (`interruption.admit`), and only then is the agent run on the
    kept conversation with `DeferredToolResults` built from the validated
    answers (through pydantic-ai's `DeferredToolRequests.build_results`). An
    approval runs the call with the arguments it was paused with, its note
    (and *metadata*) in the tool's ``ctx.tool_call_metadata``; a rejection
    tells the model its reason (`ToolDenied`); a `failed` answer reaches the
    model as a failure (``ToolFailed``), any other answer as the call's
    result.

    Args:
        agent: The agent that paused (the same tools, in this process).
        run_id: The `PausedRun.id` the client answers.
        resume: The client's answers, one per interrupt.
        store: Where the run was kept (`pause`), and where it is spent.
        deps: The agent's dependencies for the continued run.
        policy: The clock and who may answer; partial resumes are refused
            (pydantic-ai needs a result for every deferred call).
        user_prompt: A new user message sent alongside the results
            (``agent.run``'s ``user_prompt``); None for none.
        metadata: The application's metadata for approval calls, by tool
            call id: what the tool reads as ``ctx.tool_call_metadata`` when
            it runs, beside the approval's ``"note"``. Each value must be
            JSON within `MAX_METADATA_BYTES`.

    Returns:
        The agent's result; it may pause again (`pause` it).

    Raises:
        ResumeRejected: listing every problem; nothing was spent or run.
            ``unknown_interrupt`` for an unknown run id (with an
            authorizer, ``not_authorized`` to every principal: it is asked
            first, and no run is there to allow; the attempt is filed under
            the id), ``consumed`` when the run was already resumed.
        DecodeError: if the kept record is damaged.
        InvalidArgument: if *policy* allows partial resumes, or *metadata*
            names a call that is no approval of this run, holds a
            ``"note"`` key or is too large (a `ValueError`); nothing was
            spent then.
        PayloadError: if *metadata* is not JSON (a `TypeError`).
    """
    options = _Options(deps, policy, user_prompt, metadata)
    return await _continue(agent, run_id, resume, store, options)


def resume_sync(  # noqa: PLR0913 - keyword-only options
    agent: AbstractAgent[DepsT, OutputT],
    run_id: str,
    resume: Resume,
    store: Store,
    *,
    deps: DepsT | None = None,
    policy: ResumePolicy | None = None,
    user_prompt: str | None = None,
    metadata: Metadata | None = None,
) -> AgentRunResult[OutputT]:
    """`resume` for callers without an event loop; same arguments.

    Returns:
        The agent's result; it may pause again.

    Raises:
        ResumeRejected: as `resume`.
        ValueError: as `resume`.
        PayloadError: as `resume`.
        EventLoopRunning: if called from inside a running event loop.
    """
    options = _Options(deps, policy, user_prompt, metadata)
    return _run_sync(_continue(agent, run_id, resume, store, options))


def _paused_at(conversation: Conversation) -> datetime | None:
    """When the model asked for the deferred calls: its last response's time."""
    responses = (
        m for m in reversed(conversation.messages) if isinstance(m, ModelResponse)
    )
    last = next(responses, None)
    return None if last is None else last.timestamp


def bridge(  # noqa: PLR0913 - keyword-only options
    agent: AbstractAgent[DepsT, OutputT],
    store: Store,
    runs: Callable[[], Iterable[str] | Awaitable[Iterable[str]]],
    *,
    policy: ResumePolicy | None = None,
    deps: DepsT | None = None,
    continued: Callable[[str, AgentRunResult[OutputT]], Awaitable[None] | None]
    | None = None,
) -> Bridge:
    """The `Bridge` to the paused runs of *agent* kept in *store* (`pause`).

    The store keeps each run under an id only the application holds, so
    *runs* lists them (a paused run's id: its `PausedRun.id`, the bridge's
    ``scope``). Each is read back from the store as `load_paused` reads
    it; what is spent (through this bridge or `resume`: one key) is not
    listed, and a pause is dated by the model's response that asked for
    its calls. `Bridge.answer` is `resume` (the same checks, spend and
    audit trail, under the run's ``conversation_id``), and hands the run
    it continued to *continued*: it may have paused again (`pause` it, and
    list its new id).

    Args:
        agent: The agent that paused (the same tools, in this process).
        store: Where the runs were kept (`pause`), and where they are spent.
        runs: The ids of the paused runs the application keeps (sync or
            async); an id the store forgot (`Store.expire`) is skipped.
        policy: The clock and the authorizer, for every call (its
            ``principal`` is each call's); partial resumes are refused,
            as `resume` refuses them.
        deps: The agent's dependencies for a continued run.
        continued: Called with the scope and the continued run's result
            (sync or async), after each accepted answer.

    Returns:
        A `Bridge` whose door is ``"pydantic_ai"``.
    """

    async def one(run_id: str) -> _bridged.Paused | None:
        try:
            kept = await _load(run_id, store)
        except ResumeRejected:  # unknown_interrupt: forgotten or never kept
            return None
        at = _paused_at(kept.conversation)
        session = kept.conversation.conversation_id
        return _bridged.Paused(run_id, session, kept.interrupts, kept.keys, at)

    async def every() -> list[_bridged.Paused]:
        found = [await one(run_id) for run_id in await _bridged.listed(runs)]
        return [paused for paused in found if paused is not None]

    async def answering(
        run_id: str, answer: Resume, policy: ResumePolicy
    ) -> ResolvedResume:
        options = _Options(deps, policy)
        resolved, result = await _resume(agent, run_id, answer, store, options)
        if continued is not None:
            await _bridged.listed(lambda: continued(run_id, result))
        return resolved

    return _bridged.Bridged(
        "pydantic_ai", store, policy or ResumePolicy(), every, one, answering
    )
