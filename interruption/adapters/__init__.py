"""Adapters: the library's guarantees on other frameworks' resume channels.

One module per framework, each behind its own extra, importing its
framework when the module is first imported (a missing extra is an
`ImportError` that names it). Adapters import the core, never each other;
the core never imports an adapter. Each one translates the framework's
pause into `PendingInterrupt`s and its resume into a validated `Resume`
through the core's one sequence (`interruption.admit`: validate against the
framework's own authoritative state, then spend once in a `Store`).
"""
