"""The inbox as a person uses it: a real headless chromium, end to end.

One browser per module and one served inbox (uvicorn, a SQLite file store);
each test starts the runs it answers. Screenshots of the main screens go
to tests/inbox/screenshots/; axe-core checks those screens.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Coroutine, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Final, TypeVar

import pytest
from examples.service.agent import Agent
from interruption import JSON, ResumeRejected, Session, SqliteStore
from interruption.adapters.langgraph import aresume, bridge
from interruption.inbox import create_app
from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright

from tests.adapters.test_langgraph_bridge import APPROVE, config, may_answer
from tests.adapters.test_langgraph_bridge import World as Graph
from tests.inbox._browser import CHROMIUM_ARGS, Served, axe_script, chromium

SHOTS: Final = Path(__file__).parent / "screenshots"


T = TypeVar("T")


class Inbox:
    """The served inbox over a SQLite file, and the test's own view of it.

    The test's own store runs in a thread of its own, with its own event
    loop: Playwright's sync API holds the test thread's.
    """

    def __init__(self, db: Path) -> None:
        self.db = db
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.store = SqliteStore(str(db))  # the test's: it starts runs, reads results
        self.agent = Agent(self.store)
        self.graph = Graph()  # a LangGraph graph, checkpointed in memory
        self.served = self._serve()

    def run(self, work: Coroutine[object, object, T]) -> T:
        """Run *work* on the test's own loop; return its result."""
        return asyncio.run_coroutine_threadsafe(work, self.loop).result(timeout=30)

    def close(self) -> None:
        """Stop the server, the test's store and its loop."""
        self.served.stop()
        self.run(self.store.close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()

    def _serve(self, port: int | None = None) -> Served:
        store = SqliteStore(str(self.db))
        self.server_agent = Agent(store)
        graph = self.graph
        door = bridge(graph.graph, store, lambda: graph.started, authorize=may_answer)
        app = create_app(
            store, self.server_agent.open, bridges=[door], poll_seconds=0.2
        )
        return Served(app, port)

    def restart(self) -> None:
        """Stop the server and start a fresh process' worth on the same file."""
        port = self.served.port
        self.served.stop()
        self.served = self._serve(port)

    def start(self, text: str, ttl: timedelta | None = None) -> Session:
        """Start a run of the agent (the test's own store); it pauses."""
        return self.run(self.agent.start(text, ttl=ttl))

    def output(self, session: Session, name: str) -> JSON:
        """What the tool call *name* answered, from the stored history."""
        history = self.run(self.store.load_history(session.id)) or ()
        for message in history:
            for response in message.tool_responses:
                if response.name == name:
                    return response.output
        return None

    def trail(self, session: Session) -> list[str]:
        """The kinds of *session*'s audit events, oldest first."""
        return [event.kind for event in self.run(self.store.audit(session.id))]


@pytest.fixture(name="inbox", scope="module")
def _inbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Inbox]:
    inbox = Inbox(tmp_path_factory.mktemp("inbox") / "app.sqlite")
    yield inbox
    inbox.close()


@pytest.fixture(name="browser", scope="module")
def _browser() -> Iterator[Browser]:
    executable = chromium()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(executable), args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


def _context(
    browser: Browser, who: str = "alice", *, axe: bool = False
) -> BrowserContext:
    # axe-core is injected as a script tag: only its context bypasses the CSP.
    return browser.new_context(
        extra_http_headers={"X-Remote-User": who},
        bypass_csp=axe,
        viewport={"width": 1100, "height": 800},
    )


@pytest.fixture(name="page")
def _page(browser: Browser) -> Iterator[Page]:
    context = _context(browser)
    yield context.new_page()
    context.close()


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _axe(browser: Browser, url: str) -> list[str]:
    """axe-core's violations on *url*, as ``id: help`` lines."""
    context = _context(browser, axe=True)
    page = context.new_page()
    page.goto(url)
    page.add_script_tag(path=str(axe_script()))
    found = page.evaluate("async () => (await axe.run(document)).violations")
    context.close()
    return [f"{v['id']}: {v['help']} ({len(v['nodes'])})" for v in found]


def _open(page: Page, inbox: Inbox, session: Session) -> None:
    page.goto(f"{inbox.served.url}/s/{session.id}")


def _send(page: Page) -> None:
    page.get_by_role("button", name="Send").click()


def _ready(page: Page) -> None:
    """Wait until the page's script listens (it marks the body when it does)."""
    page.wait_for_selector("body[data-ready]", state="attached")


