"""One tool call's stages: the pause before, the approval, the run, the pause after.

The loop (`interruption.runtime.loop`) turns each tool request of a batch into a
`Call` and gets back one `Outcome`: a response, a pause, or both (a pause
after the tool ran holds its output). A restarted call starts at a later
stage (`restart`). What the loop makes of a pause raised in a tool, alone or
in an exception group, is written in the loop's module docstring and carried
out here (`_settle`). The options every stage reads are a `Config`, built and
checked once per dispatch.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Literal, TypeAlias, final

import attrs

from interruption.errors import (
    DecodeError,
    InvalidArgument,
    PauseRefused,
    PayloadError,
    Problem,
    ProblemCode,
)
from interruption.kinds import ApprovalPending, InterruptionKind, Phase, ScheduledPause
from interruption.parts import ToolRequest, ToolResponse
from interruption.pause import Interrupted
from interruption.resume import PendingInterrupt
from interruption.runtime.approval import (
    Approver,
    AwaitExternal,
    Reject,
    decide,
    decision_from_json,
)
from interruption.runtime.schedule import PauseSchedule
from interruption.runtime.tools import Tool, ToolContext, ToolContractError
from interruption.validation import utc_now
from interruption.wire import JSON, copy_json

OnToolError: TypeAlias = Literal["respond", "raise"]
"""What a tool's failure becomes: a response telling the model, or raised."""


def _table(tools: Iterable[Tool[Any, Any, Any]]) -> Mapping[str, Tool[Any, Any, Any]]:
    table: dict[str, Tool[Any, Any, Any]] = {}
    for tool in tools:
        if tool.name in table:
            raise InvalidArgument(
                "tools", "tools of distinct names", f"two named {tool.name!r}"
            )
        table[tool.name] = tool
    return table


def _at_least_one(
    _instance: object, attribute: attrs.Attribute[int], value: int
) -> None:
    if value < 1:
        raise InvalidArgument(attribute.name, "at least 1", repr(value))


def _respond_or_raise(
    _instance: object, attribute: attrs.Attribute[str], value: str
) -> None:
    if value not in ("respond", "raise"):  # a tuple: an unhashable value is refused too
        raise InvalidArgument(attribute.name, "'respond' or 'raise'", repr(value))


@final
@attrs.frozen
class Config:
    """A dispatch's options (`LoopOptions`), checked once, then only read.

    Raises:
        InvalidArgument: for two tools of one name, ``max_turns`` below 1, or
            an ``on_tool_error`` other than ``"respond"`` and ``"raise"``.

    Attributes:
        tools: The tools by name (names are unique).
        approver: Decides per call whether it runs; None runs every call.
        schedule: Tools to pause before or after.
        max_turns: How many times the model may be called (at least 1).
        on_tool_error: ``"respond"`` or ``"raise"``.
        ttl: How long pauses accept answers (a tool's own wins), or None.
        now: The clock (UTC).
    """

    tools: Mapping[str, Tool[Any, Any, Any]] = attrs.field(default=(), converter=_table)
    approver: Approver | None = None
    schedule: PauseSchedule = attrs.field(factory=PauseSchedule)
    max_turns: int = attrs.field(default=10, validator=_at_least_one)
    on_tool_error: OnToolError = attrs.field(
        default="respond", validator=_respond_or_raise
    )
    ttl: timedelta | None = None
    now: Callable[[], datetime] = utc_now


def ref_of(request: ToolRequest) -> str:
    """The ref of a request the loop gave one (every request it runs)."""
    if request.ref is None:  # pragma: no cover - the loop assigns every ref
        msg = f"a request of {request.name!r} without a ref reached the loop"
        raise RuntimeError(msg)
    return request.ref


@final
class Stage(enum.IntEnum):
    """The stages of a call, in order; a call runs those from its start on."""

    BEFORE = 0
    """The scheduled pause before the tool."""
    APPROVAL = 1
    """The approver."""
    RUN = 2
    """The tool, then the scheduled pause after it."""


@final
@attrs.frozen
class Call:
    """One tool call as the loop runs it.

    Attributes:
        request: The call, with the input it runs with.
        start: The first stage to run.
        resumed: A client's ``resumed`` data, on a restart.
        approved: Whether a human approved the call.
        restarted: Whether a client restarted a call that paused itself.
        original_input: The model's input when a restart replaced it, else
            None.
        ref: The call's ref (the loop assigns every one).
    """

    request: ToolRequest
    start: Stage = Stage.BEFORE
    resumed: JSON = None
    approved: bool = False
    restarted: bool = False
    original_input: JSON = None
    ref: str = attrs.field(init=False)

    @ref.default
    def _ref(self) -> str:
        return ref_of(self.request)

    def answer(self, output: JSON) -> ToolResponse:
        """The call's response carrying *output*."""
        return ToolResponse(self.request.name, self.ref, output)


