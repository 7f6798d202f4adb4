"""Shared fixtures and hypothesis profiles."""

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings
from interruption import _parse, wire

settings.register_profile("default", max_examples=100, deadline=None)
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
