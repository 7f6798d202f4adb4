"""A small agent service: start runs, answer their pauses, with the inbox mounted.

Run it with ``uvicorn examples.service.app:app`` (a SQLite file in the
working directory), or build one over any store with `create_service`.
Every error is the library's own, mapped to a status and a JSON body by
`interruption.http`; the inbox at ``/inbox/`` answers the same pauses.

================================  ============================================
``POST /runs``                    start a run: ``{"text": "pay 50000"}``
``GET /runs/{id}/pending``        what it waits for (a ``PendingTurn``)
``POST /runs/{id}/answer``        ``{"turn_id": 1, "resume": {...}}``
``POST /runs/{id}/cancel``        ``{"reason": "...", "turn_id": 1}``
``GET /runs/{id}/audit``          the audit trail
``/inbox/``                       the approval inbox
================================  ============================================

The caller is named by the ``X-Remote-User`` header (an authenticating
proxy's); only the agent's approvers may answer.
"""

from __future__ import annotations

from typing import cast

import attrs
from interruption import (
    DecodeError,
    InterruptionError,
    Mismatch,
    ProblemCode,
    ResumeRejected,
    Session,
    SqliteStore,
    Store,
    loads,
    unstructure,
)
from interruption.http import problem_body, status_of
from interruption.inbox import ResumeRequest, create_app
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route

from examples.service.agent import Agent

__all__ = ["CancelRequest", "StartRequest", "create_service"]


def _who(request: Request) -> str | None:
    """The caller: the ``X-Remote-User`` header an authenticating proxy set."""
    return request.headers.get("X-Remote-User") or None


def _problem(error: InterruptionError) -> JSONResponse:
    return JSONResponse(problem_body(error), status_code=status_of(error))


@attrs.frozen
class StartRequest:
    """The body of ``POST /runs``.

    Attributes:
        text: What the user asks the agent.
    """

    text: str


@attrs.frozen
class CancelRequest:
    """The body of ``POST /runs/{id}/cancel``.

    Attributes:
        reason: Why, in words the model reads.
        turn_id: The turn cancelled; the latest when None.
    """

    reason: str
    turn_id: int | None = None


def _agent(request: Request) -> Agent:
    return cast("Agent", request.app.state.agent)


def _run(request: Request) -> Session:
    return _agent(request).open(request.path_params["run"])


async def start(request: Request) -> Response:
    """``POST /runs``: start a run with ``{"text": ...}``; 201 and what it awaits."""
    try:
        sent = loads(await request.body(), StartRequest)
        if not sent.text.strip():
            got = repr(sent.text)
            raise DecodeError([Mismatch("$.text", "non-blank text", got)])
        session = await _agent(request).start(sent.text)
    except InterruptionError as error:
        return _problem(error)
    pending = await session.pending_state()
    return JSONResponse(
        {"session": session.id, "pending": unstructure(pending)}, status_code=201
    )


async def pending(request: Request) -> Response:
    """``GET /runs/{id}/pending``: the run's `PendingTurn`, or a 409."""
    session = _run(request)
    state = await session.pending_state()
    if state is None:
        message = f"run {session.id!r} waits for nothing"
        return _problem(ResumeRejected.of(ProblemCode.NOTHING_PENDING, message))
    return JSONResponse(unstructure(state))


async def answer(request: Request) -> Response:
    """``POST /runs/{id}/answer``: ``{"turn_id", "resume"}``, through the validator."""
    session = _run(request)
    try:
        sent = loads(await request.body(), ResumeRequest)
        result = await session.resume(
            sent.resume, turn_id=sent.turn_id, principal=_who(request)
        )
    except InterruptionError as error:
        return _problem(error)
    return JSONResponse(
        {
            "session": session.id,
            "finish_reason": str(result.finish_reason),
            "text": result.messages[-1].text,
            "paused": result.turn is not None,
        }
    )


async def cancel(request: Request) -> Response:
    """``POST /runs/{id}/cancel``: ``{"reason", "turn_id"?}``."""
    session = _run(request)
    try:
        sent = loads(await request.body(), CancelRequest)
        await session.cancel(sent.reason, turn_id=sent.turn_id, principal=_who(request))
    except InterruptionError as error:
        return _problem(error)
    return JSONResponse({"session": session.id, "cancelled": True})


async def audit(request: Request) -> Response:
    """``GET /runs/{id}/audit``: the run's audit trail, oldest first."""
    events = await _run(request).audit()
    return JSONResponse({"events": [unstructure(event) for event in events]})


def create_service(store: Store) -> Starlette:
    """The service over *store*, with the inbox mounted at ``/inbox``.

    Args:
        store: Where the runs' sessions live.

    Returns:
        The Starlette application.
    """
    agent = Agent(store)
    inbox = create_app(store, agent.open, principal=_who, title="Agent inbox")
    service = Starlette(
        routes=[
            Route("/runs", start, methods=["POST"]),
            Route("/runs/{run}/pending", pending),
            Route("/runs/{run}/answer", answer, methods=["POST"]),
            Route("/runs/{run}/cancel", cancel, methods=["POST"]),
            Route("/runs/{run}/audit", audit),
            Mount("/inbox", inbox),
        ]
    )
    service.state.agent = agent
    return service


def __getattr__(name: str) -> Starlette:
    """``app``: the service over ``agent-service.sqlite3``, built when first asked."""
    if name != "app":
        raise AttributeError(name)
    built = create_service(SqliteStore("agent-service.sqlite3"))
    globals()["app"] = built
    return built
