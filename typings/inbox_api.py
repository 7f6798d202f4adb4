"""Type-checked, never run: how interruption.http and interruption.inbox read."""

from typing import assert_type

from interruption import (
    JSON,
    DecodeError,
    MemoryStore,
    Message,
    Mismatch,
    ProblemCode,
    ResumeRejected,
    Role,
    Session,
)
from interruption.http import (
    client_message,
    decode_error_from,
    problem_body,
    status_of,
)
from interruption.inbox import (
    OpenSession,
    PrincipalOf,
    answer_as,
    create_app,
    from_cookie,
    from_header,
)
from interruption.runtime.bridge import SessionBridge
from interruption.testing import ScriptedModel
from starlette.applications import Starlette
from starlette.requests import Request

store = MemoryStore()
model = ScriptedModel([Message.of_text(Role.MODEL, "hi")])
rejected = ResumeRejected.of(ProblemCode.CONSUMED, "a replay")
decode = DecodeError([Mismatch("$", "an object", "null")])

assert_type(status_of(rejected), int)
assert_type(client_message(rejected), str)
assert_type(problem_body(decode), dict[str, JSON])
assert_type(decode_error_from({"type": "decode_error"}), DecodeError)
status_of(ValueError("x"))  # type: ignore[arg-type]


def open_session(session: str) -> Session:
    return Session(store, model, id=session)


async def who(request: Request) -> str | None:
    return request.headers.get("X-User")


opener: OpenSession = open_session
principal: PrincipalOf = who
assert_type(from_header("X-User"), PrincipalOf)
assert_type(from_cookie("user"), PrincipalOf)
assert_type(create_app(store, open_session, principal=who), Starlette)
assert_type(create_app(store, open_session, principal=from_header()), Starlette)
create_app(store, "not a function")  # type: ignore[arg-type]
sessions_door = SessionBridge(store, open_session)
assert_type(create_app(bridges=[sessions_door]), Starlette)
assert_type(create_app(store, open_session, bridges=[sessions_door]), Starlette)
create_app(bridges=[store])  # type: ignore[list-item]
create_app(store, open_session, page_size="20")  # type: ignore[arg-type]
pending_json: dict[str, JSON] = answer_as(...)  # type: ignore[arg-type]
