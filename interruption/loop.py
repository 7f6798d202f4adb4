"""The reference dispatch loop: call the model, run its tools, pause, resume.

`generate` calls the model, runs the tools it requests (a batch runs
concurrently), and either feeds their results back to the model or, when any
tool paused, ends the turn with ``finish_reason="interrupted"`` and an
`InterruptedTurn`. `resume_turn` validates a client's `Resume` against that
turn, reuses the outputs of tools that finished, answers or re-runs the
paused ones, and goes on (a re-run tool may pause again).

`generate_stream` and `resume_turn_stream` yield typed events as they happen,
so a UI can show an approval the moment it is known; `generate` and
`resume_turn` are those streams drained.

What a paused call accepts depends on its kind, not on who paused it: a
`Custom` pause of an ordinary tool accepts a respond (against the tool's
output schema) and a restart (against its resume schema), of an
interrupt-only tool a respond only; every `ApprovalPending` pause, the
approver's or one a tool raised itself, accepts only a restart carrying an
approval decision, so no client-made result can stand in for the approval.
Rejected, the model is told the reason and the tool does not run; approved,
the tool runs with ``ctx.approved`` True.

A tool pauses by raising `Interrupted`, alone or inside an exception group
(``ctx.interrupt()`` in a task of an ``asyncio.TaskGroup`` surfaces as
``BaseExceptionGroup([Interrupted(...)])``). What the loop makes of it:

* A pause, or a group (nested or not) of pauses only, is a pause. Of several
  pauses in one group an `ApprovalPending` wins, since it accepts only a
  decision and no answer to a sibling question may skip it; otherwise the
  first one found depth-first. The others come back when the tool runs again.
* A group holding a pause *and* a failure is a failure; its pauses are
  dropped. A failure is never hidden behind a question a human would answer
  without knowing of it, the call has no result so dropping its pause grants
  nothing, and ``on_tool_error="raise"`` keeps its promise to let failures
  out (without the pauses, which are nobody's to catch outside the loop).
* A group of failures only is a tool error like any exception: the model is
  told each failure's words, or with ``on_tool_error="raise"`` the group is
  re-raised as it was.
* A pause the loop does not take from a tool is refused where it was raised,
  as that tool's failure (`PauseRefused`): a `ScheduledPause` (the loop's
  `PauseSchedule` makes those), an `ApprovalPending` that names another call
  than the tool's own, or one raised after a human approved the call.
* What is neither a pause nor an `Exception` (``KeyboardInterrupt``,
  ``SystemExit``, cancellation), alone or in a group, passes through as it is.
"""

from __future__ import annotations

import asyncio
import enum
import uuid
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Coroutine,
    Iterable,
    Sequence,
)
from datetime import datetime, timedelta
from typing import (
    Any,
    Final,
    Literal,
    Protocol,
    TypeAlias,
    TypedDict,
    TypeVar,
    Unpack,
    final,
)

import attrs

from interruption._json import JSON, json_equal
from interruption._schemacheck import JSONSchema, schema_mismatches
from interruption.approval import (
    DECISION_SCHEMA,
    Approver,
    AwaitExternal,
    Reject,
    decide,
    decision_from_json,
)
from interruption.errors import (
    DecodeError,
    Interrupted,
    PauseRefused,
    PayloadError,
    Problem,
    ProblemCode,
    ResumeRejected,
)
from interruption.kinds import ApprovalPending, InterruptionKind, Phase, ScheduledPause
from interruption.parts import Message, Role, ToolRequest, ToolResponse
from interruption.resume import (
    Accepts,
    InterruptedTurn,
    PendingInterrupt,
    Respond,
    Resume,
)
from interruption.schedule import PauseSchedule
from interruption.tools import NULL_ONLY, Tool, ToolContext
from interruption.validation import (
    ResolvedResume,
    ResumePolicy,
    utc_now,
    validate_resume,
)

__all__ = [
    "FinishReason",
    "Finished",
    "GenerateResult",
    "LoopOptions",
    "Model",
    "ModelMessage",
    "ModelRequest",
    "PauseRefused",
    "Paused",
    "StreamEvent",
    "ToolFinished",
    "ToolSpec",
    "ToolStarted",
    "generate",
    "generate_stream",
    "generate_sync",
    "resume_turn",
    "resume_turn_stream",
    "resume_turn_sync",
]

