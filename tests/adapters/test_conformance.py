"""One table of scenarios, run through every integration (`harness_*.py`)."""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Callable
from pathlib import Path

import pytest
from interruption.testing.conformance import (
    SCENARIOS,
    Harness,
    Plan,
    Scenario,
    plan_of,
)

Factory = Callable[[Path], Harness]

MODULES = {
    module.stem.removeprefix("harness_"): importlib.import_module(
        f"tests.adapters.{module.stem}"
    )
    for module in sorted(Path(__file__).parent.glob("harness_*.py"))
}
"""Each row's module: ``harness(where) -> Harness``, and optionally
``PLANS`` (the plans it supports; both by default) with ``WHY`` (the reason
the others are not applicable)."""

ROWS: dict[str, Factory] = {name: module.harness for name, module in MODULES.items()}


def test_the_reference_row_is_there() -> None:
    """The core Session is a row, so the table is checked against it."""
    assert "session" in ROWS


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__)
@pytest.mark.parametrize("row", sorted(ROWS))
def test_conformance(row: str, scenario: Scenario, tmp_path: Path) -> None:
    """Every integration passes every scenario of the table it can express."""
    plans: frozenset[Plan] = getattr(
        MODULES[row], "PLANS", frozenset({"transfer", "question"})
    )
    if plan_of(scenario) not in plans:
        pytest.skip(f"{row}: {getattr(MODULES[row], 'WHY', 'not applicable')}")
    asyncio.run(scenario(ROWS[row](tmp_path)))
