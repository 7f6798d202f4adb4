"""MCP elicitation: a tool's pause is a form the client's human fills in.

MCP (the ``mcp`` package, 2.x) lets a server ask the client's human for
structured input: a message and a restricted JSON Schema (a flat object of
strings, numbers, booleans and enums), answered with ``accept`` and content,
``decline`` or ``cancel``. It does so in two flows, and this adapter speaks
both:

* the handshake flow (protocol 2025-11-25 and older, ``Client(...,
  mode="legacy")``): the server sends ``elicitation/create`` in the middle
  of the tool call and the client's elicitation callback answers it;
* the 2026-07-28 flow: the tool call returns an ``InputRequiredResult``
  (``input_requests`` and a ``requestState`` that the SDK seals) and the
  client retries the call with ``inputResponses`` and that state.

On its own MCP validates an accepted answer but drops extra keys, and in the
2026 flow a retry that repeats the same state and answer runs the tool
again, as often as it is sent, for the state's whole life (600 s).

Server side, `mcp_tool` turns a `Tool` of this library (one that pauses
with `ctx.interrupt`, asks for approval with ``ApprovalPending(ctx.ref)``,
or an interrupt-only tool) into a tool of an ``MCPServer``. Each pause
becomes one form: the answer schema is checked when the tool is made (what
MCP's forms carry is carried: titled choices, multi-selects, defaults,
optional ``X | None`` fields, a class's schema; a schema MCP cannot carry
is refused, naming the part); an accepted answer gets the form's defaults
filled in, as MCP's ``ctx.elicit`` does, and is read into a `Resume` that
goes through `interruption.admit` against the pause the server itself
minted (its sealed state, or its own memory in the handshake flow), with
extra keys an error; the pause is spent once in a `Store`. ``decline`` and
``cancel`` spend it too, and stay distinct: a rejection whose reason says
which (an approval), the tool's declared expiry answer, a failed call
whose text says which, or, with ``restart_dismissed``, a run of the tool
that reads which from `dismissal`.

Client side, `elicitation_callback` turns each request into a
`PendingInterrupt` for the application's human handler and checks the
answer locally (`answer`) before sending it. `bridge` does the same for
an inbox (`interruption.Bridge`): its callback files each request as a
pending pause until someone answers it, once (see `ElicitationBridge` for
what is guaranteed on the client's side and what on the server's).
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import uuid
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from datetime import datetime, timedelta
from typing import Any, ClassVar, Final, Literal, TypeAlias, cast, final

import attrs
import jsonschema_rs

try:
    import mcp_types
    from mcp.client.session import ClientRequestContext, ElicitationFnT
    from mcp.server.mcpserver import Context
    from mcp.server.mcpserver.tools.base import Tool as McpTool
    from mcp.shared.exceptions import MCPError
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS
except ImportError as error:  # pragma: no cover - exercised in a subprocess
    _MISSING = "interruption.adapters.mcp needs the [mcp] extra: "
    _MISSING += "pip install 'interruption[mcp]'"
    raise ImportError(_MISSING) from error

from interruption import (
    JSON,
    AuditEvent,
    MemoryStore,
    Mismatch,
    PayloadError,
    PendingPause,
    Store,
    json_equal,
)
from interruption.adapters import _bridged, _kept
from interruption.errors import (
    ArgumentTypeError,
    DecodeError,
    InterruptionError,
    InvalidArgument,
    Problem,
    ProblemCode,
    ResumeRejected,
)
from interruption.kinds import ApprovalPending, Custom, tag_of
from interruption.parts import ToolRequest
from interruption.pause import Interrupted
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
    ADAPTER_TURN,
    admit,
    pause_key,
    record_paused,
    refuse,
)
from interruption.runtime.approval import Reject, decision_from_json
from interruption.runtime.bridge import newest_first
from interruption.runtime.tools import Tool, ToolContext, ToolContractError
from interruption.validation import (
    Authorize,
    ResolvedResume,
    ResumePolicy,
    utc_now,
    validate_resume,
)
from interruption.wire import (
    copy_json,
    describe,
    dumps,
    loads,
    structure,
    unstructure,
)

__all__ = [
    "ANSWER_FIELD",
    "APPROVAL_FORM",
    "REJECTED",
    "STATE_REFUSED",
    "Dismiss",
    "ElicitationBridge",
    "FormSchemaError",
    "Handler",
    "answer",
    "bridge",
    "dismissal",
    "elicitation_callback",
    "form_of",
    "mcp_tool",
    "pending_of",
    "rejection_of",
]

ANSWER_FIELD: Final = "answer"
"""The one field of a form whose answer schema is a single value."""

APPROVAL_FORM: Final[dict[str, JSON]] = {
    "type": "object",
    "properties": {
        "decision": {
            "type": "string",
            "title": "Decision",
            "enum": ["approve", "reject"],
        },
        "reason": {"type": "string", "title": "Reason (when rejecting)"},
    },
    "required": ["decision"],
}
"""The form an approval pause sends: ``approve``, or ``reject`` and a reason."""

DEFAULT_TTL: Final = timedelta(seconds=600)
"""How long a pause accepts its answer: the life of MCP's request state."""

_KEEP_SPENT: Final = timedelta(minutes=1)
"""How long a spent pause's mark outlives the pause (clocks drift)."""

Dismiss: TypeAlias = Literal["decline", "cancel"]
"""A human's refusal to answer a form, as MCP says it."""

Handler: TypeAlias = Callable[
    [PendingInterrupt], "Resume | Dismiss | Awaitable[Resume | Dismiss]"
]
"""The application's human: ``(pending) -> Resume | "decline" | "cancel"``."""


def _problems(value: object, path: str) -> list[Mismatch]:
    """Where *value* is not JSON, under *path* (none when it is)."""
    try:
        copy_json(value)  # the records' own check
    except PayloadError as error:
        return [
            Mismatch(path + found.path[1:], found.expected, found.got)
            for found in error.problems
        ]
    return []


_FORMATS: Final = frozenset({"email", "uri", "date", "date-time"})
_COMMON: Final = frozenset({"type", "title", "description", "default"})
_KEYWORDS: Final[Mapping[str, frozenset[str]]] = {
    "string": _COMMON
    | {"minLength", "maxLength", "format", "enum", "enumNames", "oneOf"},
    "number": _COMMON | {"minimum", "maximum"},
    "integer": _COMMON | {"minimum", "maximum"},
    "boolean": _COMMON,
    "array": _COMMON | {"items", "minItems", "maxItems"},
}
_OBJECT_KEYWORDS: Final = frozenset(
    {"$schema", "type", "title", "description", "properties", "required"}
)
_NULL: Final[dict[str, JSON]] = {"type": "null"}
"""The schema of no data (a tool's resume schema by default)."""
_OPTIONAL: Final = "anyOf of one primitive schema and {'type': 'null'} (X | None)"
_TITLED: Final = "a list of {'const': <string>, 'title': <string>} options"
_MULTI: Final = (
    "items of {'type': 'string', 'enum': [...]} or {'anyOf': [{'const', "
    "'title'}, ...]} (a multi-select)"
)


