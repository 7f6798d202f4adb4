"""pydantic-ai's own deferred-tool tests, answered through the adapter.

Each test names the pydantic-ai test it ports (``tests/test_tools.py``:
``test_approval_required_toolset``, ``test_deferred_tool_call_result_tool_failed``,
``test_approval_required_with_user_prompt``, ``test_call_deferred_with_metadata``,
``test_approval_required_with_metadata``, ``test_mixed_deferred_tools_with_metadata``
and their ``_without_metadata`` twins, the ``ToolApproved(override_args=...)``
test, and the deferred-tools guide's "approval with metadata", read back as
``ctx.tool_call_metadata``) and asserts the same outcome through
`interruption.adapters.pydantic_ai`, or a refusal on purpose, with its code,
where the library's rules refuse what pydantic-ai allows (arguments changed
by an approval, an approval of an external call, a second answer).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from typing import Any, Final

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from interruption import (
    JSON,
    InvalidArgument,
    MemoryStore,
    PayloadError,
    PendingInterrupt,
    ProblemCode,
    Restart,
    Resume,
    ResumePolicy,
    ResumeRejected,
    json_equal,
)
from interruption.adapters.pydantic_ai import (
    MAX_METADATA_BYTES,
    Metadata,
    PausedRun,
    failed,
    pause_sync,
    resume_sync,
)
from interruption.testing.strategies import json_values
from pydantic_ai import (
    Agent,
    ApprovalRequired,
    CallDeferred,
    DeferredToolRequests,
    RunContext,
)
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.run import AgentRunResult
from pydantic_graph._utils import get_event_loop

Output = str | DeferredToolRequests
DENIED: Final = "not today"


@pytest.fixture(autouse=True)
def _close_the_loop() -> Iterator[None]:
    """Close the loop ``agent.run_sync`` left on the thread, after each test."""
    yield
    get_event_loop().close()
    asyncio.set_event_loop(None)


@attrs.define
class World:
    """One conversation: the model's first batch, then "Done!" (or an echo).

    Attributes:
        calls: The model's first batch of tool calls.
        ran: Each tool run: its name, its arguments, and what it read as
            ``ctx.tool_call_metadata``.
        last: The parts of the request the model saw last.
    """

    calls: Sequence[ToolCallPart]
    ran: list[tuple[str, JSON, object]] = attrs.Factory(list)
    last: list[object] = attrs.Factory(list)

    def model(self, messages: list[ModelMessage], _info: AgentInfo) -> ModelResponse:
        """The first batch, then "Done!" naming any new user prompt."""
        if len(messages) == 1:
            return ModelResponse(parts=list(self.calls))
        request = messages[-1]
        assert isinstance(request, ModelRequest)
        self.last = list(request.parts)
        prompts = [p.content for p in request.parts if isinstance(p, UserPromptPart)]
        return ModelResponse(
            parts=[TextPart(f"Done! {' '.join(map(str, prompts))}".strip())]
        )

    def agent(self) -> Agent[None, Output]:
        """A fresh agent (one process) with pydantic-ai's test tools."""
        agent: Agent[None, Output] = Agent(
            FunctionModel(self.model), output_type=[str, DeferredToolRequests]
        )

        @agent.tool
        def my_tool(ctx: RunContext[None], x: int) -> int:
            """Needs an approval, with metadata for the approver."""
            if not ctx.tool_call_approved:
                raise ApprovalRequired(
                    metadata={"reason": "High compute cost", "cost_usd": 100.0}
                )
            self.ran.append(("my_tool", {"x": x}, ctx.tool_call_metadata))
            return x * 42

        @agent.tool
        def plain_approval(ctx: RunContext[None], x: int) -> int:
            """Needs an approval, without metadata."""
            if not ctx.tool_call_approved:
                raise ApprovalRequired
            self.ran.append(("plain_approval", {"x": x}, ctx.tool_call_metadata))
            return x * 2

        @agent.tool_plain
        def external(fruit: str) -> str:  # noqa: ARG001 - the model's argument
            """Runs elsewhere, with metadata."""
            raise CallDeferred(metadata={"task_id": "task-123", "estimated_cost": 25.5})

        @agent.tool_plain
        def bare_external(fruit: str) -> str:  # noqa: ARG001 - the model's argument
            """Runs elsewhere, without metadata."""
            raise CallDeferred

        @agent.tool_plain
        def bar(x: int) -> int:
            """Runs in its batch."""
            self.ran.append(("bar", {"x": x}, None))
            return x * 3

        del my_tool, plain_approval, external, bare_external, bar
        return agent


