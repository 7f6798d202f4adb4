"""interruption.adapters.genkit: Genkit's interrupts, kept, validated, spent once."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Literal

import attrs
import pytest
from genkit import (
    ActionRunContext,
    FinishReason,
    Genkit,
    Interrupt,
    Message,
    ModelRequest,
    ModelResponse,
    Part,
    Role,
    Tool,
    ToolRequest,
    ToolRunContext,
    respond_to_interrupt,
    restart_tool,
)
from hypothesis import given, settings
from interruption import (
    JSON,
    ApprovalPending,
    Custom,
    DecodeError,
    InvalidArgument,
    MemoryStore,
    PayloadError,
    PendingInterrupt,
    ProblemCode,
    Respond,
    Restart,
    Resume,
    ResumePolicy,
    ResumeRejected,
)
from interruption.adapters import _kept
from interruption.adapters.genkit import (
    ANY_JSON,
    RESUMED_SCHEMA,
    PausedTurn,
    approved,
    from_parts,
    load_paused,
    needs_approval,
    pause,
    rejection,
    resume,
    spent_key,
)
from interruption.errors import SchemaError
from pydantic import BaseModel

from tests.adapters._common import import_error
from tests.strategies import json_values

TRANSFER: dict[str, JSON] = {"to": "ACME", "amount": 125000}
REASON = "wrong account"


class Transfer(BaseModel):
    """The transfer's input."""

    to: str
    amount: int


def call(name: str, tool_input: JSON, ref: str | None = None) -> Part:
    """A tool request the scripted model makes."""
    return Part(tool_request=ToolRequest(name=name, input=tool_input, ref=ref))


@attrs.define
class App:
    """A Genkit app on a scripted model: its batches of calls, then text."""

    batches: list[list[Part]]
    transfers: list[dict[str, JSON]] = attrs.Factory(list)
    seen: list[JSON] = attrs.Factory(list)
    resumed: list[object] = attrs.Factory(list)
    ai: Genkit = attrs.field(init=False)
    tools: list[Tool] = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        """Register the model and the tools."""
        self.ai = Genkit()
        self.ai.define_model("scripted", self.model)
        world = self

        @self.ai.tool()
        async def transfer_money(
            transfer: Transfer, ctx: ToolRunContext
        ) -> dict[str, str | int]:
            """Send money, once a human approved."""
            if not approved(ctx):
                raise needs_approval(transfer.model_dump())
            world.transfers.append(transfer.model_dump())
            return {"status": "sent", "amount": transfer.amount}

        @self.ai.tool()
        async def ask_user(question: str, ctx: ToolRunContext) -> Literal["Yes", "No"]:
            """Ask the user; a restart with {"answer": ...} answers itself."""
            if ctx.resumed_metadata is not None:
                world.resumed.append(ctx.resumed_metadata)
                answer = ctx.resumed_metadata.get("answer")
                if answer in {"Yes", "No"}:
                    return "Yes" if answer == "Yes" else "No"
            raise Interrupt({"question": question})

        @self.ai.tool()
        async def lookup(key: str) -> str:
            """Finish at once."""
            return f"value of {key}"

        note = self.ai.define_interrupt("note", description="Take a note.")
        self.tools = [transfer_money, ask_user, lookup, note]

    async def model(
        self, request: ModelRequest[object], _ctx: ActionRunContext
    ) -> ModelResponse:
        """Answer with the next batch of calls, or report what it saw."""
        last = request.messages[-1]
        if last.role == Role.TOOL:
            self.seen.extend(
                part.tool_response.output
                for part in last.content
                if part.tool_response is not None
            )
        content = self.batches.pop(0) if self.batches else [Part(text="done")]
        message = Message(role=Role.MODEL, content=content)
        return ModelResponse(message=message, finish_reason=FinishReason.STOP)

    async def generate(self) -> ModelResponse[object]:
        """The first turn."""
        response: ModelResponse[object] = await self.ai.generate(
            model="scripted", prompt="go", tools=self.tools
        )
        return response

    async def resume(
        self,
        turn_id: str,
        answer: Resume,
        store: MemoryStore,
        policy: ResumePolicy | None = None,
    ) -> ModelResponse[object]:
        """Resume through the adapter with this app's model and tools."""
        return await resume(
            self.ai,
            turn_id,
            answer,
            store,
            policy=policy,
            model="scripted",
            tools=self.tools,
        )


