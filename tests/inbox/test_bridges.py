"""The inbox over several doors: session turns beside LangGraph pauses."""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import Sequence
from urllib.parse import quote

import pytest
from examples.langgraph_service.agent import GraphAgent
from examples.service.agent import Agent
from interruption import (
    AuditEvent,
    InvalidArgument,
    MemoryStore,
    ProblemCode,
    ResolvedResume,
    Restart,
    Resume,
    ResumeRejected,
)
from interruption.adapters.langgraph import resume as lg_resume
from interruption.inbox import create_app
from interruption.inbox._app import _shown_keys
from interruption.runtime.bridge import Bridge, PendingPause, SessionBridge
from langchain_core.messages import HumanMessage
from langchain_core.runnables import RunnableConfig
from starlette.testclient import TestClient

APPROVE = Resume(restart=[Restart("transfer_money", "call-1", "approve")])
_APPROVE_JSON = {
    "restart": [{"name": "transfer_money", "ref": "call-1", "resumed": "approve"}]
}


class World:
    """Sessions and a LangGraph graph over one store, and the inbox over both."""

    def __init__(self) -> None:
        self.store = MemoryStore()
        self.agent = Agent(self.store)
        self.graph = GraphAgent(":memory:", self.store)
        self.app = create_app(
            self.store, self.agent.open, bridges=[self.graph.bridge], page_size=3
        )

    def thread(self, thread: str, text: str = "pay 50000") -> str:
        """Run the graph on a new thread until it pauses; its id."""
        self.graph.graph.invoke({"messages": [HumanMessage(text)]}, config(thread))
        return thread

    def client(self, who: str = "alice") -> TestClient:
        """A client that asks as *who*."""
        return TestClient(
            self.app, headers={"X-Remote-User": who}, base_url="http://inbox.test"
        )


def config(thread: str) -> RunnableConfig:
    """The config naming *thread*."""
    return {"configurable": {"thread_id": thread}}


def _form(client: TestClient, path: str) -> dict[str, str]:
    """The token and the shown pause of the page at *path*."""
    page = client.get(path)
    assert page.status_code == 200, page.text
    token = re.search(r'name="csrf" value="([^"]+)"', page.text)
    shown = re.search(r'name="pause" value="([^"]*)"', page.text)
    assert token is not None
    assert shown is not None
    return {"csrf": token.group(1), "pause": html.unescape(shown.group(1))}


@pytest.fixture(name="world")
def _world() -> World:
    return World()


class TestListing:
    def test_every_door_newest_first_with_its_kind(self, world: World) -> None:
        """A LangGraph pause is listed beside a session turn, newest first."""
        session = asyncio.run(world.agent.start("pay 50000"))
        thread = world.thread("t-1")
        body = world.client().get("/api/pending").json()
        listed = [(item["door"], item["scope"]) for item in body["items"]]
        assert listed == [("langgraph", thread), ("session", session.id)]
        pending = body["items"][0]["interrupts"][0]
        assert pending["kind"]["type"] == "approval_pending"
        assert pending["answer_as"]["name"] == "transfer_money"
        assert pending["answer_as"]["ref"] == "call-1"
        page = world.client().get("/").text
        assert f'href="/p/langgraph/{thread}"' in page
        assert f'href="/p/session/{session.id}"' in page
        assert "Approval" in page

    def test_one_pause_as_json(self, world: World) -> None:
        """One LangGraph pause, as JSON, says its door and scope."""
        thread = world.thread("t-1")
        body = world.client().get(f"/api/pauses/langgraph/{thread}").json()
        assert (body["door"], body["scope"]) == ("langgraph", thread)
        missing = world.client().get("/api/pauses/langgraph/none")
        assert missing.status_code == 409

    def test_a_refused_principal_sees_no_door(self, world: World) -> None:
        """Mallory sees neither the session turn nor the LangGraph pause."""
        asyncio.run(world.agent.start("pay 50000"))
        thread = world.thread("t-1")
        mallory = world.client("mallory")
        assert mallory.get("/api/pending").json()["total"] == 0
        assert mallory.get(f"/p/langgraph/{thread}").status_code == 404
        assert mallory.get(f"/audit/langgraph/{thread}").status_code == 404
        assert mallory.get(f"/api/audit/langgraph/{thread}").status_code == 404
        assert "transfer_money" not in mallory.get("/").text
        sent = mallory.post(f"/api/answer/langgraph/{thread}", json=_APPROVE_JSON)
        assert sent.status_code == 403
        assert sent.json()["problems"][0]["code"] == "not_authorized"
        token = mallory.cookies.get("inbox_csrf")
        form = {"csrf": token, "pause": '[["transfer_money", "call-1"]]'}
        page = mallory.post(
            f"/p/langgraph/{thread}", data={**form, "i0.mode": "approve"}
        )
        assert page.status_code == 403
        assert "may not answer" in page.text
        assert world.graph.sent == []

    def test_an_unknown_door_is_404(self, world: World) -> None:
        """A door no bridge has is a 404 problem, as a page or as JSON."""
        client = world.client()
        assert client.get("/p/nowhere/x").status_code == 404
        body = client.get("/api/pauses/nowhere/x")
        assert body.status_code == 404
        assert body.json()["problems"][0]["code"] == "unknown_session"

    def test_a_scope_is_escaped_in_urls(self, world: World) -> None:
        """A thread id with a slash and a space is linked escaped and found."""
        thread = world.thread("team/a b")
        escaped = quote(thread, safe="")
        client = world.client()
        assert f'href="/p/langgraph/{escaped}"' in client.get("/").text
        form = _form(client, f"/p/langgraph/{escaped}")
        answered = client.post(
            f"/p/langgraph/{escaped}", data={**form, "i0.mode": "approve"}
        )
        assert answered.status_code == 200
        assert world.graph.sent == [{"to": "ACME", "amount": 50000}]