T = TypeVar("T")

FinishReason: TypeAlias = Literal["stop", "interrupted", "max_turns"]
OnToolError: TypeAlias = Literal["respond", "raise"]


@final
@attrs.frozen
class ToolSpec:
    """What the model is told about a tool.

    Attributes:
        name: The tool's name.
        description: What it does.
        input_schema: The JSON Schema of its input.
        output_schema: The JSON Schema of its output.
    """

    name: str
    description: str
    input_schema: JSONSchema
    output_schema: JSONSchema


@final
@attrs.frozen
class ModelRequest:
    """One call to the model.

    Attributes:
        messages: The conversation so far.
        tools: The tools it may request.
    """

    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...]


class Model(Protocol):
    """A chat model: messages and tool specs in, one message out."""

    def __call__(self, request: ModelRequest, /) -> Awaitable[Message]:
        """Answer *request* with the model's next message."""


@final
@attrs.frozen
class GenerateResult:
    """How a dispatch ended.

    Attributes:
        finish_reason: ``"stop"`` (the model answered), ``"interrupted"``
            (a tool paused) or ``"max_turns"``.
        message: The model's last message.
        messages: The full history.
        interrupts: What is pending (empty unless interrupted).
        turn: The authoritative record to keep for the resume, or None.
    """

    finish_reason: FinishReason
    message: Message
    messages: tuple[Message, ...]
    interrupts: tuple[PendingInterrupt, ...] = ()
    turn: InterruptedTurn | None = None


@final
@attrs.frozen
class ModelMessage:
    """Event: the model spoke.

    Attributes:
        message: What it said (with refs assigned).
    """

    message: Message


@final
@attrs.frozen
class ToolStarted:
    """Event: a tool call started.

    Attributes:
        request: The call.
    """

    request: ToolRequest


@final
@attrs.frozen
class ToolFinished:
    """Event: a tool call has its result.

    Attributes:
        response: The result.
    """

    response: ToolResponse


@final
@attrs.frozen
class Paused:
    """Event: a tool call paused for a human.

    Attributes:
        interrupt: What is pending.
    """

    interrupt: PendingInterrupt


@final
@attrs.frozen
class Finished:
    """Event: the dispatch ended; always the last event.

    Attributes:
        result: The same result `generate` returns.
    """

    result: GenerateResult


StreamEvent: TypeAlias = ModelMessage | ToolStarted | ToolFinished | Paused | Finished
"""What the streams yield; narrow it with ``match``."""

Record: TypeAlias = Callable[[Message | ToolResponse], Awaitable[None]]
"""Where a continuation writes each step as it takes it (a `Session`'s store):
every message it adds to the history, and every tool result as it arrives."""


@final
class _Stage(enum.IntEnum):
    BEFORE = 0
    APPROVAL = 1
    RUN = 2
    AFTER = 3


@attrs.frozen
class _Outcome:
    request: ToolRequest
    response: ToolResponse | None = None
    pause: PendingInterrupt | None = None
    approved: bool = False


@attrs.frozen
class _Job:
    request: ToolRequest
    stage: _Stage
    resumed: JSON = None
    approved: bool = False
    restarted: bool = False


def _pause_payload(
    request: ToolRequest, output: JSON = None, *, with_output: bool = False
) -> JSON:
    payload: dict[str, JSON] = {"tool": request.name, "input": request.input}
    if with_output:
        payload["output"] = output
    return payload


def _error(request: ToolRequest, text: str) -> ToolResponse:
    return ToolResponse(request.name, request.ref or "", {"error": text})


_DECISION_ONLY: Final = Accepts(restart=DECISION_SCHEMA)
"""What every approval pause accepts: a restart carrying a decision."""


def _leaves(error: BaseException | None) -> list[BaseException]:
    """The exceptions of a (nested) group, depth-first; a lone one is its own."""
    if error is None:
        return []
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


