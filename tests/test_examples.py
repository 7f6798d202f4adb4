"""The example agent services (examples/), through an in-process client."""

from __future__ import annotations

import html
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import cast

import pytest
from examples.langgraph_service.agent import GraphAgent
from examples.langgraph_service.app import create_service as create_graph_service
from examples.service.app import create_service
from interruption import MemoryStore, SqliteStore
from interruption.http import decode_error_from
from starlette.applications import Starlette
from starlette.testclient import TestClient


@pytest.fixture(name="client")
def _client() -> TestClient:
    service = create_service(MemoryStore())
    return TestClient(service, headers={"X-Remote-User": "alice"})


def _start(client: TestClient, text: str) -> dict[str, object]:
    started = client.post("/runs", json={"text": text})
    assert started.status_code == 201
    body: dict[str, object] = started.json()
    return body


class TestService:
    def test_start_list_answer_audit(self, client: TestClient) -> None:
        """A run pauses for approval; answering it runs the transfer, audited."""
        run = str(_start(client, "pay 50000")["session"])
        pending = client.get(f"/runs/{run}/pending").json()
        assert pending["interrupts"][0]["kind"]["type"] == "approval_pending"
        approve = {"name": "transfer_money", "ref": "call-1", "resumed": "approve"}
        resume = {"restart": [approve]}
        answered = client.post(
            f"/runs/{run}/answer", json={"turn_id": 1, "resume": resume}
        )
        assert answered.status_code == 200
        assert answered.json()["paused"] is False
        assert client.get(f"/runs/{run}/pending").status_code == 409
        events = client.get(f"/runs/{run}/audit").json()["events"]
        assert [event["kind"] for event in events] == ["paused", "accepted"]

    def test_errors_map_through_interruption_http(self, client: TestClient) -> None:
        """Bad bodies are 400, bad answers 422, refused callers 403, replays 409."""
        run = str(_start(client, "book")["session"])
        assert client.post("/runs", content=b"[").status_code == 400
        assert client.post("/runs", json=[]).status_code == 400
        assert client.post("/runs", json={"text": " "}).status_code == 400
        url = f"/runs/{run}/answer"
        assert client.post(url, json={"turn_id": "1"}).status_code == 400
        bad = {"respond": [{"name": "book_room", "ref": "call-1", "output": 1}]}
        assert client.post(url, json={"turn_id": 1, "resume": bad}).status_code == 422
        good = {
            "respond": [
                {
                    "name": "book_room",
                    "ref": "call-1",
                    "output": {
                        "nights": 1,
                        "guests": 1,
                        "breakfast": False,
                        "room": "single",
                    },
                }
            ]
        }
        mallory = {"X-Remote-User": "mallory"}
        refused = client.post(url, json={"turn_id": 1, "resume": good}, headers=mallory)
        assert refused.status_code == 403
        assert client.post(url, json={"turn_id": 1, "resume": good}).status_code == 200
        replay = client.post(url, json={"turn_id": 1, "resume": good})
        assert replay.status_code == 409
        assert replay.json()["problems"][0]["code"] == "consumed"

    def test_cancel(self, client: TestClient) -> None:
        """Cancelling a run closes its pause; a second cancel is a 409."""
        run = str(_start(client, "pay 50000")["session"])
        url = f"/runs/{run}/cancel"
        assert client.post(url, json={"reason": 1}).status_code == 400
        assert client.post(url, json={"reason": "not today"}).status_code == 200
        assert (
            client.post(url, json={"reason": "again", "turn_id": 1}).status_code == 409
        )

    def test_the_inbox_is_mounted(self, client: TestClient) -> None:
        """The inbox under /inbox lists the run and answers it, links included."""
        run = str(_start(client, "pay 50000")["session"])
        page = client.get("/inbox/")
        assert f'href="/inbox/p/session/{run}"' in page.text
        assert 'href="/inbox/static/inbox.css"' in page.text
        assert client.get("/inbox/static/inbox.css").status_code == 200
        done = client.post(
            f"/inbox/p/session/{run}",
            data={**_form(client, f"/inbox/p/session/{run}"), "i0.mode": "approve"},
            follow_redirects=False,
        )
        assert done.status_code == 303
        assert done.headers["location"] == f"/inbox/p/session/{run}?answered=1"
        events = client.get(f"/runs/{run}/audit").json()["events"]
        assert events[-1]["principal"] == "alice"

    def test_the_module_app(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """`examples.service.app:app` is built over a SQLite file when first used."""
        import examples.service.app as module  # noqa: PLC0415 - its lazy attribute

        monkeypatch.chdir(str(tmp_path))
        assert TestClient(module.app).get("/inbox/").status_code == 200
        with pytest.raises(AttributeError):
            _ = module.other


def _form(client: TestClient, path: str) -> dict[str, str]:
    """The CSRF token and the shown pause of the inbox page at *path*."""
    page = client.get(path)
    token = re.search(r'name="csrf" value="([^"]+)"', page.text)
    shown = re.search(r'name="pause" value="([^"]*)"', page.text)
    assert token is not None
    assert shown is not None
    return {"csrf": token.group(1), "pause": html.unescape(shown.group(1))}


def _graph_client(where: Path) -> TestClient:
    store = SqliteStore(where / "store.sqlite3")
    service = create_graph_service(where / "checkpoints.sqlite3", store)
    return TestClient(service, headers={"X-Remote-User": "alice"})


@pytest.fixture(name="graph")
def _graph(tmp_path: Path) -> TestClient:
    return _graph_client(tmp_path)


def _agent(client: TestClient) -> GraphAgent:
    agent: GraphAgent = cast("Starlette", client.app).state.agent
    return agent


def _thread(client: TestClient, text: str) -> tuple[str, list[dict[str, object]]]:
    started = client.post("/threads", json={"text": text})
    assert started.status_code == 201
    body = started.json()
    return body["thread"], body["pending"]


APPROVE = {
    "restart": [{"name": "transfer_money", "ref": "call-1", "resumed": "approve"}]
}
FORGED = {
    "restart": [
        {
            "name": "transfer_money",
            "ref": "call-1",
            "resumed": "approve",
            "input": {"to": "MALLORY", "amount": 50000},
        }
    ]
}
ACME = {"to": "ACME", "amount": 50000}


class TestLangGraphService:
    def test_approve_runs_the_transfer_once(self, graph: TestClient) -> None:
        """A transfer over the limit pauses; approving runs it once, then none waits."""
        thread, shown = _thread(graph, "pay 50000")
        (pause,) = shown
        assert pause["kind"] == {"type": "approval_pending", "tool_use_id": "call-1"}
        assert _agent(graph).sent == []
        answered = graph.post(f"/threads/{thread}/answer", json=APPROVE)
        assert answered.status_code == 200
        assert answered.json()["paused"] is False
        assert answered.json()["text"].startswith('Done. {"status": "sent"')
        assert _agent(graph).sent == [ACME]
        assert graph.get(f"/threads/{thread}/pending").json()["pending"] == []

    def test_a_replay_is_consumed_and_runs_nothing(self, graph: TestClient) -> None:
        """The same answer again is a 409 ``consumed``; the transfer runs no more."""
        thread, _ = _thread(graph, "pay 50000")
        assert graph.post(f"/threads/{thread}/answer", json=APPROVE).status_code == 200
        replay = graph.post(f"/threads/{thread}/answer", json=APPROVE)
        assert replay.status_code == 409
        assert [p["code"] for p in replay.json()["problems"]] == ["consumed"]
        assert _agent(graph).sent == [ACME]

    def test_a_forged_answer_is_input_modified(self, graph: TestClient) -> None:
        """An approval changing the arguments is 422 ``input_modified``; none runs."""
        thread, _ = _thread(graph, "pay 50000")
        forged = graph.post(f"/threads/{thread}/answer", json=FORGED)
        assert forged.status_code == 422
        assert [p["code"] for p in forged.json()["problems"]] == ["input_modified"]
        assert _agent(graph).sent == []
        assert len(graph.get(f"/threads/{thread}/pending").json()["pending"]) == 1

    def test_a_body_that_is_not_a_resume_is_a_decode_error(
        self, graph: TestClient
    ) -> None:
        """A body that is not a Resume is a 400 that reads back as its DecodeError."""
        thread, _ = _thread(graph, "pay 50000")
        url = f"/threads/{thread}/answer"
        sent = graph.post(url, json={"respond": 1})
        assert sent.status_code == 400
        decoded = decode_error_from(sent.json())
        assert [(p.path, p.expected) for p in decoded.problems] == [
            ("$.respond", "an array")
        ]
        assert graph.post(url, content=b"[").status_code == 400
        assert graph.post("/threads", json={"text": 1}).status_code == 400
        assert _agent(graph).sent == []

    def test_a_refused_principal_gets_403_and_learns_nothing(
        self, graph: TestClient
    ) -> None:
        """A non-approver sees no pause and gets a bare 403; nothing runs."""
        thread, shown = _thread(graph, "pay 50000")
        mallory = {"X-Remote-User": "mallory"}
        seen = graph.get(f"/threads/{thread}/pending", headers=mallory)
        assert seen.json()["pending"] == []
        refused = graph.post(f"/threads/{thread}/answer", json=APPROVE, headers=mallory)
        assert refused.status_code == 403
        (problem,) = refused.json()["problems"]
        assert problem["code"] == "not_authorized"
        assert problem["interrupt_id"] is None
        assert problem["index"] is None
        assert str(shown[0]["id"]) not in refused.text
        assert "ACME" not in refused.text
        assert _agent(graph).sent == []
        assert graph.get(f"/threads/{thread}/pending").json()["pending"] == shown

    def test_the_audit_trail(self, graph: TestClient) -> None:
        """The audit trail lists paused, rejected and accepted, with who and why."""
        thread, _ = _thread(graph, "pay 50000")
        graph.post(f"/threads/{thread}/answer", json=FORGED)
        graph.post(f"/threads/{thread}/answer", json=APPROVE)
        events = graph.get(f"/threads/{thread}/audit").json()["events"]
        assert [e["kind"] for e in events] == ["paused", "rejected", "accepted"]
        assert events[1]["codes"] == ["input_modified"]
        assert [e["principal"] for e in events[1:]] == ["alice", "alice"]

    def test_two_concurrent_answers_run_the_transfer_once(
        self, graph: TestClient
    ) -> None:
        """Two answers to one pause at once: a 200 and a 409, and one transfer."""
        thread, _ = _thread(graph, "pay 50000")
        barrier = threading.Barrier(2)

        def answer(_: int) -> tuple[int, list[str]]:
            barrier.wait()
            sent = graph.post(f"/threads/{thread}/answer", json=APPROVE)
            codes = [problem["code"] for problem in sent.json().get("problems", [])]
            return sent.status_code, codes

        with ThreadPoolExecutor(2) as pool:
            answers = sorted(pool.map(answer, range(2)))
        assert answers == [(200, []), (409, ["consumed"])]
        assert _agent(graph).sent == [ACME]

    def test_a_question_node(self, graph: TestClient) -> None:
        """The question node pauses with its Confirm and takes only its choices."""
        thread, (pause,) = _thread(graph, "Ship the release?")
        assert pause["kind"] == {"type": "custom"}
        assert pause["payload"] == {
            "type": "confirm",
            "title": "Question",
            "text": "Ship the release?",
            "choices": ["Yes", "No"],
        }
        url = f"/threads/{thread}/answer"

        def reply(said: str) -> dict[str, object]:
            return {"respond": [{"name": "custom", "ref": pause["id"], "output": said}]}

        wrong = graph.post(url, json=reply("Maybe"))
        assert wrong.status_code == 422
        assert wrong.json()["problems"][0]["code"] == "schema_violation"
        answered = graph.post(url, json=reply("Yes"))
        assert answered.json() == {
            "thread": thread,
            "text": "You said Yes.",
            "paused": False,
        }

    def test_the_inbox_answers_through_the_bridge(self, graph: TestClient) -> None:
        """The inbox lists the thread's pause and approves it once; a replay is 409."""
        thread, _ = _thread(graph, "pay 50000")
        listed = graph.get("/inbox/api/pending").json()["items"]
        assert [(item["door"], item["scope"]) for item in listed] == [
            ("langgraph", thread)
        ]
        assert f'href="/inbox/p/langgraph/{thread}"' in graph.get("/inbox/").text
        where = f"/inbox/p/langgraph/{thread}"
        done = graph.post(
            where,
            data={**_form(graph, where), "i0.mode": "approve"},
            follow_redirects=False,
        )
        assert done.status_code == 303
        assert _agent(graph).sent == [ACME]
        replay = graph.post(f"/threads/{thread}/answer", json=APPROVE)
        assert replay.status_code == 409
        assert replay.json()["problems"][0]["code"] == "consumed"
        assert _agent(graph).sent == [ACME]
        trail = graph.get(f"/inbox/api/audit/langgraph/{thread}").json()["events"]
        assert [event["kind"] for event in trail] == ["paused", "accepted", "rejected"]
        mallory = graph.get("/inbox/api/pending", headers={"X-Remote-User": "mallory"})
        assert mallory.json()["total"] == 0

    def test_cancel_is_405(self, graph: TestClient) -> None:
        """The adapter has no cancel: a 405 with a problem body and an empty Allow."""
        thread, _ = _thread(graph, "pay 50000")
        cancelled = graph.post(f"/threads/{thread}/cancel", json={"reason": "no"})
        assert cancelled.status_code == 405
        assert cancelled.headers["allow"] == ""
        assert cancelled.json()["type"] == "cancel_unsupported"
        assert len(graph.get(f"/threads/{thread}/pending").json()["pending"]) == 1

    def test_an_unknown_thread_is_404(self, graph: TestClient) -> None:
        """A thread the checkpointer never saw is 404 ``unknown_session``."""
        for sent in (
            graph.get("/threads/nope/pending"),
            graph.post("/threads/nope/answer", json=APPROVE),
        ):
            assert sent.status_code == 404
            assert sent.json()["problems"][0]["code"] == "unknown_session"
        assert graph.get("/threads/nope/audit").json() == {"events": []}

    def test_a_restarted_service_answers_the_pause(self, tmp_path: Path) -> None:
        """A new process over the same files lists the pause and runs it once."""
        thread, shown = _thread(_graph_client(tmp_path), "pay 50000")
        again = _graph_client(tmp_path)
        assert again.get(f"/threads/{thread}/pending").json()["pending"] == shown
        assert again.post(f"/threads/{thread}/answer", json=APPROVE).status_code == 200
        assert _agent(again).sent == [ACME]

    def test_the_module_app(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """`examples.langgraph_service.app:app` is built over two SQLite files."""
        import examples.langgraph_service.app as module  # noqa: PLC0415 - lazy

        monkeypatch.chdir(str(tmp_path))
        client = TestClient(module.app)
        assert client.get("/threads/none/pending").status_code == 404
        made = {path.name for path in tmp_path.iterdir()}
        assert {"langgraph-checkpoints.sqlite3", "langgraph-service.sqlite3"} <= made
        with pytest.raises(AttributeError):
            _ = module.other
