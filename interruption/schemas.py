r"""Checking JSON values against JSON Schemas, with one engine everywhere.

Every verdict and every word of a failure come from jsonschema-rs (a
required dependency), so the same schema and value get the same answer on
every install. Schemas can arrive as data (a stored turn, a turn file), so
three rules hold for all of them:

* ``pattern`` and ``patternProperties`` are ECMA-262 regular expressions
  (``\d`` and ``\w`` are ASCII, ``$`` matches at the very end only, not
  before a final newline), run by the Rust ``regex`` engine in time linear in
  the string: rejecting a value costs what checking it costs. A pattern that
  engine cannot run (lookaround, backreferences, or beyond its size limit)
  makes the whole schema refused when it is checked, never a slow match.
* ``$ref`` resolves inside the schema only: nothing is ever fetched or read,
  and a reference to anything else makes the schema refused.
* ``multipleOf`` is decimal and exact, as JSON Schema defines it on the
  mathematical value: a number is the one its JSON text spells (a float's
  shortest repr), and the quotient must be an integer. So ``0.07`` is a
  multiple of ``0.01`` and ``0.075`` is not, whatever binary floating point
  says; ``9.5e21`` is a multiple of ``1e20``, and ``7.1e92`` is not one of
  ``3.0``, however large. This library decides it (`_MultipleOf`), not the
  engine, whose float arithmetic has changed between releases.

Schemas are Draft 2020-12 whatever their ``$schema`` says, and are checked
against the Draft 2020-12 meta-schema.

A schema a record holds is a value (`Schema`): a deep-frozen copy of what it
was given, found by its JSON text, its compiled check found by that text
too. Every cache here is keyed by a schema's text, never by an object's
identity: what a caller does to the dict it handed over changes no record
and no verdict, and two records whose schemas are spelled alike share one
immutable value.
"""

from __future__ import annotations

import functools
import json
import typing
from collections.abc import Collection, Iterable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Final, TypeAlias

import jsonschema_rs
from jsonschema_rs import ValidationErrorKind as Kind

from interruption._json import (
    JSON,
    FrozenArray,
    FrozenObject,
    child_path,
    describe,
    frozen,
    is_json,
    json_problems,
)
from interruption._parse import ENCODE
from interruption.errors import FieldError, Mismatch, PayloadError, SchemaError

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "JSONSchema",
    "Schema",
    "conforms",
    "schema_mismatches",
    "schema_value",
]

JSONSchema: TypeAlias = dict[str, JSON]
"""A JSON Schema document (Draft 2020-12), as a JSON object."""

_NULL: Final = '{"type":"null"}'

_PATTERNS: Final = jsonschema_rs.RegexOptions()
"""The linear-time ``regex`` engine (the default one backtracks)."""

_META_SCHEMA: Final = "https://json-schema.org/draft/2020-12/schema"
"""Built into jsonschema-rs: resolving it fetches nothing."""

_A_PATTERN: Final = (
    "an ECMA-262 pattern without lookaround or backreferences, within the size limit"
)


def check_schema(schema: JSONSchema) -> None:
    """Make sure *schema* can be run: valid, self-contained, linear-time.

    Raises:
        SchemaError: if it is not a Draft 2020-12 schema, a ``$ref`` points
            outside it, or a pattern is not one the linear engine runs.
    """
    _fast(ENCODE(schema))


@functools.cache
def _meta() -> jsonschema_rs.Validator:
    return _compile({"$ref": _META_SCHEMA}, _refuse)


def _refuse(uri: str) -> JSON:
    raise LookupError(f"{uri} is not fetched")


def _exact(number: float) -> Fraction:
    """The number a JSON text spells: an int as it is, a float by its repr."""
    return Fraction(number) if isinstance(number, int) else Fraction(repr(number))


class _MultipleOf:
    """The ``multipleOf`` keyword, exact on the decimal value (module docstring).

    The meta-schema has already checked the step (a number above 0) when
    jsonschema-rs builds this; non-numbers (and booleans) are not its business.
    """

    def __init__(
        self, parent_schema: JSONSchema, value: float, schema_path: list[str | int]
    ) -> None:
        del parent_schema, schema_path  # the step is all it needs
        self.step = _exact(value)
        self.expected = f"multipleOf {ENCODE(value)}"

    def validate(self, instance: object) -> None:
        """Raise if *instance* is a number that is not a whole multiple of the step."""
        if isinstance(instance, bool) or not isinstance(instance, int | float):
            return
        if _exact(instance) % self.step:
            raise ValueError(self.expected)


_MASK: Final = "the value"
"""What the engine writes for a value in its messages. Its words are never
this module's (they come from each error's kind), and a rejected value of a
megabyte would otherwise be written into two messages per error."""

