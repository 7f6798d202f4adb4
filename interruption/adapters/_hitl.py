"""What a LangChain ``HumanInTheLoopMiddleware`` review looks like: one place.

The middleware pauses through LangGraph's ``interrupt``, so a review sits in
a LangGraph checkpoint where both `interruption.adapters.langchain` and
`interruption.adapters.langgraph` can see it. Only the LangChain adapter can
apply its rules (which decisions each gated call allows, an edit's argument
schema, which tool call each decision reaches); the LangGraph adapter asks
`review_mode` whether an interrupt is such a review and then accepts no
answer for it, so that a review gets the same rules through every door or
is refused before anything is spent.

The middleware's wire shapes are records here, decoded strictly by
`interruption.wire.structure`: the interrupt values (`HITLRequest` in
``"batched"`` mode, `ToolApprovalRequest` in ``"per_call"`` mode) and the
reviewer's answers (`HITLResponse` and the four decisions, tagged by
``"type"``). This module imports nothing of LangChain, so the LangGraph
adapter needs no LangChain to recognize a review.
"""

from __future__ import annotations

from typing import ClassVar, Final, Literal, TypeAlias, TypeVar, cast, final

import attrs

from interruption import JSON, Mismatch
from interruption.errors import DecodeError
from interruption.wire import NON_EMPTY, non_empty, structure

__all__ = [
    "DECISION_TYPES",
    "Action",
    "ActionRequest",
    "Approve",
    "Decision",
    "DecisionType",
    "Edit",
    "HITLRequest",
    "HITLResponse",
    "Mode",
    "Reject",
    "Respond",
    "ReviewConfig",
    "ToolApprovalRequest",
    "decision",
    "decode",
    "review_mode",
]

T = TypeVar("T")

Mode: TypeAlias = Literal["batched", "per_call"]
"""The middleware's ``interrupt_mode`` that raised a review."""

DecisionType: TypeAlias = Literal["approve", "edit", "reject", "respond"]
"""A decision a review may allow (``HumanInTheLoopMiddleware``'s own four)."""

DECISION_TYPES: Final[tuple[DecisionType, ...]] = (
    "approve",
    "edit",
    "reject",
    "respond",
)
"""Every `DecisionType`, in the middleware's order."""


# -- the interrupt values -----------------------------------------------------


@final
@attrs.frozen
class ActionRequest:
    """One gated call of a batched review.

    Attributes:
        name: The tool's name.
        args: The call's arguments, as the model sent them.
        description: What the reviewer is shown.
    """

    name: str = attrs.field(validator=non_empty, metadata=NON_EMPTY)
    args: dict[str, JSON]
    description: str = ""


@final
@attrs.frozen
class ReviewConfig:
    """The decisions a batched review allows for one gated call.

    Attributes:
        action_name: The tool's name (its action request's).
        allowed_decisions: The decisions allowed.
        args_schema: Unused by the middleware (it never sets it).
    """

    action_name: str = attrs.field(validator=non_empty, metadata=NON_EMPTY)
    allowed_decisions: tuple[DecisionType, ...]
    args_schema: dict[str, JSON] | None = None


@final
@attrs.frozen
class HITLRequest:
    """A batched review: one interrupt per model turn.

    Attributes:
        action_requests: The gated calls, in the AI message's order.
        review_configs: Their allowed decisions, position by position.
    """

    action_requests: tuple[ActionRequest, ...]
    review_configs: tuple[ReviewConfig, ...]


@final
@attrs.frozen
class ToolApprovalRequest:
    """A per-call review: one interrupt per gated call.

    Its allowed decisions travel in the interrupt's ``response_schema``.

    Attributes:
        tool_call_id: The model's tool call id.
        name: The tool's name.
        args: The call's arguments, as the model sent them.
        description: What the reviewer is shown.
    """

    tag: ClassVar[Literal["tool_approval"]] = "tool_approval"

    tool_call_id: str = attrs.field(validator=non_empty, metadata=NON_EMPTY)
    name: str = attrs.field(validator=non_empty, metadata=NON_EMPTY)
    args: dict[str, JSON]
    description: str


def review_mode(value: object) -> Mode | None:
    """Whether an interrupt's value is a middleware review, and of which mode.

    Told by the field each shape is known by (``"type": "tool_approval"``,
    ``"action_requests"``), not by the whole shape: a damaged review is
    still a review, so an adapter that cannot apply its rules refuses it
    rather than taking it for a plain interrupt.

    Args:
        value: A LangGraph interrupt's value.

    Returns:
        ``"per_call"``, ``"batched"``, or None for any other value.
    """
    if not isinstance(value, dict):
        return None
    if value.get("type") == ToolApprovalRequest.tag:
        return "per_call"
    return "batched" if "action_requests" in value else None


# -- the reviewer's answers ---------------------------------------------------


@final
@attrs.frozen
class Action:
    """The call an edit runs instead.

    Attributes:
        name: The tool's name.
        args: The arguments to run it with.
    """

    name: str = attrs.field(validator=non_empty, metadata=NON_EMPTY)
    args: dict[str, JSON]


@final
@attrs.frozen
class Approve:
    """Run the call as the model sent it."""

    tag: ClassVar[Literal["approve"]] = "approve"


@final
@attrs.frozen
class Edit:
    """Run the call with other arguments.

    Attributes:
        edited_action: The call to run.
    """

    tag: ClassVar[Literal["edit"]] = "edit"

    edited_action: Action


@final
@attrs.frozen
class Reject:
    """Run nothing; the model is told the call was rejected.

    Attributes:
        message: Why; empty for the middleware's own wording.
    """

    tag: ClassVar[Literal["reject"]] = "reject"

    message: str = ""


@final
@attrs.frozen
class Respond:
    """Run nothing; the model gets *message* as the tool's successful result.

    Attributes:
        message: The answer, in the tool's place.
    """

    tag: ClassVar[Literal["respond"]] = "respond"

    message: str


Decision: TypeAlias = Approve | Edit | Reject | Respond
"""One reviewer decision, tagged by ``"type"`` as the middleware reads it."""


@final
@attrs.frozen
class HITLResponse:
    """A batched review's answer: its decisions, by position.

    Attributes:
        decisions: One decision per gated call, in the request's order.
    """

    decisions: tuple[Decision, ...]


def decode(value: object, cls: type[T], path: str) -> T:
    """*value* as a *cls* record, strictly, its problems named from *path*.

    Raises:
        DecodeError: listing every problem, with its path under *path*.
    """
    try:
        return structure(value, cls)  # type: ignore[arg-type]  # structure checks
    except DecodeError as error:
        raise DecodeError(
            [
                Mismatch(path + problem.path[1:], problem.expected, problem.got)
                for problem in error.problems
            ]
        ) from None


def decision(value: object, path: str) -> Decision:
    """*value* as one `Decision` (a per-call review's answer).

    Raises:
        DecodeError: listing every problem, with its path under *path*.
    """
    return decode(value, cast("type[Decision]", Decision), path)
