"""Approvals: who decides whether a tool call may run, and the decisions.

An `Approver` looks at each tool call and answers `Approve`, `Reject` or
`AwaitExternal`. The last one pauses the dispatch with
``ApprovalPending(tool_use_id=<ref>)``; a human then answers with a restart
carrying a decision, on the wire as entelix spells it::

    "approve"

    {"approve": {"note": "checked the invoice"}}
    {"reject": {"reason": "wrong account"}}

The decision's records and wire form are declared once, in
`interruption.decisions`, and named here.

`when` decides by a predicate; with ``input=`` the predicate gets the call's
input decoded strictly into the tool's input class, so it is typed::

    approver = by_tool({"transfer_money": when(over_limit, input=Transfer)})
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Protocol, TypeAlias, TypeVar, final, overload

import attrs

from interruption.decisions import (
    DECISION_SCHEMA,
    ApprovalDecision,
    Approve,
    Reject,
    decision_from_json,
    decision_to_json,
)
from interruption.errors import ArgumentTypeError, DecodeError
from interruption.parts import ToolRequest
from interruption.wire import describe, structure

T = TypeVar("T")

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
class AwaitExternal:
    """Ask a human: pause the dispatch until a decision arrives."""


Decision: TypeAlias = Approve | Reject | AwaitExternal
"""What an `Approver` answers for a tool call."""


class Approver(Protocol):
    """Decides, per tool call, whether it runs, is refused, or awaits a human."""

    def __call__(self, request: ToolRequest, /) -> Decision | Awaitable[Decision]:
        """Decide about *request* (its name, ref and input)."""


async def decide(approver: Approver, request: ToolRequest) -> Decision:
    """Ask *approver* about *request*, awaiting it if it is asynchronous.

    Raises:
        ArgumentTypeError: if the approver answers something that is not a
            decision (a `TypeError`).
    """
    answer = approver(request)
    if inspect.isawaitable(answer):
        answer = await answer
    if not isinstance(answer, Approve | Reject | AwaitExternal):
        where = f"approver for {request.name!r}"
        expected = "Approve, Reject or AwaitExternal"
        raise ArgumentTypeError(where, expected, describe(answer))
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


@overload
def when(
    predicate: Callable[[ToolRequest], bool],
    then: Approver | None = None,
    otherwise: Approver | None = None,
) -> Approver: ...


@overload
def when(
    predicate: Callable[[T], bool],
    then: Approver | None = None,
    otherwise: Approver | None = None,
    *,
    input: type[T],
) -> Approver: ...


def when(
    predicate: Callable[..., bool],
    then: Approver | None = None,
    otherwise: Approver | None = None,
    *,
    input: type[T] | None = None,  # noqa: A002 - the word `tool` uses
) -> Approver:
    """Decide by a predicate on the call, e.g. ``amount > 100``.

    Without *input*, the predicate looks at the `ToolRequest` (name, ref and
    input as JSON). With *input*, it gets the call's input decoded strictly
    into that class (the tool's input class), so it reads typed fields::

        when(lambda transfer: transfer.amount > 10000, input=Transfer)

    Fails closed: an input that does not decode, or a predicate that answers
    anything but ``True`` or ``False``, raises, and the loop refuses a call
    whose approver raises (it does not run).

    Args:
        predicate: Looks at the request, or at its decoded input.
        then: The approver when the predicate holds; `await_human` when None.
        otherwise: The approver when it does not; `always` when None.
        input: The class to decode the call's input into, or None for the
            request itself.

    Returns:
        An approver. It raises `DecodeError` (paths under ``$.input``) when
        the input does not fit *input*, and `ArgumentTypeError` (a
        `TypeError`) when the predicate answers something that is not a bool.
    """
    yes = then or await_human()
    no = otherwise or always()

    def choose(request: ToolRequest) -> Decision | Awaitable[Decision]:
        if input is None:
            holds: object = predicate(request)
        else:
            holds = predicate(_decoded(request, input))
        if holds is True:
            return yes(request)
        if holds is False:
            return no(request)
        where = f"when() predicate for {request.name!r}"
        raise ArgumentTypeError(where, "True or False", describe(holds))

    return choose


def _decoded(request: ToolRequest, cls: type[T]) -> T:
    """Decode *request*'s input into *cls*, with paths under ``$.input``."""
    try:
        return structure(request.input, cls)
    except DecodeError as error:
        problems = [
            attrs.evolve(problem, path="$.input" + problem.path[1:])
            for problem in error.problems
        ]
        raise DecodeError(problems) from None
