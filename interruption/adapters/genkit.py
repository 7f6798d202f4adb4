"""Genkit: tool interrupts as typed pauses, resumed once, validated.

A Genkit tool pauses by raising ``Interrupt(metadata)`` (or is a
``define_interrupt`` tool, which always does); ``generate`` then ends with
``finish_reason == "interrupted"`` and the paused tool requests carry
``metadata.interrupt``. The next ``generate`` takes the history back from its
caller with ``resume_respond`` (a result for the call) and ``resume_restart``
(run the tool again) parts. On its own that channel trusts its caller: it
takes unmatched, duplicate and conflicting entries, a respond to a request
that never paused, a restart whose input was changed (the tool runs with the
new input while the history shows the old one), ``pendingOutput`` results
the client wrote into the history, and answers outside the tool's output
schema; and two ref-less calls of one tool are both answered by one entry.

This adapter closes each of those:

* `pause` keeps the paused history server-side in the `Store`
  (`Store.keep`: Genkit's own wire JSON, byte for byte, with a ref minted
  for every paused call the model gave none or a repeated one), under a
  fresh id, and returns that id with the interrupts a client sees:
  `PendingInterrupt` records for this library's clients and the paused
  parts in Genkit's wire shape (``toolRequest`` with
  ``metadata.interrupt``) for Genkit's.
* `from_parts` reads what a Genkit client sends back (``respond_to_interrupt``
  and ``restart_tool`` parts, as JSON) into a `Resume`, strictly.
* `resume` loads the kept history, validates the `Resume` against the
  interrupts derived from it and spends the id once in the same `Store`
  (`interruption.admit`), and only then builds Genkit's respond and restart
  parts from the kept tool requests (never from anything the client sent)
  and calls ``ai.generate`` on the kept history.

A call paused with `needs_approval` is ``ApprovalPending(ref)``, answered
only by ``approve()`` (the tool runs again; `approved` tells it so) or
``reject(reason)`` (the model reads `rejection(reason)` as the call's
result). Any other interrupt is ``Custom()``: answered by ``respond(result)``
against the tool's output schema (or the schema the application declares),
or by ``restart(resumed)`` with the tool's own input and an object (or
nothing) for ``ToolRunContext.resumed_metadata``.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Final, TypedDict, Unpack, cast, final

import attrs

try:
    import pydantic
    from genkit import (
        FinishReason,
        Genkit,
        Interrupt,
        Message,
        MiddlewareRef,
        ModelResponse,
        Part,
        Tool,
        ToolRunContext,
        respond_to_interrupt,
        restart_tool,
    )
except ImportError as error:  # pragma: no cover - exercised in a subprocess
    _MISSING = (
        "interruption.adapters.genkit needs the [genkit] extra: "
        "pip install 'interruption[genkit]'"
    )
    raise ImportError(_MISSING) from error

from interruption import JSON, Mismatch
from interruption.adapters import _bridged, _kept
from interruption.errors import DecodeError, InvalidArgument, ResumeRejected
from interruption.kinds import ApprovalPending, Custom
from interruption.parts import ToolRequest, ToolResponse
from interruption.resume import (
    APPROVAL_ONLY,
    Accepts,
    PendingInterrupt,
    Respond,
    Restart,
    Resume,
)
from interruption.runtime.admission import admit, pause_key
from interruption.runtime.approval import Reject, decision_from_json
from interruption.runtime.bridge import Bridge
from interruption.runtime.store import Store
from interruption.validation import ResolvedResume, ResumePolicy
from interruption.wire import check_schema, copy_json, describe, dumps

__all__ = [
    "ANY_JSON",
    "APPROVAL",
    "RESUMED_SCHEMA",
    "GenerateOptions",
    "PausedTurn",
    "approved",
    "bridge",
    "from_parts",
    "load_paused",
    "needs_approval",
    "pause",
    "rejection",
    "resume",
    "spent_key",
]

ANY_JSON: Final[dict[str, JSON]] = {}
"""The answer schema of a paused tool that declares no output schema."""

RESUMED_SCHEMA: Final[dict[str, JSON]] = {
    "type": ["object", "null"],
    "not": {"type": "object", "required": ["approve"]},
}
"""What a restart of a ``Custom`` pause may carry: Genkit hands a tool its
``resumed_metadata`` only when it is an object (None means ``True``: resumed,
without data). Never an ``"approve"`` key: that is how an approval's restart
reaches the tool (`approved`), and only an ``ApprovalPending`` pause, answered
by ``approve()``, may say it."""

APPROVAL: Final = "approval_pending"
"""The value of ``metadata.interrupt.interruption`` that marks an approval."""

_MARK: Final = "interruption"


def needs_approval(payload: JSON = None) -> Interrupt:
    """The ``Interrupt`` a tool raises to hold its call for a human's approval.

    Its wire form is Genkit's own ``metadata.interrupt``:
    ``{"interruption": "approval_pending", "payload": payload}``. The pause
    is ``ApprovalPending``: it accepts only ``approve()`` or
    ``reject(reason)``; approved, the tool runs again with `approved` true.

    Args:
        payload: What to show the human (JSON).

    Returns:
        The exception to raise from the tool.
    """
    return Interrupt({_MARK: APPROVAL, "payload": payload})


def approved(ctx: ToolRunContext) -> bool:
    """Whether this run of a tool is the approved restart of its call.

    Args:
        ctx: The tool's run context.

    Returns:
        True only when the tool was restarted with an approval decision
        (``{"approve": {...}}`` as its resumed metadata).
    """
    resumed = ctx.resumed_metadata
    return isinstance(resumed, dict) and isinstance(resumed.get("approve"), dict)


def rejection(reason: str) -> dict[str, JSON]:
    """The result the model reads for a rejected call.

    Args:
        reason: The rejection's reason.

    Returns:
        ``{"rejected": reason}``.
    """
    return {"rejected": reason}


@final
@attrs.frozen
class PausedTurn:
    """A Genkit turn that paused, as the server hands it to a client.

    Attributes:
        id: The paused turn's id: what the client sends back with its
            answers; spent once.
        interrupts: One per paused tool request, in the message's order.
        parts: The same requests in Genkit's wire shape (``toolRequest``
            with ``metadata.interrupt``, refs as kept), for Genkit clients
            (``respond_to_interrupt`` / ``restart_tool`` answer them).
    """

    id: str
    interrupts: tuple[PendingInterrupt, ...]
    parts: tuple[dict[str, JSON], ...]


class GenerateOptions(TypedDict, total=False):
    """What ``ai.generate`` needs to continue a turn, besides its history.

    The same model, tools and middleware the paused turn ran with; the
    history, ``resume_respond`` and ``resume_restart`` come from the adapter.
    """

    model: str | None
    tools: Sequence[str | Tool] | None
    config: Mapping[str, object] | None
    max_turns: int | None
    context: dict[str, object] | None
    use: Sequence[MiddlewareRef] | None


@attrs.frozen
class _Kept:
    """A paused turn as read back from the store: the authoritative state."""

    messages: list[Message]
    by_ref: dict[str, Part]
    interrupts: tuple[PendingInterrupt, ...]
    completed: tuple[ToolResponse, ...]
    parts: tuple[dict[str, JSON], ...]


def spent_key(turn_id: str) -> str:
    """The key a `Store` spends when the paused turn *turn_id* is resumed.

    Args:
        turn_id: A `PausedTurn.id`.

    Returns:
        A key no other adapter or session uses.
    """
    return pause_key("genkit", turn_id)


def _damaged(turn_id: str, path: str, expected: str, got: str) -> DecodeError:
    return DecodeError([Mismatch(f"$[{turn_id!r}]{path}", expected, got)])


def _request(part: JSON) -> dict[str, JSON] | None:
    """The ``toolRequest`` of a wire part, or None."""
    request = part.get("toolRequest") if isinstance(part, dict) else None
    return request if isinstance(request, dict) else None


def _mint(turn_id: str, content: list[JSON]) -> None:
    """Give every tool request of *content* a ref unique in it, in place."""
    seen: set[str] = set()
    for index, part in enumerate(content):
        request = _request(part)
        if request is None:
            continue
        given = request.get("ref")
        if not isinstance(given, str) or not given or given in seen:
            given = request["ref"] = f"genkit-{turn_id}-{index}"
        seen.add(given)


_NO_MARK: Final[tuple[JSON, ...]] = (None, False, 0, "")
"""The JSON values JavaScript reads as false: no ``metadata.interrupt``."""


def _paused(metadata: Mapping[str, JSON]) -> bool:
    """Whether a tool request's metadata marks it paused, as Genkit reads it.

    Genkit JS writes ``interrupt: metadata || true``: ``true``, or the object
    the tool interrupted with, ``{}`` included; it counts a request as
    interrupted when that mark is true in JavaScript, which ``{}`` is (and
    Python's truthiness is not). A ``pendingOutput`` is a result, whatever
    the mark: both Genkits read it first when they resume, and Genkit Python
    leaves ``interrupt: {}`` beside the ``pendingOutput`` of a call it
    answered while a sibling paused again.
    """
    return "pendingOutput" not in metadata and metadata.get("interrupt") not in _NO_MARK


def _metadata(part: JSON) -> dict[str, JSON]:
    """A wire part's metadata, or an empty one."""
    metadata = part.get("metadata") if isinstance(part, dict) else None
    return metadata if isinstance(metadata, dict) else {}


def _pending(
    request: ToolRequest, mark: JSON, schemas: Mapping[str, dict[str, JSON]], path: str
) -> PendingInterrupt:
    """One paused request as a client sees it; *mark* is its metadata.interrupt."""
    ref = cast("str", request.ref)
    if isinstance(mark, dict) and mark.get(_MARK) == APPROVAL:
        payload = mark.get("payload")
        return PendingInterrupt(
            ref, ApprovalPending(ref), payload, request, APPROVAL_ONLY
        )
    if mark is not True and not isinstance(mark, dict):
        raise DecodeError([Mismatch(path, "true or an object", describe(mark))])
    accepts = Accepts(
        respond=schemas.get(request.name, ANY_JSON), restart=RESUMED_SCHEMA
    )
    payload = mark if isinstance(mark, dict) else None
    return PendingInterrupt(ref, Custom(), payload, request, accepts)


@attrs.frozen
class _Pause:
    """What a kept history shows as paused, read from its wire JSON alone.

    `pause` derives what the client is shown from it, and `_decode` what a
    resume checks: one derivation of the same record.
    """

    at: int
    interrupts: tuple[PendingInterrupt, ...]
    completed: tuple[ToolResponse, ...]
    parts: tuple[dict[str, JSON], ...]


def _paused_in(
    turn_id: str, schemas: Mapping[str, dict[str, JSON]], history: list[dict[str, JSON]]
) -> _Pause:
    """The paused and completed tool requests of *history*'s last message."""
    last = history[-1] if history else None
    content = last.get("content") if last is not None else None
    if last is None or last.get("role") != "model" or not isinstance(content, list):
        raise _damaged(turn_id, "", "a history ending in a model message", "none")
    interrupts: list[PendingInterrupt] = []
    completed: list[ToolResponse] = []
    parts: list[dict[str, JSON]] = []
    at = len(history) - 1
    for index, raw in enumerate(content):
        wire = _request(raw)
        if wire is None:
            continue
        path = f"[{at}].content[{index}]"
        name, ref = cast("str", wire.get("name")), wire.get("ref")
        if not isinstance(ref, str) or not ref:
            raise _damaged(turn_id, f"{path}.toolRequest.ref", "a ref", describe(ref))
        metadata = _metadata(raw)
        if _paused(metadata):
            where = f"$[{turn_id!r}]{path}.metadata.interrupt"
            request = ToolRequest(name, ref, wire.get("input"))
            interrupts.append(_pending(request, metadata["interrupt"], schemas, where))
            parts.append(cast("dict[str, JSON]", raw))
        elif "pendingOutput" in metadata:
            completed.append(ToolResponse(name, ref, metadata["pendingOutput"]))
        else:
            expected = "a paused or completed tool request"
            raise _damaged(turn_id, path, expected, "neither")
    if not interrupts:
        raise _damaged(turn_id, "", "a turn paused on tool interrupts", "none pending")
    return _Pause(at, tuple(interrupts), tuple(completed), tuple(parts))


def _read(record: bytes) -> tuple[dict[str, dict[str, JSON]], list[dict[str, JSON]]]:
    """A kept record's answer schemas and history, as JSON."""
    schemas, body = _kept.decode_schemas(record)
    return schemas, _kept.read(body, list[dict[str, JSON]])


def _decode(turn_id: str, record: bytes) -> _Kept:
    """Read a kept record: the answer schemas, a newline, the history.

    Genkit validates the history (its `Message` records) before anything
    else is read from it: a resume runs on those records.
    """
    schemas, history = _read(record)
    try:
        messages = [Message.model_validate(message) for message in history]
    except pydantic.ValidationError as error:
        expected = "Genkit messages"
        got = f"{error.error_count()} errors"
        raise _damaged(turn_id, "", expected, got) from error
    pause = _paused_in(turn_id, schemas, history)
    # Genkit drops empty parts from a message it reads: find each by its ref.
    by_ref = {
        part.tool_request.ref: part
        for part in messages[pause.at].content
        if part.tool_request is not None and part.tool_request.ref is not None
    }
    return _Kept(messages, by_ref, pause.interrupts, pause.completed, pause.parts)


def _answer_schemas(
    tools: Sequence[str | Tool], answers: Mapping[str, dict[str, JSON]] | None
) -> dict[str, dict[str, JSON]]:
    schemas: dict[str, dict[str, JSON]] = {}
    for tool in tools:
        if isinstance(tool, Tool) and tool.output_schema is not None:
            schemas[tool.name] = cast("dict[str, JSON]", tool.output_schema)
    schemas.update(answers or {})
    for schema in schemas.values():
        check_schema(schema)
    return schemas


async def pause(
    response: ModelResponse[object],
    store: Store,
    *,
    tools: Sequence[str | Tool] = (),
    answer_schemas: Mapping[str, dict[str, JSON]] | None = None,
    keep_until: datetime | None = None,
) -> PausedTurn | None:
    """Keep a turn that paused on tool interrupts; say what is pending.

    The turn's history (``response.messages``, in Genkit's wire JSON) is
    kept in *store* (`Store.keep`) under a fresh id, with a ref minted for every tool
    request of the paused message that had none or a repeated one. The
    interrupts returned are derived from that record, as a resume derives
    them.

    Args:
        response: What ``ai.generate`` returned; it paused when its
            ``finish_reason`` is ``"interrupted"`` and a tool request of its
            message is marked so: ``metadata.interrupt`` true or an object
            (``{}`` included, as Genkit JS writes ``interrupt({})``), and no
            ``pendingOutput`` (a result, as Genkit reads it when resuming).
        store: Where the paused turn is kept: the store `resume` spends it
            in, shared by every process that resumes.
        tools: The tools the turn ran with; a ``Custom`` pause's answer must
            fit its tool's declared output schema (any JSON if none).
        answer_schemas: Answer schemas by tool name, over the tools' own
            (for a ``define_interrupt`` tool, which declares none). Kept
            with the turn, so a resume checks against what the client saw.
        keep_until: Keep the turn at least until then (`Store.expire`
            forgets it afterwards, and a resume of it is
            ``unknown_interrupt``); None keeps it for ever.

    Returns:
        The paused turn (its id, interrupts and Genkit parts), or None if
        the turn did not pause.

    Raises:
        ValueError: if a schema cannot be run (``SchemaError``).
        PayloadError: if an answer schema is not JSON.
        DecodeError: if the history is not JSON within the library's limits,
            or a paused request's ``metadata.interrupt`` is neither true nor
            an object.
    """
    if response.finish_reason != FinishReason.INTERRUPTED or response.message is None:
        return None
    history = [
        cast(
            "dict[str, JSON]",
            message.model_dump(mode="json", by_alias=True, exclude_none=True),
        )
        for message in response.messages
    ]
    content = cast("list[JSON]", history[-1]["content"])
    if not any(
        _request(part) is not None and _paused(_metadata(part)) for part in content
    ):
        return None
    schemas = _answer_schemas(tools, answer_schemas)
    turn_id = uuid.uuid4().hex
    _mint(turn_id, content)
    record = _kept.encode(schemas, dumps(history).encode())
    # What the client sees is what a resume derives from the same record; the
    # messages were Genkit's own records a moment ago, so a resume validates
    # them (`_decode`), not this.
    paused = _paused_in(turn_id, *_read(record))
    await store.keep(_kept.key("genkit", turn_id), record, keep_until)
    return PausedTurn(turn_id, paused.interrupts, paused.parts)


async def _load(turn_id: object, store: Store) -> _Kept:
    return _decode(*await _kept.read_back(store, "genkit", turn_id, "Genkit turn"))


async def load_paused(turn_id: str, store: Store) -> PausedTurn:
    """Read a paused turn back from the store (in any process).

    It lists what was paused; whether it was already resumed is known to
    the `Store` only, and a resume of a spent turn is ``consumed``.

    Args:
        turn_id: A `PausedTurn.id`.
        store: Where it was kept.

    Returns:
        The paused turn, derived from the kept state.

    Raises:
        ResumeRejected: ``unknown_interrupt`` if no turn has this id.
        DecodeError: if the kept record is damaged.
    """
    kept = await _load(turn_id, store)
    return PausedTurn(turn_id, kept.interrupts, kept.parts)


def _genkit_parts(
    kept: _Kept, resolved: ResolvedResume
) -> tuple[list[Part], list[Part]]:
    """Genkit's respond and restart parts, from validated answers only."""
    respond: list[Part] = []
    restart: list[Part] = []
    # Genkit gets plain copies of the answers' JSON (`copy_json`): the records
    # keep theirs, which cannot change.
    for answer in resolved.answers:
        pending, entry = answer.interrupt, answer.entry
        part = kept.by_ref[pending.ref]
        if isinstance(entry, Respond):
            respond.append(
                respond_to_interrupt(copy_json(entry.output), interrupt=part)
            )
        elif isinstance(pending.kind, ApprovalPending):
            decision = decision_from_json(entry.resumed)
            if isinstance(decision, Reject):
                output = rejection(decision.reason)
                respond.append(respond_to_interrupt(output, interrupt=part))
            else:
                note = {} if decision.note is None else {"note": decision.note}
                approval = {"approve": note}
                restart.append(restart_tool(interrupt=part, resumed_metadata=approval))
        else:
            resumed = cast("dict[str, object] | None", copy_json(entry.resumed))
            restart.append(restart_tool(interrupt=part, resumed_metadata=resumed))
    return respond, restart


async def resume(
    ai: Genkit,
    turn_id: str,
    resume: Resume,
    store: Store,
    *,
    policy: ResumePolicy | None = None,
    **options: Unpack[GenerateOptions],
) -> ModelResponse[object]:
    """Answer a paused turn and continue it, at most once.

    The kept turn is loaded from *store*, *resume* is authorized and
    validated against the interrupts derived from it (completed sibling
    calls are ``not_interrupted``), the turn id is spent in *store*
    (`interruption.admit`), and only then is ``ai.generate`` called on the
    kept history with respond and restart parts built from the kept tool
    requests: a restart runs the tool with the input it paused with.

    Args:
        ai: The Genkit app (the model and tools the turn paused with).
        turn_id: The `PausedTurn.id` the client answers.
        resume: The client's answers, one per interrupt.
        store: Where the turn was kept (`pause`), and where it is spent.
        policy: The clock and who may answer; partial resumes are refused
            (Genkit needs every interrupt answered).
        **options: What ``ai.generate`` continues with (`GenerateOptions`).

    Returns:
        Genkit's response; it may pause again (`pause` it).

    Raises:
        ResumeRejected: listing every problem; nothing was spent or run.
            ``unknown_interrupt`` for an unknown turn id (with an
            authorizer, ``not_authorized`` to every principal: it is asked
            first, and no turn is there to allow; the attempt is filed
            under the id), ``consumed`` when the turn was already resumed.
        DecodeError: if the kept record is damaged.
        InvalidArgument: if *policy* allows partial resumes (a `ValueError`).
    """
    _, response = await _resume(
        ai, turn_id, resume, store, policy=policy, options=options
    )
    return response


async def _resume(  # noqa: PLR0913 - resume's arguments, passed along
    ai: Genkit,
    turn_id: str,
    answer: Resume,
    store: Store,
    *,
    policy: ResumePolicy | None,
    options: GenerateOptions,
) -> tuple[ResolvedResume, ModelResponse[object]]:
    """`resume`'s one path: what was accepted, and Genkit's response."""
    if policy is not None and policy.allow_partial:
        expected = "False: Genkit needs an answer for every interrupted tool request"
        raise InvalidArgument("resume: policy.allow_partial", expected, "True")
    try:
        kept = await _load(turn_id, store)
    except ResumeRejected as rejected:  # nothing kept: the authorizer decides
        raise _bridged.absent(rejected, policy) from None
    resolved = await admit(
        answer,
        kept.interrupts,
        store,
        session=turn_id,
        keys=_keys(turn_id, kept),
        policy=policy,
        completed=kept.completed,
    )
    respond, restart = _genkit_parts(kept, resolved)
    response: ModelResponse[object] = await ai.generate(
        messages=kept.messages,
        resume_respond=respond or None,
        resume_restart=restart or None,
        **options,
    )
    return resolved, response


def _keys(turn_id: str, kept: _Kept) -> dict[str, str]:
    """Each interrupt's spend key: the turn's one key (`admit`'s ``keys``)."""
    return dict.fromkeys((p.id for p in kept.interrupts), spent_key(turn_id))


def bridge(
    ai: Genkit,
    store: Store,
    turns: Callable[[], Iterable[str] | Awaitable[Iterable[str]]],
    *,
    policy: ResumePolicy | None = None,
    continued: Callable[[str, ModelResponse[object]], Awaitable[None] | None]
    | None = None,
    **options: Unpack[GenerateOptions],
) -> Bridge:
    """The `Bridge` to the paused Genkit turns kept in *store* (`pause`).

    The store keeps each turn under an id only the application holds, so
    *turns* lists them (a `PausedTurn.id`: the bridge's ``scope``, and the
    session its audit trail is filed under). Each is read back from the
    store as `load_paused` reads it; what is spent (through this bridge or
    `resume`: one key, `spent_key`) is not listed, and a pause is dated by
    when the library first met it (its ``paused`` audit event: Genkit's
    messages carry no time). `Bridge.answer` is `resume` (the same checks,
    spend and audit trail) with *options*, and hands Genkit's response to
    *continued*: it may have paused again (`pause` it, and list its new id).

    Args:
        ai: The Genkit app (the model and tools the turns paused with).
        store: Where the turns were kept (`pause`), and where they are spent.
        turns: The ids of the paused turns the application keeps (sync or
            async); an id the store forgot (`Store.expire`) is skipped.
        policy: The clock and the authorizer, for every call (its
            ``principal`` is each call's); partial resumes are refused, as
            `resume` refuses them.
        continued: Called with the scope and Genkit's response (sync or
            async), after each accepted answer.
        **options: What ``ai.generate`` continues with (`GenerateOptions`).

    Returns:
        A `Bridge` whose door is ``"genkit"``.
    """

    async def one(turn_id: str) -> _bridged.Paused | None:
        try:
            kept = await _load(turn_id, store)
        except ResumeRejected:  # unknown_interrupt: forgotten or never kept
            return None
        keys = _keys(turn_id, kept)
        return _bridged.Paused(turn_id, turn_id, kept.interrupts, keys, None)

    async def every() -> list[_bridged.Paused]:
        found = [await one(turn_id) for turn_id in await _bridged.listed(turns)]
        return [paused for paused in found if paused is not None]

    async def answering(
        turn_id: str, answer: Resume, policy: ResumePolicy
    ) -> ResolvedResume:
        resolved, response = await _resume(
            ai, turn_id, answer, store, policy=policy, options=options
        )
        if continued is not None:
            await _bridged.listed(lambda: continued(turn_id, response))
        return resolved

    return _bridged.Bridged(
        "genkit", store, policy or ResumePolicy(), every, one, answering
    )


def _unknown_fields(path: str, names: set[str]) -> list[Mismatch]:
    return [
        Mismatch(f"{path}.{name}", "no such field", f"unknown field {name!r}")
        for name in sorted(names)
    ]


def _entry_problems(
    part: JSON, path: str, key: str, fields: frozenset[str]
) -> tuple[list[Mismatch], dict[str, JSON]]:
    problems: list[Mismatch] = []
    if not isinstance(part, dict):
        return [Mismatch(path, f"a Genkit part with {key!r}", describe(part))], {}
    problems += _unknown_fields(path, set(part) - {key, "metadata"})
    body = part.get(key)
    if not isinstance(body, dict):
        problems.append(Mismatch(f"{path}.{key}", "an object", describe(body)))
        return problems, {}
    problems += _unknown_fields(f"{path}.{key}", set(body) - fields)
    for name in ("name", "ref"):
        value = body.get(name)
        if not isinstance(value, str) or not value:
            got = describe(value) if name in body else "missing"
            problems.append(Mismatch(f"{path}.{key}.{name}", "a non-empty string", got))
    return problems, body


def _resumed(part: dict[str, JSON], path: str, problems: list[Mismatch]) -> JSON:
    metadata = part.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    resumed = metadata.get("resumed")
    if resumed is True:
        return None
    if isinstance(resumed, dict):
        return resumed
    got = describe(resumed) if "resumed" in metadata else "missing"
    expected = "true or an object (restart_tool)"
    problems.append(Mismatch(f"{path}.metadata.resumed", expected, got))
    return None


def from_parts(*, respond: Sequence[JSON] = (), restart: Sequence[JSON] = ()) -> Resume:
    """Read a Genkit client's answers into a `Resume`, strictly.

    *respond* holds ``respond_to_interrupt`` parts
    (``{"toolResponse": {"name", "ref", "output"}, "metadata": ...}``),
    *restart* holds ``restart_tool`` parts (``{"toolRequest": {"name",
    "ref", "input"}, "metadata": {"resumed": true | {...}}}``), as JSON.
    A restart's input is carried as sent, so a changed one is
    ``input_modified`` when the resume is validated; an approval is a
    restart whose resumed metadata is a decision (``{"approve": {}}``,
    ``{"reject": {"reason": ...}}``).

    Args:
        respond: The parts of ``resume_respond``.
        restart: The parts of ``resume_restart``.

    Returns:
        The same answers as a `Resume`, for `resume`.

    Raises:
        DecodeError: listing every part that is not such a part, with its
            path (``$.respond[0].toolResponse.ref``).
    """
    problems: list[Mismatch] = []
    responds: list[Respond] = []
    restarts: list[Restart] = []
    response_fields = frozenset({"name", "ref", "output"})
    for index, part in enumerate(respond):
        path = f"$.respond[{index}]"
        found, body = _entry_problems(part, path, "toolResponse", response_fields)
        problems += found
        if not found:
            output = body.get("output")
            responds.append(
                Respond(cast("str", body["name"]), cast("str", body["ref"]), output)
            )
    request_fields = frozenset({"name", "ref", "input"})
    for index, part in enumerate(restart):
        path = f"$.restart[{index}]"
        found, body = _entry_problems(part, path, "toolRequest", request_fields)
        resumed = _resumed(part, path, found) if isinstance(part, dict) else None
        problems += found
        if not found:
            name, ref = cast("str", body["name"]), cast("str", body["ref"])
            restarts.append(Restart(name, ref, resumed, body.get("input")))
    if problems:
        raise DecodeError(problems)
    return Resume(respond=responds, restart=restarts)