def _refusal(
    request: ToolRequest, pause: Interrupted, *, approved: bool
) -> PauseRefused | None:
    """Why the loop refuses *pause* from *request*'s tool, or None if it takes it."""
    ref = request.ref or ""
    match pause.kind:
        case ScheduledPause(phase=phase, node=node):
            message = (
                f"tool {request.name!r} ({ref}) raised ScheduledPause({phase.value}, "
                f"{node!r}) itself; scheduled pauses belong to the loop: list the "
                "tool in schedule=PauseSchedule(...), or pause with ctx.interrupt()"
            )
        case ApprovalPending(tool_use_id=asked) if asked != ref:
            message = (
                f"tool {request.name!r} ({ref}) raised ApprovalPending for "
                f"{asked!r}: expected its own call's ref {ref!r} (ctx.ref)"
            )
        case ApprovalPending() if approved:
            message = (
                f"tool {request.name!r} ({ref}) asked for approval again after a "
                "human approved the call; check ctx.approved before asking"
            )
        case _:
            return None
    refused = PauseRefused(request.name, ref, pause.kind, message)
    refused.__cause__ = pause
    return refused


@attrs.define
class _Runner:
    model: Model
    tools: dict[str, Tool[Any, Any, Any]]
    approver: Approver | None
    schedule: PauseSchedule
    max_turns: int
    on_tool_error: OnToolError
    ttl: timedelta | None
    now: Callable[[], datetime]
    session: str

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        return tuple(
            ToolSpec(tool.name, tool.description, tool.input_schema, tool.output_schema)
            for tool in self.tools.values()
        )

    def expires(self, tool: Tool[Any, Any, Any] | None) -> datetime | None:
        ttl = tool.ttl if tool is not None and tool.ttl is not None else self.ttl
        return self.now() + ttl if ttl is not None else None

    def pending(
        self,
        request: ToolRequest,
        kind: InterruptionKind,
        payload: JSON,
        accepts: Accepts,
    ) -> PendingInterrupt:
        tool = self.tools.get(request.name)
        return PendingInterrupt(
            id=request.ref or request.name,
            kind=kind,
            payload=payload,
            tool=request,
            accepts=accepts,
            expires_at=self.expires(tool),
            on_expiry=tool.on_expiry
            if tool is not None and accepts.respond is not None
            else None,
        )

    async def approval(
        self, approver: Approver, request: ToolRequest
    ) -> _Outcome | None:
        """Ask *approver*; None lets the call run, else its pause or refusal.

        Fails closed: an approver that raises (or answers no decision)
        refuses the call, which does not run.
        """
        try:
            decision = await decide(approver, request)
        except Exception as error:
            if self.on_tool_error == "raise":
                raise
            reason = (
                f"the approver failed ({type(error).__name__}: {error}); "
                "the call was not run"
            )
            return _Outcome(request, _rejected(request, Reject(reason)))
        if isinstance(decision, AwaitExternal):
            kind = ApprovalPending(request.ref or request.name)
            return _Outcome(
                request,
                pause=self.pending(
                    request, kind, _pause_payload(request), _DECISION_ONLY
                ),
            )
        if isinstance(decision, Reject):
            return _Outcome(request, _rejected(request, decision))
        return None

    async def run(self, job: _Job) -> _Outcome:  # noqa: C901
        request = job.request
        tool = self.tools.get(request.name)
        if tool is None:
            return _Outcome(request, _error(request, f"unknown tool {request.name!r}"))
        replace = tool.input_schema if tool.replace_input else None
        stage = job.stage
        approved = job.approved
        if stage <= _Stage.BEFORE and request.name in self.schedule.before:
            kind = ScheduledPause(Phase.BEFORE, request.name)
            accepts = Accepts(restart=NULL_ONLY, replace_input=replace)
            return _Outcome(
                request,
                pause=self.pending(request, kind, _pause_payload(request), accepts),
            )
        if stage <= _Stage.APPROVAL and self.approver is not None and not approved:
            held = await self.approval(self.approver, request)
            if held is not None:
                return held
        bad_input = schema_mismatches(request.input, tool.input_schema, "$.input")
        if bad_input:
            text = "invalid input: " + "; ".join(map(str, bad_input))
            return _Outcome(request, _error(request, text), approved=approved)
        ctx: ToolContext[Any] = ToolContext(
            request.name,
            request.ref or "",
            None,
            restarted=job.restarted,
            approved=approved,
        )
        try:
            ctx.resumed = (
                tool.parse_resumed(job.resumed) if job.resumed is not None else None
            )
            output = await tool.call(ctx, request.input)
        except (Interrupted, BaseExceptionGroup) as raised:
            return self.settle(request, tool, raised, approved=approved)
        except Exception as error:  # noqa: BLE001 - told to the model, or re-raised
            return self.failed(request, error, [error], approved=approved)
        bad_output = schema_mismatches(output, tool.output_schema, "$.output")
        if bad_output:
            text = "the tool's output does not fit its schema: " + "; ".join(
                map(str, bad_output)
            )
            if self.on_tool_error == "raise":
                raise PayloadError(bad_output)
            return _Outcome(request, _error(request, text), approved=approved)
        response = ToolResponse(request.name, request.ref or "", output)
        if stage <= _Stage.RUN and request.name in self.schedule.after:
            kind = ScheduledPause(Phase.AFTER, request.name)
            payload = _pause_payload(request, output, with_output=True)
            pending = self.pending(request, kind, payload, Accepts(restart=NULL_ONLY))
            return _Outcome(request, response, pending, approved=approved)
        return _Outcome(request, response, approved=approved)

    def settle(
        self,
        request: ToolRequest,
        tool: Tool[Any, Any, Any],
        raised: Interrupted | BaseExceptionGroup[BaseException],
        *,
        approved: bool,
    ) -> _Outcome:
        """Make a pause, or a group of pauses and failures, into an outcome.

        The rules are the module docstring's: a failure in the group wins
        over its pauses; of pauses only, an approval wins, else the first.

        Raises:
            BaseException: *raised* as it was, when it holds something that
                is neither a pause nor an `Exception`; the tool's failures
                with ``on_tool_error="raise"``.
        """
        failures: Exception | None = None
        if isinstance(raised, Interrupted):
            pauses = [raised]
        else:
            found, rest = raised.split(Interrupted)
            if rest is not None:
                if not isinstance(rest, Exception):
                    raise raised  # KeyboardInterrupt, SystemExit, cancellation
                # split() copies even when nothing matched: keep the original.
                failures = (
                    raised if found is None and isinstance(raised, Exception) else rest
                )
            pauses = [leaf for leaf in _leaves(found) if isinstance(leaf, Interrupted)]
        errors: list[Exception] = [
            refused
            for pause in pauses
            if (refused := _refusal(request, pause, approved=approved)) is not None
        ]
        if failures is not None:
            errors.append(failures)
        if errors:
            return self.failed(request, raised, errors, approved=approved)
        pause = next(
            (pause for pause in pauses if isinstance(pause.kind, ApprovalPending)),
            pauses[0],
        )
        if isinstance(pause.kind, ApprovalPending):
            accepts = _DECISION_ONLY
        else:
            replace = tool.input_schema if tool.replace_input else None
            accepts = Accepts(
                respond=tool.output_schema,
                restart=None if tool.interrupt_only else tool.resume_schema,
                replace_input=None if tool.interrupt_only else replace,
            )
        pending = self.pending(request, pause.kind, pause.payload, accepts)
        return _Outcome(request, pause=pending, approved=approved)

    def failed(
        self,
        request: ToolRequest,
        raised: BaseException,
        errors: Sequence[Exception],
        *,
        approved: bool,
    ) -> _Outcome:
        """Tell the model the tool failed, or raise its failure.

        Raises:
            Exception: with ``on_tool_error="raise"``: what the tool raised
                if it was only failures; else its failures and refused pauses
                (an `ExceptionGroup` when there are several).
        """
        if self.on_tool_error == "raise":
            error = (
                errors[0]
                if len(errors) == 1
                else ExceptionGroup(f"tool {request.name!r} failed", errors)
            )
            if error is raised:
                raise error
            raise error from error.__cause__
        text = "; ".join(
            f"{type(leaf).__name__}: {leaf}"
            for error in errors
            for leaf in _leaves(error)
        )
        return _Outcome(request, _error(request, text), approved=approved)

    async def batch(
        self, jobs: Sequence[_Job]
    ) -> AsyncIterator[StreamEvent | _Outcome]:
        for job in jobs:
            yield ToolStarted(job.request)
        tasks = [asyncio.ensure_future(self.run(job)) for job in jobs]
        try:
            for next_done in asyncio.as_completed(tasks):
                outcome = await next_done
                if outcome.response is not None and outcome.pause is None:
                    yield ToolFinished(outcome.response)
                if outcome.pause is not None:
                    yield Paused(outcome.pause)
                yield outcome
        finally:
            for task in tasks:
                task.cancel()

    async def drive(  # noqa: C901, PLR0912, PLR0913, PLR0917 - the loop's whole state
        self,
        history: list[Message],
        turn_id: int,
        responses: dict[str, ToolResponse],
        jobs: Sequence[_Job],
        approved: set[str],
        carried: Sequence[PendingInterrupt] = (),
        turns_left: int | None = None,
        record: Record | None = None,
    ) -> AsyncIterator[StreamEvent]:
        turns_left = self.max_turns if turns_left is None else turns_left
        while True:
            if jobs or carried or responses:
                pauses = list(carried)
                async for event in self.batch(jobs):
                    if isinstance(event, _Outcome):
                        if event.response is not None:
                            responses[event.request.ref or ""] = event.response
                        if event.pause is not None:
                            pauses.append(event.pause)
                        if event.approved:
                            approved.add(event.request.ref or "")
                        continue
                    if record is not None and isinstance(event, ToolFinished):
                        await record(event.response)
                    yield event
                requests = history[-1].tool_requests
                if pauses:
                    order = {
                        request.ref: index for index, request in enumerate(requests)
                    }
                    pauses.sort(key=lambda pending: order.get(pending.ref, len(order)))
                    # A call paused after it ran keeps its output, whatever
                    # schedule the continuation runs with.
                    waiting = {pending.ref for pending in pauses if not _ran(pending)}
                    completed = tuple(
                        responses[request.ref]
                        for request in requests
                        if request.ref in responses and request.ref not in waiting
                    )
                    turn = InterruptedTurn(
                        session=self.session,
                        turn_id=turn_id,
                        messages=tuple(history),
                        interrupts=tuple(pauses),
                        completed=completed,
                        created_at=self.now(),
                        approved=tuple(sorted(approved)),
                    )
                    yield Finished(
                        GenerateResult(
                            "interrupted",
                            history[-1],
                            tuple(history),
                            tuple(pauses),
                            turn,
                        )
                    )
                    return
                answered = Message(
                    Role.TOOL,
                    tuple(responses[request.ref or ""] for request in requests),
                )
                history.append(answered)
                if record is not None:
                    await record(answered)
                responses = {}
                approved = set()
            if turns_left <= 0:
                last = next(
                    (
                        message
                        for message in reversed(history)
                        if message.role is Role.MODEL
                    ),
                    history[-1],
                )
                yield Finished(GenerateResult("max_turns", last, tuple(history)))
                return
            turns_left -= 1
            message = _assign_refs(
                await self.model(ModelRequest(tuple(history), self.specs)), history
            )
            history.append(message)
            if record is not None:
                await record(message)
            yield ModelMessage(message)
            requests = message.tool_requests
            if not requests:
                yield Finished(GenerateResult("stop", message, tuple(history)))
                return
            jobs = [_Job(request, _Stage.BEFORE) for request in requests]
            carried = ()


