"""The inbox application: pages, the JSON API under them, live updates."""

from __future__ import annotations

import asyncio
import hmac
import json
import re
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Final, Literal, TypeAlias, final
from urllib.parse import urlsplit

import attrs
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.datastructures import FormData
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from interruption import (
    JSON,
    ApprovalPending,
    Approve,
    AuditEvent,
    Confirm,
    InterruptedTurn,
    InterruptionError,
    PendingInterrupt,
    PendingTurn,
    Problem,
    ProblemCode,
    Reject,
    Respond,
    Restart,
    Resume,
    ResumeRejected,
    Session,
    Store,
    loads,
    structure,
    unstructure,
)
from interruption.approval import decision_to_json
from interruption.http import problem_body, status_of
from interruption.inbox._forms import Field, Missing, field_for, read
from interruption.validation import authorize_turn, utc_now

__all__ = [
    "InboxItem",
    "OpenSession",
    "PrincipalOf",
    "ResumeRequest",
    "answer_as",
    "create_app",
    "from_cookie",
    "from_header",
]

_HERE: Final = Path(__file__).parent

PrincipalOf: TypeAlias = Callable[[Request], Awaitable[str | None] | str | None]
"""Who is asking: ``(request) -> principal``, sync or async; None is anonymous."""

OpenSession: TypeAlias = Callable[[str], Session]
"""Opens a session by id, with its model, tools and authorizer, to answer it."""

CSRF_COOKIE: Final = "inbox_csrf"
"""The double-submit cookie: its value must come back in the form's field."""

CSP: Final = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; "
    "base-uri 'none'"
)
"""The content security policy of every response: no inline script or style."""

SECURITY_HEADERS: Final[tuple[tuple[bytes, bytes], ...]] = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
)


def from_header(name: str = "X-Remote-User") -> PrincipalOf:
    """Read the principal from a request header an authenticating proxy sets.

    Args:
        name: The header (case-insensitive).

    Returns:
        A `PrincipalOf`: the header's value, or None when it is absent.
    """

    def principal(request: Request) -> str | None:
        return request.headers.get(name) or None

    return principal


def from_cookie(name: str) -> PrincipalOf:
    """Read the principal from a cookie your own login middleware sets.

    Only use it behind something that makes the cookie trustworthy (a
    signed session middleware that verifies it first): the inbox trusts it.

    Args:
        name: The cookie.

    Returns:
        A `PrincipalOf`: the cookie's value, or None when it is absent.
    """

    def principal(request: Request) -> str | None:
        return request.cookies.get(name) or None

    return principal


@final
@attrs.frozen
class InboxItem:
    """One paused session a principal may answer, as the inbox lists it.

    Attributes:
        state: The pending turn (`PendingTurn`: what to answer, when).
        created_at: When it paused.
    """

    state: PendingTurn
    created_at: datetime