@attrs.define
class Setup:
    """An app paused on its first batch, with the store it was kept in."""

    app: App
    paused: PausedTurn
    store: MemoryStore

    def by_name(self) -> dict[str, PendingInterrupt]:
        """The paused interrupts by tool name."""
        return {pending.name: pending for pending in self.paused.interrupts}

    def resume(self, answer: Resume) -> ModelResponse[object]:
        """Resume through the adapter."""
        return asyncio.run(self.app.resume(self.paused.id, answer, self.store))

    def refused(self, answer: Resume) -> tuple[ProblemCode, ...]:
        """The codes a refused resume carries; nothing may have run."""
        with pytest.raises(ResumeRejected) as rejected:
            self.resume(answer)
        assert self.app.transfers == []
        assert self.app.seen == []
        return rejected.value.codes


def paused_on(
    *batches: list[Part], schemas: dict[str, dict[str, JSON]] | None = None
) -> Setup:
    """An app whose model makes *batches*, paused on the first."""
    app = App(list(batches))
    store = MemoryStore()

    async def run() -> PausedTurn | None:
        response = await app.generate()
        return await pause(response, store, tools=app.tools, answer_schemas=schemas)

    paused = asyncio.run(run())
    assert paused is not None
    return Setup(app, paused, store)


def transfer(ref: str | None = "t1") -> Part:
    """The model asks for the transfer."""
    return call("transfer_money", dict(TRANSFER), ref)


def question(ref: str | None = "q1") -> Part:
    """The model asks the user."""
    return call("ask_user", "Pay today?", ref)


class TestImport:
    def test_a_missing_extra_is_named(self) -> None:
        """Without genkit, importing the adapter names the extra."""
        out = import_error("interruption.adapters.genkit", "genkit")
        assert "pip install 'interruption[genkit]'" in out


