"""The OpenAI Agents SDK adapter: sealed run states, validated and spent once."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import json
import types
import zlib
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Final, cast

import attrs
import pytest
from agents import (
    Agent,
    RunContextWrapper,
    Runner,
    RunResult,
    function_tool,
    set_tracing_disabled,
)
from agents.exceptions import UserError
from agents.items import ToolApprovalItem, TResponseOutputItem
from agents.testing import (
    ModelCall,
    ModelStep,
    ScriptedModel,
    assistant_message,
    function_call,
)
from hypothesis import given
from hypothesis import strategies as st
from interruption import (
    JSON,
    Accepts,
    ApprovalPending,
    AuditEvent,
    Bridge,
    Custom,
    EventLoopRunning,
    InterruptedTurn,
    InvalidArgument,
    MemoryStore,
    Message,
    PendingInterrupt,
    ProblemCode,
    Respond,
    Restart,
    Resume,
    ResumePolicy,
    ResumeRejected,
    Role,
    SchemaError,
    Sealer,
    SqliteStore,
    Store,
    Text,
    ToolRequest,
    validate_resume,
)
from interruption.adapters.openai_agents import (
    AUDIENCE,
    PausedRun,
    QuestionTool,
    bridge,
    pause,
    pending,
    question_tool,
    resume,
    resume_sync,
)
from interruption.runtime.admission import PAUSED_MARK, pause_key
from interruption.runtime.approval import (
    DECISION_SCHEMA,
    Approve,
    Reject,
    decision_from_json,
)
from interruption.runtime.sealing import spent_key

from tests.adapters._common import import_error
from tests.strategies import json_values, texts

set_tracing_disabled(disabled=True)

TRANSFER: Final[dict[str, JSON]] = {"to": "ACME", "amount": 125000}
ANSWERS: Final[dict[str, JSON]] = {"enum": ["Yes", "No", 7, {"pay": True}]}
SESSION: Final = "s-1"
Calls = Sequence[tuple[str, Mapping[str, object] | str, str]]


@attrs.define
class World:
    """One conversation's effects, shared by every "process" of it."""

    transfers: list[JSON] = attrs.Factory(list)
    seen: list[JSON] = attrs.Factory(list)
    contexts: list[object] = attrs.Factory(list)


def agent(world: World, first: Calls, *, name: str = "payer") -> Agent[Any]:
    """A fresh agent (one process): *first* is the model's first batch of calls.

    Later model calls see the tool outputs, record them, and end the run.
    """

    @function_tool(needs_approval=True)
    def transfer_money(ctx: RunContextWrapper[Any], to: str, amount: int) -> str:
        """Send money."""
        world.transfers.append({"to": to, "amount": amount})
        world.contexts.append(ctx.context)
        return json.dumps({"status": "sent", "amount": amount})

    ask_user = question_tool(
        "ask_user",
        "Ask the user.",
        input_schema={"type": "object", "properties": {"question": {"type": "string"}}},
        answer_schema=ANSWERS,
    )

    def answer(call: ModelCall) -> list[TResponseOutputItem]:
        given = [] if isinstance(call.input, str) else call.input
        outputs = [item for item in given if item.get("type") == "function_call_output"]
        if not outputs:
            return [function_call(tool, args, call_id=ref) for tool, args, ref in first]
        world.seen.extend(item["output"] for item in outputs)
        return [assistant_message("done")]

    model = ScriptedModel([ModelStep.respond(answer)] * 4)
    return Agent(name=name, model=model, tools=[transfer_money, ask_user])


ONE: Final[Calls] = (("transfer_money", TRANSFER, "call-1"),)
ASK: Final[Calls] = (("ask_user", {"question": "Pay INV-7?"}, "call-q"),)


@pytest.fixture(name="sealer")
def _sealer() -> Sealer:
    return Sealer({"k1": b"1" * 32}, active="k1")


@pytest.fixture(name="world")
def _world() -> World:
    return World()


def run(world: World, first: Calls = ONE, text: str = "go") -> RunResult:
    """Run a fresh agent until it pauses."""
    return asyncio.run(Runner.run(agent(world, first), text))


def paused(world: World, sealer: Sealer, first: Calls = ONE) -> PausedRun:
    """Run until the pause and seal it."""
    return pause(run(world, first), sealer, session=SESSION)


def answer_with(
    world: World,
    sealer: Sealer,
    store: Store,
    token: str,
    answer: Resume,
    **options: Any,
) -> RunResult:
    """Resume in a fresh process: a fresh agent over the same state."""
    fresh = agent(world, ONE)
    return asyncio.run(
        resume(fresh, token, answer, sealer, store, session=SESSION, **options)
    )


def codes(call: Callable[[], object]) -> tuple[ProblemCode, ...]:
    """The problem codes *call* was refused with."""
    with pytest.raises(ResumeRejected) as refused:
        call()
    return refused.value.codes


def segments(token: str) -> tuple[dict[str, Any], str, str]:
    """The claims of a token, and its header and signature segments."""
    header, payload, signature = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    return claims, header, signature


def encoded(claims: dict[str, Any]) -> str:
    """Claims as a token's payload segment."""
    raw = json.dumps(claims).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


