import collections
import json
import math
import pickle
import typing
from typing import Final

import pytest
import rfc8785
from hypothesis import given
from hypothesis import strategies as st
from interruption import (
    JSON,
    Custom,
    DecodeError,
    FieldError,
    Interrupted,
    Mismatch,
    PayloadError,
    canonical,
    digest,
    json_equal,
)
from interruption._json import (
    CANONICAL_DEPTH,
    MAX_DEPTH,
    MAX_SAFE_INTEGER,
    FrozenArray,
    FrozenObject,
    NotJSON,
    child_path,
    describe,
    frozen,
    frozen_json,
    is_json,
    is_json_type,
    json_problems,
)
from interruption._parse import ENCODE, check_json
from interruption.schemas import conforms

from tests.strategies import equivalents, json_scalars, json_values, keys

IN_RANGE = f"an integer within ±{MAX_SAFE_INTEGER} (I-JSON)"


class TestJsonProblems:
    @given(json_values())
    def test_json_values_have_no_problems(self, value: JSON) -> None:
        """Every value the JSON strategy draws passes the check."""
        assert json_problems(value) == []

    @pytest.mark.parametrize(
        "value",
        [
            None,
            True,
            0,
            MAX_SAFE_INTEGER,
            -MAX_SAFE_INTEGER,
            -0.0,
            1e308,
            "",
            "é ☃ 𝄞",
            [],
            {},
            {"a": [1, {"b": None}]},
        ],
    )
    def test_accepts_json(self, value: object) -> None:
        """Scalars at the edges of the rules and nested containers are JSON."""
        assert json_problems(value) == []

    @pytest.mark.parametrize(
        ("value", "expected", "got"),
        [
            ({1, 2}, "a JSON value", "a set"),
            (b"raw", "a JSON value", "a bytes"),
            ((1, 2), "a JSON value", "a tuple"),
            (object(), "a JSON value", "an object"),
            (math.nan, "a finite number", "nan"),
            (math.inf, "a finite number", "inf"),
            (-math.inf, "a finite number", "-inf"),
            (MAX_SAFE_INTEGER + 1, IN_RANGE, "9007199254740992"),
            (-MAX_SAFE_INTEGER - 1, IN_RANGE, "-9007199254740992"),
            ("\ud800", "a string of valid Unicode", "a lone surrogate"),
            ({1: "a"}, "object keys that are strings", "1"),
            ({"\udfff": 1}, "object keys of valid Unicode", "'\\udfff'"),
        ],
    )
    def test_rejects_non_json(self, value: object, expected: str, got: str) -> None:
        """Each kind of non-JSON value is named with what was expected and got."""
        assert json_problems(value) == [Mismatch("$", expected, got)]

    def test_paths_name_each_spot_in_document_order(self) -> None:
        """Every bad spot is listed, each with its JSON path, in document order."""
        value = {"a": [1, {1, 2}, {"b c": math.nan}], "ok": 1, "d": {"e": b""}}
        assert json_problems(value) == [
            Mismatch("$.a[1]", "a JSON value", "a set"),
            Mismatch('$.a[2]["b c"]', "a finite number", "nan"),
            Mismatch("$.d.e", "a JSON value", "a bytes"),
        ]

    def test_path_argument_prefixes_every_path(self) -> None:
        """The path of the value itself prefixes the paths of its problems."""
        assert json_problems([b""], path="$.payload") == [
            Mismatch("$.payload[0]", "a JSON value", "a bytes")
        ]

    def test_huge_integer_is_described_without_printing_it(self) -> None:
        """An integer too large to print is a problem, not a ValueError."""
        (problem,) = json_problems(10**5000)
        assert problem.got == "an integer of 16610 bits"

    def test_cycle_is_a_problem_not_a_recursion_error(self) -> None:
        """A list that contains itself is reported, not recursed into forever."""
        value: list[object] = [1]
        value.append(value)
        assert json_problems(value) == [
            Mismatch("$[1]", "a JSON value", "a reference cycle")
        ]

    def test_shared_but_acyclic_values_are_fine(self) -> None:
        """The same list twice in a document is not a cycle."""
        shared = [1, 2]
        assert json_problems({"a": shared, "b": [shared]}) == []

    def test_max_depth_counts_arrays_and_objects(self) -> None:
        """``max_depth`` levels of containers pass; one more is reported once."""
        assert json_problems([[1]], max_depth=2) == []
        assert json_problems([[[1]]], max_depth=2) == [
            Mismatch("$[0][0]", "at most 2 levels of nesting", "a deeper document")
        ]
        assert json_problems(1, max_depth=0) == []

    def test_default_depth_is_max_depth(self) -> None:
        """By default, `MAX_DEPTH` levels pass and one more does not."""
        deep: JSON = []
        for _ in range(MAX_DEPTH - 1):
            deep = [deep]
        assert json_problems(deep) == []
        assert len(json_problems([deep])) == 1

    def test_very_deep_values_do_not_exhaust_the_stack(self) -> None:
        """A value nested 10**5 deep is cut off at the limit, not a RecursionError."""
        deep: JSON = []
        for _ in range(10**5):
            deep = [deep]
        (problem,) = json_problems(deep)
        assert problem.got == "a deeper document"


