"""The MCP adapter: a real MCPServer and Client in one process, both flows."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Final, Literal, TypeVar, cast

import attrs
import mcp_types
import pytest
from interruption import (
    JSON,
    ApprovalPending,
    ArgumentTypeError,
    AuditEvent,
    Bridge,
    Custom,
    ExpiryAnswer,
    Interrupted,
    InvalidArgument,
    MemoryStore,
    PendingInterrupt,
    PendingPause,
    Phase,
    ProblemCode,
    Respond,
    Resume,
    ResumePolicy,
    ResumeRejected,
    ScheduledPause,
    ToolContext,
    define_interrupt,
    json_schema,
    pending_everywhere,
    tool,
)
from interruption.adapters.mcp import (
    ANSWER_FIELD,
    APPROVAL_FORM,
    DEFAULT_TTL,
    STATE_REFUSED,
    Dismiss,
    ElicitationBridge,
    FormSchemaError,
    answer,
    bridge,
    elicitation_callback,
    form_of,
    mcp_tool,
    pending_of,
    rejection_of,
)
from interruption.runtime.tools import NULL_ONLY
from mcp import Client
from mcp.client.session import ClientRequestContext, ElicitationFnT
from mcp.server import request_state
from mcp.server.mcpserver import MCPServer
from mcp.server.request_state import RequestStateSecurity
from mcp.shared.exceptions import MCPError

YES_NO: Final[dict[str, JSON]] = {"enum": ["Yes", "No"]}
ARGS: Final[dict[str, JSON]] = {"to": "ACME", "amount": 5}
KEY: Final = b"k" * 32
MCP_TTL: Final = 600.0
"""How long MCP's boundary takes a request state, by default."""

Callback = ElicitationFnT


class Clock:
    """One fake clock for MCP's request-state check and the adapter's policy."""

    def __init__(self) -> None:
        self.at = time.time()

    def time(self) -> float:
        """Seconds since the epoch, as MCP's boundary reads them."""
        return self.at

    def now(self) -> datetime:
        """The same moment, as a `ResumePolicy` reads it."""
        return datetime.fromtimestamp(self.at, UTC)

    def advance(self, seconds: float) -> None:
        """Let *seconds* pass."""
        self.at += seconds


class Bench:
    """A server with four tools over one store, and what they did."""

    def __init__(
        self,
        clock: Clock,
        *,
        ttl: timedelta = DEFAULT_TTL,
        security: RequestStateSecurity | None = None,
        name: str = "bench",
    ) -> None:
        self.store = MemoryStore()
        self.sent: list[JSON] = []

        @tool(input={"type": "object"}, output={"type": "object"})
        def transfer_money(ctx: ToolContext[JSON], args: JSON) -> JSON:
            """Send money."""
            if not ctx.approved:
                raise Interrupted(ApprovalPending(ctx.ref), args)
            self.sent.append(args)
            return {"status": "sent"}

        @tool(
            input={"type": "object"},
            output={"type": "string"},
            resume={
                "type": "object",
                "properties": {"city": {"type": "string", "minLength": 1}},
                "required": ["city"],
            },
        )
        def ship(ctx: ToolContext[JSON], _args: JSON) -> str:
            """Ship somewhere the human says."""
            if ctx.resumed is None:
                ctx.interrupt({"ask": "where to?"})
            assert isinstance(ctx.resumed, dict)
            return f"shipped to {ctx.resumed['city']}"

        confirm = define_interrupt(
            "confirm",
            "Confirm.",
            input={"type": "object"},
            output=YES_NO,
            on_expiry=ExpiryAnswer("No"),
        )
        ask = define_interrupt("ask", "Ask.", input={"type": "object"}, output=YES_NO)
        tools = [transfer_money, ship, confirm, ask]
        policy = ResumePolicy(now=clock.now)
        self.server = MCPServer(
            name,
            tools=[
                mcp_tool(each, self.store, policy=policy, ttl=ttl) for each in tools
            ],
            request_state_security=security,
        )

    async def legacy(
        self, name: str, callback: Callback, args: Mapping[str, JSON] = ARGS
    ) -> mcp_types.CallToolResult:
        """Call *name* in the handshake flow, answering with *callback*."""
        client = Client(self.server, mode="legacy", elicitation_callback=callback)
        failed: MCPError | None = None
        async with client:
            try:
                return await client.call_tool(name, dict(args))
            except MCPError as error:  # raised outside the client's task group
                failed = error
        raise failed

    async def first(
        self, name: str, args: Mapping[str, JSON] = ARGS
    ) -> mcp_types.InputRequiredResult:
        """Call *name* in the 2026 flow: its input-required result."""
        async with Client(self.server) as client:
            result = await client.session.call_tool(
                name, dict(args), allow_input_required=True
            )
        assert isinstance(result, mcp_types.InputRequiredResult)
        return result

    async def raw_retry(
        self,
        name: str,
        state: str | None,
        responses: dict[str, Any],
        args: Mapping[str, JSON] = ARGS,
    ) -> mcp_types.CallToolResult | MCPError:
        """Retry *name* with *state* and *responses*; the result or the error."""
        async with Client(self.server) as client:
            try:
                result = await client.session.call_tool(
                    name,
                    dict(args),
                    input_responses=responses,
                    request_state=state,
                    allow_input_required=True,
                )
            except MCPError as error:  # raised outside the client's task group
                return error
        assert isinstance(result, mcp_types.CallToolResult)
        return result

    async def retry(
        self,
        name: str,
        paused: mcp_types.InputRequiredResult,
        responses: dict[str, Any],
        args: Mapping[str, JSON] = ARGS,
    ) -> mcp_types.CallToolResult | ResumeRejected:
        """Retry *name* with *responses*; the result or the rejection."""
        done = await self.raw_retry(name, paused.request_state, responses, args)
        if isinstance(done, MCPError):
            rejected = rejection_of(done)
            assert rejected is not None, done
            return rejected
        return done


def _human(reply: Resume | Dismiss | Callable[[PendingInterrupt], Resume]) -> Callback:
    def handler(pending: PendingInterrupt) -> Resume | Dismiss:
        return reply(pending) if callable(reply) else reply

    return elicitation_callback(handler)


def _raw(result: mcp_types.ElicitResult) -> Callback:
    async def callback(
        context: ClientRequestContext, params: mcp_types.ElicitRequestParams
    ) -> mcp_types.ElicitResult:
        del context, params
        return result

    return callback


def _text(result: mcp_types.CallToolResult) -> str:
    (block,) = result.content
    assert isinstance(block, mcp_types.TextContent)
    return block.text


def _accept(content: dict[str, Any]) -> mcp_types.ElicitResult:
    return mcp_types.ElicitResult(action="accept", content=content)


def _key(paused: mcp_types.InputRequiredResult) -> str:
    assert paused.input_requests is not None
    (key,) = paused.input_requests
    return key


@pytest.fixture(name="clock")
def _clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(request_state, "time", clock)
    return clock


@pytest.fixture(name="bench")
def _bench(clock: Clock) -> Bench:
    return Bench(clock)