class TestImport:
    def test_a_missing_extra_names_it(self) -> None:
        """Importing the adapter without the SDK is an ImportError naming the extra."""
        done = import_error("interruption.adapters.openai_agents", "agents")
        assert "[openai-agents] extra" in done
        assert "pip install 'interruption[openai-agents]'" in done


class TestPending:
    def test_an_approval_is_approval_pending_by_call_id(self, world: World) -> None:
        """A needs_approval call pauses as ApprovalPending(call id), with its input."""
        (only,) = pending(run(world))
        assert only == PendingInterrupt(
            id="call-1",
            kind=ApprovalPending("call-1"),
            payload={"tool": "transfer_money", "input": TRANSFER},
            tool=ToolRequest("transfer_money", "call-1", TRANSFER),
            accepts=Accepts(restart=DECISION_SCHEMA),
        )
        assert only.allowed.respond is None

    def test_a_question_is_custom_with_its_answer_schema(self, world: World) -> None:
        """A question_tool call pauses as Custom, answered against its schema."""
        (only,) = pending(run(world, ASK))
        assert only.kind == Custom()
        assert only.accepts == Accepts(respond=ANSWERS)
        assert only.payload == {"question": "Pay INV-7?"}
        assert only.tool == ToolRequest(
            "ask_user", "call-q", {"question": "Pay INV-7?"}
        )

    def test_arguments_that_are_not_json_are_shown_as_written(
        self, world: World
    ) -> None:
        """Arguments that are not strict JSON are shown raw, never guessed at."""
        raw = '{"to": "ACME", "to": "MALLORY", "amount": 1}'
        (only,) = pending(run(world, (("transfer_money", raw, "call-1"),)))
        assert only.tool is not None
        assert only.tool.input == raw

    @pytest.mark.parametrize(
        "raw",
        [
            '{"amount": NaN}',
            '{"amount": Infinity}',
            "[" * 70 + "]" * 70,
            '{"amount": ' + "9" * 30 + "}",
            '{"memo": "' + "x" * 1_048_576 + '"}',
            "not json",
        ],
        ids=[
            "nan",
            "infinity",
            "too-deep",
            "integer-out-of-range",
            "too-large",
            "text",
        ],
    )
    def test_arguments_the_library_does_not_hold_for_json_are_shown_raw(
        self, world: World, raw: str
    ) -> None:
        """NaN, too deep, too large, out-of-range integers: the raw text is shown."""
        item = ToolApprovalItem(
            agent=agent(world, ONE),
            raw_item={
                "type": "function_call",
                "name": "x",
                "call_id": "c",
                "arguments": raw,
            },
        )
        result = cast("RunResult", types.SimpleNamespace(interruptions=[item]))
        (only,) = pending(result)
        assert only.tool == ToolRequest("x", "c", raw)

    def test_every_call_of_a_batch_is_pending(self, world: World) -> None:
        """Each paused call of a batch is its own interrupt, in the SDK's order."""
        batch = (*ONE, ("transfer_money", {"to": "B", "amount": 2}, "call-2"), *ASK)
        found = pending(run(world, batch))
        assert [each.id for each in found] == ["call-1", "call-2", "call-q"]

    def test_a_call_without_an_id_is_refused(self, world: World) -> None:
        """An interruption without a call id cannot be answered by ref: ValueError."""
        item = ToolApprovalItem(
            agent=agent(world, ONE), raw_item={"type": "function_call", "name": "x"}
        )
        result = cast("RunResult", types.SimpleNamespace(interruptions=[item]))
        with pytest.raises(ValueError, match="call id"):
            pending(result)

    def test_a_call_without_arguments_has_no_input(self, world: World) -> None:
        """A paused call that carries no arguments is shown with input None."""
        raw = {"type": "function_call", "name": "x", "call_id": "c"}
        item = ToolApprovalItem(agent=agent(world, ONE), raw_item=raw)
        result = cast("RunResult", types.SimpleNamespace(interruptions=[item]))
        (only,) = pending(result)
        assert only.tool == ToolRequest("x", "c", None)

    def test_two_calls_with_one_id_are_refused(self, world: World) -> None:
        """Two interruptions of one (name, call id) are ambiguous: ValueError."""
        raw = {"type": "function_call", "name": "x", "call_id": "c", "arguments": "{}"}
        items = [ToolApprovalItem(agent=agent(world, ONE), raw_item=raw)] * 2
        result = cast("RunResult", types.SimpleNamespace(interruptions=items))
        with pytest.raises(ValueError, match="distinct"):
            pending(result)

    def test_refused_interruptions_are_an_invalid_argument(self, world: World) -> None:
        """A call without an id, or two of one id, raise InvalidArgument."""
        raw = {"type": "function_call", "name": "x", "call_id": "c", "arguments": "{}"}
        items = [ToolApprovalItem(agent=agent(world, ONE), raw_item=raw)] * 2
        twice = cast("RunResult", types.SimpleNamespace(interruptions=items))
        anonymous = ToolApprovalItem(
            agent=agent(world, ONE), raw_item={"type": "function_call", "name": "x"}
        )
        unnamed = cast("RunResult", types.SimpleNamespace(interruptions=[anonymous]))
        for result, expected in [
            (twice, "distinct tool calls"),
            (unnamed, "a tool call with a name and a call id"),
        ]:
            with pytest.raises(InvalidArgument) as caught:
                pending(result)
            assert (caught.value.code, caught.value.where) == (
                "invalid_argument",
                "interruptions",
            )
            assert caught.value.expected == expected


