import json
from collections.abc import Callable

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from interruption import JSON, DecodeError, _parse, json_equal
from interruption._json import MAX_DEPTH, json_problems
from interruption._parse import ENCODE, _fast_loads, _orjson_dumps, _stdlib_dumps, parse

from tests.strategies import NEAR_NUMBERS, NUMBER_EDGES, json_values, number_literals

Parse = Callable[..., JSON]


@pytest.fixture(name="strict")
def _strict(parser: str) -> Parse:
    del parser  # the fixture's effect is the point

    def strict(
        data: str | bytes, *, max_bytes: int = 10**7, max_depth: int = MAX_DEPTH
    ) -> JSON:
        return parse(data, max_bytes=max_bytes, max_depth=max_depth)

    return strict


def _both(data: str | bytes, **limits: int) -> tuple[object, object]:
    """Parse *data* with and without orjson; each result is a value or an error."""
    outcomes: list[object] = []
    for module in (orjson, None):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_parse, "orjson", module)
            try:
                outcomes.append(
                    parse(
                        data,
                        max_bytes=limits.get("max_bytes", 10**7),
                        max_depth=limits.get("max_depth", MAX_DEPTH),
                    )
                )
            except DecodeError as error:
                outcomes.append(error.problems)
    return outcomes[0], outcomes[1]


def _nested(levels: int, inner: str = "1") -> str:
    return "[" * levels + inner + "]" * levels


VALID = [
    "null",
    "true",
    "0",
    "-0",
    "-0.0",
    "1.5",
    "1e2",
    "9007199254740991",
    "-9007199254740991",
    "9223372036854775808.0",
    "1e300",
    "1E+2",
    "-0e0",
    "1.0e-400",
    "-1.0e-400",
    '"é☃𝄞"',
    '"\\ud834\\udd1e"',
    '"a:b"',
    '"\\u003a"',
    " [1, 2] ",
    '{"a": {"b": [null, true, {"c": "d"}]}}',
    '{"a": 1, "A": 2}',
    _nested(MAX_DEPTH),
]

INVALID = [
    ("", "a JSON document"),
    ("[1,]", "a JSON document"),
    ("{'a': 1}", "a JSON document"),
    ("[1] [2]", "a JSON document"),
    ('"\x01"', "a JSON document"),
    ("NaN", "a JSON value (NaN and Infinity are not JSON)"),
    ("[Infinity]", "a JSON value (NaN and Infinity are not JSON)"),
    ("-Infinity", "a JSON value (NaN and Infinity are not JSON)"),
    ("1e400", "a finite number"),
    ("[-1e400]", "a finite number"),
    ("9007199254740992", "an integer within ±9007199254740991 (I-JSON)"),
    ("[-9007199254740992]", "an integer within ±9007199254740991 (I-JSON)"),
    ("18446744073709551616", "an integer within ±9007199254740991 (I-JSON)"),
    ("-9223372036854775809", "an integer within ±9007199254740991 (I-JSON)"),
    ('{"a": -9223372036854775809}', "an integer within ±9007199254740991 (I-JSON)"),
    ("-99999999999999999999", "an integer within ±9007199254740991 (I-JSON)"),
    ("1E400", "a finite number"),
    ("[" + "9" * 5000 + "]", "an integer within ±9007199254740991 (I-JSON)"),
    ("-" + "9" * 5000, "an integer within ±9007199254740991 (I-JSON)"),
    ('{"a": 1, "a": 2}', "object keys that are unique"),
    ('{"a": 1, "a": 1}', "object keys that are unique"),
    ('[{"x": {"a": 1, "b": 2, "a": 3}}]', "object keys that are unique"),
    ('{"a": "\\u003a", "a": 1}', "object keys that are unique"),
    ('{"a": 1, "a": "\\u003A"}', "object keys that are unique"),
    ('{"\\u0061": 1, "a": 2}', "object keys that are unique"),
    ('"\\ud800"', "a string of valid Unicode"),
    ('["\\udc00x"]', "a string of valid Unicode"),
    ('{"\\ud800": 1}', "object keys of valid Unicode"),
    (b'"\xff"', "UTF-8 bytes"),
    (b'["\xed\xa0\x80"]', "UTF-8 bytes"),
    (b"\xef\xbb\xbf[1]", "a JSON document"),
    (_nested(MAX_DEPTH + 1), f"at most {MAX_DEPTH} levels of nesting"),
    (_nested(300), f"at most {MAX_DEPTH} levels of nesting"),
    (_nested(10**5), "a document nested less deeply"),
    ('{"a":' * 10**5 + "1" + "}" * 10**5, "a document nested less deeply"),
]


