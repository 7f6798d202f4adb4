"""Google ADK: tool confirmations and long-running calls, typed and spent once.

ADK pauses an invocation in two ways. A tool built with
``FunctionTool(func, require_confirmation=...)``, or one that calls
``tool_context.request_confirmation(...)``, pauses with an
``adk_request_confirmation`` call whose id differs from the original call's;
a ``LongRunningFunctionTool`` pauses with its own call id listed in the
event's ``long_running_tool_ids``. Either is answered by a user message
holding a ``FunctionResponse``. ADK checks that a confirmation names a call
of its session with the same name and arguments, but it coerces the answer
(``ToolConfirmation`` turns ``"yes"`` into ``True``), takes an untyped
``payload``, and accepts the same answer twice from two processes.

This adapter reads what is pending from ADK's own session (never from the
client) and answers it only with what a validated `Resume` says:

* `pending` lists the session's open pause: a confirmation is
  ``ApprovalPending(<original call id>)`` whose interrupt id is the
  ``adk_request_confirmation`` call's, answered only by ``approve()`` /
  ``reject(reason)``; a long-running call is `Custom`, answered by
  ``respond(result)`` against the schema the application declared for its
  tool (any JSON by default).
* `resume` validates the `Resume` against that pause, spends it once in a
  `Store` (`interruption.admit`), and only then builds the user message:
  ``ToolConfirmation(confirmed=True)`` for an approval,
  ``ToolConfirmation(confirmed=False, payload={"interruption_rejection":
  reason})`` for a rejection, ``{"result": value}`` (or the object itself)
  for a long-running call's result, and runs the agent on with it.
* ``resume(..., progress=True)`` sends a long-running call an interim
  report (``{"status": ...}``, checked against its progress schema): it is
  authorized, validated and audited, spends only a key of its own, and
  leaves the pause open for the result, which is still spent once.
* `RejectionReasons`, a runner plugin, answers a rejected call with its
  reason (ADK alone tells the model only ``"This tool call is rejected."``),
  so the tool never runs and the model reads why.
* `bridge` is the `interruption.Bridge` over the runner's sessions (for an
  inbox): every session's open pause, listed through `pending` and
  answered through `resume`.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Final, TypeAlias, final
from urllib.parse import quote, unquote

import attrs

try:
    from google.adk.agents.run_config import RunConfig
    from google.adk.events.event import Event
    from google.adk.plugins.base_plugin import BasePlugin
    from google.adk.runners import Runner
    from google.adk.sessions.session import Session as AdkSession
    from google.adk.tools.base_tool import BaseTool
    from google.adk.tools.tool_confirmation import ToolConfirmation
    from google.adk.tools.tool_context import ToolContext
    from google.genai import types
except ImportError as error:  # pragma: no cover - exercised in a subprocess
    _MISSING = (
        "interruption.adapters.google_adk needs the [google-adk] extra: "
        "pip install 'interruption[google-adk]'"
    )
    raise ImportError(_MISSING) from error

from interruption import (
    JSON,
    Accepts,
    ApprovalPending,
    AuditEvent,
    Authorize,
    Custom,
    DecodeError,
    InvalidArgument,
    Mismatch,
    PayloadError,
    PendingInterrupt,
    PendingPause,
    ProblemCode,
    Respond,
    Restart,
    Resume,
    ResumeRejected,
    Store,
    ToolRequest,
)
from interruption.adapters import _bridged
from interruption.adapters._bridged import listed
from interruption.runtime.admission import (
    admit,
    interrupt_keys,
    pause_key,
    refuse,
    unspent,
)
from interruption.runtime.approval import DECISION_SCHEMA, Reject, decision_from_json
from interruption.runtime.bridge import newest_first
from interruption.validation import ResolvedResume, ResumePolicy
from interruption.wire import check_schema, copy_json

JSONSchema: TypeAlias = dict[str, JSON]
"""A JSON Schema, as a JSON object."""

__all__ = [
    "ANY_JSON",
    "CONFIRMATION",
    "PROGRESS",
    "PROGRESS_KEY",
    "REJECTION_KEY",
    "AdkBridge",
    "Paused",
    "RejectionReasons",
    "Sessions",
    "bridge",
    "pending",
    "resume",
    "scope_of",
]

CONFIRMATION: Final = "adk_request_confirmation"
"""The name of the call ADK makes to ask for a confirmation."""

REJECTION_KEY: Final = "interruption_rejection"
"""The key of a rejection's reason in the ``ToolConfirmation`` payload."""