@final
class FormSchemaError(InterruptionError, TypeError):
    """An answer schema that an MCP elicitation form cannot carry.

    Raised by `mcp_tool` and `form_of`, when the tool is made.

    Attributes:
        problems: Every `Mismatch`: where in the schema, what MCP carries
            there, and what the schema has instead.
    """

    code: ClassVar[str] = "form_schema_error"

    def __init__(self, what: str, problems: list[Mismatch]) -> None:
        self.problems = tuple(problems)
        found = "; ".join(map(str, self.problems))
        super().__init__(f"{what} cannot be an MCP elicitation form: {found}")


def _titled(options: JSON) -> bool:
    """Whether *options* are MCP's titled choices: ``[{const, title}, ...]``."""
    return (
        isinstance(options, list)
        and bool(options)
        and all(
            isinstance(option, dict)
            and set(option) == {"const", "title"}
            and isinstance(option["const"], str)
            and isinstance(option["title"], str)
            for option in options
        )
    )


def _strings(values: JSON) -> bool:
    return isinstance(values, list) and all(isinstance(item, str) for item in values)


def _optional(
    schema: dict[str, JSON], path: str
) -> tuple[dict[str, JSON], list[Mismatch]]:
    """``X | None`` (``anyOf`` of X and null): sent as X, as MCP sends it.

    MCP's own forms write an optional field as its bare primitive, left out
    of ``required``; the answer is still checked against the tool's schema,
    which takes null as well.
    """
    choices = schema["anyOf"]
    rest = {key: value for key, value in schema.items() if key != "anyOf"}
    others = (
        [choice for choice in choices if choice != _NULL]
        if isinstance(choices, list)
        else []
    )
    if (
        not isinstance(choices, list)
        or len(choices) != 2
        or len(others) != 1
        or not isinstance(others[0], dict)
        or not set(rest) <= {"title", "description", "default"}
    ):
        return {}, [Mismatch(f"{path}.anyOf", _OPTIONAL, describe(choices))]
    merged = {**others[0], **rest}
    if merged.get("default", 0) is None:
        del merged["default"]  # MCP drops a None default
    at = f"{path}.anyOf[{choices.index(others[0])}]"
    return _primitive(merged, at)


def _primitive(schema: JSON, path: str) -> tuple[dict[str, JSON], list[Mismatch]]:
    """One property of a form, as MCP sends it (an enum gets its type)."""
    if not isinstance(schema, dict):
        return {}, [Mismatch(path, "a property schema (an object)", describe(schema))]
    if "anyOf" in schema and "type" not in schema:
        return _optional(schema, path)
    found = dict(schema)
    if "type" not in found and (
        _strings(found.get("enum")) or _titled(found.get("oneOf"))
    ):
        found["type"] = "string"
    kind = found.get("type")
    if not isinstance(kind, str) or kind not in _KEYWORDS:
        expected = "a type of string, number, integer, boolean or array"
        return {}, [Mismatch(f"{path}.type", expected, describe(kind))]
    problems = [
        Mismatch(f"{path}.{key}", f"a keyword MCP carries for a {kind}", repr(key))
        for key in found
        if key not in _KEYWORDS[kind]
    ]
    fmt = found.get("format")
    if fmt is not None and fmt not in _FORMATS:
        expected = "one of 'date', 'date-time', 'email', 'uri'"
        problems.append(Mismatch(f"{path}.format", expected, describe(fmt)))
    enum = found.get("enum")
    if kind == "string" and enum is not None and not _strings(enum):
        problems.append(Mismatch(f"{path}.enum", "a list of strings", describe(enum)))
    if "oneOf" in found and not _titled(found["oneOf"]):
        problems.append(Mismatch(f"{path}.oneOf", _TITLED, describe(found["oneOf"])))
    items = found.get("items")
    if kind == "array" and not (
        isinstance(items, dict)
        and (
            (
                set(items) == {"type", "enum"}
                and items["type"] == "string"
                and _strings(items["enum"])
            )
            or (set(items) == {"anyOf"} and _titled(items["anyOf"]))
        )
    ):
        problems.append(Mismatch(f"{path}.items", _MULTI, describe(items)))
    if not problems:
        problems.extend(_runnable(found, path))
    return found, problems


def _runnable(prop: dict[str, JSON], path: str) -> list[Mismatch]:
    """A property that is no valid schema, or a default it refuses.

    MCP would send either as it is; the client would then show, and fill
    in, what no answer could ever fit.
    """
    # Plain JSON for the validator: a tool's schema is a frozen value.
    check = copy_json({k: v for k, v in prop.items() if k != "default"})
    try:
        validator = jsonschema_rs.validator_for(
            cast("dict[str, Any]", check), validate_formats=True
        )
    except ValueError as error:
        got = str(error).partition("\n")[0]
        return [Mismatch(path, "a valid JSON Schema property", got)]
    if "default" in prop and not validator.is_valid(prop["default"]):
        expected = "a default the property accepts"
        return [Mismatch(f"{path}.default", expected, describe(prop["default"]))]
    return []


@final
@attrs.frozen
class _Form:
    """How one answer schema travels as an MCP form.

    Attributes:
        requested: The ``requestedSchema`` sent.
        answer: The schema an answer must fit (no extra keys, ever).
        wrapped: Whether the answer is the form's one `ANSWER_FIELD`.
        defaults: What an accepted answer leaves out and the form fills
            in, by field, as MCP's ``ctx.elicit`` does.
    """

    requested: dict[str, JSON]
    answer: dict[str, JSON]
    wrapped: bool
    defaults: Mapping[str, JSON] = attrs.field(factory=dict)

    def filled(self, content: dict[str, JSON]) -> dict[str, JSON]:
        """*content* with the form's defaults for the fields it leaves out."""
        return {**self.defaults, **content}


def _defaults(properties: Mapping[str, JSON]) -> dict[str, JSON]:
    return {
        name: prop["default"]
        for name, prop in properties.items()
        if isinstance(prop, dict) and prop.get("default") is not None
    }


def _object(
    schema: Mapping[str, JSON],
) -> tuple[Mapping[str, JSON], str, list[Mismatch]]:
    """The object a form is made of: *schema*, or the ``$defs`` entry it names.

    `interruption.json_schema` writes a class as ``{"$ref": "#/$defs/Name",
    "$defs": {...}}``: such a schema is a form of that one object.
    """
    ref = schema.get("$ref")
    if ref is None:
        return schema, "$", []
    defs = schema.get("$defs")
    name = ref.removeprefix("#/$defs/") if isinstance(ref, str) else ""
    extra = set(schema) - {"$schema", "$ref", "$defs"}
    found = defs.get(name) if isinstance(defs, dict) and name != ref else None
    if not isinstance(found, dict) or extra:
        expected = "a $ref to an object in $defs, and nothing beside it"
        return {}, "$", [Mismatch("$.$ref", expected, describe(ref))]
    return found, f"$.$defs.{name}", []