@final
class _Headers:
    """ASGI middleware: the security headers on every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)  # pragma: no cover - lifespan
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, with_headers)


Mode: TypeAlias = Literal["approve", "reject", "edit", "respond", "restart"]


@final
@attrs.frozen
class _Choice:
    """One way to answer an interrupt, with the field it asks for."""

    mode: Mode
    label: str
    field: Field


@final
@attrs.frozen
class _Card:
    """One interrupt of the turn screen, ready to render."""

    index: int
    pending: PendingInterrupt
    title: str
    text: str | None
    payload: str
    arguments: str | None
    rows: tuple[tuple[str, str], ...]
    choices: tuple[_Choice, ...]
    chosen: str
    default: str | None
    expires_at: datetime | None
    field_problems: tuple[tuple[str, str], ...] = ()
    diff: tuple[tuple[str, str, str], ...] = ()


def _pretty(value: JSON) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _kind_label(pending: PendingInterrupt) -> str:
    return {
        "approval_pending": "Approval",
        "scheduled_pause": "Scheduled pause",
        "custom": "Question",
    }[str(unstructure(pending.kind)["type"])]  # type: ignore[index, call-overload]


def _asks(pending: PendingInterrupt) -> str | None:
    """What a pause asks, in its payload's words (a prompt's text), or None."""
    payload = pending.payload
    text = payload.get("text") if isinstance(payload, dict) else None
    return text if isinstance(text, str) and text else None


def answer_as(pending: PendingInterrupt) -> dict[str, JSON]:
    """What an answer to *pending* must carry, for a client in any language.

    Returns:
        ``{"name", "ref", "respond", "restart", "replace_input"}``: the
        name and ref of every entry that answers it, and the schema of each
        answer it accepts (None: not accepted).
    """
    allowed = pending.allowed
    return {
        "name": pending.name,
        "ref": pending.ref,
        "respond": allowed.respond,
        "restart": allowed.restart,
        "replace_input": allowed.replace_input,
    }


def _item(turn: InterruptedTurn) -> InboxItem:
    return InboxItem(PendingTurn.of(turn), turn.created_at)


def _item_json(item: InboxItem) -> dict[str, JSON]:
    state = item.state
    return {
        "session": state.session,
        "turn_id": state.turn_id,
        "created_at": item.created_at.isoformat(),
        "expires_at": None
        if state.expires_at is None
        else state.expires_at.isoformat(),
        "interrupts": [
            {**_as_object(unstructure(pending)), "answer_as": answer_as(pending)}
            for pending in state.interrupts
        ],
    }


def _as_object(value: JSON) -> dict[str, JSON]:
    return value if isinstance(value, dict) else {}


def _choices(pending: PendingInterrupt, index: int) -> tuple[_Choice, ...]:
    prefix = f"i{index}"
    allowed = pending.allowed
    if isinstance(pending.kind, ApprovalPending):
        choices = [
            _Choice(
                "approve",
                "Approve",
                field_for(
                    {"type": "string"},
                    f"{prefix}.approve.note",
                    "Note (optional)",
                    required=False,
                ),
            ),
            _Choice(
                "reject",
                "Reject",
                field_for(
                    {"type": "string", "minLength": 1},
                    f"{prefix}.reject.reason",
                    "Reason for rejecting",
                ),
            ),
        ]
        choices.extend(_edit(pending, prefix, "Edit, then approve"))
        return tuple(choices)
    found: list[_Choice] = []
    if allowed.respond is not None:
        label = "Answer" if allowed.restart is None else "Answer with a result"
        schema: JSON = allowed.respond
        confirm = _confirm_choices(pending.payload)
        if confirm is not None:  # a Confirm: its choices (the validator decides)
            schema = {"enum": list(confirm)}
        found.append(
            _Choice(
                "respond",
                label,
                field_for(schema, f"{prefix}.respond", "Your answer"),
            )
        )
    if allowed.restart is not None:
        label = "Continue" if allowed.respond is None else "Run it again"
        found.append(
            _Choice(
                "restart",
                label,
                field_for(allowed.restart, f"{prefix}.restart", "Data for the run"),
            )
        )
        found.extend(_edit(pending, prefix, "Edit the arguments, then continue"))
    return tuple(found)


def _edit(pending: PendingInterrupt, prefix: str, label: str) -> tuple[_Choice, ...]:
    """The edit choice, where *pending* takes a replacement input (else none)."""
    schema = pending.accepts.replace_input
    if schema is None or pending.tool is None:
        return ()
    arguments = field_for(
        schema, f"{prefix}.edit", "Arguments", prefill=pending.tool.input
    )
    return (_Choice("edit", label, arguments),)


def _confirm_choices(payload: JSON) -> tuple[str, ...] | None:
    """A `Confirm` payload's choices, or None for any other payload."""
    try:
        return structure(payload, Confirm).choices
    except InterruptionError:
        return None


def _card(pending: PendingInterrupt, index: int) -> _Card:
    payload = pending.payload
    title = pending.name
    text: str | None = None
    if isinstance(payload, dict):
        heading = payload.get("title")
        question = payload.get("text")
        title = heading if isinstance(heading, str) and heading else title
        text = question if isinstance(question, str) else None
    choices = _choices(pending, index)
    default = None if pending.on_expiry is None else _pretty(pending.on_expiry.output)
    return _Card(
        index=index,
        pending=pending,
        title=title,
        text=text,
        payload=_pretty(payload),
        arguments=None if pending.tool is None else _pretty(pending.tool.input),
        rows=_rows(None if pending.tool is None else pending.tool.input),
        choices=choices,
        chosen=choices[0].mode if len(choices) == 1 else "",
        default=default,
        expires_at=pending.expires_at,
    )


def _rows(arguments: JSON) -> tuple[tuple[str, str], ...]:
    """A call's arguments as (name, JSON) rows, when they are an object.

    Values are shown as JSON, so ``"1"`` and ``1`` look different.
    """
    if not isinstance(arguments, dict):
        return ()
    return tuple(
        (key, json.dumps(value, ensure_ascii=False)) for key, value in arguments.items()
    )