class TestPause:
    def test_a_finished_turn_is_not_paused(self) -> None:
        """A turn that did not pause keeps nothing."""
        app = App([])
        store = MemoryStore()

        async def run() -> PausedTurn | None:
            return await pause(await app.generate(), store)

        assert asyncio.run(run()) is None

    def test_an_approval_and_a_question(self) -> None:
        """needs_approval is ApprovalPending; a plain Interrupt is Custom."""
        setup = paused_on([transfer(), question()])
        approval, asked = setup.paused.interrupts
        assert approval == PendingInterrupt(
            "t1",
            ApprovalPending("t1"),
            TRANSFER,
            approval.tool,
            approval.accepts,
        )
        assert approval.accepts.respond is None
        assert asked.kind == Custom()
        assert asked.payload == {"question": "Pay today?"}
        assert asked.accepts.respond == {"enum": ["Yes", "No"], "type": "string"}
        assert asked.accepts.restart == RESUMED_SCHEMA

    def test_an_interrupt_tool_takes_any_json_unless_declared(self) -> None:
        """A define_interrupt tool declares no schema; answer_schemas narrows it."""
        (free,) = paused_on([call("note", {"text": "x"}, "n1")]).paused.interrupts
        assert free.accepts.respond == ANY_JSON
        assert free.payload is None
        narrowed = paused_on(
            [call("note", {"text": "x"}, "n1")], schemas={"note": {"type": "string"}}
        )
        assert narrowed.paused.interrupts[0].accepts.respond == {"type": "string"}

    def test_refs_are_minted_where_the_model_gave_none(self) -> None:
        """Ref-less and repeated refs get fresh ones, unique in the turn."""
        setup = paused_on(
            [question(None), question(None), question("q"), question("q")]
        )
        refs = [pending.ref for pending in setup.paused.interrupts]
        assert len(set(refs)) == 4
        assert refs[2] == "q"
        assert all(
            ref.startswith(f"genkit-{setup.paused.id}-")
            for ref in (refs[0], refs[1], refs[3])
        )

    def test_parts_keep_genkits_wire_shape(self) -> None:
        """The parts are Genkit's own toolRequest + metadata.interrupt, refs minted."""
        setup = paused_on([transfer(), question(None)])
        first, second = setup.paused.parts
        assert first == {
            "toolRequest": {"ref": "t1", "name": "transfer_money", "input": TRANSFER},
            "metadata": {
                "interrupt": {"interruption": "approval_pending", "payload": TRANSFER}
            },
        }
        ref = setup.paused.interrupts[1].ref
        assert second == {
            "toolRequest": {"ref": ref, "name": "ask_user", "input": "Pay today?"},
            "metadata": {"interrupt": {"question": "Pay today?"}},
        }
        assert Part.model_validate(second).metadata == {
            "interrupt": {"question": "Pay today?"}
        }

    def test_text_beside_the_calls_is_kept(self) -> None:
        """A model's text beside its paused calls is no interrupt and gets no ref."""
        setup = paused_on([Part(text="Asking."), question(None)])
        (pending,) = setup.paused.interrupts
        assert pending.ref == f"genkit-{setup.paused.id}-1"

    def test_a_tool_named_by_string_takes_any_json(self) -> None:
        """Only Tool objects declare a schema; a tool named by string takes any JSON."""
        app = App([[question()]])

        async def run() -> PausedTurn | None:
            return await pause(await app.generate(), MemoryStore(), tools=["ask_user"])

        paused = asyncio.run(run())
        assert paused is not None
        assert paused.interrupts[0].accepts.respond == ANY_JSON

    def test_a_finished_sibling_is_not_pending(self) -> None:
        """A call that finished beside the pause is no interrupt."""
        setup = paused_on([call("lookup", "k", "l1"), question()])
        assert [pending.ref for pending in setup.paused.interrupts] == ["q1"]

    def test_a_bad_schema_is_refused(self) -> None:
        """An answer schema that cannot run is a SchemaError, nothing kept."""
        with pytest.raises(SchemaError):
            paused_on([question()], schemas={"ask_user": {"type": 12}})

    def test_an_answer_schema_that_is_not_json_is_a_payload_error(self) -> None:
        """An answer schema holding what JSON cannot is a PayloadError at its path."""
        schema: dict[str, JSON] = {"maximum": float("inf")}
        with pytest.raises(PayloadError) as caught:
            paused_on([question()], schemas={"ask_user": schema})
        assert [problem.path for problem in caught.value.problems] == ["$.maximum"]

    def test_a_non_object_interrupt_is_a_decode_error(self) -> None:
        """metadata.interrupt that is neither true nor an object is refused."""
        app = App([[call("shout", "x", "s1")]])

        @app.ai.tool()
        async def shout(text: str) -> str:
            """Interrupt with a bare string (Genkit takes it)."""
            raise Interrupt(text)  # type: ignore[arg-type]

        async def run() -> PausedTurn | None:
            response = await app.ai.generate(
                model="scripted", prompt="go", tools=[shout]
            )
            return await pause(response, MemoryStore())

        with pytest.raises(DecodeError) as error:
            asyncio.run(run())
        (problem,) = error.value.problems
        assert problem.path.endswith(".content[0].metadata.interrupt")
        assert problem.got == "'x'"

    def test_the_turn_is_kept_in_the_store_until_asked(self) -> None:
        """keep_until: the store keeps the turn until then; expired, it is unknown."""
        app = App([[transfer()]])
        store = MemoryStore()
        until = datetime(2030, 1, 1, tzinfo=UTC)

        async def run() -> PausedTurn | None:
            response = await app.generate()
            return await pause(response, store, tools=app.tools, keep_until=until)

        paused = asyncio.run(run())
        assert paused is not None
        assert asyncio.run(store.kept(_kept.key("genkit", paused.id))) is not None
        assert asyncio.run(store.expire(until - timedelta(seconds=1))) == 0
        assert asyncio.run(load_paused(paused.id, store)) == paused
        assert asyncio.run(store.expire(until)) == 1
        with pytest.raises(ResumeRejected) as rejected:
            asyncio.run(load_paused(paused.id, store))
        assert rejected.value.codes == (ProblemCode.UNKNOWN_INTERRUPT,)

    def test_load_paused_reads_the_same(self) -> None:
        """A kept turn reads back as what pause returned."""
        setup = paused_on([transfer(), question(None)])
        assert asyncio.run(load_paused(setup.paused.id, setup.store)) == setup.paused


def written_by_js(*content: dict[str, JSON]) -> ModelResponse[object]:
    """A turn Genkit JS paused, read from its wire JSON (``interrupt: {}`` kept)."""
    return ModelResponse.model_validate(
        {
            "finishReason": "interrupted",
            "message": {"role": "model", "content": list(content)},
            "request": {"messages": [{"role": "user", "content": [{"text": "go"}]}]},
        }
    )


def js_part(name: str, tool_input: JSON, ref: str, mark: JSON) -> dict[str, JSON]:
    """A tool request as Genkit JS writes it, with its ``metadata.interrupt``."""
    return {
        "toolRequest": {"name": name, "ref": ref, "input": tool_input},
        "metadata": {"interrupt": mark},
    }


