"""The inbox's JSON API and forms, in process (Starlette's TestClient)."""

from __future__ import annotations

import asyncio
import html
import io
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from examples.service.agent import EMAIL, Agent
from interruption import (
    Accepts,
    ApprovalPending,
    Custom,
    InterruptedTurn,
    MemoryStore,
    Message,
    PendingInterrupt,
    Role,
    Session,
    SqliteStore,
    ToolRequest,
    _demo,
)
from interruption.http import SERVER_MESSAGE
from interruption.inbox import create_app, from_cookie
from interruption.inbox._app import _Choice, _diff, _placed, _rows
from interruption.inbox._forms import field_for
from starlette.testclient import TestClient

from tests.sessions import Clock


class World:
    """A store, the agent over it, and a client per principal.

    With a *clock*, the sessions and the inbox read it (a test moves it);
    without one, the wall clock.
    """

    def __init__(self, clock: Clock | None = None) -> None:
        self.store = MemoryStore()
        self.agent = Agent(self.store, now=clock)
        self.app = create_app(self.store, self.agent.open, page_size=3, now=clock)

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
    shown = re.search(r'name="pause" value="([^"]*)"', page.text)
    assert token is not None
    assert shown is not None
    return token.group(1), html.unescape(shown.group(1))


class TestPending:
    def test_lists_newest_first_with_what_to_answer(self, world: World) -> None:
        """The API lists pending turns newest first, each with its answer_as."""
        first = world.start("pay 50000")
        second = world.start("book")
        body = world.client().get("/api/pending").json()
        assert [item["scope"] for item in body["items"]] == [second.id, first.id]
        assert {item["door"] for item in body["items"]} == {"session"}
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

    @pytest.mark.parametrize("page", ["²", "1" * 5000, "0", "-1", "x"])
    def test_a_page_that_is_no_page_number_is_the_first(
        self, world: World, page: str
    ) -> None:
        """A page query that is not a small positive number shows page 1."""
        world.start("confirm 0")
        client = world.client()
        assert client.get(f"/api/pending?page={page}").json()["total"] == 1
        assert client.get(f"/?page={page}").status_code == 200

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
            (b'{"turn_id": 1, "turn_id": 2, "resume": {}}', "$"),
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

    def test_a_turn_id_out_of_range_is_400(self, world: World) -> None:
        """A turn id the store cannot hold is the session's invalid_argument."""
        session = world.start("pay 50000")
        answer = world.client().post(
            f"/api/sessions/{session.id}/resume", json={"turn_id": 0, "resume": {}}
        )
        assert answer.status_code == 400
        assert answer.json()["type"] == "invalid_argument"

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
            data={"csrf": token, "pause": turn, "i0.mode": "approve"},
        )
        assert done.status_code == 200
        assert "Your answer was accepted" in done.text
        assert world.agent.sent == [{"to": "ACME", "amount": 50000}]

    @pytest.mark.parametrize("shown", ["[" * 200_000, "", "not json"])
    def test_an_unreadable_pause_field_is_refused_and_runs_nothing(
        self, world: World, shown: str
    ) -> None:
        """A forged ``pause`` field (deep, empty, garbage) is a refusal, not a 500."""
        session = world.start("pay 50000")
        client = world.client()
        token, _ = _csrf(client, f"/s/{session.id}")
        page = client.post(
            f"/s/{session.id}",
            data={"csrf": token, "pause": shown, "i0.mode": "approve"},
        )
        assert 400 <= page.status_code < 500
        assert world.agent.sent == []

    def test_a_typed_answer_keeps_its_types(self, world: World) -> None:
        """Numbers stay numbers and booleans booleans; enum is a choice."""
        session = world.start("book")
        client = world.client()
        token, turn = _csrf(client, f"/s/{session.id}")
        form = {
            "csrf": token,
            "pause": turn,
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
        form = {"csrf": token, "pause": turn, "i0.respond.0": "two"}
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
            "pause": turn,
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
        form = {"csrf": token, "pause": turn, "i0.mode": "reject"}
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

    def test_expiry_applies_the_default(self) -> None:
        """A pause past its expiry closes with its default; answers are refused."""
        clock = Clock()
        world = World(clock)
        session = world.start("confirm now?", ttl=timedelta(minutes=1))
        client = world.client()
        assert client.get("/api/pending").json()["total"] == 1
        clock.advance(timedelta(minutes=1))
        assert client.get("/api/pending").json()["total"] == 0
        history = asyncio.run(world.store.load_history(session.id)) or ()
        assert history[2].tool_responses[0].output == "No"

    def test_an_answer_to_an_expired_pause_says_so(self) -> None:
        """Answering a pause that expired on the open page shows `expired`."""
        clock = Clock()
        world = World(clock)
        session = world.start("confirm now?", ttl=timedelta(minutes=1))
        client = world.client()
        token, turn = _csrf(client, f"/s/{session.id}")
        clock.advance(timedelta(minutes=1))
        form = {"csrf": token, "pause": turn, "i0.respond": '"Yes"'}
        page = client.post(f"/s/{session.id}", data=form)
        assert page.status_code == 410
        assert "its default answer applied" in page.text

    def test_principal_from_a_cookie(self, world: World) -> None:
        """from_cookie reads the principal a login middleware set."""
        world.start("pay 50000")
        app = create_app(world.store, world.agent.open, principal=from_cookie("who"))
        client = TestClient(app, cookies={"who": "bob"})
        assert client.get("/api/pending").json()["total"] == 1


class TestPrincipal:
    def test_a_repeated_principal_header_is_anonymous(self, world: World) -> None:
        """A client's header beside the proxy's does not win: two lines, nobody."""
        session = world.start("pay 50000")
        client = TestClient(world.app, base_url="http://inbox.test")
        one = client.get("/api/pending", headers=[("X-Remote-User", "alice")])
        two = client.get(
            "/api/pending",
            headers=[("X-Remote-User", "alice"), ("X-Remote-User", "mallory")],
        )
        nobody = client.get("/api/pending")
        assert [pause["scope"] for pause in one.json()["items"]] == [session.id]
        assert two.json() == nobody.json()
        assert two.json()["items"] == []


class TestServerFailures:
    @pytest.mark.parametrize("who", ["alice", None])
    def test_a_failed_store_is_worded_alike_on_pages_and_the_api(
        self, tmp_path: Path, who: str | None
    ) -> None:
        """A 5xx names no file on a page either: the API's words, the log's details."""
        hidden = tmp_path / "secret-host-dir"
        hidden.mkdir()
        store = SqliteStore(hidden / "prod.sqlite")
        agent = Agent(store)
        asyncio.run(agent.start("pay 50000"))
        app = create_app(store, agent.open)
        asyncio.run(store.close())
        headers = {} if who is None else {"X-Remote-User": who}
        client = TestClient(app, headers=headers, raise_server_exceptions=False)
        api = client.get("/api/pending")
        assert api.status_code == 503
        assert api.json()["message"] == SERVER_MESSAGE
        for path in ("/", "/p/session/anything"):
            page = client.get(path)
            assert page.status_code == 503
            assert str(hidden) not in page.text
            assert html.escape(SERVER_MESSAGE) in page.text


class TestMore:
    def test_a_tool_that_may_run_again(self, world: World) -> None:
        """A pause that takes a result or a restart offers both; restart runs it."""
        session = world.start("deploy")
        client = world.client()
        page = client.get(f"/s/{session.id}")
        assert "Answer with a result" in page.text
        assert "Run it again" in page.text
        token, turn = _csrf(client, f"/s/{session.id}")
        form = {
            "csrf": token,
            "pause": turn,
            "i0.mode": "restart",
            "i0.restart.0": '"tonight"',
            "i0.restart.1": "v2\nhotfix",
        }
        assert client.post(f"/s/{session.id}", data=form).status_code == 200
        assert world.agent.sent == [{"service": "billing"}]
        history = asyncio.run(world.store.load_history(session.id)) or ()
        assert history[2].tool_responses[0].output == {
            "status": "deployed",
            "plan": {"window": "tonight", "tags": ["v2", "hotfix"]},
        }

    def test_continue_as_it_was(self, world: World) -> None:
        """A scheduled pause continues with its arguments unchanged."""
        session = world.start("email")
        client = world.client()
        token, turn = _csrf(client, f"/s/{session.id}")
        form = {"csrf": token, "pause": turn, "i0.mode": "restart"}
        assert client.post(f"/s/{session.id}", data=form).status_code == 200
        assert world.agent.sent == [
            {"to": "team@example.com", "subject": "Status", "urgent": False}
        ]

    def test_no_decision_chosen(self, world: World) -> None:
        """A card with several choices and none picked is refused, unsent."""
        session = world.start("pay 50000")
        client = world.client()
        token, turn = _csrf(client, f"/s/{session.id}")
        page = client.post(f"/s/{session.id}", data={"csrf": token, "pause": turn})
        assert page.status_code == 422
        assert "expected a choice, got none" in page.text

    def test_a_foreign_origin_form_is_refused(self, world: World) -> None:
        """A form POST whose Origin is another site is a 403, token or not."""
        session = world.start("pay 50000")
        client = world.client()
        token, turn = _csrf(client, f"/s/{session.id}")
        page = client.post(
            f"/s/{session.id}",
            data={"csrf": token, "pause": turn, "i0.mode": "approve"},
            headers={"origin": "https://evil.example"},
        )
        assert page.status_code == 403
        assert world.agent.sent == []

    def test_the_sessions_verdict_is_shown(self, world: World) -> None:
        """When the session refuses what the page let through, its words show."""
        session = world.start("pay 50000")
        calls: list[str | None] = []

        def flaky(principal: str | None, _pending: object) -> bool:
            calls.append(principal)
            return len(calls) <= 2  # shown twice, then refused

        def opened(session_id: str) -> Session:
            opened_session = world.agent.open(session_id)
            opened_session.authorize = flaky
            return opened_session

        app = create_app(world.store, opened)
        client = TestClient(app, headers={"X-Remote-User": "alice"})
        token, turn = _csrf(client, f"/s/{session.id}")
        page = client.post(
            f"/s/{session.id}",
            data={"csrf": token, "pause": turn, "i0.mode": "approve"},
        )
        assert page.status_code == 403
        assert "may not answer" in page.text

    def test_an_async_principal(self, world: World) -> None:
        """The principal may come from a coroutine."""
        world.start("pay 50000")

        async def who(_request: object) -> str:
            return "bob"

        app = create_app(world.store, world.agent.open, principal=who)
        assert TestClient(app).get("/api/pending").json()["total"] == 1

    def test_unknown_sessions(self, world: World) -> None:
        """A session the store does not have has no page, JSON or trail."""
        client = world.client()
        assert client.get("/s/nope").status_code == 404
        assert client.get("/api/sessions/nope/audit").status_code == 404
        assert client.get("/api/sessions/nope").status_code == 409

    def test_an_answer_to_a_finished_turn(self, world: World) -> None:
        """A form for a turn already answered elsewhere is refused as consumed."""
        session = world.start("pay 50000")
        client = world.client()
        token, turn = _csrf(client, f"/s/{session.id}")
        form = {"csrf": token, "pause": turn, "i0.mode": "approve"}
        client.post(f"/s/{session.id}", data=form)
        again = client.post(f"/s/{session.id}", data=form)
        assert again.status_code == 409
        assert "already" in again.text

    def test_an_approval_that_takes_an_edit(self, world: World) -> None:
        """An approval whose pause allows a new input offers an edit with a diff."""
        now = datetime.now(UTC)
        call = ToolRequest("send_email", ref="c-1", input={"to": "a@b.c"})
        pending = PendingInterrupt(
            id="c-1",
            kind=ApprovalPending("c-1"),
            payload=None,
            tool=call,
            accepts=Accepts(replace_input=EMAIL),
        )
        history = (
            Message.of_text(Role.USER, "mail"),
            Message(Role.MODEL, (call,)),
        )
        turn = InterruptedTurn("s-1", 1, history, (pending,), (), now)
        asyncio.run(world.store.save("s-1", history, turn))
        client = world.client()
        assert "Edit, then approve" in client.get("/s/s-1").text
        token, number = _csrf(client, "/s/s-1")
        form = {
            "csrf": token,
            "pause": number,
            "i0.mode": "edit",
            "i0.edit.0": "boss@example.com",
            "i0.edit.1": "Hi",
            "intent": "review",
        }
        review = client.post("/s/s-1", data=form)
        assert "Your edit" in review.text
        assert "(none)" in review.text  # subject was not there before

    def test_arguments_as_rows(self) -> None:
        """An object's arguments are rows of JSON values; anything else none."""
        assert _rows({"a": "1", "b": 1}) == (("a", '"1"'), ("b", "1"))
        assert _rows([1]) == ()

    def test_a_diff_of_values_that_are_not_objects(self) -> None:
        """A diff of two non-objects is one row, or none when equal."""
        assert _diff(1, 2) == (("$", "1", "2"),)
        assert _diff([1], [1]) == ()

    def test_problems_land_at_their_fields(self) -> None:
        """A mismatch names its field by path; others stay at the card."""
        field = field_for(EMAIL, "f", "Arguments")
        choice = _Choice("edit", "Edit", field)
        message = "$.restart[0].input.to: expected a string, got 1; $.x: odd"
        assert _placed([message], choice) == [
            ("$.to", "expected a string, got 1"),
            ("$", "$.x: odd"),
        ]
        assert _placed(["no path"], None) == [("$", "no path")]


def test_demo_inbox_with_an_unusable_db(tmp_path: Path) -> None:
    """The demo's --inbox on a --db that cannot be opened is exit status 3."""
    err = io.StringIO()
    assert _demo.run_inbox(db=str(tmp_path), host="127.0.0.1", port=1, err=err) == 3
    assert "cannot open --db" in err.getvalue()


class TestLive:
    def test_a_change_is_an_event(self, world: World) -> None:
        """The event stream says `changed` when what is pending changes."""
        world.start("confirm soon?", ttl=timedelta(milliseconds=300))
        app = create_app(
            world.store, world.agent.open, poll_seconds=0.05, stream_seconds=1.0
        )
        client = TestClient(app, headers={"X-Remote-User": "alice"})
        with client.stream("GET", "/events") as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            text = "".join(stream.iter_text())
        assert text.startswith("retry: 2000")
        assert "event: changed\ndata: 0\n\n" in text

    def test_a_null_origin_still_needs_the_token(self, world: World) -> None:
        """An opaque Origin ("null") is judged by the double-submit token alone."""
        session = world.start("pay 50000")
        client = world.client()
        token, turn = _csrf(client, f"/s/{session.id}")
        form = {"csrf": token, "pause": turn, "i0.mode": "approve"}
        page = client.post(f"/s/{session.id}", data=form, headers={"origin": "null"})
        assert page.status_code == 200
        assert world.agent.sent == [{"to": "ACME", "amount": 50000}]

    def test_an_answered_turn_past_its_expiry_is_consumed(self) -> None:
        """A turn answered in time, then sent again after it would have expired."""
        clock = Clock()
        world = World(clock)
        session = world.start("confirm quickly?", ttl=timedelta(minutes=1))
        client = world.client()
        token, turn = _csrf(client, f"/s/{session.id}")
        form = {"csrf": token, "pause": turn, "i0.respond": '"Yes"'}
        assert client.post(f"/s/{session.id}", data=form).status_code == 200
        clock.advance(timedelta(minutes=1))
        again = client.post(f"/s/{session.id}", data=form)
        assert again.status_code == 409

    def test_a_call_that_expired_in_a_batch(self) -> None:
        """One call of a turn expired, the other not: its card says so."""
        clock = Clock()
        world = World(clock)
        now = clock()
        soon, never = (
            PendingInterrupt(
                id=ref,
                kind=Custom(),
                payload={"type": "confirm", "title": "Q", "text": ref},
                tool=ToolRequest("ask_user", ref=ref, input={}),
                accepts=Accepts(respond={"type": "string"}),
                expires_at=ends,
            )
            for ref, ends in (("q-1", now + timedelta(minutes=1)), ("q-2", None))
        )
        calls = tuple(p.tool for p in (soon, never) if p.tool is not None)
        history = (Message.of_text(Role.USER, "two"), Message(Role.MODEL, calls))
        turn = InterruptedTurn("s-2", 1, history, (soon, never), (), now)
        asyncio.run(world.store.save("s-2", history, turn))
        client = world.client()
        token, number = _csrf(client, "/s/s-2")
        clock.advance(timedelta(minutes=1))
        form = {
            "csrf": token,
            "pause": number,
            "i0.respond": '"Yes"',
            "i1.respond": '"No"',
            "i0.mode": "respond",
        }
        page = client.post("/s/s-2", data=form, headers={"origin": "http://inbox.test"})
        assert page.status_code == 410
        assert "expired" in page.text

    def test_an_id_no_store_takes(self, world: World) -> None:
        """A session id out of range has nothing pending; an answer to it is 400."""
        client = world.client()
        long = "x" * 300
        assert client.get(f"/s/{long}").status_code == 404
        token, _ = _csrf(client, f"/s/{world.start('pay 50000').id}")
        page = client.post(f"/s/{long}", data={"csrf": token, "pause": "[]"})
        assert page.status_code == 400
        assert "expected text of 1 to 256 characters" in page.text
        sent = {"turn_id": 1, "resume": {}}
        body = client.post(f"/api/sessions/{long}/resume", json=sent)
        assert body.status_code == 400
        assert body.json()["type"] == "invalid_argument"
