"""The ADK adapter's bridge: a listing is authorized first; one session's pause."""

from __future__ import annotations

import asyncio

import pytest
from interruption import ProblemCode, Resume, ResumePolicy, ResumeRejected
from interruption.adapters.google_adk import resume, scope_of

from tests.adapters.test_google_adk import USER, bob_only, on, question, setup, transfer


class TestAuthorizedFirst:
    def test_a_refused_listing_files_nothing(self) -> None:
        """Eve's listing and pause() are authorized first: no paused event."""
        state = setup([transfer()])
        door = on(state, authorize=bob_only)
        scope = scope_of(USER, state.session_id)
        assert asyncio.run(door.pending(principal="eve")) == []
        assert asyncio.run(door.pause(scope, principal="eve")) is None
        assert asyncio.run(state.store.audit(state.session_id)) == ()
        asyncio.run(door.pending(principal="bob"))
        trail = asyncio.run(state.store.audit(state.session_id))
        assert [event.kind for event in trail] == ["paused"]


class TestPause:
    def test_one_session_is_what_the_listing_shows(self) -> None:
        """pause(scope) is the listing's pause there; None once answered."""
        state = setup([question()])
        door = on(state)
        (listed,) = asyncio.run(door.pending())
        assert asyncio.run(door.pause(listed.scope)) == listed
        (asked,) = listed.interrupts
        asyncio.run(door.answer(listed.scope, Resume(respond=[asked.respond("Yes")])))
        assert asyncio.run(door.pause(listed.scope)) is None

    def test_a_scope_with_no_session_shows_nothing(self) -> None:
        """A scope scope_of never makes, or one naming no session: None."""
        state = setup([transfer()])
        door = on(state)
        assert asyncio.run(door.pause("no-slash")) is None
        assert asyncio.run(door.pause(scope_of(USER, "gone"))) is None
        assert asyncio.run(door.pause(scope_of(USER, state.session_id))) is not None


class TestUnknownScopes:
    def test_a_refused_principal_learns_nothing_of_a_scope(self) -> None:
        """Malformed, of no session, or paused: eve is not_authorized, nothing named."""
        state = setup([transfer()])
        door = on(state, authorize=bob_only)
        (pause,) = asyncio.run(door.pending(principal="bob"))
        answer = Resume(restart=[pause.interrupts[0].approve()])
        for scope in ("nobody", "a/b/c", f"{USER}/missing", pause.scope):
            with pytest.raises(ResumeRejected) as caught:
                asyncio.run(door.answer(scope, answer, principal="eve"))
            assert caught.value.codes == (ProblemCode.NOT_AUTHORIZED,)
        assert asyncio.run(state.store.audit("nobody")) == ()  # no row for a guess
        assert state.world.transfers == []

    def test_the_adapters_door_asks_the_authorizer_before_the_session(self) -> None:
        """The door, for no such session: not_authorized with an authorizer."""
        state = setup([transfer()])
        (approval,) = asyncio.run(state.pending()).interrupts
        answer = Resume(restart=[approval.approve()])
        for who in ("eve", "bob"):  # no session: nothing to allow
            policy = ResumePolicy(authorize=bob_only, principal=who)
            with pytest.raises(ResumeRejected) as caught:
                asyncio.run(
                    resume(
                        state.runner,
                        answer,
                        state.store,
                        user_id=USER,
                        session_id="missing",
                        policy=policy,
                    )
                )
            assert caught.value.codes == (ProblemCode.NOT_AUTHORIZED,)
        assert asyncio.run(state.store.audit("missing")) == ()  # no row for a guess
        assert state.world.transfers == []
