"""Shared fixtures and hypothesis profiles."""

import asyncio
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from hypothesis import HealthCheck, settings
from interruption import _parse, schemas, wire
from interruption.runtime.store import MemoryStore, PostgresStore, SqliteStore, Store
from psycopg import sql

from tests.sessions import Clock


def pytest_configure(config: pytest.Config) -> None:
    """Register the suite's own marks (``--strict-markers`` refuses others)."""
    config.addinivalue_line(
        "markers", "session(**options): the options the `session` fixture opens with"
    )


settings.register_profile(
    "default",
    max_examples=100,
    deadline=None,
    # Generation speed is not behaviour: a loaded machine must not fail a law.
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "quick",  # `make check`: each law still runs, on fewer examples
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "ci",
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(name="parser", params=["orjson", "stdlib"])
def _parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test with orjson, then again as if it were not installed."""
    parser: str = request.param
    if parser == "stdlib":
        monkeypatch.setattr(_parse, "orjson", None)
        monkeypatch.setattr(wire, "ENCODE", _parse._stdlib_dumps)
        monkeypatch.setattr(schemas, "ENCODE", _parse._stdlib_dumps)
    return parser


@pytest.fixture(name="postgres_dsn", scope="session")
def _postgres_dsn() -> Iterator[str]:
    """A real PostgreSQL server on loopback for the whole run (tests/_postgres.py).

    Installed with apt-get if missing (as root); never skipped in CI. Locally,
    INTERRUPTION_SKIP_POSTGRES=1 skips the tests that need it.
    """
    if os.environ.get("INTERRUPTION_SKIP_POSTGRES") == "1" and not os.environ.get("CI"):
        pytest.skip("INTERRUPTION_SKIP_POSTGRES=1")
    from tests import _postgres  # noqa: PLC0415 - only runs that need it start it

    try:
        server = _postgres.start()
    except RuntimeError as error:
        pytest.fail(f"could not start PostgreSQL for the tests: {error}", pytrace=False)
    yield server.dsn
    server.stop()


def fresh_schema() -> str:
    """A PostgreSQL schema name no other test uses."""
    return f"t_{uuid.uuid4().hex[:12]}"


def drop_schema(dsn: str, schema: str) -> None:
    """Drop a test's PostgreSQL schema and everything in it."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema))
        )


@pytest.fixture(name="clock")
def _clock() -> Clock:
    """A clock at `tests.sessions.NOW` that the test moves by hand."""
    return Clock()


@pytest.fixture(name="runner")
def _runner() -> Iterator[asyncio.Runner]:
    """One event loop for a test and its stores' clean-up."""
    with asyncio.Runner() as runner:
        yield runner


@pytest.fixture(name="pg_schema")
def _pg_schema(postgres_dsn: str) -> Iterator[str]:
    """A PostgreSQL schema of one test's own, dropped afterwards."""
    schema = fresh_schema()
    yield schema
    drop_schema(postgres_dsn, schema)


@pytest.fixture(name="store", params=["memory", "sqlite", "postgres"])
def _store(
    request: pytest.FixtureRequest, runner: asyncio.Runner, tmp_path: Path
) -> Iterator[Store]:
    """Each store in turn, empty, closed afterwards."""
    store: Store
    if request.param == "memory":
        store = MemoryStore()
    elif request.param == "sqlite":
        store = SqliteStore(tmp_path / "store.db")
    else:
        dsn = request.getfixturevalue("postgres_dsn")
        store = PostgresStore(dsn, schema=request.getfixturevalue("pg_schema"))
    yield store
    runner.run(store.close())
