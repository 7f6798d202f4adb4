"""An approval decision that does not fit, said in words a person can act on.

`DECISION_SCHEMA` decides whether a value is a decision; jsonschema-rs words
a misfit of its ``oneOf`` as every branch's failures at once. This module
says instead what a decision is and which part of the value was wrong:
``$.restart[0].resumed.reject.reason: expected non-empty text, got ''``.
It words verdicts and never makes one: it finds a mismatch exactly when
the schema refuses the value (a property test holds it to that).
"""

from __future__ import annotations

from typing import Final

from interruption._json import JSON, Mismatch, child_path, describe

__all__ = ["DECISIONS", "decision_mismatches"]

DECISIONS: Final = (
    '"approve", {"approve": {"note": <text or null, optional>}} or '
    '{"reject": {"reason": <non-empty text>}}'
)
"""What a decision is, in words: its three wire forms."""

_NOTE: Final = '{"note": <text or null, optional>}'
_REASON: Final = '{"reason": <non-empty text>}'
_ABSENT: Final = object()


def _keys(value: dict[str, JSON]) -> str:
    if not value:
        return "an empty object"
    names = ", ".join(repr(key) for key in value)
    return (
        f"an object with the keys {names}"
        if len(value) > 1
        else f"an object {{{names}: ...}}"
    )


def _unknown(body: dict[str, JSON], known: str, path: str) -> list[Mismatch]:
    return [
        Mismatch(
            child_path(path, key), f"only the key {known!r}", f"unknown key {key!r}"
        )
        for key in body
        if key != known
    ]


def decision_mismatches(value: JSON, path: str = "$") -> list[Mismatch]:
    """Every part of *value* that keeps it from being a decision.

    Args:
        value: A JSON value, meant as an approval decision.
        path: Where *value* sits (``$.restart[0].resumed``).

    Returns:
        Empty exactly when *value* satisfies `DECISION_SCHEMA`; otherwise
        the whole value when it is no decision at all, or the parts of a
        decision that are wrong (``.reject.reason``), each at its own path.
    """
    if value == "approve" and type(value) is str:
        return []
    if not isinstance(value, dict) or len(value) != 1:
        got = _keys(value) if isinstance(value, dict) else describe(value)
        return [Mismatch(path, DECISIONS, got)]
    ((verb, body),) = value.items()
    if verb not in {"approve", "reject"}:
        return [Mismatch(path, DECISIONS, _keys(value))]
    where = child_path(path, verb)
    if not isinstance(body, dict):
        return [
            Mismatch(where, _NOTE if verb == "approve" else _REASON, describe(body))
        ]
    if verb == "approve":
        found = _unknown(body, "note", where)
        note = body.get("note")
        if note is not None and type(note) is not str:
            found.append(
                Mismatch(child_path(where, "note"), "text or null", describe(note))
            )
        return found
    found = _unknown(body, "reason", where)
    reason = body.get("reason", _ABSENT)
    if reason is _ABSENT:
        found.append(Mismatch(child_path(where, "reason"), "non-empty text", "nothing"))
    elif type(reason) is not str or not reason:
        found.append(
            Mismatch(child_path(where, "reason"), "non-empty text", describe(reason))
        )
    return found