class TestPause:
    def test_the_client_gets_a_token_and_the_interrupts(
        self, world: World, sealer: Sealer
    ) -> None:
        """Pause seals the run state into a token of the session."""
        result = run(world)
        done = pause(result, sealer, session=SESSION)
        assert done.interrupts == pending(result)
        assert done.session == SESSION
        assert sealer.open(done.token, audience=AUDIENCE).interrupts == done.interrupts

    def test_a_finished_run_does_not_pause(self, world: World, sealer: Sealer) -> None:
        """A run that did not pause has nothing to seal: ValueError."""
        finished = asyncio.run(Runner.run(agent(world, ()), "go"))
        with pytest.raises(ValueError, match="paused"):
            pause(finished, sealer, session=SESSION)

    def test_a_finished_run_is_an_invalid_argument(
        self, world: World, sealer: Sealer
    ) -> None:
        """Pausing a finished run raises InvalidArgument at ``result``."""
        finished = asyncio.run(Runner.run(agent(world, ()), "go"))
        with pytest.raises(InvalidArgument) as caught:
            pause(finished, sealer, session=SESSION)
        assert (caught.value.where, caught.value.got) == ("result", "a finished one")


class TestResume:
    def test_an_approval_runs_the_call_once(self, world: World, sealer: Sealer) -> None:
        """Approved, the call runs once and the model sees its result."""
        done = paused(world, sealer)
        (only,) = done.interrupts
        answer = Resume(restart=[only.approve("checked")])
        result = answer_with(world, sealer, MemoryStore(), done.token, answer)
        assert result.final_output == "done"
        assert world.transfers == [TRANSFER]
        assert world.seen == ['{"status": "sent", "amount": 125000}']

    def test_a_rejection_runs_nothing_and_tells_the_model(
        self, world: World, sealer: Sealer
    ) -> None:
        """Rejected, the call never runs and the model sees exactly the reason."""
        done = paused(world, sealer)
        (only,) = done.interrupts
        answer = Resume(restart=[only.reject("wrong account")])
        answer_with(world, sealer, MemoryStore(), done.token, answer)
        assert world.transfers == []
        assert world.seen == ["wrong account"]

    @pytest.mark.parametrize(
        ("output", "shown"),
        [("Yes", "Yes"), (7, "7"), ({"pay": True}, '{"pay": true}')],
        ids=["string", "number", "object"],
    )
    def test_an_answer_is_what_the_model_sees(
        self, world: World, sealer: Sealer, output: JSON, shown: str
    ) -> None:
        """A question's answer reaches the model: a string as is, other JSON as text."""
        done = paused(world, sealer, ASK)
        (only,) = done.interrupts
        answer = Resume(respond=[only.respond(output)])
        answer_with(world, sealer, MemoryStore(), done.token, answer)
        assert world.seen == [shown]

    def test_a_fresh_process_resumes_once(
        self, world: World, sealer: Sealer, tmp_path: Path
    ) -> None:
        """A fresh agent and store over the same file resume the kept token, once."""
        done = paused(world, sealer)
        (only,) = done.interrupts
        answer = Resume(restart=[only.approve()])
        database = tmp_path / "spent.db"
        answer_with(world, sealer, SqliteStore(database), done.token, answer)
        assert world.transfers == [TRANSFER]
        refused = codes(
            lambda: answer_with(
                world, sealer, SqliteStore(database), done.token, answer
            )
        )
        assert refused == (ProblemCode.CONSUMED,)
        assert world.transfers == [TRANSFER]

    def test_a_pause_resealed_later_stays_spent_after_cleanup(
        self, world: World, sealer: Sealer
    ) -> None:
        """A later token of an answered pause is consumed after Store.expire too."""
        result = run(world)
        start = datetime.now(UTC)
        first = pause(result, sealer, session=SESSION, now=start)
        later = pause(result, sealer, session=SESSION, now=start + timedelta(hours=20))
        (only,) = first.interrupts
        answer, store = Resume(restart=[only.approve()]), MemoryStore()

        def at(moment: datetime) -> ResumePolicy:
            return ResumePolicy(now=lambda: moment)

        minute = timedelta(minutes=1)
        answer_with(
            world, sealer, store, first.token, answer, policy=at(start + minute)
        )
        # After the first token's end, past any leeway: its mark may go.
        assert sealer.max_ttl is not None
        cleanup = start + sealer.max_ttl + sealer.leeway + minute
        asyncio.run(store.expire(cleanup))
        refused = codes(
            lambda: answer_with(
                world, sealer, store, later.token, answer, policy=at(cleanup + minute)
            )
        )
        assert refused == (ProblemCode.CONSUMED,)
        assert len(world.transfers) == 1

    def test_a_resealed_pause_is_spent_once(self, world: World, sealer: Sealer) -> None:
        """Two tokens of one pause (a page reload) resume it once between them."""
        result = run(world)
        first = pause(result, sealer, session=SESSION)
        second = pause(result, sealer, session=SESSION)
        assert first.token != second.token
        (only,) = first.interrupts
        answer, store = Resume(restart=[only.approve()]), MemoryStore()
        answer_with(world, sealer, store, first.token, answer)
        refused = codes(lambda: answer_with(world, sealer, store, second.token, answer))
        assert refused == (ProblemCode.CONSUMED,)
        assert len(world.transfers) == 1

    def test_an_edited_state_is_refused(self, world: World, sealer: Sealer) -> None:
        """An edited run state is bad_token and runs nothing; the genuine one works."""
        done = paused(world, sealer)
        claims, header, signature = segments(done.token)
        state = claims["turn"]["messages"][0]["parts"][1]
        state["text"] = state["text"].replace("125000", "999999")
        forged = f"{header}.{encoded(claims)}.{signature}"
        (only,) = done.interrupts
        answer, store = Resume(restart=[only.approve()]), MemoryStore()
        refused = codes(lambda: answer_with(world, sealer, store, forged, answer))
        assert refused == (ProblemCode.BAD_TOKEN,)
        assert world.transfers == []
        answer_with(world, sealer, store, done.token, answer)
        assert world.transfers == [TRANSFER]

    def test_a_token_of_another_key_is_refused(
        self, world: World, sealer: Sealer
    ) -> None:
        """A run state sealed with a key this server does not hold is bad_token."""
        other = Sealer({"k1": b"2" * 32}, active="k1")
        done = paused(world, other)
        (only,) = done.interrupts
        answer = Resume(restart=[only.approve()])
        refused = codes(
            lambda: answer_with(world, sealer, MemoryStore(), done.token, answer)
        )
        assert refused == (ProblemCode.BAD_TOKEN,)
        assert world.transfers == []

    def test_a_token_of_another_session_is_refused(
        self, world: World, sealer: Sealer
    ) -> None:
        """A genuine token of another conversation is bad_token; nothing is spent."""
        done = pause(run(world), sealer, session="someone-else")
        (only,) = done.interrupts
        answer = Resume(restart=[only.approve()])
        refused = codes(
            lambda: answer_with(world, sealer, MemoryStore(), done.token, answer)
        )
        assert refused == (ProblemCode.BAD_TOKEN,)
        assert world.transfers == []

    @pytest.mark.parametrize(
        "messages",
        [
            (Message.of_text(Role.USER, "Pay INV-7"),),
            (Message(Role.SYSTEM, (Text("another state"), Text("{}"))),),
        ],
        ids=["a-session-turn", "another-mark"],
    )
    def test_a_sealed_turn_that_is_no_run_state_is_refused(
        self, world: World, sealer: Sealer, messages: tuple[Message, ...]
    ) -> None:
        """A genuine token of another kind of turn (a Session's) is bad_token."""
        done = paused(world, sealer)
        opened = sealer.open(done.token, audience=AUDIENCE)
        turn = attrs.evolve(opened, messages=messages)
        (only,) = done.interrupts
        answer = Resume(restart=[only.approve()])
        token = sealer.seal(turn, audience=AUDIENCE)
        refused = codes(
            lambda: answer_with(world, sealer, MemoryStore(), token, answer)
        )
        assert refused == (ProblemCode.BAD_TOKEN,)
        assert world.transfers == []

    def test_sealed_interrupts_must_be_the_states(
        self, world: World, sealer: Sealer
    ) -> None:
        """A token whose interrupts disagree with its run state is bad_token."""
        done = paused(world, sealer)
        (only,) = done.interrupts
        other = attrs.evolve(only, payload={"tool": "transfer_money", "input": {}})
        opened = sealer.open(done.token, audience=AUDIENCE)
        turn = attrs.evolve(opened, interrupts=(other,))
        answer = Resume(restart=[only.approve()])
        token = sealer.seal(turn, audience=AUDIENCE)
        refused = codes(
            lambda: answer_with(world, sealer, MemoryStore(), token, answer)
        )
        assert refused == (ProblemCode.BAD_TOKEN,)
        assert world.transfers == []

    def test_a_state_another_agent_cannot_restore_is_refused(
        self, world: World, sealer: Sealer
    ) -> None:
        """A state the SDK cannot restore for this agent is bad_token, no traceback."""
        result = asyncio.run(Runner.run(agent(world, ONE, name="other"), "go"))
        done = pause(result, sealer, session=SESSION)
        (only,) = done.interrupts
        answer = Resume(restart=[only.approve()])
        refused = codes(
            lambda: answer_with(world, sealer, MemoryStore(), done.token, answer)
        )
        assert refused == (ProblemCode.BAD_TOKEN,)
        assert world.transfers == []

    def test_an_expired_token_is_refused(self, world: World) -> None:
        """A token past its lifetime is expired; nothing runs."""
        sealer = Sealer({"k1": b"1" * 32}, active="k1", max_ttl=timedelta(minutes=5))
        then = datetime.now(UTC) - timedelta(hours=1)
        done = pause(run(world), sealer, session=SESSION, now=then)
        (only,) = done.interrupts
        answer = Resume(restart=[only.approve()])
        refused = codes(
            lambda: answer_with(world, sealer, MemoryStore(), done.token, answer)
        )
        assert refused == (ProblemCode.EXPIRED,)
        assert world.transfers == []

    def test_a_refused_answer_spends_nothing(
        self, world: World, sealer: Sealer
    ) -> None:
        """An answer outside its schema is refused; a good one then passes."""
        done = paused(world, sealer, ASK)
        (only,) = done.interrupts
        store = MemoryStore()
        forged = Resume(respond=[Respond(only.name, only.ref, "Maybe")])
        refused = codes(lambda: answer_with(world, sealer, store, done.token, forged))
        assert refused == (ProblemCode.SCHEMA_VIOLATION,)
        answer_with(
            world, sealer, store, done.token, Resume(respond=[only.respond("No")])
        )
        assert world.seen == ["No"]

    def test_an_unauthorized_principal_is_refused(
        self, world: World, sealer: Sealer
    ) -> None:
        """The policy's authorizer is asked first; a refusal runs nothing."""
        done = paused(world, sealer)
        (only,) = done.interrupts
        answer = Resume(restart=[only.approve()])
        policy = ResumePolicy(authorize=lambda who, _: who == "alice", principal="eve")
        refused = codes(
            lambda: answer_with(
                world, sealer, MemoryStore(), done.token, answer, policy=policy
            )
        )
        assert refused == (ProblemCode.NOT_AUTHORIZED,)
        assert world.transfers == []

    def test_a_partial_answer_pauses_again(self, world: World, sealer: Sealer) -> None:
        """With allow_partial, an unanswered call pauses again, and that resumes."""
        batch = (*ONE, ("transfer_money", {"to": "B", "amount": 2}, "call-2"))
        done = paused(world, sealer, batch)
        first, _ = done.interrupts
        store, policy = MemoryStore(), ResumePolicy(allow_partial=True)
        answer = Resume(restart=[first.reject("no")])
        again = answer_with(world, sealer, store, done.token, answer, policy=policy)
        assert world.transfers == []
        more = pause(again, sealer, session=SESSION)
        (second,) = more.interrupts
        assert second.ref == "call-2"
        answer_with(
            world, sealer, store, more.token, Resume(restart=[second.approve()])
        )
        assert world.transfers == [{"to": "B", "amount": 2}]
        assert world.seen == ["no", '{"status": "sent", "amount": 2}']

    def test_a_context_replaces_the_sealed_one(
        self, world: World, sealer: Sealer
    ) -> None:
        """context= is the run context on resume, not the one in the token."""
        result = asyncio.run(
            Runner.run(agent(world, ONE), "go", context={"user": "from-token"})
        )
        done = pause(result, sealer, session=SESSION)
        (only,) = done.interrupts
        answer = Resume(restart=[only.approve()])
        context = {"user": "from-server"}
        answer_with(world, sealer, MemoryStore(), done.token, answer, context=context)
        assert world.contexts == [context]

    def test_resume_sync_resumes(self, world: World, sealer: Sealer) -> None:
        """resume_sync is resume for synchronous callers."""
        done = paused(world, sealer)
        (only,) = done.interrupts
        fresh = agent(world, ONE)
        answer = Resume(restart=[only.approve()])
        result = resume_sync(
            fresh, done.token, answer, sealer, MemoryStore(), session=SESSION
        )
        assert result.final_output == "done"
        assert len(world.transfers) == 1

    def test_resume_sync_in_a_running_loop_is_event_loop_running(
        self, world: World, sealer: Sealer
    ) -> None:
        """resume_sync in a running loop raises EventLoopRunning; nothing ran."""
        done = paused(world, sealer)
        (only,) = done.interrupts
        answer = Resume(restart=[only.approve()])
        store = MemoryStore()

        async def inside() -> None:
            resume_sync(
                agent(world, ONE), done.token, answer, sealer, store, session=SESSION
            )

        with pytest.raises(EventLoopRunning) as caught:
            asyncio.run(inside())
        assert (caught.value.code, caught.value.where) == (
            "event_loop_running",
            "resume",
        )
        assert world.transfers == []


