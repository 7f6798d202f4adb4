from __future__ import annotations

import copy
import decimal
import json
import math
import pickle
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from types import FrameType
from typing import Any, Final, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st
from interruption import JSON, FieldError, Mismatch, PayloadError, SchemaError, schemas
from interruption._json import FrozenArray, FrozenObject, describe, frozen
from interruption._parse import ENCODE
from interruption.schemas import (
    MAX_LISTED,
    JSONSchema,
    SchemaGroups,
    _compiled,
    _for_all,
    _larger_than,
    _thawed,
    check_schema,
    conforming_groups,
    conforms,
    group_check,
    schema_mismatches,
    schema_value,
)

from tests.strategies import json_values, multiples_and_not, texts

CATASTROPHIC: Final = [
    (r"^(\w+\s?)*$", "a" * 30 + "!"),
    (r"^(a+)+$", "a" * 64 + "!"),
    (r"^(a|aa)+$", "a" * 64 + "!"),
    (r"^(a|a?)+$", "a" * 64 + "!"),
    (r"^(.*a){20}$", "a" * 64 + "!"),
    (r"^([a-z0-9]+[._-]?)*@example\.com$", "a" * 64 + "!"),
]
"""Patterns that backtrack exponentially in Python's `re` on these strings."""

_EXACT: Final = decimal.Context(prec=1000, Emax=10**6, Emin=-(10**6))


def _is_multiple(value: float, step: float) -> bool:
    """The decimal reading: *value* / *step* is an integer, as numbers spelled."""
    quotient = _EXACT.divide(Decimal(repr(value)), Decimal(repr(step)))
    return quotient == quotient.to_integral_value()


@pytest.fixture(name="watchdog")
def _watchdog() -> Iterator[None]:
    """Fail, rather than hang, if a check ever backtracks (a guard, not a timing).

    Python's `re` checks for signals while it backtracks, so a regression to
    it fails here after 10 s instead of running for hours.
    """

    def hung(_signum: int, _frame: FrameType | None) -> None:
        pytest.fail("a pattern check ran for 10 s: it backtracks")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.setitimer(signal.ITIMER_REAL, 10.0)
    yield
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)