class TestIsJson:
    @pytest.mark.parametrize(
        "value",
        [{"\ud800": 1}, [{"a": {"\udfff": None}}], {"\ud800": 1, "a": 2}],
        ids=["top", "nested", "among others"],
    )
    def test_agrees_with_json_problems_on_surrogate_keys(self, value: object) -> None:
        """A key with a lone surrogate is not JSON for is_json either."""
        assert json_problems(value)
        assert not is_json(value)

    def test_a_pause_with_such_a_key_is_refused_where_it_is_raised(self) -> None:
        """Interrupted refuses a payload whose key holds a lone surrogate."""
        with pytest.raises(PayloadError):
            Interrupted(Custom(), {"\ud800": 1})


NOT_JSON_LEAVES: Final = [
    math.nan,
    math.inf,
    MAX_SAFE_INTEGER + 1,
    -MAX_SAFE_INTEGER - 1,
    "\ud800",
    (1, 2),
    {1, 2},
    b"raw",
    object(),
]
"""Scalars and other values that are not JSON, wherever they sit."""


def _maybe_json() -> st.SearchStrategy[object]:
    """JSON values, some with a value that is not JSON (or a bad key) inside.

    Some objects are `collections.OrderedDict`s: JSON, held as frozen copies.
    """
    leaves = st.one_of(json_scalars(), st.sampled_from(NOT_JSON_LEAVES))
    bad_keys = st.one_of(keys(), st.sampled_from(["\udfff", 1]))
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(bad_keys, inner, max_size=4),
            st.dictionaries(keys(), inner, max_size=2).map(collections.OrderedDict),
        ),
        max_leaves=12,
    )


class TestCheckJson:
    @given(
        _maybe_json(),
        st.one_of(st.integers(min_value=0, max_value=4), st.sampled_from([70, 600])),
    )
    def test_refuses_exactly_what_json_problems_names(
        self, value: object, depth: int
    ) -> None:
        """check_json passes a value iff it has no problems, else raises them all."""
        problems = json_problems(value, max_depth=depth)
        if not problems:
            check_json(value, depth)  # type: ignore[arg-type]
            return
        with pytest.raises(DecodeError) as refused:
            check_json(value, depth)  # type: ignore[arg-type]
        assert refused.value.problems == tuple(problems)

    def test_a_limit_beyond_the_wires_is_walked_whole(self) -> None:
        """A document nested far deeper than a record is checked to its limit."""
        deep: JSON = 1
        for _ in range(400):
            deep = [deep]
        check_json(deep, 400)
        with pytest.raises(DecodeError):
            check_json(deep, 399)