def core_door(
    world: World, sealer: Sealer, store: Store, token: str, answer: Resume
) -> None:
    """A server's sealed-turn door: redeem, then run each approved transfer.

    It stands for `continue_resolved` running the library's own tool.
    """
    resolved = asyncio.run(sealer.redeem(token, answer, store, session=SESSION))
    for each in resolved.answers:
        match each.entry, each.interrupt.tool:
            case Restart(resumed=resumed), ToolRequest(input=given):
                if isinstance(decision_from_json(resumed), Approve):
                    world.transfers.append(given)


PACKED: Final = "openai-agents run state, zlib"


def _state_of(token: str, sealer: Sealer) -> tuple[InterruptedTurn, str]:
    """A token's turn and the run state's JSON text packed in it."""
    turn = sealer.open(token, audience=AUDIENCE)
    (message,) = turn.messages
    mark, packed = (cast("Text", part).text for part in message.parts)
    assert mark == PACKED
    return turn, zlib.decompress(base64.b64decode(packed)).decode()


def _sealed_with(turn: InterruptedTurn, sealer: Sealer, mark: str, text: str) -> str:
    """*turn* sealed again, its run state replaced by *mark* and *text*."""
    messages = (Message(Role.SYSTEM, (Text(mark), Text(text))),)
    return sealer.seal(attrs.evolve(turn, messages=messages), audience=AUDIENCE)