@final
@attrs.frozen
class Outcome:
    """What one call came to: a response, a pause, or both.

    Attributes:
        call: The call.
        response: Its result, if it has one (a pause after the tool holds
            the output it ran to).
        pause: What is pending, if it paused.
    """

    call: Call
    response: ToolResponse | None = None
    pause: PendingInterrupt | None = None


def _shown(request: ToolRequest, **more: JSON) -> dict[str, JSON]:
    """What an approval or a scheduled pause shows the human."""
    return {"tool": request.name, "input": request.input, **more}


def _rejected(call: Call, decision: Reject) -> ToolResponse:
    return call.answer({"status": "rejected", "reason": decision.reason})


def _error(call: Call, text: str) -> ToolResponse:
    return call.answer({"error": text})


def _pending(
    config: Config,
    tool: Tool[Any, Any, Any],
    call: Call,
    kind: InterruptionKind,
    payload: JSON,
) -> PendingInterrupt:
    accepts = tool.accepts(kind)
    ttl = tool.ttl if tool.ttl is not None else config.ttl
    return PendingInterrupt(
        id=call.ref,
        kind=kind,
        payload=payload,
        tool=call.request,
        accepts=accepts,
        expires_at=config.now() + ttl if ttl is not None else None,
        on_expiry=tool.on_expiry if accepts.respond is not None else None,
    )


async def run(config: Config, call: Call) -> Outcome:
    """Run *call*'s stages from its start; return what it came to.

    Raises:
        BaseException: what passes through the loop (see its docstring):
            the tool's failures with ``on_tool_error="raise"``, and what is
            neither a pause nor an `Exception`.
    """
    request = call.request
    tool = config.tools.get(request.name)
    if tool is None:
        return Outcome(call, _error(call, f"unknown tool {request.name!r}"))
    if call.start <= Stage.BEFORE and request.name in config.schedule.before:
        kind = ScheduledPause(Phase.BEFORE, request.name)
        return Outcome(call, pause=_pending(config, tool, call, kind, _shown(request)))
    if (
        call.start <= Stage.APPROVAL
        and config.approver is not None
        and not call.approved
    ):
        held = await _approval(config, config.approver, tool, call)
        if held is not None:
            return held
    try:
        resumed = None if call.resumed is None else tool.parse_resumed(call.resumed)
        ctx: ToolContext[Any] = ToolContext(
            request.name,
            call.ref,
            resumed,
            restarted=call.restarted,
            approved=call.approved,
            # A copy, as the tool's input and resumed data (Tool.parse_input):
            # what the tool does to it changes no record.
            original_input=copy_json(call.original_input),
        )
        output = await tool.invoke(ctx, request.input)
    except (Interrupted, BaseExceptionGroup) as raised:
        return _settle(config, tool, call, raised)
    except ToolContractError as broken:
        if broken.side == "output" and config.on_tool_error == "raise":
            raise PayloadError(broken.problems) from None
        return Outcome(call, _error(call, str(broken)))
    except Exception as error:  # noqa: BLE001 - told to the model, or re-raised
        return _failed(config, call, error, [error])
    response = call.answer(output)
    if request.name in config.schedule.after:
        kind = ScheduledPause(Phase.AFTER, request.name)
        payload = _shown(request, output=output)
        return Outcome(call, response, _pending(config, tool, call, kind, payload))
    return Outcome(call, response)


async def _approval(
    config: Config, approver: Approver, tool: Tool[Any, Any, Any], call: Call
) -> Outcome | None:
    """Ask *approver*; None lets the call run, else its pause or refusal.

    Fails closed: an approver that raises (or answers no decision) refuses
    the call, which does not run.
    """
    try:
        decision = await decide(approver, call.request)
    except Exception as error:
        if config.on_tool_error == "raise":
            raise
        reason = (
            f"the approver failed ({type(error).__name__}: {error}); "
            "the call was not run"
        )
        return Outcome(call, _rejected(call, Reject(reason)))
    if isinstance(decision, AwaitExternal):
        kind = ApprovalPending(call.ref)
        pause = _pending(config, tool, call, kind, _shown(call.request))
        return Outcome(call, pause=pause)
    if isinstance(decision, Reject):
        return Outcome(call, _rejected(call, decision))
    return None


def _leaves(error: BaseException | None) -> list[BaseException]:
    """The exceptions of a (nested) group, depth-first; a lone one is its own."""
    if error is None:
        return []
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


