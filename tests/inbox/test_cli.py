"""The inbox on the command line: `interruption inbox` and `demo --inbox`."""

from __future__ import annotations

import html
import io
import re
import threading
from pathlib import Path

import httpx
import pytest
from interruption import _demo
from interruption.cli import main
from starlette.applications import Starlette
from starlette.testclient import TestClient

from tests.inbox._browser import free_port


def _served(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Starlette, str, int]]:
    """Catch what `interruption inbox` would serve, instead of serving it."""
    calls: list[tuple[Starlette, str, int]] = []

    def run(app: Starlette, *, host: str, port: int, log_level: str) -> None:
        assert log_level == "info"
        calls.append((app, host, port))

    monkeypatch.setattr("uvicorn.run", run)
    return calls


def _paused_demo(db: Path) -> str:
    """A demo session paused at the approval, in *db*; its id."""
    out = io.StringIO()
    status = _demo.run(["Yes"], forged=False, db=str(db), detach=True, out=out)
    assert status == 0
    found = re.search(r"session ([0-9a-f]{32})", out.getvalue())
    assert found is not None
    return found.group(1)


class TestInboxCommand:
    def test_serves_the_demo_sessions_on_localhost(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Without --agent it serves the demo's sessions, on 127.0.0.1:8400."""
        db = tmp_path / "d.sqlite"
        session = _paused_demo(db)
        calls = _served(monkeypatch)
        assert main(["inbox", "--db", str(db), "--user", "ann"]) == 0
        app, host, port = calls[0]
        assert (host, port) == ("127.0.0.1", 8400)
        pending = TestClient(app).get("/api/pending").json()
        assert [item["scope"] for item in pending["items"]] == [session]
        assert [item["door"] for item in pending["items"]] == ["session"]

    def test_an_agent_of_your_own(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """--agent names the function that opens your sessions; the header names who."""
        calls = _served(monkeypatch)
        agent = "examples.service.agent:open_session"
        argv = ["inbox", "--db", str(tmp_path / "a.sqlite"), "--agent", agent]
        assert main([*argv, "--port", "9000", "--principal-header", "X-User"]) == 0
        app, _, port = calls[0]
        assert port == 9000
        assert TestClient(app, headers={"X-User": "bob"}).get("/").status_code == 200

    @pytest.mark.parametrize("agent", ["nowhere:x", "examples.service.agent:nothing"])
    def test_a_bad_agent_is_a_usage_error(self, tmp_path: Path, agent: str) -> None:
        """An --agent that cannot be imported is exit status 2, said on stderr."""
        err = io.StringIO()
        argv = ["inbox", "--db", str(tmp_path / "a.sqlite"), "--agent", agent]
        assert main(argv, err=err) == 2
        assert "--agent" in err.getvalue()

    def test_an_unusable_db(self, tmp_path: Path) -> None:
        """A --db that cannot be opened is exit status 3."""
        err = io.StringIO()
        assert main(["inbox", "--db", str(tmp_path)], err=err) == 3
        assert "cannot open --db" in err.getvalue()

    def test_without_the_extra(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Without the [inbox] extra, both commands say how to install it."""
        monkeypatch.setitem(__import__("sys").modules, "interruption.inbox", None)
        for argv in (["inbox", "--db", "x"], ["demo", "--inbox"]):
            err = io.StringIO()
            assert main(argv, err=err) == 2
            assert "interruption[inbox]" in err.getvalue()


class TestDemoInbox:
    def test_pauses_serves_and_ends_once_answered(self, tmp_path: Path) -> None:
        """Demo --inbox serves the approval; approving it there ends the demo."""
        out, port = io.StringIO(), free_port()
        status: list[int] = []
        argv = ["demo", "--inbox", "--db", str(tmp_path / "d.sqlite")]
        thread = threading.Thread(
            target=lambda: status.append(main([*argv, "--port", str(port)], out=out)),
            daemon=True,
        )
        thread.start()
        url = None
        for _ in range(200):
            found = re.search(r"open (http://\S+)", out.getvalue())
            if found:
                url = found.group(1)
                break
            thread.join(0.05)
        assert url is not None, out.getvalue()
        with httpx.Client() as client:
            page = client.get(url)
            for _ in range(100):
                if page.status_code == 200:
                    break
                thread.join(0.05)
                page = client.get(url)
            token = re.search(r'name="csrf" value="([^"]+)"', page.text)
            shown = re.search(r'name="pause" value="([^"]+)"', page.text)
            assert token is not None
            assert shown is not None
            pause = html.unescape(shown.group(1))
            answer = {"csrf": token.group(1), "pause": pause, "i0.mode": "approve"}
            assert client.post(url, data=answer).status_code in {200, 303}
        thread.join(15)
        assert not thread.is_alive()
        assert status == [0]
        assert "finished: transfers made by this process: 1" in out.getvalue()
        assert "Paid INV-7" in out.getvalue()
