"""Tools: what a model may call, and how a tool pauses for a human.

A `Tool` has a name, a description, JSON Schemas for its input, output and
(optionally) resumed data, and a function ``(ctx, input) -> output``, sync
or async. Schemas come from attrs classes (the input and resumed data are
then structured into those classes before the call, and an output record is
unstructured after it) or from plain JSON Schema dicts.

Inside the function, ``ctx.interrupt(payload)`` pauses the dispatch; when a
client restarts the call, the function runs again with ``ctx.resumed`` set
to the client's validated data.

A tool may also ask for a human's approval itself, with
``raise Interrupted(ApprovalPending(ctx.ref), payload)``. That pause is an
approval like the approver's: it accepts only a restart carrying a decision;
a rejection answers the model with the reason and never runs the tool again;
an approval runs it again with ``ctx.approved`` True, so it does not ask
twice. Asking again once approved, naming another call's ref, or raising a
`ScheduledPause` (the loop's `PauseSchedule` makes those) is a tool error.

A pause raised inside an exception group (``ctx.interrupt()`` in a task of an
``asyncio.TaskGroup``) is a pause too; the loop's module docstring says what a
group holding a pause and a failure means.

A `Tool` owns its contract: `Tool.invoke` checks the input against the input
schema, calls the function and checks the output against the output schema,
failing with `ToolContractError`; `Tool.accepts` says what each kind of pause
of one of its calls accepts (the design's table, in one place):

* an interrupt-only tool's pause (`define_interrupt`): a respond, against
  the output schema;
* an ordinary tool's ``ctx.interrupt()``: a respond against the output
  schema, or a restart whose ``resumed`` fits the resume schema (with a
  replaced input if the tool opted in);
* an approval (`ApprovalPending`): what every approval accepts (the rule
  is `accepts_of_kind`'s), for the call's own input;
* a `ScheduledPause` before the tool: a restart with ``null`` (with a
  replaced input if the tool opted in); after it: a restart with ``null``,
  and the held output stands.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from datetime import timedelta
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
    Generic,
    Literal,
    NoReturn,
    Protocol,
    TypeVar,
    final,
    overload,
)

import attrs

from interruption.errors import (
    ArgumentTypeError,
    InterruptionError,
    InvalidArgument,
    Mismatch,
    SchemaError,
)
from interruption.kinds import (
    ApprovalPending,
    Custom,
    InterruptionKind,
    Phase,
    ScheduledPause,
)
from interruption.pause import Interrupted
from interruption.resume import Accepts, ExpiryAnswer, accepts_of_kind
from interruption.schemas import JSONSchema, schema_mismatches, schema_value
from interruption.wire import (
    JSON,
    check_schema,
    copy_json,
    json_schema,
    structure,
    unstructure,
)

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = [
    "NoResumeDecorator",
    "Tool",
    "ToolContext",
    "ToolContractError",
    "define_interrupt",
    "tool",
]

I = TypeVar("I")  # noqa: E741 - the input type, as in the design
O = TypeVar("O")  # noqa: E741 - the output type
R = TypeVar("R")
Unused = TypeVar("Unused", bound=JSON)  # the context of a tool without resume data

if TYPE_CHECKING:
    # `tool`'s type variables default to JSON: a schema dict binds nothing,
    # and the function then takes and returns JSON. Type-checking only, so
    # typing_extensions is not needed at run time (typing has defaults from
    # Python 3.13).
    from typing_extensions import TypeVar as DefaultTypeVar

    In = DefaultTypeVar("In", default=JSON)
    Out = DefaultTypeVar("Out", default=JSON)
    Res = DefaultTypeVar("Res", default=JSON)

NULL_ONLY: dict[str, JSON] = {"type": "null"}


@final
class ToolContractError(InterruptionError, ValueError):
    """A call's input or a tool's output is outside the tool's schema.

    Raised by `Tool.invoke`. The loop tells the model either way (an input
    outside the schema is the model's mistake, and the tool did not run);
    with ``on_tool_error="raise"`` an output outside the schema is raised
    as a `PayloadError`.

    Attributes:
        side: ``"input"`` (the tool did not run) or ``"output"``.
        problems: Every `Mismatch` found, at ``$.input...`` or
            ``$.output...``.
    """

    code: ClassVar[str] = "tool_contract_error"

    def __init__(
        self, side: Literal["input", "output"], problems: Iterable[Mismatch]
    ) -> None:
        self.side = side
        self.problems = tuple(problems)
        found = "; ".join(map(str, self.problems))
        if side == "input":
            super().__init__(f"invalid input: {found}")
        else:
            super().__init__(f"the tool's output does not fit its schema: {found}")


@final
class ToolContext(Generic[R]):
    """What a running tool knows about its call, and how it pauses.

    Attributes:
        name: The tool's name.
        ref: This call's ref.
        resumed: None on a first run; on a restart, the client's validated
            ``resumed`` data (an instance of the resume class, if the tool
            declared one).
        restarted: Whether this run is a client's restart of a call that
            paused; tells a restart from a first run when ``resumed`` is
            None (a tool without a resume schema). False on the run that
            follows an approval decision: ``approved`` tells that one.
        approved: Whether a human approved this call (answered an approval
            pause, the approver's or the tool's own, with approve). A tool
            that asks for approval itself checks it and does not ask again:
            an approval pause raised once approved is a tool error. The run
            that follows the decision starts afresh (``resumed`` is None),
            so a tool asks for approval before it asks anything else.
        original_input: The input the model asked for, as JSON, when a
            client's restart replaced it (the tool opted in with
            ``replace_input``) and the function now gets the replacement;
            None when the call runs with the model's own input.
    """

    __slots__ = (
        "approved",
        "name",
        "original_input",
        "ref",
        "restarted",
        "resumed",
    )

    def __init__(  # noqa: PLR0913 - keyword-only facts about the call
        self,
        name: str,
        ref: str,
        resumed: R | None = None,
        *,
        restarted: bool = False,
        approved: bool = False,
        original_input: JSON = None,
    ) -> None:
        self.name = name
        self.ref = ref
        self.resumed = resumed
        self.restarted = restarted
        self.approved = approved
        self.original_input = original_input

    def interrupt(self, payload: JSON = None) -> NoReturn:
        """Pause the dispatch here, showing *payload* to the human.

        Raises:
            Interrupted: always (with a `Custom` kind).
            PayloadError: if *payload* is not JSON.
        """
        raise Interrupted(Custom(), payload)

    def __repr__(self) -> str:
        return (
            f"ToolContext(name={self.name!r}, ref={self.ref!r}, "
            f"resumed={self.resumed!r}, restarted={self.restarted!r}, "
            f"approved={self.approved!r}, "
            f"original_input={self.original_input!r})"
        )


def _schema_of(
    spec: type[Any] | Mapping[str, JSON], what: str, name: str
) -> JSONSchema:
    if isinstance(spec, type):
        return json_schema(spec)
    # The tool's own immutable copy: what the caller does to *spec* later
    # changes neither its checks nor the schemas its pauses accept.
    schema: JSONSchema = schema_value(dict(spec), what)
    try:
        check_schema(schema)
    except SchemaError as error:
        where = f"tool {name!r}: its {what} schema"
        raise ArgumentTypeError(where, "a usable JSON Schema", error.message) from error
    return schema


def _a_result(
    tool: Tool[Any, Any, Any],
    _attribute: attrs.Attribute[ExpiryAnswer | None],
    answer: ExpiryAnswer | None,
) -> None:
    """An expiry answer stands for the human's result: it must fit the output."""
    if answer is None:
        return
    unfit = schema_mismatches(answer.output, tool.output_schema, "$.on_expiry.output")
    if unfit:
        where = f"tool {tool.name!r}: on_expiry"
        words = "; ".join(
            f"{m.path}: expected {m.expected}, got {m.got}" for m in unfit
        )
        raise InvalidArgument(where, "a result that fits its output schema", words)