def _refusal(call: Call, pause: Interrupted) -> PauseRefused | None:
    """Why the loop refuses *pause* from *call*'s tool, or None if it takes it."""
    name, ref = call.request.name, call.ref
    match pause.kind:
        case ScheduledPause(phase=phase, node=node):
            message = (
                f"tool {name!r} ({ref}) raised ScheduledPause({phase.value}, "
                f"{node!r}) itself; scheduled pauses belong to the loop: list the "
                "tool in schedule=PauseSchedule(...), or pause with ctx.interrupt()"
            )
        case ApprovalPending(tool_use_id=asked) if asked != ref:
            message = (
                f"tool {name!r} ({ref}) raised ApprovalPending for "
                f"{asked!r}: expected its own call's ref {ref!r} (ctx.ref)"
            )
        case ApprovalPending() if call.approved:
            message = (
                f"tool {name!r} ({ref}) asked for approval again after a "
                "human approved the call; check ctx.approved before asking"
            )
        case _:
            return None
    refused = PauseRefused(name, ref, pause.kind, message)
    refused.__cause__ = pause
    return refused


def _settle(
    config: Config,
    tool: Tool[Any, Any, Any],
    call: Call,
    raised: Interrupted | BaseExceptionGroup[BaseException],
) -> Outcome:
    """Make a pause, or a group of pauses and failures, into an outcome.

    The rules are the loop's module docstring's: a failure in the group wins
    over its pauses; of pauses only, an approval wins, else the first.

    Raises:
        BaseException: *raised* as it was, when it holds something that is
            neither a pause nor an `Exception`; the tool's failures with
            ``on_tool_error="raise"``.
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
        refused for pause in pauses if (refused := _refusal(call, pause)) is not None
    ]
    if failures is not None:
        errors.append(failures)
    if errors:
        return _failed(config, call, raised, errors)
    pause = next(
        (pause for pause in pauses if isinstance(pause.kind, ApprovalPending)),
        pauses[0],
    )
    return Outcome(call, pause=_pending(config, tool, call, pause.kind, pause.payload))


def _failed(
    config: Config, call: Call, raised: BaseException, errors: Sequence[Exception]
) -> Outcome:
    """Tell the model the tool failed, or raise its failure.

    Raises:
        Exception: with ``on_tool_error="raise"``: what the tool raised if it
            was only failures; else its failures and refused pauses (an
            `ExceptionGroup` when there are several).
    """
    if config.on_tool_error == "raise":
        error = (
            errors[0]
            if len(errors) == 1
            else ExceptionGroup(f"tool {call.request.name!r} failed", errors)
        )
        if error is raised:
            raise error
        raise error from error.__cause__
    text = "; ".join(
        f"{type(leaf).__name__}: {leaf}" for error in errors for leaf in _leaves(error)
    )
    return Outcome(call, _error(call, text))


def restart(  # noqa: PLR0913 - the answer, what the turn holds, and two facts
    pending: PendingInterrupt,
    request: ToolRequest,
    resumed: JSON,
    held: Mapping[str, ToolResponse],
    *,
    keep: bool,
    original_input: JSON = None,
) -> Call | ToolResponse | Problem | None:
    """What a validated restart of *pending* (running as *request*) comes to.

    A call to run, from the stage the pause's kind says; a response (an
    approval's rejection); a problem, when the answer cannot be carried out;
    or None, when a pause after a tool continues with its *held* output.

    Args:
        pending: The interrupt the restart answers.
        request: The call as it runs again (with a replaced input, if any).
        resumed: The restart's ``resumed`` data.
        held: The outputs the turn holds, by ref.
        keep: The call was approved and its input is the same, so it is
            not asked about again.
        original_input: The model's input when the restart replaced it.
    """
    call = Call(request, original_input=original_input)
    match pending.kind:
        case ScheduledPause(phase=Phase.AFTER):
            if call.ref in held:
                return None
            message = (
                f"{pending.id} paused after {request.name!r}, but the turn holds "
                "no output of it to continue with"
            )
            return Problem(
                ProblemCode.ANSWER_NOT_ACCEPTED, message, interrupt_id=pending.id
            )
        case ScheduledPause(phase=Phase.BEFORE):
            return attrs.evolve(call, start=Stage.APPROVAL)
        case ApprovalPending():
            try:
                decision = decision_from_json(resumed)
            except DecodeError as error:
                message = f"{pending.id} awaits an approval decision: {error}"
                return Problem(
                    ProblemCode.SCHEMA_VIOLATION, message, interrupt_id=pending.id
                )
            if isinstance(decision, Reject):
                return _rejected(call, decision)
            return attrs.evolve(call, start=Stage.RUN, approved=True)
        case _:
            return attrs.evolve(
                call,
                start=Stage.RUN if keep else Stage.APPROVAL,
                resumed=resumed,
                approved=keep,
                restarted=True,
            )