ANY_JSON: Final[JSONSchema] = {}
"""The answer schema of a long-running tool that declared none."""

PROGRESS: Final[JSONSchema] = {"type": "object", "required": ["status"]}
"""The schema of a progress report to a long-running tool that declared none:
an object with a ``status``, as ADK's own tests send (``{"status": "still
waiting"}``)."""

PROGRESS_KEY: Final = "interruption_progress"
"""The key, in the state delta of the user event that carries a progress
report, of the ids of the long-running calls it reports on: those calls stay
open (ADK's session is what says so, whoever reads it)."""


@final
@attrs.frozen
class Paused:
    """An ADK session's open pause, read from the session itself.

    Attributes:
        session_id: The ADK session.
        interrupts: One per pending call, in the session's order.
        keys: Per pending call's id, what a `Store` spends when it is
            answered: one key per call, whichever request answers it.
        created_at: When it paused: the timestamp ADK gave the event of
            its first pending call (None for a `Paused` built by hand).
    """

    session_id: str
    interrupts: tuple[PendingInterrupt, ...]
    keys: Mapping[str, str]
    created_at: datetime | None = None


@attrs.frozen
class _Call:
    """One pending call as ADK recorded it, and how to answer it.

    ``at`` is the timestamp of its event (seconds since the epoch).
    """

    interrupt: PendingInterrupt
    call_id: str
    name: str
    at: float = 0.0


@attrs.frozen
class _Read:
    """What one pass over a session found.

    Attributes:
        open: The calls pending after the last user event.
        answered: The refs of every pause a user already answered.
        shown: The latest pause, answered or not (`open` when there is one).
    """

    open: list[_Call]
    answered: frozenset[str]
    shown: list[_Call]


def _damaged(path: str, expected: str, got: str) -> DecodeError:
    return DecodeError([Mismatch(path, expected, got)])


def _json(value: object, path: str) -> JSON:
    """*value* if it is JSON; else a DecodeError naming every spot under *path*."""
    try:
        copy_json(value)  # the records' own check
    except PayloadError as error:
        raise DecodeError(
            [
                Mismatch(path + problem.path[1:], problem.expected, problem.got)
                for problem in error.problems
            ]
        ) from None
    return value  # type: ignore[return-value]  # checked just above


def _schemas(answers: Mapping[str, JSONSchema] | None) -> dict[str, JSONSchema]:
    """*answers*, each schema run once so that one that cannot run fails here."""
    schemas = dict(answers or {})
    for schema in schemas.values():
        check_schema(schema)  # SchemaError if it cannot run
    return schemas


def _confirmation(
    call: types.FunctionCall,
    path: str,
    calls: Mapping[str, types.FunctionCall],
) -> _Call:
    """An ``adk_request_confirmation`` call as an approval of its original."""
    args = call.args or {}
    original = args.get("originalFunctionCall")
    request = args.get("toolConfirmation")
    if not isinstance(original, dict) or not isinstance(request, dict):
        expected = "originalFunctionCall and toolConfirmation objects"
        raise _damaged(f"{path}.args", expected, repr(sorted(args)))
    ref = original.get("id")
    recorded = calls.get(ref) if isinstance(ref, str) else None
    if recorded is None or recorded.name != original.get("name"):
        expected = "the id and name of a call earlier in the session"
        raise _damaged(f"{path}.args.originalFunctionCall", expected, repr(ref))
    arguments = _json(recorded.args or {}, f"{path}.args.originalFunctionCall.args")
    if _json(original.get("args") or {}, f"{path}.args") != arguments:
        expected = "the arguments the session recorded for the call"
        raise _damaged(f"{path}.args.originalFunctionCall.args", expected, "others")
    name, ref = str(recorded.name), str(recorded.id)
    payload: JSON = {
        "tool": name,
        "args": arguments,
        "hint": _json(request.get("hint", ""), f"{path}.args.toolConfirmation.hint"),
        "payload": _json(
            request.get("payload"), f"{path}.args.toolConfirmation.payload"
        ),
    }
    interrupt = PendingInterrupt(
        id=str(call.id),
        kind=ApprovalPending(ref),
        payload=payload,
        tool=ToolRequest(name, ref, arguments),
        accepts=Accepts(restart=DECISION_SCHEMA),
    )
    return _Call(interrupt, str(call.id), CONFIRMATION)


