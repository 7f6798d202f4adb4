"""The inbox's JSON API and forms, in process (Starlette's TestClient)."""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta

import pytest
from examples.service.agent import Agent
from interruption import MemoryStore, Session
from interruption.inbox import create_app, from_cookie
from starlette.testclient import TestClient


class World:
    """A store, the agent over it, and a client per principal."""

    def __init__(self) -> None:
        self.store = MemoryStore()
        self.agent = Agent(self.store)
        self.app = create_app(self.store, self.agent.open, page_size=3)

    def start(self, text: str, ttl: timedelta | None = None) -> Session:
        """Start a run of the agent; it pauses."""
        return asyncio.run(self.agent.start(text, ttl=ttl))

    def client(self, who: str | None = "alice") -> TestClient:
        """A client that asks as *who* (the X-Remote-User header)."""
        headers = {} if who is None else {"X-Remote-User": who}
        return TestClient(self.app, headers=headers, base_url="http://inbox.test")


@pytest.fixture(name="world")
def _world() -> World:
    return World()


def _csrf(client: TestClient, path: str) -> tuple[str, str]:
    page = client.get(path)
    token = re.search(r'name="csrf" value="([^"]+)"', page.text)
    turn = re.search(r'name="turn_id" value="(\d+)"', page.text)
    assert token is not None
    assert turn is not None
    return token.group(1), turn.group(1)


class TestPending:
    def test_lists_newest_first_with_what_to_answer(self, world: World) -> None:
        """The API lists pending turns newest first, each with its answer_as."""
        first = world.start("pay 50000")
        second = world.start("book")
        body = world.client().get("/api/pending").json()
        assert [item["session"] for item in body["items"]] == [second.id, first.id]
        pending = body["items"][1]["interrupts"][0]
        assert pending["answer_as"]["name"] == "transfer_money"
        assert pending["answer_as"]["ref"] == "call-1"
        assert pending["answer_as"]["respond"] is None
        assert pending["answer_as"]["restart"] is not None

    def test_pages(self, world: World) -> None:
        """A page holds page_size turns; next names the following page."""
        for n in range(4):
            world.start(f"confirm {n}")
        client = world.client()
        one = client.get("/api/pending").json()
        two = client.get("/api/pending?page=2").json()
        assert (len(one["items"]), one["next"], one["total"]) == (3, 2, 4)
        assert (len(two["items"]), two["next"]) == (1, None)
        assert "Older" in client.get("/").text
        assert "Newer" in client.get("/?page=2").text

    def test_a_refused_principal_sees_nothing(self, world: World) -> None:
        """The session's authorizer decides: mallory sees no turn, page or trail."""
        session = world.start("pay 50000")
        mallory = world.client("mallory")
        assert mallory.get("/api/pending").json()["total"] == 0
        assert mallory.get(f"/api/sessions/{session.id}").status_code == 409
        assert mallory.get(f"/api/sessions/{session.id}/audit").status_code == 404
        assert mallory.get(f"/s/{session.id}").status_code == 404
        assert mallory.get(f"/s/{session.id}/audit").status_code == 404
        assert "transfer_money" not in mallory.get("/").text

    def test_one_session(self, world: World) -> None:
        """One session's pending turn, as JSON."""
        session = world.start("batch")
        body = world.client().get(f"/api/sessions/{session.id}").json()
        assert [i["answer_as"]["ref"] for i in body["interrupts"]] == [
            "t-1",
            "t-2",
            "q-1",
        ]


