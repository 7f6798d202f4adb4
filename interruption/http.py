"""The official mapping from this library's failures to HTTP.

A web handler catches `InterruptionError`, answers with `status_of` as the
status and `problem_body` as the JSON body, and is done: every error class
has a stable `InterruptionError.code`, every `ProblemCode` a status, and a
`ResumeRejected` that carries several problems gets one status by a fixed
precedence (`PRECEDENCE`)::

    try:
        result = await session.resume(resume, turn_id=turn_id, principal=user)
    except InterruptionError as error:
        return JSONResponse(problem_body(error), status_code=status_of(error))

The table (`ERROR_STATUS`, `PROBLEM_STATUS`):

============================================  ======
code                                          status
============================================  ======
``not_authorized``, ``bad_token``             403
``unknown_session``, ``unknown_turn``         404
``consumed``, ``nothing_pending``             409
``expired``                                   410
every other problem (the answer's own fault)  422
``decode_error``, ``invalid_argument``,       400
``argument_type_error``
``field_error``, ``field_type_error``,        422
``payload_error``
``session_busy`` and its kinds,               409
``turn_id_taken``
``store_unavailable``                         503
any other code (the server's own fault)       500
============================================  ======

Bodies are JSON objects tagged by ``"type"``, the error's code: a
`ResumeRejected`'s is its wire form (``{"type": "resume_rejected",
"problems": [...]}``, which ``loads(text, ResumeRejected)`` reads back), a
`DecodeError`'s is its sibling (``{"type": "decode_error", "problems":
[{"path", "expected", "got"}]}``, which `decode_error_from` reads back),
and every other error's says its ``message`` and, where the error has them,
its ``where`` (or ``path``), ``expected`` and ``got``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, cast

from interruption.errors import (
    DecodeError,
    InterruptionError,
    ProblemCode,
    ResumeRejected,
    StoreUnavailable,
)
from interruption.wire import JSON, json_schema, structure, unstructure

__all__ = [
    "DECODE_ERROR_SCHEMA",
    "ERROR_STATUS",
    "PRECEDENCE",
    "PROBLEM_STATUS",
    "SERVER_ERROR",
    "SERVER_MESSAGE",
    "client_message",
    "decode_error_from",
    "problem_body",
    "status_of",
]

PROBLEM_STATUS: Final[Mapping[ProblemCode, int]] = {
    ProblemCode.NOT_AUTHORIZED: 403,
    ProblemCode.BAD_TOKEN: 403,
    ProblemCode.UNKNOWN_SESSION: 404,
    ProblemCode.UNKNOWN_TURN: 404,
    ProblemCode.CONSUMED: 409,
    ProblemCode.NOTHING_PENDING: 409,
    ProblemCode.EXPIRED: 410,
    ProblemCode.UNKNOWN_INTERRUPT: 422,
    ProblemCode.NOT_INTERRUPTED: 422,
    ProblemCode.DUPLICATE: 422,
    ProblemCode.CONFLICT: 422,
    ProblemCode.MISSING: 422,
    ProblemCode.ANSWER_NOT_ACCEPTED: 422,
    ProblemCode.INPUT_MODIFIED: 422,
    ProblemCode.SCHEMA_VIOLATION: 422,
}
"""The status of a `ResumeRejected` whose problems all have this code."""

PRECEDENCE: Final[tuple[int, ...]] = (403, 404, 409, 410, 422)
"""Which status a rejection with several problems gets: the first here.

A refused principal is told nothing else (403 before anything); then
whether the session or turn exists at all (404); then whether the turn can
still be answered (409: spent or empty, 410: expired); last, what is wrong
with the answer itself (422). So a replay that is also malformed is a 409,
and a client fixes the answer only once nothing else stands in the way.
"""

ERROR_STATUS: Final[Mapping[str, int]] = {
    "decode_error": 400,
    "invalid_argument": 400,
    "argument_type_error": 400,
    "field_error": 422,
    "field_type_error": 422,
    "payload_error": 422,
    "session_busy": 409,
    "session_paused": 409,
    "continuation_unfinished": 409,
    "session_in_use": 409,
    "turn_id_taken": 409,
    "store_unavailable": 503,
    "schema_error": 500,
    "pause_refused": 500,
    "tool_contract_error": 500,
    "event_loop_running": 500,
    "interruption_error": 500,
    "form_schema_error": 500,
    "tool_routing": 500,
    "extra_missing": 500,
}
"""The status of every error code but ``resume_rejected`` (see `PROBLEM_STATUS`).

