"""The OpenAI Agents SDK's own human-in-the-loop tests, answered through the adapter.

Each test names the SDK behaviour it ports (its ``RunState`` / approval
tests: ``approve``, ``approve(always_approve=True)``, ``reject`` with and
without ``rejection_message``, ``reject(always_reject=True, ...)``,
``RunConfig.tool_error_formatter``, ``needs_approval`` as a predicate) and
asserts the same outcome through `interruption.adapters.openai_agents`, or a
refusal on purpose, with its code, where the library's rules refuse what the
SDK allows (a second answer to a finished pause).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any, Final

import attrs
import pytest
from agents import (
    Agent,
    RunConfig,
    RunContextWrapper,
    Runner,
    RunResult,
    function_tool,
    set_tracing_disabled,
)
from agents.items import ToolCallOutputItem, TResponseOutputItem
from agents.run_config import ToolErrorFormatterArgs
from agents.testing import (
    ModelCall,
    ModelStep,
    ScriptedModel,
    assistant_message,
    function_call,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from interruption import (
    JSON,
    DecodeError,
    FieldError,
    MemoryStore,
    ProblemCode,
    Restart,
    Resume,
    ResumeRejected,
    Sealer,
    Store,
)
from interruption.adapters.openai_agents import (
    DecisionOptions,
    PausedRun,
    pause,
    question_tool,
    resume,
)
from interruption.wire import structure

set_tracing_disabled(disabled=True)

SESSION: Final = "ported"
DEFAULT_REJECTION: Final = "Tool execution was not approved."
"""The SDK's own words for a rejection nobody worded."""


@attrs.define
class World:
    """One conversation: how often each tool ran, what the model saw.

    Attributes:
        amounts: The transfer amounts the model asks for, one call per model
            turn, in order; after the last it says "done".
    """

    amounts: Sequence[int] = (100,)
    transfers: list[int] = attrs.Factory(list)
    seen: list[str] = attrs.Factory(list)

    def answer(self, call: ModelCall) -> list[TResponseOutputItem]:
        """The scripted model: the next transfer, or "done" after the last."""
        given = [] if isinstance(call.input, str) else call.input
        outputs = [item for item in given if item.get("type") == "function_call_output"]
        self.seen = [str(item["output"]) for item in outputs]
        step = len(outputs)
        if step < len(self.amounts):
            args = {"to": "ACME", "amount": self.amounts[step]}
            return [function_call("transfer_money", args, call_id=f"call-{step + 1}")]
        return [assistant_message("done")]

    def agent(self, *, over: int | None = None) -> Agent[Any]:
        """A fresh agent (one process); with *over*, only larger amounts pause."""

        async def big(
            _ctx: RunContextWrapper[Any], args: dict[str, Any], _id: str
        ) -> bool:
            return over is None or int(args["amount"]) > over

        @function_tool(needs_approval=big)
        def transfer_money(to: str, amount: int) -> str:
            """Send money."""
            del to
            self.transfers.append(amount)
            return f"sent {amount}"

        ask_user = question_tool(
            "ask_user",
            "Ask the user.",
            input_schema={"type": "object"},
            answer_schema={"type": "string"},
        )
        model = ScriptedModel([ModelStep.respond(self.answer)] * 8)
        return Agent(name="payer", model=model, tools=[transfer_money, ask_user])


@pytest.fixture(name="sealer")
def _sealer() -> Sealer:
    return Sealer({"k1": b"1" * 32}, active="k1")


@pytest.fixture(name="store")
def _store() -> MemoryStore:
    return MemoryStore()


def paused(world: World, sealer: Sealer, **agent: Any) -> PausedRun:
    """Run a fresh agent until it pauses, and seal the pause."""
    result = asyncio.run(Runner.run(world.agent(**agent), "pay"))
    return pause(result, sealer, session=SESSION)


def answer(
    world: World,
    sealer: Sealer,
    store: Store,
    token: str,
    resume_: Resume,
    **options: Any,
) -> RunResult:
    """Resume in a fresh process: a fresh agent over the sealed state."""
    return asyncio.run(
        resume(world.agent(), token, resume_, sealer, store, session=SESSION, **options)
    )


def codes(call: Any) -> tuple[ProblemCode, ...]:
    """The problem codes *call* was refused with."""
    with pytest.raises(ResumeRejected) as refused:
        call()
    return refused.value.codes