class TestHandshakeFlow:
    """``Client(..., mode="legacy")``: the form is asked in the middle of the call."""

    def test_an_approval_runs_the_call_once(self, bench: Bench) -> None:
        """An approve() from the human's handler runs the approved call."""
        callback = _human(lambda pending: Resume(restart=[pending.approve()]))
        result = asyncio.run(bench.legacy("transfer_money", callback))
        assert not result.is_error
        assert result.structured_content == {"status": "sent"}
        assert bench.sent == [ARGS]

    def test_a_rejection_is_what_the_caller_sees(self, bench: Bench) -> None:
        """A reject(reason) runs nothing; the result is an error with the reason."""
        callback = _human(lambda pending: Resume(restart=[pending.reject("no way")]))
        result = asyncio.run(bench.legacy("transfer_money", callback))
        assert result.is_error
        assert _text(result) == "rejected: no way"
        assert bench.sent == []

    def test_a_decline_of_an_approval_is_a_rejection(self, bench: Bench) -> None:
        """Declining an approval form rejects the call, saying so."""
        result = asyncio.run(bench.legacy("transfer_money", _human("decline")))
        assert _text(result) == "rejected: the user chose decline"
        assert bench.sent == []

    def test_an_answer_is_the_result(self, bench: Bench) -> None:
        """A question's answer is the interrupt-only tool's result."""
        callback = _human(lambda pending: Resume(respond=[pending.respond("Yes")]))
        result = asyncio.run(bench.legacy("ask", callback))
        assert json.loads(_text(result)) == "Yes"

    def test_a_cancel_is_the_expiry_answer(self, bench: Bench) -> None:
        """Cancelling a question whose tool declares one gives its expiry answer."""
        result = asyncio.run(bench.legacy("confirm", _human("cancel")))
        assert json.loads(_text(result)) == "No"

    def test_a_decline_without_expiry_answer_fails_the_call(self, bench: Bench) -> None:
        """Declining a question without an expiry answer fails the call."""
        result = asyncio.run(bench.legacy("ask", _human("decline")))
        assert result.is_error
        assert _text(result) == "the user declined to answer"

    def test_a_restart_brings_the_form_back_as_resumed(self, bench: Bench) -> None:
        """A ctx.interrupt() form's answer restarts the tool with ctx.resumed."""

        def reply(pending: PendingInterrupt) -> Resume:
            assert pending.accepts.respond is not None
            return Resume(respond=[pending.respond({"city": "Lyon"})])

        result = asyncio.run(bench.legacy("ship", _human(reply)))
        assert json.loads(_text(result)) == "shipped to Lyon"

    def test_extra_keys_are_refused_not_dropped(self, bench: Bench) -> None:
        """Content with a key the form lacks is a schema_violation; nothing runs."""
        raw = _raw(_accept({"decision": "approve", "extra": 1}))
        with pytest.raises(MCPError) as caught:
            asyncio.run(bench.legacy("transfer_money", raw))
        rejected = rejection_of(caught.value)
        assert rejected is not None
        assert rejected.codes == (ProblemCode.SCHEMA_VIOLATION,)
        assert bench.sent == []

    def test_a_wrapped_answer_with_extra_keys_is_refused(self, bench: Bench) -> None:
        """A one-field form's answer beside another key is a schema_violation."""
        raw = _raw(_accept({ANSWER_FIELD: "Yes", "also": "No"}))
        with pytest.raises(MCPError) as caught:
            asyncio.run(bench.legacy("ask", raw))
        rejected = rejection_of(caught.value)
        assert rejected is not None
        assert rejected.codes == (ProblemCode.SCHEMA_VIOLATION,)

    def test_a_handler_answer_outside_the_schema_is_never_sent(
        self, bench: Bench
    ) -> None:
        """The callback refuses a bad answer locally: the call fails, nothing runs."""
        seen: list[PendingInterrupt] = []

        async def handler(pending: PendingInterrupt) -> Resume:
            seen.append(pending)
            return Resume(respond=[pending.respond("Yes")])  # for an approval

        with pytest.raises(MCPError, match="answer_not_accepted"):
            asyncio.run(bench.legacy("transfer_money", elicitation_callback(handler)))
        assert isinstance(seen[0].kind, ApprovalPending)
        assert bench.sent == []

    def test_a_handler_reply_that_is_no_answer_fails_the_call(
        self, bench: Bench
    ) -> None:
        """A reply that is no Resume nor a dismissal fails the call, saying so."""

        def handler(_pending: PendingInterrupt) -> Resume:
            return "maybe"  # type: ignore[return-value]

        with pytest.raises(MCPError, match="expected a Resume") as caught:
            asyncio.run(bench.legacy("transfer_money", elicitation_callback(handler)))
        assert rejection_of(caught.value) is None
        assert bench.sent == []

    def test_the_callbacks_refusal_reaches_the_caller_coded(self, bench: Bench) -> None:
        """The caller reads the callback's local refusal with rejection_of."""

        def handler(pending: PendingInterrupt) -> Resume:
            return Resume(respond=[pending.respond("Yes")])  # for an approval

        with pytest.raises(MCPError) as caught:
            asyncio.run(bench.legacy("transfer_money", elicitation_callback(handler)))
        rejected = rejection_of(caught.value)
        assert rejected is not None
        assert rejected.codes == (ProblemCode.ANSWER_NOT_ACCEPTED,)
        assert bench.sent == []