def _long_running(
    call: types.FunctionCall, path: str, schemas: Mapping[str, JSONSchema]
) -> _Call:
    """A long-running call as a question its result answers."""
    name, call_id = str(call.name), str(call.id)
    arguments = _json(call.args or {}, f"{path}.args")
    interrupt = PendingInterrupt(
        id=call_id,
        kind=Custom(),
        payload={"tool": name, "args": arguments},
        tool=ToolRequest(name, call_id, arguments),
        accepts=Accepts(respond=schemas.get(name, ANY_JSON)),
    )
    return _Call(interrupt, call_id, name)


def _scan(session: AdkSession, schemas: Mapping[str, JSONSchema]) -> _Read:
    """Read a session once: what is open, what was answered, the latest pause."""
    calls: dict[str, types.FunctionCall] = {}
    refs: dict[str, str] = {}  # a pause's call id -> the ref an answer names
    answered: set[str] = set()
    open_calls: list[_Call] = []
    shown: list[_Call] = []
    for index, event in enumerate(session.events):
        if event.author == "user":
            going = _reported(event)
            shown = open_calls or shown
            final = {
                response.id
                for response in event.get_function_responses()
                if response.id not in going
            }
            # A user turn closes what was open, but a progress report answers
            # nothing: beside one, only the calls given a result close.
            open_calls = [
                call for call in open_calls if going and call.call_id not in final
            ]
            answered.update(refs[done] for done in final if done in refs)
        waiting = event.long_running_tool_ids or set()
        for number, call in enumerate(event.get_function_calls()):
            if call.id:
                calls[call.id] = call
            if not call.id or call.id not in waiting:
                continue
            path = f"$.events[{index}].calls[{number}]"
            found = (
                _confirmation(call, path, calls)
                if call.name == CONFIRMATION
                else _long_running(call, path, schemas)
            )
            refs[found.call_id] = found.interrupt.ref
            open_calls.append(attrs.evolve(found, at=event.timestamp))
    return _Read(open_calls, frozenset(answered), open_calls or shown)


def _reported(event: Event) -> frozenset[str]:
    """The long-running calls a user event reports progress on (they stay open)."""
    ids = event.actions.state_delta.get(PROGRESS_KEY)
    if not isinstance(ids, list):
        return frozenset()
    return frozenset(call_id for call_id in ids if isinstance(call_id, str))


async def _session(runner: Runner, user_id: str, session_id: str) -> AdkSession:
    session = await runner.session_service.get_session(
        app_name=runner.app_name, user_id=user_id, session_id=session_id
    )
    if session is None:
        message = f"no ADK session {session_id!r} of user {user_id!r}"
        raise ResumeRejected.of(ProblemCode.UNKNOWN_SESSION, message)
    return session


def _paused(runner: Runner, session: AdkSession, calls: Sequence[_Call]) -> Paused:
    interrupts = tuple(call.interrupt for call in calls)
    keys = interrupt_keys(
        "google_adk", interrupts, runner.app_name, session.user_id, session.id
    )
    created = datetime.fromtimestamp(min(call.at for call in calls), UTC)
    return Paused(session.id, interrupts, keys, created)