@attrs.define
class Paused:
    """A world paused on its first batch, kept, with its store."""

    world: World
    paused: PausedRun
    store: MemoryStore

    def by_ref(self) -> dict[str, PendingInterrupt]:
        """The interrupts by tool call id."""
        return {p.ref: p for p in self.paused.interrupts}

    def resume(self, answer: Resume, **options: Any) -> AgentRunResult[Output]:
        """Resume through the adapter, in a fresh process (agent)."""
        return resume_sync(
            self.world.agent(),
            self.paused.id,
            answer,
            self.store,
            **options,
        )

    def refused(self, answer: Resume, **options: Any) -> tuple[ProblemCode, ...]:
        """Resume, expecting a refusal; its codes."""
        with pytest.raises(ResumeRejected) as refused:
            self.resume(answer, **options)
        return refused.value.codes


def paused_on(*calls: ToolCallPart) -> Paused:
    """Run a fresh world until it pauses on *calls*; keep the run."""
    world = World(calls)
    store = MemoryStore()
    paused = pause_sync(world.agent().run_sync("Hello"), store)
    assert paused is not None
    return Paused(world, paused, store)


def returns(parts: Sequence[object]) -> dict[str, tuple[object, str]]:
    """The tool returns among *parts*: content and outcome, by call id."""
    return {
        part.tool_call_id: (part.content, part.outcome)
        for part in parts
        if isinstance(part, ToolReturnPart)
    }


MY_TOOL: Final = ToolCallPart("my_tool", {"x": 1}, tool_call_id="my_tool")


class TestApprovals:
    def test_approved_runs_denied_tells_the_model(self) -> None:
        """``test_approval_required_toolset``: approved runs, denied told, bar once."""
        setup = paused_on(
            ToolCallPart("plain_approval", {"x": 1}, tool_call_id="foo1"),
            ToolCallPart("plain_approval", {"x": 2}, tool_call_id="foo2"),
            ToolCallPart("bar", {"x": 3}, tool_call_id="bar"),
        )
        pending = setup.by_ref()
        assert sorted(pending) == ["foo1", "foo2"]
        answer = Resume(
            restart=[pending["foo1"].approve(), pending["foo2"].reject(DENIED)]
        )
        result = setup.resume(answer)
        assert result.output == "Done!"
        assert returns(setup.world.last) == {
            "foo1": (2, "success"),
            "foo2": (DENIED, "denied"),
            "bar": (9, "success"),
        }
        assert [name for name, _, _ in setup.world.ran] == ["bar", "plain_approval"]

    def test_a_user_prompt_rides_along_with_the_results(self) -> None:
        """``test_approval_required_with_user_prompt``: the model sees both."""
        setup = paused_on(MY_TOOL)
        (pending,) = setup.paused.interrupts
        result = setup.resume(
            Resume(restart=[pending.approve()]),
            user_prompt="continue with extra instructions",
        )
        assert result.output == "Done! continue with extra instructions"
        assert returns(setup.world.last) == {"my_tool": (42, "success")}

    def test_without_a_user_prompt_only_results_are_sent(self) -> None:
        """No ``user_prompt``: the model's last request holds the results only."""
        setup = paused_on(MY_TOOL)
        (pending,) = setup.paused.interrupts
        assert setup.resume(Resume(restart=[pending.approve()])).output == "Done!"
        assert not any(isinstance(p, UserPromptPart) for p in setup.world.last)