def _diff(before: JSON, after: JSON) -> tuple[tuple[str, str, str], ...]:
    """The arguments that differ: (name, before, after), shown as JSON."""
    if isinstance(before, dict) and isinstance(after, dict):
        keys = list(dict.fromkeys([*before, *after]))
        return tuple(
            (
                key,
                json.dumps(before[key]) if key in before else "(none)",
                json.dumps(after[key]) if key in after else "(none)",
            )
            for key in keys
            if key not in before or key not in after or before[key] != after[key]
        )
    if before == after:
        return ()
    return (("$", json.dumps(before), json.dumps(after)),)


@final
@attrs.frozen
class _Config:
    store: Store
    open_session: OpenSession
    principal: PrincipalOf
    page_size: int
    poll: float
    stream_for: float
    now: Callable[[], datetime]
    title: str


_Entry: TypeAlias = Respond | Restart


@final
class _Inbox:
    """The handlers, over one configuration."""

    def __init__(self, config: _Config) -> None:
        self.config = config
        env = Environment(
            loader=FileSystemLoader(_HERE / "templates"),
            autoescape=select_autoescape(default=True, default_for_string=True),
            trim_blocks=True,
            lstrip_blocks=True,
        )
        env.filters["pretty"] = _pretty
        self.env = env

    # --- reading what is pending ------------------------------------------

    async def who(self, request: Request) -> str | None:
        found = self.config.principal(request)
        if not isinstance(found, str | None):
            found = await found
        return found

    async def visible(self, session: str, principal: str | None) -> InboxItem | None:
        """The session's open turn if *principal* may answer it, else None."""
        turn = await self._answerable(session, principal)
        return None if turn is None else _item(turn)

    async def _answerable(
        self, session: str, principal: str | None
    ) -> InterruptedTurn | None:
        """The session's open turn (no history) if *principal* may answer it."""
        config = self.config
        stored = await config.store.load_turn(session)
        if stored is None or stored.state != "open":
            return None
        turn = stored.turn
        closes = turn.closes_at
        if closes is not None and closes <= config.now():
            return None
        try:
            await authorize_turn(
                turn, config.open_session(session).authorize, principal
            )
        except ResumeRejected:
            return None
        return turn

    async def expire(self) -> None:
        """Close every expired turn, with its declared default answers."""
        config = self.config
        cursor: str | None = None
        while True:
            page = await config.store.sessions(
                "expired", now=config.now(), after=cursor
            )
            for session in page:
                await config.open_session(session).expire()
            if len(page) < 1000:
                return
            cursor = page[-1]  # pragma: no cover - over a thousand at once

    async def pending(self, principal: str | None) -> list[InterruptedTurn]:
        """Every open turn *principal* may answer, newest first (no history)."""
        config = self.config
        await self.expire()
        found: list[InterruptedTurn] = []
        cursor: str | None = None
        while True:
            page = await config.store.sessions("open", now=config.now(), after=cursor)
            for session in page:
                turn = await self._answerable(session, principal)
                if turn is not None:
                    found.append(turn)
            if len(page) < 1000:
                break
            cursor = page[-1]  # pragma: no cover - over a thousand at once
        found.sort(key=lambda turn: (turn.created_at, turn.session), reverse=True)
        return found

    def _page(self, request: Request) -> int:
        text = request.query_params.get("page", "1")
        return int(text) if text.isdigit() and 0 < int(text) < 10**6 else 1

    # --- pages --------------------------------------------------------------

    def render(
        self, request: Request, name: str, status: int = 200, **context: object
    ) -> HTMLResponse:
        token = request.cookies.get(CSRF_COOKIE) or secrets.token_urlsafe(32)
        html = self.env.get_template(name).render(
            title=self.config.title,
            csrf=token,
            root=request.scope.get("root_path", ""),
            now=self.config.now(),
            **context,
        )
        response = HTMLResponse(html, status_code=status)
        response.set_cookie(
            CSRF_COOKIE,
            token,
            httponly=True,
            samesite="strict",
            path=request.scope.get("root_path", "") or "/",
        )
        return response

    async def index(self, request: Request) -> Response:
        principal = await self.who(request)
        items = await self.pending(principal)
        page = self._page(request)
        size = self.config.page_size
        shown = [_item(turn) for turn in items[(page - 1) * size : page * size]]
        return self.render(
            request,
            "index.html",
            items=shown,
            page=page,
            more=len(items) > page * size,
            total=len(items),
            principal=principal,
            kind_label=_kind_label,
            asks=_asks,
        )

    async def turn(self, request: Request) -> Response:
        principal = await self.who(request)
        session = request.path_params["session"]
        await self.expire()
        item = await self.visible(session, principal)
        answered = request.query_params.get("answered")
        if item is None:
            return self.render(
                request,
                "turn.html",
                status=200 if answered else 404,
                item=None,
                session=session,
                answered=answered,
                principal=principal,
            )
        cards = [_card(pending, n) for n, pending in enumerate(item.state.interrupts)]
        return self.render(
            request,
            "turn.html",
            item=item,
            session=session,
            cards=cards,
            answered=answered,
            principal=principal,
            kind_label=_kind_label,
        )

    def _csrf_ok(self, request: Request, form: FormData | None) -> bool:
        """Whether a POST comes from this inbox's own page."""
        origin = request.headers.get("origin")
        if origin is not None and origin != "null":
            host = request.headers.get("host", "")
            if urlsplit(origin).netloc != host:
                return False
        if form is None:  # the JSON API: a JSON body cannot come cross-site
            content = request.headers.get("content-type", "")
            return content.split(";")[0].strip() == "application/json"
        cookie = request.cookies.get(CSRF_COOKIE, "")
        sent = form.get("csrf")
        return (
            bool(cookie)
            and isinstance(sent, str)
            and hmac.compare_digest(cookie.encode(), sent.encode())
        )

    async def answer(self, request: Request) -> Response:
        principal = await self.who(request)
        session_id = request.path_params["session"]
        form = await request.form()
        if not self._csrf_ok(request, form):
            return self.render(request, "refused.html", status=403)
        item = await self.visible(session_id, principal)
        turn_text = form.get("turn_id")
        turn_id = (
            int(turn_text) if isinstance(turn_text, str) and turn_text.isdigit() else 0
        )
        if item is None or item.state.turn_id != turn_id:
            # Answered elsewhere, expired, or never shown to this principal:
            # the session decides which, and files the attempt.
            rejected = await self._resume_stale(session_id, turn_id, principal)
            return self.render(
                request,
                "turn.html",
                status=status_of(rejected),
                item=None,
                session=session_id,
                answered=None,
                principal=principal,
                rejected=[problem.message for problem in rejected.problems],
            )
        cards = [_card(pending, n) for n, pending in enumerate(item.state.interrupts)]
        entries, cards = self._entries(form, cards)
        review = form.get("intent") == "review"
        if review or any(card.field_problems for card in cards):
            status = 200 if review else 422
            return self.render(
                request,
                "turn.html",
                status=status,
                item=item,
                session=session_id,
                cards=cards,
                answered=None,
                principal=principal,
                kind_label=_kind_label,
                reviewing=review,
            )
        session = self.config.open_session(session_id)
        try:
            await session.resume(
                _resume_of(entries), turn_id=turn_id, principal=principal
            )
        except ResumeRejected as rejected:
            cards = _with_problems(cards, rejected.problems)
            general = [p.message for p in rejected.problems if p.interrupt_id is None]
            return self.render(
                request,
                "turn.html",
                status=status_of(rejected),
                item=item,
                session=session_id,
                cards=cards,
                answered=None,
                principal=principal,
                kind_label=_kind_label,
                rejected=general,
            )
        root = request.scope.get("root_path", "")
        return RedirectResponse(f"{root}/s/{session_id}?answered=1", status_code=303)

    async def _resume_stale(
        self, session_id: str, turn_id: int, principal: str | None
    ) -> ResumeRejected:
        """Ask the session why an answer to a turn not shown is refused.

        An empty resume: the session rejects it before anything runs (not
        authorized, consumed, unknown) and files the attempt; a turn past
        its expiry is closed first, with its declared default answers.
        """
        session = self.config.open_session(session_id)
        turn = turn_id or None
        store = self.config.store
        stored = await store.load_turn(session_id, turn)
        closes = None if stored is None else stored.turn.closes_at
        if stored is not None and closes is not None and closes <= self.config.now():
            await session.expire()  # a no-op when the inbox closed it already
            trail = await store.audit(session_id)
            if any(
                event.kind == "expired" and event.turn_id == stored.turn.turn_id
                for event in trail
            ):
                message = (
                    f"this pause expired at {closes:%Y-%m-%d %H:%M:%S} UTC: "
                    "its default answer applied"
                )
                return ResumeRejected.of(ProblemCode.EXPIRED, message)
        try:
            await session.resume(Resume(), turn_id=turn, principal=principal)
        except ResumeRejected as rejected:
            return rejected
        message = "this turn was answered meanwhile"  # pragma: no cover - a race
        return ResumeRejected.of(ProblemCode.CONSUMED, message)  # pragma: no cover

    def _entries(
        self, form: FormData, cards: Sequence[_Card]
    ) -> tuple[list[_Entry], list[_Card]]:
        """Build each card's entry from the form; note what could not be read."""

        def get(name: str) -> str | None:
            value = form.get(name)
            return value if isinstance(value, str) else None

        entries: list[_Entry] = []
        updated: list[_Card] = []
        for card in cards:
            chosen = get(f"i{card.index}.mode") or card.chosen
            choice = next((c for c in card.choices if c.mode == chosen), None)
            problems: list[tuple[str, str]] = []
            diff: tuple[tuple[str, str, str], ...] = ()
            choices = card.choices
            if choice is None:
                problems.append(("$", "expected a choice, got none"))
            else:
                entry, diff = _entry(card.pending, choice, get, problems)
                if entry is not None:
                    entries.append(entry)
                    local = card.pending.problems_with(entry)
                    problems.extend(_placed([p.message for p in local], choice))
                choices = tuple(_refilled(c, get) for c in card.choices)
            updated.append(
                attrs.evolve(
                    card,
                    chosen=chosen,
                    choices=choices,
                    field_problems=tuple(problems),
                    diff=diff,
                )
            )
        return entries, updated

    async def audit(self, request: Request) -> Response:
        principal = await self.who(request)
        session = request.path_params["session"]
        events = await self._audit(session, principal)
        return self.render(
            request,
            "audit.html",
            status=200 if events is not None else 404,
            session=session,
            events=events or (),
            principal=principal,
        )

    async def _audit(
        self, session: str, principal: str | None
    ) -> tuple[AuditEvent, ...] | None:
        """The trail, if *principal* may answer the session's latest turn."""
        stored = await self.config.store.load_turn(session)
        if stored is None:
            return None
        try:
            await authorize_turn(
                stored.turn, self.config.open_session(session).authorize, principal
            )
        except ResumeRejected:
            return None
        return await self.config.store.audit(session)

    async def failed(self, request: Request, error: Exception) -> Response:
        """Any failure of the library's own: its status, as JSON or a page."""
        if not isinstance(error, InterruptionError):  # pragma: no cover - routed
            raise error
        if request.url.path.startswith(f"{request.scope.get('root_path', '')}/api/"):
            return _problem(error)
        return self.render(
            request,
            "refused.html",
            status=status_of(error),
            message=str(error),
            principal=None,
        )

    # --- the JSON API -------------------------------------------------------

    async def api_pending(self, request: Request) -> Response:
        principal = await self.who(request)
        items = await self.pending(principal)
        page = self._page(request)
        size = self.config.page_size
        shown = [_item(turn) for turn in items[(page - 1) * size : page * size]]
        body: dict[str, JSON] = {
            "items": [_item_json(item) for item in shown],
            "page": page,
            "next": page + 1 if len(items) > page * size else None,
            "total": len(items),
        }
        return JSONResponse(body)

    async def api_session(self, request: Request) -> Response:
        principal = await self.who(request)
        session = request.path_params["session"]
        await self.expire()
        item = await self.visible(session, principal)
        if item is None:
            return _problem(
                ResumeRejected.of(
                    ProblemCode.NOTHING_PENDING,
                    f"nothing pending in session {session!r} that you may answer",
                )
            )
        return JSONResponse(_item_json(item))

    async def api_resume(self, request: Request) -> Response:
        principal = await self.who(request)
        if not self._csrf_ok(request, None):
            return JSONResponse(
                {
                    "type": "cross_site",
                    "message": "expected a JSON body from this origin, got another",
                },
                status_code=403,
            )
        session = self.config.open_session(request.path_params["session"])
        try:
            sent = loads(await request.body(), ResumeRequest)
            result = await session.resume(
                sent.resume, turn_id=sent.turn_id, principal=principal
            )
        except InterruptionError as error:
            return _problem(error)
        following = result.turn
        return JSONResponse(
            {
                "accepted": True,
                "finish_reason": str(result.finish_reason),
                "paused_again": following is not None,
                "turn_id": None if following is None else following.turn_id,
            }
        )

    async def api_audit(self, request: Request) -> Response:
        principal = await self.who(request)
        session = request.path_params["session"]
        events = await self._audit(session, principal)
        if events is None:
            return _problem(
                ResumeRejected.of(
                    ProblemCode.UNKNOWN_SESSION,
                    f"no audit trail of session {session!r} that you may read",
                )
            )
        return JSONResponse({"events": [unstructure(event) for event in events]})

    # --- live updates -------------------------------------------------------

    async def events(self, request: Request) -> Response:
        principal = await self.who(request)

        async def stream() -> AsyncIterator[str]:
            loop = asyncio.get_running_loop()
            ends = loop.time() + self.config.stream_for
            seen: tuple[tuple[str, int], ...] | None = None
            yield "retry: 2000\n\n"
            while loop.time() < ends:
                items = await self.pending(principal)
                now = tuple((turn.session, turn.turn_id) for turn in items)
                if seen is not None and now != seen:
                    yield f"event: changed\ndata: {len(now)}\n\n"
                seen = now
                await asyncio.sleep(self.config.poll)
                if await request.is_disconnected():  # pragma: no cover - timing
                    return

        return StreamingResponse(
            stream(),
            media_type="text/event-stream",
            headers={"X-Accel-Buffering": "no"},
        )