async def pending(
    runner: Runner,
    *,
    user_id: str,
    session_id: str,
    answer_schemas: Mapping[str, JSONSchema] | None = None,
    store: Store | None = None,
) -> Paused | None:
    """Read an ADK session's open pause from the runner's session service.

    A pause is open when the calls ADK marked long-running (its confirmation
    requests included) come after the session's last user event (a
    progress report to them excepted). With
    *store* (the one `resume` spends in), a pause already answered is not
    open, even while its continuation still runs and ADK's session does not
    show the answer yet. A progress report (``resume(..., progress=True)``)
    leaves it open: ADK's session marks the report's user event.

    Args:
        runner: The runner whose session service holds the session.
        user_id: The session's user.
        session_id: The session.
        answer_schemas: The schema a long-running tool's result must fit, by
            tool name; a tool without one takes any JSON.
        store: Where `resume` spends pauses; when given, an answered pause
            is not listed, and a pause listed for the first time is filed
            in the session's audit trail (a ``paused`` event).

    Returns:
        The open pause, or None when the session is not paused.

    Raises:
        ResumeRejected: ``unknown_session`` if the runner has no such session.
        DecodeError: if a pending call's arguments or payload are not JSON
            within the library's limits, or a confirmation names no call of
            the session (or other arguments than it recorded).
        ValueError: if a schema in *answer_schemas* cannot be run.
    """
    schemas = _schemas(answer_schemas)
    session = await _session(runner, user_id, session_id)
    calls = _scan(session, schemas).open
    if not calls:
        return None
    paused = _paused(runner, session, calls)
    if store is None:
        return paused
    # Filed in the session's audit trail (``paused``) the first time it is met.
    live = await unspent(paused.interrupts, paused.keys, store, session=session_id)
    if len(live) < len(paused.interrupts):
        return None  # ADK pauses are answered whole: any spent call spent it
    return paused


def _entry_refs(answer: Resume) -> set[str]:
    refs = {entry.ref for entry in answer.respond}
    refs.update(entry.ref for entry in answer.restart)
    return refs


def _response(call: _Call, entry: Respond | Restart) -> types.FunctionResponse:
    """The ``FunctionResponse`` ADK reads, built from a validated entry."""
    if isinstance(entry, Restart):  # only confirmations accept a restart
        decision = decision_from_json(entry.resumed)
        if isinstance(decision, Reject):
            answer = ToolConfirmation(
                confirmed=False, payload={REJECTION_KEY: decision.reason}
            )
        else:
            answer = ToolConfirmation(confirmed=True)
        response = answer.model_dump(by_alias=True, exclude_none=True)
    else:
        output = copy.deepcopy(entry.output)  # ADK's copy: the record keeps its own
        response = output if isinstance(output, dict) else {"result": output}
    return types.FunctionResponse(id=call.call_id, name=call.name, response=response)


def _message(calls: Sequence[_Call], resolved: ResolvedResume) -> types.Content:
    by_id = {call.interrupt.id: call for call in calls}
    parts = [
        types.Part(
            function_response=_response(by_id[answer.interrupt.id], answer.entry)
        )
        for answer in resolved.answers
    ]
    return types.Content(role="user", parts=parts)


