"""Hypothesis strategies for JSON values, kinds, pauses and broken documents."""

from __future__ import annotations

import copy
from typing import Final, cast

import attrs
from hypothesis import strategies as st
from interruption import (
    JSON,
    ApprovalPending,
    Custom,
    Interrupted,
    InterruptionKind,
    Phase,
    ScheduledPause,
    unstructure,
)
from interruption._json import MAX_SAFE_INTEGER

__all__ = [
    "ANY_KIND",
    "TAGS",
    "Corruption",
    "corruptions",
    "equivalents",
    "interrupteds",
    "json_scalars",
    "json_values",
    "keys",
    "kinds",
    "non_empty_text",
    "texts",
    "wire_values",
]

ANY_KIND: Final = cast("type[InterruptionKind]", InterruptionKind)
"""The kind union, typed so that `loads` and `json_schema` accept it."""

TAGS: Final = ("custom", "approval_pending", "scheduled_pause")
"""Every kind's wire tag."""


def texts(*, min_size: int = 0, max_size: int = 12) -> st.SearchStrategy[str]:
    """Strings of valid Unicode: any code point but a lone surrogate."""
    return st.text(
        st.characters(exclude_categories=["Cs"]), min_size=min_size, max_size=max_size
    )


def non_empty_text() -> st.SearchStrategy[str]:
    """Non-empty strings of valid Unicode (a kind's ``tool_use_id``, ``node``)."""
    return texts(min_size=1)


def keys() -> st.SearchStrategy[str]:
    """Object keys: mostly short names, sometimes any valid Unicode."""
    return st.one_of(st.sampled_from(["a", "b", "type", "kind", "x y"]), texts())


def json_scalars() -> st.SearchStrategy[JSON]:
    """``null``, booleans, I-JSON integers, finite floats and strings."""
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER),
        st.floats(allow_nan=False, allow_infinity=False),
        texts(),
    )


def json_values(*, max_leaves: int = 12) -> st.SearchStrategy[JSON]:
    """JSON values as `interruption._json` defines them, nested a few levels."""
    return st.recursive(
        json_scalars(),
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(keys(), inner, max_size=4),
        ),
        max_leaves=max_leaves,
    )


def kinds() -> st.SearchStrategy[InterruptionKind]:
    """Every interruption kind, with non-empty strings in its fields."""
    return st.one_of(
        st.just(Custom()),
        st.builds(ApprovalPending, non_empty_text()),
        st.builds(ScheduledPause, st.sampled_from(Phase), non_empty_text()),
    )


def interrupteds() -> st.SearchStrategy[Interrupted]:
    """Pauses: any kind with any JSON payload."""
    return st.builds(Interrupted, kinds(), json_values())


def wire_values() -> st.SearchStrategy[InterruptionKind | Interrupted]:
    """Everything the core puts on the wire: kinds and pauses."""
    return st.one_of(kinds(), interrupteds())


@st.composite
def equivalents(draw: st.DrawFn, value: JSON) -> JSON:
    """A value JSON-equal to *value*: numbers respelled, object keys reordered."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return float(value) if draw(st.booleans()) else value
    if isinstance(value, float):
        if (
            value.is_integer()
            and abs(value) <= MAX_SAFE_INTEGER
            and draw(st.booleans())
        ):
            return int(value)
        return value
    if isinstance(value, list):
        return [draw(equivalents(item)) for item in value]
    order = draw(st.permutations(list(value)))
    return {key: draw(equivalents(value[key])) for key in order}


@attrs.frozen
class Corruption:
    """A valid wire document with one thing broken.

    Attributes:
        original: The record the document was made from.
        document: The broken document, as a JSON value.
        what: What was broken, for hypothesis' report.
    """

    original: InterruptionKind | Interrupted
    document: JSON
    what: str

    @property
    def cls(self) -> type[InterruptionKind | Interrupted]:
        """The type the original document decodes into."""
        return type(self.original)


def _records(value: InterruptionKind | Interrupted) -> list[tuple[str, ...]]:
    """The paths of the record objects in *value*'s document (not the payload)."""
    if isinstance(value, Interrupted):
        return [(), ("kind",)]
    return [()]