def _form(schema: Mapping[str, JSON], what: str) -> _Form:
    if dict(schema) == _NULL:
        empty: dict[str, JSON] = {"type": "object", "properties": {}}
        return _Form(empty, _NULL, wrapped=False)
    if (
        schema.get("type") != "object"
        and "properties" not in schema
        and "$ref" not in schema
    ):
        prop, problems = _primitive(dict(schema), "$")
        if problems:
            raise FormSchemaError(what, problems)
        requested: dict[str, JSON] = {
            "type": "object",
            "properties": {ANSWER_FIELD: prop},
            "required": [ANSWER_FIELD],
        }
        defaults = _defaults({ANSWER_FIELD: prop})
        return _Form(requested, dict(schema), wrapped=True, defaults=defaults)
    body, at, problems = _object(schema)
    problems += [
        Mismatch(f"{at}.{key}", "a keyword of a flat MCP form", repr(key))
        for key in body
        if key not in _OBJECT_KEYWORDS and key != "additionalProperties"
    ]
    if body.get("additionalProperties", False) is not False:
        got = describe(body["additionalProperties"])
        problems.append(Mismatch(f"{at}.additionalProperties", "false", got))
    found_properties = body.get("properties", {})
    sent: dict[str, JSON] = {}
    properties: dict[str, JSON] = {}
    if isinstance(found_properties, dict):
        properties = found_properties
    else:
        got = describe(found_properties)
        problems.append(Mismatch(f"{at}.properties", "an object", got))
    for name, given in properties.items():
        carried, mismatches = _primitive(given, f"{at}.properties.{name}")
        sent[name] = carried
        problems.extend(mismatches)
    required = body.get("required", [])
    if not isinstance(required, list) or not all(
        isinstance(name, str) and name in properties for name in required
    ):
        problems.append(
            Mismatch(
                f"{at}.required", "names of the form's properties", describe(required)
            )
        )
    if problems:
        raise FormSchemaError(what, problems)
    requested = {"type": "object", "properties": dict(sent), "required": required}
    closed = {**body, "additionalProperties": False}
    if at == "$":
        answer: dict[str, JSON] = closed
    else:
        defs = schema["$defs"]
        assert isinstance(defs, dict)
        answer = {**schema, "$defs": {**defs, at.removeprefix("$.$defs."): closed}}
    return _Form(requested, answer, wrapped=False, defaults=_defaults(sent))


def form_of(schema: Mapping[str, JSON]) -> dict[str, JSON]:
    """The ``requestedSchema`` an answer schema travels as.

    A flat object of primitive properties is sent as it is; a single value
    (an enum, a string, a number, a boolean) becomes a form of one field,
    `ANSWER_FIELD`; ``{"type": "null"}`` (no data) an empty form. What MCP's
    forms carry is carried: titled choices (``oneOf`` of ``{const,
    title}``), multi-selects (``items`` of an ``enum`` or of titled
    ``anyOf`` options), defaults, and optional fields written ``X | None``
    (``anyOf`` of X and null, sent as X, as MCP sends them). A class's
    schema from `interruption.json_schema` (a ``$ref`` into ``$defs``) is
    the form of that class.

    Args:
        schema: An answer schema.

    Returns:
        The form's JSON Schema.

    Raises:
        FormSchemaError: naming every part MCP cannot carry (what MCP's own
            ``ctx.elicit`` refuses: nested objects, arrays of anything but
            choices, unions of two primitives), and a default its property
            refuses.
    """
    return _form(schema, "the answer schema").requested


@final
@attrs.frozen
class _State:
    """What a pause keeps in MCP's sealed request state (or in memory).

    Only what the server cannot rebuild from its own tool: what the pause
    accepts, its expiry answer and its form are the tool's, and
    `_Served.pending` rebuilds the `PendingInterrupt` from them.

    Attributes:
        pause: The pause's id, spent once.
        ref: The paused call's ref.
        approval: Whether it paused for approval (else it is a `Custom`).
        approved: Whether the call was approved before it paused.
        payload: What the tool paused with.
        input: The call's arguments.
        expires_at: When the pause stops accepting its answer.
    """

    pause: str
    ref: str
    approval: bool
    approved: bool
    payload: JSON
    input: JSON
    expires_at: datetime


@final
@attrs.frozen
class _Outcome:
    """A tool call that ended: its output, or the error the caller sees."""

    output: JSON = None
    error: str | None = None

    def result(self) -> mcp_types.CallToolResult:
        if self.error is not None:
            text = mcp_types.TextContent(type="text", text=self.error)
            return mcp_types.CallToolResult(content=[text], is_error=True)
        text = mcp_types.TextContent(type="text", text=dumps(self.output))
        structured = (
            copy.deepcopy(self.output) if isinstance(self.output, dict) else None
        )
        return mcp_types.CallToolResult(content=[text], structured_content=structured)