async def resume(  # noqa: PLR0913 - keyword-only options
    runner: Runner,
    answer: Resume,
    store: Store,
    *,
    user_id: str,
    session_id: str,
    answer_schemas: Mapping[str, JSONSchema] | None = None,
    policy: ResumePolicy | None = None,
    run_config: RunConfig | None = None,
    progress: bool = False,
    progress_schemas: Mapping[str, JSONSchema] | None = None,
) -> list[Event]:
    """Answer an ADK session's open pause through ADK's own channel, once.

    What is pending is read from the runner's session service; *answer* is
    authorized and validated against it, the pause is spent in *store*
    (`interruption.admit`), and only then is a user message of
    ``FunctionResponse`` parts built from the validated answers and run.

    With *progress*, *answer* is an interim report to long-running calls
    (ADK lets such a call receive ``{"status": ...}`` before its result),
    not their result. What is guaranteed:

    * a report is authorized, validated (against *progress_schemas*) and
      audited like an answer, and spends only its own progress key (one per
      session state: two reports racing on one state, one is ``consumed``);
      it never spends the pause, which stays pending, in ADK's session too
      (its user event lists the calls under `PROGRESS_KEY`);
    * it may report on some of the long-running calls only; a report to a
      confirmation is ``answer_not_accepted``;
    * a report to a pause whose result was already spent is ``consumed``
      (checked before it is admitted; a report that races the result's own
      admission may still reach the model after it);
    * the result (without *progress*) is spent once, after any number of
      reports; a result sent again is ``consumed`` (ADK alone would take
      it and call the model again).

    Args:
        runner: The runner whose session paused (same agent and tools).
        answer: The client's answers, one per pending call.
        store: Where spent pauses are marked (shared by every process).
        user_id: The session's user.
        session_id: The session.
        answer_schemas: As for `pending`: the schema of each long-running
            tool's result, by tool name.
        policy: The clock and who may answer; partial resumes are refused
            (ADK would run the answered calls and forget the pause).
        run_config: Passed to ``runner.run_async``.
        progress: *answer* is a progress report, not the result.
        progress_schemas: The schema of a progress report, by tool name;
            `PROGRESS` for a tool without one.

    Returns:
        The events of the continued run; it may have paused again.

    Raises:
        ResumeRejected: listing every problem, before anything is spent or
            run: ``unknown_session`` for no such session (with an
            authorizer, ``not_authorized`` to every principal: it is asked
            first, and no pause is there to allow); ``nothing_pending`` when
            the session
            is not paused; ``consumed`` for an answer to a pause that was
            already answered or spent; for a progress report, as said above.
        DecodeError: as `pending`.
        InvalidArgument: if *policy* allows partial resumes (a `ValueError`).
        SchemaError: if a schema cannot be run (a `ValueError`).
    """
    _, events = await _resume(
        runner,
        answer,
        store,
        user_id=user_id,
        session_id=session_id,
        answer_schemas=answer_schemas,
        policy=policy,
        run_config=run_config,
        progress=progress,
        progress_schemas=progress_schemas,
    )
    return events


async def _resume(  # noqa: PLR0913 - `resume`'s options
    runner: Runner,
    answer: Resume,
    store: Store,
    *,
    user_id: str,
    session_id: str,
    answer_schemas: Mapping[str, JSONSchema] | None,
    policy: ResumePolicy | None,
    run_config: RunConfig | None,
    progress: bool,
    progress_schemas: Mapping[str, JSONSchema] | None,
) -> tuple[ResolvedResume, list[Event]]:
    """`resume`, telling what was accepted as well as what ran."""
    if policy is not None and policy.allow_partial:
        expected = "False: ADK pauses are answered whole"
        raise InvalidArgument("resume: policy.allow_partial", expected, "True")
    schemas = _schemas(answer_schemas)
    try:
        session = await _session(runner, user_id, session_id)
    except ResumeRejected as unknown:  # no session: the authorizer decides
        raise _bridged.absent(unknown, policy) from None
    read = _scan(session, schemas)
    calls, answered = read.open, read.answered
    if not calls:
        if _entry_refs(answer) & answered:
            message = f"the pause of ADK session {session_id!r} was already answered"
            rejected = ResumeRejected.of(ProblemCode.CONSUMED, message)
        else:
            message = f"ADK session {session_id!r} is not paused"
            rejected = ResumeRejected.of(ProblemCode.NOTHING_PENDING, message)
        raise await refuse(rejected, answer, store, session=session_id, policy=policy)
    paused = _paused(runner, session, calls)
    state_delta: dict[str, object] | None = None
    if progress:
        resolved = await _report(
            answer,
            paused,
            calls,
            store,
            policy=policy,
            schemas=_schemas(progress_schemas),
            state=f"{runner.app_name}:{user_id}:{len(session.events)}",
        )
        state_delta = {PROGRESS_KEY: [a.interrupt.id for a in resolved.answers]}
    else:
        resolved = await admit(
            answer,
            paused.interrupts,
            store,
            session=session_id,
            keys=paused.keys,
            policy=policy,
        )
    events = [
        event
        async for event in runner.run_async(
            user_id=user_id,
            session_id=session_id,
            new_message=_message(calls, resolved),
            state_delta=state_delta,
            run_config=run_config,
        )
    ]
    return resolved, events