@final
@attrs.frozen
class Tool(Generic[I, O, R]):
    """A tool a model may call.

    Build one with `tool` or `define_interrupt`.

    Attributes:
        name: The name the model calls it by.
        description: What it does, for the model.
        function: ``(ctx, input) -> output``, sync or async.
        input_schema: The JSON Schema of its input.
        output_schema: The JSON Schema of its output.
        resume_schema: The JSON Schema of ``resumed`` on a restart.
        input_type: The class its input is structured into, or None for JSON.
        resume_type: The class ``resumed`` is structured into, or None.
        replace_input: Whether a restart may replace the input.
        interrupt_only: Whether calling it always pauses (answer by respond).
        ttl: How long its pauses accept answers, or None for the default.
        on_expiry: The answer that stands when a pause expires unanswered
            (if the session allows it), or None; it must fit the output
            schema (`InvalidArgument` otherwise, when the tool is made).
    """

    name: str
    description: str
    function: Callable[[ToolContext[R], I], O | Awaitable[O]] = attrs.field(repr=False)
    input_schema: JSONSchema = attrs.field(repr=False)
    output_schema: JSONSchema = attrs.field(repr=False)
    resume_schema: JSONSchema = attrs.field(repr=False, default=NULL_ONLY)
    input_type: type[I] | None = None
    resume_type: type[R] | None = None
    replace_input: bool = False
    interrupt_only: bool = False
    ttl: timedelta | None = None
    on_expiry: ExpiryAnswer | None = attrs.field(default=None, validator=_a_result)

    def parse_input(self, data: JSON) -> I:
        """Turn a request's JSON input into what the function takes.

        Raises:
            DecodeError: if the input does not fit the input class.
        """
        if self.input_type is None:  # a copy: the record's own JSON stays as it is
            return copy_json(data)  # type: ignore[return-value]
        return structure(data, self.input_type)

    def parse_resumed(self, data: JSON) -> R | None:
        """Turn a restart's validated ``resumed`` into ``ctx.resumed``.

        Raises:
            DecodeError: if it does not fit the resume class.
        """
        if self.resume_type is None:  # a copy, as parse_input's
            return copy_json(data)  # type: ignore[return-value]
        return structure(data, self.resume_type)

    async def call(self, ctx: ToolContext[R], data: JSON) -> JSON:
        """Run the function on a JSON input; return its JSON output.

        Raises:
            Interrupted: when the tool pauses.
            PayloadError: if the output is not JSON.
        """
        result = self.function(ctx, self.parse_input(data))
        if inspect.isawaitable(result):
            result = await result
        if attrs.has(type(result)):
            return unstructure(result)
        return copy_json(result)

    async def invoke(self, ctx: ToolContext[R], data: JSON) -> JSON:
        """Run one call under the tool's contract: check, call, check.

        Args:
            ctx: The call's context.
            data: The call's JSON input.

        Returns:
            The JSON output, which fits the output schema.

        Raises:
            ToolContractError: if *data* is outside the input schema (the
                function did not run) or the output is outside the output
                schema.
            Interrupted: when the tool pauses.
            Exception: whatever the function raises (`PayloadError` for an
                output that is not JSON, `DecodeError` for an input that
                does not fit the input class).
        """
        bad_input = schema_mismatches(data, self.input_schema, "$.input")
        if bad_input:
            raise ToolContractError("input", bad_input)
        output = await self.call(ctx, data)
        bad_output = schema_mismatches(output, self.output_schema, "$.output")
        if bad_output:
            raise ToolContractError("output", bad_output)
        return output

    def accepts(self, kind: InterruptionKind) -> Accepts:
        """What a pause of one of this tool's calls accepts, by its kind.

        The module docstring's table: the one place that says it for a
        tool. An approval's answers are its kind's (`accepts_of_kind`); a
        tool's own approvals never take a new input.

        Args:
            kind: How the call paused.

        Returns:
            The answers it accepts, with their schemas.
        """
        replace = self.input_schema if self.replace_input else None
        match kind:
            case ApprovalPending():
                return accepts_of_kind(kind, Accepts())
            case ScheduledPause(phase=Phase.BEFORE):
                return Accepts(restart=NULL_ONLY, replace_input=replace)
            case ScheduledPause():
                return Accepts(restart=NULL_ONLY)
            case Custom() if self.interrupt_only:
                return Accepts(respond=self.output_schema)
            case Custom():
                return Accepts(
                    respond=self.output_schema,
                    restart=self.resume_schema,
                    replace_input=replace,
                )


