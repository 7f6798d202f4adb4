"""interruption.adapters._kept: the record Genkit and pydantic-ai keep in a Store."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st
from interruption import (
    JSON,
    DecodeError,
    MemoryStore,
    ProblemCode,
    ResumeRejected,
)
from interruption._json import STORED_DEPTH
from interruption.adapters import _kept


class TestKey:
    def test_each_adapter_keeps_under_its_own_keys(self) -> None:
        """One id under both adapters names two keys, each starting with its name."""
        assert _kept.key("genkit", "a") == "genkit:a"
        assert _kept.key("pydantic_ai", "a") == "pydantic_ai:a"

    def test_both_adapters_share_a_store_apart(self) -> None:
        """A Genkit turn and a pydantic-ai run with one id are kept side by side."""
        store = MemoryStore()

        async def go() -> tuple[tuple[str, bytes], tuple[str, bytes]]:
            await store.keep(_kept.key("genkit", "a"), b"turn", None)
            await store.keep(_kept.key("pydantic_ai", "a"), b"run", None)
            turn = await _kept.read_back(store, "genkit", "a", "Genkit turn")
            run = await _kept.read_back(store, "pydantic_ai", "a", "pydantic-ai run")
            return turn, run

        assert asyncio.run(go()) == (("a", b"turn"), ("a", b"run"))


class TestReadBack:
    def test_a_kept_record_is_read_back(self) -> None:
        """A kept id reads back as itself and its record."""
        store = MemoryStore()
        asyncio.run(store.keep(_kept.key("genkit", "a"), b"one", None))
        read = asyncio.run(_kept.read_back(store, "genkit", "a", "Genkit turn"))
        assert read == ("a", b"one")

    @pytest.mark.parametrize("key", ["nope", "", "n\x00ul", "x" * 3000, 7, None])
    def test_an_unknown_id_is_unknown_interrupt(self, key: object) -> None:
        """An id nothing is kept under, no store holds, or no id: unknown_interrupt."""
        store = MemoryStore()
        with pytest.raises(ResumeRejected) as refused:
            asyncio.run(_kept.read_back(store, "genkit", key, "Genkit turn"))
        assert refused.value.codes == (ProblemCode.UNKNOWN_INTERRUPT,)
        assert f"no paused Genkit turn has id {key!r}" in str(refused.value)


class TestRecord:
    def test_a_record_round_trips(self) -> None:
        """The schemas and the state read back as written."""
        schemas: dict[str, dict[str, JSON]] = {"ask_user": {"type": "string"}}
        record = _kept.encode(schemas, b'{"state": "\\n"}')
        assert _kept.decode_schemas(record) == (schemas, b'{"state": "\\n"}')

    @given(state=st.binary())
    def test_any_state_reads_back_whole(self, state: bytes) -> None:
        """Whatever bytes the framework's state is, newlines too, it reads back."""
        schemas: dict[str, dict[str, JSON]] = {"t": {"const": "\n"}}
        assert _kept.decode_schemas(_kept.encode(schemas, state)) == (schemas, state)

    @pytest.mark.parametrize(
        "head",
        [b"not json", b"[]", b'{"a": 1}', b"[" * (STORED_DEPTH + 1)],
        ids=["not-json", "not-an-object", "not-a-schema", "too-deep"],
    )
    def test_damaged_schemas_are_a_decode_error(self, head: bytes) -> None:
        """Schemas that are not an object of objects within the store's limits fail."""
        with pytest.raises(DecodeError):
            _kept.decode_schemas(head + b"\n{}")

    def test_schemas_at_the_store_depth_read_back(self) -> None:
        """Schemas as deep as the store's limit read back: the limit is the store's."""
        schema: dict[str, JSON] = {}
        for _ in range(STORED_DEPTH - 2):
            schema = {"x": schema}
        record = _kept.encode({"tool": schema}, b"{}")
        assert _kept.decode_schemas(record)[0] == {"tool": schema}
        with pytest.raises(DecodeError):
            _kept.decode_schemas(_kept.encode({"tool": {"x": schema}}, b"{}"))