class TestAnswering:
    def test_approving_from_the_page_runs_the_tool_once(self, world: World) -> None:
        """Approving on the page runs the call once; the adapter's door is consumed."""
        thread = world.thread("t-1")
        client = world.client()
        form = _form(client, f"/p/langgraph/{thread}")
        answered = client.post(
            f"/p/langgraph/{thread}", data={**form, "i0.mode": "approve"}
        )
        assert answered.status_code == 200
        assert "Your answer was accepted" in answered.text
        assert world.graph.sent == [{"to": "ACME", "amount": 50000}]
        with pytest.raises(ResumeRejected) as replay:
            lg_resume(world.graph.graph, config(thread), APPROVE, world.store)
        assert [str(code) for code in replay.value.codes] == ["consumed"]
        assert world.graph.sent == [{"to": "ACME", "amount": 50000}]
        trail = client.get(f"/api/audit/langgraph/{thread}").json()["events"]
        assert [e["kind"] for e in trail] == ["paused", "accepted", "rejected"]
        page = client.get(f"/audit/langgraph/{thread}")
        assert page.status_code == 200
        assert "tag-ev-rejected" in page.text

    def test_a_form_answered_elsewhere_says_consumed(self, world: World) -> None:
        """A page left open while the adapter's door answered is refused, consumed."""
        thread = world.thread("t-1")
        client = world.client()
        form = _form(client, f"/p/langgraph/{thread}")
        lg_resume(world.graph.graph, config(thread), APPROVE, world.store)
        late = client.post(
            f"/p/langgraph/{thread}", data={**form, "i0.mode": "approve"}
        )
        assert late.status_code == 409
        assert "already resumed" in late.text
        assert world.graph.sent == [{"to": "ACME", "amount": 50000}]

    def test_a_bad_answer_shows_at_its_card(self, world: World) -> None:
        """A rejection without a reason is refused on the page, nothing spent."""
        thread = world.thread("t-1")
        client = world.client()
        form = _form(client, f"/p/langgraph/{thread}")
        page = client.post(f"/p/langgraph/{thread}", data={**form, "i0.mode": "reject"})
        assert page.status_code == 422
        assert world.client().get("/api/pending").json()["total"] == 1

    def test_the_json_api_answers_any_door(self, world: World) -> None:
        """A `Resume` posted to /api/answer goes through the bridge, once."""
        thread = world.thread("t-1")
        client = world.client()
        body = {
            "restart": [
                {"name": "transfer_money", "ref": "call-1", "resumed": "approve"}
            ]
        }
        answered = client.post(f"/api/answer/langgraph/{thread}", json=body)
        assert answered.status_code == 200, answered.text
        assert answered.json()["paused_again"] is False
        assert len(answered.json()["answered"]) == 1
        again = client.post(f"/api/answer/langgraph/{thread}", json=body)
        assert again.status_code == 409
        assert again.json()["problems"][0]["code"] == "consumed"
        assert world.graph.sent == [{"to": "ACME", "amount": 50000}]
        cross = client.post(
            f"/api/answer/langgraph/{thread}",
            content=b"{}",
            headers={"content-type": "text/plain"},
        )
        assert cross.status_code == 403


