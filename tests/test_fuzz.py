"""The bad input corpus: whatever arrives, `loads` decodes it or says why.

The law, for every wire type in `interruption._schemas.WIRE_TYPES` and for
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
from datetime import UTC, datetime
from typing import AnyStr, Final

import pytest
from hypothesis import given
from hypothesis import strategies as st
from interruption import (
    JSON,
    Accepts,
    Confirm,
    Custom,
    DecodeError,
    Input,
    Interrupted,
    InterruptedTurn,
    Message,
    PendingInterrupt,
    Respond,
    Restart,
    Resume,
    Role,
    Text,
    ToolRequest,
    ToolResponse,
    dumps,
    loads,
    unstructure,
)
from interruption._schema import DATETIME_DOC
from interruption._schemas import WIRE_TYPES
from interruption.kinds import ApprovalPending, ScheduledPause
from interruption.resume import ExpiryAnswer
from interruption.wire import MAX_BYTES

from tests.strategies import (
    interrupteds,
    json_values,
    keys,
    kinds,
    non_empty_text,
    texts,
)

PAUSES: Final[type[list[Interrupted]]] = list[Interrupted]
"""A list of pauses, typed so that `loads` accepts it."""

TYPES: Final[tuple[type[object], ...]] = (*WIRE_TYPES.values(), PAUSES)
"""Every type a wire document is decoded into."""

BIG: Final = 2 * 10**7
"""A ``max_bytes`` above every document here."""

TEN_MB: Final = 10 * 1_048_576


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


# --- valid records of every wire type -----------------------------------------

MOMENTS: Final = st.datetimes(
    datetime(1, 1, 2),  # noqa: DTZ001 - hypothesis wants naive bounds
    datetime(9999, 12, 30),  # noqa: DTZ001 - timezones= makes the values aware
    timezones=st.just(UTC),
)


def _payloads() -> st.SearchStrategy[JSON]:
    return json_values(max_leaves=6)


def _schemas() -> st.SearchStrategy[dict[str, JSON] | None]:
    return st.none() | st.dictionaries(keys(), _payloads(), max_size=3)


def tool_requests() -> st.SearchStrategy[ToolRequest]:
    """Tool requests, with or without a ref."""
    return st.builds(
        ToolRequest, non_empty_text(), st.none() | non_empty_text(), _payloads()
    )


def tool_responses() -> st.SearchStrategy[ToolResponse]:
    """Tool responses."""
    return st.builds(ToolResponse, non_empty_text(), non_empty_text(), _payloads())


def messages() -> st.SearchStrategy[Message]:
    """Messages of any role and a few parts of every kind."""
    parts = st.one_of(st.builds(Text, texts()), tool_requests(), tool_responses())
    return st.builds(
        Message, st.sampled_from(Role), st.lists(parts, max_size=3).map(tuple)
    )


def pending_interrupts() -> st.SearchStrategy[PendingInterrupt]:
    """Pending interrupts, every optional field present or not."""
    return st.builds(
        PendingInterrupt,
        id=non_empty_text(),
        kind=kinds(),
        payload=_payloads(),
        tool=st.none() | tool_requests(),
        accepts=st.builds(Accepts, _schemas(), _schemas(), _schemas()),
        expires_at=st.none() | MOMENTS,
        on_expiry=st.none() | st.builds(ExpiryAnswer, _payloads()),
    )


def responds() -> st.SearchStrategy[Respond]:
    """Respond entries."""
    return st.builds(Respond, non_empty_text(), non_empty_text(), _payloads())


def restarts() -> st.SearchStrategy[Restart]:
    """Restart entries."""
    return st.builds(
        Restart, non_empty_text(), non_empty_text(), _payloads(), _payloads()
    )


def interrupted_turns() -> st.SearchStrategy[InterruptedTurn]:
    """Interrupted turns; small, but with every field and nesting level."""
    return st.builds(
        InterruptedTurn,
        session=non_empty_text(),
        turn_id=st.integers(0, 2**53 - 1),
        messages=st.lists(messages(), max_size=2).map(tuple),
        interrupts=st.lists(pending_interrupts(), max_size=2).map(tuple),
        completed=st.lists(tool_responses(), max_size=2).map(tuple),
        created_at=MOMENTS,
        expires_at=st.none() | MOMENTS,
        approved=st.lists(texts(), max_size=2).map(tuple),
    )


VALUES: Final[dict[type[object], st.SearchStrategy[object]]] = {
    ApprovalPending: st.builds(ApprovalPending, non_empty_text()),
    Confirm: st.builds(
        Confirm,
        non_empty_text(),
        non_empty_text(),
        st.lists(non_empty_text(), min_size=2, max_size=4, unique=True).map(tuple),
    ),
    Custom: st.just(Custom()),
    Input: st.builds(Input, non_empty_text(), non_empty_text(), st.none() | texts()),
    Interrupted: interrupteds(),
    InterruptedTurn: interrupted_turns(),
    Message: messages(),
    PendingInterrupt: pending_interrupts(),
    Respond: responds(),
    Restart: restarts(),
    Resume: st.builds(
        Resume,
        st.lists(responds(), max_size=2).map(tuple),
        st.lists(restarts(), max_size=2).map(tuple),
    ),
    ScheduledPause: kinds().filter(lambda kind: isinstance(kind, ScheduledPause)),
    ToolRequest: tool_requests(),
    ToolResponse: tool_responses(),
    PAUSES: st.lists(interrupteds(), max_size=3),
}
"""A strategy of valid values for each type in `TYPES`."""


def test_every_wire_type_has_a_strategy() -> None:
    """The corpus covers every published wire type and a list of pauses."""
    assert set(VALUES) == set(TYPES)


@st.composite
def valid(draw: st.DrawFn) -> tuple[type[object], object]:
    """A wire type and a valid value of it."""
    cls = draw(st.sampled_from(TYPES))
    return cls, draw(VALUES[cls])


# --- hostile input ------------------------------------------------------------


def hostile_json() -> st.SearchStrategy[object]:
    """Python values `json.dumps` writes: NaN, huge integers, lone surrogates."""
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.sampled_from([10**400, -(10**400), 2**53, -(2**53), 2**64, 2**63 - 1]),
        st.floats(),
        st.text(),  # lone surrogates included
        st.sampled_from(["custom", "approval_pending", "type", "kind", "payload"]),
    )
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(st.one_of(keys(), st.text()), inner, max_size=4),
        ),
        max_leaves=16,
    )


def _encode(text: str, *, as_bytes: bool) -> str | bytes:
    """*text* as given, or as UTF-8 bytes (lone surrogates as CESU-8 bytes)."""
    return text.encode("utf-8", "surrogatepass") if as_bytes else text


MUTATIONS: Final = ("delete", "insert", "replace", "duplicate", "truncate")
TOKENS: Final = list('{}[]":,\\ 0-e.tfn')
RAW_TOKENS: Final = [bytes([byte]) for byte in b'{}[]":,\\ 0-e.tfn\xff\xc3']


def _mutate(data: AnyStr, noise: AnyStr, how: str, at: int, end: int) -> AnyStr:
    if how == "delete":
        return data[:at] + data[end:]
    if how == "insert":
        return data[:at] + noise + data[at:]
    if how == "replace":
        return data[:at] + noise + data[end:]
    if how == "duplicate":
        return data[:end] + data[at:end] + data[end:]
    return data[:at]  # truncate


@st.composite
def mutated(draw: st.DrawFn, document: str) -> str | bytes:
    """*document* changed by one to three byte or character mutations."""
    data = _encode(document, as_bytes=draw(st.booleans()))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(data)))
        end = draw(st.integers(at, min(len(data), at + 8)))
        how = draw(st.sampled_from(MUTATIONS))
        if isinstance(data, str):
            text = draw(st.text(min_size=1, max_size=4) | st.sampled_from(TOKENS))
            data = _mutate(data, text, how, at, end)
        else:
            raw = draw(st.binary(min_size=1, max_size=4) | st.sampled_from(RAW_TOKENS))
            data = _mutate(data, raw, how, at, end)
    return data


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
        _check_all(_encode(text, as_bytes=as_bytes))

    @pytest.mark.usefixtures("parser")
    @given(st.data(), valid())
    def test_mutated_valid_documents(
        self, data: st.DataObject, case: tuple[type[object], object]
    ) -> None:
        """A valid document, mutated, still decodes or raises a DecodeError."""
        cls, value = case
        broken = data.draw(mutated(dumps(value)))
        _check(broken, cls)

    @given(st.data(), valid())
    def test_mutated_documents_under_every_type(
        self, data: st.DataObject, case: tuple[type[object], object]
    ) -> None:
        """A mutated document of one type, read as any other, obeys the law."""
        _, value = case
        _check_all(data.draw(mutated(dumps(value))))


class TestValidRoundTrip:
    @pytest.mark.usefixtures("parser")
    @given(valid())
    def test_round_trip(self, case: tuple[type[object], object]) -> None:
        """A valid value's document decodes to an equal value, of its type."""
        cls, value = case
        document = dumps(value)
        assert _check(document, cls)
        assert loads(document, cls) == value
        assert loads(document.encode(), cls) == value

    @given(valid())
    def test_round_trip_through_the_stdlib_encoder(
        self, case: tuple[type[object], object]
    ) -> None:
        """`json.dumps` of the wire form, escaped to ASCII, decodes the same."""
        cls, value = case
        assert loads(json.dumps(unstructure(value)), cls) == value


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