class TestModernFlow:
    """The 2026-07-28 flow: an input-required result, retried with answers."""

    def test_the_form_is_the_answer_schema(self, bench: Bench) -> None:
        """A question's form is its answer schema, in one field."""
        paused = asyncio.run(bench.first("ask"))
        assert paused.input_requests is not None
        (request,) = paused.input_requests.values()
        assert isinstance(request, mcp_types.ElicitRequest)
        assert isinstance(request.params, mcp_types.ElicitRequestFormParams)
        assert request.params.requested_schema == form_of(YES_NO)
        pending = pending_of(request.params, _key(paused), tool="ask")
        assert pending.accepts.respond == {"type": "string", **YES_NO}

    def test_a_replay_is_consumed(self, bench: Bench) -> None:
        """The same state and answer twice: the second is consumed; one run."""
        paused = asyncio.run(bench.first("transfer_money"))
        responses = {_key(paused): _accept({"decision": "approve"})}
        first = asyncio.run(bench.retry("transfer_money", paused, responses))
        assert isinstance(first, mcp_types.CallToolResult)
        second = asyncio.run(bench.retry("transfer_money", paused, responses))
        assert isinstance(second, ResumeRejected)
        assert second.codes == (ProblemCode.CONSUMED,)
        assert bench.sent == [ARGS]

    def test_a_refused_answer_spends_nothing(self, bench: Bench) -> None:
        """A bad answer is refused; the same pause then takes a good one."""
        paused = asyncio.run(bench.first("ask"))
        key = _key(paused)
        bad = asyncio.run(bench.retry("ask", paused, {key: _accept({"x": "Yes"})}))
        assert isinstance(bad, ResumeRejected)
        assert bad.codes == (ProblemCode.SCHEMA_VIOLATION,)
        good = {key: _accept({ANSWER_FIELD: "No"})}
        done = asyncio.run(bench.retry("ask", paused, good))
        assert isinstance(done, mcp_types.CallToolResult)
        assert json.loads(_text(done)) == "No"

    def test_a_response_to_another_key_is_unknown(self, bench: Bench) -> None:
        """A response keyed by no pending call is unknown; the pause is missing."""
        paused = asyncio.run(bench.first("ask"))
        forged = {"other": _accept({ANSWER_FIELD: "Yes"})}
        rejected = asyncio.run(bench.retry("ask", paused, forged))
        assert isinstance(rejected, ResumeRejected)
        assert rejected.codes == (
            ProblemCode.UNKNOWN_INTERRUPT,
            ProblemCode.MISSING,
        )

    def test_no_responses_is_missing(self, bench: Bench) -> None:
        """A retry with the state and no answer is missing its answer."""
        paused = asyncio.run(bench.first("ask"))
        rejected = asyncio.run(bench.retry("ask", paused, {}))
        assert isinstance(rejected, ResumeRejected)
        assert rejected.codes == (ProblemCode.MISSING,)

    def test_a_response_of_another_kind_is_refused(self, bench: Bench) -> None:
        """A roots result where a form answer is due is a schema_violation."""
        paused = asyncio.run(bench.first("ask"))
        roots = mcp_types.ListRootsResult(roots=[])
        rejected = asyncio.run(bench.retry("ask", paused, {_key(paused): roots}))
        assert isinstance(rejected, ResumeRejected)
        assert rejected.codes == (ProblemCode.SCHEMA_VIOLATION,)

    def test_a_declined_question_is_spent(self, bench: Bench) -> None:
        """A decline ends the call, once: an answer after it is consumed."""
        paused = asyncio.run(bench.first("ask"))
        key = _key(paused)
        declined = mcp_types.ElicitResult(action="decline")
        ended = asyncio.run(bench.retry("ask", paused, {key: declined}))
        assert isinstance(ended, mcp_types.CallToolResult)
        assert ended.is_error
        late = asyncio.run(
            bench.retry("ask", paused, {key: _accept({"answer": "Yes"})})
        )
        assert isinstance(late, ResumeRejected)
        assert late.codes == (ProblemCode.CONSUMED,)

    def test_the_client_helpers_round_trip(self, bench: Bench) -> None:
        """pending_of and answer build what the server admits."""
        paused = asyncio.run(bench.first("ship"))
        assert paused.input_requests is not None
        ((key, request),) = paused.input_requests.items()
        assert isinstance(request, mcp_types.ElicitRequest)
        pending = pending_of(request.params, key, tool="ship", arguments=ARGS)
        assert isinstance(pending.kind, Custom)
        sent = answer(pending, Resume(respond=[pending.respond({"city": "Oslo"})]))
        done = asyncio.run(bench.retry("ship", paused, {key: sent}))
        assert isinstance(done, mcp_types.CallToolResult)
        assert json.loads(_text(done)) == "shipped to Oslo"

    def test_the_client_answer_is_a_plain_copy(self, bench: Bench) -> None:
        """The helper `answer` gives the SDK a plain dict; the Respond keeps its own."""
        paused = asyncio.run(bench.first("ship"))
        assert paused.input_requests is not None
        ((key, request),) = paused.input_requests.items()
        assert isinstance(request, mcp_types.ElicitRequest)
        pending = pending_of(request.params, key, tool="ship", arguments=ARGS)
        entry = pending.respond({"city": "Oslo"})
        sent = answer(pending, Resume(respond=[entry]))
        assert type(sent.content) is dict
        sent.content["city"] = "Bergen"
        assert entry.output == {"city": "Oslo"}


def _foreign(state: str) -> MCPServer:
    """A server of the bench's name and keys whose ``ask`` mints *state* itself."""
    server = MCPServer("bench", request_state_security=RequestStateSecurity(keys=[KEY]))

    @server.tool(name="ask", structured_output=False)
    def ask(to: str, amount: int) -> mcp_types.InputRequiredResult:
        """Pause with a request state of its own."""
        del to, amount
        return mcp_types.InputRequiredResult(request_state=state)

    return server


def _plaintext(sealed: str | None) -> str:
    """What a request state sealed under KEY holds, out of MCP's envelope."""
    assert sealed is not None
    claims = json.loads(RequestStateSecurity(keys=[KEY]).codec.unseal(sealed))
    inner = claims["s"]
    assert isinstance(inner, str)
    return inner


