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

import json
from typing import cast

from interruption import (
    JSON,
    DecodeError,
    InterruptionError,
    Mismatch,
    ProblemCode,
    Resume,
    ResumeRejected,
    Session,
    SqliteStore,
    Store,
    loads,
    unstructure,
)
from interruption.http import problem_body, status_of
from interruption.inbox import create_app
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route

from examples.service.agent import Agent

__all__ = ["create_service"]


def _who(request: Request) -> str | None:
    """The caller: the ``X-Remote-User`` header an authenticating proxy set."""
    return request.headers.get("X-Remote-User") or None


def _problem(error: InterruptionError) -> JSONResponse:
    return JSONResponse(problem_body(error), status_code=status_of(error))


async def _body(request: Request) -> dict[str, JSON]:
    """The request's JSON object.

    Raises:
        DecodeError: if it is not one.
    """
    try:
        body = json.loads(await request.body())
    except ValueError:
        raise DecodeError([Mismatch("$", "a JSON object", "malformed text")]) from None
    if not isinstance(body, dict):
        raise DecodeError([Mismatch("$", "a JSON object", type(body).__name__)])
    return body


def _agent(request: Request) -> Agent:
    return cast("Agent", request.app.state.agent)


def _run(request: Request) -> Session:
    return _agent(request).open(request.path_params["run"])


async def start(request: Request) -> Response:
    """``POST /runs``: start a run with ``{"text": ...}``; 201 and what it awaits."""
    try:
        body = await _body(request)
        text = body.get("text")
        if not isinstance(text, str) or not text.strip():
            raise DecodeError([Mismatch("$.text", "non-blank text", json.dumps(text))])
        session = await _agent(request).start(text)
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
        body = await _body(request)
        turn_id = body.get("turn_id")
        if type(turn_id) is not int:
            raise DecodeError([Mismatch("$.turn_id", "a turn id", json.dumps(turn_id))])
        resume = loads(json.dumps(body.get("resume")), Resume)
        result = await session.resume(resume, turn_id=turn_id, principal=_who(request))
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
        body = await _body(request)
        reason, turn_id = body.get("reason"), body.get("turn_id")
        if not isinstance(reason, str) or type(turn_id) not in {int, type(None)}:
            got = json.dumps({"reason": reason, "turn_id": turn_id})
            expected = "a reason and an optional turn id"
            raise DecodeError([Mismatch("$", expected, got)])
        turn = turn_id if isinstance(turn_id, int) else None
        await session.cancel(reason, turn_id=turn, principal=_who(request))
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