@pytest.fixture(name="listener")
def _listener() -> Iterator[socket.socket]:
    """A TCP port on loopback that queues, but never accepts, connections."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.setblocking(False)  # noqa: FBT003 - the socket API
        yield server


def _url(server: socket.socket) -> str:
    host, port = server.getsockname()
    return f"http://{host}:{port}/schema.json"


def _nobody_connected(server: socket.socket) -> bool:
    try:
        connection, _ = server.accept()
    except BlockingIOError:
        return True
    connection.close()
    return False


class TestSchemaMismatches:
    @pytest.mark.parametrize(
        ("value", "schema", "expected"),
        [
            (
                True,
                {"type": "integer"},
                Mismatch("$", "a value of type integer", "true"),
            ),
            (2, {"enum": [1]}, Mismatch("$", "one of 1", "2")),
            (2, {"const": 1}, Mismatch("$", "1", "2")),
            (
                {},
                {"required": ["a"]},
                Mismatch("$.a", "a required property", "nothing"),
            ),
            (
                {"a": 1, "b": 2},
                {"properties": {"a": {}}, "additionalProperties": False},
                Mismatch("$.b", "no such property", "2"),
            ),
            ("", {"minLength": 1}, Mismatch("$", "minLength 1", "''")),
            (
                [1, "x"],
                {"items": {"type": "integer"}},
                Mismatch("$[1]", "a value of type integer", "'x'"),
            ),
            ("b", {"pattern": "^a$"}, Mismatch("$", 'pattern "^a$"', "'b'")),
            (0.075, {"multipleOf": 0.01}, Mismatch("$", "multipleOf 0.01", "0.075")),
            (
                {"a": 1},
                {"dependentRequired": {"a": ["b"]}},
                Mismatch("$.b", "a required property", "nothing"),
            ),
            (
                {"za": 1, "b": 2},
                {"patternProperties": {"^z": {}}, "additionalProperties": False},
                Mismatch("$.b", "no such property", "2"),
            ),
            (
                {"a": 1, "b": 2},
                {"properties": {"a": {}}, "unevaluatedProperties": False},
                Mismatch("$.b", "no such property", "2"),
            ),
            (
                [1, 2],
                {"prefixItems": [{}], "items": False},
                Mismatch("$[1]", "nothing (its schema is false)", "2"),
            ),
            (
                {"x": {"b": 1}},
                {
                    "properties": {
                        "x": {
                            "anyOf": [
                                {"required": ["a"]},
                                {"properties": {"b": {"type": "string"}}},
                            ]
                        }
                    }
                },
                Mismatch(
                    "$.x",
                    "any of: a required property at $.x.a"
                    " | a value of type string at $.x.b",
                    "an object",
                ),
            ),
            (
                "x",
                {"oneOf": [{"type": "integer"}, {"type": "boolean"}]},
                Mismatch(
                    "$",
                    "exactly one of: a value of type integer | a value of type boolean",
                    "'x'",
                ),
            ),
            (
                1,
                {"oneOf": [{"type": "integer"}, {"type": "number"}]},
                Mismatch("$", "exactly one of its oneOf schemas, not several", "1"),
            ),
            (
                {"ab": 1},
                {"propertyNames": {"maxLength": 1}},
                Mismatch("$", "property names with maxLength 1", "'ab'"),
            ),
            ([1, 1], {"uniqueItems": True}, Mismatch("$", "unique items", "an array")),
            (
                [1, 2],
                {"prefixItems": [{}], "unevaluatedItems": False},
                Mismatch("$", "no items beyond those its schema describes", "an array"),
            ),
            (
                [1],
                {"contains": {"type": "integer"}, "maxContains": 0},
                Mismatch(
                    "$", "fewer items that satisfy its contains schema", "an array"
                ),
            ),
            (
                ["x"],
                {"contains": {"type": "integer"}},
                Mismatch("$", "an item that satisfies its contains schema", "an array"),
            ),
            (
                1,
                {"not": {"type": "integer"}},
                Mismatch("$", 'not {"type":"integer"}', "1"),
            ),
        ],
    )
    def test_words_each_keyword(
        self, value: JSON, schema: dict[str, JSON], expected: Mismatch
    ) -> None:
        """Each failing keyword is worded as path, expected and got."""
        assert schema_mismatches(value, schema) == [expected]

    def test_every_mismatch_in_path_order(self) -> None:
        """Several failures travel together, ordered by path, from the given root."""
        schema: JSONSchema = {
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["c"],
        }
        assert schema_mismatches({"b": "x", "a": "y"}, schema, "$.output") == [
            Mismatch("$.output.a", "a value of type integer", "'y'"),
            Mismatch("$.output.b", "a value of type integer", "'x'"),
            Mismatch("$.output.c", "a required property", "nothing"),
        ]

    def test_a_ref_inside_the_schema(self) -> None:
        """A $ref within the schema (or an embedded $id) is followed, paths intact."""
        schema: JSONSchema = {
            "$defs": {
                "amount": {"type": "number", "minimum": 0},
                "id": {"$id": "urn:example:id", "type": "string"},
            },
            "properties": {
                "amount": {"$ref": "#/$defs/amount"},
                "id": {"$ref": "urn:example:id"},
            },
        }
        assert schema_mismatches({"amount": -1, "id": 5}, schema, "$.output") == [
            Mismatch("$.output.amount", "minimum 0", "-1"),
            Mismatch("$.output.id", "a value of type string", "5"),
        ]

    def test_valid_values_have_no_mismatches(self) -> None:
        """A conforming value, the empty schema and the null schema pass fast."""
        assert schema_mismatches(1, {"type": "integer"}, "$.x") == []
        assert conforms({"any": [1]}, {})
        assert conforms(None, {"type": "null"})
        assert not conforms(0, {"type": "null"})
        assert schema_mismatches(0, {"type": "null"}) == [
            Mismatch("$", "a value of type null", "0")
        ]


class TestLargeValues:
    """A large failing value is described by its first mismatch, cheaply."""

    def test_a_large_value_is_described_by_its_first_mismatch(self) -> None:
        """Every item wrong, past MAX_LISTED values: one mismatch, the first."""
        value = frozen([float(index) for index in range(MAX_LISTED)])
        mismatches = schema_mismatches(value, {"items": {"type": "string"}})
        assert mismatches == [Mismatch("$[0]", "a value of type string", "0.0")]

    def test_a_value_at_the_bound_lists_every_mismatch(self) -> None:
        """MAX_LISTED values in all (the array and its items): every mismatch."""
        value: list[JSON] = [float(index) for index in range(MAX_LISTED - 1)]
        mismatches = schema_mismatches(value, {"items": {"type": "string"}})
        assert len(mismatches) == MAX_LISTED - 1

    def test_a_large_value_that_conforms_has_no_mismatch(self) -> None:
        """The one check of a large value accepts what conforms."""
        value = frozen({"items": ["x"] * MAX_LISTED})
        schema: JSONSchema = {"properties": {"items": {"items": {"type": "string"}}}}
        assert schema_mismatches(value, schema) == []

    @given(json_values(), st.integers(min_value=0, max_value=40))
    def test_larger_than_counts_every_value(self, value: JSON, limit: int) -> None:
        """`_larger_than` is the count of values (the root included) > limit."""

        def count(item: JSON) -> int:
            if isinstance(item, dict):
                return 1 + sum(map(count, item.values()))
            if isinstance(item, list):
                return 1 + sum(map(count, item))
            return 1

        assert _larger_than(value, limit) == (count(value) > limit)
        assert _larger_than(frozen(value), limit) == (count(value) > limit)

    @given(json_values())
    def test_thawed_is_the_same_json_in_plain_containers(self, value: JSON) -> None:
        """`_thawed` keeps the value, with no frozen container left."""
        thawed = _thawed(frozen(value))
        assert thawed == value
        assert FrozenArray.__name__ not in repr(type(thawed))

        def plain(item: JSON) -> bool:
            if isinstance(item, (FrozenArray, FrozenObject)):
                return False
            if isinstance(item, dict):
                return all(map(plain, item.values()))
            if isinstance(item, list):
                return all(map(plain, item))
            return True

        assert plain(thawed)

    @given(json_values(), st.sampled_from([{"type": "string"}, {"enum": [1, "a"]}]))
    def test_the_large_path_agrees_with_the_engine(
        self, value: JSON, schema: JSONSchema
    ) -> None:
        """Large or not, a value has mismatches exactly when it fails its schema."""
        big: list[JSON] = [value] * MAX_LISTED
        wrapped: JSONSchema = {"items": schema}
        assert (schema_mismatches(big, wrapped) == []) == conforms(value, schema)


class TestConforms:
    def test_integers_as_json(self) -> None:
        """1.0 is an integer and true is not, as JSON Schema says."""
        assert conforms(1.0, {"type": "integer"})
        true: JSON = True
        assert not conforms(true, {"type": "integer"})
        assert not conforms(1, {"enum": [True]})

    def test_a_false_schema_accepts_nothing(self) -> None:
        """`false` is not the empty schema: it refuses every value."""
        false = cast("JSONSchema", False)  # noqa: FBT003 - the schema `false`
        assert not conforms(None, false)

    @pytest.mark.parametrize(
        ("pattern", "value", "verdict"),
        [
            ("^(Yes|No)$", "Yes", True),
            ("^(Yes|No)$", "Yes\n", False),
            ("^\\d$", "3", True),
            ("^\\d$", "\u0663", False),
            ("^\\w+$", "caf\u00e9", False),
            ("^\\s$", "\u00a0", True),
            ("^.$", "\n", False),
            ("^.$", "\U0001f600", True),
        ],
    )
    def test_patterns_are_ecma_262(
        self, pattern: str, value: str, verdict: bool
    ) -> None:
        r"""`$` is the very end, `\d`/`\w` are ASCII, `\s` is Unicode space."""
        assert conforms(value, {"pattern": pattern}) is verdict

    @given(texts(max_size=8))
    def test_digit_and_word_classes_are_ascii(self, value: str) -> None:
        r"""`\d` matches the ten ASCII digits and `\w` ASCII words, nothing else."""
        digits = set("0123456789")
        words = digits | set("_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        assert conforms(value, {"pattern": "^\\d*$"}) is (set(value) <= digits)
        assert conforms(value, {"pattern": "^\\w*$"}) is (set(value) <= words)

    @given(st.one_of(texts(), st.sampled_from(["Yes", "No", "Yes\n", "No\n"])))
    def test_an_anchored_choice_is_exactly_the_choice(self, value: str) -> None:
        """`^(Yes|No)$` accepts "Yes" and "No" and no other string."""
        assert conforms(value, {"pattern": "^(Yes|No)$"}) is (value in {"Yes", "No"})

    @pytest.mark.parametrize(
        ("value", "step", "verdict"),
        [
            (0.07, 0.01, True),
            (19.99, 0.01, True),
            (0.3, 0.1, True),
            (0.075, 0.01, False),
            (9.5e21, 1e20, True),
            (7.1e92, 3.0, False),
            (1e308, 5e-324, True),
            (10**30 + 1, 2, False),
            (2**63 + 2, 2, True),
        ],
    )
    def test_multiple_of_is_decimal(
        self, value: float, step: float, verdict: bool
    ) -> None:
        """0.07 is a multiple of 0.01 as its JSON text says, whatever floats say."""
        assert conforms(value, {"multipleOf": step}) is verdict

    def test_multiple_of_is_not_the_engines(self) -> None:
        """`multipleOf` is this library's keyword, with its own words, at its path."""
        schema: JSONSchema = {"items": {"multipleOf": 3.0}}
        assert schema_mismatches([9.0, 7.1e92], schema) == [
            Mismatch("$[1]", "multipleOf 3.0", "7.1e+92")
        ]
        assert conforms([True, "x", None], schema)

    @given(multiples_and_not())
    def test_multiple_of_law(self, case: tuple[float, float]) -> None:
        """`multipleOf` holds exactly when the decimal quotient is an integer."""
        step, value = case
        assert conforms(value, {"multipleOf": step}) is _is_multiple(value, step)

    def test_same_verdicts_without_the_fast_extra(self) -> None:
        """Without orjson (all the `[fast]` extra adds) every verdict is the same."""
        cases: list[tuple[JSON, JSON]] = [
            ("Yes\n", {"pattern": "^(Yes|No)$"}),
            ("\u0663", {"pattern": "^\\d$"}),
            ("caf\u00e9", {"pattern": "^\\w+$"}),
            (0.07, {"multipleOf": 0.01}),
            (0.075, {"multipleOf": 0.01}),
        ]
        cases += [(value, {"pattern": pattern}) for pattern, value in CATASTROPHIC]
        script = (
            "import json, sys\n"
            "sys.modules['orjson'] = None\n"
            "from interruption import _parse\n"
            "from interruption.schemas import conforms\n"
            "assert not _parse.HAVE_ORJSON\n"
            "cases = json.load(sys.stdin)\n"
            "print(json.dumps([conforms(v, s) for v, s in cases]))\n"
        )
        ran = subprocess.run(  # noqa: S603 - our own interpreter and code
            [sys.executable, "-c", script],
            input=json.dumps(cases),
            capture_output=True,
            text=True,
            check=True,
        )
        here = [conforms(value, cast("JSONSchema", schema)) for value, schema in cases]
        assert json.loads(ran.stdout) == here
        assert here[:5] == [False, False, False, True, False]