class TestRequestMetadata:
    def test_approval_metadata_reaches_the_payload(self) -> None:
        """``test_approval_required_with_metadata``: the approver sees it; it runs."""
        setup = paused_on(MY_TOOL)
        (pending,) = setup.paused.interrupts
        assert pending.payload == {
            "tool": "my_tool",
            "args": {"x": 1},
            "metadata": {"reason": "High compute cost", "cost_usd": 100.0},
        }
        assert setup.resume(Resume(restart=[pending.approve()])).output == "Done!"

    def test_deferred_metadata_reaches_the_payload(self) -> None:
        """``test_call_deferred_with_metadata``: the payload carries the metadata."""
        setup = paused_on(
            ToolCallPart("external", {"fruit": "apple"}, tool_call_id="e1")
        )
        (pending,) = setup.paused.interrupts
        assert pending.payload == {
            "tool": "external",
            "args": {"fruit": "apple"},
            "metadata": {"task_id": "task-123", "estimated_cost": 25.5},
        }

    def test_no_metadata_no_key(self) -> None:
        """The ``_without_metadata`` twins: the payload is the call alone."""
        setup = paused_on(
            ToolCallPart("plain_approval", {"x": 1}, tool_call_id="a1"),
            ToolCallPart("bare_external", {"fruit": "pear"}, tool_call_id="e1"),
        )
        assert [p.payload for p in setup.paused.interrupts] == [
            {"tool": "plain_approval", "args": {"x": 1}},
            {"tool": "bare_external", "args": {"fruit": "pear"}},
        ]

    def test_mixed_deferred_tools_keep_their_own_metadata(self) -> None:
        """``test_mixed_deferred_tools_with_metadata``: each its own; all answered."""
        setup = paused_on(
            ToolCallPart("external", {"fruit": "a"}, tool_call_id="call_a"),
            ToolCallPart("my_tool", {"x": 2}, tool_call_id="call_b"),
            ToolCallPart("bare_external", {"fruit": "c"}, tool_call_id="call_c"),
        )
        pending = setup.by_ref()
        assert pending["call_a"].payload["metadata"] == {  # type: ignore[call-overload,index]
            "task_id": "task-123",
            "estimated_cost": 25.5,
        }
        assert "metadata" not in pending["call_c"].payload  # type: ignore[operator]
        answer = Resume(
            respond=[pending["call_a"].respond(10), pending["call_c"].respond(30)],
            restart=[pending["call_b"].approve()],
        )
        assert setup.resume(answer).output == "Done!"
        assert returns(setup.world.last) == {
            "call_a": (10, "success"),
            "call_b": (84, "success"),
            "call_c": (30, "success"),
        }


