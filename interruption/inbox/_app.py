"""The inbox application: pages, the JSON API under them, live updates."""

from __future__ import annotations

import asyncio
import hmac
import json
import re
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Final, Literal, TypeAlias, final
from urllib.parse import quote, urlsplit

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
    Confirm,
    InterruptionError,
    InvalidArgument,
    PendingInterrupt,
    Problem,
    ProblemCode,
    Reject,
    Respond,
    Restart,
    Resume,
    ResumeRejected,
    Store,
    loads,
    structure,
    unstructure,
)
from interruption.http import client_message, problem_body, status_of
from interruption.inbox._forms import Field, Missing, field_for, read, strict_json
from interruption.runtime.approval import decision_to_json
from interruption.runtime.bridge import (
    Bridge,
    OpenSession,
    PendingPause,
    SessionBridge,
    pending_everywhere,
)
from interruption.validation import ResolvedResume, utc_now

__all__ = [
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

    A request that carries the header more than once is anonymous: a proxy
    that adds its own line beside the client's, instead of replacing it,
    must not let the client's come first and win.

    Args:
        name: The header (case-insensitive).

    Returns:
        A `PrincipalOf`: the header's one value, or None when it is absent,
        empty or repeated.
    """

    def principal(request: Request) -> str | None:
        values = request.headers.getlist(name)
        return values[0] or None if len(values) == 1 else None

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


def _pause_json(pause: PendingPause) -> dict[str, JSON]:
    return {
        "door": pause.door,
        "scope": pause.scope,
        "created_at": pause.created_at.isoformat(),
        "expires_at": None
        if pause.expires_at is None
        else pause.expires_at.isoformat(),
        "interrupts": [
            {**_as_object(unstructure(pending)), "answer_as": answer_as(pending)}
            for pending in pause.interrupts
        ],
    }


def _shown(pause: PendingPause) -> str:
    """What a form says it answers: the name and ref of each interrupt shown."""
    return json.dumps([list(answer_key) for answer_key in _keys(pause)])


def _keys(pause: PendingPause) -> list[tuple[str, str]]:
    return [(pending.name, pending.ref) for pending in pause.interrupts]


def _shown_keys(text: object) -> list[tuple[str, str]]:
    """The (name, ref) pairs a form's ``pause`` field names; [] if unreadable."""
    try:
        value = strict_json(text) if isinstance(text, str) else None
    except ValueError:
        return []
    if not isinstance(value, list):
        return []
    return [
        (pair[0], pair[1])
        for pair in value
        if isinstance(pair, list)
        and len(pair) == 2
        and isinstance(pair[0], str)
        and isinstance(pair[1], str)
    ]


def _unanswerable(keys: Sequence[tuple[str, str]]) -> Resume:
    """Names *keys* twice (a respond and a restart each): never accepted.

    What a form for a pause no longer shown sends: the bridge's verdict
    (``not_authorized``, ``consumed``, ``expired``, ...) comes before its
    ``duplicate`` problems, and is what the person is told. With no keys
    (an unreadable form) it names a placeholder instead: an empty resume
    answers nothing, which a policy allowing partial answers accepts.
    """
    named = list(keys) or [("(none)", "(none)")]
    return Resume(
        respond=tuple(Respond(name, ref, None) for name, ref in named),
        restart=tuple(Restart(name, ref, None) for name, ref in named),
    )


def _audit_of(door: str, scope: str) -> str:
    """The path of a pause's audit trail, under the inbox's root."""
    return f"/audit/{quote(door, safe='')}/{quote(scope, safe='')}"


def _url_of(door: str, scope: str) -> str:
    """The path of a pause's page, under the inbox's root: both parts escaped."""
    return f"/p/{quote(door, safe='')}/{quote(scope, safe='')}"


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
    bridges: Mapping[str, Bridge]
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
        env.globals["url_of"] = _url_of
        env.globals["audit_of"] = _audit_of
        self.env = env

    # --- reading what is pending ------------------------------------------

    async def who(self, request: Request) -> str | None:
        found = self.config.principal(request)
        if not isinstance(found, str | None):
            found = await found
        return found

    def where(self, request: Request) -> tuple[Bridge, str]:
        """The bridge and scope a URL names; an unknown door is a 404 problem."""
        door = request.path_params.get("door", "session")
        bridge = self.config.bridges.get(door)
        if bridge is None:
            message = f"no door {door!r} in this inbox"
            raise ResumeRejected.of(ProblemCode.UNKNOWN_SESSION, message)
        return bridge, request.path_params["scope"]

    async def pending(self, principal: str | None) -> list[PendingPause]:
        """Every pause *principal* may answer, through every bridge, newest first."""
        return await pending_everywhere(
            self.config.bridges.values(), principal=principal
        )

    async def visible(
        self, bridge: Bridge, scope: str, principal: str | None
    ) -> PendingPause | None:
        """The pause kept at *scope* if *principal* may answer it, else None.

        Reads that one scope (`Bridge.pause`), never the whole listing.
        """
        return await bridge.pause(scope, principal=principal)

    def _page(self, request: Request) -> int:
        text = request.query_params.get("page", "1")
        # isdecimal, not isdigit ("²" is a digit int() refuses), and short:
        # int() refuses a text of over 4,300 digits.
        return int(text) if text.isdecimal() and len(text) <= 6 and int(text) else 1

    def _paged(
        self, request: Request, pauses: Sequence[PendingPause]
    ) -> tuple[int, Sequence[PendingPause], bool]:
        page = self._page(request)
        size = self.config.page_size
        shown = pauses[(page - 1) * size : page * size]
        return page, shown, len(pauses) > page * size

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
        pauses = await self.pending(principal)
        page, shown, more = self._paged(request, pauses)
        return self.render(
            request,
            "index.html",
            items=shown,
            page=page,
            more=more,
            total=len(pauses),
            principal=principal,
            kind_label=_kind_label,
            asks=_asks,
        )

    async def turn(self, request: Request) -> Response:
        principal = await self.who(request)
        bridge, scope = self.where(request)
        item = await self.visible(bridge, scope, principal)
        answered = request.query_params.get("answered")
        if item is None:
            return self.render(
                request,
                "turn.html",
                status=200 if answered else 404,
                item=None,
                door=bridge.door,
                scope=scope,
                answered=answered,
                principal=principal,
            )
        cards = [_card(pending, n) for n, pending in enumerate(item.interrupts)]
        return self.render(
            request,
            "turn.html",
            item=item,
            door=bridge.door,
            scope=scope,
            shown=_shown(item),
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
        bridge, scope = self.where(request)
        form = await request.form()
        if not self._csrf_ok(request, form):
            return self.render(request, "refused.html", status=403)
        item = await self.visible(bridge, scope, principal)
        sent = _shown_keys(form.get("pause"))
        page = {"door": bridge.door, "scope": scope, "principal": principal}
        if item is None or _keys(item) != sent:
            # Answered elsewhere, expired, or never shown to this principal:
            # the bridge decides which, and files the attempt.
            try:
                await bridge.answer(scope, _unanswerable(sent), principal=principal)
            except ResumeRejected as rejected:
                return self.render(
                    request,
                    "turn.html",
                    status=status_of(rejected),
                    item=None,
                    answered=None,
                    rejected=[problem.message for problem in rejected.problems],
                    **page,
                )
            message = "this pause changed meanwhile"  # pragma: no cover - a race
            raise ResumeRejected.of(ProblemCode.CONSUMED, message)  # pragma: no cover
        cards = [_card(pending, n) for n, pending in enumerate(item.interrupts)]
        entries, cards = self._entries(form, cards)
        review = form.get("intent") == "review"
        shown = {"item": item, "shown": _shown(item), "kind_label": _kind_label}
        if review or any(card.field_problems for card in cards):
            return self.render(
                request,
                "turn.html",
                status=200 if review else 422,
                cards=cards,
                answered=None,
                reviewing=review,
                **page,
                **shown,
            )
        try:
            await bridge.answer(scope, _resume_of(entries), principal=principal)
        except ResumeRejected as rejected:
            cards = _with_problems(cards, rejected.problems)
            general = [p.message for p in rejected.problems if p.interrupt_id is None]
            return self.render(
                request,
                "turn.html",
                status=status_of(rejected),
                cards=cards,
                answered=None,
                rejected=general,
                **page,
                **shown,
            )
        root = request.scope.get("root_path", "")
        where = _url_of(bridge.door, scope)
        return RedirectResponse(f"{root}{where}?answered=1", status_code=303)

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
        bridge, scope = self.where(request)
        events = await bridge.audit(scope, principal=principal)
        return self.render(
            request,
            "audit.html",
            status=200 if events else 404,
            door=bridge.door,
            scope=scope,
            events=events,
            principal=principal,
        )

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
            message=client_message(error),
            principal=None,
        )

    # --- the JSON API -------------------------------------------------------

    async def api_pending(self, request: Request) -> Response:
        principal = await self.who(request)
        pauses = await self.pending(principal)
        page, shown, more = self._paged(request, pauses)
        body: dict[str, JSON] = {
            "items": [_pause_json(pause) for pause in shown],
            "page": page,
            "next": page + 1 if more else None,
            "total": len(pauses),
        }
        return JSONResponse(body)

    async def api_pause(self, request: Request) -> Response:
        principal = await self.who(request)
        bridge, scope = self.where(request)
        item = await self.visible(bridge, scope, principal)
        if item is None:
            return _problem(
                ResumeRejected.of(
                    ProblemCode.NOTHING_PENDING,
                    f"nothing pending at {bridge.door} {scope!r} that you may answer",
                )
            )
        return JSONResponse(_pause_json(item))

    async def api_answer(self, request: Request) -> Response:
        principal = await self.who(request)
        bridge, scope = self.where(request)
        if not self._csrf_ok(request, None):
            return _cross_site()
        try:
            sent = loads(await request.body(), Resume)
            resolved = await bridge.answer(scope, sent, principal=principal)
        except InterruptionError as error:
            return _problem(error)
        return await self._answered(bridge, scope, resolved, principal)

    async def api_resume(self, request: Request) -> Response:
        """The sessions' own route: a `ResumeRequest` names the turn it answers."""
        principal = await self.who(request)
        bridge, scope = self.where(request)
        if not self._csrf_ok(request, None):
            return _cross_site()
        try:
            sent = loads(await request.body(), ResumeRequest)
            if not isinstance(bridge, SessionBridge):  # pragma: no cover - routed
                raise ResumeRejected.of(ProblemCode.UNKNOWN_SESSION, "no sessions")
            resolved = await bridge.answer(
                scope, sent.resume, principal=principal, turn_id=sent.turn_id
            )
        except InterruptionError as error:
            return _problem(error)
        return await self._answered(bridge, scope, resolved, principal)

    async def _answered(
        self,
        bridge: Bridge,
        scope: str,
        resolved: ResolvedResume,
        principal: str | None,
    ) -> Response:
        again = await self.visible(bridge, scope, principal)
        return JSONResponse(
            {
                "accepted": True,
                "door": bridge.door,
                "scope": scope,
                "answered": [answer.interrupt.id for answer in resolved.answers],
                "paused_again": again is not None,
            }
        )

    async def api_audit(self, request: Request) -> Response:
        principal = await self.who(request)
        bridge, scope = self.where(request)
        events = await bridge.audit(scope, principal=principal)
        if not events:
            return _problem(
                ResumeRejected.of(
                    ProblemCode.UNKNOWN_SESSION,
                    f"no audit trail at {bridge.door} {scope!r} that you may read",
                )
            )
        return JSONResponse({"events": [unstructure(event) for event in events]})

    # --- live updates -------------------------------------------------------

    async def events(self, request: Request) -> Response:
        principal = await self.who(request)

        async def stream() -> AsyncIterator[str]:
            loop = asyncio.get_running_loop()
            ends = loop.time() + self.config.stream_for
            seen: tuple[tuple[str, str, tuple[str, ...]], ...] | None = None
            yield "retry: 2000\n\n"
            while loop.time() < ends:
                pauses = await self.pending(principal)
                now = tuple(
                    (p.door, p.scope, tuple(i.id for i in p.interrupts)) for p in pauses
                )
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


def _cross_site() -> JSONResponse:
    return JSONResponse(
        {
            "type": "cross_site",
            "message": "expected a JSON body from this origin, got another",
        },
        status_code=403,
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
    store: Store | None = None,
    open_session: OpenSession | None = None,
    *,
    bridges: Sequence[Bridge] = (),
    principal: PrincipalOf | None = None,
    page_size: int = 20,
    poll_seconds: float = 1.0,
    stream_seconds: float = 300.0,
    now: Callable[[], datetime] | None = None,
    title: str = "Approval inbox",
) -> Starlette:
    """Build the inbox: an ASGI application to mount or serve on its own.

    It lists what is pending through every bridge (`interruption.runtime.bridge`),
    newest first, and sends every answer through `Bridge.answer` (the
    validator decides, the pause is spent once, the audit trail records
    it); the inbox only shows and asks. A principal a bridge's authorizer
    refuses sees nothing of it: no pause, no audit trail.

    Args:
        store: Where `Session` turns live: with *open_session*, a
            `SessionBridge` (door ``"session"``), listed first.
        open_session: Opens a session by id, with its model, tools and
            authorizer (`Session.authorize` decides who sees and answers).
        bridges: More doors: each adapter's ``bridge(...)``, any `Bridge`.
        principal: Who is asking (`from_header`, `from_cookie`, or any
            callable); `from_header("X-Remote-User")` when None.
        page_size: Pending pauses per page.
        poll_seconds: How often live updates read what is pending.
        stream_seconds: How long one live-update stream lasts before the
            browser reconnects (bounded, so no stream runs for ever).
        now: The clock (UTC) of the pages and of the sessions' expiry.
        title: The page's heading.

    Returns:
        The Starlette application: ``/`` (what is pending), ``/p/{door}/
        {scope}`` (one pause, answered as one resume), ``/audit/{door}/
        {scope}``, ``/events`` (server-sent events), ``/api/...`` (the JSON
        API, see ``docs/inbox.md``) and ``/static/...``; the sessions' own
        ``/s/{id}`` paths too.

    Raises:
        InvalidArgument: if only one of *store* and *open_session* is
            given, no door is given at all, or two bridges share a door.
    """
    doors = list(bridges)
    if (store is None) != (open_session is None):
        got = "only the store" if open_session is None else "only open_session"
        raise InvalidArgument("create_app", "a store with open_session", got)
    if store is not None and open_session is not None:
        doors.insert(0, SessionBridge(store, open_session, now or utc_now))
    by_door = {bridge.door: bridge for bridge in doors}
    if not doors or len(by_door) != len(doors):
        names = ", ".join(repr(bridge.door) for bridge in doors) or "none"
        raise InvalidArgument("create_app: bridges", "distinct doors", names)
    config = _Config(
        bridges=by_door,
        principal=principal or from_header(),
        page_size=page_size,
        poll=poll_seconds,
        stream_for=stream_seconds,
        now=now or utc_now,
        title=title,
    )
    inbox = _Inbox(config)
    pause, scope = "/p/{door}/{scope:path}", "/{door}/{scope:path}"
    session = "/{scope}"
    routes = [
        Route("/", inbox.index),
        Route(pause, inbox.turn, methods=["GET"]),
        Route(pause, inbox.answer, methods=["POST"]),
        Route(f"/audit{scope}", inbox.audit),
        Route("/events", inbox.events),
        Route("/api/pending", inbox.api_pending),
        Route(f"/api/pauses{scope}", inbox.api_pause),
        Route(f"/api/answer{scope}", inbox.api_answer, methods=["POST"]),
        Route(f"/api/audit{scope}", inbox.api_audit),
        # The sessions' own paths (door "session"), as before bridges.
        Route(f"/s{session}", inbox.turn, methods=["GET"]),
        Route(f"/s{session}", inbox.answer, methods=["POST"]),
        Route(f"/s{session}/audit", inbox.audit),
        Route(f"/api/sessions{session}", inbox.api_pause),
        Route(f"/api/sessions{session}/resume", inbox.api_resume, methods=["POST"]),
        Route(f"/api/sessions{session}/audit", inbox.api_audit),
        Mount("/static", StaticFiles(directory=_HERE / "static"), name="static"),
    ]
    return Starlette(
        routes=routes,
        middleware=[Middleware(_Headers)],
        exception_handlers={InterruptionError: inbox.failed},
    )