class TestStaleState:
    """A retry whose request state is past its life, altered, or not the tool's."""

    @staticmethod
    def _approve(bench: Bench) -> tuple[mcp_types.InputRequiredResult, dict[str, Any]]:
        """A transfer paused, approved once: its state and the answer."""
        paused = asyncio.run(bench.first("transfer_money"))
        responses = {_key(paused): _accept({"decision": "approve"})}
        done = asyncio.run(bench.retry("transfer_money", paused, responses))
        assert isinstance(done, mcp_types.CallToolResult)
        assert not done.is_error
        return paused, responses

    def test_a_replay_while_mcp_takes_the_state_is_consumed(
        self, bench: Bench, clock: Clock
    ) -> None:
        """A replay just inside the state's life reaches the tool: consumed."""
        paused, responses = self._approve(bench)
        clock.advance(MCP_TTL - 1)
        again = asyncio.run(bench.retry("transfer_money", paused, responses))
        assert isinstance(again, ResumeRejected)
        assert again.codes == (ProblemCode.CONSUMED,)
        assert bench.sent == [ARGS]

    def test_a_replay_after_the_states_life_is_bad_token(
        self, bench: Bench, clock: Clock
    ) -> None:
        """Past MCP's 600 s, MCP refuses the state itself: bad_token; nothing runs."""
        paused, responses = self._approve(bench)
        clock.advance(MCP_TTL + 1)
        again = asyncio.run(bench.retry("transfer_money", paused, responses))
        assert isinstance(again, ResumeRejected)
        assert again.codes == (ProblemCode.BAD_TOKEN,)
        assert "call the tool again" in again.problems[0].message
        assert bench.sent == [ARGS]

    def test_mcps_own_refusal_is_what_rejection_of_reads(
        self, bench: Bench, clock: Clock, caplog: pytest.LogCaptureFixture
    ) -> None:
        """MCP refuses a dead state with -32602, {"reason": STATE_REFUSED}; logs why."""
        paused = asyncio.run(bench.first("ask"))
        clock.advance(MCP_TTL + 1)
        answer = {_key(paused): _accept({ANSWER_FIELD: "Yes"})}
        with caplog.at_level(logging.WARNING, logger=request_state.__name__):
            error = asyncio.run(bench.raw_retry("ask", paused.request_state, answer))
        assert isinstance(error, MCPError)
        assert error.code == mcp_types.INVALID_PARAMS
        assert error.data == {"reason": STATE_REFUSED}
        assert error.message == "Invalid or expired requestState"
        assert caplog.messages == ["requestState rejected on tools/call: expired"]

    def test_a_late_first_answer_is_bad_token(self, bench: Bench, clock: Clock) -> None:
        """An answer after the state's life is refused the same way; nothing runs."""
        paused = asyncio.run(bench.first("transfer_money"))
        clock.advance(MCP_TTL + 1)
        answer = {_key(paused): _accept({"decision": "approve"})}
        late = asyncio.run(bench.retry("transfer_money", paused, answer))
        assert isinstance(late, ResumeRejected)
        assert late.codes == (ProblemCode.BAD_TOKEN,)
        assert bench.sent == []

    @pytest.mark.parametrize("action", ["decline", "cancel"])
    def test_a_dismissal_past_the_pauses_ttl_is_expired(
        self, clock: Clock, action: Literal["decline", "cancel"]
    ) -> None:
        """A decline or cancel past the ttl is expired, as an answer is; none spends."""
        bench = Bench(clock, ttl=timedelta(seconds=60))
        paused = asyncio.run(bench.first("ask"))
        clock.advance(61)
        key = _key(paused)
        dismissed = {key: mcp_types.ElicitResult(action=action)}
        late = asyncio.run(bench.retry("ask", paused, dismissed))
        again = asyncio.run(bench.retry("ask", paused, dismissed))
        assert isinstance(late, ResumeRejected)
        assert isinstance(again, ResumeRejected)
        assert late.codes == again.codes == (ProblemCode.EXPIRED,)
        trail = asyncio.run(bench.store.audit("mcp:ask"))
        assert [event.kind for event in trail] == ["paused", "rejected", "rejected"]

    def test_a_pause_past_its_own_ttl_is_expired(self, clock: Clock) -> None:
        """Past the pause's ttl: a first answer is expired, a replay consumed."""
        bench = Bench(clock, ttl=timedelta(seconds=60))
        paused, responses = self._approve(bench)
        fresh = asyncio.run(bench.first("transfer_money"))
        clock.advance(61)
        replay = asyncio.run(bench.retry("transfer_money", paused, responses))
        late = asyncio.run(
            bench.retry(
                "transfer_money",
                fresh,
                {_key(fresh): _accept({"decision": "approve"})},
            )
        )
        assert isinstance(replay, ResumeRejected)
        assert isinstance(late, ResumeRejected)
        assert replay.codes == (ProblemCode.CONSUMED,)
        assert late.codes == (ProblemCode.EXPIRED,)
        assert bench.sent == [ARGS]

    def test_an_altered_state_is_bad_token(self, bench: Bench) -> None:
        """A state changed by one character is refused by MCP: bad_token."""
        paused = asyncio.run(bench.first("transfer_money"))
        assert paused.request_state is not None
        middle = len(paused.request_state) // 2
        flipped = "A" if paused.request_state[middle] != "A" else "B"
        altered = (
            paused.request_state[:middle] + flipped + paused.request_state[middle + 1 :]
        )
        forged = paused.model_copy(update={"request_state": altered})
        answer = {_key(paused): _accept({"decision": "approve"})}
        rejected = asyncio.run(bench.retry("transfer_money", forged, answer))
        assert isinstance(rejected, ResumeRejected)
        assert rejected.codes == (ProblemCode.BAD_TOKEN,)
        assert bench.sent == []

    def test_a_state_of_another_tool_is_bad_token(self, bench: Bench) -> None:
        """The state of one tool's pause sent to another tool: bad_token."""
        paused = asyncio.run(bench.first("ask"))
        answer = {_key(paused): _accept({ANSWER_FIELD: "Yes"})}
        rejected = asyncio.run(bench.retry("confirm", paused, answer))
        assert isinstance(rejected, ResumeRejected)
        assert rejected.codes == (ProblemCode.BAD_TOKEN,)

    def test_a_state_with_other_arguments_is_bad_token(self, bench: Bench) -> None:
        """A retry with other arguments than the paused call's: bad_token."""
        paused = asyncio.run(bench.first("transfer_money"))
        answer = {_key(paused): _accept({"decision": "approve"})}
        other = {**ARGS, "to": "MALLORY"}
        rejected = asyncio.run(bench.retry("transfer_money", paused, answer, other))
        assert isinstance(rejected, ResumeRejected)
        assert rejected.codes == (ProblemCode.BAD_TOKEN,)
        assert bench.sent == []

    def test_a_state_of_another_server_is_bad_token(self, clock: Clock) -> None:
        """A state sealed by another server sharing the keys: bad_token."""
        security = RequestStateSecurity(keys=[KEY])
        bench = Bench(clock, security=security)
        other = Bench(clock, security=security, name="other")
        paused = asyncio.run(other.first("transfer_money"))
        answer = {_key(paused): _accept({"decision": "approve"})}
        rejected = asyncio.run(bench.retry("transfer_money", paused, answer))
        assert isinstance(rejected, ResumeRejected)
        assert rejected.codes == (ProblemCode.BAD_TOKEN,)
        assert bench.sent == other.sent == []

    def test_a_state_another_handler_minted_is_bad_token(self, clock: Clock) -> None:
        """A state MCP passes but the tool never minted (same name, same keys)."""
        bench = Bench(clock, security=RequestStateSecurity(keys=[KEY]))
        paused = asyncio.run(_first(_foreign("not a pause of this adapter")))
        answer = {"elsewhere": _accept({ANSWER_FIELD: "Yes"})}
        rejected = asyncio.run(bench.retry("ask", paused, answer))
        assert isinstance(rejected, ResumeRejected)
        assert rejected.codes == (ProblemCode.BAD_TOKEN,)
        assert "tool 'ask'" in rejected.problems[0].message

    def test_a_pause_of_other_arguments_is_input_modified(self, clock: Clock) -> None:
        """A pause of other arguments, minted again for these: input_modified."""
        bench = Bench(clock, security=RequestStateSecurity(keys=[KEY]))
        elsewhere = asyncio.run(bench.first("ask", {**ARGS, "to": "MALLORY"}))
        paused = asyncio.run(_first(_foreign(_plaintext(elsewhere.request_state))))
        answer = {_key(elsewhere): _accept({ANSWER_FIELD: "Yes"})}
        rejected = asyncio.run(bench.retry("ask", paused, answer))
        assert isinstance(rejected, ResumeRejected)
        assert rejected.codes == (ProblemCode.INPUT_MODIFIED,)

    @pytest.mark.parametrize(
        "error",
        [
            MCPError(mcp_types.INVALID_REQUEST, "x", {"reason": STATE_REFUSED}),
            MCPError(mcp_types.INVALID_PARAMS, "x", {"reason": "other"}),
            MCPError(mcp_types.INVALID_PARAMS, "x", STATE_REFUSED),
        ],
    )
    def test_only_mcps_refusal_reads_as_bad_token(self, error: MCPError) -> None:
        """Another code, reason or data shape is no refused state."""
        assert rejection_of(error) is None


async def _first(server: MCPServer) -> mcp_types.InputRequiredResult:
    """Call *server*'s ``ask`` in the 2026 flow: its input-required result."""
    async with Client(server) as client:
        result = await client.session.call_tool(
            "ask", dict(ARGS), allow_input_required=True
        )
    assert isinstance(result, mcp_types.InputRequiredResult)
    return result