def _problem(error: InterruptionError) -> JSONResponse:
    return JSONResponse(problem_body(error), status_code=status_of(error))


@final
@attrs.frozen
class ResumeRequest:
    """The body of ``POST /api/sessions/{id}/resume``, read by `loads` (strict).

    Its JSON Schema is ``json_schema(ResumeRequest)``.

    Attributes:
        turn_id: The turn the answers are for (from the pending JSON).
        resume: The answers, one entry per interrupt of the turn.
    """

    turn_id: int
    resume: Resume


def _resume_of(entries: Sequence[_Entry]) -> Resume:
    return Resume(
        respond=tuple(entry for entry in entries if isinstance(entry, Respond)),
        restart=tuple(entry for entry in entries if isinstance(entry, Restart)),
    )


def _refilled(choice: _Choice, get: Callable[[str], str | None]) -> _Choice:
    """*choice* with the values the person typed, to show them again."""
    return attrs.evolve(choice, field=_refill(choice.field, get))


def _refill(field: Field, get: Callable[[str], str | None]) -> Field:
    if field.widget == "object":
        return attrs.evolve(
            field, children=tuple(_refill(child, get) for child in field.children)
        )
    if field.widget == "boolean":
        return attrs.evolve(field, checked=get(field.name) is not None)
    return attrs.evolve(field, value=get(field.name) or "")


