"""The approval inbox: a web page where people answer pauses.

An ASGI application (Starlette; install the ``[inbox]`` extra) that any
app can mount, or that ``interruption inbox --db app.sqlite`` serves on its
own. It lists what is pending through every door (a `Bridge`: the
sessions of a `Store`, each adapter's ``bridge(...)``), newest first;
renders a form for each pause from its published JSON Schema; sends one
pause's answers as one `Resume` through `Bridge.answer`, so the validator
decides every answer; and shows each pause's audit trail. Under the pages
is a JSON API with the same problem codes and statuses
(`interruption.http`)::

    from interruption.inbox import create_app, from_header

    inbox = create_app(
        store, open_session, bridges=[graph_bridge], principal=from_header("X-User")
    )
    app.mount("/inbox", inbox)
"""

from interruption.inbox._app import (
    OpenSession,
    PrincipalOf,
    ResumeRequest,
    answer_as,
    create_app,
    from_cookie,
    from_header,
)

__all__ = [
    "OpenSession",
    "PrincipalOf",
    "ResumeRequest",
    "answer_as",
    "create_app",
    "from_cookie",
    "from_header",
]