class TestResumeApi:
    def test_a_batch_is_answered_as_one_resume(self, world: World) -> None:
        """One POST answers every call of the turn; the agent continues."""
        session = world.start("batch")
        resume = {
            "respond": [{"name": "ask_user", "ref": "q-1", "output": "Yes"}],
            "restart": [
                {"name": "transfer_money", "ref": "t-1", "resumed": "approve"},
                {
                    "name": "transfer_money",
                    "ref": "t-2",
                    "resumed": {"reject": {"reason": "too much"}},
                },
            ],
        }
        client = world.client()
        answered = client.post(
            f"/api/sessions/{session.id}/resume", json={"turn_id": 1, "resume": resume}
        )
        assert answered.status_code == 200, answered.text
        assert answered.json()["paused_again"] is False
        assert world.agent.sent == [{"to": "ACME", "amount": 125_000}]
        replay = client.post(
            f"/api/sessions/{session.id}/resume", json={"turn_id": 1, "resume": resume}
        )
        assert replay.status_code == 409
        assert replay.json()["problems"][0]["code"] == "consumed"
        trail = client.get(f"/api/sessions/{session.id}/audit").json()["events"]
        assert [e["kind"] for e in trail] == ["paused", "accepted", "rejected"]

    def test_a_bad_answer_is_422_with_every_problem(self, world: World) -> None:
        """A typed answer that breaks its schema is a 422 listing its problems."""
        session = world.start("book")
        resume = {
            "respond": [
                {"name": "book_room", "ref": "call-1", "output": {"nights": "2"}}
            ]
        }
        answer = world.client().post(
            f"/api/sessions/{session.id}/resume", json={"turn_id": 1, "resume": resume}
        )
        assert answer.status_code == 422
        assert answer.json()["type"] == "resume_rejected"
        assert answer.json()["problems"][0]["code"] == "schema_violation"

    def test_not_authorized_is_403(self, world: World) -> None:
        """A refused principal's answer is a 403, filed in the trail."""
        session = world.start("pay 50000")
        resume = {"restart": [{"name": "transfer_money", "ref": "call-1"}]}
        answer = world.client("mallory").post(
            f"/api/sessions/{session.id}/resume", json={"turn_id": 1, "resume": resume}
        )
        assert answer.status_code == 403
        assert answer.json()["problems"][0]["code"] == "not_authorized"

    @pytest.mark.parametrize(
        ("body", "path"),
        [
            (b"{", "$"),
            (b"[]", "$"),
            (b'{"turn_id": "1", "resume": {}, "x": 1}', "$.x"),
            (b'{"turn_id": 1, "resume": {"respond": 1}}', "$.resume.respond"),
        ],
    )
    def test_malformed_bodies_are_400(
        self, world: World, body: bytes, path: str
    ) -> None:
        """A body that does not decode is a 400 decode_error naming its path."""
        session = world.start("pay 50000")
        answer = world.client().post(
            f"/api/sessions/{session.id}/resume",
            content=body,
            headers={"content-type": "application/json"},
        )
        assert answer.status_code == 400
        assert answer.json()["type"] == "decode_error"
        assert any(p["path"] == path for p in answer.json()["problems"])

    def test_cross_site_posts_are_refused(self, world: World) -> None:
        """A form-encoded or foreign-origin POST to the API is a 403."""
        session = world.start("pay 50000")
        client = world.client()
        url = f"/api/sessions/{session.id}/resume"
        assert client.post(url, data={"a": "b"}).status_code == 403
        foreign = client.post(
            url, json={"turn_id": 1}, headers={"origin": "https://evil.example"}
        )
        assert foreign.status_code == 403