def _ran(pending: PendingInterrupt) -> bool:
    """Whether *pending* paused after its tool ran (its output is held)."""
    kind = pending.kind
    return isinstance(kind, ScheduledPause) and kind.phase is Phase.AFTER


def _rejected(request: ToolRequest, decision: Reject) -> ToolResponse:
    output: JSON = {"status": "rejected", "reason": decision.reason}
    return ToolResponse(request.name, request.ref or "", output)


def _assign_refs(message: Message, history: Sequence[Message]) -> Message:
    """Give every tool request a ref unique within the session."""
    used = {request.ref for earlier in history for request in earlier.tool_requests}
    counter = sum(len(earlier.tool_requests) for earlier in history)
    parts = []
    changed = False
    for part in message.parts:
        if isinstance(part, ToolRequest):
            ref = part.ref
            if ref is None or ref in used:
                counter += 1
                while f"call-{counter}" in used:
                    counter += 1
                ref = f"call-{counter}"
                part = attrs.evolve(part, ref=ref)  # noqa: PLW2901 - the part, with its ref
                changed = True
            used.add(ref)
        parts.append(part)
    return Message(message.role, tuple(parts)) if changed else message


class LoopOptions(TypedDict, total=False):
    """How a dispatch runs; every loop function and `Session` take these.

    Attributes:
        tools: The tools the model may call.
        approver: Decides per tool call whether it runs, is refused, or
            awaits a human; None (the default) runs every call.
        schedule: Nodes (tools) to pause before or after.
        max_turns: How many times the model may be called (default 10).
        on_tool_error: ``"respond"`` (the default) tells the model a tool
            failed; ``"raise"`` lets the exception out.
        ttl: How long pauses accept answers; None (the default) for no
            limit. A tool's own ``ttl`` wins.
        now: The clock (UTC), for tests.
    """

    tools: Iterable[Tool[Any, Any, Any]]
    approver: Approver | None
    schedule: PauseSchedule | None
    max_turns: int
    on_tool_error: OnToolError
    ttl: timedelta | None
    now: Callable[[], datetime] | None