def _entry(
    pending: PendingInterrupt,
    choice: _Choice,
    get: Callable[[str], str | None],
    problems: list[tuple[str, str]],
) -> tuple[_Entry | None, tuple[tuple[str, str, str], ...]]:
    """The entry *choice* makes from the form, and an edit's diff."""
    name, ref = pending.name, pending.ref
    value = read(choice.field, get, problems)
    if problems:
        return None, ()
    try:
        match choice.mode:
            case "approve":
                note = value if isinstance(value, str) and value.strip() else None
                return Restart(name, ref, decision_to_json(Approve(note))), ()
            case "reject":
                reason = value if isinstance(value, str) else ""
                return Restart(name, ref, decision_to_json(Reject(reason))), ()
            case "edit":
                edited = None if isinstance(value, Missing) else value
                before = None if pending.tool is None else pending.tool.input
                resumed = (
                    decision_to_json(Approve())
                    if isinstance(pending.kind, ApprovalPending)
                    else None
                )
                entry = Restart(name, ref, resumed, edited)
                return entry, _diff(before, edited)
            case "respond":
                output = None if isinstance(value, Missing) else value
                return Respond(name, ref, output), ()
            case "restart":  # pragma: no branch - the modes are closed
                resumed = None if isinstance(value, Missing) else value
                return Restart(name, ref, resumed), ()
    except InterruptionError as error:  # an empty reason, a value not JSON
        problems.append(("$", str(error)))
    return None, ()


