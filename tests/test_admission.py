from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from interruption import (
    Accepts,
    Custom,
    MemoryStore,
    PendingInterrupt,
    ProblemCode,
    Resume,
    ResumePolicy,
    ResumeRejected,
    admit,
)
from interruption._json import digest
from interruption.adapters._bridged import absent, allowed
from interruption.runtime.admission import pause_key, record_paused, refuse
from interruption.validation import Authorize

texts = st.text(max_size=40)


def ask(ref: str) -> PendingInterrupt:
    """A pending question that takes any JSON answer."""
    return PendingInterrupt(ref, Custom(), None, None, Accepts(respond={}))


class TestPauseKey:
    @given(framework=texts, parts=st.lists(texts, max_size=5))
    def test_a_key_is_the_digest_of_its_parts_every_time(
        self, framework: str, parts: list[str]
    ) -> None:
        """Asked twice, the key is the SHA-256 of the parts' canonical JSON."""
        expected = f"{framework}:{digest([framework, *parts])}"
        assert pause_key(framework, *parts) == expected
        assert pause_key(framework, *parts) == expected

    @given(parts=st.lists(texts, min_size=1, max_size=4, unique=True))
    def test_distinct_parts_give_distinct_keys(self, parts: list[str]) -> None:
        """Keys of different parts, or of the same parts in another order, differ."""
        keys = {pause_key("door", part) for part in parts}
        assert len(keys) == len(parts)
        if len(parts) > 1:
            assert pause_key("door", *parts) != pause_key("door", *reversed(parts))


class TestAdmitAuthorizes:
    def test_an_allowed_principal_is_asked_about_every_interrupt_shown(
        self,
    ) -> None:
        """The authorizer sees spent interrupts too; allowed, the answer is accepted."""
        store = MemoryStore()
        pending = [ask("a"), ask("b")]
        keys = {"a": "k:a", "b": "k:b"}
        partial = ResumePolicy(allow_partial=True)
        first = Resume(respond=[pending[0].respond(1)])
        asyncio.run(
            admit(first, pending, store, session="t", keys=keys, policy=partial)
        )
        asked: list[str] = []

        def allow(_principal: str | None, shown: PendingInterrupt) -> bool:
            asked.append(shown.id)
            return True

        policy = ResumePolicy(allow_partial=True, authorize=allow, principal="ana")
        second = Resume(respond=[pending[1].respond(2)])
        resolved = asyncio.run(
            admit(second, pending, store, session="t", keys=keys, policy=policy)
        )
        assert asked == ["a", "b"]
        assert [answer.interrupt.id for answer in resolved.answers] == ["b"]
        *_, accepted = asyncio.run(store.audit("t"))
        assert (accepted.kind, accepted.principal) == ("accepted", "ana")


class TestAdmitDismissed:
    """A dismissal (MCP's decline) answers what it leaves, no later than an answer."""

    @given(late=st.booleans(), answered=st.booleans())
    def test_a_dismissal_of_an_expired_pause_is_expired_and_spends_nothing(
        self, late: bool, answered: bool
    ) -> None:
        """Past its expiry a dismissed pause is ``expired``; before, it is spent."""
        store = MemoryStore()
        start = datetime(2026, 1, 1, tzinfo=UTC)
        ends = start + timedelta(seconds=60)
        pending = [
            attrs.evolve(ask("a"), expires_at=ends),
            attrs.evolve(ask("b"), expires_at=start + timedelta(days=1)),
        ]
        keys = {"a": "k:a", "b": "k:b"}
        now = ends + timedelta(seconds=1) if late else ends - timedelta(seconds=1)
        policy = ResumePolicy(allow_partial=True, now=lambda: now)
        resume = Resume(respond=[pending[1].respond(2)] if answered else [])

        def dismiss() -> object:
            return asyncio.run(
                admit(
                    resume,
                    pending,
                    store,
                    session="t",
                    keys=keys,
                    policy=policy,
                    dismissed=True,
                    note="decline",
                )
            )

        if late:
            with pytest.raises(ResumeRejected) as caught:
                dismiss()
            assert caught.value.codes == (ProblemCode.EXPIRED,)
            assert [p.interrupt_id for p in caught.value.problems] == ["a"]
            assert not asyncio.run(store.spent(["k:a"]))
            assert not asyncio.run(store.spent(["k:b"]))
            *_, last = asyncio.run(store.audit("t"))
            assert (last.kind, last.codes) == ("rejected", ("expired",))
        else:
            dismiss()
            assert asyncio.run(store.spent(["k:a"]))
            assert asyncio.run(store.spent(["k:b"]))