def _runner(model: Model, session: str | None, options: LoopOptions) -> _Runner:
    unknown = set(options) - set(LoopOptions.__annotations__)
    if unknown:
        msg = f"unknown loop options: {', '.join(sorted(unknown))}"
        raise TypeError(msg)
    table: dict[str, Tool[Any, Any, Any]] = {}
    for tool in options.get("tools", ()):
        if tool.name in table:
            msg = f"two tools are named {tool.name!r}"
            raise ValueError(msg)
        table[tool.name] = tool
    max_turns = options.get("max_turns", 10)
    if max_turns < 1:
        msg = f"max_turns: expected at least 1, got {max_turns}"
        raise ValueError(msg)
    on_tool_error = options.get("on_tool_error", "respond")
    if on_tool_error not in {"respond", "raise"}:
        msg = f"on_tool_error: expected 'respond' or 'raise', got {on_tool_error!r}"
        raise ValueError(msg)
    return _Runner(
        model=model,
        tools=table,
        approver=options.get("approver"),
        schedule=options.get("schedule") or PauseSchedule(),
        max_turns=max_turns,
        on_tool_error=on_tool_error,
        ttl=options.get("ttl"),
        now=options.get("now") or utc_now,
        session=session or uuid.uuid4().hex,
    )


def _history(messages: Sequence[Message] | str) -> list[Message]:
    if isinstance(messages, str):
        return [Message.of_text(Role.USER, messages)]
    history = list(messages)
    if not history:
        msg = "messages: expected at least one message, got none"
        raise ValueError(msg)
    return history


