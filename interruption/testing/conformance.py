"""The conformance scenarios: one table every integration must pass.

An integration (an adapter of this library, or a framework's own test
suite) implements `Harness` once, and runs `SCENARIOS` against it: approve,
reject with a reason, answer a question, four forgeries, a replay, two
concurrent resumes, a second answer while the first one's continuation
runs, a resume after a restart, and the audit trail of the attempts.
`Session` passes them as the reference. Each scenario is a coroutine
function taking a factory of fresh harnesses and raising `AssertionError`
when the integration breaks a guarantee, so any test runner can drive it::

    @pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__)
    def test_conformance(scenario: Scenario) -> None:
        asyncio.run(scenario(MyHarness))
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, Final, Literal, Protocol, TypeAlias

from interruption._json import JSON
from interruption.audit import AuditEvent
from interruption.errors import ProblemCode, ResumeRejected
from interruption.kinds import ApprovalPending
from interruption.resume import PendingInterrupt, Respond, Restart, Resume

__all__ = [
    "ANSWER_SCHEMA",
    "QUESTION",
    "REASON",
    "SCENARIOS",
    "TRANSFER",
    "Harness",
    "Plan",
    "Scenario",
    "plan_of",
]

Plan: TypeAlias = Literal["transfer", "question"]
"""What the scripted model asks for first.

``"transfer"``: one call of ``transfer_money`` with `TRANSFER`, which needs
a human's approval. ``"question"``: one call of ``ask_user`` with
``{"question": QUESTION}``, whose answer must fit `ANSWER_SCHEMA`.
"""

TRANSFER: Final[dict[str, JSON]] = {"to": "ACME", "amount": 125000}
"""The arguments of the transfer the model asks for."""

QUESTION: Final = "Pay INV-7 today?"
"""The question the model asks."""

ANSWER_SCHEMA: Final[dict[str, JSON]] = {"enum": ["Yes", "No"]}
"""What an answer to `QUESTION` must fit."""

REASON: Final = "wrong account"
"""The reason a rejection gives; the model must see it."""


class Harness(Protocol):
    """One integration, wired for the scenarios; one instance is one process.

    A harness holds no state of its own between processes: what survives a
    restart lives where the integration keeps it (a store, a checkpointer,
    a sealed token), and `reopen` builds new objects over it.
    """

    async def pause(self, plan: Plan) -> Sequence[PendingInterrupt]:
        """Start a fresh conversation that follows *plan*; run until it pauses.

        Returns:
            What is pending, as the integration shows it to a client.
        """

    async def resume(self, resume: Resume) -> None:
        """Answer through the integration's own resume channel; run to the end.

        Raises:
            ResumeRejected: with the core's problem codes, when refused;
                nothing may have run then.
        """

    def transfers(self) -> int:
        """How many times ``transfer_money`` ran, in every process so far."""

    def seen(self) -> Sequence[JSON]:
        """Every tool result the model was shown after the pause, in order."""

    async def audit(self) -> Sequence[AuditEvent]:
        """The audit trail the integration's store keeps of the conversation."""

    def during_transfer(self, hook: Callable[[], None]) -> None:
        """Call *hook* inside the next ``transfer_money`` run, before its effect.

        The hook blocks the run while it works: what it does happens while
        the first answer's continuation is still running.
        """

    async def reopen(self) -> Harness:
        """The same conversation in a fresh process (new objects, same state)."""


Scenario: TypeAlias = Callable[[Harness], Coroutine[Any, Any, None]]
"""One row of the table: takes a harness fresh from its factory."""


def _approval(pending: Sequence[PendingInterrupt]) -> PendingInterrupt:
    (only,) = pending
    assert isinstance(only.kind, ApprovalPending), f"not an approval: {only.kind}"
    assert only.accepts.respond is None, "an approval must take no client result"
    return only


async def _refused(harness: Harness, resume: Resume) -> tuple[ProblemCode, ...]:
    try:
        await harness.resume(resume)
    except ResumeRejected as rejected:
        return rejected.codes
    msg = f"accepted what must be refused: {resume}"
    raise AssertionError(msg)


def _mentions(seen: Sequence[JSON], text: str) -> bool:
    return any(text in str(value) for value in seen)


async def approve_runs_once(harness: Harness) -> None:
    """Approving a paused transfer runs it exactly once."""
    pending = _approval(await harness.pause("transfer"))
    await harness.resume(Resume(restart=[pending.approve()]))
    assert harness.transfers() == 1, f"ran {harness.transfers()} times"


async def reject_tells_the_model(harness: Harness) -> None:
    """A rejection never runs the tool, and the model sees its reason."""
    pending = _approval(await harness.pause("transfer"))
    await harness.resume(Resume(restart=[pending.reject(REASON)]))
    assert harness.transfers() == 0
    assert _mentions(harness.seen(), REASON), f"the model saw {harness.seen()}"


async def an_answer_reaches_the_run(harness: Harness) -> None:
    """A valid answer to a question is what the model sees."""
    (pending,) = await harness.pause("question")
    await harness.resume(Resume(respond=[pending.respond("Yes")]))
    assert "Yes" in harness.seen(), f"the model saw {harness.seen()}"


async def _still_answerable(harness: Harness, pending: PendingInterrupt) -> None:
    assert harness.transfers() == 0, "a refused resume ran the tool"
    await harness.resume(Resume(restart=[pending.approve()]))
    assert harness.transfers() == 1


async def an_unknown_id_is_refused(harness: Harness) -> None:
    """An answer to an interrupt that is not pending is refused; nothing runs."""
    pending = _approval(await harness.pause("transfer"))
    forged = Restart(pending.name, f"{pending.ref}-forged", "approve")
    codes = await _refused(harness, Resume(restart=[forged]))
    assert ProblemCode.UNKNOWN_INTERRUPT in codes, codes
    await _still_answerable(harness, pending)


