"""The example agent service (examples/service), through an in-process client."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from examples.service.app import create_service
from interruption import MemoryStore
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
        assert f'href="/inbox/s/{run}"' in page.text
        assert 'href="/inbox/static/inbox.css"' in page.text
        assert client.get("/inbox/static/inbox.css").status_code == 200
        form_page = client.get(f"/inbox/s/{run}")
        token = re.search(r'name="csrf" value="([^"]+)"', form_page.text)
        assert token is not None
        done = client.post(
            f"/inbox/s/{run}",
            data={"csrf": token.group(1), "turn_id": "1", "i0.mode": "approve"},
            follow_redirects=False,
        )
        assert done.status_code == 303
        assert done.headers["location"] == f"/inbox/s/{run}?answered=1"
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
