"""The agent service over LangGraph: start threads, answer their pauses.

Run it with ``uvicorn examples.langgraph_service.app:app`` (two SQLite
files in the working directory: LangGraph's checkpoints and the store), or
build one with `create_service`. It is `examples.service.app` with the
LangGraph adapter in place of `Session`: what is pending is read from the
checkpointer by `pending`, an answer goes through `resume` (validated,
spent once in the store, audited, and only then sent to LangGraph), and
every error is the library's own, mapped by `interruption.http`. The
inbox at ``/inbox/`` lists and answers the same pauses through the
adapter's bridge (`GraphAgent.bridge`): an answer through either door spends
the pause once.

================================  ============================================
``POST /threads``                 start a run: ``{"text": "pay 50000"}``
``GET /threads/{id}/pending``     the pauses the caller may answer
``POST /threads/{id}/answer``     a ``Resume``: ``{"restart": [...]}``
``POST /threads/{id}/cancel``     405: the adapter has no cancel
``GET /threads/{id}/audit``       the audit trail
``/inbox/``                       the approval inbox, over the same threads
================================  ============================================

The caller is named by the ``X-Remote-User`` header (an authenticating
proxy's); only the agent's approvers see or answer a pause.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Final, cast

from interruption import (
    JSON,
    InterruptionError,
    PendingInterrupt,
    ProblemCode,
    Resume,
    ResumePolicy,
    ResumeRejected,
    SqliteStore,
    Store,
    loads,
    unstructure,
)
from interruption.adapters.langgraph import pending as lg_pending
from interruption.adapters.langgraph import resume as lg_resume
from interruption.http import problem_body, status_of
from interruption.inbox import create_app, from_header
from langchain_core.messages import HumanMessage
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route

from examples.langgraph_service.agent import Chat, GraphAgent
from examples.service.agent import may_answer
from examples.service.app import StartRequest

if TYPE_CHECKING:
    from pathlib import Path

    from langchain_core.runnables import RunnableConfig
    from starlette.requests import Request

__all__ = ["CANCEL_UNSUPPORTED", "create_service"]

CANCEL_UNSUPPORTED: Final[dict[str, JSON]] = {
    "type": "cancel_unsupported",
    "message": (
        "the LangGraph adapter has no cancel: answer the pause (reject an "
        "approval) instead"
    ),
}
"""The body of ``POST /threads/{id}/cancel`` (405): shaped as a problem."""


def _who(request: Request) -> str | None:
    """The caller: the ``X-Remote-User`` header an authenticating proxy set."""
    return request.headers.get("X-Remote-User") or None


def _problem(error: InterruptionError) -> JSONResponse:
    return JSONResponse(problem_body(error), status_code=status_of(error))


def _agent(request: Request) -> GraphAgent:
    return cast("GraphAgent", request.app.state.agent)


def _thread(request: Request) -> tuple[str, RunnableConfig]:
    thread = str(request.path_params["thread"])
    return thread, {"configurable": {"thread_id": thread}}


async def _visible(request: Request, config: RunnableConfig) -> list[JSON]:
    """The thread's pauses (`pending`) that the caller may answer, as JSON."""
    agent, who = _agent(request), _who(request)
    found: tuple[PendingInterrupt, ...] = await run_in_threadpool(
        lg_pending, agent.graph, config, agent.store
    )
    return [unstructure(pause) for pause in found if may_answer(who, pause)]


async def _known(request: Request, thread: str, config: RunnableConfig) -> None:
    """Refuse a thread the checkpointer has never seen: ``unknown_session``."""
    if await run_in_threadpool(_agent(request).checkpoints.get_tuple, config) is None:
        message = f"no thread {thread!r}"
        raise ResumeRejected.of(ProblemCode.UNKNOWN_SESSION, message)


async def start(request: Request) -> Response:
    """``POST /threads``: start a run with ``{"text": ...}``; 201 and its pauses."""
    thread = uuid.uuid4().hex
    config: RunnableConfig = {"configurable": {"thread_id": thread}}
    try:
        sent = loads(await request.body(), StartRequest)
        first: Chat = {"messages": [HumanMessage(sent.text)]}
        await run_in_threadpool(_agent(request).graph.invoke, first, config)
        shown = await _visible(request, config)
    except InterruptionError as error:
        return _problem(error)
    return JSONResponse({"thread": thread, "pending": shown}, status_code=201)


async def pending(request: Request) -> Response:
    """``GET /threads/{id}/pending``: the pauses the caller may answer."""
    thread, config = _thread(request)
    try:
        await _known(request, thread, config)
        shown = await _visible(request, config)
    except InterruptionError as error:
        return _problem(error)
    return JSONResponse({"thread": thread, "pending": shown})


async def answer(request: Request) -> Response:
    """``POST /threads/{id}/answer``: a `Resume`, through the adapter's `resume`."""
    thread, config = _thread(request)
    agent = _agent(request)
    policy = ResumePolicy(principal=_who(request), authorize=may_answer)
    try:
        await _known(request, thread, config)
        sent = loads(await request.body(), Resume)
        output = await run_in_threadpool(
            lambda: lg_resume(agent.graph, config, sent, agent.store, policy=policy)
        )
    except InterruptionError as error:
        return _problem(error)
    return JSONResponse(
        {
            "thread": thread,
            "text": output.value["messages"][-1].text,
            "paused": bool(output.interrupts),
        }
    )


async def cancel(_request: Request) -> Response:
    """``POST /threads/{id}/cancel``: 405, since the adapter offers no cancel."""
    return JSONResponse(CANCEL_UNSUPPORTED, status_code=405, headers={"Allow": ""})


async def audit(request: Request) -> Response:
    """``GET /threads/{id}/audit``: the thread's audit trail, oldest first."""
    thread, _config = _thread(request)
    events = await _agent(request).store.audit(thread)
    return JSONResponse({"events": [unstructure(event) for event in events]})


def create_service(checkpoints: str | Path, store: Store) -> Starlette:
    """The service over a ``SqliteSaver`` file and *store*, with the inbox.

    Args:
        checkpoints: LangGraph's checkpoint file (``":memory:"`` for one process).
        store: Where spent marks and the audit trail live.

    Returns:
        The Starlette application; the inbox at ``/inbox``.
    """
    agent = GraphAgent(checkpoints, store)
    inbox = create_app(
        bridges=[agent.bridge],
        principal=from_header("X-Remote-User"),
        title="LangGraph inbox",
    )
    service = Starlette(
        routes=[
            Route("/threads", start, methods=["POST"]),
            Route("/threads/{thread}/pending", pending),
            Route("/threads/{thread}/answer", answer, methods=["POST"]),
            Route("/threads/{thread}/cancel", cancel, methods=["POST"]),
            Route("/threads/{thread}/audit", audit),
            Mount("/inbox", inbox),
        ]
    )
    service.state.agent = agent
    return service


def __getattr__(name: str) -> Starlette:
    """``app``: the service over two SQLite files, built when first asked."""
    if name != "app":
        raise AttributeError(name)
    store = SqliteStore("langgraph-service.sqlite3")
    built = create_service("langgraph-checkpoints.sqlite3", store)
    globals()["app"] = built
    return built