@final
class _Served:
    """One `Tool` served as an MCP tool (see `mcp_tool`).

    Everything a call needs that does not change from call to call (the
    form, what a question accepts, the session, the policies) is made here,
    once.
    """

    def __init__(  # noqa: PLR0913 - keyword-only options
        self,
        tool: Tool[Any, Any, Any],
        store: Store,
        *,
        message: Callable[[PendingInterrupt], str] | None,
        policy: ResumePolicy | None,
        ttl: timedelta,
        restart_dismissed: bool,
    ) -> None:
        what = f"tool {tool.name!r}: its"
        if restart_dismissed and tool.interrupt_only:
            expected = "False for an interrupt-only tool (it has no body to restart)"
            raise InvalidArgument("mcp_tool: restart_dismissed", expected, "True")
        self.restart_dismissed = restart_dismissed
        self.tool = tool
        self.store = store
        self.message = message or _message
        self.policy = policy or ResumePolicy()
        self.partial = attrs.evolve(self.policy, allow_partial=True)
        self.ttl = ttl
        self.session = f"mcp:{tool.name}"
        if tool.interrupt_only:
            self.custom = _form(tool.output_schema, f"{what} output schema")
            self.asks = Accepts(respond=self.custom.answer)
        else:
            self.custom = _form(tool.resume_schema, f"{what} resume schema")
            self.asks = Accepts(respond=tool.output_schema, restart=self.custom.answer)

    def pause(
        self,
        paused: Interrupted,
        ctx: ToolContext[Any],
        arguments: JSON,
        state: _State | None,
    ) -> _State | str:
        """The pause to keep, or the error a refused pause is."""
        kind = paused.kind
        if isinstance(kind, ApprovalPending):
            if ctx.approved:
                return "the tool asked again for an approval it has"
            if kind.tool_use_id != ctx.ref:
                return (
                    f"the tool asked approval for another call ({kind.tool_use_id!r})"
                )
        elif not isinstance(kind, Custom):
            return f"a tool cannot raise {tag_of(kind)}"
        return _State(
            uuid.uuid4().hex,
            ctx.ref,
            approval=isinstance(kind, ApprovalPending),
            approved=ctx.approved or (state is not None and state.approved),
            payload=paused.payload,
            input=arguments,
            expires_at=self.policy.now() + self.ttl,
        )

    def pending(self, state: _State) -> PendingInterrupt:
        """The pause as a client sees it: *state*, read with the tool."""
        if state.approval:
            kind: ApprovalPending | Custom = ApprovalPending(state.ref)
            accepts = self.tool.accepts(kind)
        else:
            kind, accepts = Custom(), self.asks
        return PendingInterrupt(
            state.ref,
            kind,
            state.payload,
            ToolRequest(self.tool.name, state.ref, state.input),
            accepts,
            expires_at=state.expires_at,
            on_expiry=self.tool.on_expiry,
        )

    def request(self, pending: PendingInterrupt) -> mcp_types.ElicitRequestFormParams:
        """The elicitation form a pause sends."""
        approval = isinstance(pending.kind, ApprovalPending)
        form = APPROVAL_FORM if approval else self.custom.requested
        return mcp_types.ElicitRequestFormParams(
            message=self.message(pending), requested_schema=form
        )

    async def run(
        self, ctx: ToolContext[Any], arguments: JSON, state: _State | None
    ) -> _Outcome | _State:
        """Run the call once: its outcome, or the pause it raised."""
        try:
            output = await self.tool.invoke(ctx, arguments)
        except ToolContractError as refused:
            return _Outcome(error=str(refused))
        except Interrupted as paused:
            kept = self.pause(paused, ctx, arguments, state)
            return _Outcome(error=kept) if isinstance(kept, str) else kept
        return _Outcome(output)

    async def settle(
        self,
        state: _State,
        response: Mapping[str, object],
        arguments: JSON,
    ) -> _Outcome | _State:
        """Admit the answer to *state*'s pause, once; then go on."""
        pending = self.pending(state)
        entries, dismissed = _read(pending, self.custom, response)
        if dismissed is not None and self.restart_dismissed and not state.approval:
            # The tool is told, not given its expiry answer; any other
            # response is still checked (and refused) as it came.
            entries = Resume(
                respond=[e for e in entries.respond if e.ref != pending.ref],
                restart=entries.restart,
            )
        try:
            resolved = await admit(
                entries,
                (pending,),
                self.store,
                session=self.session,
                keys={pending.id: pause_key("mcp", state.pause)},
                policy=self.partial if dismissed else self.policy,
                keep_until=state.expires_at + _KEEP_SPENT,
                dismissed=dismissed is not None,
                note=dismissed,
            )
        except ResumeRejected as rejected:
            raise _wire(rejected) from None
        if not resolved.answers:
            assert dismissed is not None
            return await self.dismissed(state, dismissed, arguments)
        entry = resolved.answers[0].entry
        if isinstance(entry, Respond):
            return _Outcome(entry.output)
        ctx: ToolContext[Any]
        if state.approval:
            decision = decision_from_json(entry.resumed)
            if isinstance(decision, Reject):
                return _Outcome(error=f"rejected: {decision.reason}")
            ctx = ToolContext(self.tool.name, state.ref, approved=True)
        else:
            resumed = self.tool.parse_resumed(entry.resumed)
            ctx = ToolContext(
                self.tool.name,
                state.ref,
                resumed,
                restarted=True,
                approved=state.approved,
            )
        return await self.run(ctx, arguments, state)

    async def dismissed(
        self, state: _State, dismissal: Dismiss, arguments: JSON
    ) -> _Outcome | _State:
        """A question the human declined or cancelled (the pause is spent).

        The tool is run again and told which (`dismissal`) when it was
        served with ``restart_dismissed``; otherwise the call fails with
        the dismissal's own text.
        """
        if not self.restart_dismissed:
            return _Outcome(error=_DISMISSED[dismissal])
        ctx: ToolContext[Any] = ToolContext(
            self.tool.name, state.ref, restarted=True, approved=state.approved
        )
        told = _DISMISSAL.set(dismissal)
        try:
            return await self.run(ctx, arguments, state)
        finally:
            _DISMISSAL.reset(told)

    def unsealed(self, sealed: str, arguments: JSON) -> _State:
        """The pause a request state keeps, read as this tool minted it.

        MCP's boundary has verified and unsealed the state: it was sealed
        under this server's keys for this tool name, server name, principal
        and arguments. Another handler of that name under the same keys
        (another deployment, another server of the same name) passes that
        check with a state this tool never minted.

        Raises:
            ResumeRejected: ``bad_token`` for a state this tool cannot read;
                ``input_modified`` for one that paused other arguments.
        """
        try:
            state = loads(sealed, _State)
        except DecodeError as error:
            msg = (
                f"requestState: expected a pause of tool {self.tool.name!r} as "
                f"this adapter keeps it, got a state it cannot read ({error.path}: "
                f"expected {error.expected}, got {error.got})"
            )
            raise ResumeRejected.of(ProblemCode.BAD_TOKEN, msg) from None
        if not json_equal(state.input, arguments):
            msg = (
                "requestState: expected a pause of the retried call's arguments, "
                "got one of other arguments"
            )
            raise ResumeRejected.of(ProblemCode.INPUT_MODIFIED, msg)
        return state

    async def __call__(
        self, ctx: Context[Any, Any]
    ) -> mcp_types.CallToolResult | mcp_types.InputRequiredResult:
        """The MCP tool: run, pause as an elicitation, settle, go on."""
        request = ctx.request_context  # read once: Context's properties are slow
        arguments = _json_arguments((request.params or {}).get("arguments"))
        if request.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return await self._modern(ctx, arguments)
        done = await self.run(
            ToolContext(self.tool.name, uuid.uuid4().hex), arguments, None
        )
        while isinstance(done, _State):
            form = self.request(self.pending(done))
            answer = await request.session.elicit_form(
                message=form.message,
                requested_schema=form.requested_schema,
                related_request_id=ctx.request_id,
            )
            done = await self.settle(done, {done.ref: answer}, arguments)
        return done.result()

    async def _modern(
        self, ctx: Context[Any, Any], arguments: JSON
    ) -> mcp_types.CallToolResult | mcp_types.InputRequiredResult:
        sealed = ctx.request_state  # verified and unsealed by MCP's boundary
        if sealed is None:
            ref = uuid.uuid4().hex
            done = await self.run(ToolContext(self.tool.name, ref), arguments, None)
        else:
            try:
                state = self.unsealed(sealed, arguments)
            except ResumeRejected as rejected:
                raise _wire(rejected) from None
            done = await self.settle(state, dict(ctx.input_responses or {}), arguments)
        if isinstance(done, _Outcome):
            return done.result()
        form = mcp_types.ElicitRequest(params=self.request(self.pending(done)))
        return mcp_types.InputRequiredResult(
            input_requests={done.ref: form}, request_state=dumps(done)
        )


REJECTED: Final = "dev.interruption/resume_rejected"
"""The key of an MCP error's data that lists a rejection's problems."""

STATE_REFUSED: Final = "invalid_request_state"
"""The ``reason`` in the data of MCP's own refusal of a request state.

MCP's boundary checks a retry's ``requestState`` before the tool runs and
gives every failure one frozen ``-32602`` (``"Invalid or expired
requestState"``, data ``{"reason": "invalid_request_state"}``), keeping the
cause in the server's log: a state past its life, altered, sealed for
another tool, arguments, server or principal, or under a key the server
lacks."""

_STATE_REFUSED_MESSAGE: Final = (
    "requestState: expected a state MCP accepts, got one MCP refused before "
    "the tool ran (past its life, altered, sealed for another tool, "
    "arguments, server or principal, or under a key this server lacks; MCP "
    "does not say which): call the tool again without it"
)


def _wire(rejected: ResumeRejected) -> MCPError:
    """A rejection as the JSON-RPC error the client gets (``-32602``)."""
    problems = [unstructure(problem) for problem in rejected.problems]
    data = {REJECTED: problems}
    return MCPError(mcp_types.INVALID_PARAMS, str(rejected), data)


