"""Forms generated from JSON Schemas, and form data read back as typed JSON.

`field_for` turns a schema into a tree of `Field`s the page renders; `read`
walks the same tree over the submitted form and builds the JSON value, with
numbers as numbers and booleans as booleans. A schema the page cannot
render as fields (``anyOf``, ``$ref``, a union of types, an array of
objects, ``{}``) gets one JSON editor; the validator judges every value
the same way, however it was typed.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Final, Literal, TypeAlias, final

import attrs

from interruption import JSON
from interruption._json import DOCUMENT_DEPTH
from interruption._parse import parse
from interruption.wire import MAX_BYTES

__all__ = ["MISSING", "Field", "Missing", "Widget", "field_for", "read", "strict_json"]

Widget: TypeAlias = Literal[
    "text", "textarea", "integer", "number", "boolean", "select", "object",
    "lines", "json", "null",
]  # fmt: skip
"""How one value is asked for."""

_SCALARS: Final = {"string": "text", "integer": "integer", "number": "number"}
_OBJECT_KEYS: Final = frozenset(
    {"type", "properties", "required", "additionalProperties", "title",
     "description", "$schema"}
)  # fmt: skip
_LONG_TEXT: Final = 120


@final
class Missing:
    """No value: an optional field left empty (its property is left out)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = Missing()
"""The one `Missing` value."""


@final
@attrs.frozen
class Field:
    """One input of a generated form (or a group of them).

    Attributes:
        name: The form field's name (unique in its page).
        label: What the person reads beside it.
        widget: How it is asked for.
        path: Where its value goes, as a JSON path from the answer (``$``).
        required: Whether it must be given.
        value: The text it starts with.
        checked: Whether a boolean starts ticked.
        options: A select's choices: (JSON text of the value, label).
        children: An object's fields, in the schema's order.
        item: A list's item widget (``"text"``, ``"integer"``, ``"number"``).
        hint: A description from the schema, or None.
    """

    name: str
    label: str
    widget: Widget
    path: str
    required: bool = True
    value: str = ""
    checked: bool = False
    options: tuple[tuple[str, str], ...] = ()
    children: tuple[Field, ...] = ()
    item: str = "text"
    hint: str | None = None

    def walk(self) -> list[Field]:
        """This field and every field inside it, depth first."""
        found = [self]
        for child in self.children:
            found.extend(child.walk())
        return found


def _text_of(value: JSON) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _kind(schema: Mapping[str, JSON]) -> str | None:
    kind = schema.get("type")
    return kind if isinstance(kind, str) else None


def _scalar_enum(schema: Mapping[str, JSON]) -> list[JSON] | None:
    values = schema.get("enum")
    if not isinstance(values, list) or not values:
        return None
    if all(value is None or isinstance(value, str | int | float) for value in values):
        return list(values)
    return None


def field_for(  # noqa: PLR0913 - the one builder, one branch per shape
    schema: JSON,
    name: str,
    label: str,
    *,
    path: str = "$",
    required: bool = True,
    prefill: JSON | Missing = MISSING,
) -> Field:
    """Build the form field (tree) that asks for a value fitting *schema*.

    Args:
        schema: The JSON Schema of the value.
        name: The form field's name; children get ``name.n``.
        label: What the person reads.
        path: The value's JSON path within the answer.
        required: Whether it must be given.
        prefill: A value to start with (an edit starts from the original).

    Returns:
        The field; a ``"json"`` editor when the schema is beyond fields.
    """
    start = None if isinstance(prefill, Missing) else prefill
    hint: str | None = None
    if isinstance(schema, dict):
        described = schema.get("description")
        hint = described if isinstance(described, str) else None
    make = attrs.evolve(
        Field(name, label, "json", path, required, hint=hint),
        value="" if isinstance(prefill, Missing) else json.dumps(start, indent=2),
    )
    if not isinstance(schema, dict):
        return make
    choices = _scalar_enum(schema)
    if choices is not None:
        options = tuple((json.dumps(value), _text_of(value)) for value in choices)
        chosen = json.dumps(start) if not isinstance(prefill, Missing) else ""
        return attrs.evolve(make, widget="select", options=options, value=chosen)
    kind = _kind(schema)
    if kind == "null":
        return attrs.evolve(make, widget="null", value="")
    if kind == "boolean":
        return attrs.evolve(make, widget="boolean", value="", checked=start is True)
    if kind in _SCALARS:
        widget: Widget = "integer" if kind == "integer" else "text"
        widget = "number" if kind == "number" else widget
        limit = schema.get("maxLength")
        if kind == "string" and not (isinstance(limit, int) and limit <= _LONG_TEXT):
            widget = "textarea" if "reason" in label.lower() else "text"
        shown = _text_of(start) if isinstance(start, str | int | float) else ""
        return attrs.evolve(make, widget=widget, value=shown)
    if kind == "object" and set(schema) <= _OBJECT_KEYS:
        return _object(schema, make, start)
    items = schema.get("items")
    if (
        kind == "array"
        and isinstance(items, dict)
        and _kind(items) in _SCALARS
        and set(items) <= {"type", "description", "title"}
    ):
        lines = start if isinstance(start, list) else []
        text = "\n".join(_text_of(item) for item in lines)
        item = str(_SCALARS[str(_kind(items))])
        return attrs.evolve(make, widget="lines", value=text, item=item)
    return make