def _packed(raw: bytes) -> str:
    """*raw* as a packed state: base64 of its bytes."""
    return base64.b64encode(raw).decode()


class TestPackedState:
    def test_the_state_is_packed_and_reads_back(
        self, world: World, sealer: Sealer
    ) -> None:
        """A token carries the run state compressed; it is the SDK's own JSON."""
        done = paused(world, sealer)
        _, text = _state_of(done.token, sealer)
        assert json.loads(text)["current_turn"] >= 1
        assert len(done.token) < len(text)

    def test_a_token_sealed_before_packing_still_resumes(
        self, world: World, sealer: Sealer
    ) -> None:
        """A token of the state as plain JSON (an earlier version's) resumes once."""
        done = paused(world, sealer)
        turn, text = _state_of(done.token, sealer)
        plain = _sealed_with(turn, sealer, "openai-agents run state", text)
        (only,) = done.interrupts
        answer = Resume(restart=[only.approve()])
        store = MemoryStore()
        answer_with(world, sealer, store, plain, answer)
        assert world.transfers == [TRANSFER]
        refused = codes(lambda: answer_with(world, sealer, store, done.token, answer))
        assert refused == (ProblemCode.CONSUMED,)

    @pytest.mark.parametrize(
        "packed",
        [
            "!!not base64!!",
            _packed(b"not zlib"),
            _packed(zlib.compress(b"\xff\xfe not utf-8")),
            _packed(zlib.compress(b"{}")[:-3]),
            _packed(zlib.compress(b"{}") + b"trailing"),
            _packed(zlib.compress(b" " * 5000)),
        ],
        ids=["base64", "zlib", "utf-8", "truncated", "trailing", "too-large"],
    )
    def test_a_state_that_does_not_unpack_is_bad_token(
        self, world: World, packed: str
    ) -> None:
        """A signed state that does not inflate, or inflates too far, is bad_token."""
        sealer = Sealer({"k1": b"1" * 32}, active="k1", max_token_chars=4096)
        done = pause(
            run(world), Sealer({"k1": b"1" * 32}, active="k1"), session=SESSION
        )
        turn = Sealer({"k1": b"1" * 32}, active="k1").open(
            done.token, audience=AUDIENCE
        )
        token = _sealed_with(turn, sealer, PACKED, packed)
        (only,) = done.interrupts
        answer = Resume(restart=[only.approve()])
        refused = codes(
            lambda: answer_with(world, sealer, MemoryStore(), token, answer)
        )
        assert refused == (ProblemCode.BAD_TOKEN,)
        assert world.transfers == []