def outputs(result: RunResult) -> list[str]:
    """The tool outputs the continued run produced, in order."""
    return [
        str(item.output)
        for item in result.new_items
        if isinstance(item, ToolCallOutputItem)
    ]


class TestApprove:
    def test_an_approved_call_runs(self, sealer: Sealer, store: Store) -> None:
        """SDK ``state.approve(item)``: the call runs once; the model sees it."""
        world = World()
        done = paused(world, sealer)
        (only,) = done.interrupts
        result = answer(
            world, sealer, store, done.token, Resume(restart=[only.approve()])
        )
        assert world.transfers == [100]
        assert outputs(result) == ["sent 100"]
        assert result.final_output == "done"

    def test_a_predicate_pauses_only_the_calls_it_flags(
        self, sealer: Sealer, store: Store
    ) -> None:
        """SDK ``needs_approval=<callable>``: a small call runs, a large one pauses."""
        world = World(amounts=(50, 500))
        done = paused(world, sealer, over=100)
        assert world.transfers == [50]
        (only,) = done.interrupts
        assert only.tool is not None
        assert only.tool.input == {"to": "ACME", "amount": 500}
        answer(world, sealer, store, done.token, Resume(restart=[only.approve()]))
        assert world.transfers == [50, 500]


class TestReject:
    def test_a_rejection_message_is_what_the_model_sees(
        self, sealer: Sealer, store: Store
    ) -> None:
        """SDK ``reject(item, rejection_message=...)``: that text; nothing runs."""
        world = World()
        done = paused(world, sealer)
        (only,) = done.interrupts
        result = answer(
            world,
            sealer,
            store,
            done.token,
            Resume(restart=[only.reject("over budget")]),
        )
        assert world.transfers == []
        assert outputs(result) == ["over budget"]

    def test_an_unworded_rejection_gets_the_sdk_default(
        self, sealer: Sealer, store: Store
    ) -> None:
        """SDK ``reject(item)``, no formatter: its default words, not the reason."""
        world = World()
        done = paused(world, sealer)
        (only,) = done.interrupts
        result = answer(
            world,
            sealer,
            store,
            done.token,
            Resume(restart=[only.reject("kept in the record")]),
            options=DecisionOptions(formatted=[only.ref]),
        )
        assert outputs(result) == [DEFAULT_REJECTION]

    def test_an_unworded_rejection_is_worded_by_the_formatter(
        self, sealer: Sealer, store: Store
    ) -> None:
        """SDK ``tool_error_formatter``: it words a rejection without a message."""
        world = World()
        done = paused(world, sealer)
        (only,) = done.interrupts
        asked: list[tuple[str, str, str]] = []

        def formatter(args: ToolErrorFormatterArgs[Any]) -> str:
            asked.append((args.kind, args.tool_name, args.call_id))
            return f"{args.tool_name} was declined by policy"

        result = answer(
            world,
            sealer,
            store,
            done.token,
            Resume(restart=[only.reject("kept in the record")]),
            options=DecisionOptions(formatted=[only.ref]),
            run_config=RunConfig(tool_error_formatter=formatter),
        )
        assert outputs(result) == ["transfer_money was declined by policy"]
        assert asked == [("approval_rejected", "transfer_money", "call-1")]

    def test_a_worded_rejection_is_not_reworded_by_the_formatter(
        self, sealer: Sealer, store: Store
    ) -> None:
        """SDK: an explicit ``rejection_message`` wins over the formatter."""
        world = World()
        done = paused(world, sealer)
        (only,) = done.interrupts
        result = answer(
            world,
            sealer,
            store,
            done.token,
            Resume(restart=[only.reject("over budget")]),
            run_config=RunConfig(tool_error_formatter=lambda _args: "formatted"),
        )
        assert outputs(result) == ["over budget"]