class TestFrozenJson:
    @given(_maybe_json(), st.integers(min_value=0, max_value=4))
    def test_refuses_exactly_what_json_problems_names(
        self, value: object, depth: int
    ) -> None:
        """frozen_json refuses a value iff it has problems; else it is frozen()."""
        problems = json_problems(value, max_depth=depth)
        assert is_json(value, depth) is not bool(problems)
        if problems:
            with pytest.raises(NotJSON):
                frozen_json(value, depth)
        else:
            made = frozen_json(value, depth)
            assert made == frozen(value)  # type: ignore[arg-type]
            assert type(made) is type(frozen(value))  # type: ignore[arg-type]

    @given(json_values())
    def test_a_frozen_value_is_kept(self, value: JSON) -> None:
        """A value frozen already is JSON and comes back as itself."""
        held = frozen(value)
        assert frozen_json(held) is held

    @pytest.mark.parametrize("bad", NOT_JSON_LEAVES)
    def test_a_bad_leaf_in_an_array_or_object(self, bad: object) -> None:
        """A value that is not JSON is refused alone, in an array or in an object."""
        for value in (bad, [1, bad], {"a": "x", "b": bad}, [{"c": [bad]}]):
            with pytest.raises(NotJSON):
                frozen_json(value)
            assert not is_json(value)

    @pytest.mark.parametrize("good", ["é", "\U0001f600", MAX_SAFE_INTEGER, -0.5])
    def test_a_good_leaf_in_an_array_or_object(self, good: JSON) -> None:
        """Non-ASCII text, the largest safe integer and a float are JSON anywhere."""
        for value in (good, [1, good], {"a": "x", "b": good}, [{"c": [good]}]):
            made = frozen_json(value)
            assert made == value
            assert json_problems(value) == []

    def test_other_mappings_and_sequences_are_frozen_too(self) -> None:
        """A dict or list subclass is JSON, and held as a frozen copy."""
        ordered = collections.OrderedDict(a=[1], b=collections.OrderedDict(c=2))
        made = frozen_json(ordered)
        assert type(made) is FrozenObject
        assert made == {"a": [1], "b": {"c": 2}}
        assert type(made["b"]) is FrozenObject
        inside = frozen_json({"x": [ordered]})
        assert inside == {"x": [{"a": [1], "b": {"c": 2}}]}
        assert type(inside["x"][0]) is FrozenObject  # type: ignore[index]

    def test_containers_count_toward_the_depth(self) -> None:
        """An array or object at the depth limit is refused, a scalar is not."""
        assert frozen_json([[1]], 2) == [[1]]
        assert frozen_json(5, 0) == 5
        for value in ([[1]], [{"a": 1}], {"a": [1]}):
            with pytest.raises(NotJSON):
                frozen_json(value, 1)
            assert not is_json(value, 1)
        assert not is_json([], 0)


class TestJsonEqual:
    @pytest.mark.parametrize(
        ("left", "right"),
        [
            (1, 1.0),
            (0, -0.0),
            ({"a": 1, "b": 2}, {"b": 2, "a": 1}),
            ([1, {"x": [True, None]}], [1.0, {"x": [True, None]}]),
            ("é", "é"),
            (None, None),
            (False, False),
        ],
    )
    def test_equal(self, left: JSON, right: JSON) -> None:
        """Numbers compare by value and object keys by set, as JSON does."""
        assert json_equal(left, right)
        assert json_equal(right, left)

    @pytest.mark.parametrize(
        ("left", "right"),
        [
            (True, 1),
            (False, 0),
            (True, 1.0),
            (True, False),
            (None, 0),
            (None, False),
            ("1", 1),
            ([1], [1, 1]),
            ([1, 2], [2, 1]),
            ({"a": 1}, {"a": 1, "b": 1}),
            ({"a": 1}, {"b": 1}),
            ({"a": True}, {"a": 1}),
            ([], {}),
            ([1], {"0": 1}),
            ("a", ["a"]),
            (MAX_SAFE_INTEGER, float(MAX_SAFE_INTEGER + 1)),
        ],
    )
    def test_not_equal(self, left: JSON, right: JSON) -> None:
        """``true`` is not ``1``, and shapes, lengths and order of arrays count."""
        assert not json_equal(left, right)
        assert not json_equal(right, left)

    @given(json_values())
    def test_reflexive(self, value: JSON) -> None:
        """Every JSON value equals itself."""
        assert json_equal(value, value)

    @given(st.data(), json_values())
    def test_equivalent_spellings_are_equal(
        self, data: st.DataObject, value: JSON
    ) -> None:
        """Integers spelled as floats and reordered keys do not change the value."""
        assert json_equal(value, data.draw(equivalents(value)))


class TestCanonical:
    def test_rfc8785_form(self) -> None:
        """Keys are sorted, whitespace dropped, numbers in ECMAScript form."""
        value: JSON = {"b": [1.0, True, 1e21, 0.5, "é"], "a": None, "A": -0.0}
        assert (
            canonical(value) == '{"A":0,"a":null,"b":[1,true,1e+21,0.5,"é"]}'.encode()
        )

    @given(json_values())
    def test_is_json_of_the_same_value(self, value: JSON) -> None:
        """The canonical bytes parse back to a JSON-equal value."""
        # ECMAScript prints 2.0**60 as an integer literal: read numbers as floats.
        assert json_equal(json.loads(canonical(value), parse_int=float), value)


_SPELLED_APART: Final = [
    1.0,
    -0.0,
    100.0,
    2.0**53,
    2.0**53 + 2,
    9007199254740994.0e1,
    1e16,
    1.5e16,
    1.2345678901234568e20,
    9.99e20,
    1e21,
    1e-5,
    1e-6,
    4.5e-6,
    -9.999999999999999e-6,
    9.99e-7,
    5e-324,
]
"""Floats whose spelling differs between JSON encoders, and their neighbours."""