def _at(document: JSON, path: tuple[str, ...]) -> dict[str, JSON]:
    for key in path:
        assert isinstance(document, dict)
        document = document[key]
    assert isinstance(document, dict)
    return document


def _not_a_string() -> st.SearchStrategy[JSON]:
    return json_values(max_leaves=3).filter(lambda value: not isinstance(value, str))


def _not_an_object() -> st.SearchStrategy[JSON]:
    return json_values(max_leaves=3).filter(lambda value: not isinstance(value, dict))


@st.composite
def corruptions(
    draw: st.DrawFn,
    values: st.SearchStrategy[InterruptionKind | Interrupted] | None = None,
) -> Corruption:
    """Valid documents broken at a single point of a record (never the payload).

    One of: a required field dropped, an unknown field added, the tag changed,
    a field's primitive type changed, or a string field emptied or given a
    value outside its vocabulary.
    """
    original = draw(wire_values() if values is None else values)
    document = copy.deepcopy(unstructure(original))
    path = draw(st.sampled_from(_records(original)))
    record = _at(document, path)
    where = ".".join(("$", *path))
    fields = sorted(record)
    strings = sorted(
        key
        for key, item in record.items()
        if isinstance(item, str) and key != "payload"  # a payload may be any JSON
    )
    ways = ["drop", "add"]
    if "type" in record:
        ways.append("tag")
    if strings:
        ways += ["retype", "revalue"]
    if "kind" in record:
        ways.append("unobject")
    way = draw(st.sampled_from(ways))
    if way == "drop":
        key = draw(st.sampled_from(fields))
        del record[key]
        what = f"{where}: dropped {key!r}"
    elif way == "add":
        key = draw(keys().filter(lambda key: key not in record))
        record[key] = draw(json_values(max_leaves=3))
        what = f"{where}: added {key!r}"
    elif way == "tag":
        tag = draw(st.one_of(st.sampled_from(TAGS), texts()))
        if tag == record["type"]:
            tag += "_"
        record["type"] = tag
        what = f"{where}: tag changed to {tag!r}"
    elif way == "retype":
        key = draw(st.sampled_from(strings))
        record[key] = draw(_not_a_string())
        what = f"{where}: {key!r} given {record[key]!r}"
    elif way == "revalue":
        key = draw(st.sampled_from(strings))
        bad = "" if key != "phase" else draw(st.sampled_from(["", "during", "BEFORE"]))
        record[key] = bad
        what = f"{where}: {key!r} set to {bad!r}"
    else:
        record["kind"] = draw(_not_an_object())
        what = f"{where}: 'kind' given {record['kind']!r}"
    return Corruption(original, document, what)


# --- tool layer ---

CALL_KINDS: Final = ("finish", "pause", "ask", "gated")
"""How a tool call of a random batch behaves.

``finish`` returns at once; ``pause`` calls ``ctx.interrupt`` on its first
run; ``ask`` is an interrupt-only tool; ``gated`` awaits a human's approval.
"""


@attrs.frozen
class Call:
    """One tool call of a random batch: which behaviour, and its input."""

    kind: str
    n: int

    @property
    def input(self) -> JSON:
        """The call's input."""
        return {"n": self.n}


def calls() -> st.SearchStrategy[Call]:
    """A tool call of any behaviour, with a small integer input."""
    return st.builds(Call, st.sampled_from(CALL_KINDS), st.integers(-3, 3))


def batches(*, max_size: int = 6) -> st.SearchStrategy[tuple[Call, ...]]:
    """A model's batch of tool calls in which at least one call pauses."""
    return (
        st.lists(calls(), min_size=1, max_size=max_size)
        .filter(lambda batch: any(call.kind != "finish" for call in batch))
        .map(tuple)
    )
