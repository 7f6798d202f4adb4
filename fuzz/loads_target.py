"""An atheris target: `interruption.loads` over every wire type.

Only `DecodeError` may escape, and it must say where (``$...``), what was
expected and what was got. Run it with ``make fuzz``, or by hand::

    .venv/bin/python fuzz/loads_target.py fuzz/corpus/loads -max_total_time=60

An input's first byte picks the type (`wire_examples.TYPES`), its second byte how
the rest is handed over (bit 0: as text, decoded with ``surrogateescape`` so
lone surrogates reach `loads`; bit 1: with ``max_bytes`` raised to 16 MiB).
An empty first corpus directory is filled with one valid document per type.

Every input's document bytes are also parsed twice: when orjson's fast path
accepts them, the exact (standard library) parser must give the same value.
"""

from __future__ import annotations

import sys
import typing

import atheris

with atheris.instrument_imports():
    from interruption import DecodeError, dumps, loads
    from interruption._json import MAX_DEPTH
    from interruption._parse import _exact, _fast_loads
    from interruption.wire import MAX_BYTES

from wire_examples import EXAMPLES, TYPES, write_seeds

RAISED = 16 * 1_048_576


def agree(raw: bytes) -> None:
    """Fail when the fast path accepts *raw* as other than the exact parser."""
    fast = _fast_loads(raw, MAX_DEPTH)
    if fast is None:  # declined: the exact parser decides alone
        return
    try:
        exact = _exact(raw, MAX_DEPTH)
    except DecodeError as error:
        msg = f"the fast path accepted {raw[:80]!r}, the exact parser refused: {error}"
        raise AssertionError(msg) from None
    if repr(fast) != repr(exact):
        msg = f"the parsers disagree on {raw[:80]!r}: {fast!r} != {exact!r}"
        raise AssertionError(msg)


def check(data: bytes) -> None:
    """Decode one fuzz input; fail on anything but a value or a DecodeError."""
    if len(data) < 2:
        return
    agree(data[2:])
    cls = TYPES[data[0] % len(TYPES)]
    document: str | bytes = data[2:]
    if data[1] & 1:
        document = data[2:].decode("utf-8", "surrogateescape")
    max_bytes = RAISED if data[1] & 2 else MAX_BYTES
    try:
        decoded = loads(document, cls, max_bytes=max_bytes)
    except DecodeError as error:
        if not error.problems:
            raise
        for problem in error.problems:
            if not (problem.path.startswith("$") and problem.expected and problem.got):
                raise
            if problem.expected == "a valid value":  # a hook's own failure
                raise
        return
    expected = typing.get_origin(cls) or cls
    if type(decoded) is not expected:
        msg = f"loads returned {type(decoded).__name__}, not {expected.__name__}"
        raise AssertionError(msg)


def seeds() -> list[bytes]:
    """One valid document of every type, as text and as bytes."""
    found = []
    for index, cls in enumerate(TYPES):
        document = dumps(EXAMPLES[cls]).encode()
        found += [bytes([index, 0]) + document, bytes([index, 1]) + document]
    return found


def main() -> None:
    """Check the seeds, then fuzz."""
    for seed in seeds():
        check(seed)
    write_seeds(sys.argv, seeds())
    atheris.Setup(sys.argv, check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