_AWKWARD_KEYS: Final = ["\ue000", "\U0001f600", "a\U0001f600", "a\uffff", "\uff61"]
"""Keys whose UTF-16 order is not their code point order."""


def canonical_inputs() -> st.SearchStrategy[JSON]:
    """JSON values heavy in the floats and keys where encoders part ways."""
    scalars = st.one_of(
        json_scalars(),
        st.sampled_from(_SPELLED_APART),
        st.sampled_from(_SPELLED_APART).map(lambda number: -number),
        st.sampled_from(["1.0,", "e+16", '"\U0001f600":', "-0.0]"]),
    )
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(st.one_of(keys(), st.sampled_from(_AWKWARD_KEYS)), inner),
        ),
        max_leaves=16,
    )


class TestCanonicalEdges:
    """`canonical` on frozen values, astral keys, and what is not JSON."""

    @given(canonical_inputs())
    def test_frozen_values_too(self, value: JSON) -> None:
        """A record's frozen JSON is written as the same value unfrozen."""
        assert canonical(frozen(value)) == rfc8785.dumps(value)

    def test_keys_beyond_the_bmp_sort_by_code_units(self) -> None:
        """U+1F600 sorts before U+E000 (its surrogates do), at every depth."""
        value: JSON = {"\ue000": 1, "\U0001f600": [{"\uffff": 1, "\U00010000": 2}]}
        assert canonical(value).index("😀".encode()) < canonical(value).index(
            "\ue000".encode()
        )

    @pytest.mark.parametrize(
        ("value", "path", "expected"),
        [
            (math.nan, "$", "a finite number"),
            ({"a": [None, math.inf]}, "$.a[1]", "a finite number"),
            ({"a": None, "b": -math.inf}, "$.b", "a finite number"),
            (2**53, "$", f"an integer within ±{MAX_SAFE_INTEGER} (I-JSON)"),
            ("\ud800", "$", "a string of valid Unicode"),
            ({1: 2}, "$", "object keys that are strings"),
            ({"s": {1, 2}}, "$.s", "a JSON value"),
        ],
    )
    def test_not_json_is_a_payload_error(
        self, value: object, path: str, expected: str
    ) -> None:
        """A value that is not JSON raises PayloadError at its path, never null."""
        with pytest.raises(PayloadError) as caught:
            canonical(value)  # type: ignore[arg-type]
        assert (caught.value.path, caught.value.expected) == (path, expected)
        with pytest.raises(PayloadError):
            digest(value)  # type: ignore[arg-type]

    def test_too_deep_is_a_payload_error(self) -> None:
        """A value nested past CANONICAL_DEPTH is refused, at its depth."""
        value: JSON = []
        for _ in range(CANONICAL_DEPTH + 1):
            value = [value]
        with pytest.raises(PayloadError, match=f"at most {CANONICAL_DEPTH} levels"):
            canonical(value)