def rejection_of(error: MCPError) -> ResumeRejected | None:
    """The `ResumeRejected` an MCP error stands for, or None.

    A server of this adapter lists its problems in the error's data; MCP's
    own refusal of a request state (`STATE_REFUSED`) is ``bad_token``, one
    code for every cause, since MCP names none.

    Args:
        error: What a call raised on the client.

    Returns:
        The rejection: its problems as the server listed them, or
        ``bad_token`` for a request state MCP refused; None for any other
        error.

    Raises:
        DecodeError: if the listed problems are malformed.
    """
    data = error.data
    if not isinstance(data, dict):
        return None
    if error.code == mcp_types.INVALID_PARAMS and data.get("reason") == STATE_REFUSED:
        return ResumeRejected.of(ProblemCode.BAD_TOKEN, _STATE_REFUSED_MESSAGE)
    if REJECTED not in data:
        return None
    problems = structure(data[REJECTED], list[Problem])
    if not problems:
        return None
    return ResumeRejected(problems)


def _json_arguments(arguments: object) -> JSON:
    problems = _problems(arguments, "$.arguments")
    if problems:  # pragma: no cover - MCP parses arguments from JSON
        raise DecodeError(problems)
    return arguments if arguments is not None else {}  # type: ignore[return-value]


def _message(pending: PendingInterrupt) -> str:
    if isinstance(pending.kind, ApprovalPending) and pending.tool is not None:
        return f"Approve {pending.tool.name} with {dumps(pending.tool.input)}?"
    return dumps(pending.payload)


_NOT_JSON: Final[dict[str, JSON]] = {"content": "not a JSON form answer"}
"""What a response that is not a form's answer is read as: every form
refuses it (an extra key, or an object where a value is due)."""


def _content(result: object) -> dict[str, JSON]:
    """A response's content, or `_NOT_JSON` (not an answer, not JSON)."""
    if not isinstance(result, mcp_types.ElicitResult):
        return _NOT_JSON
    content = result.content or {}
    checked: dict[str, JSON] = content  # type: ignore[assignment]  # checked next
    return _NOT_JSON if _problems(checked, "$") else checked


def _read(
    pending: PendingInterrupt,
    form: _Form,
    responses: Mapping[str, object],
) -> tuple[Resume, Dismiss | None]:
    """The responses as a `Resume` for *pending*; and how it was dismissed.

    Every response becomes an entry, so a response to another key is an
    ``unknown_interrupt``, a missing one ``missing``, content off the form
    a ``schema_violation``: `admit` says so, with everything else. Accepted
    content gets the form's defaults for the fields it leaves out, as MCP's
    ``ctx.elicit`` fills them, and is then checked whole.
    """
    respond: list[Respond] = []
    restart: list[Restart] = []
    dismissed: Dismiss | None = None
    name = pending.tool.name if pending.tool is not None else pending.id
    approval = isinstance(pending.kind, ApprovalPending)
    for key, result in responses.items():
        action = getattr(result, "action", "accept")
        if action in ("decline", "cancel"):
            said: Dismiss = "decline" if action == "decline" else "cancel"
            dismissed = said if key == pending.ref else dismissed
            entry = _dismissed(pending, name, key, said)
            if isinstance(entry, Restart):
                restart.append(entry)
            elif entry is not None:
                respond.append(entry)
            continue
        content = _content(result)
        if approval:
            restart.append(Restart(name, key, _decision(content)))
            continue
        if content is not _NOT_JSON:
            content = form.filled(content)
        value: JSON = content
        if form.wrapped and set(content) == {ANSWER_FIELD}:
            value = content[ANSWER_FIELD]
        elif pending.accepts.restart == _NULL and not content:
            value = None
        if pending.accepts.restart is None:
            respond.append(Respond(name, key, value))
        else:
            restart.append(Restart(name, key, value))
    return Resume(respond=respond, restart=restart), dismissed


def _dismissed(
    pending: PendingInterrupt, name: str, key: str, action: Dismiss
) -> Respond | Restart | None:
    """The entry a dismissal stands for: a rejection, the expiry answer, or none."""
    if isinstance(pending.kind, ApprovalPending):
        reason = f"the user chose {action}"
        return Restart(name, key, {"reject": {"reason": reason}})
    if pending.on_expiry is not None:
        return Respond(name, key, pending.on_expiry.output)
    return None


_DISMISSED: Final[Mapping[Dismiss, str]] = {
    "decline": "the user declined to answer",
    "cancel": "the user cancelled the form",
}
"""What the caller sees of a question the human declined or cancelled."""

_DISMISSAL: Final[ContextVar[Dismiss | None]] = ContextVar(
    "interruption_mcp_dismissal", default=None
)


def dismissal() -> Dismiss | None:
    """How the human dismissed the form this run of the tool follows, if so.

    MCP tells a tool whether its form was declined or cancelled. A tool
    served with ``mcp_tool(..., restart_dismissed=True)`` is run again when
    its ``ctx.interrupt`` form is dismissed, with ``ctx.restarted`` True and
    ``ctx.resumed`` None; this says which it was. Outside such a run (a
    first run, a restart with an answer, any other code) it is None.

    Returns:
        ``"decline"``, ``"cancel"``, or None.
    """
    return _DISMISSAL.get()


def _decision(content: dict[str, JSON]) -> JSON:
    """The decision an approval form says, or the content (which fails)."""
    if content == {"decision": "approve"}:
        return "approve"
    reason = content.get("reason")
    if set(content) == {"decision", "reason"} and content["decision"] == "reject":
        return {"reject": {"reason": reason}}
    return content


def mcp_tool(  # noqa: PLR0913 - keyword-only options
    tool: Tool[Any, Any, Any],
    store: Store,
    *,
    message: Callable[[PendingInterrupt], str] | None = None,
    policy: ResumePolicy | None = None,
    ttl: timedelta = DEFAULT_TTL,
    title: str | None = None,
    restart_dismissed: bool = False,
) -> McpTool:
    """Serve *tool* on an ``MCPServer``, its pauses as elicitations.

    Pass the result in ``MCPServer(tools=[...])``. The tool's input schema
    is the MCP tool's. When a call pauses, the client gets one form: an
    approval (``ApprovalPending(ctx.ref)``) the `APPROVAL_FORM`; a question
    of an interrupt-only tool its output schema; a ``ctx.interrupt`` of any
    other tool its resume schema (the answer restarts it with
    ``ctx.resumed``). The answer is admitted (`interruption.admit`)
    against the pause the server minted, then spent once in *store*. An
    accepted form's defaults are filled in before it is checked, so the
    tool gets what MCP's ``ctx.elicit`` would hand it.

    A form the human declines or cancels spends the pause all the same,
    and the two stay distinct: an approval is rejected with the reason
    ``"the user chose decline"`` (or ``cancel``); a question with an
    expiry answer gets it; any other question fails the call with
    ``"the user declined to answer"`` or ``"the user cancelled the form"``,
    or, with *restart_dismissed*, runs the tool again to decide
    (`dismissal` says which).

    Args:
        tool: A tool of this library (`tool` or `define_interrupt`).
        store: Where answered pauses are spent, shared by every process.
        message: The text a form shows, from the pause; its payload as
            JSON by default (for an approval, the call).
        policy: Who may answer, and the clock; strict by default.
        ttl: How long a pause accepts its answer; past the life of MCP's
            request state (600 s by default), MCP refuses it first.
        title: The tool's human title.
        restart_dismissed: Run a ``ctx.interrupt`` tool again when its form
            is declined or cancelled (``ctx.restarted`` True, ``ctx.resumed``
            None, `dismissal` telling which), instead of failing the call.

    Returns:
        The MCP tool.

    Raises:
        FormSchemaError: if the answer schema is not a form MCP carries.
        InvalidArgument: *restart_dismissed* for an interrupt-only tool (a
            `ValueError`).
    """
    served = _Served(
        tool,
        store,
        message=message,
        policy=policy,
        ttl=ttl,
        restart_dismissed=restart_dismissed,
    )
    made = McpTool.from_function(
        served.__call__,
        name=tool.name,
        title=title,
        description=tool.description,
        structured_output=False,
    )
    return made.model_copy(update={"parameters": dict(tool.input_schema)})