async def generate_stream(
    model: Model,
    messages: Sequence[Message] | str,
    *,
    session: str | None = None,
    **options: Unpack[LoopOptions],
) -> AsyncIterator[StreamEvent]:
    """Run a dispatch, yielding events as they happen; `Finished` comes last.

    Args:
        model: The model to call.
        messages: The conversation so far, or one user text.
        session: The session id; a fresh one when None.
        **options: `LoopOptions`: tools, approver, schedule, max_turns,
            on_tool_error, ttl, now.

    Yields:
        `ModelMessage`, `ToolStarted`, `ToolFinished`, `Paused`, and last
        `Finished` with the same result `generate` returns.
    """
    runner = _runner(model, session, options)
    async for event in runner.drive(_history(messages), 1, {}, (), set()):
        yield event


async def resume_turn_stream(
    model: Model,
    turn: InterruptedTurn,
    resume: Resume,
    *,
    policy: ResumePolicy | None = None,
    **options: Unpack[LoopOptions],
) -> AsyncIterator[StreamEvent]:
    """Validate *resume* against *turn* and continue, yielding events.

    Args:
        model: The model to call.
        turn: The authoritative turn (from a store or a verified token;
            never one a client sent back).
        resume: The client's answers.
        policy: Partial resumes, expiry, authorization; strict by default.
        **options: `LoopOptions`, as for `generate_stream`.

    Yields:
        The same events as `generate_stream`.

    Raises:
        ResumeRejected: before anything runs, listing every problem.
    """
    runner = _runner(model, turn.session, options)
    if policy is None:
        policy = ResumePolicy(now=runner.now)
    resolved = validate_resume(resume, turn, policy=policy)
    async for event in _continue(runner, resolved):
        yield event


async def continue_resolved(
    model: Model, resolved: ResolvedResume, **options: Unpack[LoopOptions]
) -> AsyncIterator[StreamEvent]:
    """Continue from a resume that was validated already (by a `Session`).

    The same as `resume_turn_stream` without validating a second time: a
    second check could disagree with the first (a clock moved past an
    expiry) after the turn was consumed.

    Yields:
        The same events as `generate_stream`.
    """
    async for event in _continue(
        _runner(model, resolved.turn.session, options), resolved
    ):
        yield event