_ROOTED_SCHEMAS: Final[list[JSONSchema]] = [
    {"enum": ["Yes", "No"]},
    {"type": "string", "pattern": "^[0-9]{5}$"},
    {"$comment": "kept apart", "type": "integer"},
    {"const": "$ref"},
    {"type": "null"},
    {},
    {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": "#/$defs/Node",
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {"code": {"type": "string"}, "next": {"$ref": "#"}},
                "required": ["code"],
                "additionalProperties": False,
            }
        },
    },
    {
        "$id": "https://example.com/s",
        "$defs": {"n": {"type": "integer"}},
        "$ref": "#/$defs/n",
    },
    {"$anchor": "top", "type": "array", "items": {"$ref": "#top"}},
    {"properties": {"items": {"$ref": "#/properties/n"}, "n": {"minimum": 1}}},
]
"""Schemas checked once per value and once per array of values alike."""


class TestConforming:
    @given(
        st.lists(
            st.tuples(
                st.one_of(
                    st.sampled_from(["Yes", "No", "12345", "1234", None, 1, 0, 2.5]),
                    st.just({"code": "a", "next": {"code": "b"}}),
                    st.just({"code": "a", "next": {"code": 1}}),
                    st.just({"items": 3, "n": 2}),
                    st.just({"items": 0}),
                    st.just([[], [[]]]),
                    st.just([1]),
                ),
                st.integers(min_value=0, max_value=len(_ROOTED_SCHEMAS) - 1),
            ),
            max_size=6,
        )
    )
    def test_the_verdict_of_every_value_alone(
        self, pairs: list[tuple[JSON, int]]
    ) -> None:
        """Values grouped by schema (one call per group) get conforms' verdict."""
        checks = [(value, _ROOTED_SCHEMAS[index]) for value, index in pairs]
        expected = all(conforms(value, schema) for value, schema in checks)
        assert conforming(checks) is expected

    def test_a_schema_rooted_elsewhere_is_checked_value_by_value(self) -> None:
        """A schema with its own $id, an anchor, or any other $ is not moved."""
        moved = [_for_all(ENCODE(schema)) is not None for schema in _ROOTED_SCHEMAS]
        assert [index for index, yes in enumerate(moved) if yes] == [0, 1, 4, 5, 6, 9]