class TestStanding:
    def test_always_approve_covers_the_tools_later_calls(
        self, sealer: Sealer, store: Store
    ) -> None:
        """SDK ``approve(item, always_approve=True)``: later calls run unpaused."""
        world = World(amounts=(100, 200, 300))
        done = paused(world, sealer)
        (only,) = done.interrupts
        result = answer(
            world,
            sealer,
            store,
            done.token,
            Resume(restart=[only.approve()]),
            options=DecisionOptions(always=[only.ref]),
        )
        assert not result.interruptions
        assert world.transfers == [100, 200, 300]
        assert result.final_output == "done"

    def test_always_reject_repeats_its_message(
        self, sealer: Sealer, store: Store
    ) -> None:
        """SDK ``reject(item, always_reject=True, rejection_message=m)``: later too."""
        world = World(amounts=(100, 200))
        done = paused(world, sealer)
        (only,) = done.interrupts
        result = answer(
            world,
            sealer,
            store,
            done.token,
            Resume(restart=[only.reject("never to ACME")]),
            options=DecisionOptions(always=[only.ref]),
        )
        assert not result.interruptions
        assert world.transfers == []
        assert outputs(result) == ["never to ACME", "never to ACME"]

    def test_a_standing_decision_is_filed_in_the_audit_trail(
        self, sealer: Sealer, store: Store
    ) -> None:
        """A standing decision is an ``accepted`` event naming the call and what."""
        world = World(amounts=(100, 200))
        done = paused(world, sealer)
        (only,) = done.interrupts
        answer(
            world,
            sealer,
            store,
            done.token,
            Resume(restart=[only.approve()]),
            options=DecisionOptions(always=[only.ref]),
        )
        trail = asyncio.run(store.audit(SESSION))
        standing = [event for event in trail if event.reason is not None]
        assert [(e.kind, e.pending) for e in standing] == [("accepted", ("call-1",))]
        assert standing[0].reason is not None
        assert "standing approval of 'transfer_money'" in standing[0].reason

    def test_a_refused_replay_files_no_second_standing_event(
        self, sealer: Sealer, store: Store
    ) -> None:
        """Standing events are written with the spend: a consumed replay adds none."""
        world = World(amounts=(100, 200))
        done = paused(world, sealer)
        (only,) = done.interrupts
        options = DecisionOptions(always=[only.ref])
        again = Resume(restart=[only.approve()])
        answer(world, sealer, store, done.token, again, options=options)
        with pytest.raises(ResumeRejected) as replayed:
            answer(world, sealer, store, done.token, again, options=options)
        assert replayed.value.codes == (ProblemCode.CONSUMED,)
        trail = asyncio.run(store.audit(SESSION))
        assert [e.kind for e in trail if e.reason is not None] == ["accepted"]

    def test_a_one_off_decision_files_no_standing_event(
        self, sealer: Sealer, store: Store
    ) -> None:
        """Without ``always``, the trail holds the resume's own event only."""
        world = World()
        done = paused(world, sealer)
        (only,) = done.interrupts
        answer(world, sealer, store, done.token, Resume(restart=[only.approve()]))
        trail = asyncio.run(store.audit(SESSION))
        assert [event.reason for event in trail if event.kind == "accepted"] == [None]

    def test_a_standing_decision_ends_with_its_run(
        self, sealer: Sealer, store: Store
    ) -> None:
        """A new run of the same agent pauses again: nothing stands beyond the run."""
        world = World(amounts=(100, 200))
        done = paused(world, sealer)
        (only,) = done.interrupts
        answer(
            world,
            sealer,
            store,
            done.token,
            Resume(restart=[only.approve()]),
            options=DecisionOptions(always=[only.ref]),
        )
        again = paused(world, sealer)
        assert [p.ref for p in again.interrupts] == ["call-1"]
        assert world.transfers == [100, 200]

    def test_a_standing_decision_does_not_leak_through_a_context(
        self, sealer: Sealer, store: Store
    ) -> None:
        """A wrapper passed as ``context`` carries nothing into the next run."""
        world = World(amounts=(100, 200))
        done = paused(world, sealer)
        (only,) = done.interrupts
        shared: RunContextWrapper[Any] = RunContextWrapper(context={"user": "u"})
        answer(
            world,
            sealer,
            store,
            done.token,
            Resume(restart=[only.approve()]),
            options=DecisionOptions(always=[only.ref]),
            context=shared,
        )
        assert world.transfers == [100, 200]
        later = asyncio.run(Runner.run(world.agent(), "pay", context=shared))
        assert [item.call_id for item in later.interruptions] == ["call-1"]

    def test_a_one_off_approval_pauses_the_next_call(
        self, sealer: Sealer, store: Store
    ) -> None:
        """SDK ``approve(item)``: the tool's next call in the run pauses again."""
        world = World(amounts=(100, 200))
        done = paused(world, sealer)
        (only,) = done.interrupts
        result = answer(
            world, sealer, store, done.token, Resume(restart=[only.approve()])
        )
        assert [item.call_id for item in result.interruptions] == ["call-2"]
        assert world.transfers == [100]