def _as_ran(asked: Message, replaced: dict[str, ToolRequest]) -> Message:
    """The model's message with replaced inputs, so responses match requests."""
    if not replaced:
        return asked
    parts = tuple(
        replaced.get(part.ref or "", part) if isinstance(part, ToolRequest) else part
        for part in asked.parts
    )
    return Message(asked.role, parts)


def _restarted(
    pending: PendingInterrupt,
    request: ToolRequest,
    resumed: JSON,
    held: dict[str, ToolResponse],
    *,
    keep: bool,
) -> _Job | ToolResponse | Problem | None:
    """What a validated restart of *pending* (as *request*) comes to.

    A job to run; a response (a rejection); a problem, when the answer
    cannot be carried out; or None, when a pause after a tool continues with
    its *held* output. *keep*: the call was approved and its input is the
    same, so it is not asked about again.
    """
    ref = request.ref or ""
    match pending.kind:
        case ScheduledPause(phase=Phase.AFTER):
            if ref in held:
                return None
            message = (
                f"{pending.id} paused after {request.name!r}, but the turn holds "
                "no output of it to continue with"
            )
            return Problem(
                ProblemCode.ANSWER_NOT_ACCEPTED, message, interrupt_id=pending.id
            )
        case ScheduledPause(phase=Phase.BEFORE):
            return _Job(request, _Stage.APPROVAL)
        case ApprovalPending():
            try:
                decision = decision_from_json(resumed)
            except DecodeError as error:
                message = f"{pending.id} awaits an approval decision: {error}"
                return Problem(
                    ProblemCode.SCHEMA_VIOLATION, message, interrupt_id=pending.id
                )
            if isinstance(decision, Reject):
                return _rejected(request, decision)
            return _Job(request, _Stage.RUN, approved=True)
        case _:
            stage = _Stage.RUN if keep else _Stage.APPROVAL
            return _Job(request, stage, resumed, keep, restarted=True)


@attrs.frozen
class _Plan:
    """Where a validated resume starts the loop: what `drive` takes."""

    history: list[Message]
    responses: dict[str, ToolResponse]
    jobs: list[_Job]
    approved: set[str]


def _plan(resolved: ResolvedResume) -> _Plan:
    """Turn a validated resume into the loop's starting state; pure.

    Raises:
        ResumeRejected: if an answer cannot be carried out, which validation
            against a turn this loop made rules out: an approval's
            ``resumed`` that is no decision, or a pause after a tool whose
            output the turn does not hold.
    """
    turn = resolved.turn
    responses = {done.ref: done for done in turn.completed}
    approved = set(turn.approved)
    jobs: list[_Job] = []
    replaced: dict[str, ToolRequest] = {}
    problems: list[Problem] = []
    for answer in resolved.answers:
        pending, entry = answer.interrupt, answer.entry
        request = pending.tool
        if request is None:  # pragma: no cover - the loop's interrupts have tools
            continue
        ref = request.ref or ""
        if isinstance(entry, Respond):
            responses[ref] = ToolResponse(request.name, ref, entry.output)
            continue
        changed = entry.input is not None and not json_equal(entry.input, request.input)
        if changed:
            request = attrs.evolve(request, input=entry.input)
            replaced[ref] = request
        keep = ref in approved and not changed
        match _restarted(pending, request, entry.resumed, responses, keep=keep):
            case _Job() as job:
                if job.approved:
                    approved.add(ref)
                jobs.append(job)
            case ToolResponse() as response:
                responses[ref] = response
            case Problem() as problem:
                problems.append(problem)
            case _:  # None: a pause after a tool continues with its held output
                pass
    if problems:
        raise ResumeRejected(problems)
    history = [*turn.messages[:-1], _as_ran(turn.messages[-1], replaced)]
    return _Plan(history, responses, jobs, approved)


async def _continue(
    runner: _Runner, resolved: ResolvedResume, record: Record | None = None
) -> AsyncIterator[StreamEvent]:
    """Carry out a validated resume; nothing runs unless every answer can be.

    Raises:
        ResumeRejected: as `_plan`.
    """
    plan = _plan(resolved)
    async for event in runner.drive(
        plan.history,
        resolved.turn.turn_id + 1,
        plan.responses,
        plan.jobs,
        plan.approved,
        resolved.unanswered,
        record=record,
    ):
        yield event