class TestAnswering:
    def test_approve(self, inbox: Inbox, page: Page) -> None:
        """A person finds the pause in the list, approves it, and the call runs."""
        session = inbox.start("pay 50000")
        page.goto(inbox.served.url)
        page.locator(f"a[href$='{session.id}']").click()
        expect(page.get_by_role("heading", level=2)).to_contain_text("transfer_money")
        _shot(page, "approval")
        page.get_by_text("Approve", exact=True).click()
        _send(page)
        expect(page.get_by_role("status")).to_contain_text("accepted")
        assert inbox.output(session, "transfer_money") == {
            "status": "sent",
            "transfer": {"to": "ACME", "amount": 50000},
        }
        page.get_by_role("link", name="Audit trail").click()
        expect(page.locator("tbody tr")).to_have_count(2)
        expect(page.locator("tbody")).to_contain_text("alice")
        _shot(page, "audit")

    def test_reject_with_a_reason(self, inbox: Inbox, page: Page) -> None:
        """Rejecting asks for a reason, which the agent is told."""
        session = inbox.start("pay 70000")
        _open(page, inbox, session)
        page.get_by_text("Reject", exact=True).click()
        page.get_by_label("Reason for rejecting").fill("Not budgeted this month")
        _send(page)
        expect(page.get_by_role("status")).to_contain_text("accepted")
        output = inbox.output(session, "transfer_money")
        assert "Not budgeted this month" in json.dumps(output)

    def test_a_typed_answer(self, inbox: Inbox, page: Page) -> None:
        """Numbers, a boolean and a choice arrive with their JSON types."""
        session = inbox.start("book")
        _open(page, inbox, session)
        page.get_by_role("spinbutton", name="nights").fill("3")
        page.get_by_role("spinbutton", name="guests").fill("2")
        page.get_by_role("checkbox", name="breakfast").check()
        page.get_by_role("radio", name="suite").check()
        page.get_by_role("spinbutton", name="budget").fill("420.5")
        _shot(page, "typed")
        _send(page)
        expect(page.get_by_role("status")).to_contain_text("accepted")
        assert inbox.output(session, "book_room") == {
            "nights": 3,
            "guests": 2,
            "breakfast": True,
            "room": "suite",
            "budget": 420.5,
        }

    def test_a_wrong_typed_answer_shows_the_problem_at_its_field(
        self, inbox: Inbox, page: Page
    ) -> None:
        """A value the schema refuses is shown with the validator's words, unsent."""
        session = inbox.start("book")
        _open(page, inbox, session)
        page.get_by_role("spinbutton", name="nights").fill("0")
        page.get_by_role("spinbutton", name="guests").fill("2")
        page.get_by_role("radio", name="single").check()
        _send(page)
        nights = page.locator(".row", has=page.get_by_role("spinbutton", name="nights"))
        expect(nights.get_by_role("alert")).to_have_text("expected minimum 1, got 0")
        _shot(page, "problem")
        assert inbox.trail(session) == ["paused"]  # checked before sending

    def test_a_json_editor_for_what_fields_cannot_hold(
        self, inbox: Inbox, page: Page
    ) -> None:
        """A union schema gets a JSON editor, checked as typed and by the validator."""
        session = inbox.start("slots")
        _open(page, inbox, session)
        _ready(page)
        editor = page.get_by_role("textbox", name="Your answer")
        editor.fill('[{"day": "Mon", "hour": 9')
        expect(editor).to_have_attribute("aria-invalid", "true")
        _send(page)
        expect(page.get_by_role("alert").first).to_contain_text("expected a JSON value")
        editor = page.get_by_role("textbox", name="Your answer")
        editor.fill('[{"day": "Mon", "hour": "9"}]')
        _send(page)
        expect(page.get_by_role("alert").first).to_contain_text("hour")
        _ready(page)
        editor = page.get_by_role("textbox", name="Your answer")
        editor.fill('[{"day": "Mon", "hour": 9}]')
        expect(editor).to_have_attribute("aria-invalid", "false")
        _send(page)
        expect(page.get_by_role("status")).to_contain_text("accepted")
        assert inbox.output(session, "plan_slots") == [{"day": "Mon", "hour": 9}]

    def test_an_edit(self, inbox: Inbox, page: Page) -> None:
        """An edit is reviewed as a diff of the arguments, then runs as edited."""
        session = inbox.start("email")
        _open(page, inbox, session)
        page.get_by_text("Edit the arguments, then continue").click()
        page.get_by_role("textbox", name="to").fill("boss@example.com")
        page.get_by_role("checkbox", name="urgent").check()
        page.get_by_role("button", name="Review first").click()
        diff = page.get_by_role("table", name="Your edit")
        expect(diff).to_contain_text("team@example.com")
        expect(diff).to_contain_text("boss@example.com")
        _shot(page, "edit")
        _send(page)
        expect(page.get_by_role("status")).to_contain_text("accepted")
        sent = inbox.output(session, "send_email")
        assert sent == {
            "status": "sent",
            "email": {"to": "boss@example.com", "subject": "Status", "urgent": True},
        }

    def test_a_batch(self, inbox: Inbox, page: Page) -> None:
        """Three parallel calls on one screen, answered together as one resume."""
        session = inbox.start("batch")
        _open(page, inbox, session)
        expect(page.locator("section.interrupt")).to_have_count(3)
        first, second, third = page.locator("section.interrupt").all()
        first.get_by_text("Approve", exact=True).click()
        second.get_by_text("Reject", exact=True).click()
        second.get_by_label("Reason for rejecting").fill("Duplicate invoice")
        third.get_by_role("radio", name="Yes").check()
        _shot(page, "batch")
        page.get_by_role("button", name="Send answers").click()
        expect(page.get_by_role("status")).to_contain_text("accepted")
        assert inbox.trail(session) == ["paused", "accepted"]
        assert inbox.output(session, "ask_user") == "Yes"

    def test_a_replay_from_a_second_tab(self, inbox: Inbox, browser: Browser) -> None:
        """The same turn answered from a second tab is refused, and says why."""
        session = inbox.start("pay 60000")
        context = _context(browser)
        one, two = context.new_page(), context.new_page()
        for tab in (one, two):
            _open(tab, inbox, session)
            tab.get_by_text("Approve", exact=True).click()
        _send(one)
        expect(one.get_by_role("status")).to_contain_text("accepted")
        _send(two)
        expect(two.get_by_role("alert").first).to_contain_text("already")
        _shot(two, "replay")
        context.close()
        assert inbox.trail(session) == ["paused", "accepted", "rejected"]

    def test_expiry_applies_the_default(self, inbox: Inbox, page: Page) -> None:
        """A countdown and the default show; once expired, the default stands."""
        session = inbox.start("confirm the meeting?", ttl=timedelta(seconds=3))
        _open(page, inbox, session)
        expect(page.locator("time.countdown")).to_contain_text("in ")
        expect(page.locator("code.default")).to_contain_text("No")
        _shot(page, "expiry")
        page.wait_for_timeout(3200)
        page.get_by_role("radio", name="Yes").check()
        _send(page)
        expect(page.get_by_role("alert").first).to_contain_text(
            "default answer applied"
        )
        assert inbox.output(session, "ask_user") == "No"

    def test_a_refused_principal_sees_nothing(
        self, inbox: Inbox, browser: Browser
    ) -> None:
        """Someone the authorizer refuses sees no pause and no trail."""
        session = inbox.start("pay 90000")
        context = _context(browser, "mallory")
        page = context.new_page()
        page.goto(inbox.served.url)
        expect(page.get_by_text("Nothing is waiting for your answer")).to_be_visible()
        _open(page, inbox, session)
        expect(page.get_by_role("heading", level=1)).to_have_text(
            "Nothing pending here"
        )
        context.close()

    def test_live_update_from_another_client(self, inbox: Inbox, page: Page) -> None:
        """A pause made elsewhere appears in an open list without a reload."""
        page.goto(inbox.served.url)
        page.wait_for_timeout(500)  # the event stream is open
        marker = page.evaluate("() => (window.__kept = 1)")
        session = inbox.start("pay 80000")
        expect(page.locator(f"a[href$='{session.id}']")).to_be_visible(timeout=10_000)
        assert page.evaluate("() => window.__kept") == marker  # no reload

    def test_a_server_restart_between_pause_and_answer(
        self, inbox: Inbox, page: Page
    ) -> None:
        """A pause survives the server's restart and is answered after it."""
        session = inbox.start("pay 30000")
        _open(page, inbox, session)
        page.get_by_text("Approve", exact=True).click()
        inbox.restart()
        _send(page)
        expect(page.get_by_role("status")).to_contain_text("accepted")
        assert inbox.trail(session) == ["paused", "accepted"]

    def test_script_in_a_payload_is_shown_as_text(
        self, inbox: Inbox, page: Page
    ) -> None:
        """Markup in a payload is rendered as text and never runs."""
        session = inbox.start("script")
        _open(page, inbox, session)
        heading = page.get_by_role("heading", level=2)
        expect(heading).to_contain_text("<script>document.title='pwned'</script>")
        expect(page.locator("p.question")).to_contain_text("<img src=x onerror=")
        assert page.title() != "pwned"
        assert page.locator("main script, main img").count() == 0
        page.goto(inbox.served.url)  # the list shows the question too, as text
        expect(page.locator(f"a[href$='{session.id}']")).to_contain_text("onerror=")
        assert page.title() != "pwned"
        assert page.locator("main script, main img").count() == 0