class TestParse:
    @pytest.mark.parametrize("text", VALID)
    def test_accepts_json(self, strict: Parse, text: str) -> None:
        """Valid documents parse to what a plain JSON parser gives."""
        assert json_equal(strict(text), json.loads(text))
        assert json_equal(strict(text.encode()), json.loads(text))

    @pytest.mark.parametrize(("data", "expected"), INVALID)
    def test_rejects(self, strict: Parse, data: str | bytes, expected: str) -> None:
        """What RFC 8259 leaves open, or I-JSON forbids, is a DecodeError."""
        with pytest.raises(DecodeError) as caught:
            strict(data)
        assert caught.value.expected.startswith(expected)
        assert caught.value.path.startswith("$")
        assert caught.value.got
        assert isinstance(caught.value, ValueError)

    @pytest.mark.parametrize(("data", "expected"), INVALID)
    def test_both_paths_agree_on_rejects(
        self, data: str | bytes, expected: str
    ) -> None:
        """With or without orjson, every rejection is worded the same way."""
        fast, exact = _both(data)
        assert fast == exact
        assert isinstance(fast, tuple)
        assert fast[0].expected.startswith(expected)

    @pytest.mark.parametrize("text", VALID)
    def test_both_paths_agree_on_values(self, text: str) -> None:
        """With or without orjson, the value is the same, types included."""
        fast, exact = _both(text)
        assert fast == exact
        assert repr(fast) == repr(exact)

    @given(json_values())
    def test_round_trip(self, value: JSON) -> None:
        """Any JSON value, encoded, parses back to itself on both paths."""
        for text in (
            json.dumps(value),
            json.dumps(value, ensure_ascii=False, indent=1),
        ):
            fast, exact = _both(text)
            assert json_equal(fast, value)  # type: ignore[arg-type]
            assert repr(fast) == repr(exact)

    @given(number_literals(), st.sampled_from(["N", "[N]", '{"a": [1, N]}']))
    def test_both_paths_agree_on_numbers(self, literal: str, where: str) -> None:
        """Any number spelling parses to the same value or DecodeError on both paths."""
        text = where.replace("N", literal)
        fast, exact = _both(text)
        assert repr(fast) == repr(exact)
        if not isinstance(exact, tuple):
            assert json_equal(exact, json.loads(text))  # type: ignore[arg-type]

    @pytest.mark.parametrize("literal", NUMBER_EDGES + NEAR_NUMBERS)
    def test_both_paths_agree_on_number_edges(self, literal: str) -> None:
        """Each number spelling where parsers are known to differ parses alike."""
        fast, exact = _both(f"[{literal}]")
        assert repr(fast) == repr(exact)

    @given(st.text(max_size=30) | st.binary(max_size=30))
    def test_arbitrary_input(self, data: str | bytes) -> None:
        """Any text or bytes give the same value or error with or without orjson."""
        fast, exact = _both(data)
        assert repr(fast) == repr(exact)

    def test_error_words_the_standard_library_position(self, strict: Parse) -> None:
        """A syntax error says what is wrong and where."""
        with pytest.raises(DecodeError) as caught:
            strict('{"a": }')
        assert caught.value.got == "Expecting value at line 1 column 7"

    def test_duplicate_names_the_key(self, strict: Parse) -> None:
        """A duplicate key is named in the error."""
        with pytest.raises(DecodeError) as caught:
            strict('{"b": {"a": 1, "a": 2}}')
        assert caught.value.got == "the key 'a' twice"

    def test_duplicates_are_reported_at_their_own_paths(self, strict: Parse) -> None:
        """Every repeated key is reported at its object's path, dropped values too."""
        text = (
            '{"respond": [{"output": {"a": 1, "a": 2, "b": 0, "b": 0, "a": 3}}],'
            ' "respond": [], "x y": [{"k": 1, "k": 2}]}'
        )
        with pytest.raises(DecodeError) as caught:
            strict(text)
        assert [(found.path, found.got) for found in caught.value.problems] == [
            ("$", "the key 'respond' twice"),
            ("$.respond[0].output", "the key 'a' twice"),
            ("$.respond[0].output", "the key 'b' twice"),
            ('$["x y"][0]', "the key 'k' twice"),
        ]

    def test_overflow_names_the_literal(self, strict: Parse) -> None:
        """A number that overflows to infinity is shown as written."""
        with pytest.raises(DecodeError) as caught:
            strict("[1e400]")
        assert caught.value.got == "1e400 (overflows to infinity)"

    def test_out_of_range_integers_are_all_listed(self, strict: Parse) -> None:
        """Several out-of-range integers are each reported with their path."""
        with pytest.raises(DecodeError) as caught:
            strict('{"a": [9007199254740992, 1], "b": -9007199254740993}')
        assert [(p.path, p.got) for p in caught.value.problems] == [
            ("$.a[0]", "9007199254740992"),
            ("$.b", "-9007199254740993"),
        ]

    def test_huge_integer_names_its_size(self, strict: Parse) -> None:
        """An integer of thousands of digits is refused without converting it."""
        with pytest.raises(DecodeError) as caught:
            strict("[-" + "9" * 5000 + "]")
        assert caught.value.got == "an integer of 5000 digits"

    def test_lone_surrogate_in_text_input(self, strict: Parse) -> None:
        """A str document holding a lone surrogate is refused before parsing."""
        with pytest.raises(DecodeError) as caught:
            strict('["ok", "\ud800"]')
        assert (caught.value.expected, caught.value.got) == (
            "text of valid Unicode",
            "a lone surrogate at index 8",
        )

    def test_invalid_utf8_names_the_offset(self, strict: Parse) -> None:
        """Bytes that are not UTF-8 are refused with the offending offset."""
        with pytest.raises(DecodeError) as caught:
            strict(b'["ok", "\xc3"]')
        assert caught.value.got == "an invalid byte at offset 8"

    def test_max_bytes(self, strict: Parse) -> None:
        """A document over ``max_bytes`` UTF-8 bytes is refused; one at it passes."""
        assert strict('"é"', max_bytes=4) == "é"
        with pytest.raises(DecodeError) as caught:
            strict('"é"', max_bytes=3)
        assert (caught.value.expected, caught.value.got) == (
            "a document of at most 3 bytes",
            "4 bytes",
        )

    @pytest.mark.parametrize("max_depth", [0, 1, 2, 5])
    def test_max_depth(self, strict: Parse, max_depth: int) -> None:
        """``max_depth`` levels of arrays and objects pass, one more does not."""
        assert strict("1", max_depth=max_depth) == 1
        if max_depth:
            assert strict(_nested(max_depth), max_depth=max_depth)
            assert strict(
                '{"a":' * max_depth + "1" + "}" * max_depth, max_depth=max_depth
            )
        with pytest.raises(DecodeError) as caught:
            strict(_nested(max_depth + 1), max_depth=max_depth)
        assert caught.value.expected == f"at most {max_depth} levels of nesting"

    def test_depth_beyond_what_orjson_encodes(self, strict: Parse) -> None:
        """A large ``max_depth`` admits documents deeper than orjson re-encodes."""
        assert strict(_nested(300, "[]"), max_depth=400)

    def test_memoryview_and_bytearray(self, strict: Parse) -> None:
        """Any bytes-like document parses."""
        assert strict(bytearray(b"[1]")) == [1]
        assert strict(memoryview(b"[1]")) == [1]

    def test_not_a_document(self, strict: Parse) -> None:
        """Something that is neither text nor bytes is refused by name."""
        with pytest.raises(DecodeError) as caught:
            strict({"a": 1})
        assert caught.value.got == "dict"