class TestForms:
    """What a form can carry is decided when the tool is made."""

    def test_a_flat_object_is_sent_as_it_is(self) -> None:
        """A flat object of primitives is the form, with its required names."""
        schema: dict[str, JSON] = {
            "type": "object",
            "properties": {
                "email": {"type": "string", "format": "email"},
                "age": {"type": "integer", "minimum": 0},
                "ok": {"type": "boolean"},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["a"]}},
            },
            "required": ["email"],
        }
        assert form_of(schema) == schema

    def test_no_data_is_an_empty_form(self) -> None:
        """A resume of no data is a form without fields."""
        assert form_of(NULL_ONLY) == {"type": "object", "properties": {}}

    def test_a_nested_object_is_refused_by_name(self) -> None:
        """A property MCP cannot carry is named, with what was expected."""
        schema: dict[str, JSON] = {
            "type": "object",
            "properties": {"address": {"type": "object"}, "zip": {"pattern": "x"}},
        }
        with pytest.raises(FormSchemaError) as caught:
            form_of(schema)
        assert [p.path for p in caught.value.problems] == [
            "$.properties.address.type",
            "$.properties.zip.type",
        ]

    @pytest.mark.parametrize(
        ("schema", "path"),
        [
            ({"type": "string", "pattern": "^a"}, "$.pattern"),
            ({"type": "string", "format": "ipv4"}, "$.format"),
            ({"type": "string", "enum": [1]}, "$.enum"),
            ({"type": "array", "items": {"type": "integer"}}, "$.items"),
            (
                {"type": "object", "additionalProperties": True},
                "$.additionalProperties",
            ),
            ({"type": "object", "properties": [], "required": []}, "$.properties"),
            ({"type": "object", "properties": {}, "required": ["x"]}, "$.required"),
            ({"type": "object", "allOf": []}, "$.allOf"),
            ({"anyOf": [{"type": "string"}]}, "$.anyOf"),
            ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, "$.anyOf"),
            ({"type": "string", "oneOf": [{"const": "a"}]}, "$.oneOf"),
            (
                {"type": "array", "items": {"anyOf": [{"const": 1, "title": "One"}]}},
                "$.items",
            ),
            ({"type": "integer", "default": "x"}, "$.default"),
            ({"type": "string", "format": "email", "default": "nope"}, "$.default"),
            ({"type": "string", "minLength": -1}, "$"),
            ({"type": "integer", "minimum": "a", "default": 1}, "$"),
            (
                {"anyOf": [{"type": "string", "pattern": "a"}, {"type": "null"}]},
                "$.anyOf[0].pattern",
            ),
            ({"$ref": "#/$defs/A"}, "$.$ref"),
        ],
    )
    def test_each_part_mcp_cannot_carry_is_named(
        self, schema: dict[str, JSON], path: str
    ) -> None:
        """Each keyword or value outside MCP's forms is refused at its path."""
        with pytest.raises(FormSchemaError) as caught:
            form_of(schema)
        assert [p.path for p in caught.value.problems] == [path]

    def test_mcp_tool_refuses_a_schema_it_cannot_send(self) -> None:
        """A tool whose answer MCP cannot carry is refused when it is made."""
        nested = define_interrupt(
            "where",
            "Where?",
            input={"type": "object"},
            output={"type": "object", "properties": {"a": {"type": "object"}}},
        )
        with pytest.raises(FormSchemaError, match=r"tool 'where': its output schema"):
            mcp_tool(nested, MemoryStore())

    def test_a_non_string_property_is_refused(self) -> None:
        """A property that is not a schema object is named."""
        with pytest.raises(FormSchemaError) as caught:
            form_of({"type": "object", "properties": {"a": 1}})
        assert caught.value.problems[0].expected == "a property schema (an object)"


@attrs.frozen
class Shipping:
    """A typed resume: a city, and an optional floor (``int | None``)."""

    city: str
    floor: int | None = None


class TestTypedForms:
    """A tool whose resume is a class: its schema's ``$ref`` is the form."""

    def test_a_class_is_a_form_of_its_fields(self) -> None:
        """The class's fields are sent; ``int | None`` as a bare integer."""
        sent = form_of(json_schema(Shipping))
        assert sent == {
            "type": "object",
            "properties": {"city": {"type": "string"}, "floor": {"type": "integer"}},
            "required": ["city"],
        }

    def test_a_typed_tool_gets_its_class(self) -> None:
        """An accepted form restarts the tool with an instance (floor left out)."""

        @tool(input={"type": "object"}, output={"type": "string"}, resume=Shipping)
        def ship(ctx: ToolContext[Shipping], _args: JSON) -> str:
            """Ship somewhere the human says."""
            if ctx.resumed is None:
                ctx.interrupt({"ask": "where to?"})
            return f"{ctx.resumed.city}/{ctx.resumed.floor}"

        server = MCPServer("typed", tools=[mcp_tool(ship, MemoryStore())])

        async def call() -> mcp_types.CallToolResult:
            callback = _raw(_accept({"city": "Oslo"}))
            async with Client(
                server, mode="legacy", elicitation_callback=callback
            ) as c:
                return await c.call_tool("ship", {})

        assert json.loads(_text(asyncio.run(call()))) == "Oslo/None"

    def test_a_ref_beside_other_keywords_is_refused(self) -> None:
        """A ``$ref`` with anything but ``$defs`` beside it is no form."""
        schema = {**json_schema(Shipping), "title": "x"}
        with pytest.raises(FormSchemaError) as caught:
            form_of(schema)
        assert [p.path for p in caught.value.problems] == ["$.$ref"]

    def test_content_that_is_not_json_is_no_answer(self, bench: Bench) -> None:
        """A NaN in a form's content is refused as schema_violation, nothing spent."""
        paused = asyncio.run(bench.first("ask"))
        nan = _accept({"answer": float("nan")})
        rejected = asyncio.run(bench.retry("ask", paused, {_key(paused): nan}))
        assert isinstance(rejected, ResumeRejected)
        assert rejected.codes == (ProblemCode.SCHEMA_VIOLATION,)

    def test_restart_dismissed_needs_a_body(self) -> None:
        """An interrupt-only tool has nothing to restart: InvalidArgument."""
        ask = define_interrupt("ask", "Ask.", input={"type": "object"}, output=YES_NO)
        with pytest.raises(InvalidArgument) as caught:
            mcp_tool(ask, MemoryStore(), restart_dismissed=True)
        assert caught.value.code == "invalid_argument"

    @pytest.mark.parametrize(
        ("given", "got"),
        [([1], "an array"), (1j, "a complex"), (b"x", "a bytes")],
    )
    def test_a_property_that_is_no_schema_is_described(
        self, given: object, got: str
    ) -> None:
        """What stands where a property schema should is named by its kind."""
        with pytest.raises(FormSchemaError) as caught:
            form_of({"type": "object", "properties": {"a": given}})  # type: ignore[dict-item]
        assert caught.value.problems[0].got == got