class TestDoors:
    def test_a_langgraph_pause_beside_a_session_turn(
        self, inbox: Inbox, page: Page
    ) -> None:
        """A LangGraph pause shows first, approved once; the adapter replay fails."""
        session = inbox.start("pay 40000")
        thread = inbox.graph.start("pay 45000")
        page.goto(inbox.served.url)
        first = page.locator("a.card-link").first
        expect(first).to_have_attribute("href", re.compile(f"/p/langgraph/{thread}$"))
        expect(first).to_contain_text("Approval")
        expect(page.locator(f"a[href$='/p/session/{session.id}']")).to_be_visible()
        _shot(page, "doors")
        first.click()
        page.get_by_text("Approve", exact=True).click()
        _send(page)
        expect(page.get_by_role("status")).to_contain_text("accepted")
        assert inbox.graph.sent == [{"to": "ACME", "amount": 45000}]
        with pytest.raises(ResumeRejected) as replay:
            inbox.run(aresume(inbox.graph.graph, config(thread), APPROVE, inbox.store))
        assert [str(code) for code in replay.value.codes] == ["consumed"]
        assert inbox.graph.sent == [{"to": "ACME", "amount": 45000}]
        page.get_by_role("link", name="Audit trail").click()
        rows = page.locator("tbody tr")
        expect(rows).to_have_count(3)
        for row, kind in zip(
            rows.all(), ["paused", "accepted", "rejected"], strict=True
        ):
            expect(row).to_contain_text(kind)

    def test_a_refused_principal_sees_no_door(
        self, inbox: Inbox, browser: Browser
    ) -> None:
        """Someone the authorizers refuse sees neither door's pause nor trail."""
        inbox.start("pay 90000")
        thread = inbox.graph.start("pay 95000")
        context = _context(browser, "mallory")
        page = context.new_page()
        page.goto(inbox.served.url)
        expect(page.get_by_text("Nothing is waiting for your answer")).to_be_visible()
        page.goto(f"{inbox.served.url}/p/langgraph/{thread}")
        expect(page.get_by_role("heading", level=1)).to_have_text(
            "Nothing pending here"
        )
        page.goto(f"{inbox.served.url}/audit/langgraph/{thread}")
        expect(page.get_by_text("No audit trail you may read")).to_be_visible()
        context.close()