_KEYWORDS: Final[dict[str, type[jsonschema_rs.KeywordValidator]]] = {
    "multipleOf": _MultipleOf
}
"""Keywords this library decides itself, whatever the engine's release does."""


def _compile(
    schema: JSONSchema, retriever: jsonschema_rs.RetrieverProtocol
) -> jsonschema_rs.Validator:
    return jsonschema_rs.Draft202012Validator(
        schema,
        retriever=retriever,
        pattern_options=_PATTERNS,
        keywords=_KEYWORDS,
        mask=_MASK,
    )


def _fast(key: str) -> jsonschema_rs.Validator:
    """The compiled validator of the schema spelled *key*.

    Raises:
        SchemaError: see `check_schema`.
    """
    compiled = _compiled(key)
    if isinstance(compiled, SchemaError):
        raise compiled.with_traceback(None)
    return compiled


@functools.lru_cache(maxsize=1024)
def _compiled(key: str) -> jsonschema_rs.Validator | SchemaError:
    """Compile once, refusal included: a refused schema is not compiled again."""
    schema = json.loads(key)
    refused: list[str] = []

    def retriever(uri: str) -> JSON:
        refused.append(uri)
        return _refuse(uri)

    try:
        return _compile(schema, retriever)
    except jsonschema_rs.ValidationError as error:
        return SchemaError(_schema_problems(schema, error, refused))


def _schema_problems(
    schema: JSON, error: jsonschema_rs.ValidationError, refused: Sequence[str]
) -> list[Mismatch]:
    """Every meta-schema violation, else the one problem compiling met."""
    invalid = _sorted(_meta().iter_errors(schema), "$")
    if invalid:
        return invalid
    where = _where(error, "$")
    match error.kind:
        case Kind.Referencing(error=unresolved):
            named = [repr(uri) for uri in refused if uri in unresolved.message]
            got = ", ".join(named) or unresolved.message
            expected = "a $ref that resolves within the schema (nothing is fetched)"
            return [Mismatch(where, expected, got)]
        case Kind.Format(format="regex"):
            return [Mismatch(where, _A_PATTERN, describe(error.instance))]
        case _:  # pragma: no cover - every other failure is a meta-schema one
            return list(_mismatches(error, where, "$"))


@typing.final
class Schema(FrozenObject):
    """A JSON Schema as a record holds it: an immutable value, known by its text.

    A deep-frozen copy (`FrozenObject`, `FrozenArray` inside) of the schema
    its *text* spells, that text kept beside it: its compiled check is found
    by that text (`_compiled`), never by the object. Build one with
    `schema_value`.

    Attributes:
        text: The schema's compact JSON text (`ENCODE`): its identity.
    """

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        parsed: dict[str, JSON] = json.loads(text)
        super().__init__({key: frozen(item) for key, item in parsed.items()})
        self.text = text

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return _schema_of_text, (self.text,)


_SCHEMAS: Final = 4096
"""How many distinct schemas (by text) are kept as values at once."""


@functools.lru_cache(maxsize=_SCHEMAS)
def _schema_of_text(text: str) -> Schema:
    """The one `Schema` kept for *text*: immutable, so safe to share."""
    return Schema(text)


def schema_value(value: object, field: str = "schema") -> Schema:
    """The `Schema` of *value*: its deep-frozen copy, found by its text.

    Args:
        value: A JSON object (a `Schema` is returned as it is).
        field: The record field it is for, to name in errors.

    Returns:
        An immutable value equal to *value* and sharing nothing with it.

    Raises:
        FieldError: if *value* is not a JSON object (a `dict`).
        PayloadError: naming every path in it that is not JSON (or nests
            deeper than `MAX_DEPTH`), from ``$.`` *field*.
    """
    kind = type(value)
    if kind is Schema:
        return value  # type: ignore[return-value]
    if kind is not dict and kind is not FrozenObject:
        raise FieldError(field, "a JSON object", describe(value))
    if not is_json(value):
        raise PayloadError(json_problems(value, path=f"$.{field}"))
    return _schema_of_text(ENCODE(value))  # type: ignore[arg-type]


def text_of(schema: JSONSchema) -> str:
    """The JSON text that identifies *schema*: a `Schema`'s own, else encoded."""
    return schema.text if type(schema) is Schema else ENCODE(schema)


def _checker(text: str) -> jsonschema_rs.Validator | None:
    """The compiled check of the schema *text* spells; None means "null only".

    Raises:
        SchemaError: see `check_schema`.
    """
    return None if text == _NULL else _fast(text)