class TestMarks:
    """What marks a tool request paused: every form Genkit writes, ``{}`` too."""

    @staticmethod
    def _pause(response: ModelResponse[object]) -> PausedTurn | None:
        return asyncio.run(pause(response, MemoryStore(), tools=App([]).tools))

    def test_an_empty_mark_is_a_pause(self) -> None:
        """interrupt({}) in Genkit JS writes {}: a Custom pause with payload {}."""
        paused = self._pause(written_by_js(js_part("ask_user", "Pay?", "q1", {})))
        assert paused is not None
        (pending,) = paused.interrupts
        assert (pending.ref, pending.kind, pending.payload) == ("q1", Custom(), {})
        assert pending.accepts.respond == {"enum": ["Yes", "No"], "type": "string"}
        assert paused.parts[0]["metadata"] == {"interrupt": {}}

    def test_an_empty_mark_beside_another_interrupt(self) -> None:
        """{} beside an object mark: two pauses, no DecodeError."""
        response = written_by_js(
            js_part("ask_user", "Pay?", "q1", {"question": "Pay?"}),
            js_part("note", {"text": "x"}, "n1", {}),
        )
        paused = self._pause(response)
        assert paused is not None
        assert [(p.ref, p.payload) for p in paused.interrupts] == [
            ("q1", {"question": "Pay?"}),
            ("n1", {}),
        ]

    @pytest.mark.parametrize("mark", [True, {}, {"question": "Pay?"}])
    def test_every_mark_genkit_writes_is_a_pause(self, mark: JSON) -> None:
        """A mark of true or an object, empty or not, is a pause."""
        paused = self._pause(written_by_js(js_part("ask_user", "Pay?", "q1", mark)))
        assert paused is not None
        assert [p.ref for p in paused.interrupts] == ["q1"]

    @pytest.mark.parametrize("mark", [None, False, 0, ""])
    def test_a_mark_javascript_reads_as_false_is_no_pause(self, mark: JSON) -> None:
        """A mark Genkit JS reads as false is no pause: nothing is kept."""
        assert (
            self._pause(written_by_js(js_part("ask_user", "Pay?", "q1", mark))) is None
        )

    @pytest.mark.parametrize("mark", [True, {}, {"question": "Pay?"}])
    def test_a_pending_output_is_a_result_whatever_the_mark(self, mark: JSON) -> None:
        """A pendingOutput beside a mark is a finished sibling, as Genkit resumes it."""
        done = js_part("ask_user", "Pay?", "q1", mark)
        done["metadata"] = {"interrupt": mark, "pendingOutput": "Yes"}
        response = written_by_js(done, js_part("ask_user", "Now?", "q2", mark=True))
        paused = self._pause(response)
        assert paused is not None
        assert [p.ref for p in paused.interrupts] == ["q2"]

    def test_a_turn_genkit_js_paused_resumes(self) -> None:
        """An interrupt({}) call is answered and reaches the model, once."""
        app = App([])
        store = MemoryStore()
        response = written_by_js(
            js_part("ask_user", "Pay?", "q1", {}), js_part("note", "x", "n1", {})
        )
        paused = asyncio.run(pause(response, store, tools=app.tools))
        assert paused is not None
        asked, noted = paused.interrupts
        answer = Resume(respond=[asked.respond("Yes"), noted.respond("noted")])
        asyncio.run(app.resume(paused.id, answer, store))
        assert app.seen == ["Yes", "noted"]
        with pytest.raises(ResumeRejected) as rejected:
            asyncio.run(app.resume(paused.id, answer, store))
        assert rejected.value.codes == (ProblemCode.CONSUMED,)
        assert app.seen == ["Yes", "noted"]

    def test_a_sibling_answered_before_a_new_pause_is_a_result(self) -> None:
        """Genkit Python keeps interrupt: {} on a call it answered; it is no pause."""
        app = App([])
        store = MemoryStore()
        response = written_by_js(
            js_part("note", "x", "n1", {}),
            js_part("ask_user", "Pay?", "q1", {"question": "Pay?"}),
        )
        paused = asyncio.run(pause(response, store, tools=app.tools))
        assert paused is not None
        noted, asked = paused.interrupts
        answer = Resume(respond=[noted.respond("noted")], restart=[asked.restart()])
        again = asyncio.run(app.resume(paused.id, answer, store))
        first = again.message.content[0] if again.message is not None else None
        assert first is not None
        assert first.metadata is not None
        assert first.metadata["interrupt"] == {}
        assert first.metadata["pendingOutput"] == "noted"
        repaused = asyncio.run(pause(again, store, tools=app.tools))
        assert repaused is not None
        assert [p.ref for p in repaused.interrupts] == ["q1"]
        final = Resume(respond=[repaused.interrupts[0].respond("No")])
        asyncio.run(app.resume(repaused.id, final, store))
        assert app.seen == ["noted", "No"]