class TestDoors:
    def test_a_run_token_is_refused_by_sealer_redeem(
        self, world: World, sealer: Sealer
    ) -> None:
        """This adapter's token is bad_token at Sealer.redeem; nothing is spent."""
        done = paused(world, sealer)
        (only,) = done.interrupts
        answer, store = Resume(restart=[only.approve()]), MemoryStore()
        refused = codes(lambda: core_door(world, sealer, store, done.token, answer))
        assert refused == (ProblemCode.BAD_TOKEN,)
        assert world.transfers == []
        turn = sealer.open(done.token, audience=AUDIENCE)
        assert asyncio.run(store.spend(spent_key(turn), None))

    def test_a_sealed_turn_token_is_refused_by_resume(
        self, world: World, sealer: Sealer
    ) -> None:
        """A core sealed turn's token, even of this run state, is bad_token here."""
        done = paused(world, sealer)
        (only,) = done.interrupts
        core = sealer.seal(sealer.open(done.token, audience=AUDIENCE))
        answer, store = Resume(restart=[only.approve()]), MemoryStore()
        refused = codes(lambda: answer_with(world, sealer, store, core, answer))
        assert refused == (ProblemCode.BAD_TOKEN,)
        assert world.transfers == []
        answer_with(world, sealer, store, done.token, answer)
        assert world.transfers == [TRANSFER]

    def test_one_pause_through_both_doors_runs_once(
        self, world: World, sealer: Sealer
    ) -> None:
        """Redeemed as a sealed turn, then resumed here, the transfer runs once."""
        done = paused(world, sealer)
        (only,) = done.interrupts
        answer, store = Resume(restart=[only.approve()]), MemoryStore()
        with pytest.raises(ResumeRejected):
            core_door(world, sealer, store, done.token, answer)
        answer_with(world, sealer, store, done.token, answer)
        assert world.transfers == [TRANSFER]


def keys_of(token: str, sealer: Sealer) -> tuple[str, str]:
    """A pause's spend key (`pause_key`), and the key earlier releases spent."""
    _, text = _state_of(token, sealer)
    state = hashlib.sha256(text.encode()).hexdigest()
    return (
        pause_key("openai_agents", SESSION, state),
        json.dumps(["openai_agents", SESSION, state]),
    )