def pending_of(
    params: mcp_types.ElicitRequestParams,
    key: str = "elicitation",
    *,
    tool: str | None = None,
    arguments: JSON = None,
) -> PendingInterrupt:
    """The pause an elicitation form asks about, as a `PendingInterrupt`.

    MCP carries a form's message and schema only, so the pause is read from
    them: the `APPROVAL_FORM` is ``ApprovalPending(key)``, answered by
    ``approve()`` / ``reject(reason)``; any other form is a `Custom` pause
    answered by ``respond(...)``: the value of its one `ANSWER_FIELD`, or
    the form's object (no extra keys), or None for an empty form. Its
    payload is ``{"message": ...}``.

    Args:
        params: What the server sent (form mode).
        key: The input request's key in the 2026 flow (this adapter's
            servers key it by the call's ref).
        tool: The tool called, when the caller knows it: the pause then
            carries the call, so an answer that changes its input is
            refused here.
        arguments: The arguments it was called with.

    Returns:
        The pause.

    Raises:
        ArgumentTypeError: for a URL elicitation, which takes no answer here
            (a `TypeError`).
        FormSchemaError: if the requested schema is not a flat form.
    """
    if not isinstance(params, mcp_types.ElicitRequestFormParams):
        got = f"a URL elicitation ({params.url}): answer it in a browser"
        raise ArgumentTypeError("pending_of: params", "a form elicitation", got)
    request = ToolRequest(tool, key, arguments) if tool is not None else None
    payload: JSON = {"message": params.message}
    schema: dict[str, JSON] = params.requested_schema
    if schema == APPROVAL_FORM:
        kind = ApprovalPending(key)
        return PendingInterrupt(key, kind, payload, request, APPROVAL_ONLY)
    form = _form(schema, "the requested schema")
    properties = form.answer.get("properties")
    if (
        form.answer.get("required") == [ANSWER_FIELD]
        and isinstance(properties, dict)
        and set(properties) == {ANSWER_FIELD}
    ):
        single = properties[ANSWER_FIELD]
        answer_schema: dict[str, JSON] = single if isinstance(single, dict) else {}
    elif properties == {}:
        answer_schema = _NULL
    else:
        answer_schema = form.answer
    return PendingInterrupt(
        key, Custom(), payload, request, Accepts(respond=answer_schema)
    )


def answer(
    pending: PendingInterrupt, resume: Resume | Dismiss
) -> mcp_types.ElicitResult:
    """Check a human's answer to one form locally; build what MCP sends.

    Args:
        pending: The pause (`pending_of`).
        resume: One entry for it, or ``"decline"`` / ``"cancel"``.

    Returns:
        The elicitation's result.

    Raises:
        ResumeRejected: with every problem, as the server would say it;
            nothing is sent.
        ArgumentTypeError: if *resume* is neither a `Resume` nor
            ``"decline"`` / ``"cancel"`` (a `TypeError`).
    """
    if resume in ("decline", "cancel"):
        return mcp_types.ElicitResult(action=resume)
    if not isinstance(resume, Resume):
        expected = "a Resume, 'decline' or 'cancel'"
        raise ArgumentTypeError("answer: resume", expected, describe(resume))
    turn = InterruptedTurn("mcp", ADAPTER_TURN, (), (pending,), (), utc_now())
    return _result(pending, validate_resume(resume, turn))


def _result(
    pending: PendingInterrupt, resolved: ResolvedResume
) -> mcp_types.ElicitResult:
    """What MCP sends for *resolved*, the validated answer to *pending*."""
    entry = resolved.answers[0].entry
    if isinstance(pending.kind, ApprovalPending):
        decision = decision_from_json(entry.resumed)  # type: ignore[union-attr]
        content: dict[str, Any] = (
            {"decision": "reject", "reason": decision.reason}
            if isinstance(decision, Reject)
            else {"decision": "approve"}
        )
    else:
        # The SDK's own copy: the records keep theirs.
        value = copy.deepcopy(
            entry.output if isinstance(entry, Respond) else entry.resumed
        )
        schema = entry_schema(pending, entry)
        if value is None and schema == _NULL:
            content = {}
        elif _form(schema, "the answer schema").wrapped:
            content = {ANSWER_FIELD: value}
        else:
            content = value  # type: ignore[assignment]
    return mcp_types.ElicitResult(action="accept", content=content)


def entry_schema(
    pending: PendingInterrupt, entry: Respond | Restart
) -> dict[str, JSON]:
    """The schema *entry* was checked against."""
    accepts = pending.accepts
    schema = accepts.respond if isinstance(entry, Respond) else accepts.restart
    return dict(schema or {})


def elicitation_callback(handler: Handler) -> ElicitationFnT:
    """An MCP client's ``elicitation_callback`` that asks *handler*.

    Each request becomes a `PendingInterrupt` (`pending_of`); *handler*
    (sync or async) answers with a `Resume` built from it
    (``pending.respond(...)``, ``approve()``, ``reject(reason)``) or says
    ``"decline"`` / ``"cancel"``. The answer is checked locally (`answer`);
    a refused one is never sent: the request fails with the ``-32602`` a
    server of this adapter would send, its data listing the problems, and
    the tool call fails with it (`rejection_of` reads it back).

    Args:
        handler: The application's human.

    Returns:
        The callback, for ``Client(..., elicitation_callback=...)``.
    """

    async def callback(
        context: ClientRequestContext, params: mcp_types.ElicitRequestParams
    ) -> mcp_types.ElicitResult | mcp_types.ErrorData:
        del context  # the request's context: nothing in it decides the answer
        try:
            pending = pending_of(params)
            given = handler(pending)
            if inspect.isawaitable(given):
                given = await given
            return answer(pending, given)
        except ResumeRejected as rejected:
            return _wire(rejected).error
        except (DecodeError, FormSchemaError, TypeError) as refused:
            return mcp_types.ErrorData(
                code=mcp_types.INVALID_PARAMS, message=str(refused)
            )

    return callback


# --- the bridge: the client's pending forms, for the inbox -------------------