class TestClientSide:
    """The client's reading of forms and its local checks."""

    def test_the_approval_form_is_an_approval(self) -> None:
        """The approval form reads as ApprovalPending with the call."""
        params = mcp_types.ElicitRequestFormParams(
            message="ok?", requested_schema=dict(APPROVAL_FORM)
        )
        pending = pending_of(params, "c1", tool="pay", arguments=ARGS)
        assert pending.kind == ApprovalPending("c1")
        assert pending.accepts.respond is None
        reject = Resume(restart=[pending.reject("no")])
        assert answer(pending, reject).content == {"decision": "reject", "reason": "no"}

    def test_an_object_form_is_answered_with_its_object(self) -> None:
        """A form of several fields takes an object, without extra keys."""
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"],
        }
        params = mcp_types.ElicitRequestFormParams(message="m", requested_schema=schema)
        pending = pending_of(params)
        assert pending.payload == {"message": "m"}
        assert answer(
            pending, Resume(respond=[pending.respond({"name": "x"})])
        ).content == {"name": "x"}
        with pytest.raises(ResumeRejected) as caught:
            pending.respond({"name": "x", "more": 1})
        assert caught.value.codes == (ProblemCode.SCHEMA_VIOLATION,)

    def test_an_empty_form_takes_none(self) -> None:
        """A form without fields is answered by respond(None), sent as {}."""
        params = mcp_types.ElicitRequestFormParams(
            message="go?", requested_schema={"type": "object", "properties": {}}
        )
        pending = pending_of(params)
        assert answer(pending, Resume(respond=[pending.respond(None)])).content == {}

    def test_a_url_elicitation_is_not_a_form(self) -> None:
        """A URL elicitation is refused with a TypeError naming it."""
        params = mcp_types.ElicitRequestURLParams(message="m", url="https://x.test")
        with pytest.raises(TypeError, match=r"https://x\.test"):
            pending_of(params)

    def test_answer_refuses_what_is_not_a_resume(self) -> None:
        """answer() names what it expected when given something else."""
        params = mcp_types.ElicitRequestFormParams(
            message="m", requested_schema=form_of(YES_NO)
        )
        with pytest.raises(TypeError, match="expected a Resume"):
            answer(pending_of(params), "maybe")  # type: ignore[arg-type]

    def test_a_url_elicitation_is_an_argument_type_error(self) -> None:
        """pending_of refuses a URL elicitation with the library's ArgumentTypeError."""
        params = mcp_types.ElicitRequestURLParams(message="m", url="https://x.test")
        with pytest.raises(ArgumentTypeError) as caught:
            pending_of(params)
        error = caught.value
        assert (error.code, error.where, error.expected) == (
            "argument_type_error",
            "pending_of: params",
            "a form elicitation",
        )
        assert "https://x.test" in error.got

    def test_answer_refuses_a_non_resume_with_an_argument_type_error(self) -> None:
        """answer() refuses what is not a Resume with the library's error."""
        params = mcp_types.ElicitRequestFormParams(
            message="m", requested_schema=form_of(YES_NO)
        )
        with pytest.raises(ArgumentTypeError) as caught:
            answer(pending_of(params), "maybe")  # type: ignore[arg-type]
        assert (caught.value.where, caught.value.got) == ("answer: resume", "'maybe'")

    def test_other_errors_are_no_rejection(self) -> None:
        """rejection_of is None for an error that is not the adapter's."""
        assert rejection_of(MCPError(-32602, "nope")) is None
        assert rejection_of(MCPError(-32602, "nope", {"other": 1})) is None


class TestRefusedPauses:
    """Pauses a tool may not raise, and calls outside the tool's contract."""

    @staticmethod
    def _server() -> MCPServer:
        @tool(input={"type": "object"}, output={"type": "string"})
        def elsewhere(_ctx: ToolContext[JSON], _args: JSON) -> str:
            """Ask approval for another call."""
            raise Interrupted(ApprovalPending("someone-else"), None)

        @tool(input={"type": "object"}, output={"type": "string"})
        def scheduled(_ctx: ToolContext[JSON], _args: JSON) -> str:
            """Raise a scheduled pause."""
            raise Interrupted(ScheduledPause(Phase.BEFORE, "x"), None)

        @tool(input={"type": "object"}, output={"type": "string"})
        def twice(ctx: ToolContext[JSON], _args: JSON) -> str:
            """Ask for approval, and again once approved."""
            raise Interrupted(ApprovalPending(ctx.ref), None)

        @tool(input={"type": "object", "required": ["n"]}, output={"type": "string"})
        def strict(_ctx: ToolContext[JSON], _args: JSON) -> str:
            """Need an n."""
            return "ran"

        @tool(input={"type": "object"}, output={"type": "string"})
        def go_on(ctx: ToolContext[JSON], _args: JSON) -> str:
            """Pause once, without data; go on when restarted."""
            if not ctx.restarted:
                ctx.interrupt("continue?")
            return "went on"

        tools = [elsewhere, scheduled, twice, strict, go_on]
        return MCPServer("odd", tools=[mcp_tool(each, MemoryStore()) for each in tools])

    @pytest.mark.parametrize(
        ("name", "error"),
        [
            ("elsewhere", "the tool asked approval for another call ('someone-else')"),
            ("scheduled", "a tool cannot raise scheduled_pause"),
            ("twice", "the tool asked again for an approval it has"),
        ],
    )
    def test_a_pause_a_tool_may_not_raise_fails_the_call(
        self, name: str, error: str
    ) -> None:
        """Such a pause is the call's failure, which the caller sees."""
        callback = _human(lambda pending: Resume(restart=[pending.approve()]))

        async def call() -> mcp_types.CallToolResult:
            client = Client(
                self._server(), mode="legacy", elicitation_callback=callback
            )
            async with client:
                return await client.call_tool(name, {})

        result = asyncio.run(call())
        assert result.is_error
        assert _text(result).startswith(error)

    def test_input_outside_the_schema_is_the_callers_error(self) -> None:
        """A call whose input breaks the tool's schema does not run."""

        async def call() -> mcp_types.CallToolResult:
            async with Client(self._server()) as client:
                return await client.call_tool("strict", {})

        result = asyncio.run(call())
        assert result.is_error
        assert _text(result).startswith("invalid input: $.input")

    def test_an_empty_form_restarts_without_data(self) -> None:
        """A pause of a tool without resume data is answered by an empty form."""

        async def reply(pending: PendingInterrupt) -> Resume:
            assert pending.accepts.respond == NULL_ONLY
            return Resume(respond=[pending.respond(None)])

        async def call() -> mcp_types.CallToolResult:
            callback = elicitation_callback(reply)
            client = Client(
                self._server(), mode="legacy", elicitation_callback=callback
            )
            async with client:
                return await client.call_tool("go_on", {})

        assert json.loads(_text(asyncio.run(call()))) == "went on"

    def test_an_empty_problem_list_is_no_rejection(self) -> None:
        """rejection_of is None when the listed problems are empty."""
        error = MCPError(-32602, "x", {"dev.interruption/resume_rejected": []})
        assert rejection_of(error) is None


T = TypeVar("T")
NO_CONTEXT: Final = cast("ClientRequestContext", None)
"""The request context a callback gets: the bridge reads nothing in it."""