A ``schema_error`` or a ``tool_contract_error`` reaching a handler means a
schema or a tool of the server's own is broken, and an ``extra_missing``
an install that lacks an extra: a 500, not the client's fault. A code
missing here (a third party's subclass) is `SERVER_ERROR`.
"""

SERVER_ERROR: Final = 500
"""The status of an error code the table does not name."""

SERVER_MESSAGE: Final = "the server could not answer; its log says why"
"""The message of every 5xx body (`problem_body`): the error's own words
stay on the server, for they may name its files, hosts or driver."""

DECODE_ERROR_SCHEMA: Final[dict[str, JSON]] = json_schema(DecodeError)
"""The JSON Schema of a `DecodeError`'s body (`problem_body`)."""


def _rank(status: int) -> int:
    return PRECEDENCE.index(status)


def status_of(error: InterruptionError) -> int:
    """The HTTP status for *error*, from the official table.

    A `ResumeRejected` gets the status of its problem whose status comes
    first in `PRECEDENCE` (403, then 404, 409, 410, 422): the order of its
    problems does not matter, and adding a problem never moves the status
    later in that order. Any other error gets its code's `ERROR_STATUS`.

    Args:
        error: Any failure this library raised.

    Returns:
        The status: 4xx when the request was at fault, 5xx otherwise.
    """
    if isinstance(error, ResumeRejected):
        statuses = (PROBLEM_STATUS[problem.code] for problem in error.problems)
        return min(statuses, key=_rank)
    return ERROR_STATUS.get(error.code, SERVER_ERROR)


def client_message(error: InterruptionError) -> str:
    """What a client may read of *error*: its message, unless the server failed.

    A server's own failure (a 5xx status) may name files, hosts or a
    driver's words: the client reads `SERVER_MESSAGE`, and the log keeps
    the message. Every answer to a client (`problem_body`, the inbox's
    pages) words an error with this.

    Args:
        error: Any failure this library raised.

    Returns:
        The text to show.
    """
    return SERVER_MESSAGE if status_of(error) >= SERVER_ERROR else str(error)


def problem_body(error: InterruptionError) -> dict[str, JSON]:
    """The JSON body that explains *error* to a client, tagged by its code.

    Args:
        error: Any failure this library raised.

    Returns:
        A `ResumeRejected`'s wire form; a `DecodeError`'s (see
        `DECODE_ERROR_SCHEMA`); for an error with a 5xx status (the
        server's own failure) ``{"type": code, "message": SERVER_MESSAGE}``,
        with a `StoreUnavailable`'s ``reason``, and nothing of its message;
        for any other error ``{"type": code, "message": ...}`` with its
        ``where`` (or ``path``), ``expected`` and ``got`` when it has them (a
        `FieldError`, an `InvalidArgument`).
    """
    if isinstance(error, ResumeRejected | DecodeError):
        return cast("dict[str, JSON]", unstructure(error))  # a record: an object
    body: dict[str, JSON] = {"type": error.code, "message": client_message(error)}
    if status_of(error) >= SERVER_ERROR:
        # The server's own failure: the code (and a store's reason, to know
        # whether a retry may help), nothing of its message.
        if isinstance(error, StoreUnavailable):
            body["reason"] = error.reason
        return body
    for name in ("where", "path", "expected", "got"):
        value = getattr(error, name, None)
        if isinstance(value, str):
            body[name] = value
    return body


def decode_error_from(body: JSON) -> DecodeError:
    """Read back a `DecodeError` from its body (`problem_body`), strictly.

    Args:
        body: The decoded JSON of a ``decode_error`` body.

    Returns:
        The error, with every problem.

    Raises:
        DecodeError: (a different one) if *body* is not such a body; its
            problems name what is wrong, at their paths.
    """
    return structure(body, DecodeError)