async def changed_arguments_are_refused(harness: Harness) -> None:
    """An approval that changes the call's arguments is refused; nothing runs."""
    pending = _approval(await harness.pause("transfer"))
    changed = {**TRANSFER, "to": "MALLORY"}
    forged = Restart(pending.name, pending.ref, "approve", input=changed)
    codes = await _refused(harness, Resume(restart=[forged]))
    assert codes == (ProblemCode.INPUT_MODIFIED,), codes
    await _still_answerable(harness, pending)


async def a_result_for_an_approval_is_refused(harness: Harness) -> None:
    """A client-made result cannot stand in for an approval; nothing runs."""
    pending = _approval(await harness.pause("transfer"))
    forged = Respond(pending.name, pending.ref, {"status": "sent"})
    codes = await _refused(harness, Resume(respond=[forged]))
    assert codes == (ProblemCode.ANSWER_NOT_ACCEPTED,), codes
    await _still_answerable(harness, pending)


async def an_answer_outside_its_schema_is_refused(harness: Harness) -> None:
    """An answer that breaks its schema is refused; a good one then passes."""
    (pending,) = await harness.pause("question")
    forged = Respond(pending.name, pending.ref, "Maybe")
    codes = await _refused(harness, Resume(respond=[forged]))
    assert codes == (ProblemCode.SCHEMA_VIOLATION,), codes
    await harness.resume(Resume(respond=[pending.respond("No")]))
    assert "No" in harness.seen()


async def a_replay_is_consumed(harness: Harness) -> None:
    """The same resume twice: the second is consumed; the tool ran once."""
    pending = _approval(await harness.pause("transfer"))
    answer = Resume(restart=[pending.approve()])
    await harness.resume(answer)
    codes = await _refused(harness, answer)
    assert codes == (ProblemCode.CONSUMED,), codes
    assert harness.transfers() == 1


async def concurrent_resumes_run_once(harness: Harness) -> None:
    """Two processes resume at once: one wins, the other is consumed."""
    pending = _approval(await harness.pause("transfer"))
    answer = Resume(restart=[pending.approve()])
    first, second = await harness.reopen(), await harness.reopen()
    outcomes = await asyncio.gather(
        first.resume(answer), second.resume(answer), return_exceptions=True
    )
    refused = [o for o in outcomes if isinstance(o, ResumeRejected)]
    assert [o for o in outcomes if o is None] == [None], outcomes
    assert [r.codes for r in refused] == [(ProblemCode.CONSUMED,)], outcomes
    assert harness.transfers() == 1


async def a_second_answer_while_the_first_runs_is_consumed(harness: Harness) -> None:
    """A second tab approves while the approved transfer runs: consumed, one run."""
    pending = _approval(await harness.pause("transfer"))
    answer = Resume(restart=[pending.approve()])
    second = await harness.reopen()
    outcomes: list[object] = []

    def second_tab() -> None:  # in its own thread and event loop: a process
        try:
            asyncio.run(second.resume(answer))
        except ResumeRejected as rejected:
            outcomes.append(rejected.codes)
        else:
            outcomes.append("accepted")

    def during() -> None:
        worker = threading.Thread(target=second_tab)
        worker.start()
        worker.join()

    harness.during_transfer(during)
    await harness.resume(answer)
    assert outcomes == [(ProblemCode.CONSUMED,)], outcomes
    assert harness.transfers() == 1, f"ran {harness.transfers()} times"


async def a_resume_after_a_restart_works(harness: Harness) -> None:
    """A pause survives the process: a fresh one resumes it, once."""
    pending = _approval(await harness.pause("transfer"))
    fresh = await harness.reopen()
    await fresh.resume(Resume(restart=[pending.approve()]))
    assert fresh.transfers() == 1
    codes = await _refused(await harness.reopen(), Resume(restart=[pending.approve()]))
    assert codes == (ProblemCode.CONSUMED,), codes


async def attempts_are_audited(harness: Harness) -> None:
    """The pause (once), an accepted answer and its replay are audited."""
    pending = _approval(await harness.pause("transfer"))
    answer = Resume(restart=[pending.approve()])
    await harness.resume(answer)
    await _refused(await harness.reopen(), answer)
    kinds = {"paused", "accepted", "rejected"}
    trail = [e for e in await harness.audit() if e.kind in kinds]
    assert [e.kind for e in trail] == ["paused", "accepted", "rejected"], trail
    assert trail[0].pending == (pending.id,), trail[0]
    assert trail[2].codes == (ProblemCode.CONSUMED,), trail[2]
    assert trail[1].digest == trail[2].digest, trail
    assert harness.transfers() == 1


SCENARIOS: Final[tuple[Scenario, ...]] = (
    approve_runs_once,
    reject_tells_the_model,
    an_answer_reaches_the_run,
    an_unknown_id_is_refused,
    changed_arguments_are_refused,
    a_result_for_an_approval_is_refused,
    an_answer_outside_its_schema_is_refused,
    a_replay_is_consumed,
    concurrent_resumes_run_once,
    a_second_answer_while_the_first_runs_is_consumed,
    a_resume_after_a_restart_works,
    attempts_are_audited,
)
"""Every row, in order; run each against a fresh harness."""


def plan_of(scenario: Scenario) -> Plan:
    """The plan *scenario* pauses with, so a row can say what it supports.

    A framework without a way to ask a question (only approvals) runs the
    ``"transfer"`` rows and reports the others as not applicable.
    """
    question = {
        an_answer_reaches_the_run,
        an_answer_outside_its_schema_is_refused,
    }
    return "question" if scenario in question else "transfer"