_AT: Final = re.compile(
    r"\$(?:\.(?:respond|restart)\[\d+\])?\.(?:output|resumed|input)"
    r"(?P<path>(?:\.[A-Za-z_][\w-]*|\[\d+\])*): "
)
"""Where a validator's mismatch is, within the value an answer carries."""


def _placed(messages: Sequence[str], choice: _Choice | None) -> list[tuple[str, str]]:
    """Each mismatch of *messages* at the field it concerns (``$``: the card).

    A problem's message joins its mismatches with ``"; "``, each starting
    with its JSON path in the resume (``$.respond[0].output.nights: ...``);
    one that names a field *choice* rendered is shown at that field, the
    rest at the top of its card.
    """
    fields = set() if choice is None else {f.path for f in choice.field.walk()}
    placed: list[tuple[str, str]] = []
    for message in messages:
        for piece in message.split("; "):
            found = _AT.match(piece)
            path = "$" + found["path"] if found is not None else "$"
            if path != "$" and path in fields:
                placed.append((path, piece[found.end() :] if found else piece))
            else:
                placed.append(("$", piece))
    return placed


def _with_problems(cards: Sequence[_Card], problems: Sequence[Problem]) -> list[_Card]:
    """Each card with the problems that concern its interrupt, at their fields."""
    by_id: dict[str, list[str]] = {}
    for problem in problems:
        if problem.interrupt_id is not None:
            by_id.setdefault(problem.interrupt_id, []).append(problem.message)
    placed = []
    for card in cards:
        choice = next((c for c in card.choices if c.mode == card.chosen), None)
        found = _placed(by_id.get(card.pending.id, ()), choice)
        placed.append(attrs.evolve(card, field_problems=(*card.field_problems, *found)))
    return placed