class TestAnswerMetadata:
    def test_an_approvals_note_reaches_the_tool(self) -> None:
        """Guide, "approval with metadata": the note is ``ctx.tool_call_metadata``."""
        setup = paused_on(MY_TOOL)
        (pending,) = setup.paused.interrupts
        setup.resume(Resume(restart=[pending.approve("checked by alice")]))
        assert setup.world.ran == [("my_tool", {"x": 1}, {"note": "checked by alice"})]

    def test_the_apps_metadata_reaches_the_tool_beside_the_note(self) -> None:
        """``DeferredToolResults.metadata``: the app's, merged with the note."""
        setup = paused_on(MY_TOOL)
        (pending,) = setup.paused.interrupts
        setup.resume(
            Resume(restart=[pending.approve("ok")]),
            metadata={"my_tool": {"approver": "alice"}},
        )
        assert setup.world.ran == [
            ("my_tool", {"x": 1}, {"approver": "alice", "note": "ok"})
        ]

    def test_no_note_no_metadata(self) -> None:
        """No note and no metadata: the tool reads ``ctx.tool_call_metadata`` None."""
        setup = paused_on(MY_TOOL)
        (pending,) = setup.paused.interrupts
        setup.resume(Resume(restart=[pending.approve()]))
        assert setup.world.ran == [("my_tool", {"x": 1}, None)]

    @settings(max_examples=15, suppress_health_check=[HealthCheck.too_slow])
    @given(
        value=st.dictionaries(
            st.text(min_size=1, max_size=5).filter(lambda key: key != "note"),
            json_values(),
            max_size=3,
        )
    )
    def test_any_json_metadata_reaches_the_tool_equal(
        self, value: dict[str, JSON]
    ) -> None:
        """Law: any JSON object the app sends is what the tool reads, JSON-equal."""
        setup = paused_on(MY_TOOL)
        (pending,) = setup.paused.interrupts
        setup.resume(Resume(restart=[pending.approve()]), metadata={"my_tool": value})
        ((_, _, seen),) = setup.world.ran
        assert json_equal(seen, value)  # type: ignore[arg-type]

    @pytest.mark.parametrize(
        ("metadata", "where"),
        [
            ({"nope": {"a": 1}}, "resume: metadata['nope']"),
            ({"my_tool": {"note": "forged"}}, "resume: metadata['my_tool']"),
            (
                {"my_tool": {"blob": "x" * MAX_METADATA_BYTES}},
                "resume: metadata['my_tool']",
            ),
        ],
        ids=["not-an-approval", "note-key", "too-large"],
    )
    def test_bad_metadata_is_refused_before_anything_is_spent(
        self, metadata: Metadata, where: str
    ) -> None:
        """Unknown call, forged note, oversized value: InvalidArgument; none spent."""
        setup = paused_on(MY_TOOL)
        (pending,) = setup.paused.interrupts
        answer = Resume(restart=[pending.approve()])
        with pytest.raises(InvalidArgument) as caught:
            setup.resume(answer, metadata=metadata)
        assert caught.value.where == where
        assert setup.resume(answer).output == "Done!"  # the run was not spent

    @pytest.mark.parametrize(
        "metadata",
        [{"nope": {"a": 1}}, {"my_tool": {"when": object()}}],
        ids=["not-an-approval", "not-json"],
    )
    def test_bad_metadata_tells_a_refused_principal_only_that(
        self, metadata: Metadata
    ) -> None:
        """A refused principal is not_authorized, never told the run's calls."""
        setup = paused_on(MY_TOOL)
        (pending,) = setup.paused.interrupts
        answer = Resume(restart=[pending.approve()])

        def alice_only(principal: str | None, _pending: PendingInterrupt) -> bool:
            return principal == "alice"

        mallory = ResumePolicy(authorize=alice_only, principal="mallory")
        codes = setup.refused(answer, metadata=metadata, policy=mallory)
        assert codes == (ProblemCode.NOT_AUTHORIZED,)
        assert setup.world.ran == []
        alice = ResumePolicy(authorize=alice_only, principal="alice")
        with pytest.raises((InvalidArgument, PayloadError)):
            setup.resume(answer, metadata=metadata, policy=alice)
        assert setup.resume(answer, policy=alice).output == "Done!"

    def test_metadata_that_is_not_json_is_a_payload_error(self) -> None:
        """A value that is not JSON is refused with the library's PayloadError."""
        setup = paused_on(MY_TOOL)
        (pending,) = setup.paused.interrupts
        with pytest.raises(PayloadError):
            setup.resume(
                Resume(restart=[pending.approve()]),
                metadata={"my_tool": {"when": object()}},
            )
        assert setup.world.ran == []