async def _listed(door: ElicitationBridge, principal: str = "bob") -> PendingPause:
    """The form the bridge lists first, once one has reached it."""
    for _ in range(400):
        pauses = await door.pending(principal=principal)
        if pauses:
            return pauses[0]
        await asyncio.sleep(0.005)
    msg = "no form reached the bridge"
    raise AssertionError(msg)


async def _call(
    bench: Bench, door: ElicitationBridge, name: str, *, legacy: bool = False
) -> mcp_types.CallToolResult:
    """Call *name* with the bridge as the client's elicitation callback."""
    mode: Any = "legacy" if legacy else "auto"
    client = Client(bench.server, mode=mode, elicitation_callback=door.callback)
    async with client:
        return await client.call_tool(name, dict(ARGS))


async def _answered(
    door: ElicitationBridge,
    call: Awaitable[T],
    reply: Callable[[PendingPause], Resume],
) -> T:
    """Run *call*; answer the form it raises through the bridge; its outcome."""
    running = asyncio.ensure_future(call)
    pause = await _listed(door)
    await door.answer(pause.scope, reply(pause), principal="bob")
    return await running


def _approve(pause: PendingPause) -> Resume:
    return Resume(restart=[pause.interrupts[0].approve()])


def _params(paused: mcp_types.InputRequiredResult) -> mcp_types.ElicitRequestParams:
    assert paused.input_requests is not None
    (request,) = paused.input_requests.values()
    assert isinstance(request, mcp_types.ElicitRequest)
    return request.params


