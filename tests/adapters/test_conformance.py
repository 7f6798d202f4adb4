"""One table of scenarios, run through every integration (`harness_*.py`)."""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Callable
from pathlib import Path

import pytest
from interruption.testing.conformance import SCENARIOS, Harness, Scenario

Factory = Callable[[Path], Harness]

ROWS: dict[str, Factory] = {
    module.stem.removeprefix("harness_"): importlib.import_module(
        f"tests.adapters.{module.stem}"
    ).harness
    for module in sorted(Path(__file__).parent.glob("harness_*.py"))
}


def test_the_reference_row_is_there() -> None:
    """The core Session is a row, so the table is checked against it."""
    assert "session" in ROWS


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__)
@pytest.mark.parametrize("row", sorted(ROWS))
def test_conformance(row: str, scenario: Scenario, tmp_path: Path) -> None:
    """Every integration passes every scenario of the table."""
    asyncio.run(scenario(ROWS[row](tmp_path)))