class NoResumeDecorator(Protocol[I, O]):
    """What `tool` returns for a tool without resume data (no ``resume=``).

    Its function's context is ``ToolContext[None]`` (``ctx.resumed`` is
    always None: a restart carries ``null``) or, equally,
    ``ToolContext[JSON]``.
    """

    def __call__(
        self, function: Callable[[ToolContext[Unused], I], O | Awaitable[O]], /
    ) -> Tool[I, O, Unused]:
        """Turn *function* into a `Tool`."""
        ...


@overload
def tool(
    *,
    input: type[In] | Mapping[str, JSON],
    output: type[Out] | Mapping[str, JSON],
    resume: None = None,
    name: str | None = None,
    description: str | None = None,
    replace_input: bool = False,
    ttl: timedelta | None = None,
    on_expiry: ExpiryAnswer | None = None,
) -> NoResumeDecorator[In, Out]: ...


@overload
def tool(
    *,
    input: type[In] | Mapping[str, JSON],
    output: type[Out] | Mapping[str, JSON],
    resume: type[Res] | Mapping[str, JSON],
    name: str | None = None,
    description: str | None = None,
    replace_input: bool = False,
    ttl: timedelta | None = None,
    on_expiry: ExpiryAnswer | None = None,
) -> Callable[
    [Callable[[ToolContext[Res], In], Out | Awaitable[Out]]], Tool[In, Out, Res]
]: ...