class TestResume:
    def test_approve_runs_the_kept_call(self) -> None:
        """An approval runs the tool once, with the input it paused with."""
        setup = paused_on([transfer()])
        (pending,) = setup.paused.interrupts
        done = setup.resume(Resume(restart=[pending.approve("ok")]))
        assert done.finish_reason == FinishReason.STOP
        assert setup.app.transfers == [TRANSFER]
        assert setup.app.seen == [{"status": "sent", "amount": 125000}]

    def test_reject_tells_the_model(self) -> None:
        """A rejection never runs the tool; the model reads its reason."""
        setup = paused_on([transfer()])
        (pending,) = setup.paused.interrupts
        setup.resume(Resume(restart=[pending.reject(REASON)]))
        assert setup.app.transfers == []
        assert setup.app.seen == [rejection(REASON)]

    def test_answers_and_a_finished_sibling_reach_the_model(self) -> None:
        """Respond answers reach the model beside the kept pending output."""
        setup = paused_on([call("lookup", "k", "l1"), question(), question(None)])
        first, second = setup.paused.interrupts
        answer = Resume(respond=[first.respond("Yes"), second.respond("No")])
        setup.resume(answer)
        assert setup.app.seen == ["value of k", "Yes", "No"]

    def test_a_restart_hands_the_tool_its_data(self) -> None:
        """A restart of a Custom pause runs the tool with its resumed data."""
        setup = paused_on([question()])
        (pending,) = setup.paused.interrupts
        setup.resume(Resume(restart=[pending.restart({"answer": "Yes"})]))
        assert setup.app.resumed == [{"answer": "Yes"}]
        assert setup.app.seen == ["Yes"]

    def test_a_restart_may_pause_again(self) -> None:
        """A restarted tool that interrupts again is a new pause to keep."""
        setup = paused_on([question()])
        (pending,) = setup.paused.interrupts
        again = setup.resume(Resume(restart=[pending.restart()]))
        assert setup.app.resumed == [{}]
        paused = asyncio.run(pause(again, setup.store, tools=setup.app.tools))
        assert paused is not None
        assert [p.ref for p in paused.interrupts] == ["q1"]
        answer = Resume(respond=[paused.interrupts[0].respond("No")])
        asyncio.run(setup.app.resume(paused.id, answer, setup.store))
        assert setup.app.seen == ["No"]

    def test_a_replay_is_consumed(self) -> None:
        """The same resume twice: the second is consumed; the tool ran once."""
        setup = paused_on([transfer()])
        answer = Resume(restart=[setup.paused.interrupts[0].approve()])
        setup.resume(answer)
        with pytest.raises(ResumeRejected) as rejected:
            setup.resume(answer)
        assert rejected.value.codes == (ProblemCode.CONSUMED,)
        assert len(setup.app.transfers) == 1

    @pytest.mark.parametrize("turn_id", ["nope", "", "n\x00ul", "x" * 3000])
    def test_an_unknown_turn_is_refused(self, turn_id: str) -> None:
        """An id no turn was kept under, or no store holds, is unknown_interrupt."""
        setup = paused_on([transfer()])
        answer = Resume(restart=[setup.paused.interrupts[0].approve()])
        with pytest.raises(ResumeRejected) as rejected:
            asyncio.run(setup.app.resume(turn_id, answer, setup.store))
        assert rejected.value.codes == (ProblemCode.UNKNOWN_INTERRUPT,)

    def test_partial_resumes_are_not_supported(self) -> None:
        """Genkit needs every interrupt answered: allow_partial is a ValueError."""
        setup = paused_on([transfer()])
        policy = ResumePolicy(allow_partial=True)
        with pytest.raises(ValueError, match="allow_partial"):
            asyncio.run(
                setup.app.resume(setup.paused.id, Resume(), setup.store, policy)
            )

    def test_partial_resumes_are_an_invalid_argument(self) -> None:
        """The refusal is the library's InvalidArgument at policy.allow_partial."""
        setup = paused_on([transfer()])
        policy = ResumePolicy(allow_partial=True)
        with pytest.raises(InvalidArgument) as caught:
            asyncio.run(
                setup.app.resume(setup.paused.id, Resume(), setup.store, policy)
            )
        error = caught.value
        assert (error.code, error.where, error.got) == (
            "invalid_argument",
            "resume: policy.allow_partial",
            "True",
        )
        assert error.expected.startswith("False: Genkit")

    def test_a_refused_principal_spends_nothing(self) -> None:
        """Authorization answers before anything is spent or run."""
        setup = paused_on([transfer()])
        answer = Resume(restart=[setup.paused.interrupts[0].approve()])

        def authorize(_who: str | None, _pending: PendingInterrupt) -> bool:
            # A truthy string, not True: fail closed.
            return "yes"  # type: ignore[return-value]

        policy = ResumePolicy(authorize=authorize, principal="eve")
        with pytest.raises(ResumeRejected) as rejected:
            asyncio.run(setup.app.resume(setup.paused.id, answer, setup.store, policy))
        assert rejected.value.codes == (ProblemCode.NOT_AUTHORIZED,)
        assert asyncio.run(setup.store.spend(spent_key(setup.paused.id), None))