def _object(schema: Mapping[str, JSON], make: Field, start: JSON) -> Field:
    properties = schema.get("properties")
    if not isinstance(properties, dict) or schema.get("additionalProperties") not in (
        None,
        False,
    ):
        return make
    wanted = schema.get("required")
    required = set(wanted) if isinstance(wanted, list) else set()
    given = start if isinstance(start, dict) else {}
    children = tuple(
        field_for(
            sub,
            f"{make.name}.{n}",
            key,
            path=f"{make.path}.{key}",
            required=key in required,
            prefill=given.get(key, MISSING),
        )
        for n, (key, sub) in enumerate(properties.items())
    )
    return attrs.evolve(make, widget="object", value="", children=children)


Problems: TypeAlias = list[tuple[str, str]]
"""``(path, message)`` of each value the form could not read."""


def _number(text: str, item: str) -> JSON:
    """*text* as an integer (or, for ``"number"``, a finite number)."""
    try:
        return int(text)
    except ValueError:
        if item == "integer":
            raise
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def _scalar(text: str, widget: str) -> JSON:
    if widget in {"integer", "number"}:
        return _number(text.strip(), widget)
    return text


_NOUN: Final = {
    "integer": "an integer",
    "number": "a number",
    "json": "a JSON value",
    "select": "one of the choices",
}


def read(
    field: Field, get: Callable[[str], str | None], problems: Problems
) -> JSON | Missing:
    """Read *field*'s value from the form; note what cannot be read.

    Args:
        field: The field (tree) the page rendered.
        get: The submitted text of a form field by name, or None.
        problems: Where unreadable values are noted, with their paths.

    Returns:
        The JSON value; `MISSING` for an optional field left empty.
    """
    if field.widget == "null":
        return None
    if field.widget == "boolean":
        return get(field.name) is not None
    if field.widget == "object":
        value: dict[str, JSON] = {}
        for child in field.children:
            got = read(child, get, problems)
            if not isinstance(got, Missing):
                value[child.path.rsplit(".", 1)[1]] = got
        return value
    text = get(field.name) or ""
    typed = field.widget not in {"text", "textarea"}  # blank text is text
    if not text.strip() and (typed or not (text or field.required)):
        return _empty(field, problems)
    try:
        return _parsed(field, text)
    except ValueError:
        shown = text if len(text) <= 40 else text[:37] + "..."
        noun = _NOUN.get(field.widget, f"{field.item} values, one a line")
        problems.append((field.path, f"expected {noun}, got {shown!r}"))
        return MISSING


def _empty(field: Field, problems: Problems) -> JSON | Missing:
    """The value of *field* left empty: none, or an empty list; else a problem."""
    if field.widget == "lines" and field.required:  # a list may be empty
        return []
    if field.required:
        problems.append((field.path, f"expected {_NOUN[field.widget]}, got none"))
    return MISSING


def strict_json(text: str) -> JSON:
    """Parse *text* as the library parses any JSON it is sent (`loads`).

    No NaN or Infinity, no key twice, no number that overflows, within the
    wire's size and depth limits.

    Raises:
        DecodeError: if it is not such JSON (a `ValueError` too).
    """
    return parse(text, max_bytes=MAX_BYTES, max_depth=DOCUMENT_DEPTH)


def _parsed(field: Field, text: str) -> JSON:
    """*text* as *field*'s value; ValueError when it cannot be."""
    if field.widget == "select":
        if text not in {value for value, _ in field.options}:
            raise ValueError(text)
        return strict_json(text)  # one of the options: JSON written by field_for
    if field.widget == "json":
        return strict_json(text)  # a DecodeError is a ValueError
    if field.widget == "lines":
        return [_scalar(line, field.item) for line in text.splitlines() if line.strip()]
    return _scalar(text, field.widget)