def spent_the_old_way(store: Store, old: str) -> None:
    """What a release before `pause_key` left of an accepted answer: marks, events."""
    at = datetime(2026, 1, 1, tzinfo=UTC)
    paused = AuditEvent(SESSION, 1, "paused", at, pending=("call-1",))
    accepted = AuditEvent(SESSION, 1, "accepted", at, pending=("call-1",))
    assert asyncio.run(store.spend_all([PAUSED_MARK + old], None, (paused,)))
    assert asyncio.run(store.spend_all([old], None, (accepted,)))


def only_alice(principal: str | None, _pending: PendingInterrupt) -> bool:
    """The authorizer: only alice may answer."""
    return principal == "alice"


class TestSpendKey:
    def test_a_pause_is_spent_under_pause_key_alone(
        self, world: World, sealer: Sealer
    ) -> None:
        """An accepted answer spends the pause's pause_key, never the old key."""
        done = paused(world, sealer)
        key, old = keys_of(done.token, sealer)
        (only,) = done.interrupts
        store = MemoryStore()
        answer_with(world, sealer, store, done.token, Resume(restart=[only.approve()]))
        assert asyncio.run(store.spent([key, old])) == {key}

    def test_a_pause_an_old_release_spent_stays_spent(
        self, world: World, sealer: Sealer, tmp_path: Path
    ) -> None:
        """Spent under the old key by an old release: consumed, after authorizing."""
        done = paused(world, sealer)
        key, old = keys_of(done.token, sealer)
        database = tmp_path / "spent.db"
        spent_the_old_way(SqliteStore(database), old)
        (only,) = done.interrupts
        answer, store = Resume(restart=[only.approve()]), SqliteStore(database)

        def as_(who: str) -> tuple[ProblemCode, ...]:
            policy = ResumePolicy(authorize=only_alice, principal=who)
            return codes(
                lambda: answer_with(
                    world, sealer, store, done.token, answer, policy=policy
                )
            )

        assert as_("eve") == (ProblemCode.NOT_AUTHORIZED,)
        assert as_("alice") == (ProblemCode.CONSUMED,)
        assert world.transfers == []
        assert asyncio.run(store.spent([key, old])) == {old}
        trail = asyncio.run(store.audit(SESSION))
        assert [(e.kind, e.codes) for e in trail] == [
            ("paused", ()),
            ("accepted", ()),
            ("rejected", ("not_authorized",)),
            ("rejected", ("consumed",)),
        ]

    def test_a_session_too_long_for_the_old_key_resumes(
        self, world: World, sealer: Sealer
    ) -> None:
        """A session whose old key no store takes (so never spent) resumes once."""
        session = "\N{GRINNING FACE}" * 256  # 256 characters; 3,000 bytes escaped
        done = pause(run(world), sealer, session=session)
        (only,) = done.interrupts
        answer, store = Resume(restart=[only.approve()]), MemoryStore()

        def again() -> RunResult:
            fresh = agent(world, ONE)
            return asyncio.run(
                resume(fresh, done.token, answer, sealer, store, session=session)
            )

        again()
        assert world.transfers == [TRANSFER]
        assert codes(again) == (ProblemCode.CONSUMED,)

    def test_the_bridge_lists_no_pause_an_old_release_spent(
        self, world: World, sealer: Sealer
    ) -> None:
        """The old release's spend hides the pause from the bridge; its trail stays."""
        done = paused(world, sealer)
        _, old = keys_of(done.token, sealer)

        def door(store: Store) -> Bridge:
            return bridge(
                agent(world, ONE), sealer, store, lambda: {SESSION: done.token}
            )

        assert len(asyncio.run(door(MemoryStore()).pending())) == 1
        store = MemoryStore()
        spent_the_old_way(store, old)
        assert asyncio.run(door(store).pending()) == []
        assert asyncio.run(door(store).pause(SESSION)) is None
        trail = asyncio.run(door(store).audit(SESSION))
        assert [event.kind for event in trail] == ["paused", "accepted"]


TWO: Final[Calls] = (*ONE, ("transfer_money", {"to": "B", "amount": 2}, "call-2"))
PARTIAL: Final = ResumePolicy(allow_partial=True)