class TestDamage:
    @pytest.mark.parametrize(
        "record",
        [
            b"{}\n[]",
            b'{}\n[{"role": 3}]',
            b'{}\n[{"role": "user", "content": [{"text": "hi"}]}]',
            b'{}\n[{"role": "model", "content": [{"toolRequest": {"name": "x"}}]}]',
            (
                b'{}\n[{"role": "model", "content": '
                b'[{"toolRequest": {"name": "x", "ref": "r"}}]}]'
            ),
            b'{}\n[{"role": "model", "content": [{"text": "hi"}]}]',
            b"[]\n[]",
            b"{}",
        ],
    )
    def test_a_damaged_record_is_a_decode_error(self, record: bytes) -> None:
        """A damaged kept record is a DecodeError; nothing is spent or run."""
        store = MemoryStore()
        asyncio.run(store.keep(_kept.key("genkit", "r1"), record, None))
        app = App([])
        answer = Resume(restart=[Restart("transfer_money", "t1", "approve")])
        with pytest.raises(DecodeError):
            asyncio.run(app.resume("r1", answer, store))
        assert asyncio.run(store.spend(spent_key("r1"), None))
        assert app.transfers == []


class TestEmptyParts:
    def test_an_empty_part_genkit_drops_shifts_nothing(self) -> None:
        """A paused message with an empty part Genkit drops still resumes its call."""
        setup = paused_on([transfer()])
        key = _kept.key("genkit", setup.paused.id)
        record = asyncio.run(setup.store.kept(key))
        assert record is not None
        head, _, body = record.partition(b"\n")
        history = json.loads(body)
        history[-1]["content"].insert(0, {})
        again = head + b"\n" + json.dumps(history).encode()
        asyncio.run(setup.store.keep(_kept.key("genkit", "r2"), again, None))
        (pending,) = setup.paused.interrupts
        answer = Resume(restart=[pending.approve()])
        asyncio.run(setup.app.resume("r2", answer, setup.store))
        assert setup.app.transfers == [TRANSFER]


class TestRefusals:
    """Each hole of Genkit's own resume channel, refused with its code."""

    @pytest.mark.parametrize("decision", [{}, {"note": "ok"}, True, None])
    def test_a_questions_restart_cannot_say_approve(self, decision: JSON) -> None:
        """A restart of a question carrying "approve" is refused: only approve() may."""
        setup = paused_on([transfer(), question()])
        asked = setup.by_name()["ask_user"]
        forged = Restart(asked.name, asked.ref, {"approve": decision})
        approval = setup.by_name()["transfer_money"]
        answer = Resume(restart=[forged, approval.reject("not yet")])
        assert setup.refused(answer) == (ProblemCode.SCHEMA_VIOLATION,)
        assert setup.app.resumed == []
        honest = Resume(restart=[asked.restart({"answer": "Yes"}), approval.approve()])
        setup.resume(honest)
        assert setup.app.resumed == [{"answer": "Yes"}]
        assert setup.app.transfers == [TRANSFER]

    def test_an_unmatched_entry(self) -> None:
        """An answer naming no paused call is unknown_interrupt."""
        setup = paused_on([question()])
        forged = Respond("ask_user", "q9", "Yes")
        codes = setup.refused(
            Resume(respond=[forged, setup.paused.interrupts[0].respond("No")])
        )
        assert codes == (ProblemCode.UNKNOWN_INTERRUPT,)

    def test_a_duplicate_entry(self) -> None:
        """Two answers to one call are duplicate."""
        setup = paused_on([question()])
        (pending,) = setup.paused.interrupts
        codes = setup.refused(
            Resume(respond=[pending.respond("Yes"), pending.respond("No")])
        )
        assert codes == (ProblemCode.DUPLICATE,)

    def test_a_conflicting_entry(self) -> None:
        """A respond and a restart for one call conflict."""
        setup = paused_on([question()])
        (pending,) = setup.paused.interrupts
        answer = Resume(respond=[pending.respond("Yes")], restart=[pending.restart()])
        assert setup.refused(answer) == (ProblemCode.CONFLICT,)

    def test_a_respond_to_a_call_that_never_paused(self) -> None:
        """A result for a call that finished beside the pause is not_interrupted."""
        setup = paused_on([call("lookup", "k", "l1"), question()])
        (pending,) = setup.paused.interrupts
        forged = Respond("lookup", "l1", "a client-made pending output")
        codes = setup.refused(Resume(respond=[forged, pending.respond("Yes")]))
        assert codes == (ProblemCode.NOT_INTERRUPTED,)

    def test_a_restart_with_changed_input(self) -> None:
        """A restart whose input differs from the kept call is input_modified."""
        setup = paused_on([question()])
        forged = Restart("ask_user", "q1", None, "Pay never?")
        assert setup.refused(Resume(restart=[forged])) == (ProblemCode.INPUT_MODIFIED,)

    def test_an_approval_with_changed_input(self) -> None:
        """An approval of other arguments is input_modified; nothing runs."""
        setup = paused_on([transfer()])
        forged = Restart(
            "transfer_money", "t1", "approve", {**TRANSFER, "to": "MALLORY"}
        )
        assert setup.refused(Resume(restart=[forged])) == (ProblemCode.INPUT_MODIFIED,)

    def test_a_result_for_an_approval(self) -> None:
        """A client-made result cannot stand in for an approval."""
        setup = paused_on([transfer()])
        forged = Respond("transfer_money", "t1", {"status": "sent"})
        assert setup.refused(Resume(respond=[forged])) == (
            ProblemCode.ANSWER_NOT_ACCEPTED,
        )

    def test_an_answer_outside_the_output_schema(self) -> None:
        """An answer the tool's output schema refuses is schema_violation."""
        setup = paused_on([question()])
        forged = Respond("ask_user", "q1", "Maybe")
        assert setup.refused(Resume(respond=[forged])) == (
            ProblemCode.SCHEMA_VIOLATION,
        )

    def test_a_resumed_value_genkit_would_drop(self) -> None:
        """Restart data that is not an object is schema_violation."""
        setup = paused_on([question()])
        forged = Restart("ask_user", "q1", "Yes")
        assert setup.refused(Resume(restart=[forged])) == (
            ProblemCode.SCHEMA_VIOLATION,
        )

    def test_one_entry_cannot_answer_two_ref_less_calls(self) -> None:
        """Two ref-less calls have their own refs: one answer leaves one missing."""
        setup = paused_on([question(None), question(None)])
        first, _second = setup.paused.interrupts
        assert setup.refused(Resume(respond=[first.respond("Yes")])) == (
            ProblemCode.MISSING,
        )


