"""One table of scenarios, run through every integration (`harness_*.py`)."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

import attrs
import pytest
from interruption import JSON, AuditEvent, PendingInterrupt, Resume, ResumeRejected
from interruption.testing import conformance
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


Flaw = Literal["accepts forgeries", "runs twice", "hides results"]
"""How `Flawed` breaks the reference row: a guarantee an integration can lose."""


@attrs.frozen
class Flawed:
    """The reference row (the core `Session`) with one guarantee broken.

    ``"accepts forgeries"``: a refused resume reports success. ``"runs
    twice"``: every transfer counts as two runs. ``"hides results"``: the
    model sees nothing after the pause.
    """

    inner: Harness
    flaw: Flaw

    async def pause(self, plan: Plan) -> Sequence[PendingInterrupt]:
        """Pause as the reference row does."""
        return await self.inner.pause(plan)

    async def resume(self, resume: Resume) -> None:
        """Resume, hiding a refusal if the flaw is to accept forgeries."""
        if self.flaw != "accepts forgeries":
            await self.inner.resume(resume)
            return
        with contextlib.suppress(ResumeRejected):
            await self.inner.resume(resume)

    def transfers(self) -> int:
        """The transfers, each counted twice if the flaw is to run twice."""
        return self.inner.transfers() * (2 if self.flaw == "runs twice" else 1)

    def seen(self) -> Sequence[JSON]:
        """What the model saw, or nothing if the flaw is to hide results."""
        return () if self.flaw == "hides results" else self.inner.seen()

    async def audit(self) -> Sequence[AuditEvent]:
        """The reference row's audit trail."""
        return await self.inner.audit()

    def during_transfer(self, hook: Callable[[], None]) -> None:
        """Hook the next transfer, as the reference row does."""
        self.inner.during_transfer(hook)

    async def reopen(self) -> Harness:
        """A new process, with the same flaw."""
        return Flawed(await self.inner.reopen(), self.flaw)


CAUGHT_BY: dict[Scenario, Flaw] = {
    conformance.approve_runs_once: "runs twice",
    conformance.reject_tells_the_model: "hides results",
    conformance.an_answer_reaches_the_run: "hides results",
    conformance.an_unknown_id_is_refused: "accepts forgeries",
    conformance.changed_arguments_are_refused: "accepts forgeries",
    conformance.a_result_for_an_approval_is_refused: "accepts forgeries",
    conformance.an_answer_outside_its_schema_is_refused: "accepts forgeries",
    conformance.a_replay_is_consumed: "accepts forgeries",
    conformance.concurrent_resumes_run_once: "accepts forgeries",
    conformance.a_second_answer_while_the_first_runs_is_consumed: "runs twice",
    conformance.a_resume_after_a_restart_works: "accepts forgeries",
    conformance.attempts_are_audited: "runs twice",
}
"""For each scenario, a flaw of the reference row it must catch."""


def test_every_scenario_has_a_flaw_it_catches() -> None:
    """The table below covers every scenario, so none goes untested."""
    assert set(CAUGHT_BY) == set(SCENARIOS)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__)
def test_a_scenario_fails_an_integration_with_its_flaw(
    scenario: Scenario, tmp_path: Path
) -> None:
    """The reference row with one guarantee broken fails the scenario about it."""
    flawed = Flawed(ROWS["session"](tmp_path), CAUGHT_BY[scenario])
    with pytest.raises(AssertionError):
        asyncio.run(scenario(flawed))


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
