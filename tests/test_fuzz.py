"""The bad input corpus: whatever arrives, `loads` decodes it or says why.

The law, for every wire type in `interruption._published_schemas.WIRE_TYPES` and for
``list[Interrupted]``: `loads` returns an instance of the type or raises
`DecodeError` (a `ValueError`) whose every problem has a path starting at
``$``, an ``expected`` and a ``got``, and never one made by the safety net
for a hook's own failure (``expected a valid value``). No other exception
escapes, whatever the bytes, text, JSON value, nesting, size or number.

The few single documents that cost tens of milliseconds each (10 MB strings,
10**5 levels of nesting) are marked ``slow``.
"""

from __future__ import annotations

import json
import typing
from typing import Final

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from interruption import (
    DecodeError,
    Interrupted,
    InterruptedTurn,
    Message,
    PendingTurn,
    Restart,
    Resume,
    ResumeRejected,
    Role,
    ToolRequest,
    dumps,
    loads,
    structure,
    unstructure,
)
from interruption._json import DOCUMENT_DEPTH, JSON, MAX_DEPTH, STORED_DEPTH
from interruption._published_schemas import WIRE_TYPES
from interruption._record_schema import DATETIME_DOC
from interruption.runtime.store._base import read_stored
from interruption.testing.store_contract import turn
from interruption.wire import MAX_BYTES

from tests.strategies import (
    PAUSES,
    RECORDS,
    deep_records,
    encoded,
    hostile_json,
    mutated_documents,
    records,
)

TYPES: Final[tuple[type[object], ...]] = (*WIRE_TYPES.values(), PAUSES)
"""Every type a wire document is decoded into."""

BIG: Final = 2 * 10**7
"""A ``max_bytes`` above every document here."""

TEN_MB: Final = 10 * 1_048_576

LIMITS: Final = (DOCUMENT_DEPTH, STORED_DEPTH, DOCUMENT_DEPTH + 10)
"""Document limits: the defaults (the wire's, the stores') and a larger one."""

_MARK: Final = "deep-value-here"
"""A string value, replaced in a document by one nested too deep."""

_TURN: Final = turn(value=_MARK)
"""A turn whose first pause asks *_MARK*, its payload as well."""


def _check(data: str | bytes, cls: type[object], *, max_bytes: int = MAX_BYTES) -> bool:
    """Apply the law to one document and type; tell whether it decoded."""
    try:
        decoded = loads(data, cls, max_bytes=max_bytes)
    except DecodeError as caught:
        error = caught
    else:
        origin = typing.get_origin(cls)
        if origin is None:
            assert type(decoded) is cls
        else:
            assert type(decoded) is origin
            (item,) = typing.get_args(cls)
            assert all(type(entry) is item for entry in decoded)  # type: ignore[attr-defined]
        return True
    assert type(error) is DecodeError
    assert isinstance(error, ValueError)
    assert error.problems
    assert error.path.startswith("$")
    assert error.expected
    assert error.got
    for problem in error.problems:
        assert problem.path.startswith("$"), problem
        assert problem.expected, problem
        assert problem.got, problem
        assert problem.expected != "a valid value", problem  # the safety net
    return False


def _check_all(data: str | bytes, *, max_bytes: int = MAX_BYTES) -> None:
    for cls in TYPES:
        _check(data, cls, max_bytes=max_bytes)


def _same(decoded: object, value: object) -> bool:
    """Equal; for a rejection (an exception, equal only to itself): same problems."""
    if isinstance(value, ResumeRejected | DecodeError):
        return type(decoded) is type(value) and decoded.problems == value.problems
    return decoded == value


def test_every_wire_type_has_a_strategy() -> None:
    """The corpus covers every published wire type and a list of pauses."""
    assert set(RECORDS) == set(TYPES)


class TestLoadsLaw:
    @given(st.binary(max_size=256))
    def test_random_bytes(self, data: bytes) -> None:
        """Any bytes decode into every type or raise a DecodeError."""
        _check_all(data)

    @given(st.text(max_size=128))
    def test_random_text(self, data: str) -> None:
        """Any text, lone surrogates included, decodes or raises a DecodeError."""
        _check_all(data)

    @given(hostile_json(), st.booleans(), st.booleans())
    def test_random_json(self, value: object, ascii_only: bool, as_bytes: bool) -> None:
        """Any document `json.dumps` writes decodes or raises a DecodeError."""
        text = json.dumps(value, ensure_ascii=ascii_only)
        _check_all(encoded(text, as_bytes=as_bytes))

    @pytest.mark.usefixtures("parser")
    @given(st.data(), records())
    def test_mutated_valid_documents(
        self, data: st.DataObject, case: tuple[type[object], object]
    ) -> None:
        """A valid document, mutated, still decodes or raises a DecodeError."""
        cls, value = case
        broken = data.draw(mutated_documents(dumps(value)))
        _check(broken, cls)

    @given(st.data(), records())
    def test_mutated_documents_under_every_type(
        self, data: st.DataObject, case: tuple[type[object], object]
    ) -> None:
        """A mutated document of one type, read as any other, obeys the law."""
        _, value = case
        _check_all(data.draw(mutated_documents(dumps(value))))