class TestAccessible:
    def test_no_axe_violations_on_the_main_screens(
        self, inbox: Inbox, browser: Browser
    ) -> None:
        """axe-core finds no violation on the list, an answer form and the trail."""
        batch = inbox.start("batch")
        typed = inbox.start("book")
        inbox.start("deploy")
        inbox.start("confirm the offsite for Friday?", ttl=timedelta(hours=2))
        thread = inbox.graph.start("pay 12345")
        base = inbox.served.url
        context = _context(browser)
        page = context.new_page()
        page.goto(base)
        _shot(page, "inbox")
        context.close()
        for url in (
            base,
            f"{base}/s/{batch.id}",
            f"{base}/s/{typed.id}",
            f"{base}/s/{batch.id}/audit",
            f"{base}/p/langgraph/{thread}",
        ):
            assert _axe(browser, url) == [], url

    def test_keyboard_only(self, inbox: Inbox, page: Page) -> None:
        """A pause can be found and approved with the keyboard alone."""
        session = inbox.start("pay 20000")
        _open(page, inbox, session)
        page.keyboard.press("Tab")  # the skip link
        for _ in range(12):
            page.keyboard.press("Tab")
            if page.evaluate("() => document.activeElement.value") == "approve":
                break
        page.keyboard.press("Space")
        page.get_by_role("button", name="Send").focus()
        page.keyboard.press("Enter")
        expect(page.get_by_role("status")).to_contain_text("accepted")