class TestBridge:
    """`bridge`: the client's forms, listed and answered once."""

    @pytest.mark.parametrize("legacy", [False, True])
    def test_a_real_form_is_listed_everywhere(
        self, bench: Bench, *, legacy: bool
    ) -> None:
        """A form the server sends is listed with its kind, accepts and scope."""
        door = bridge()
        assert isinstance(door, Bridge)
        assert door.door == "mcp"

        async def run() -> None:
            call = asyncio.ensure_future(_call(bench, door, "ask", legacy=legacy))
            pause = await _listed(door)
            assert (pause.door, len(pause.scope)) == ("mcp", 32)
            (asked,) = pause.interrupts
            assert isinstance(asked.kind, Custom)
            assert asked.accepts.respond == {"type": "string", **YES_NO}
            assert asked.accepts.restart is None
            assert await pending_everywhere([door]) == [pause]
            await door.answer(pause.scope, Resume(respond=[asked.respond("Yes")]))
            assert json.loads(_text(await call)) == "Yes"

        asyncio.run(run())

    def test_an_approval_runs_the_call_once(self, bench: Bench) -> None:
        """The bridge's accepted approval reaches the tool: it runs once."""
        door = bridge()

        async def run() -> mcp_types.CallToolResult:
            call = _call(bench, door, "transfer_money")
            return await _answered(door, call, _approve)

        result = asyncio.run(run())
        assert result.structured_content == {"status": "sent"}
        assert bench.sent == [ARGS]

    def test_the_answer_is_what_the_tool_gets(self, bench: Bench) -> None:
        """A restart's form comes back to the tool as exactly what was accepted."""
        door = bridge()

        def city(pause: PendingPause) -> Resume:
            return Resume(respond=[pause.interrupts[0].respond({"city": "Oslo"})])

        async def run() -> mcp_types.CallToolResult:
            return await _answered(door, _call(bench, door, "ship"), city)

        assert json.loads(_text(asyncio.run(run()))) == "shipped to Oslo"

    def test_a_second_answer_through_either_door_is_consumed(
        self, bench: Bench
    ) -> None:
        """Answered through the bridge: again there, or a server retry, consumed."""
        door = bridge()
        paused = asyncio.run(bench.first("transfer_money"))

        async def run() -> tuple[mcp_types.ElicitResult, PendingPause]:
            asked = asyncio.ensure_future(door.callback(NO_CONTEXT, _params(paused)))
            pause = await _listed(door)
            await door.answer(pause.scope, _approve(pause))
            sent = await asked
            assert isinstance(sent, mcp_types.ElicitResult)
            return sent, pause

        sent, pause = asyncio.run(run())
        responses = {_key(paused): sent}
        done = asyncio.run(bench.retry("transfer_money", paused, responses))
        assert isinstance(done, mcp_types.CallToolResult)
        again = asyncio.run(bench.retry("transfer_money", paused, responses))
        assert isinstance(again, ResumeRejected)
        assert again.codes == (ProblemCode.CONSUMED,)
        with pytest.raises(ResumeRejected) as caught:
            asyncio.run(door.answer(pause.scope, _approve(pause)))
        assert caught.value.codes == (ProblemCode.CONSUMED,)
        assert bench.sent == [ARGS]

    def test_an_answer_through_the_adapters_door_first_wins(self, bench: Bench) -> None:
        """Answered by a retry first, what the bridge sends is refused consumed."""
        door = bridge()
        paused = asyncio.run(bench.first("transfer_money"))
        params = _params(paused)
        pending = pending_of(params, _key(paused))
        own = {_key(paused): answer(pending, Resume(restart=[pending.approve()]))}
        done = asyncio.run(bench.retry("transfer_money", paused, own))
        assert isinstance(done, mcp_types.CallToolResult)

        async def run() -> mcp_types.ElicitResult | mcp_types.ErrorData:
            asked = asyncio.ensure_future(door.callback(NO_CONTEXT, params))
            pause = await _listed(door)
            await door.answer(pause.scope, _approve(pause))
            return await asked

        sent = asyncio.run(run())
        late = asyncio.run(bench.retry("transfer_money", paused, {_key(paused): sent}))
        assert isinstance(late, ResumeRejected)
        assert late.codes == (ProblemCode.CONSUMED,)
        assert bench.sent == [ARGS]

    def test_an_invalid_answer_spends_and_sends_nothing(self, bench: Bench) -> None:
        """An answer off the form is schema_violation; the form stays listed."""
        door = bridge()

        async def run() -> mcp_types.CallToolResult:
            call = asyncio.ensure_future(_call(bench, door, "ask"))
            pause = await _listed(door)
            (asked,) = pause.interrupts
            forged = Resume(respond=[Respond(asked.name, asked.ref, "Maybe")])
            with pytest.raises(ResumeRejected) as caught:
                await door.answer(pause.scope, forged)
            assert caught.value.codes == (ProblemCode.SCHEMA_VIOLATION,)
            assert await door.pending() == [pause]
            await door.answer(pause.scope, Resume(respond=[asked.respond("No")]))
            return await call

        assert json.loads(_text(asyncio.run(run()))) == "No"

    def test_a_refused_principal_sees_and_answers_nothing(self, bench: Bench) -> None:
        """A refused principal: no form, no trail, not_authorized; bob answers."""
        door = bridge(authorize=lambda who, _pending: who == "bob")

        async def run() -> mcp_types.CallToolResult:
            call = asyncio.ensure_future(_call(bench, door, "transfer_money"))
            pause = await _listed(door, "bob")
            assert await door.pending(principal="eve") == []
            assert await door.audit(pause.scope, principal="eve") == ()
            with pytest.raises(ResumeRejected) as caught:
                await door.answer(pause.scope, _approve(pause), principal="eve")
            assert caught.value.codes == (ProblemCode.NOT_AUTHORIZED,)
            assert bench.sent == []
            await door.answer(pause.scope, _approve(pause), principal="bob")
            assert await door.audit(pause.scope, principal="bob") != ()
            return await call

        asyncio.run(run())
        assert bench.sent == [ARGS]

    def test_the_audit_trail_shows_every_attempt(self, bench: Bench) -> None:
        """Paused, rejected and accepted events, in order, with the principal."""
        door = bridge()

        async def run() -> PendingPause:
            call = asyncio.ensure_future(_call(bench, door, "ask"))
            pause = await _listed(door)
            (asked,) = pause.interrupts
            forged = Resume(respond=[Respond(asked.name, asked.ref, "Maybe")])
            with pytest.raises(ResumeRejected):
                await door.answer(pause.scope, forged, principal="al")
            good = Resume(respond=[asked.respond("Yes")])
            await door.answer(pause.scope, good, principal="al")
            await call
            return pause

        pause = asyncio.run(run())
        trail = asyncio.run(door.audit(pause.scope))
        assert [event.kind for event in trail] == ["paused", "rejected", "accepted"]
        assert trail[1].codes == ("schema_violation",)
        assert {event.principal for event in trail[1:]} == {"al"}

    def test_an_answered_form_is_not_listed(self, bench: Bench) -> None:
        """Once answered, the form is gone from the list; each request has its scope."""
        door = bridge()

        async def run() -> list[str]:
            scopes = []
            for _ in range(2):
                call = asyncio.ensure_future(_call(bench, door, "transfer_money"))
                pause = await _listed(door)
                scopes.append(pause.scope)
                await door.answer(pause.scope, _approve(pause))
                assert await door.pending() == []
                await call
            return scopes

        first, second = asyncio.run(run())
        assert first != second
        assert bench.sent == [ARGS, ARGS]

    def test_a_form_whose_call_ended_is_nothing_pending(self) -> None:
        """A request cancelled unanswered is not listed; an answer is refused."""
        door = bridge()
        params = mcp_types.ElicitRequestFormParams(
            message="?", requested_schema=form_of(YES_NO)
        )

        async def run() -> None:
            asked = asyncio.ensure_future(door.callback(NO_CONTEXT, params))
            pause = await _listed(door)
            asked.cancel()
            with pytest.raises(asyncio.CancelledError):
                await asked
            assert await door.pending() == []
            reply = Resume(respond=[pause.interrupts[0].respond("Yes")])
            with pytest.raises(ResumeRejected) as caught:
                await door.answer(pause.scope, reply)
            assert caught.value.codes == (ProblemCode.NOTHING_PENDING,)

        asyncio.run(run())

    def test_a_call_ending_while_it_is_answered_gets_nothing(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A call that ends as its answer is spent: accepted, spent, never sent."""
        ended: list[Callable[[], object]] = []
        store = MemoryStore()
        spend_all = store.spend_all

        async def ending(
            keys: Sequence[str],
            keep_until: datetime | None,
            events: Sequence[AuditEvent] = (),
        ) -> bool:
            for end in ended:
                end()
            return await spend_all(keys, keep_until, events)

        monkeypatch.setattr(store, "spend_all", ending)
        door = bridge(store)
        params = mcp_types.ElicitRequestFormParams(
            message="?", requested_schema=form_of(YES_NO)
        )

        async def run() -> None:
            asked = asyncio.ensure_future(door.callback(NO_CONTEXT, params))
            pause = await _listed(door)
            ended.append(asked.cancel)
            reply = Resume(respond=[pause.interrupts[0].respond("Yes")])
            resolved = await door.answer(pause.scope, reply)
            assert resolved.answers[0].entry == reply.respond[0]
            with pytest.raises(asyncio.CancelledError):
                await asked
            with pytest.raises(ResumeRejected) as caught:
                await door.answer(pause.scope, reply)
            assert caught.value.codes == (ProblemCode.CONSUMED,)

        asyncio.run(run())

    def test_a_scope_never_filed_is_nothing_pending(self) -> None:
        """An unknown scope: nothing_pending, or not_authorized with an authorizer."""
        reply = Resume(respond=[])
        with pytest.raises(ResumeRejected) as caught:
            asyncio.run(bridge().answer("nope", reply))
        assert caught.value.codes == (ProblemCode.NOTHING_PENDING,)
        guarded = bridge(authorize=lambda _who, _pending: True)
        with pytest.raises(ResumeRejected) as caught:
            asyncio.run(guarded.answer("nope", reply))
        assert caught.value.codes == (ProblemCode.NOT_AUTHORIZED,)
        assert asyncio.run(guarded.audit("nope")) == ()

    @pytest.mark.parametrize(
        ("action", "told"),
        [
            ("decline", "the user declined to answer"),
            ("cancel", "the user cancelled the form"),
        ],
    )
    def test_a_form_may_be_dismissed_once(
        self, bench: Bench, action: Dismiss, told: str
    ) -> None:
        """A dismissal reaches the tool as MCP says it, once; it is audited."""
        door = bridge()

        async def run() -> tuple[mcp_types.CallToolResult, PendingPause]:
            call = asyncio.ensure_future(_call(bench, door, "ask"))
            pause = await _listed(door)
            await door.dismiss(pause.scope, action)
            assert await door.pending() == []
            with pytest.raises(ResumeRejected) as caught:
                await door.dismiss(pause.scope, action)
            assert caught.value.codes == (ProblemCode.CONSUMED,)
            return await call, pause

        result, pause = asyncio.run(run())
        assert result.is_error
        assert _text(result) == told
        trail = asyncio.run(door.audit(pause.scope))
        assert [(event.kind, event.reason) for event in trail] == [
            ("paused", None),
            ("accepted", action),
            ("rejected", None),
        ]

    def test_a_dismissal_is_decline_or_cancel(self) -> None:
        """Any other action is an ArgumentTypeError naming what was expected."""
        with pytest.raises(ArgumentTypeError, match="'decline' or 'cancel'"):
            asyncio.run(bridge().dismiss("s", "later"))  # type: ignore[arg-type]

    def test_a_url_elicitation_is_refused_at_once(self) -> None:
        """A form the bridge cannot list is refused -32602, never filed."""
        door = bridge()
        params = mcp_types.ElicitRequestURLParams(
            message="Sign in", url="https://example.com", elicitation_id="e1"
        )
        refused = asyncio.run(door.callback(NO_CONTEXT, params))
        assert isinstance(refused, mcp_types.ErrorData)
        assert refused.code == mcp_types.INVALID_PARAMS
        assert asyncio.run(door.pending()) == []

    def test_the_store_and_policy_are_the_apps(self) -> None:
        """A given store keeps the trail; a policy's authorizer is used."""
        store = MemoryStore()
        door = bridge(store, policy=ResumePolicy(authorize=lambda _w, _p: False))
        assert door.store is store
        assert asyncio.run(door.audit("nope", principal="bob")) == ()