class Fixed:
    """A bridge with one fixed pause and no answers, under a door of choice."""

    def __init__(self, door: str, shown: PendingPause | None = None) -> None:
        self.door = door
        self.shown = shown

    async def pending(self, *, principal: str | None = None) -> Sequence[PendingPause]:
        """Its pause, if any, for anyone."""
        del principal
        return () if self.shown is None else (self.shown,)

    async def pause(
        self, scope: str, *, principal: str | None = None
    ) -> PendingPause | None:
        """Its pause, if it is at *scope*, for anyone."""
        del principal
        return self.shown if self.shown and self.shown.scope == scope else None

    async def answer(
        self, scope: str, resume: Resume, *, principal: str | None = None
    ) -> ResolvedResume:
        """Never accepts."""
        del resume, principal
        raise ResumeRejected.of(ProblemCode.NOTHING_PENDING, f"nothing at {scope}")

    async def audit(
        self, scope: str, *, principal: str | None = None
    ) -> Sequence[AuditEvent]:
        """No trail."""
        del scope, principal
        return ()


class Counted:
    """A bridge that counts its listings, over another bridge."""

    def __init__(self, inner: Bridge) -> None:
        self.inner = inner
        self.door = inner.door
        self.listings = 0

    async def pending(self, *, principal: str | None = None) -> Sequence[PendingPause]:
        """The inner bridge's listing, counted."""
        self.listings += 1
        return await self.inner.pending(principal=principal)

    async def pause(
        self, scope: str, *, principal: str | None = None
    ) -> PendingPause | None:
        """The inner bridge's pause at *scope*."""
        return await self.inner.pause(scope, principal=principal)

    async def answer(
        self, scope: str, resume: Resume, *, principal: str | None = None
    ) -> ResolvedResume:
        """The inner bridge's answer."""
        return await self.inner.answer(scope, resume, principal=principal)

    async def audit(
        self, scope: str, *, principal: str | None = None
    ) -> Sequence[AuditEvent]:
        """The inner bridge's trail."""
        return await self.inner.audit(scope, principal=principal)


class TestOnePause:
    def test_a_pause_page_reads_one_scope_not_the_listing(self) -> None:
        """The pause page, its form and its JSON read Bridge.pause, never pending."""
        world = World()
        door = Counted(world.graph.bridge)
        app = create_app(bridges=[door])
        client = TestClient(
            app, headers={"X-Remote-User": "alice"}, base_url="http://inbox.test"
        )
        thread = world.thread("t-1")
        assert client.get(f"/api/pauses/langgraph/{thread}").status_code == 200
        assert client.get("/api/pauses/langgraph/none").status_code == 409
        form = _form(client, f"/p/langgraph/{thread}")
        answered = client.post(
            f"/p/langgraph/{thread}", data={**form, "i0.mode": "approve"}
        )
        assert answered.status_code == 200
        assert world.graph.sent == [{"to": "ACME", "amount": 50000}]
        assert door.listings == 0
        assert client.get("/api/pending").json()["total"] == 0
        assert door.listings == 1

    def test_a_refused_principal_gets_no_pause_page(self, world: World) -> None:
        """Through Bridge.pause, mallory's page is 404 and her JSON 409."""
        thread = world.thread("t-1")
        mallory = world.client("mallory")
        assert mallory.get(f"/p/langgraph/{thread}").status_code == 404
        assert mallory.get(f"/api/pauses/langgraph/{thread}").status_code == 409
        assert asyncio.run(world.store.audit(thread)) == ()


class TestCreateApp:
    def test_a_store_needs_its_sessions(self) -> None:
        """A store without open_session (or the reverse) is refused."""
        with pytest.raises(InvalidArgument, match="only the store"):
            create_app(MemoryStore())
        agent = Agent(MemoryStore())
        with pytest.raises(InvalidArgument, match="only open_session"):
            create_app(None, agent.open)

    def test_doors_are_distinct_and_some(self) -> None:
        """No door at all, or two bridges with one door, is refused."""
        with pytest.raises(InvalidArgument, match="none"):
            create_app()
        with pytest.raises(InvalidArgument, match="'x', 'x'"):
            create_app(bridges=[Fixed("x"), Fixed("x")])

    def test_only_bridges(self) -> None:
        """An inbox over bridges alone lists theirs; sessions' routes are 404."""
        app = create_app(bridges=[Fixed("x")])
        client = TestClient(app)
        assert client.get("/api/pending").json()["total"] == 0
        assert client.get("/s/abc").status_code == 404

    def test_the_session_bridge_is_a_bridge(self) -> None:
        """SessionBridge names its door `session`."""
        store = MemoryStore()
        bridge = SessionBridge(store, Agent(store).open)
        assert bridge.door == "session"
        assert asyncio.run(bridge.audit("nope")) == ()


def test_a_forms_shown_pause_is_read_strictly() -> None:
    """The form's ``pause`` field yields (name, ref) pairs, or none if unreadable."""
    assert _shown_keys('[["a", "b"], [1, 2], "x", ["c"]]') == [("a", "b")]
    assert _shown_keys("{}") == []
    assert _shown_keys("[") == []
    assert _shown_keys(None) == []
