"""Shared fixtures and hypothesis profiles."""

import os

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