class TestFromParts:
    def test_genkit_clients_answers_are_read(self) -> None:
        """respond_to_interrupt and restart_tool parts become a Resume that passes."""
        setup = paused_on([transfer(), question(None)])
        approval, asked = (Part.model_validate(part) for part in setup.paused.parts)
        respond = respond_to_interrupt("Yes", interrupt=asked)
        restart = restart_tool(interrupt=approval, resumed_metadata={"approve": {}})
        answer = from_parts(
            respond=[respond.model_dump(mode="json", by_alias=True, exclude_none=True)],
            restart=[restart.model_dump(mode="json", by_alias=True, exclude_none=True)],
        )
        ref = setup.paused.interrupts[1].ref
        assert answer == Resume(
            respond=[Respond("ask_user", ref, "Yes")],
            restart=[Restart("transfer_money", "t1", {"approve": {}}, TRANSFER)],
        )
        setup.resume(answer)
        assert setup.app.transfers == [TRANSFER]

    def test_a_replaced_input_is_input_modified(self) -> None:
        """restart_tool(replace_input=...) from a client is refused when validated."""
        setup = paused_on([question()])
        (asked,) = (Part.model_validate(part) for part in setup.paused.parts)
        restart = restart_tool(interrupt=asked, replace_input="Pay never?")
        wire = restart.model_dump(mode="json", by_alias=True, exclude_none=True)
        answer = from_parts(restart=[wire])
        assert answer.restart[0].resumed is None
        assert setup.refused(answer) == (ProblemCode.INPUT_MODIFIED,)

    def test_every_malformed_part_is_named(self) -> None:
        """Each malformed part is a problem with its path, all at once."""
        with pytest.raises(DecodeError) as error:
            from_parts(
                respond=[
                    "text",
                    {"toolResponse": {"name": "a", "output": 1}, "extra": 1},
                    {"toolResponse": 3},
                ],
                restart=[
                    {"toolRequest": {"name": "a", "ref": "r", "more": 1}},
                    {
                        "toolRequest": {"name": "", "ref": "r"},
                        "metadata": {"resumed": 2},
                    },
                    7,
                ],
            )
        assert [(p.path, p.got) for p in error.value.problems] == [
            ("$.respond[0]", "'text'"),
            ("$.respond[1].extra", "unknown field 'extra'"),
            ("$.respond[1].toolResponse.ref", "missing"),
            ("$.respond[2].toolResponse", "3"),
            ("$.restart[0].toolRequest.more", "unknown field 'more'"),
            ("$.restart[0].metadata.resumed", "missing"),
            ("$.restart[1].toolRequest.name", "''"),
            ("$.restart[1].metadata.resumed", "2"),
            ("$.restart[2]", "7"),
        ]

    @settings(max_examples=50, deadline=None)
    @given(output=json_values())
    def test_a_respond_part_round_trips(self, output: JSON) -> None:
        """Any JSON answer a Genkit client sends reads back unchanged."""
        asked = Part(
            tool_request=ToolRequest(name="ask_user", ref="q1", input=None),
            metadata={"interrupt": True},
        )
        part = respond_to_interrupt(output, interrupt=asked)
        wire = part.model_dump(mode="json", by_alias=True, exclude_none=True)
        assert from_parts(respond=[wire]) == Resume(
            respond=[Respond("ask_user", "q1", output)]
        )