async def _report(  # noqa: PLR0913 - one report's parts
    answer: Resume,
    paused: Paused,
    calls: Sequence[_Call],
    store: Store,
    *,
    policy: ResumePolicy | None,
    schemas: Mapping[str, JSONSchema],
    state: str,
) -> ResolvedResume:
    """Admit a progress report: its own keys, the pause left unspent."""
    session = paused.session_id
    if len(await unspent(paused.interrupts, paused.keys, store)) < len(calls):
        message = f"the pause of ADK session {session!r} was already answered"
        rejected = ResumeRejected.of(ProblemCode.CONSUMED, message)
        raise await refuse(
            rejected,
            answer,
            store,
            session=session,
            policy=policy,
            shown=paused.interrupts,
        )
    reports = tuple(
        attrs.evolve(
            call.interrupt,
            accepts=(
                Accepts()
                if isinstance(call.interrupt.kind, ApprovalPending)
                else Accepts(respond=schemas.get(call.name, PROGRESS))
            ),
        )
        for call in calls
    )
    keys = {
        report.id: pause_key("google_adk", state, session, report.id, "progress")
        for report in reports
    }
    return await admit(
        answer,
        reports,
        store,
        session=session,
        keys=keys,
        policy=attrs.evolve(policy or ResumePolicy(), allow_partial=True),
        note="progress",
        filed=paused.keys,
    )


@final
class RejectionReasons(BasePlugin):
    """A runner plugin: a rejected confirmation answers its call with the reason.

    ADK alone answers a rejected call with ``{"error": "This tool call is
    rejected."}``. With this plugin on the runner (``Runner(...,
    plugins=[RejectionReasons()])``), a call whose confirmation `resume`
    rejected is answered with ``{"error": reason}`` before the tool or ADK's
    gate is reached, so the tool does not run and the model reads why.
    """

    def __init__(self) -> None:
        """Make the plugin (named ``"interruption_rejection_reasons"``)."""
        super().__init__(name="interruption_rejection_reasons")

    async def before_tool_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, object],
        tool_context: ToolContext,
    ) -> dict[str, object] | None:
        """Answer a rejected call with its reason; let every other call be.

        Returns:
            ``{"error": reason}`` for a call whose confirmation is a
            rejection carrying a reason; None otherwise.
        """
        del tool, tool_args
        confirmation = tool_context.tool_confirmation
        if confirmation is None or confirmation.confirmed is True:
            return None
        payload = confirmation.payload
        reason = payload.get(REJECTION_KEY) if isinstance(payload, dict) else None
        if not isinstance(reason, str):
            return None
        return {"error": reason}


# --- the bridge: every session's pause, for the inbox ------------------------

Sessions: TypeAlias = Callable[
    [], Iterable[tuple[str, str]] | Awaitable[Iterable[tuple[str, str]]]
]
"""Lists the ``(user id, session id)`` pairs that may hold a pause, sync or
async (by default, `AdkBridge` asks the runner's session service for every
session of its app)."""


def scope_of(user_id: str, session_id: str) -> str:
    """The `PendingPause.scope` of an ADK session: ``"<user>/<session>"``.

    ADK keeps a session under its app, its user and its id; each part is
    percent-encoded (``/`` and ``%`` included), so any ids read back.

    Args:
        user_id: The session's user.
        session_id: The session.

    Returns:
        The scope `AdkBridge` lists and answers.
    """
    return f"{quote(user_id, safe='')}/{quote(session_id, safe='')}"