class TestValidRoundTrip:
    @pytest.mark.usefixtures("parser")
    @given(records())
    def test_round_trip(self, case: tuple[type[object], object]) -> None:
        """A valid value's document decodes to an equal value, of its type."""
        cls, value = case
        document = dumps(value)
        assert _check(document, cls)
        assert _same(loads(document, cls), value)
        assert _same(loads(document.encode(), cls), value)

    @given(records())
    def test_round_trip_through_the_stdlib_encoder(
        self, case: tuple[type[object], object]
    ) -> None:
        """`json.dumps` of the wire form, escaped to ASCII, decodes the same."""
        cls, value = case
        assert _same(loads(json.dumps(unstructure(value)), cls), value)


class TestDeepValues:
    """Whatever was accepted reads back: one depth limit on the way in and out."""

    @pytest.mark.usefixtures("parser")
    @given(deep_records())
    def test_deep_values_round_trip_with_default_limits(
        self, case: tuple[type[object], object]
    ) -> None:
        """A record whose JSON values nest up to MAX_DEPTH decodes back, as is."""
        cls, value = case
        document = dumps(value)
        assert _same(loads(document, cls), value)
        assert _same(structure(unstructure(value), cls), value)
        assert _same(read_stored(document, cls), value)

    @pytest.mark.usefixtures("parser")
    @pytest.mark.parametrize(
        ("cls", "record", "path"),
        [
            (
                Resume,
                Resume(restart=(Restart("ask", "r1", input=_MARK),)),
                "$.restart[0].input",
            ),
            (
                InterruptedTurn,
                attrs.evolve(
                    _TURN,
                    messages=(Message(Role.MODEL, (ToolRequest("ask", "r1", _MARK),)),),
                ),
                "$.messages[0].parts[0].input",
            ),
            (PendingTurn, PendingTurn.of(_TURN), "$.interrupts[0].payload"),
        ],
        ids=["resume", "turn", "pending-turn"],
    )
    def test_a_value_one_level_too_deep_is_refused_at_its_path(
        self, cls: type[object], record: object, path: str
    ) -> None:
        """A JSON value at MAX_DEPTH + 1 inside a record is a DecodeError there.

        The record's own check words it, or, at the deepest field, the
        document's limit, which it then reaches at the same spot.
        """
        deep: JSON = 0
        for _ in range(MAX_DEPTH + 1):
            deep = [deep]
        document = dumps(record).replace(json.dumps(_MARK), json.dumps(deep), 1)
        limits = {
            f"at most {limit} levels of nesting" for limit in (MAX_DEPTH, *LIMITS)
        }
        for max_depth in LIMITS:
            with pytest.raises(DecodeError) as caught:
                loads(document, cls, max_depth=max_depth)
            (problem,) = caught.value.problems
            assert problem.path == path + "[0]" * MAX_DEPTH
            assert problem.expected in limits


def _nested(levels: int, opener: str, closer: str, inner: str = "1") -> str:
    return opener * levels + inner + closer * levels


DEEP: Final = 10**5

HUGE_NUMBERS: Final = (
    str(10**400),
    str(-(10**400)),
    str(2**53),
    str(-(2**53)),
    str(2**64),
    "1e400",
    "-1e400",
    "1" + "0" * 5000 + ".0",
)

WRONG_LITERALS: Final = (
    "NaN",
    "Infinity",
    "-Infinity",
    "nan",
    "inf",
    '"\\ud800"',
    '"\\udc00"',
    '"\\ud800\\u0041"',
    '"\\udbff\\udbff"',
)

PAUSE: Final = '{"kind":{"type":"custom"},"payload":%s}'
TURN: Final = (
    '{"session":"s","turn_id":%s,"messages":[],"interrupts":[],'
    '"completed":[],"created_at":"2024-01-01T00:00:00Z"}'
)