class TestApproved:
    @pytest.mark.parametrize(
        ("resumed", "expected"),
        [
            (None, False),
            ({}, False),
            ({"approve": True}, False),
            ({"reject": {"reason": "no"}}, False),
            ({"approve": {}}, True),
            ({"approve": {"note": "ok"}}, True),
        ],
    )
    def test_only_an_approval_decision_approves(
        self, resumed: dict[str, object] | None, expected: bool
    ) -> None:
        """Only a restart with an {"approve": {...}} decision is approved."""
        ctx = ToolRunContext(ActionRunContext(), resumed_metadata=resumed)
        assert approved(ctx) is expected


class TestFrameworkAlone:
    """What Genkit's own channel lets through: why the adapter exists.

    These pin the framework's behaviour; one failing means Genkit closed a
    hole itself, and the adapter's docs should say so.
    """

    def _paused(self, *batch: Part) -> tuple[App, ModelResponse[object]]:
        app = App([list(batch)])
        return app, asyncio.run(app.generate())

    def _again(
        self,
        app: App,
        response: ModelResponse[object],
        *,
        resume_respond: list[Part] | None = None,
        resume_restart: list[Part] | None = None,
    ) -> None:
        asyncio.run(
            app.ai.generate(
                model="scripted",
                messages=response.messages,
                tools=app.tools,
                resume_respond=resume_respond,
                resume_restart=resume_restart,
            )
        )

    def test_an_empty_mark_is_no_interrupt_to_genkit_python(self) -> None:
        """Genkit Python's response.interrupts skips interrupt: {} (Genkit JS not)."""
        response = written_by_js(js_part("ask_user", "Pay?", "q1", {}))
        assert response.interrupts == []
        assert len(response.tool_requests) == 1

    def test_a_changed_input_runs_while_history_shows_the_old(self) -> None:
        """restart_tool(replace_input=...) runs the new input; history keeps the old."""
        app, response = self._paused(transfer())
        (part,) = response.interrupts
        changed = {**TRANSFER, "to": "MALLORY"}
        restart = restart_tool(
            interrupt=part, replace_input=changed, resumed_metadata={"approve": {}}
        )
        self._again(app, response, resume_restart=[restart])
        assert app.transfers == [changed]

    def test_unmatched_entries_are_ignored(self) -> None:
        """An answer to a call that never paused is accepted beside the real one."""
        app, response = self._paused(question())
        (part,) = response.interrupts
        stray = respond_to_interrupt("Yes", interrupt=transfer("nope"))
        self._again(
            app,
            response,
            resume_respond=[respond_to_interrupt("No", interrupt=part), stray],
        )
        assert app.seen == ["No"]

    def test_one_entry_answers_two_ref_less_calls(self) -> None:
        """Two ref-less calls of one tool are both answered by one entry."""
        app, response = self._paused(question(None), question(None))
        first, _second = response.interrupts
        self._again(
            app, response, resume_respond=[respond_to_interrupt("Yes", interrupt=first)]
        )
        assert app.seen == ["Yes", "Yes"]

    def test_an_answer_outside_the_output_schema_is_shown(self) -> None:
        """A result the tool's schema refuses reaches the model."""
        app, response = self._paused(question())
        (part,) = response.interrupts
        self._again(
            app,
            response,
            resume_respond=[respond_to_interrupt("Maybe", interrupt=part)],
        )
        assert app.seen == ["Maybe"]

    def test_a_client_written_pending_output_is_shown(self) -> None:
        """A pendingOutput the client wrote into the history stands as a result."""
        app, response = self._paused(transfer())
        (part,) = response.interrupts
        forged = Part(
            tool_request=part.tool_request, metadata={"pendingOutput": "sent"}
        )
        messages = [*response.messages[:-1], Message(role=Role.MODEL, content=[forged])]
        asyncio.run(
            app.ai.generate(
                model="scripted", messages=messages, tools=app.tools, resume_respond=[]
            )
        )
        assert app.transfers == []
        assert app.seen == ["sent"]
