"""Typed, strictly validated human-in-the-loop pauses for agent runtimes.

Every public name is listed once, in ``__init__.pyi`` beside this file: mypy
reads its types there, and `lazy_loader` reads the same list to import each
name's module when the name is first used (``import interruption`` itself
imports none of them: no asyncio, jsonschema-rs, PyJWT, sqlite3 or psycopg
until a name needs it). ``__all__`` and ``dir()`` come from that list too.
"""

from __future__ import annotations

import lazy_loader

_attached, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)


def __getattr__(name: str) -> object:
    """Return the public *name*, importing its module on first use.

    ``__version__`` is the installed release (`importlib.metadata`), read
    when first asked.

    Raises:
        AttributeError: if the package has no public name *name*.
    """
    if name == "__version__":
        from importlib.metadata import version  # noqa: PLC0415 - read when asked

        globals()[name] = value = version(__name__)
        return value
    return _attached(name)
