"""Type-checked, never run: `interruption.wire`'s pieces for an adapter's records."""

from collections.abc import Mapping
from typing import assert_type

import attrs
from interruption import JSON, Mismatch, ToolRequest
from interruption.wire import (
    NON_EMPTY,
    STORED_BYTES,
    STORED_DEPTH,
    canonical,
    check_schema,
    child_path,
    copy_json,
    describe,
    digest,
    json_equal,
    non_empty,
)


@attrs.frozen
class Review:
    """An adapter's own wire record: its name checked as the library's are."""

    name: str = attrs.field(validator=non_empty, metadata=NON_EMPTY)
    args: dict[str, JSON]


review = Review("transfer", {"amount": 5})
assert_type(review.name, str)

request = ToolRequest("transfer", "call-1", {"amount": 5})
assert_type(copy_json(request.input), JSON)
assert_type(copy_json(object()), JSON)  # any object: the check is the point

schema: Mapping[str, JSON] = {"type": "string"}
assert_type(check_schema(schema), None)
check_schema({"type": "string", "minLength": 1})
check_schema("not a schema")  # type: ignore[arg-type]

where = child_path(child_path("$", "answers"), 0)
assert_type(where, str)
assert_type(Mismatch(where, "a string", describe(5)), Mismatch)
child_path("$", 1.5)  # type: ignore[arg-type]

# The JSON values' own helpers and the read-back limits, beside the codec.
assert_type(json_equal(1, 1.0), bool)
assert_type(canonical({"b": 1, "a": [True]}), bytes)
assert_type(digest(["a", 1]), str)
stored_limits: tuple[int, int] = (STORED_BYTES, STORED_DEPTH)
json_equal(1, {1, 2})  # type: ignore[arg-type]