class TestSplitAnswers:
    def test_answers_split_over_two_requests_run_each_call_once(
        self, world: World, sealer: Sealer
    ) -> None:
        """However a pause's answers are split over its tokens, each call runs once."""
        done = paused(world, sealer, TWO)
        first, second = done.interrupts
        store = MemoryStore()
        rest = answer_with(
            world,
            sealer,
            store,
            done.token,
            Resume(restart=[first.approve()]),
            policy=PARTIAL,
        )
        more = pause(rest, sealer, session=SESSION)
        (left,) = more.interrupts
        assert left == second
        attempts = [
            (done.token, Resume(restart=[second.approve()])),
            (done.token, Resume(restart=[first.approve(), second.approve()])),
            (more.token, Resume(restart=[second.approve()])),
            (more.token, Resume(restart=[second.approve()])),
        ]
        for token, answer in attempts:  # which one runs is the key scheme's call
            with contextlib.suppress(ResumeRejected):
                answer_with(world, sealer, store, token, answer, policy=PARTIAL)
        assert world.transfers == [TRANSFER, {"to": "B", "amount": 2}]

    def test_one_call_answered_by_two_requests_at_once_runs_once(
        self, world: World, sealer: Sealer
    ) -> None:
        """Two concurrent resumes approving one call, in other batches, run it once."""
        done = paused(world, sealer, TWO)
        first, second = done.interrupts
        store = MemoryStore()
        batches = (
            Resume(restart=[first.approve()]),
            Resume(restart=[first.approve(), second.approve()]),
        )

        async def both() -> list[RunResult | BaseException]:
            return await asyncio.gather(
                *(
                    resume(
                        agent(world, ONE),
                        done.token,
                        answer,
                        sealer,
                        store,
                        session=SESSION,
                        policy=PARTIAL,
                    )
                    for answer in batches
                ),
                return_exceptions=True,
            )

        outcomes = asyncio.run(both())
        refused = [o.codes for o in outcomes if isinstance(o, ResumeRejected)]
        assert refused == [(ProblemCode.CONSUMED,)]
        assert world.transfers.count(TRANSFER) == 1


class TestQuestionTool:
    def test_it_always_pauses(self) -> None:
        """A question tool needs approval: the SDK never runs it unasked."""
        tool = question_tool("ask", "Ask.", input_schema={}, answer_schema=ANSWERS)
        assert isinstance(tool, QuestionTool)
        assert tool.needs_approval is True
        assert tool.answer_schema == ANSWERS

    def test_a_schema_it_cannot_run_is_refused(self) -> None:
        """An answer schema the library cannot run is a SchemaError when made."""
        with pytest.raises(SchemaError):
            question_tool("ask", "Ask.", input_schema={}, answer_schema={"type": 3})

    def test_approved_around_the_adapter_it_answers_nothing(self, world: World) -> None:
        """Approved with the bare SDK, a question fails the run: no made-up answer."""
        result = run(world, ASK)
        state = result.to_state()
        (item,) = state.get_interruptions()
        state.approve(item)
        with pytest.raises(UserError, match="no validated answer for question call"):
            asyncio.run(Runner.run(agent(world, ONE), state))
        assert world.seen == []


DECISIONS: Final = st.one_of(
    st.just("approve"),
    st.builds(lambda note: {"approve": {"note": note}}, st.none() | texts()),
    st.builds(lambda reason: {"reject": {"reason": reason}}, texts()),
    json_values(max_leaves=3),
)
INPUTS: Final = st.sampled_from([None, TRANSFER, {**TRANSFER, "to": "MALLORY"}, "x"])
NAMES: Final = st.sampled_from(["transfer_money", "ask_user", "other"])
REFS: Final = st.sampled_from(["call-1", "call-2", "call-1-forged"])
GENUINE: Final = st.builds(
    Restart,
    st.just("transfer_money"),
    st.just("call-1"),
    DECISIONS,
    st.sampled_from([None, TRANSFER]),
)
RESUMES: Final = st.one_of(
    st.builds(Resume, restart=st.tuples(GENUINE)),
    st.builds(
        Resume,
        respond=st.lists(st.builds(Respond, NAMES, REFS, DECISIONS), max_size=2),
        restart=st.lists(
            GENUINE | st.builds(Restart, NAMES, REFS, DECISIONS, INPUTS), max_size=2
        ),
    ),
)


def core_codes(answer: Resume, turn: InterruptedTurn) -> tuple[ProblemCode, ...]:
    """What the core's validation refuses *answer* with; () when it accepts it."""
    try:
        validate_resume(answer, turn)
    except ResumeRejected as rejected:
        return rejected.codes
    return ()


class TestLaw:
    @given(answer=RESUMES)
    def test_it_accepts_exactly_what_the_core_accepts(self, answer: Resume) -> None:
        """What the core refuses is refused, running nothing; the rest runs once."""
        world, sealer = World(), Sealer({"k1": b"1" * 32}, active="k1")
        token = LAW.paused.token
        expected = core_codes(answer, sealer.open(token, audience=AUDIENCE))
        if expected:
            store = MemoryStore()
            refused = codes(lambda: answer_with(world, sealer, store, token, answer))
            assert refused == expected
            assert world.transfers == []
            return
        answer_with(world, sealer, MemoryStore(), token, answer)
        (entry,) = answer.restart
        match decision_from_json(entry.resumed):
            case Approve():
                assert world.transfers == [TRANSFER]
            case Reject(reason=reason):
                assert world.transfers == []
                assert world.seen == [reason]


@attrs.define
class _Law:
    """One pause shared by every example of the law (sealing is the slow part)."""

    _paused: PausedRun | None = None

    @property
    def paused(self) -> PausedRun:
        if self._paused is None:
            sealer = Sealer({"k1": b"1" * 32}, active="k1")
            self._paused = pause(run(World()), sealer, session=SESSION)
        return self._paused


LAW: Final = _Law()