class TestSchemaValue:
    @given(json_values(), json_values())
    def test_one_value_per_spelling(self, first: JSON, second: JSON) -> None:
        """Schemas spelled alike share one immutable value; any other stays apart."""
        one = schema_value({"const": first})
        again = schema_value(json.loads(ENCODE({"const": first})))
        other = schema_value({"const": second})
        assert one is again
        assert one == {"const": first}
        assert one.text == ENCODE({"const": first})
        same_text = ENCODE(first) == ENCODE(second)
        assert (other is one) is same_text

    def test_an_int_is_not_taken_for_a_float(self) -> None:
        """1 and 1.0 (equal in Python) spell two schemas, kept apart."""
        assert schema_value({"minimum": 1}) is not schema_value({"minimum": 1.0})
        assert schema_value({"const": True}) is not schema_value({"const": 1})

    def test_not_json_is_never_taken_for_json(self) -> None:
        """NaN is refused, not read as the null that one encoder writes for it."""
        schema_value({"const": None})
        with pytest.raises(PayloadError) as caught:
            schema_value({"const": math.nan}, "respond")
        assert caught.value.path == "$.respond.const"

    @pytest.mark.parametrize("value", [[], "{}", None, 1])
    def test_not_an_object_is_a_field_error(self, value: object) -> None:
        """A schema that is not a JSON object names its field."""
        with pytest.raises(FieldError) as caught:
            schema_value(value, "restart")
        assert (caught.value.field, caught.value.expected) == (
            "restart",
            "a JSON object",
        )

    @given(json_values())
    def test_shares_nothing_with_what_it_was_given(self, value: JSON) -> None:
        """Changing the dict handed over changes neither the value nor its verdict."""
        given_schema: dict[str, JSON] = {"enum": ["Yes", "No"], "x": value}
        held = schema_value(given_schema)
        given_schema["enum"].append("Maybe")  # type: ignore[union-attr]
        given_schema["x"] = "changed"
        assert held == {"enum": ["Yes", "No"], "x": value}
        assert not conforms("Maybe", held)
        assert conforms("Maybe", given_schema)

    @pytest.mark.parametrize(
        "change",
        [
            lambda s: s.__setitem__("type", "string"),
            lambda s: s.__delitem__("enum"),
            lambda s: s.update({"type": "string"}),
            lambda s: s.setdefault("type", "string"),
            lambda s: s.pop("enum"),
            lambda s: s.popitem(),
            lambda s: s.clear(),
            lambda s: s.__ior__({"type": "string"}),
            lambda s: s["enum"].append("Maybe"),
            lambda s: s["enum"].extend(["Maybe"]),
            lambda s: s["enum"].insert(0, "Maybe"),
            lambda s: s["enum"].__setitem__(0, "Maybe"),
            lambda s: s["enum"].__delitem__(0),
            lambda s: s["enum"].__iadd__(["Maybe"]),
            lambda s: s["enum"].__imul__(2),
            lambda s: s["enum"].pop(),
            lambda s: s["enum"].remove("Yes"),
            lambda s: s["enum"].clear(),
            lambda s: s["enum"].sort(),
            lambda s: s["enum"].reverse(),
        ],
    )
    def test_cannot_change(self, change: Callable[[Any], object]) -> None:
        """Every way to change a held schema, at any depth, raises TypeError."""
        held = schema_value({"enum": ["Yes", "No"]})
        with pytest.raises(TypeError, match="never changes"):
            change(held)
        assert held == {"enum": ["Yes", "No"]}
        assert not conforms("Maybe", held)

    def test_copies_and_pickles_are_the_value(self) -> None:
        """A copy is the value itself; a pickle reads back as the same value."""
        held = schema_value({"enum": ["Yes", [1, {"a": 2}]]})
        assert copy.copy(held) is held
        assert copy.deepcopy(held) is held
        again = pickle.loads(pickle.dumps(held))  # noqa: S301 - our own bytes
        assert again is held
        assert copy.copy(held["enum"]) is held["enum"]
        assert copy.deepcopy(held["enum"]) is held["enum"]
        inner = pickle.loads(pickle.dumps(held["enum"]))  # noqa: S301 - as above
        assert inner == ["Yes", [1, {"a": 2}]]
        assert type(inner) is type(held["enum"])

    def test_forgotten_values_come_back_equal(self) -> None:
        """Past the cache, a spelling gets a new value, equal and as immutable."""
        first = schema_value({"type": "string"})
        schemas._schema_of_text.cache_clear()
        again = schema_value({"type": "string"})
        assert again == first
        assert again.text == first.text
        assert conforms("x", again)
        assert not conforms(1, again)

    def test_a_changed_dict_is_checked_as_it_now_is(self) -> None:
        """Checks are found by content: a dict changed in place gets its new verdict."""
        schema: dict[str, JSON] = {"enum": ["Yes"]}
        assert not conforms("No", schema)
        schema["enum"] = ["Yes", "No"]
        assert conforms("No", schema)
        assert schema_mismatches("No", schema) == []