def only_ann(principal: str | None, _pending: PendingInterrupt) -> bool:
    """Ann may answer anything; nobody else anything."""
    return principal == "ann"


async def only_ann_async(principal: str | None, _pending: PendingInterrupt) -> bool:
    """`only_ann`, awaited."""
    return principal == "ann"


def door_verdicts(
    policy: ResumePolicy, interrupts: tuple[PendingInterrupt, ...]
) -> dict[str, bool]:
    """Each door's verdict on *policy*'s principal for *interrupts*: True, allowed.

    `admit` and `refuse` allow when their refusal is anything but
    ``not_authorized``; `absent` is a door only where nothing is shown.
    """
    store = MemoryStore()
    answer = Resume(respond=[pending.respond(1) for pending in interrupts])
    keys = {pending.id: f"k:{pending.id}" for pending in interrupts}
    other = ResumeRejected.of(ProblemCode.UNKNOWN_INTERRUPT, "not here")
    authorized = ResumeRejected.of(ProblemCode.NOT_AUTHORIZED, "x")

    def passes(rejected: ResumeRejected) -> bool:
        return rejected.codes != authorized.codes

    try:
        asyncio.run(
            admit(answer, interrupts, store, session="s", keys=keys, policy=policy)
        )
        admitted = True
    except ResumeRejected as rejected:
        admitted = passes(rejected)
    refused = asyncio.run(
        refuse(other, answer, store, session="s", policy=policy, shown=interrupts)
    )
    verdicts = {
        "admit": admitted,
        "refuse": passes(refused),
        "allowed": asyncio.run(allowed(policy, "s", interrupts)),
    }
    if not interrupts:
        verdicts["absent"] = passes(absent(other, policy))
    return verdicts


class TestNothingShown:
    @pytest.mark.parametrize("authorize", [None, only_ann, only_ann_async])
    @pytest.mark.parametrize("shown", [(), (ask("a"), ask("b"))])
    @pytest.mark.parametrize("principal", ["ann", "bob"])
    def test_every_door_gives_the_one_verdict(
        self,
        authorize: Authorize | None,
        shown: tuple[PendingInterrupt, ...],
        principal: str,
    ) -> None:
        """The four doors agree: with an authorizer, nothing shown is refused."""
        policy = ResumePolicy(authorize=authorize, principal=principal)
        expected = authorize is None or (bool(shown) and principal == "ann")
        verdicts = door_verdicts(policy, shown)
        assert set(verdicts) == {"admit", "refuse", "allowed"} | (
            set() if shown else {"absent"}
        )
        assert verdicts == dict.fromkeys(verdicts, expected)

    def test_admit_and_refuse_file_the_same_refusal_for_nothing_shown(self) -> None:
        """With an authorizer and nothing shown, both file one not_authorized event."""
        policy = ResumePolicy(authorize=only_ann, principal="ann")
        store = MemoryStore()
        other = ResumeRejected.of(ProblemCode.UNKNOWN_INTERRUPT, "not here")
        with pytest.raises(ResumeRejected) as admitted:
            asyncio.run(admit(Resume(), (), store, session="s", keys={}, policy=policy))
        refused = asyncio.run(
            refuse(other, Resume(), store, session="s", policy=policy)
        )
        assert admitted.value.codes == refused.codes == (ProblemCode.NOT_AUTHORIZED,)
        events = asyncio.run(store.audit("s"))
        assert [(e.kind, e.principal, e.codes) for e in events] == [
            ("rejected", "ann", ("not_authorized",))
        ] * 2


class TestRecordPaused:
    def test_interrupts_sharing_a_key_are_filed_once_every_id_named(self) -> None:
        """Interrupts of one spend key (one review) are one paused event naming all."""
        store = MemoryStore()
        pending = [ask("a"), ask("b"), ask("c")]
        keys = {"a": "k:review", "b": "k:review", "c": "k:other"}
        at = datetime(2026, 1, 1, tzinfo=UTC)
        for _ in range(2):
            asyncio.run(record_paused(store, pending, keys, session="t", at=at))
        (paused,) = asyncio.run(store.audit("t"))
        assert (paused.kind, paused.pending) == ("paused", ("a", "b", "c"))