def tool(  # noqa: PLR0913 - keyword-only options
    *,
    input: type[In] | Mapping[str, JSON],  # noqa: A002 - the design's word
    output: type[Out] | Mapping[str, JSON],
    resume: type[Res] | Mapping[str, JSON] | None = None,
    name: str | None = None,
    description: str | None = None,
    replace_input: bool = False,
    ttl: timedelta | None = None,
    on_expiry: ExpiryAnswer | None = None,
) -> Callable[
    [Callable[[ToolContext[Res], In], Out | Awaitable[Out]]], Tool[In, Out, Res]
]:
    """Make a `Tool` of a function ``(ctx, input) -> output``.

    Args:
        input: The input's attrs class or JSON Schema.
        output: The output's attrs class or JSON Schema.
        resume: The class or schema of ``resumed`` data on a restart; None
            means a restart carries no data (``null``).
        name: The tool's name; the function's name when None.
        description: What it does; the function's docstring when None.
        replace_input: Whether a restart may replace the input.
        ttl: How long its pauses accept answers; the session's when None.
        on_expiry: The answer that stands when a pause expires unanswered.

    Returns:
        A decorator that turns the function into a `Tool`. Without
        *resume*, the function's context may be ``ToolContext[None]``.

    Raises:
        ArgumentTypeError: if a schema dict is not a usable JSON Schema (a
            `TypeError`; its ``__cause__`` is the `SchemaError` with every
            problem).
    """

    def make(
        function: Callable[[ToolContext[Res], In], Out | Awaitable[Out]],
    ) -> Tool[In, Out, Res]:
        tool_name = name or function.__name__
        return Tool(
            name=tool_name,
            description=description or inspect.getdoc(function) or "",
            function=function,
            input_schema=_schema_of(input, "input", tool_name),
            output_schema=_schema_of(output, "output", tool_name),
            resume_schema=NULL_ONLY
            if resume is None
            else _schema_of(resume, "resume", tool_name),
            input_type=input if isinstance(input, type) else None,
            resume_type=resume if isinstance(resume, type) else None,
            replace_input=replace_input,
            ttl=ttl,
            on_expiry=on_expiry,
        )

    return make


def define_interrupt(  # noqa: PLR0913 - keyword-only options
    name: str,
    description: str,
    *,
    input: type[Any] | Mapping[str, JSON],  # noqa: A002 - the design's word
    output: type[Any] | Mapping[str, JSON],
    ttl: timedelta | None = None,
    on_expiry: ExpiryAnswer | None = None,
) -> Tool[JSON, JSON, JSON]:
    """Make an interrupt-only tool: calling it always pauses.

    The pause's payload is the call's input; a client answers it only with
    `Respond`, whose output must fit *output*.

    Args:
        name: The tool's name.
        description: What the model is asking the human, for the model.
        input: The input's attrs class or JSON Schema.
        output: The answer's attrs class or JSON Schema.
        ttl: How long its pauses accept answers; the session's when None.
        on_expiry: The answer that stands when a pause expires unanswered
            (``ExpiryAnswer("No")`` for a confirmation, say).

    Returns:
        The tool.

    Raises:
        ArgumentTypeError: if a schema dict is not a usable JSON Schema, as
            `tool`.
    """

    def pause(_ctx: ToolContext[JSON], data: JSON) -> NoReturn:
        raise Interrupted(Custom(), data)

    return Tool(
        name=name,
        description=description,
        function=pause,
        input_schema=_schema_of(input, "input", name),
        output_schema=_schema_of(output, "output", name),
        interrupt_only=True,
        ttl=ttl,
        on_expiry=on_expiry,
    )