@final
@attrs.frozen
class _Asked:
    """One elicitation request waiting in an `ElicitationBridge`.

    Attributes:
        pending: The pause (`pending_of` of the request).
        created_at: When the request reached the client.
        reply: Where the callback waits for the answer to send.
    """

    pending: PendingInterrupt
    created_at: datetime
    reply: asyncio.Future[mcp_types.ElicitResult]

    def send(self, result: mcp_types.ElicitResult) -> None:
        """Hand the waiting callback *result*, unless its call ended."""
        if not self.reply.done():
            self.reply.set_result(result)


@final
class ElicitationBridge:
    """The `Bridge` of an MCP client's elicitation forms (build it with `bridge`).

    MCP asks the client's human in the middle of a tool call (or, in the
    2026-07-28 flow, in an input-required result the client's SDK answers
    through the same callback), so this bridge stands on the client's side:
    pass `callback` as the client's ``elicitation_callback``. What is
    guaranteed where:

    * **Client side, here.** Each request is filed as a `PendingPause` of
      its own (door ``"mcp"``, scope a fresh id per request, never reused),
      with the `PendingInterrupt` `pending_of` reads from the form, and a
      ``paused`` event in the bridge's store. `answer` authorizes the
      principal, checks the answer against the form exactly as `answer`
      does (the same validation, through `interruption.admit`), spends the
      request's key in the bridge's store and audits it, and only then
      hands the callback the `ElicitResult` to send, once: a second answer,
      through the bridge, is ``consumed``; a refused one is never sent and
      the request stays pending. A request accepts its answer for the
      bridge's *ttl* (MCP's request state lives 600 s), then it is
      ``expired`` and no longer listed; a request whose call ended
      (cancelled, timed out) is no longer listed either, and an answer to
      it is ``nothing_pending``. The bridge holds in memory only the
      requests still waiting: each leaves it when its call ends (answered,
      dismissed, cancelled or timed out), whatever the server sends. The
      form is kept in the store as well (`Store.keep`, with its ``paused``
      mark and, once answered, its spent mark), so that a late answer is
      still ``consumed`` and its trail still readable by whoever may
      answer it, as long as anything could still take the answer: until
      the request expires, and a minute more for clocks that drift
      (`Store.expire` forgets them then; a *ttl* of None keeps them for
      ever).
    * **Server side, in `mcp_tool`.** The server's `interruption.admit` stays
      the authority: it validates the answer again against the pause it
      minted and spends that pause once in the server's store, whichever
      client, bridge or retry sends it. A replay of what this bridge sent
      (say, a 2026 retry with the same request state) is refused there,
      ``consumed``, and the tool does not run again; the client's bridge
      does not see that refusal (the tool call's caller does:
      `rejection_of`).

    Attributes:
        store: Where the bridge spends requests and keeps their audit
            trail (each request's scope is its session).
        policy: Authorization and the clock (its principal is each call's).
        ttl: How long a request accepts its answer; None: for ever.
    """

    def __init__(
        self, store: Store, policy: ResumePolicy, ttl: timedelta | None = DEFAULT_TTL
    ) -> None:
        """Make a bridge over *store* (prefer `bridge`).

        Raises:
            ArgumentTypeError: if *ttl* is neither a `timedelta` nor None.
            InvalidArgument: if it is not positive.
        """
        if ttl is not None and not isinstance(ttl, timedelta):
            expected = "a timedelta or None"
            raise ArgumentTypeError("bridge: ttl", expected, describe(ttl))
        if ttl is not None and ttl <= timedelta(0):
            raise InvalidArgument("bridge: ttl", "a positive timedelta", str(ttl))
        self.store = store
        self.policy = policy
        self.ttl = ttl
        self._asked: dict[str, _Asked] = {}

    def _kept_until(self, pending: PendingInterrupt) -> datetime | None:
        """How long the store keeps what a request leaves: past its expiry."""
        expires = pending.expires_at
        return None if expires is None else expires + _KEEP_SPENT

    @property
    def door(self) -> str:
        """``"mcp"``: the framework its spend keys name (`pause_key`)."""
        return "mcp"

    async def callback(
        self, context: ClientRequestContext, params: mcp_types.ElicitRequestParams
    ) -> mcp_types.ElicitResult | mcp_types.ErrorData:
        """The client's ``elicitation_callback``: file the form, await its answer.

        A form that is not one (a URL elicitation, a schema MCP's forms do
        not carry) is refused at once with ``-32602``, as
        `elicitation_callback` refuses it.
        """
        del context  # the request's context: nothing in it decides the answer
        try:
            pending = pending_of(params)
        except (FormSchemaError, TypeError) as refused:
            return mcp_types.ErrorData(
                code=mcp_types.INVALID_PARAMS, message=str(refused)
            )
        scope = uuid.uuid4().hex
        key = pause_key(self.door, scope)
        at = self.policy.now()
        if self.ttl is not None:
            pending = attrs.evolve(pending, expires_at=at + self.ttl)
        until = self._kept_until(pending)
        reply: asyncio.Future[mcp_types.ElicitResult] = (
            asyncio.get_running_loop().create_future()
        )
        # The form is kept in the store too: once its call ends, the bridge
        # forgets it (memory holds only the forms still waiting), and the
        # store still tells who may read its trail, or learn it was answered.
        await self.store.keep(_form_key(scope), dumps(pending).encode(), until)
        self._asked[scope] = _Asked(pending, at, reply)
        try:
            await record_paused(
                self.store,
                (pending,),
                {pending.id: key},
                session=scope,
                at=at,
                keep_until=until,
            )
            return await reply
        finally:
            reply.cancel()  # the call ended unanswered: no longer pending
            del self._asked[scope]

    def _as(self, principal: str | None) -> ResumePolicy:
        return attrs.evolve(self.policy, principal=principal)

    async def _shown(self, scope: str, policy: ResumePolicy) -> PendingPause | None:
        """The form waiting at *scope*, if *policy*'s principal may answer it."""
        asked = self._asked.get(scope)
        if (
            asked is None
            or asked.reply.done()
            or _expired(asked.pending, policy.now())
            or not await _bridged.allowed(policy, scope, (asked.pending,))
        ):
            return None
        return PendingPause(self.door, scope, (asked.pending,), asked.created_at)

    async def pending(self, *, principal: str | None = None) -> list[PendingPause]:
        """Every form still waiting that *principal* may answer, newest first.

        Args:
            principal: Who asks; the policy's authorizer must allow them.

        Returns:
            One `PendingPause` per waiting request; one answered, expired,
            or whose call ended, is not listed.
        """
        policy = self._as(principal)
        return await newest_first(
            list(self._asked), lambda scope: self._shown(scope, policy)
        )

    async def pause(
        self, scope: str, *, principal: str | None = None
    ) -> PendingPause | None:
        """The form waiting at *scope*, if *principal* may answer it, or None.

        Args:
            scope: The request.
            principal: Who asks (as for `pending`).

        Returns:
            Its `PendingPause`; None once it was answered, expired or its
            call ended, for a scope never filed, and for a refused
            principal.
        """
        return await self._shown(scope, self._as(principal))

    async def _form(self, scope: str) -> PendingInterrupt | None:
        """The form filed at *scope*, waiting or not; None if never filed."""
        asked = self._asked.get(scope)
        if asked is not None:
            return asked.pending
        if not _filed(scope):  # no scope this bridge makes: never filed
            return None
        record = await self.store.kept(_form_key(scope))
        return None if record is None else _kept.read(record, PendingInterrupt)

    async def answer(
        self, scope: str, resume: Resume, *, principal: str | None = None
    ) -> ResolvedResume:
        """Check *resume* against the form at *scope*; hand it over once.

        Args:
            scope: The request (a `PendingPause.scope` of this bridge).
            resume: One entry for the form (``pending.respond(...)``,
                ``approve()``, ``reject(reason)``).
            principal: Who answers.

        Returns:
            What was accepted: the callback now sends it to the server,
            which checks it again and spends its pause. (Should the call
            end while the answer is being spent, it is spent and never
            sent: the server's pause then expires unanswered.)

        Raises:
            ResumeRejected: ``not_authorized`` for a refused principal;
                every problem of the answer (nothing is spent or sent),
                ``expired`` past the bridge's *ttl* among them;
                ``consumed`` for a request already answered here;
                ``nothing_pending`` for one whose call ended unanswered, or
                a scope this bridge never filed (or whose form the store
                forgot, long expired).
        """
        policy = self._as(principal)
        asked = await self._waiting(scope, resume, policy)
        resolved = await admit(
            resume,
            (asked.pending,),
            self.store,
            session=scope,
            keys={asked.pending.id: pause_key(self.door, scope)},
            policy=policy,
            keep_until=self._kept_until(asked.pending),
        )
        asked.send(_result(asked.pending, resolved))
        return resolved

    async def dismiss(
        self, scope: str, action: Dismiss, *, principal: str | None = None
    ) -> None:
        """Decline or cancel the form at *scope*, once, as MCP lets a human.

        Not part of `Bridge` (a `Resume` cannot say it): the server tells
        the tool which it was (see `mcp_tool`). Authorized, spent and
        audited as `answer` is (an ``accepted`` event whose ``reason`` is
        *action*), then sent.

        Args:
            scope: The request.
            action: ``"decline"`` or ``"cancel"``.
            principal: Who dismisses it.

        Raises:
            ResumeRejected: as `answer`: ``not_authorized``, ``consumed``,
                ``nothing_pending``.
            ArgumentTypeError: if *action* is neither (a `TypeError`).
        """
        if action not in ("decline", "cancel"):
            expected = "'decline' or 'cancel'"
            raise ArgumentTypeError("dismiss: action", expected, describe(action))
        nothing = Resume()
        policy = attrs.evolve(self.policy, principal=principal, allow_partial=True)
        asked = await self._waiting(scope, nothing, policy)
        await admit(
            nothing,
            (asked.pending,),
            self.store,
            session=scope,
            keys={asked.pending.id: pause_key(self.door, scope)},
            policy=policy,
            keep_until=self._kept_until(asked.pending),
            dismissed=True,
            note=action,
        )
        asked.send(mcp_types.ElicitResult(action=action))

    async def _waiting(
        self, scope: str, resume: Resume, policy: ResumePolicy
    ) -> _Asked:
        """The form waiting at *scope*, with where its call waits for the answer.

        A form whose call ended is refused here, as `admit` would refuse it
        (the principal is authorized against it first): ``consumed`` if it
        was answered (its key is spent), else ``nothing_pending``.

        Raises:
            ResumeRejected: ``consumed`` or ``nothing_pending`` for a form
                whose call ended (filed, as `refuse` files it;
                ``not_authorized`` for a refused principal); for a scope
                this client never filed, ``nothing_pending`` (with an
                authorizer ``not_authorized``), filed nowhere
                (`_bridged.absent`): a client naming scopes at will writes
                no row.
        """
        asked = self._asked.get(scope)
        if asked is not None and not asked.reply.done():
            return asked
        form = await self._form(scope)
        if form is None:
            message = f"no form of this client waits at {scope!r}"
            unknown = ResumeRejected.of(ProblemCode.NOTHING_PENDING, message)
            raise _bridged.absent(unknown, policy)
        if await self.store.spent([pause_key(self.door, scope)]):
            message = f"the form of this client at {scope!r} was already answered"
            rejected = ResumeRejected.of(ProblemCode.CONSUMED, message)
        else:
            message = f"no form of this client waits at {scope!r}"
            rejected = ResumeRejected.of(ProblemCode.NOTHING_PENDING, message)
        raise await refuse(
            rejected, resume, self.store, session=scope, policy=policy, shown=(form,)
        )

    async def audit(
        self, scope: str, *, principal: str | None = None
    ) -> tuple[AuditEvent, ...]:
        """The request *scope*'s audit trail in the bridge's store.

        Args:
            scope: The request.
            principal: Who asks; with an authorizer, they must be allowed
                for its form (else, or for a scope never filed, they see
                nothing).

        Returns:
            Its events, oldest first: ``paused`` when it arrived, then every
            answer accepted or refused here (the server keeps its own).
        """
        if self.policy.authorize is not None:
            form = await self._form(scope)
            if form is None or not await _bridged.allowed(
                self._as(principal), scope, (form,)
            ):
                return ()
        return tuple(await self.store.audit(scope))