class TestRefusedOnPurpose:
    def test_a_second_answer_to_a_finished_pause_is_consumed(
        self, sealer: Sealer, store: Store
    ) -> None:
        """SDK: an approved state run twice runs the tool twice; here ``consumed``."""
        world = World()
        done = paused(world, sealer)
        (only,) = done.interrupts
        decided = Resume(restart=[only.approve()])
        answer(world, sealer, store, done.token, decided)
        again = codes(lambda: answer(world, sealer, store, done.token, decided))
        assert again == (ProblemCode.CONSUMED,)
        assert world.transfers == [100]

    def test_a_replay_with_bad_options_is_still_consumed(
        self, sealer: Sealer, store: Store
    ) -> None:
        """A spent pause is ``consumed`` whatever options come with the replay."""
        world = World()
        done = paused(world, sealer)
        (only,) = done.interrupts
        answer(world, sealer, store, done.token, Resume(restart=[only.approve()]))
        bad = DecisionOptions(always=["nope"])
        replay = Resume(restart=[only.approve()])
        got = codes(
            lambda: answer(world, sealer, store, done.token, replay, options=bad)
        )
        assert got == (ProblemCode.CONSUMED,)

    def test_options_for_a_call_not_decided_are_refused(
        self, sealer: Sealer, store: Store
    ) -> None:
        """``always`` for an id this resume does not decide is ``unknown_interrupt``."""
        world = World()
        done = paused(world, sealer)
        (only,) = done.interrupts
        decided = Resume(restart=[only.approve()])
        bad = DecisionOptions(always=["call-9"])
        got = codes(
            lambda: answer(world, sealer, store, done.token, decided, options=bad)
        )
        assert got == (ProblemCode.UNKNOWN_INTERRUPT,)
        answer(world, sealer, store, done.token, decided)  # nothing was spent
        assert world.transfers == [100]

    def test_a_formatter_wording_for_an_approval_is_refused(
        self, sealer: Sealer, store: Store
    ) -> None:
        """``formatted`` for an approved call: ``answer_not_accepted``; none spent."""
        world = World()
        done = paused(world, sealer)
        (only,) = done.interrupts
        decided = Resume(restart=[only.approve()])
        bad = DecisionOptions(formatted=[only.ref])
        got = codes(
            lambda: answer(world, sealer, store, done.token, decided, options=bad)
        )
        assert got == (ProblemCode.ANSWER_NOT_ACCEPTED,)
        trail = asyncio.run(store.audit(SESSION))
        assert [(e.kind, e.codes) for e in trail] == [
            ("rejected", ("answer_not_accepted",))
        ]

    def test_formatter_wording_for_a_non_decision_is_the_decisions_problem(
        self, sealer: Sealer, store: Store
    ) -> None:
        """``formatted`` beside a restart that is no decision: both are named."""
        world = World()
        done = paused(world, sealer)
        (only,) = done.interrupts
        broken = Resume(restart=[Restart(only.name, only.ref, {"maybe": True})])
        bad = DecisionOptions(formatted=[only.ref])
        got = codes(
            lambda: answer(world, sealer, store, done.token, broken, options=bad)
        )
        assert got == (ProblemCode.ANSWER_NOT_ACCEPTED,)
        got = codes(lambda: answer(world, sealer, store, done.token, broken))
        assert got == (ProblemCode.SCHEMA_VIOLATION,)

    def test_a_standing_answer_to_a_question_is_refused(
        self, sealer: Sealer, store: Store
    ) -> None:
        """A question is no approval: ``always`` for it is ``unknown_interrupt``."""
        asked = _question_pause(sealer)
        (question,) = asked.interrupts
        decided = Resume(respond=[question.respond("Yes")])
        bad = DecisionOptions(always=[question.ref])
        got = codes(lambda: _answer_question(asked, decided, sealer, store, bad))
        assert got == (ProblemCode.UNKNOWN_INTERRUPT,)