def create_app(  # noqa: PLR0913 - keyword-only configuration
    store: Store,
    open_session: OpenSession,
    *,
    principal: PrincipalOf | None = None,
    page_size: int = 20,
    poll_seconds: float = 1.0,
    stream_seconds: float = 300.0,
    now: Callable[[], datetime] | None = None,
    title: str = "Approval inbox",
) -> Starlette:
    """Build the inbox: an ASGI application to mount or serve on its own.

    Every answer goes through `Session.resume` (the validator decides,
    the turn is spent once, the audit trail records it); the inbox only
    shows and asks. A principal the session's authorizer refuses sees
    nothing pending and no audit trail.

    Args:
        store: Where the sessions live (the store their `Session` uses).
        open_session: Opens a session by id, with its model, tools and
            authorizer (`Session.authorize` decides who sees and answers).
        principal: Who is asking (`from_header`, `from_cookie`, or any
            callable); `from_header("X-Remote-User")` when None.
        page_size: Pending turns per page.
        poll_seconds: How often live updates read the store.
        stream_seconds: How long one live-update stream lasts before the
            browser reconnects (bounded, so no stream runs for ever).
        now: The clock (UTC), for tests.
        title: The page's heading.

    Returns:
        The Starlette application: ``/`` (what is pending), ``/s/{id}``
        (one turn, answered as one resume), ``/s/{id}/audit``, ``/events``
        (server-sent events), ``/api/...`` (the JSON API, see
        ``docs/inbox.md``) and ``/static/...``.
    """
    config = _Config(
        store=store,
        open_session=open_session,
        principal=principal or from_header(),
        page_size=page_size,
        poll=poll_seconds,
        stream_for=stream_seconds,
        now=now or utc_now,
        title=title,
    )
    inbox = _Inbox(config)
    routes = [
        Route("/", inbox.index),
        Route("/s/{session}", inbox.turn, methods=["GET"]),
        Route("/s/{session}", inbox.answer, methods=["POST"]),
        Route("/s/{session}/audit", inbox.audit),
        Route("/events", inbox.events),
        Route("/api/pending", inbox.api_pending),
        Route("/api/sessions/{session}", inbox.api_session),
        Route("/api/sessions/{session}/resume", inbox.api_resume, methods=["POST"]),
        Route("/api/sessions/{session}/audit", inbox.api_audit),
        Mount("/static", StaticFiles(directory=_HERE / "static"), name="static"),
    ]
    return Starlette(
        routes=routes,
        middleware=[Middleware(_Headers)],
        exception_handlers={InterruptionError: inbox.failed},
    )