def _expired(pending: PendingInterrupt, now: datetime) -> bool:
    """Whether *pending* is past its expiry at *now* (as the validator says)."""
    return pending.expires_at is not None and pending.expires_at <= now


def _form_key(scope: str) -> str:
    """The `Store.keep` key of the form an `ElicitationBridge` filed at *scope*."""
    return pause_key("mcp", "form", scope)


def _filed(scope: str) -> bool:
    """Whether *scope* is one an `ElicitationBridge` makes (a uuid4's hex)."""
    try:
        return uuid.UUID(hex=scope).hex == scope
    except ValueError:
        return False


def bridge(
    store: Store | None = None,
    *,
    authorize: Authorize | None = None,
    policy: ResumePolicy | None = None,
    ttl: timedelta | None = DEFAULT_TTL,
) -> ElicitationBridge:
    """The `Bridge` of an MCP client's forms: what the inbox lists and answers.

    Pass its `ElicitationBridge.callback` as the client's
    ``elicitation_callback`` (``Client(server,
    elicitation_callback=door.callback)``): each form the server sends
    waits there until the bridge answers it. See `ElicitationBridge` for
    what is guaranteed on the client's side and what the server's
    `mcp_tool` guarantees.

    Args:
        store: Where the bridge spends requests and keeps their audit
            trail; a `MemoryStore` of its own by default.
        authorize: Who may see and answer a form (`ResumePolicy.authorize`);
            None: the policy's.
        policy: Authorization and the clock.
        ttl: How long a request accepts its answer, from when it reaches
            the client (as `mcp_tool`'s *ttl*: MCP's request state lives
            600 s); what it leaves in *store* is kept a minute past that
            (`Store.expire` forgets it then). None: it never expires, and
            is kept for ever.

    Returns:
        An `ElicitationBridge`: door ``"mcp"``, scope a fresh id per request.

    Raises:
        ArgumentTypeError: if *ttl* is neither a `timedelta` nor None.
        InvalidArgument: if it is not positive.
    """
    chosen = policy or ResumePolicy()
    if authorize is not None:
        chosen = attrs.evolve(chosen, authorize=authorize)
    kept = store if store is not None else MemoryStore()
    return ElicitationBridge(kept, chosen, ttl)