def conforming(pairs: list[tuple[JSON, JSONSchema]]) -> bool:
    """`conforming_groups` of *pairs*, grouped as `validate_resume` groups them."""
    groups: SchemaGroups = {}
    for value, schema in pairs:
        group_check(groups, value, schema)
    return conforming_groups(groups)


@pytest.mark.usefixtures("watchdog")
class TestCatastrophicPatterns:
    @pytest.mark.parametrize(("pattern", "value"), CATASTROPHIC)
    def test_rejected_with_words(self, pattern: str, value: str) -> None:
        """A pattern that backtracks in `re` is rejected, words and all, at once."""
        schema: JSONSchema = {"type": "string", "pattern": pattern}
        assert not conforms(value, schema)
        assert schema_mismatches(value, schema, "$.output") == [
            Mismatch("$.output", f"pattern {json.dumps(pattern)}", describe(value))
        ]

    @pytest.mark.parametrize("pattern", [p for p, _ in CATASTROPHIC])
    def test_matching_values_still_pass(self, pattern: str) -> None:
        """The same patterns accept the strings they describe."""
        accepted = "a@example.com" if "example" in pattern else "a" * 40
        assert conforms(accepted, {"pattern": pattern})


class TestCheckSchema:
    @pytest.mark.parametrize(
        ("schema", "where"),
        [
            ({"pattern": "(?=a)a"}, "$.pattern"),
            ({"pattern": "(?<!a)b"}, "$.pattern"),
            ({"pattern": "(a)\\1"}, "$.pattern"),
            ({"pattern": "("}, "$.pattern"),
            ({"pattern": "(a{1000}){1000}"}, "$.pattern"),
            (
                {"properties": {"p": {"patternProperties": {"(?=x)": {}}}}},
                '$.properties.p.patternProperties["(?=x)"]',
            ),
        ],
    )
    def test_refuses_patterns_it_cannot_run_in_linear_time(
        self, schema: JSONSchema, where: str
    ) -> None:
        """Lookaround, backreferences and huge patterns refuse the whole schema."""
        with pytest.raises(SchemaError) as refused:
            check_schema(schema)
        (mismatch,) = refused.value.mismatches
        assert mismatch.path == where
        assert mismatch.expected.startswith("an ECMA-262 pattern without lookaround")
        with pytest.raises(SchemaError):
            conforms("a", schema)

    def test_a_refusal_is_remembered(self) -> None:
        """A refused schema is compiled once; asking again costs a look-up."""
        schema: JSONSchema = {"pattern": "(?=remembered)"}
        before = _compiled.cache_info().misses
        for _ in range(3):
            with pytest.raises(SchemaError):
                conforms("a", dict(schema))
        assert _compiled.cache_info().misses == before + 1

    def test_lists_every_problem(self) -> None:
        """An invalid schema is refused with every problem, as path, expected, got."""
        schema: JSONSchema = {
            "type": "integre",
            "minLength": -1,
            "properties": {"a": {"required": "x"}},
        }
        with pytest.raises(SchemaError) as refused:
            check_schema(schema)
        assert [m.path for m in refused.value.mismatches] == [
            "$.minLength",
            "$.properties.a.required",
            "$.type",
        ]
        assert refused.value.mismatches[0] == Mismatch("$.minLength", "minimum 0", "-1")
        assert refused.value.message.startswith("$.minLength: expected minimum 0")

    def test_never_fetches_a_remote_ref(self, listener: socket.socket) -> None:
        """A $ref to an http address is refused and no connection is made."""
        schema: JSONSchema = {"properties": {"a": {"$ref": _url(listener)}}}
        with pytest.raises(SchemaError) as refused:
            check_schema(schema)
        assert refused.value.mismatches == (
            Mismatch(
                "$",
                "a $ref that resolves within the schema (nothing is fetched)",
                repr(_url(listener)),
            ),
        )
        with pytest.raises(SchemaError):
            conforms(1, schema)
        assert _nobody_connected(listener)

    def test_never_fetches_a_meta_schema(self, listener: socket.socket) -> None:
        """An unknown $schema is not fetched: schemas are Draft 2020-12."""
        schema: JSONSchema = {"$schema": _url(listener), "type": "integer"}
        check_schema(schema)
        assert not conforms("1", schema)
        assert _nobody_connected(listener)

    @pytest.mark.parametrize("relative", [False, True])
    def test_never_reads_a_file(self, tmp_path: Path, relative: bool) -> None:
        """A $ref to a readable file, absolute or by its base $id, is refused."""
        (tmp_path / "other.json").write_text('{"type": "integer"}')
        schema: JSONSchema = (
            {"$id": (tmp_path / "root.json").as_uri(), "$ref": "other.json"}
            if relative
            else {"$ref": (tmp_path / "other.json").as_uri()}
        )
        with pytest.raises(SchemaError, match="nothing is fetched"):
            conforms(1, schema)

    def test_a_missing_pointer_is_refused(self) -> None:
        """A $ref to a part the schema does not have is refused, saying so."""
        with pytest.raises(SchemaError, match="/\\$defs/nope"):
            check_schema({"$ref": "#/$defs/nope"})

    def test_accepts_a_valid_schema(self) -> None:
        """A valid, self-contained schema with a linear pattern passes."""
        check_schema(
            {
                "type": "object",
                "properties": {"zip": {"type": "string", "pattern": "^[0-9]{5}$"}},
                "$defs": {"a": {"$ref": "#/$defs/a"}},
            }
        )


class TestEngineMessages:
    def test_a_rejected_value_is_never_written_into_the_engine_messages(self) -> None:
        """The engine masks values in its own messages: a large one costs no text."""
        value: JSON = list(range(10_000))
        error = next(schemas._fast('{"enum":["Yes","No"]}').iter_errors(value))
        assert "9999" not in error.message
        assert schema_mismatches(value, {"enum": ["Yes", "No"]}) == [
            Mismatch("$", "one of 'Yes', 'No'", "an array")
        ]