def _session_of(scope: str) -> tuple[str, str]:
    """The ``(user id, session id)`` a scope names (`scope_of`).

    Raises:
        ResumeRejected: ``unknown_session`` for a scope `scope_of` never makes.
    """
    user, slash, session = scope.partition("/")
    if not slash or not user or not session or "/" in session:
        message = (
            "scope: expected '<user>/<session>' (each part percent-encoded), "
            f"got {scope!r}"
        )
        raise ResumeRejected.of(ProblemCode.UNKNOWN_SESSION, message)
    return unquote(user), unquote(session)


@final
@attrs.frozen
class AdkBridge:
    """The `Bridge` over a runner's sessions (build it with `bridge`).

    What is pending is `pending` of each session (with the store: an
    answered pause is not listed, a new one is filed in the audit trail);
    an answer is `resume` (authorize, validate against ADK's session, spend
    once under the keys every door uses, audit, then run the agent on).

    Attributes:
        runner: The runner whose session service holds the sessions.
        store: Where pauses are spent and the audit trail is kept.
        sessions: Lists the sessions to look in; None: every session of
            the runner's app, from its session service.
        policy: Authorization and the clock (its principal is each call's).
        answer_schemas: The schema of each long-running tool's result, by
            tool name (as for `pending` and `resume`).
        run_config: Passed to ``runner.run_async`` when an answer runs.
    """

    runner: Runner
    store: Store
    sessions: Sessions | None = None
    policy: ResumePolicy = attrs.field(factory=ResumePolicy)
    answer_schemas: Mapping[str, JSONSchema] | None = None
    run_config: RunConfig | None = None

    @property
    def door(self) -> str:
        """``"google_adk"``: the framework its spend keys name (`pause_key`)."""
        return "google_adk"

    async def _listed(self) -> list[tuple[str, str]]:
        if self.sessions is None:
            found = await self.runner.session_service.list_sessions(
                app_name=self.runner.app_name
            )
            return [(session.user_id, session.id) for session in found.sessions]
        return list(await listed(self.sessions))

    def _as(self, principal: str | None) -> ResumePolicy:
        return attrs.evolve(self.policy, principal=principal)

    async def _pause(
        self, user_id: str, session_id: str, policy: ResumePolicy
    ) -> PendingPause | None:
        try:
            # Without the store: every call ADK shows open, answered or not,
            # so that the principal is authorized before anything is filed.
            paused = await pending(
                self.runner,
                user_id=user_id,
                session_id=session_id,
                answer_schemas=self.answer_schemas,
            )
        except ResumeRejected:  # unknown_session: deleted since it was listed
            return None
        found = (
            None
            if paused is None
            else _bridged.Paused(
                scope_of(user_id, session_id),
                session_id,
                paused.interrupts,
                paused.keys,
                paused.created_at,
                whole=True,  # ADK pauses are answered whole
            )
        )
        return await _bridged.shown(self.door, self.store, policy, found)

    async def pending(self, *, principal: str | None = None) -> list[PendingPause]:
        """Every session's open pause *principal* may answer, newest first.

        Args:
            principal: Who asks; the policy's authorizer must allow them for
                every interrupt of a session's pause, answered or not (a
                refused principal's listing files nothing).

        Returns:
            One `PendingPause` per paused session (its scope `scope_of` the
            session), created when ADK recorded its first pending call; a
            pause answered through any door is not listed.

        Raises:
            DecodeError: as `pending`, for a damaged session.
        """
        policy = self._as(principal)
        return await newest_first(
            await self._listed(), lambda at: self._pause(*at, policy)
        )

    async def pause(
        self, scope: str, *, principal: str | None = None
    ) -> PendingPause | None:
        """Session *scope*'s open pause, as `pending` lists it, or None.

        Args:
            scope: The session (`scope_of`).
            principal: Who asks (as for `pending`).

        Returns:
            Its `PendingPause`, or None: no open pause, a scope that names
            no session, or a refused principal.

        Raises:
            DecodeError: as `pending`, for a damaged session.
        """
        try:
            user_id, session_id = _session_of(scope)
        except ResumeRejected:  # a scope scope_of never makes: no session
            return None
        return await self._pause(user_id, session_id, self._as(principal))

    async def answer(
        self, scope: str, resume: Resume, *, principal: str | None = None
    ) -> ResolvedResume:
        """Answer the pause of session *scope* through `resume`; ADK runs on.

        Args:
            scope: The session (`scope_of`).
            resume: The answers.
            principal: Who answers.

        Returns:
            What was accepted (the agent has run on with it).

        Raises:
            ResumeRejected: as `resume` (``consumed`` for a pause answered
                through any door; ``unknown_session`` for a scope that names
                no session, ``not_authorized`` instead with an authorizer);
                nothing was sent to ADK then.
        """
        policy = self._as(principal)
        try:
            user_id, session_id = _session_of(scope)
        except ResumeRejected as malformed:  # no session: the authorizer decides
            raise _bridged.absent(malformed, policy) from None
        resolved, _ = await _resume(
            self.runner,
            resume,
            self.store,
            user_id=user_id,
            session_id=session_id,
            answer_schemas=self.answer_schemas,
            policy=policy,
            run_config=self.run_config,
            progress=False,
            progress_schemas=None,
        )
        return resolved

    async def audit(
        self, scope: str, *, principal: str | None = None
    ) -> tuple[AuditEvent, ...]:
        """Session *scope*'s audit trail, every door's attempts included.

        Args:
            scope: The session (`scope_of`).
            principal: Who asks; with an authorizer, they must be allowed
                for the session's latest pause, answered or not (else, or
                when the session has none, they see nothing).

        Returns:
            Its events, oldest first.

        Raises:
            ResumeRejected: ``unknown_session`` for a scope `scope_of`
                never makes.
            DecodeError: as `pending`, for a damaged session.
        """
        user_id, session_id = _session_of(scope)
        if self.policy.authorize is not None:
            session = await self.runner.session_service.get_session(
                app_name=self.runner.app_name, user_id=user_id, session_id=session_id
            )
            schemas = _schemas(self.answer_schemas)
            shown = [] if session is None else _scan(session, schemas).shown
            interrupts = [call.interrupt for call in shown]
            if not shown or not await _bridged.allowed(
                self._as(principal), session_id, interrupts
            ):
                return ()
        return tuple(await self.store.audit(session_id))


