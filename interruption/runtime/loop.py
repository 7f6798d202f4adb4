"""The reference dispatch loop: call the model, run its tools, pause, resume.

`generate` calls the model, runs the tools it requests (a batch runs
concurrently), and either feeds their results back to the model or, when any
tool paused, ends the turn with ``finish_reason="interrupted"`` and an
`InterruptedTurn`. `resume_turn` validates a client's `Resume` against that
turn, reuses the outputs of tools that finished, answers or re-runs the
paused ones, and goes on (a re-run tool may pause again).

`generate_stream` and `resume_turn_stream` yield typed events as they happen,
so a UI can show an approval the moment it is known; `generate` and
`resume_turn` are those streams drained. A resume's stream first yields one
`ToolFinished` for every result the answers settle, in the order of the
calls and whatever kind of answer settled it (a client's respond, an
approval's rejection, the output of a call that had finished or paused after
it ran); a restarted call then runs, with `ToolStarted` and `ToolFinished`.

What a paused call accepts depends on its kind, not on who paused it
(`Tool.accepts` holds the table): every `ApprovalPending` pause, the
approver's or one a tool raised itself, accepts only a restart carrying an
approval decision, so no client-made result can stand in for the approval.
Rejected, the model is told the reason and the tool does not run; approved,
the tool runs with ``ctx.approved`` True. A restart that replaced the input
(`Tool.replace_input`) runs the tool on the replacement, with the model's
own input in ``ctx.original_input``; the history's request reads the
replacement.

Each call goes through its stages (pause before, approval, run, pause
after) in `interruption.runtime._call`; a batch of several runs concurrently, a
batch of one inline.

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
import atexit
import threading
import uuid
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Coroutine,
    Iterable,
    Mapping,
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

from interruption.errors import (
    ArgumentTypeError,
    EventLoopRunning,
    InvalidArgument,
    PauseRefused,
    Problem,
    ResumeRejected,
)
from interruption.kinds import Phase, ScheduledPause
from interruption.parts import Message, Role, ToolRequest, ToolResponse
from interruption.resume import (
    InterruptedTurn,
    PendingInterrupt,
    Respond,
    Resume,
)
from interruption.runtime._call import (
    Call,
    Config,
    OnToolError,
    Outcome,
    ref_of,
    restart,
    run,
)
from interruption.runtime.approval import Approver
from interruption.runtime.schedule import PauseSchedule
from interruption.runtime.tools import Tool
from interruption.schemas import JSONSchema
from interruption.validation import (
    ResolvedResume,
    ResumePolicy,
    utc_now,
    validate_resume,
)
from interruption.wire import json_equal

__all__ = [
    "FinishReason",
    "Finished",
    "GenerateResult",
    "LoopOptions",
    "Model",
    "ModelMessage",
    "ModelRequest",
    "OnToolError",
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

    It ran, or on a resume an answer settled it (a respond, a rejection, an
    output the turn held); either way the response enters the history.

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

Record: TypeAlias = Callable[[Sequence[Message | ToolResponse]], Awaitable[None]]
"""Where a continuation writes its steps as it takes them (a `Session`'s
store): every message it adds to the history, and the results of the calls
it runs as they arrive, those that finish together in one write. Results the
answers settle are announced, not recorded: the turn and the kept resume
hold them already."""


async def _outcomes(
    config: Config, calls: Sequence[Call]
) -> AsyncIterator[list[Outcome]]:
    """Run a batch of calls concurrently; yield outcomes as they come.

    Outcomes that are ready at the same wake-up come together (in the
    batch's order), so that their results are recorded in one write. A batch
    of one runs inline, without a task.
    """
    if len(calls) == 1:
        yield [await run(config, calls[0])]
        return
    tasks = [asyncio.ensure_future(run(config, call)) for call in calls]
    try:
        running = set(tasks)
        while running:
            done, running = await asyncio.wait(
                running, return_when=asyncio.FIRST_COMPLETED
            )
            ready: list[Outcome] = []
            failed: list[BaseException] = []
            for task in tasks:
                if task in done:
                    try:
                        ready.append(task.result())
                    except BaseException as error:  # noqa: BLE001 - raised below
                        failed.append(error)
            if ready:  # results that finished beside a failure are recorded
                yield ready
            if failed:
                raise failed[0]
    finally:
        for task in tasks:
            task.cancel()


@attrs.frozen
class _Start:
    """Where the turn loop starts: a fresh dispatch, a resume or a recovery.

    Attributes:
        history: The conversation so far; when the last message asks for
            tools, this batch is finished first.
        turn_id: The id of the turn a pause would make.
        answered: Results the batch has before anything runs: a client's
            responds, rejections, outputs carried from the turn. Announced
            as `ToolFinished`, not recorded (the turn and the kept resume
            hold them already).
        calls: The batch's calls to run.
        approved: Refs of calls a human approved earlier in this dispatch.
        carried: Interrupts left pending by a partial resume.
        turns_left: Model calls left; the options' ``max_turns`` when None.
    """

    history: tuple[Message, ...]
    turn_id: int
    answered: Mapping[str, ToolResponse] = attrs.field(factory=dict)
    calls: tuple[Call, ...] = ()
    approved: frozenset[str] = frozenset()
    carried: tuple[PendingInterrupt, ...] = ()
    turns_left: int | None = None


def _interrupted(  # noqa: PLR0913, PLR0917 - the pieces of the record
    session: str,
    start: _Start,
    history: list[Message],
    pauses: list[PendingInterrupt],
    responses: Mapping[str, ToolResponse],
    approved: Iterable[str],
    now: datetime,
) -> GenerateResult:
    """The result of a batch that paused, with the turn to keep."""
    requests = history[-1].tool_requests
    order = {ref_of(request): index for index, request in enumerate(requests)}
    pauses.sort(key=lambda pending: order.get(pending.ref, len(order)))
    # A call paused after it ran keeps its output, whatever schedule the
    # continuation runs with.
    waiting = {pending.ref for pending in pauses if not _ran(pending)}
    completed = tuple(
        responses[ref] for ref in order if ref in responses and ref not in waiting
    )
    turn = InterruptedTurn(
        session=session,
        turn_id=start.turn_id,
        messages=tuple(history),
        interrupts=tuple(pauses),
        completed=completed,
        created_at=now,
        approved=tuple(sorted(approved)),
    )
    return GenerateResult(
        "interrupted", history[-1], tuple(history), tuple(pauses), turn
    )


@attrs.frozen
class _Runner:
    """The turn loop: call the model, run each batch, end or pause."""

    model: Model
    config: Config
    session: str
    specs: tuple[ToolSpec, ...]
    refs: _Refs

    async def drive(  # noqa: C901, PLR0912, PLR0915 - the turn loop, in one place
        self, start: _Start, record: Record | None = None
    ) -> AsyncIterator[StreamEvent]:
        """Run from *start* to the end or the next pause, yielding events."""
        history = list(start.history)
        turns_left = (
            self.config.max_turns if start.turns_left is None else start.turns_left
        )
        responses = dict(start.answered)
        calls: Sequence[Call] = start.calls
        approved = set(start.approved)
        if responses:
            for request in history[-1].tool_requests:
                answer = responses.get(ref_of(request))
                if answer is not None:
                    yield ToolFinished(answer)
        carried = start.carried
        refs = self.refs
        while True:
            if calls or carried or responses:
                pauses = list(carried)
                for call in calls:
                    yield ToolStarted(call.request)
                async for ready in _outcomes(self.config, calls):
                    finished: list[ToolResponse] = []
                    for outcome in ready:
                        ref = outcome.call.ref
                        if outcome.call.approved:
                            approved.add(ref)
                        if outcome.response is not None:
                            responses[ref] = outcome.response
                        if outcome.pause is None and outcome.response is not None:
                            finished.append(outcome.response)
                    if record is not None and finished:
                        await record(finished)
                    for outcome in ready:
                        if outcome.pause is not None:
                            pauses.append(outcome.pause)
                            yield Paused(outcome.pause)
                        elif outcome.response is not None:
                            yield ToolFinished(outcome.response)
                if pauses:
                    yield Finished(
                        _interrupted(
                            self.session,
                            start,
                            history,
                            pauses,
                            responses,
                            approved,
                            self.config.now(),
                        )
                    )
                    return
                answered = Message(
                    Role.TOOL,
                    tuple(
                        responses[ref_of(request)]
                        for request in history[-1].tool_requests
                    ),
                )
                history.append(answered)
                if record is not None:
                    await record((answered,))
                responses = {}
                approved = set()
                carried = ()
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
            message = refs.assign(
                await self.model(ModelRequest(tuple(history), self.specs)), history
            )
            history.append(message)
            if record is not None:
                await record((message,))
            yield ModelMessage(message)
            requests = message.tool_requests
            if not requests:
                yield Finished(GenerateResult("stop", message, tuple(history)))
                return
            calls = [Call(request) for request in requests]


def _ran(pending: PendingInterrupt) -> bool:
    """Whether *pending* paused after its tool ran (its output is held)."""
    kind = pending.kind
    return isinstance(kind, ScheduledPause) and kind.phase is Phase.AFTER


@attrs.define
class _Refs:
    """The refs a history holds, scanned once: each turn reads only new messages.

    A drive's history only grows, so the refs of the messages already read
    are kept; assigning refs for a new model message costs what it holds,
    not what the whole conversation holds.
    """

    used: set[str] = attrs.Factory(set)
    counter: int = 0
    read: int = 0

    def assign(self, message: Message, history: Sequence[Message]) -> Message:
        """Give every tool request of *message* a ref unique within the session."""
        for earlier in history[self.read :]:
            for request in earlier.tool_requests:
                self.counter += 1
                if request.ref is not None:
                    self.used.add(request.ref)
        self.read = len(history)
        counter, mine = self.counter, set[str]()
        parts = []
        changed = False
        for part in message.parts:
            if isinstance(part, ToolRequest):
                ref = part.ref
                if ref is None or ref in self.used or ref in mine:
                    counter += 1
                    while f"call-{counter}" in self.used or f"call-{counter}" in mine:
                        counter += 1
                    ref = f"call-{counter}"
                    part = attrs.evolve(part, ref=ref)  # noqa: PLW2901 - the part, with its ref
                    changed = True
                mine.add(ref)
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


def _config(options: LoopOptions) -> Config:
    """Check *options* once; the loop then only reads the `Config`.

    Raises:
        ArgumentTypeError: naming options that do not exist (a `TypeError`,
            as for any unexpected keyword).
        InvalidArgument: for two tools of one name, ``max_turns`` below 1, or
            an ``on_tool_error`` other than ``"respond"`` and ``"raise"``.
    """
    unknown = set(options) - set(LoopOptions.__annotations__)
    if unknown:
        got = f"unknown loop options: {', '.join(sorted(unknown))}"
        raise ArgumentTypeError("options", "only the names LoopOptions declares", got)
    return Config(
        tools=options.get("tools", ()),
        approver=options.get("approver"),
        schedule=options.get("schedule") or PauseSchedule(),
        max_turns=options.get("max_turns", 10),
        on_tool_error=options.get("on_tool_error", "respond"),
        ttl=options.get("ttl"),
        now=options.get("now") or utc_now,
    )


def _runner(
    model: Model,
    session: str | None,
    options: LoopOptions | Config,
    refs: _Refs | None = None,
) -> _Runner:
    """The turn loop for *model* in *session* (a fresh id when None).

    *options*: checked here, or a `Config` checked once by a caller that
    runs many dispatches with the same options (a `Session`).
    *refs*: the refs of the session's history read so far, kept by a caller
    that drives the same append-only history again (a `Session`), so that
    each turn reads only the messages it has not read.
    """
    config = options if isinstance(options, Config) else _config(options)
    specs = tuple(
        ToolSpec(tool.name, tool.description, tool.input_schema, tool.output_schema)
        for tool in config.tools.values()
    )
    return _Runner(model, config, session or uuid.uuid4().hex, specs, refs or _Refs())


def _history(messages: Sequence[Message] | str) -> list[Message]:
    if isinstance(messages, str):
        return [Message.of_text(Role.USER, messages)]
    history = list(messages)
    if not history:
        raise InvalidArgument("messages", "at least one message", "none")
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
    async for event in runner.drive(_Start(tuple(_history(messages)), 1)):
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
        policy = ResumePolicy(now=runner.config.now)
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


def _as_ran(asked: Message, replaced: Mapping[str, ToolRequest]) -> Message:
    """The model's message with replaced inputs, so responses match requests."""
    if not replaced:
        return asked
    parts = tuple(
        replaced.get(ref_of(part), part) if isinstance(part, ToolRequest) else part
        for part in asked.parts
    )
    return Message(asked.role, parts)


def _plan(resolved: ResolvedResume) -> _Start:
    """Turn a validated resume into the turn loop's start; pure.

    Raises:
        ResumeRejected: if an answer cannot be carried out, which validation
            against a turn this loop made rules out: an approval's
            ``resumed`` that is no decision, or a pause after a tool whose
            output the turn does not hold.
    """
    turn = resolved.turn
    answered = {done.ref: done for done in turn.completed}
    calls: list[Call] = []
    replaced: dict[str, ToolRequest] = {}
    problems: list[Problem] = []
    for answer in resolved.answers:
        pending, entry = answer.interrupt, answer.entry
        request = pending.tool
        if request is None:  # pragma: no cover - the loop's interrupts have tools
            continue
        ref = pending.ref
        if isinstance(entry, Respond):
            answered[ref] = ToolResponse(request.name, ref, entry.output)
            continue
        original = None
        if entry.input is not None and not json_equal(entry.input, request.input):
            original = request.input
            request = attrs.evolve(request, input=entry.input)
            replaced[ref] = request
        keep = ref in turn.approved and original is None
        match restart(
            pending,
            request,
            entry.resumed,
            answered,
            keep=keep,
            original_input=original,
        ):
            case Call() as call:
                calls.append(call)
            case ToolResponse() as response:
                answered[ref] = response
            case Problem() as problem:
                problems.append(problem)
            case None:  # a pause after a tool continues with its held output
                pass
    if problems:
        raise ResumeRejected(problems)
    history = (*turn.messages[:-1], _as_ran(turn.messages[-1], replaced))
    return _Start(
        history,
        turn.turn_id + 1,
        answered,
        tuple(calls),
        frozenset(turn.approved),
        resolved.unanswered,
    )


def _continue(
    runner: _Runner, resolved: ResolvedResume, record: Record | None = None
) -> AsyncIterator[StreamEvent]:
    """Carry out a validated resume; nothing runs unless every answer can be.

    The turn loop's own stream, not a generator around it: one layer less
    for every event.

    Raises:
        ResumeRejected: as `_plan`, when called (every caller calls it in
            the generator or coroutine that iterates the stream).
    """
    return runner.drive(_plan(resolved), record)


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
    start = _plan(resolved)
    last = max(
        (index for index, step in enumerate(steps) if isinstance(step, Message)),
        default=None,
    )
    if last is None:
        done = {step.ref: step for step in steps if isinstance(step, ToolResponse)}
        start = attrs.evolve(
            start,
            answered={**start.answered, **done},
            calls=tuple(call for call in start.calls if call.ref not in done),
        )
        return runner.drive(start, record)
    said = [step for step in steps[: last + 1] if isinstance(step, Message)]
    history = (*start.history, *said)
    turns_left = runner.config.max_turns - sum(m.role is Role.MODEL for m in said)
    final = said[-1]
    if final.role is Role.MODEL and not final.tool_requests:
        return _finished(GenerateResult("stop", final, history))
    if final.role is not Role.MODEL:  # a whole batch answered: the model is next
        return runner.drive(
            _Start(history, start.turn_id, turns_left=turns_left), record
        )
    done = {
        step.ref: step for step in steps[last + 1 :] if isinstance(step, ToolResponse)
    }
    calls = tuple(
        Call(request) for request in final.tool_requests if ref_of(request) not in done
    )
    again = _Start(history, start.turn_id, done, calls, turns_left=turns_left)
    return runner.drive(again, record)


async def _finished(result: GenerateResult) -> AsyncIterator[StreamEvent]:
    yield Finished(result)


async def last_result(events: AsyncIterator[StreamEvent]) -> GenerateResult:
    """The result a stream ends with, draining it.

    Drained to its end (`Finished` is the last event), a stream's generators
    finish where they are, rather than being closed later by the event
    loop's finalizer (a task and a wake-up each).
    """
    result = None
    async for event in events:
        if isinstance(event, Finished):
            result = event.result
    if result is None:  # pragma: no cover - every stream ends with Finished
        msg = "the stream ended without a Finished event"
        raise RuntimeError(msg)
    return result


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

    Every blocking twin is this call around its async original. Each thread
    keeps one event loop for its blocking calls (made on its first, closed
    when the thread ends or the interpreter exits), so a call does not pay
    for a new loop. A `PostgresStore` serves the blocking callers of every
    thread from one pool on a loop of its own (within its ``max_size``):
    nothing that must outlive a call lives on this loop, since, as with
    `asyncio.run`, tasks the call left running are cancelled before it
    returns (`blocking_loop` tells such a loop). As with `asyncio.run`,
    *coroutine* runs in a copy of the caller's context: it sees the
    context variables the caller set, and what it sets stays inside.

    Raises:
        EventLoopRunning: if called from inside a running event loop (a
            `RuntimeError`), naming the function to await instead;
            *coroutine* is closed unstarted.
    """
    refuse_running_loop(coroutine)
    runner: _ThreadRunner | None = getattr(_RUNNERS, "runner", None)
    if runner is None:
        runner = _RUNNERS.runner = _ThreadRunner()
    return runner.run(coroutine)


class _ThreadRunner:
    """One thread's event loop for its blocking calls; closed with the thread."""

    __slots__ = ("_loop",)

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        if threading.current_thread() is threading.main_thread():
            atexit.register(self.close)

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        # The task runs in a copy of the caller's context, as asyncio.run's
        # does: it sees the context variables the caller set, and what it
        # sets stays in the call. (asyncio.Runner.run would run every call in
        # a copy of the first call's context, and install and remove a Ctrl-C
        # handler each time: Ctrl-C here raises KeyboardInterrupt where the
        # thread is, and the task it interrupted is cancelled below.)
        task = self._loop.create_task(coroutine)
        try:
            return self._loop.run_until_complete(task)
        finally:
            self._cancel_leftovers()

    def _cancel_leftovers(self) -> None:
        """Cancel and wait for the tasks a call left, as `asyncio.run` does."""
        left = asyncio.all_tasks(self._loop)
        if not left:
            return
        for task in left:
            task.cancel()
        self._loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))

    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The loop, unless it was closed."""
        return self._open()

    def close(self) -> None:
        """Close the loop as `asyncio.run` does (at exit); once is enough."""
        loop = self._open()
        if loop is None:
            return
        try:
            self._cancel_leftovers()
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            loop.close()

    def __del__(self) -> None:
        # Collected wherever the thread's last reference goes, maybe inside
        # another running loop: close the loop itself, running nothing.
        loop = self._open()
        if loop is not None:
            loop.close()

    def _open(self) -> asyncio.AbstractEventLoop | None:
        """The loop, unless it was closed already."""
        return None if self._loop.is_closed() else self._loop


_RUNNERS: Final = threading.local()
"""Each thread's `_ThreadRunner`, made by its first blocking call."""


def blocking_loop(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether *loop* is this thread's loop for blocking calls (`run_sync`).

    Such a loop runs only during a blocking call, and cancels what a call
    left running: nothing that must outlive a call (a pool's workers) can
    live on it.
    """
    runner: _ThreadRunner | None = getattr(_RUNNERS, "runner", None)
    return runner is not None and runner.loop() is loop


def refuse_running_loop(coroutine: Coroutine[Any, Any, object]) -> None:
    """Close *coroutine* and raise if an event loop runs in this thread.

    The check of every blocking twin, before it starts its own loop.

    Raises:
        EventLoopRunning: naming *coroutine*'s function, to await instead.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    where = getattr(coroutine, "__qualname__", "the async function")
    coroutine.close()
    raise EventLoopRunning(where)


def generate_sync(
    model: Model,
    messages: Sequence[Message] | str,
    *,
    session: str | None = None,
    **options: Unpack[LoopOptions],
) -> GenerateResult:
    """`generate` for callers without an event loop; same arguments.

    Raises:
        EventLoopRunning: if called from inside a running event loop (a
            `RuntimeError`).
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
