"""Approvals: who decides whether a tool call may run, and the decisions.

An `Approver` looks at each tool call and answers `Approve`, `Reject` or
`AwaitExternal`. The last one pauses the dispatch with
``ApprovalPending(tool_use_id=<ref>)``; a human then answers with a restart
carrying a decision, on the wire as entelix spells it::

    "approve"

    {"approve": {"note": "checked the invoice"}}
    {"reject": {"reason": "wrong account"}}
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Final, Protocol, TypeAlias, final

import attrs

from interruption._json import JSON, Mismatch, describe
from interruption._validators import NON_EMPTY, non_empty, optional_string
from interruption.errors import DecodeError
from interruption.parts import ToolRequest

__all__ = [
    "DECISION_SCHEMA",
    "ApprovalDecision",
    "Approve",
    "Approver",
    "AwaitExternal",
    "Decision",
    "Reject",
    "always",
    "await_human",
    "by_tool",
    "decide",
    "decision_from_json",
    "decision_to_json",
    "never",
    "when",
]


@final
@attrs.frozen
class Approve:
    """Let the tool call run, with its original input.

    Attributes:
        note: Why, for the record; optional.
    """

    note: str | None = attrs.field(default=None, validator=optional_string)


@final
@attrs.frozen
class Reject:
    """Refuse the tool call; the model is told so, with the reason.

    Attributes:
        reason: Why, in words the model and the record can use.
    """

    reason: str = attrs.field(validator=non_empty, metadata=NON_EMPTY)


@final
@attrs.frozen
class AwaitExternal:
    """Ask a human: pause the dispatch until a decision arrives."""


ApprovalDecision: TypeAlias = Approve | Reject
"""What a human decides about a paused tool call."""

Decision: TypeAlias = Approve | Reject | AwaitExternal
"""What an `Approver` answers for a tool call."""


class Approver(Protocol):
    """Decides, per tool call, whether it runs, is refused, or awaits a human."""

    def __call__(self, request: ToolRequest, /) -> Decision | Awaitable[Decision]:
        """Decide about *request* (its name, ref and input)."""


DECISION_SCHEMA: Final[dict[str, JSON]] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "ApprovalDecision",
    "oneOf": [
        {"const": "approve"},
        {
            "type": "object",
            "properties": {
                "approve": {
                    "type": "object",
                    "properties": {"note": {"type": ["string", "null"]}},
                    "additionalProperties": False,
                }
            },
            "required": ["approve"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {
                "reject": {
                    "type": "object",
                    "properties": {"reason": {"type": "string", "minLength": 1}},
                    "required": ["reason"],
                    "additionalProperties": False,
                }
            },
            "required": ["reject"],
            "additionalProperties": False,
        },
    ],
}
"""The JSON Schema of a decision's wire form."""


def decision_to_json(decision: ApprovalDecision) -> JSON:
    """Return the wire form of *decision* (entelix's).

    Args:
        decision: `Approve` or `Reject`.

    Returns:
        ``"approve"``, ``{"approve": {"note": ...}}`` or
        ``{"reject": {"reason": ...}}``.
    """
    match decision:
        case Approve(note=None):
            return "approve"
        case Approve(note=note):
            return {"approve": {"note": note}}
        case Reject(reason=reason):
            return {"reject": {"reason": reason}}


def decision_from_json(data: JSON) -> ApprovalDecision:
    """Read a decision from its wire form, strictly.

    Args:
        data: A JSON value.

    Returns:
        The decision.

    Raises:
        DecodeError: if *data* is not a decision.
    """
    if data == "approve":
        return Approve()
    if isinstance(data, dict) and len(data) == 1:
        ((verb, body),) = data.items()
        if verb == "approve" and isinstance(body, dict) and set(body) <= {"note"}:
            note = body.get("note")
            if note is None or isinstance(note, str):
                return Approve(note)
        if verb == "reject" and isinstance(body, dict) and set(body) == {"reason"}:
            reason = body["reason"]
            if isinstance(reason, str) and reason:
                return Reject(reason)
    expected = '\'approve\', {"approve": {"note": ...}} or {"reject": {"reason": ...}}'
    raise DecodeError([Mismatch("$", expected, describe(data))])


async def decide(approver: Approver, request: ToolRequest) -> Decision:
    """Ask *approver* about *request*, awaiting it if it is asynchronous.

    Raises:
        TypeError: if the approver answers something that is not a decision.
    """
    answer = approver(request)
    if inspect.isawaitable(answer):
        answer = await answer
    if not isinstance(answer, Approve | Reject | AwaitExternal):
        msg = (
            f"approver for {request.name!r}: expected Approve, Reject or "
            f"AwaitExternal, got {describe(answer)}"
        )
        raise TypeError(msg)
    return answer


def always() -> Approver:
    """Approve every call.

    Returns:
        An approver.
    """

    def approve(_request: ToolRequest) -> Decision:
        return Approve()

    return approve


def never(reason: str = "not allowed") -> Approver:
    """Refuse every call with *reason*.

    Returns:
        An approver.
    """
    decision = Reject(reason)

    def reject(_request: ToolRequest) -> Decision:
        return decision

    return reject


def await_human() -> Approver:
    """Ask a human about every call.

    Returns:
        An approver.
    """

    def ask(_request: ToolRequest) -> Decision:
        return AwaitExternal()

    return ask


def by_tool(
    rules: Mapping[str, Approver], *, default: Approver | None = None
) -> Approver:
    """Decide by tool name; tools without a rule get *default* (approve).

    Args:
        rules: An approver per tool name.
        default: The approver for other tools; `always` when None.

    Returns:
        An approver.
    """
    table = dict(rules)
    fallback = default or always()

    def by_name(request: ToolRequest) -> Decision | Awaitable[Decision]:
        return table.get(request.name, fallback)(request)

    return by_name


def when(
    predicate: Callable[[ToolRequest], bool],
    then: Approver | None = None,
    otherwise: Approver | None = None,
) -> Approver:
    """Decide by a predicate on the call, e.g. ``amount > 100``.

    Args:
        predicate: Looks at the request (name, ref, input).
        then: The approver when the predicate holds; `await_human` when None.
        otherwise: The approver when it does not; `always` when None.

    Returns:
        An approver.
    """
    yes = then or await_human()
    no = otherwise or always()

    def choose(request: ToolRequest) -> Decision | Awaitable[Decision]:
        return (yes if predicate(request) else no)(request)

    return choose