_EACH: Final = "urn:interruption:each"
"""The id the schema of every item gets inside ``_for_all``'s wrapper."""

_ROOTED: Final = (
    f'"$schema":"{_META_SCHEMA}"',
    '"$defs":',
    '"$ref":"#',
)
"""The ``$`` keywords that mean the same in a schema made a resource of its own:
the dialect this module runs anyway, definitions, and references from the
schema's own root (JSON pointers; an anchor would need ``$anchor``)."""


@functools.lru_cache(maxsize=256)
def _for_all(key: str) -> jsonschema_rs.Validator | None:
    """The check that every item of an array satisfies the schema *key* spells.

    One call into jsonschema-rs instead of one per value, with the same
    verdict: ``{"items": S}`` holds of an array exactly when S holds of each
    item. S goes under ``items`` as a resource of its own (an ``$id``), so
    that ``#`` still means S to its references. None, for a check per value,
    when S has any other keyword (or key, or string) that starts with ``$``:
    one whose meaning could depend on where S sits (``$id``, ``$anchor``,
    ``$dynamicRef``, another dialect's ``$schema``).

    Raises:
        SchemaError: never for a schema that compiles alone, as S did.
    """
    rest = key
    for rooted in _ROOTED:
        rest = rest.replace(rooted, "")
    if '"$' in rest:
        return None
    return _fast(ENCODE({"items": {**json.loads(key), "$id": _EACH}}))


def conforms(value: JSON, schema: JSONSchema) -> bool:
    """Tell whether *value* satisfies *schema*; ``{}`` accepts everything.

    Raises:
        SchemaError: if *schema* cannot be run (see `check_schema`).
    """
    return _conforms(value, text_of(schema))


def _conforms(value: JSON, text: str) -> bool:
    """`conforms`, for the schema *text* spells.

    Raises:
        SchemaError: if it cannot be run.
    """
    if text == "{}":  # not falsiness: a `false` schema accepts nothing
        return True
    check = _checker(text)
    if check is None:
        return value is None
    return check.is_valid(value)


SchemaGroups: TypeAlias = dict[str, list[JSON]]
"""Values to check, grouped by the schema they must satisfy (keyed by its text)."""


def group_check(groups: SchemaGroups, value: JSON, schema: JSONSchema) -> None:
    """Add the check that *value* satisfies *schema* to *groups*."""
    text = text_of(schema)
    group = groups.get(text)
    if group is None:
        groups[text] = [value]
    else:
        group.append(value)


def conforming_groups(groups: SchemaGroups) -> bool:
    """Tell whether every value of *groups* satisfies its group's schema.

    Each distinct schema is looked up and run once, however many values
    share it (a turn's interrupts of one tool share their `Accepts`); the
    verdict is `conforms`' of every value alone.

    Raises:
        SchemaError: if a schema cannot be run (see `check_schema`).
    """
    return all(_all_conform(values, text) for text, values in groups.items())


def _all_conform(values: list[JSON], text: str) -> bool:
    """Whether every one of *values* satisfies the schema *text* spells.

    Raises:
        SchemaError: if the schema cannot be run.
    """
    if text == "{}":
        return True
    check = _checker(text)
    if check is None:
        return all(value is None for value in values)
    every = _for_all(text) if len(values) > 1 else None
    if every is not None:
        return every.is_valid(values)
    is_valid = check.is_valid
    return all(is_valid(value) for value in values)


def schema_mismatches(
    value: JSON, schema: JSONSchema, path: str = "$"
) -> list[Mismatch]:
    """List every way *value* fails *schema*, with JSON paths from *path*.

    Returns:
        Empty when *value* conforms.

    Raises:
        SchemaError: if *schema* cannot be run (see `check_schema`).
    """
    text = text_of(schema)
    check = _checker(text) if text != "{}" else None
    if check is not None and _larger_than(value, MAX_LISTED):
        # The engine builds every error eagerly, a Python object each: a
        # large value is checked once, by a check that stops at its first
        # mismatch, so a rejection costs about what parsing costs.
        try:
            check.validate(_thawed(value))
        except jsonschema_rs.ValidationError as error:
            return list(_mismatches(error, _where(error, path), path))
        return []
    if _conforms(value, text):
        return []
    if check is None:
        return [Mismatch(path, "a value of type null", describe(value))]
    return _sorted(check.iter_errors(value), path) or [  # pragma: no cover
        Mismatch(path, "a value that satisfies its schema", describe(value))
    ]


MAX_LISTED: Final = 1_000
"""A value holding more JSON values than this (itself and everything in it)
that fails its schema is described by its first mismatch alone; a smaller one
by every mismatch. Listing each of 100,000 wrong items would cost about a
hundred times what parsing them costs."""