class TestForms:
    def test_approve(self, world: World) -> None:
        """Approving in the form runs the transfer and says so."""
        session = world.start("pay 50000")
        client = world.client()
        token, turn = _csrf(client, f"/s/{session.id}")
        done = client.post(
            f"/s/{session.id}",
            data={"csrf": token, "turn_id": turn, "i0.mode": "approve"},
        )
        assert done.status_code == 200
        assert "Your answer was accepted" in done.text
        assert world.agent.sent == [{"to": "ACME", "amount": 50000}]

    def test_a_typed_answer_keeps_its_types(self, world: World) -> None:
        """Numbers stay numbers and booleans booleans; enum is a choice."""
        session = world.start("book")
        client = world.client()
        token, turn = _csrf(client, f"/s/{session.id}")
        form = {
            "csrf": token,
            "turn_id": turn,
            "i0.respond.0": "2",
            "i0.respond.1": "3",
            "i0.respond.2": "true",
            "i0.respond.3": '"suite"',
            "i0.respond.4": "199.5",
            "i0.respond.5": "",
        }
        assert client.post(f"/s/{session.id}", data=form).status_code == 200
        history = asyncio.run(world.store.load_history(session.id)) or ()
        output = history[2].tool_responses[0].output
        assert output == {
            "nights": 2,
            "guests": 3,
            "breakfast": True,
            "room": "suite",
            "budget": 199.5,
        }

    def test_unreadable_values_are_shown_at_their_field(self, world: World) -> None:
        """Text in a number field is refused there, before anything is sent."""
        session = world.start("book")
        client = world.client()
        token, turn = _csrf(client, f"/s/{session.id}")
        form = {"csrf": token, "turn_id": turn, "i0.respond.0": "two"}
        page = client.post(f"/s/{session.id}", data=form)
        assert page.status_code == 422
        assert "expected an integer, got &#39;two&#39;" in page.text
        assert world.agent.sent == []

    def test_an_edit_shows_its_diff_then_runs(self, world: World) -> None:
        """Review shows the edit as a diff; sending runs the edited call."""
        session = world.start("email")
        client = world.client()
        token, turn = _csrf(client, f"/s/{session.id}")
        form = {
            "csrf": token,
            "turn_id": turn,
            "i0.mode": "edit",
            "i0.edit.0": "boss@example.com",
            "i0.edit.1": "Status",
            "i0.edit.2": "true",
        }
        review = client.post(f"/s/{session.id}", data={**form, "intent": "review"})
        assert "Your edit" in review.text
        assert "boss@example.com" in review.text
        client.post(f"/s/{session.id}", data={**form, "intent": "send"})
        assert world.agent.sent == [
            {"to": "boss@example.com", "subject": "Status", "urgent": True}
        ]

    def test_a_reject_without_reason_is_refused(self, world: World) -> None:
        """Rejecting needs a reason; the problem shows, nothing runs."""
        session = world.start("pay 50000")
        client = world.client()
        token, turn = _csrf(client, f"/s/{session.id}")
        form = {"csrf": token, "turn_id": turn, "i0.mode": "reject"}
        page = client.post(f"/s/{session.id}", data=form)
        assert page.status_code == 422
        assert world.agent.sent == []

    def test_a_post_without_the_token_is_refused(self, world: World) -> None:
        """A form POST without the double-submit token is a 403."""
        session = world.start("pay 50000")
        page = world.client().post(
            f"/s/{session.id}", data={"turn_id": "1", "i0.mode": "approve"}
        )
        assert page.status_code == 403
        assert world.agent.sent == []

    def test_security_headers(self, world: World) -> None:
        """Every page carries a CSP without inline script, and nosniff."""
        page = world.client().get("/")
        assert "script-src 'self'" in page.headers["content-security-policy"]
        assert "unsafe-inline" not in page.headers["content-security-policy"]
        assert page.headers["x-content-type-options"] == "nosniff"

    def test_markup_in_a_payload_is_text(self, world: World) -> None:
        """A payload's markup is escaped, never rendered."""
        session = world.start("script")
        page = world.client().get(f"/s/{session.id}")
        assert "<script>document" not in page.text
        assert "&lt;script&gt;" in page.text

    def test_expiry_applies_the_default(self, world: World) -> None:
        """A pause past its expiry closes with its default; answers are refused."""
        session = world.start("confirm now?", ttl=timedelta(milliseconds=1))
        client = world.client()
        asyncio.run(asyncio.sleep(0.01))
        assert client.get("/api/pending").json()["total"] == 0
        history = asyncio.run(world.store.load_history(session.id)) or ()
        assert history[2].tool_responses[0].output == "No"

    def test_an_answer_to_an_expired_pause_says_so(self, world: World) -> None:
        """Answering a pause that expired on the open page shows `expired`."""
        session = world.start("confirm now?", ttl=timedelta(seconds=1))
        client = world.client()
        token, turn = _csrf(client, f"/s/{session.id}")
        asyncio.run(asyncio.sleep(1.1))
        form = {"csrf": token, "turn_id": turn, "i0.respond": '"Yes"'}
        page = client.post(f"/s/{session.id}", data=form)
        assert page.status_code == 410
        assert "its default answer applied" in page.text

    def test_principal_from_a_cookie(self, world: World) -> None:
        """from_cookie reads the principal a login middleware set."""
        world.start("pay 50000")
        app = create_app(world.store, world.agent.open, principal=from_cookie("who"))
        client = TestClient(app, cookies={"who": "bob"})
        assert client.get("/api/pending").json()["total"] == 1