class TestFastPath:
    """The orjson path hands a document to the exact parser when it must."""

    @pytest.mark.parametrize(
        "raw",
        [
            b'{"a": 1, "a": 2}',
            b'{"a":1,"a":1}',
            b'{"a":{"b":1},"a":{"b":1}}',
            b'{"a": 1, "b": {"c": 1, "c": 1}}',
            b'{"a": "x:y", "a": "x:y"}',
            b'{"a": 1, "a": "\\u003a"}',
            b'{"a": 1, "a": "\\u003A"}',
            b'{"\\u003a": 1, ":": 2}',
        ],
    )
    def test_dropped_duplicate_is_noticed(self, raw: bytes) -> None:
        """When orjson silently dropped a key, the fast path declines."""
        assert _fast_loads(raw, 64) is None

    def test_colon_count_alone_misses_an_escaped_colon(self) -> None:
        """An escaped colon can hide a dropped key from the colon count alone."""
        raw = b'{"a": 1, "a": "\\u003a"}'
        value = orjson.loads(raw)
        assert value == {"a": ":"}
        assert raw.count(b":") == orjson.dumps(value).count(b":")

    @pytest.mark.parametrize(
        "raw",
        [b'{"a": "x:y", "b": ":"}', b'{"a:b": {"c": 1}}', b"[1, 2]", b'"a:b"'],
    )
    def test_colons_in_strings_are_counted(self, raw: bytes) -> None:
        """Colons inside strings survive re-encoding, so the fast path keeps them."""
        assert _fast_loads(raw, 64) == json.loads(raw)

    def test_escaped_colon_without_duplicates_is_still_parsed(self) -> None:
        """An escaped colon sends the document to the exact parser, which accepts it."""
        raw = b'{"a": "\\u003a"}'
        assert _fast_loads(raw, 64) is None
        assert parse(raw, max_bytes=100, max_depth=5) == {"a": ":"}

    def test_syntax_errors_go_to_the_exact_parser(self) -> None:
        """Errors found by orjson are worded by the exact parser."""
        assert _fast_loads(b"[1,]", 64) is None

    def test_too_deep_to_reencode(self) -> None:
        """A document orjson parses but cannot re-encode is left to the exact parser."""
        assert _fast_loads(_nested(300).encode(), 64) is None

    def test_documents_with_few_containers_are_not_reencoded(self) -> None:
        """No more containers than the limit: no item can lie too deep."""
        assert _fast_loads(_nested(3).encode(), 3) == [[[1]]]

    def test_items_at_the_depth_limit_are_left_to_the_exact_parser(self) -> None:
        """A scalar at the limit sends the document on; the exact parser accepts it."""
        assert _fast_loads(b"[[],[],[]]", 3) == [[], [], []]
        # A bracket in a string hides the depth from the byte count.
        assert _fast_loads(b'[[[1]],["]"]]', 3) is None
        assert parse(b'[[[1]],["]"]]', max_bytes=100, max_depth=3) == [[[1]], ["]"]]
        with pytest.raises(DecodeError):
            parse(_nested(4).encode(), max_bytes=100, max_depth=3)

    def test_many_containers_within_the_limit_are_kept(self) -> None:
        """More containers than the limit, nested no deeper: kept, small or large."""
        assert _fast_loads(b"[[[1]],[]]", 3) == [[[1]], []]
        large = orjson.dumps([{"k": [i, {"v": "x" * 20}]} for i in range(100)])
        assert len(large) > _parse.SMALL
        assert _fast_loads(large, 4) == orjson.loads(large)
        assert _fast_loads(large, 3) is None
        few = orjson.dumps(["x" * 2000, [1]])
        assert _fast_loads(few, 2) == ["x" * 2000, [1]]

    @pytest.mark.parametrize(
        "raw",
        [
            b'[[["a\\\\"]],[],[]]',  # an escaped backslash, then the closing quote
            b'[[["\\"]"]],[],[]]',  # an escaped quote, then a bracket
            b'[[["]"]],[],[]]',
            b'[[["["]],[],[]]',
            b'[[["","]"]],[],[]]',
            b'[[[""],"]"],[]]',
        ],
    )
    def test_quotes_that_may_hide_a_bracket_leave_the_depth_to_orjson(
        self, raw: bytes
    ) -> None:
        """Brackets in strings, or quotes that may not end one: orjson tells."""
        assert not _parse._shallow(raw, 3)
        assert _fast_loads(raw, 3) is None  # a string at depth 3
        assert _fast_loads(raw, 4) == json.loads(raw)
        assert parse(raw, max_bytes=100, max_depth=3) == json.loads(raw)

    @given(json_values(), st.integers(min_value=1, max_value=8))
    def test_a_shallow_verdict_is_never_wrong(self, value: JSON, limit: int) -> None:
        """Whatever the document, a shallow verdict means it nests within the limit."""
        raw = orjson.dumps(value)
        if _parse._shallow(raw, limit):
            assert not json_problems(value, max_depth=limit)

    @pytest.mark.parametrize(
        "raw",
        [
            b"[18446744073709551616]",
            b"[-9223372036854775809]",
            b'[ "12345678901234567890"]',
            b"[1.23456789012345678901]",
            b"[9007199254740992]",
        ],
    )
    def test_long_numbers_are_left_to_the_exact_parser(self, raw: bytes) -> None:
        """Integers beyond 53 bits, and 19-digit runs, go to the exact parser."""
        assert _fast_loads(raw, 64) is None

    def test_orjsons_own_spelling_needs_no_digit_count(self) -> None:
        """A compact document orjson spells the same way keeps its long strings."""
        assert _fast_loads(b'["12345678901234567890"]', 64) == ["12345678901234567890"]

    @pytest.mark.usefixtures("parser")
    def test_null_document(self) -> None:
        """The document ``null`` is not mistaken for the fast path declining."""
        assert parse(b"null", max_bytes=10, max_depth=1) is None


class TestEncode:
    @given(json_values())
    def test_orjson_and_stdlib_agree(self, value: JSON) -> None:
        """Compact text is the same with and without orjson."""
        assert json.loads(_orjson_dumps(value)) == json.loads(_stdlib_dumps(value))
        assert json_equal(json.loads(ENCODE(value)), value)

    def test_compact_and_unescaped(self) -> None:
        """The encoding has no spaces and keeps non-ASCII text as is."""
        value: JSON = {"a": [1, "é"], "b": None}
        assert _orjson_dumps(value) == '{"a":[1,"é"],"b":null}'
        assert _stdlib_dumps(value) == '{"a":[1,"é"],"b":null}'
