"""The ADK adapter's bridge: a listing is authorized first; one session's pause."""

from __future__ import annotations

import asyncio

from interruption import Resume
from interruption.adapters.google_adk import scope_of

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