def _recovery(
    runner: _Runner,
    resolved: ResolvedResume,
    steps: Sequence[Message | ToolResponse],
    record: Record | None = None,
) -> AsyncIterator[StreamEvent]:
    """Continue where recorded *steps* of a continuation of *resolved* stopped.

    Messages the continuation added are taken as they were recorded (the
    model is not asked again for them); results recorded after the last one
    are reused; only calls without a recorded result run.
    """
    plan = _plan(resolved)
    turn_id = resolved.turn.turn_id + 1
    last = max(
        (index for index, step in enumerate(steps) if isinstance(step, Message)),
        default=None,
    )
    if last is None:
        done = {step.ref: step for step in steps if isinstance(step, ToolResponse)}
        jobs = [job for job in plan.jobs if (job.request.ref or "") not in done]
        return runner.drive(
            plan.history,
            turn_id,
            {**plan.responses, **done},
            jobs,
            plan.approved,
            resolved.unanswered,
            record=record,
        )
    said = [step for step in steps[: last + 1] if isinstance(step, Message)]
    history = [*plan.history, *said]
    turns_left = runner.max_turns - sum(m.role is Role.MODEL for m in said)
    done = {
        step.ref: step for step in steps[last + 1 :] if isinstance(step, ToolResponse)
    }
    final = said[-1]
    if final.role is Role.MODEL and not final.tool_requests:
        return _finished(GenerateResult("stop", final, tuple(history)))
    jobs = [
        _Job(request, _Stage.BEFORE)
        for request in final.tool_requests
        if (request.ref or "") not in done
    ]
    if final.role is not Role.MODEL:
        jobs, done = [], {}
    return runner.drive(
        history, turn_id, done, jobs, set(), (), turns_left=turns_left, record=record
    )


async def _finished(result: GenerateResult) -> AsyncIterator[StreamEvent]:
    yield Finished(result)


async def last_result(events: AsyncIterator[StreamEvent]) -> GenerateResult:
    async for event in events:
        if isinstance(event, Finished):
            return event.result
    msg = "the stream ended without a Finished event"  # pragma: no cover
    raise RuntimeError(msg)  # pragma: no cover


async def generate(
    model: Model,
    messages: Sequence[Message] | str,
    *,
    session: str | None = None,
    **options: Unpack[LoopOptions],
) -> GenerateResult:
    """Run a dispatch to its end or its first pause.

    Takes `generate_stream`'s arguments.

    Returns:
        How it ended; with ``finish_reason="interrupted"``, ``turn`` is the
        record to keep and ``interrupts`` what to show the client.
    """
    return await last_result(
        generate_stream(model, messages, session=session, **options)
    )


async def resume_turn(
    model: Model,
    turn: InterruptedTurn,
    resume: Resume,
    *,
    policy: ResumePolicy | None = None,
    **options: Unpack[LoopOptions],
) -> GenerateResult:
    """Validate a resume, then continue the dispatch.

    Takes `resume_turn_stream`'s arguments.

    Returns:
        How it ended (it may pause again, in a fresh turn).

    Raises:
        ResumeRejected: listing every problem; nothing ran.
    """
    events = resume_turn_stream(model, turn, resume, policy=policy, **options)
    return await last_result(events)


def run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run *coroutine* to its end for a caller without an event loop.

    Raises:
        RuntimeError: if called from inside a running event loop.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    coroutine.close()
    msg = "called from a running event loop: await the async function instead"
    raise RuntimeError(msg)


def generate_sync(
    model: Model,
    messages: Sequence[Message] | str,
    *,
    session: str | None = None,
    **options: Unpack[LoopOptions],
) -> GenerateResult:
    """`generate` for callers without an event loop; same arguments.

    Raises:
        RuntimeError: if called from inside a running event loop.
    """
    return run_sync(generate(model, messages, session=session, **options))


def resume_turn_sync(
    model: Model,
    turn: InterruptedTurn,
    resume: Resume,
    *,
    policy: ResumePolicy | None = None,
    **options: Unpack[LoopOptions],
) -> GenerateResult:
    """`resume_turn` for callers without an event loop; same arguments.

    Raises:
        ResumeRejected: listing every problem; nothing ran.
        RuntimeError: if called from inside a running event loop.
    """
    return run_sync(resume_turn(model, turn, resume, policy=policy, **options))
