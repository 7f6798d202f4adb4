"""interruption.adapters._keeper: what the Genkit and pydantic-ai keepers share."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from interruption import JSON, DecodeError, InvalidArgument, ProblemCode, ResumeRejected
from interruption._json import STORED_DEPTH
from interruption.adapters import _keeper, genkit, pydantic_ai

SQLITE_KEEPERS: list[type[_keeper.SqliteKeeper]] = [
    genkit.SqliteKeeper,
    pydantic_ai.SqliteKeeper,
]
KEEPERS: list[Callable[[], _keeper.Keeper]] = [
    _keeper.MemoryKeeper,
    *[lambda kind=kind: kind(":memory:") for kind in SQLITE_KEEPERS],
]


class TestKeeper:
    def test_the_adapters_export_the_same_keeper(self) -> None:
        """Both adapters export this module's Keeper and MemoryKeeper."""
        assert genkit.Keeper is pydantic_ai.Keeper is _keeper.Keeper
        assert genkit.MemoryKeeper is pydantic_ai.MemoryKeeper is _keeper.MemoryKeeper

    @pytest.mark.parametrize("make", KEEPERS)
    def test_keepers_are_keepers(self, make: Callable[[], _keeper.Keeper]) -> None:
        """Every keeper satisfies the Keeper protocol."""
        assert isinstance(make(), _keeper.Keeper)

    @pytest.mark.parametrize("make", KEEPERS)
    def test_a_record_is_kept_once(self, make: Callable[[], _keeper.Keeper]) -> None:
        """A record reads back unchanged; a second keep is refused, the first stays."""
        keeper = make()
        asyncio.run(keeper.keep("a", b"one"))
        with pytest.raises(ValueError, match="already kept under 'a'"):
            asyncio.run(keeper.keep("a", b"two"))
        assert asyncio.run(keeper.load("a")) == b"one"
        assert asyncio.run(keeper.load("b")) is None

    @pytest.mark.parametrize("make", KEEPERS)
    def test_a_second_keep_is_an_invalid_argument(
        self, make: Callable[[], _keeper.Keeper]
    ) -> None:
        """A key kept already is refused with the library's InvalidArgument."""
        keeper = make()
        asyncio.run(keeper.keep("a", b"one"))
        with pytest.raises(InvalidArgument) as caught:
            asyncio.run(keeper.keep("a", b"two"))
        assert (caught.value.code, caught.value.where) == (
            "invalid_argument",
            "keep: key",
        )


class TestSqliteKeeper:
    @pytest.mark.parametrize("kind", SQLITE_KEEPERS)
    def test_a_file_is_shared(
        self, kind: type[_keeper.SqliteKeeper], tmp_path: Path
    ) -> None:
        """A second keeper on the same file reads what the first kept."""
        first = kind(tmp_path / "kept.db")
        asyncio.run(first.keep("a", b"one"))
        first.close()
        assert asyncio.run(kind(tmp_path / "kept.db").load("a")) == b"one"

    def test_each_adapter_keeps_its_own_table(self, tmp_path: Path) -> None:
        """The adapters' tables keep their names, so one file holds both apart."""
        turns = genkit.SqliteKeeper(tmp_path / "kept.db")
        runs = pydantic_ai.SqliteKeeper(tmp_path / "kept.db")
        asyncio.run(turns.keep("a", b"turn"))
        asyncio.run(runs.keep("a", b"run"))
        assert asyncio.run(turns.load("a")) == b"turn"
        assert asyncio.run(runs.load("a")) == b"run"
        with sqlite3.connect(tmp_path / "kept.db") as db:
            columns = {
                table: [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
                for (table,) in db.execute("SELECT name FROM sqlite_master")
                if table.startswith("interruption_")
            }
        assert columns == {
            "interruption_genkit_turns": ["turn_id", "record"],
            "interruption_pydantic_ai_runs": ["run_id", "record"],
        }


class TestReadBack:
    def test_a_kept_record_is_read_back(self) -> None:
        """A kept id reads back as itself and its record."""
        keeper = _keeper.MemoryKeeper()
        asyncio.run(keeper.keep("a", b"one"))
        read = asyncio.run(_keeper.read_back(keeper, "a", "Genkit turn"))
        assert read == ("a", b"one")

    @pytest.mark.parametrize("key", ["nope", "", 7, None])
    def test_an_unknown_id_is_unknown_interrupt(self, key: object) -> None:
        """An id nothing is kept under, or no id at all, is unknown_interrupt."""
        keeper = _keeper.MemoryKeeper()
        with pytest.raises(ResumeRejected) as refused:
            asyncio.run(_keeper.read_back(keeper, key, "Genkit turn"))
        assert refused.value.codes == (ProblemCode.UNKNOWN_INTERRUPT,)
        assert f"no paused Genkit turn has id {key!r}" in str(refused.value)


class TestRecord:
    def test_a_record_round_trips(self) -> None:
        """The schemas and the state read back as written."""
        schemas: dict[str, dict[str, JSON]] = {"ask_user": {"type": "string"}}
        record = _keeper.encode(schemas, b'{"state": "\\n"}')
        assert _keeper.decode_schemas(record) == (schemas, b'{"state": "\\n"}')

    @pytest.mark.parametrize(
        "head",
        [b"not json", b"[]", b'{"a": 1}', b"[" * (STORED_DEPTH + 1)],
        ids=["not-json", "not-an-object", "not-a-schema", "too-deep"],
    )
    def test_damaged_schemas_are_a_decode_error(self, head: bytes) -> None:
        """Schemas that are not an object of objects within the store's limits fail."""
        with pytest.raises(DecodeError):
            _keeper.decode_schemas(head + b"\n{}")

    def test_schemas_at_the_store_depth_read_back(self) -> None:
        """Schemas as deep as the store's limit read back: the limit is the store's."""
        schema: dict[str, JSON] = {}
        for _ in range(STORED_DEPTH - 2):
            schema = {"x": schema}
        record = _keeper.encode({"tool": schema}, b"{}")
        assert _keeper.decode_schemas(record)[0] == {"tool": schema}
        with pytest.raises(DecodeError):
            _keeper.decode_schemas(_keeper.encode({"tool": {"x": schema}}, b"{}"))