class TestStandingAcrossPauses:
    def test_a_standing_approval_holds_across_a_later_pause_of_its_run(
        self, sealer: Sealer, store: Store
    ) -> None:
        """Sealed in the run's next token, it still covers the tool after a question."""
        transfers: list[int] = []

        def respond(call: ModelCall) -> list[TResponseOutputItem]:
            given = [] if isinstance(call.input, str) else call.input
            done = sum(item.get("type") == "function_call_output" for item in given)
            if done == 0:
                args = {"to": "ACME", "amount": 100}
                return [function_call("transfer_money", args, call_id="t-1")]
            if done == 1:
                return [function_call("ask_user", {"q": "More?"}, call_id="q-1")]
            if done == 2:
                args = {"to": "ACME", "amount": 300}
                return [function_call("transfer_money", args, call_id="t-2")]
            return [assistant_message("done")]

        def build() -> Agent[Any]:
            @function_tool(needs_approval=True)
            def transfer_money(to: str, amount: int) -> str:
                """Send money."""
                del to
                transfers.append(amount)
                return f"sent {amount}"

            ask_user = question_tool(
                "ask_user",
                "Ask.",
                input_schema={"type": "object"},
                answer_schema={"type": "string"},
            )
            model = ScriptedModel([ModelStep.respond(respond)] * 6)
            return Agent(name="payer", model=model, tools=[transfer_money, ask_user])

        def go(token: str, decided: Resume, **options: Any) -> RunResult:
            return asyncio.run(
                resume(
                    build(), token, decided, sealer, store, session=SESSION, **options
                )
            )

        first = pause(asyncio.run(Runner.run(build(), "pay")), sealer, session=SESSION)
        (approval,) = first.interrupts
        asked = go(
            first.token,
            Resume(restart=[approval.approve()]),
            options=DecisionOptions(always=[approval.ref]),
        )
        second = pause(asked, sealer, session=SESSION)
        (question,) = second.interrupts
        assert question.ref == "q-1"
        finished = go(second.token, Resume(respond=[question.respond("Yes")]))
        assert not finished.interruptions
        assert transfers == [100, 300]


def _question_agent() -> Agent[Any]:
    """An agent whose model asks the user once, then says "done"."""

    def respond(call: ModelCall) -> list[TResponseOutputItem]:
        given = [] if isinstance(call.input, str) else call.input
        if any(item.get("type") == "function_call_output" for item in given):
            return [assistant_message("done")]
        return [function_call("ask_user", {"q": "Pay?"}, call_id="call-q")]

    ask_user = question_tool(
        "ask_user",
        "Ask.",
        input_schema={"type": "object"},
        answer_schema={"type": "string"},
    )
    model = ScriptedModel([ModelStep.respond(respond)] * 4)
    return Agent(name="asker", model=model, tools=[ask_user])


def _question_pause(sealer: Sealer) -> PausedRun:
    result = asyncio.run(Runner.run(_question_agent(), "go"))
    return pause(result, sealer, session=SESSION)


def _answer_question(
    asked: PausedRun,
    decided: Resume,
    sealer: Sealer,
    store: Store,
    options: DecisionOptions,
) -> RunResult:
    return asyncio.run(
        resume(
            _question_agent(),
            asked.token,
            decided,
            sealer,
            store,
            session=SESSION,
            options=options,
        )
    )


class TestDecisionOptions:
    def test_it_decodes_strictly_from_json(self) -> None:
        """A client's options decode with the wire codec; others are a DecodeError."""
        assert structure({"always": ["call-1"]}, DecisionOptions) == DecisionOptions(
            always=("call-1",)
        )
        bads: list[JSON] = [{"always": "call-1"}, {"always": [1]}, {"forever": []}]
        for bad in bads:
            with pytest.raises(DecodeError):
                structure(bad, DecisionOptions)

    def test_a_single_string_is_not_a_list_of_ids(self) -> None:
        """``DecisionOptions(always="call-1")`` is a FieldError, not five ids."""
        with pytest.raises(FieldError):
            DecisionOptions(always="call-1")

    @settings(max_examples=25)
    @given(ids=st.lists(st.text(min_size=1, max_size=8), max_size=4))
    def test_any_list_of_ids_round_trips(self, ids: list[str]) -> None:
        """Law: options built from JSON lists hold exactly those ids, in order."""
        data: JSON = {"always": list(ids), "formatted": list(reversed(ids))}
        options = structure(data, DecisionOptions)
        assert options.always == tuple(ids)
        assert options.formatted == tuple(reversed(ids))
        assert json.loads(json.dumps(data)) == data
