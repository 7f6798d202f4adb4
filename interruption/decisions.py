"""The approval decision, declared once: its records and its wire form.

A human answers an approval pause with a decision, on the wire as entelix
spells it::

    "approve"

    {"approve": {"note": "checked the invoice"}}
    {"reject": {"reason": "wrong account"}}

The declaration is the two records, `Approve` and `Reject`, and `VERBS`
(each record under the key that tags it; the bare ``"approve"`` stands for
``Approve()``). Everything else is derived from it: `DECISION_SCHEMA`, the
JSON Schema that decides whether a value is a decision (every verdict on
one is its: validation's and `decision_from_json`'s); `decision_to_json`;
`decision_from_json`; and `decision_mismatches`, the words for a value that
is not a decision (``$.restart[0].resumed.reject.reason: expected non-empty
text, got ''``), which say what a decision is and which part of the value
was wrong. The words never make a verdict: they find a mismatch exactly
when the schema refuses the value (a property test holds them to that).
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Mapping
from typing import Final, TypeAlias, cast, final

import attrs

from interruption._json import JSON, child_path, describe, frozen
from interruption._validators import NON_EMPTY, non_empty, optional_string
from interruption.errors import DecodeError, Mismatch

__all__ = [
    "DECISION_SCHEMA",
    "ApprovalDecision",
    "Approve",
    "Reject",
    "decision_from_json",
    "decision_to_json",
]


@final
@attrs.frozen
class Approve:
    """Let the tool call run, with its original input.

    Attributes:
        note: Why, for the record; optional.
    """

    note: str | None = attrs.field(default=None, validator=optional_string)


@final
@attrs.frozen
class Reject:
    """Refuse the tool call; the model is told so, with the reason.

    Attributes:
        reason: Why, in words the model and the record can use.
    """

    reason: str = attrs.field(validator=non_empty, metadata=NON_EMPTY)


ApprovalDecision: TypeAlias = Approve | Reject
"""What a human decides about a paused tool call."""

VERBS: Final[Mapping[str, type[ApprovalDecision]]] = {
    "approve": Approve,
    "reject": Reject,
}
"""The wire form: ``{verb: {field: value}}``, one key, for each record."""

BARE: Final = "approve"
"""The verb whose record, with every field at its default, is written bare."""


JSONSchema: TypeAlias = dict[str, JSON]
"""A JSON Schema, as a JSON object."""

_Check: TypeAlias = Callable[[JSON], bool]
"""Whether a value fits one field of a decision's body."""


@final
@attrs.frozen
class _Field:
    """One field of a decision's body, as the wire carries it.

    Attributes:
        name: The key.
        schema: Its JSON Schema.
        words: What it must be, in words (``non-empty text``).
        required: Whether the body must have it.
        fits: The same check as *schema*, for the words only.
    """

    name: str
    schema: JSONSchema
    words: str
    required: bool
    fits: _Check


def _some_text(value: JSON) -> bool:
    return type(value) is str and bool(value)


def _text_or_null(value: JSON) -> bool:
    return value is None or type(value) is str


_SHAPES: Final[dict[tuple[object, bool], tuple[JSONSchema, str, _Check]]] = {
    (str, True): ({"type": "string", "minLength": 1}, "non-empty text", _some_text),
    (str | None, False): ({"type": ["string", "null"]}, "text or null", _text_or_null),
}
"""The field types a decision may have (its type, whether it is non-empty):
their schema, their words and their check."""


def _fields(record: type) -> tuple[_Field, ...]:
    """The wire form of *record*'s fields, read from its declaration.

    Raises:
        TypeError: for a field whose type has no wire form here.
    """
    hints = typing.get_type_hints(record)
    found = []
    for field in attrs.fields(record):
        filled = field.metadata.get("json_schema") == NON_EMPTY["json_schema"]
        shape = _SHAPES.get((hints[field.name], filled))
        if shape is None:
            msg = f"{record.__name__}.{field.name}: no wire form for its type"
            raise TypeError(msg)
        schema, words, fits = shape
        required = field.default is attrs.NOTHING
        found.append(_Field(field.name, schema, words, required, fits))
    return tuple(found)


_BODIES: Final = {verb: _fields(record) for verb, record in VERBS.items()}
"""Each verb's body, field by field."""


def _body_schema(fields: tuple[_Field, ...]) -> JSONSchema:
    schema: JSONSchema = {
        "type": "object",
        "properties": {field.name: field.schema for field in fields},
    }
    required: list[JSON] = [field.name for field in fields if field.required]
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema


def _decision_schema() -> JSONSchema:
    """`DECISION_SCHEMA`, derived from the records and `VERBS`."""
    forms: list[JSON] = [{"const": BARE}]
    forms += [
        {
            "type": "object",
            "properties": {verb: _body_schema(fields)},
            "required": [verb],
            "additionalProperties": False,
        }
        for verb, fields in _BODIES.items()
    ]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "ApprovalDecision",
        "oneOf": forms,
    }


DECISION_SCHEMA: Final = cast("JSONSchema", frozen(_decision_schema()))
"""The JSON Schema of a decision's wire form (frozen: it decides approvals)."""


def _body_words(fields: tuple[_Field, ...]) -> str:
    return (
        "{"
        + ", ".join(
            f'"{field.name}": <{field.words}{"" if field.required else ", optional"}>'
            for field in fields
        )
        + "}"
    )


_WORDS: Final = {verb: _body_words(fields) for verb, fields in _BODIES.items()}
"""Each verb's body, in words."""

DECISIONS: Final = f'"{BARE}", ' + " or ".join(
    f'{{"{verb}": {words}}}' for verb, words in _WORDS.items()
)
"""What a decision is, in words: its wire forms."""


_VERB_OF: Final = {record: verb for verb, record in VERBS.items()}

_BUILD: Final[Mapping[str, Callable[..., ApprovalDecision]]] = VERBS
"""Each verb's record, as a function of its body's fields."""


def decision_to_json(decision: ApprovalDecision) -> JSON:
    """Return the wire form of *decision* (entelix's).

    Args:
        decision: `Approve` or `Reject`.

    Returns:
        ``"approve"``, ``{"approve": {"note": ...}}`` or
        ``{"reject": {"reason": ...}}``.
    """
    verb = _VERB_OF[type(decision)]
    if verb == BARE and decision == _BUILD[BARE]():
        return BARE
    body: dict[str, JSON] = {
        field.name: getattr(decision, field.name) for field in _BODIES[verb]
    }
    return {verb: body}


def decision_from_json(data: JSON) -> ApprovalDecision:
    """Read a decision from its wire form, strictly (`DECISION_SCHEMA`).

    Args:
        data: A JSON value.

    Returns:
        The decision.

    Raises:
        DecodeError: if *data* is not a decision, with every problem
            `decision_mismatches` words.
    """
    # Imported here: `import interruption` leaves the schema engine for later.
    from interruption.schemas import conforms  # noqa: PLC0415

    if not conforms(data, DECISION_SCHEMA):
        raise DecodeError(decision_mismatches(data))
    if not isinstance(data, dict):
        return _BUILD[BARE]()  # the only value but an object that conforms
    ((verb, body),) = data.items()
    return _BUILD[verb](**typing.cast("dict[str, JSON]", body))


def is_rejection(value: JSON) -> bool:
    """Tell whether *value* has a rejection's wire form (``{"reject": ...}``).

    A rejection runs nothing, so it takes no new input even where an
    approval could (an edited call).
    """
    return isinstance(value, dict) and _VERB_OF[Reject] in value


def _keys(value: dict[str, JSON]) -> str:
    if not value:
        return "an empty object"
    names = ", ".join(repr(key) for key in value)
    return (
        f"an object with the keys {names}"
        if len(value) > 1
        else f"an object {{{names}: ...}}"
    )


def _only(fields: tuple[_Field, ...]) -> str:
    names = ", ".join(repr(field.name) for field in fields)
    return f"only the key {names}" if len(fields) == 1 else f"only the keys {names}"


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
    if value == BARE and type(value) is str:
        return []
    if not isinstance(value, dict) or len(value) != 1:
        got = _keys(value) if isinstance(value, dict) else describe(value)
        return [Mismatch(path, DECISIONS, got)]
    ((verb, body),) = value.items()
    fields = _BODIES.get(verb)
    if fields is None:
        return [Mismatch(path, DECISIONS, _keys(value))]
    where = child_path(path, verb)
    if not isinstance(body, dict):
        return [Mismatch(where, _WORDS[verb], describe(body))]
    known = {field.name for field in fields}
    found = [
        Mismatch(child_path(where, key), _only(fields), f"unknown key {key!r}")
        for key in body
        if key not in known
    ]
    for field in fields:
        at = child_path(where, field.name)
        if field.name not in body:
            if field.required:
                found.append(Mismatch(at, field.words, "nothing"))
        elif not field.fits(item := body[field.name]):
            found.append(Mismatch(at, field.words, describe(item)))
    return found