@pytest.mark.usefixtures("parser")
class TestHostileDocuments:
    @pytest.mark.slow
    @pytest.mark.parametrize(
        ("opener", "closer", "inner"),
        [("[", "]", "1"), ('{"a":', "}", "1"), ("[", "", ""), ('{"a":', "", "")],
    )
    def test_deep_nesting(self, opener: str, closer: str, inner: str) -> None:
        """10**5 levels of [ or {, closed or not, are a DecodeError, not a crash."""
        document = _nested(DEEP, opener, closer, inner)
        for data in (document, document.encode()):
            for cls in TYPES:
                assert not _check(data, cls)
                assert not _check(PAUSE % document, cls)

    @pytest.mark.slow
    @pytest.mark.parametrize("char", ["x", "\\u00e9"])
    def test_ten_megabyte_string_in_a_pause(self, char: str) -> None:
        """A 10 MB payload string is refused by default and decoded when allowed."""
        bare = '"' + char * (TEN_MB // len(char)) + '"'
        inside = PAUSE % bare
        for data in (inside, inside.encode()):
            assert not _check(data, Interrupted)
            assert _check(data, Interrupted, max_bytes=BIG)
        pause = loads(inside, Interrupted, max_bytes=BIG)
        assert pause.payload == json.loads(bare)

    @pytest.mark.parametrize("number", HUGE_NUMBERS)
    def test_huge_numbers(self, number: str) -> None:
        """Numbers beyond I-JSON, bare or in any field, are a DecodeError."""
        for document in (number, PAUSE % number, TURN % number, f"[{number}]"):
            for cls in TYPES:
                assert not _check(document, cls)

    @pytest.mark.parametrize("literal", WRONG_LITERALS)
    def test_nan_infinity_and_lone_surrogates(self, literal: str) -> None:
        """NaN, Infinity and escaped lone surrogates are never decoded."""
        for document in (literal, PAUSE % literal, f'{{"type":{literal}}}'):
            for cls in TYPES:
                assert not _check(document, cls)

    @pytest.mark.parametrize(
        "document",
        [
            '"\ud800"',
            PAUSE % '"a\udfffb"',
            b'"\xed\xa0\x80"',
            (PAUSE % '"\\ud800"').encode(),
        ],
    )
    def test_lone_surrogates_in_str_and_bytes(self, document: str | bytes) -> None:
        """A lone surrogate in the text itself, or CESU-8 bytes, is refused."""
        for cls in TYPES:
            assert not _check(document, cls)

    @pytest.mark.parametrize(
        "document",
        [
            '{"a":1,"a":2}',
            '{"type":"custom","type":"custom"}',
            '{"type":"custom","\\u0074ype":"custom"}',
            '{"kind":{"type":"custom"},"kind":{"type":"custom"},"payload":null}',
            PAUSE % '{"x":1,"x":1}',
            "[" + PAUSE % '{"a:":1,"a\\u003a":2}' + "]",
        ],
    )
    def test_duplicate_keys(self, document: str) -> None:
        """An object with a key twice is refused, however the key is spelled."""
        for cls in TYPES:
            assert not _check(document, cls)

    @pytest.mark.slow
    def test_large_documents_decode_when_allowed(self) -> None:
        """A long list of pauses decodes whole under a raised ``max_bytes``."""
        document = "[" + ",".join([PAUSE % '"é"'] * 30_000) + "]"
        assert len(document) > MAX_BYTES
        assert not _check(document, PAUSES)
        assert _check(document, PAUSES, max_bytes=BIG)


@pytest.mark.slow
def test_ten_megabyte_string_as_any_type() -> None:
    """A bare 10 MB string is refused by every type, at the default and above."""
    bare = '"' + "x" * TEN_MB + '"'
    for cls in TYPES:
        assert not _check(bare, cls)
        assert not _check(bare, cls, max_bytes=BIG)


class TestRegressions:
    @pytest.mark.usefixtures("parser")
    @pytest.mark.parametrize(
        "moment", ["0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-05:00"]
    )
    def test_date_times_beyond_the_utc_range(self, moment: str) -> None:
        """A date-time that leaves datetime's range in UTC is a date-time problem.

        It used to escape the hook as OverflowError and reach the caller only
        through the safety net, worded ``expected a valid value``.
        """
        document = TURN % "1"
        document = document.replace("2024-01-01T00:00:00Z", moment)
        with pytest.raises(DecodeError) as caught:
            loads(document, InterruptedTurn)
        assert (caught.value.path, caught.value.expected) == (
            "$.created_at",
            DATETIME_DOC,
        )

    @pytest.mark.usefixtures("parser")
    @pytest.mark.parametrize("tag", ["[]", "{}", '["custom"]', '{"type":"text"}'])
    def test_unhashable_tags(self, tag: str) -> None:
        """An array or object as a tag obeys the law under every type.

        The tagged-union lookup used it as a dict key and raised TypeError,
        which reached the caller only through the safety net, worded
        ``expected a valid value``.
        """
        kind = '{"type":TAG}'
        message = '{"role":"user","parts":[{"type":TAG}]}'
        pause = '{"kind":KIND,"payload":null}'.replace("KIND", kind)
        turn = (TURN % "1").replace('"messages":[]', f'"messages":[{message}]')
        for document in (kind, pause, f"[{pause}]", message, turn):
            _check_all(document.replace("TAG", tag))

    @pytest.mark.usefixtures("parser")
    @pytest.mark.parametrize(
        "number", ["-9223372036854775809", "-99999999999999999999"]
    )
    def test_integers_below_the_64_bit_minimum(self, number: str) -> None:
        """An integer below -2**63 is refused as out of range on both paths.

        orjson read it as a float, so the fast path accepted it as a payload
        (and called it a float elsewhere) where the standard library refused it.
        """
        for document, cls, path in (
            (PAUSE % number, Interrupted, "$.payload"),
            (TURN % number, InterruptedTurn, "$.turn_id"),
        ):
            assert not _check(document, cls)
            with pytest.raises(DecodeError) as caught:
                loads(document, cls)
            assert (caught.value.path, caught.value.got) == (path, number)