class TestDigest:
    def test_is_sha256_hex(self) -> None:
        """A digest is 64 lowercase hex digits of the canonical bytes."""
        assert digest({}) == (
            "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        )

    @given(st.data(), json_values())
    def test_equivalent_values_share_a_digest(
        self, data: st.DataObject, value: JSON
    ) -> None:
        """JSON-equal values have the same digest."""
        assert digest(data.draw(equivalents(value))) == digest(value)

    @given(json_values(), json_values())
    def test_equal_digest_iff_json_equal(self, left: JSON, right: JSON) -> None:
        """Two values share a digest exactly when they are JSON-equal."""
        assert (digest(left) == digest(right)) == json_equal(left, right)

    @pytest.mark.parametrize(
        ("left", "right"),
        [(True, 1), (False, 0), (None, 0), ("1", 1), ([1, 2], [2, 1])],
    )
    def test_unequal_values_differ(self, left: JSON, right: JSON) -> None:
        """Values that are not JSON-equal have different digests."""
        assert digest(left) != digest(right)


class TestDescribe:
    @pytest.mark.parametrize(
        ("value", "words"),
        [
            (None, "null"),
            (True, "true"),
            (False, "false"),
            ("x", "'x'"),
            ("x" * 50, "'" + "x" * 35 + "...'"),
            (12, "12"),
            (1.5, "1.5"),
            (-(2**128) + 1, str(-(2**128) + 1)),
            (2**128, "an integer of 129 bits"),
            ({}, "an object"),
            ([], "an array"),
            ({1}, "a set"),
            (object(), "an object"),
        ],
    )
    def test_words(self, value: object, words: str) -> None:
        """Scalars are shown as short JSON, anything else named by a noun."""
        assert describe(value) == words

    @pytest.mark.parametrize("value", ["x" * 1000, "é" * 41, 2**128 - 1, -(2**128) + 1])
    def test_is_at_most_forty_characters(self, value: object) -> None:
        """Long strings and numbers are shortened so that a message stays readable."""
        assert len(describe(value)) <= 40


class TestChildPath:
    @pytest.mark.parametrize(
        ("path", "key", "child"),
        [
            ("$", "a", "$.a"),
            ("$.a", 3, "$.a[3]"),
            ("$", "x y", '$["x y"]'),
            ("$", "", '$[""]'),
            ("$", '"', '$["\\""]'),
            ("$", "1a", '$["1a"]'),
            ("$", "\n", '$["\\n"]'),
            ("$", "é", "$.é"),
            ("$", "é ", '$["é "]'),
            ("$", "\ud800", '$["\\ud800"]'),
        ],
    )
    def test_steps(self, path: str, key: str | int, child: str) -> None:
        """Names step with a dot, indexes and other keys with brackets."""
        assert child_path(path, key) == child


class TestIsJsonType:
    def test_json_alias(self) -> None:
        """The `JSON` alias, resolved, is recognised."""
        hints = typing.get_type_hints(Mismatch.__init__)
        assert not is_json_type(hints["path"])
        assert is_json_type(JSON)

    @pytest.mark.parametrize("tp", [int, str | None, int | str | float, list[int]])
    def test_other_types(self, tp: object) -> None:
        """Other annotations, unions included, are not the alias."""
        assert not is_json_type(tp)


class TestMismatch:
    def test_str(self) -> None:
        """A mismatch reads: path, expected, got."""
        assert str(
            Mismatch("$.kind.phase", "one of 'before', 'after'", "'during'")
        ) == ("$.kind.phase: expected one of 'before', 'after', got 'during'")

    def test_is_a_frozen_value(self) -> None:
        """Mismatches compare by value and hash, so they can be collected."""
        assert Mismatch("$", "a", "b") == Mismatch("$", "a", "b")
        assert len({Mismatch("$", "a", "b"), Mismatch("$", "a", "b")}) == 1


class TestFieldError:
    def test_message_and_attributes(self) -> None:
        """A field error is a ValueError whose pieces travel as attributes."""
        error = FieldError("node", "a non-empty string", "''")
        assert isinstance(error, ValueError)
        assert str(error) == "node: expected a non-empty string, got ''"
        assert (error.field, error.expected, error.got) == (
            "node",
            "a non-empty string",
            "''",
        )

    def test_pickles(self) -> None:
        """A field error survives pickling (process pools send errors back)."""
        error = pickle.loads(pickle.dumps(FieldError("node", "x", "y")))  # noqa: S301 - our own bytes
        assert (error.field, error.expected, error.got, str(error)) == (
            "node",
            "x",
            "y",
            "node: expected x, got y",
        )


def _containers(value: object) -> list[object]:
    """Every object and array in *value*, itself included."""
    if isinstance(value, dict):
        return [value, *(c for item in value.values() for c in _containers(item))]
    if isinstance(value, list):
        return [value, *(c for item in value for c in _containers(item))]
    return []


class TestFrozen:
    @given(json_values())
    def test_a_frozen_copy_is_the_same_json_everywhere(self, value: JSON) -> None:
        """A frozen copy shares nothing, cannot change, and reads as the same JSON."""
        copy = frozen(value)
        made = _containers(copy)
        assert all(type(item) in {FrozenObject, FrozenArray} for item in made)
        assert not {id(item) for item in made} & {id(c) for c in _containers(value)}
        assert frozen(copy) is copy
        assert copy == value
        assert json_equal(copy, value)
        assert ENCODE(copy) == ENCODE(value)
        assert json.dumps(copy) == json.dumps(value)
        assert digest(copy) == digest(value)
        assert is_json(copy)
        assert not json_problems(copy)
        assert conforms(copy, {"const": value})
        assert pickle.loads(pickle.dumps(copy)) == value  # noqa: S301 - our own bytes

    def test_other_mappings_and_sequences_are_frozen_too(self) -> None:
        """A dict or list subclass (an OrderedDict) is copied as a frozen value."""

        class Items(list[JSON]):
            """A list subclass."""

        value = collections.OrderedDict(a=Items([1, {"b": []}]))
        copy = frozen(value)  # type: ignore[arg-type]
        assert type(copy) is FrozenObject
        assert type(copy["a"]) is FrozenArray
        with pytest.raises(TypeError):
            copy["a"].append(2)
        assert copy == {"a": [1, {"b": []}]}