def bridge(  # noqa: PLR0913 - keyword-only options
    runner: Runner,
    store: Store,
    sessions: Sessions | None = None,
    *,
    authorize: Authorize | None = None,
    policy: ResumePolicy | None = None,
    answer_schemas: Mapping[str, JSONSchema] | None = None,
    run_config: RunConfig | None = None,
) -> AdkBridge:
    """The `Bridge` over *runner*'s sessions: what the inbox lists and answers.

    Args:
        runner: The runner whose session service holds the sessions.
        store: Where `resume` spends pauses (the store every door of these
            sessions uses); the audit trail is kept there.
        sessions: Lists the ``(user id, session id)`` pairs to look in (sync
            or async); None: every session of the runner's app, as its
            session service lists them.
        authorize: Who may see and answer a pause (`ResumePolicy.authorize`);
            None: the policy's.
        policy: The clock and authorization; strict by default (ADK pauses
            are answered whole: partial resumes are refused).
        answer_schemas: The schema of each long-running tool's result, by
            tool name; a tool without one takes any JSON.
        run_config: Passed to ``runner.run_async`` when an answer runs.

    Returns:
        An `AdkBridge`: door ``"google_adk"``, scope `scope_of` a session.

    Raises:
        SchemaError: if a schema in *answer_schemas* cannot be run (a
            `ValueError`).
        InvalidArgument: if *policy* allows partial resumes (a `ValueError`).
    """
    chosen = policy or ResumePolicy()
    if chosen.allow_partial:
        expected = "False: ADK pauses are answered whole"
        raise InvalidArgument("bridge: policy.allow_partial", expected, "True")
    if authorize is not None:
        chosen = attrs.evolve(chosen, authorize=authorize)
    schemas = _schemas(answer_schemas)
    return AdkBridge(runner, store, sessions, chosen, schemas, run_config)