def _thawed(value: JSON) -> JSON:
    """*value* with plain lists and dicts for frozen ones (the same leaves).

    The engine copies a failing value into its error, and copies a `list` or
    `dict` several times faster than a subclass of one.
    """
    if isinstance(value, dict):
        if _CONTAINERS.isdisjoint(map(type, value.values())):
            return dict(value)
        return {key: _thawed(item) for key, item in value.items()}
    if isinstance(value, list):
        if _CONTAINERS.isdisjoint(map(type, value)):
            return list(value)
        return [_thawed(item) for item in value]
    return value


_CONTAINERS: Final = frozenset({dict, list, FrozenObject, FrozenArray})
"""The types of JSON containers (a record's frozen ones, and plain ones)."""


def _larger_than(value: JSON, limit: int) -> bool:
    """Whether *value* holds more than *limit* JSON values; visits at most *limit*."""
    count = 1
    stack = [value]
    while stack and count <= limit:
        item = stack.pop()
        children: Collection[JSON]
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        count += len(children)
        if count <= limit:
            stack.extend(children)
    return count > limit


def _sorted(
    errors: Iterable[jsonschema_rs.ValidationError], path: str
) -> list[Mismatch]:
    """The mismatches of *errors* (paths from *path*), ordered by path."""
    found = [
        mismatch
        for error in errors
        for mismatch in _mismatches(error, _where(error, path), path)
    ]
    return sorted(found, key=lambda mismatch: mismatch.path)


def _where(error: jsonschema_rs.ValidationError, path: str) -> str:
    for step in error.instance_path:
        path = child_path(path, step)
    return path


def _either(
    branches: list[list[jsonschema_rs.ValidationError]], path: str, where: str
) -> str:
    """Words for the branches of an ``anyOf`` / ``oneOf``, each one's failures.

    A branch's errors carry their paths from the root value, like any
    other: *path* is the root's, *where* the ``anyOf``'s own.
    """
    return " | ".join(
        "; ".join(
            mismatch.expected
            if mismatch.path == where
            else f"{mismatch.expected} at {mismatch.path}"
            for mismatch in _sorted(branch, path)
        )
        for branch in branches
    )


_CONTAINS: Final = {
    "contains": "an item that satisfies its contains schema",
    "minContains": "more items that satisfy its contains schema",
    "maxContains": "fewer items that satisfy its contains schema",
}


def _mismatches(  # noqa: C901, PLR0912 - one flat dispatch over the keywords
    error: jsonschema_rs.ValidationError, where: str, path: str = "$"
) -> Iterator[Mismatch]:
    """The mismatches one error of jsonschema-rs stands for.

    *where* is the error's place, *path* the root value's (for ``anyOf``).
    """
    instance = error.instance
    got = describe(instance)
    match error.kind:
        case Kind.Type(types=types):
            expected = "a value of type " + " or ".join(types)
        case Kind.Enum(options=options):
            expected = "one of " + ", ".join(map(describe, options))
        case Kind.Constant(expected_value=constant):
            expected = describe(constant)
        case Kind.Required(property=name):
            yield Mismatch(child_path(where, name), "a required property", "nothing")
            return
        case (
            Kind.AdditionalProperties(unexpected=names)
            | Kind.UnevaluatedProperties(unexpected=names)
        ) if isinstance(instance, dict):
            for name in names:
                yield Mismatch(
                    child_path(where, name),
                    "no such property",
                    describe(instance[name]),
                )
            return
        case Kind.UnevaluatedItems():
            expected = "no items beyond those its schema describes"
        case Kind.FalseSchema():
            expected = "nothing (its schema is false)"
        case Kind.AnyOf(context=branches):
            expected = "any of: " + _either(branches, path, where)
        case Kind.OneOfNotValid(context=branches):
            expected = "exactly one of: " + _either(branches, path, where)
        case Kind.OneOfMultipleValid():
            expected = "exactly one of its oneOf schemas, not several"
        case Kind.PropertyNames(error=inner):
            name_mismatch = next(_mismatches(inner, where, path))
            expected = f"property names with {name_mismatch.expected}"
            got = name_mismatch.got
        case Kind.UniqueItems():
            expected = "unique items"
        case Kind.Contains():
            expected = _CONTAINS.get(str(error.schema_path[-1]), "contains")
        case Kind.Custom(message=message):  # multipleOf: _MultipleOf's words
            expected = message
        case kind:  # a bound, "pattern", "not", "format", ...
            values = kind.as_dict().values()
            expected = " ".join([kind.name, *(ENCODE(value) for value in values)])
    yield Mismatch(where, expected, got)