class TestFailures:
    def test_a_failed_answer_reaches_the_model_as_a_failure(self) -> None:
        """``test_deferred_tool_call_result_tool_failed``: outcome ``failed``."""
        setup = paused_on(
            ToolCallPart("bare_external", {"fruit": "apple"}, tool_call_id="buy")
        )
        (pending,) = setup.paused.interrupts
        result = setup.resume(Resume(respond=[failed(pending, "The store is closed")]))
        assert result.output == "Done!"
        assert returns(setup.world.last) == {"buy": ("The store is closed", "failed")}

    def test_an_empty_failure_is_a_schema_violation(self) -> None:
        """A failure says what failed: an empty message is ``schema_violation``."""
        setup = paused_on(
            ToolCallPart("bare_external", {"fruit": "apple"}, tool_call_id="buy")
        )
        (pending,) = setup.paused.interrupts
        with pytest.raises(ResumeRejected) as refused:
            failed(pending, "")
        assert refused.value.codes == (ProblemCode.SCHEMA_VIOLATION,)

    def test_an_approval_cannot_be_failed(self) -> None:
        """An approval takes a decision only: a failure is ``answer_not_accepted``."""
        setup = paused_on(MY_TOOL)
        (pending,) = setup.paused.interrupts
        with pytest.raises(ResumeRejected) as refused:
            failed(pending, "nope")
        assert refused.value.codes == (ProblemCode.ANSWER_NOT_ACCEPTED,)

    def test_a_result_that_only_looks_like_a_failure_is_a_result(self) -> None:
        """A ``kind`` of another value is an ordinary result, shown as it is."""
        setup = paused_on(
            ToolCallPart("bare_external", {"fruit": "apple"}, tool_call_id="buy")
        )
        (pending,) = setup.paused.interrupts
        value: JSON = {"kind": "receipt", "message": "paid"}
        setup.resume(Resume(respond=[pending.respond(value)]))
        assert returns(setup.world.last) == {"buy": (value, "success")}

    @settings(max_examples=10, suppress_health_check=[HealthCheck.too_slow])
    @given(message=st.text(min_size=1, max_size=40))
    def test_any_failure_text_reaches_the_model_verbatim(self, message: str) -> None:
        """Law: every non-empty failure message is what the model reads, failed."""
        setup = paused_on(
            ToolCallPart("bare_external", {"fruit": "apple"}, tool_call_id="buy")
        )
        (pending,) = setup.paused.interrupts
        setup.resume(Resume(respond=[failed(pending, message)]))
        assert returns(setup.world.last) == {"buy": (message, "failed")}


class TestRefusedOnPurpose:
    def test_changed_arguments_are_input_modified(self) -> None:
        """``ToolApproved(override_args=...)`` runs them; here ``input_modified``."""
        setup = paused_on(MY_TOOL)
        (pending,) = setup.paused.interrupts
        edited = Restart(pending.name, pending.ref, "approve", {"x": 2})
        assert setup.refused(Resume(restart=[edited])) == (ProblemCode.INPUT_MODIFIED,)
        assert setup.world.ran == []

    def test_approving_an_external_call_is_not_accepted(self) -> None:
        """Approving a ``CallDeferred`` call: ``answer_not_accepted``; nothing runs."""
        setup = paused_on(
            ToolCallPart("external", {"fruit": "apple"}, tool_call_id="e1")
        )
        (pending,) = setup.paused.interrupts
        approval = Restart(pending.name, pending.ref, "approve")
        assert setup.refused(Resume(restart=[approval])) == (
            ProblemCode.ANSWER_NOT_ACCEPTED,
        )

    def test_a_second_answer_is_consumed(self) -> None:
        """pydantic-ai runs a replayed approval again; here it is ``consumed``."""
        setup = paused_on(MY_TOOL)
        (pending,) = setup.paused.interrupts
        answer = Resume(restart=[pending.approve()])
        setup.resume(answer)
        assert setup.refused(answer) == (ProblemCode.CONSUMED,)
        assert len(setup.world.ran) == 1
