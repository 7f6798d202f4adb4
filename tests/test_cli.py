"""The command line: exit statuses, streams, formats and the demo's runs."""

import asyncio
import importlib.metadata
import io
import json
import os
import pty
import runpy
import select
import socket
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from interruption import (
    JSON,
    Accepts,
    InterruptedTurn,
    Message,
    Resume,
    ResumeRejected,
    Role,
    StoreUnavailable,
    ToolRequest,
    _demo,
    dumps,
    generate_sync,
    loads,
    validate_resume,
)
from interruption._demo import approver, make_tools, script
from interruption._json import DOCUMENT_DEPTH, MAX_DEPTH
from interruption._published_schemas import schema_names
from interruption.cli import main
from interruption.runtime.session import Session
from interruption.runtime.store import SqliteStore
from interruption.testing import ScriptedModel
from interruption.testing.strategies import mutations, turns, valid_resumes
from interruption.wire import MAX_BYTES


def run(*argv: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    """Run the command in-process; return status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    given_in = io.TextIOWrapper(io.BytesIO(stdin)) if stdin is not None else None
    status = main(list(argv), out=out, err=err, stdin=given_in)
    return status, out.getvalue(), err.getvalue()


def verdict(out: str) -> dict[str, JSON]:
    """The one JSON document ``--json`` printed."""
    (line,) = out.splitlines()
    document = json.loads(line)
    assert isinstance(document, dict)
    return document


def listed(out: str, key: str) -> list[dict[str, JSON]]:
    """The objects listed under *key* in the document ``--json`` printed."""
    found = verdict(out)[key]
    assert isinstance(found, list)
    objects = [entry for entry in found if isinstance(entry, dict)]
    assert len(objects) == len(found)
    return objects


@pytest.fixture(name="turn")
def _turn() -> InterruptedTurn:
    """The demo's first pause: the model asks to confirm the invoice."""
    result = generate_sync(
        ScriptedModel(script), "pay", tools=make_tools([]), approver=approver()
    )
    assert result.turn is not None
    return result.turn


@pytest.fixture(name="files")
def _files(tmp_path: Path, turn: InterruptedTurn) -> tuple[Path, Path, Path]:
    """A turn file, an accepted resume file and a rejected resume file."""
    (question,) = turn.interrupts
    turn_file = tmp_path / "turn.json"
    turn_file.write_text(dumps(turn))
    good = tmp_path / "good.json"
    good.write_text(dumps(Resume(respond=[question.respond("Yes")])))
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            {
                "respond": [{"name": "ask_user", "ref": "nope", "output": "Yes"}],
                "restart": [{"name": "ask_user", "ref": question.ref}],
            }
        )
    )
    return turn_file, good, bad


def _with_schema(turn: InterruptedTurn, path: Path, schema: dict[str, JSON]) -> Path:
    """Write *turn* with its one pause accepting answers of *schema*."""
    (question,) = turn.interrupts
    changed = attrs.evolve(question, accepts=Accepts(respond=schema))
    path.write_text(dumps(attrs.evolve(turn, interrupts=(changed,))))
    return path


@pytest.fixture(name="two_questions")
def _two_questions(tmp_path: Path) -> tuple[Path, Path]:
    """A turn with two questions pending, and a resume answering one of them."""
    asks = tuple(
        ToolRequest("ask_user", input={"type": "confirm", "title": t, "text": t})
        for t in ("First", "Second")
    )
    result = generate_sync(
        ScriptedModel([Message(Role.MODEL, asks)]), "ask", tools=make_tools([])
    )
    assert result.turn is not None
    first, _ = result.turn.interrupts
    turn_file = tmp_path / "two.json"
    turn_file.write_text(dumps(result.turn))
    half = tmp_path / "half.json"
    half.write_text(dumps(Resume(respond=[first.respond("Yes")])))
    return turn_file, half


@pytest.fixture(name="listener")
def _listener() -> Iterator[socket.socket]:
    """A TCP port on loopback that queues, but never accepts, connections."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.setblocking(False)  # noqa: FBT003 - the socket API
        yield server


class TestVersionAndHelp:
    def test_version_is_the_installed_packages(self) -> None:
        """--version prints the version importlib.metadata knows and exits 0."""
        status, out, err = run("--version")
        assert (status, err) == (0, "")
        assert out == f"interruption {importlib.metadata.version('interruption')}\n"

    def test_version_without_an_installed_package(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Run from a checkout that is not installed, --version says so."""

        def missing(name: str) -> str:
            raise importlib.metadata.PackageNotFoundError(name)

        monkeypatch.setattr(importlib.metadata, "version", missing)
        status, out, _ = run("--version")
        assert status == 0
        assert out == "interruption unknown (not installed)\n"

    @pytest.mark.parametrize(
        ("argv", "statuses"),
        [
            (["--help"], ["0", "1", "2", "3", "130"]),
            (["check", "--help"], ["0", "1", "2", "3"]),
            (["demo", "--help"], ["0", "1", "2", "3", "130"]),
        ],
    )
    def test_help_documents_every_exit_status(
        self, argv: list[str], statuses: list[str]
    ) -> None:
        """Each --help lists the exit statuses its command can end with."""
        status, out, err = run(*argv)
        assert (status, err) == (0, "")
        listed = out.split("exit status:\n")[1].split("\n\n")[0]
        numbers = [line.split()[0] for line in listed.splitlines() if line[2] != " "]
        assert numbers == statuses


class TestUsage:
    @pytest.mark.parametrize(
        ("argv", "said"),
        [
            (["check", "turn.json"], "the following arguments are required: RESUME"),
            (["check", "--jsn", "a", "b"], "unrecognized arguments: --jsn"),
            (["check", "-", "-"], "only one of TURN and RESUME can be - (stdin)"),
            (["schema", "nope"], "invalid choice: 'nope' (choose from 'approval_"),
            (["demo", "--answers", '"n wrong'], "expected comma-separated answers"),
            (["demo", "--detach", "--resume", "s"], "not allowed with argument"),
            ([], "the following arguments are required: command"),
        ],
    )
    def test_usage_errors_exit_2_on_stderr(self, argv: list[str], said: str) -> None:
        """A usage error prints argparse's usage and reason on stderr; exit 2."""
        status, out, err = run(*argv)
        assert (status, out) == (2, "")
        assert err.startswith("usage: interruption")
        assert said in err


class TestCheck:
    def test_accepted_resume_exits_0(self, files: tuple[Path, Path, Path]) -> None:
        """An accepted resume prints its resolved answers and exits 0."""
        turn, good, _ = files
        status, out, err = run("check", str(turn), str(good))
        assert (status, err) == (0, "")
        assert out.startswith("accepted: 1 answer(s)")
        assert '"output": "Yes"' in out

    def test_accepted_as_json(
        self, files: tuple[Path, Path, Path], turn: InterruptedTurn
    ) -> None:
        """--json prints one document with the verdict and every answer."""
        turn_file, good, _ = files
        status, out, _ = run("check", "--json", str(turn_file), str(good))
        assert status == 0
        (question,) = turn.interrupts
        assert verdict(out) == {
            "verdict": "accepted",
            "answers": [
                {
                    "interrupt_id": question.id,
                    "entry": {"name": "ask_user", "ref": question.ref, "output": "Yes"},
                }
            ],
            "unanswered": [],
        }

    def test_a_turn_the_library_wrote_at_its_deepest_is_read(
        self, turn: InterruptedTurn, tmp_path: Path
    ) -> None:
        """A turn whose tool input nests as deep as a record allows is checked."""
        deep: JSON = 0
        for _ in range(MAX_DEPTH):
            deep = [deep]
        (question,) = turn.interrupts
        assert question.tool is not None
        call = attrs.evolve(question.tool, input=deep)
        asked = Message(Role.MODEL, (call,))
        deepest = attrs.evolve(
            turn,
            messages=(*turn.messages[:-1], asked),
            interrupts=(attrs.evolve(question, tool=call, payload=deep),),
        )
        turn_file = tmp_path / "deep.json"
        turn_file.write_text(dumps(deepest))
        good = tmp_path / "good.json"
        good.write_text(dumps(Resume(respond=[question.respond("Yes")])))
        status, out, err = run("check", str(turn_file), str(good))
        assert (status, err) == (0, "")
        assert out.startswith("accepted: 1 answer(s)")

    def test_rejected_resume_exits_1(self, files: tuple[Path, Path, Path]) -> None:
        """A rejected resume prints every problem with code and entry; exit 1."""
        turn, _, bad = files
        status, out, err = run("check", str(turn), str(bad))
        assert (status, err) == (1, "")
        lines = out.splitlines()
        assert lines[0] == "rejected: 2 problem(s)"
        codes = [line.split("\t")[0].strip() for line in lines[1:]]
        assert codes == ["unknown_interrupt", "answer_not_accepted"]
        assert lines[1].startswith("  unknown_interrupt\trespond[0]\t")

    def test_rejected_as_json(
        self, files: tuple[Path, Path, Path], turn: InterruptedTurn
    ) -> None:
        """--json lists each problem's code, entry, interrupt and message."""
        turn_file, _, bad = files
        status, out, _ = run("check", "--json", str(turn_file), str(bad))
        assert status == 1
        document = verdict(out)
        resume = loads(bad.read_text(), Resume)
        with pytest.raises(ResumeRejected) as rejected:
            validate_resume(resume, turn)
        assert document == {
            "verdict": "rejected",
            "problems": [
                {
                    "code": problem.code.value,
                    "where": f"{problem.answer}[{problem.index}]",
                    "message": problem.message,
                    "answer": problem.answer,
                    "index": problem.index,
                    "interrupt_id": problem.interrupt_id,
                }
                for problem in rejected.value.problems
            ],
        }

    def test_a_problem_of_no_entry_names_its_interrupt(
        self, two_questions: tuple[Path, Path]
    ) -> None:
        """A missing answer is placed at the interrupt it leaves unanswered."""
        turn_file, half = two_questions
        turn = loads(turn_file.read_text(), InterruptedTurn)
        status, out, _ = run("check", "--json", str(turn_file), str(half))
        assert status == 1
        (problem,) = listed(out, "problems")
        second = turn.interrupts[1].id
        assert (problem["code"], problem["where"]) == ("missing", second)

    def test_allow_partial_leaves_the_rest_pending(
        self, two_questions: tuple[Path, Path]
    ) -> None:
        """--allow-partial accepts one answer of two; the other stays pending."""
        turn_file, half = two_questions
        turn = loads(turn_file.read_text(), InterruptedTurn)
        first, second = turn.interrupts
        status, out, _ = run("check", "--allow-partial", str(turn_file), str(half))
        assert status == 0
        assert out.splitlines()[0] == "accepted: 1 answer(s)"
        assert out.splitlines()[2] == f"  {second.id}\tstill pending"
        status, out, _ = run(
            "check", "--allow-partial", "--json", str(turn_file), str(half)
        )
        assert status == 0
        document = verdict(out)
        assert document["unanswered"] == [second.id]
        assert document["answers"] == [
            {
                "interrupt_id": first.id,
                "entry": {"name": "ask_user", "ref": first.ref, "output": "Yes"},
            }
        ]

    @pytest.mark.parametrize("which", ["turn", "resume"])
    def test_either_file_may_be_stdin(
        self, files: tuple[Path, Path, Path], which: str
    ) -> None:
        """`-` reads that document from standard input."""
        turn, good, _ = files
        if which == "turn":
            argv, data = ("check", "-", str(good)), turn.read_bytes()
        else:
            argv, data = ("check", str(turn), "-"), good.read_bytes()
        status, out, err = run(*argv, stdin=data)
        assert (status, err) == (0, "")
        assert out.startswith("accepted: 1 answer(s)")

    def test_unreadable_input_exits_3(
        self, files: tuple[Path, Path, Path], tmp_path: Path
    ) -> None:
        """A missing file is unreadable: exit 3, in the rejections' format."""
        _, good, _ = files
        missing = str(tmp_path / "missing.json")
        status, out, err = run("check", missing, str(good))
        assert (status, err) == (3, "")
        assert out.splitlines() == [
            "unreadable: 1 problem(s)",
            f"  unreadable\t{missing}\tcannot read: No such file or directory",
        ]

    def test_malformed_input_exits_3(self, files: tuple[Path, Path, Path]) -> None:
        """A malformed resume on stdin: exit 3, every problem with its path."""
        turn, _, _ = files
        broken = b'{"respond": [], "restart": 1, "extra": 1}'
        status, out, err = run("check", str(turn), "-", stdin=broken)
        assert (status, err) == (3, "")
        lines = out.splitlines()
        assert lines[0] == "unreadable: 2 problem(s)"
        assert lines[1].startswith("  malformed\t<stdin> $.restart\texpected ")
        assert lines[2].startswith("  malformed\t<stdin> $.extra\texpected only the ")

    def test_every_read_problem_of_both_files_is_told(self, tmp_path: Path) -> None:
        """Both files' problems are listed, as JSON with --json."""
        turn = tmp_path / "turn.json"
        turn.write_text("[]")
        status, out, _ = run(
            "check", "--json", str(turn), str(tmp_path / "no.json"), stdin=b""
        )
        assert status == 3
        document = verdict(out)
        assert document["verdict"] == "unreadable"
        problems = document["problems"]
        assert isinstance(problems, list)
        assert problems[0] == {
            "code": "malformed",
            "where": f"{turn} $",
            "message": "expected an object (InterruptedTurn), got an array",
            "file": str(turn),
            "path": "$",
            "expected": "an object (InterruptedTurn)",
            "got": "an array",
        }
        assert problems[1] == {
            "code": "unreadable",
            "where": str(tmp_path / "no.json"),
            "message": "cannot read: No such file or directory",
            "file": str(tmp_path / "no.json"),
        }

    def test_a_resume_over_the_wire_limit_is_refused_unread(
        self, files: tuple[Path, Path, Path]
    ) -> None:
        """A resume larger than a server takes is refused, as the server would."""
        turn, _, _ = files
        huge = b"[" + b" " * MAX_BYTES + b"]"
        status, out, _ = run("check", str(turn), "-", stdin=huge)
        assert status == 3
        assert out.splitlines()[1] == (
            f"  malformed\t<stdin> $\texpected a document of at most {MAX_BYTES} "
            f"bytes, got more than {MAX_BYTES} bytes"
        )

    def test_a_resume_over_the_wire_depth_is_refused(
        self, files: tuple[Path, Path, Path]
    ) -> None:
        """A resume nested deeper than a server takes is refused the same way."""
        turn, _, _ = files
        deep = b"[" * (DOCUMENT_DEPTH + 1) + b"]" * (DOCUMENT_DEPTH + 1)
        status, out, _ = run("check", str(turn), "-", stdin=deep)
        assert status == 3
        assert f"at most {DOCUMENT_DEPTH}" in out.splitlines()[1]

    def test_closed_stdin_is_unreadable(
        self, files: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """With no standard input at all, `-` is unreadable, not a crash."""
        turn, _, _ = files
        monkeypatch.setattr(sys, "stdin", None)
        status, out, _ = run("check", str(turn), "-")
        assert status == 3
        assert out.splitlines()[1] == (
            "  unreadable\t<stdin>\tcannot read: standard input is closed"
        )

    def test_a_file_name_that_is_not_utf8_is_printed(
        self, files: tuple[Path, Path, Path], tmp_path: Path
    ) -> None:
        """A file name of any bytes is shown escaped; the output stays text."""
        turn, _, _ = files
        odd = str(tmp_path / "\udcff.json")
        status, out, _ = run("check", str(turn), odd)
        assert status == 3
        assert "\\udcff.json\tcannot read" in out
        out.encode()  # no lone surrogate reached the stream

    @pytest.mark.parametrize(
        ("schema", "said"),
        [
            (
                {"type": "integre"},
                "$.type\tnot a usable JSON Schema: expected any of: one of 'array'",
            ),
            (
                {"pattern": "^(?=Yes)"},
                (
                    "$.pattern\tnot a usable JSON Schema: expected an ECMA-262 pattern "
                    "without lookaround"
                ),
            ),
        ],
    )
    def test_an_invalid_schema_in_the_turn_exits_3(
        self,
        files: tuple[Path, Path, Path],
        turn: InterruptedTurn,
        tmp_path: Path,
        schema: dict[str, JSON],
        said: str,
    ) -> None:
        """A schema the turn file carries is data: invalid means exit 3, no trace."""
        _, good, _ = files
        broken = _with_schema(turn, tmp_path / "broken-turn.json", schema)
        status, out, err = run("check", str(broken), str(good))
        assert (status, err) == (3, "")
        header, line = out.splitlines()
        assert header == "unreadable: 1 problem(s)"
        (question,) = turn.interrupts
        assert line.startswith(
            f"  unusable_schema\t{broken} interrupt {question.id!r} accepts.respond "
            + said
        )

    def test_a_remote_ref_is_never_fetched(
        self,
        files: tuple[Path, Path, Path],
        turn: InterruptedTurn,
        tmp_path: Path,
        listener: socket.socket,
    ) -> None:
        """A $ref to an http address exits 3 and makes no connection."""
        _, good, _ = files
        host, port = listener.getsockname()
        url = f"http://{host}:{port}/answer.json"
        fetching = _with_schema(turn, tmp_path / "fetching.json", {"$ref": url})
        status, out, _ = run("check", "--json", str(fetching), str(good))
        assert status == 3
        (problem,) = listed(out, "problems")
        assert problem["code"] == "unusable_schema"
        assert problem["accepts"] == "respond"
        assert f"nothing is fetched), got {url!r}" in str(problem["message"])
        with pytest.raises(BlockingIOError):
            listener.accept()

    @given(data=st.data())
    def test_the_verdict_is_the_librarys(self, data: st.DataObject) -> None:
        """For any turn and any (mutated) resume, check says what the validator says."""
        turn = data.draw(turns())
        resume = data.draw(valid_resumes(turn))
        choices = [resume, *(mutated for _, mutated, _ in mutations(resume, turn))]
        resume = data.draw(st.sampled_from(choices))
        try:
            resolved = validate_resume(resume, turn)
        except ResumeRejected as rejected:
            expected = {
                "verdict": "rejected",
                "codes": [code.value for code in rejected.codes],
            }
        else:
            expected = {
                "verdict": "accepted",
                "codes": [answer.interrupt.id for answer in resolved.answers],
            }
        with tempfile.TemporaryDirectory() as where:
            turn_file = Path(where) / "turn.json"
            turn_file.write_text(dumps(turn))
            status, out, err = run(
                "check", "--json", str(turn_file), "-", stdin=dumps(resume).encode()
            )
        said = verdict(out)["verdict"]
        if said == "rejected":
            codes = [problem["code"] for problem in listed(out, "problems")]
        else:
            codes = [answer["interrupt_id"] for answer in listed(out, "answers")]
        got = {"verdict": said, "codes": codes}
        assert got == expected
        assert (status, err) == (0 if expected["verdict"] == "accepted" else 1, "")


class TestSchema:
    def test_lists_the_names(self) -> None:
        """Without a name it lists every published schema."""
        status, out, _ = run("schema")
        assert status == 0
        assert out.split() == schema_names()

    def test_prints_a_schema(self) -> None:
        """With a name it prints that schema, as in schemas/."""
        status, out, _ = run("schema", "resume")
        assert status == 0
        published = Path(__file__).parent.parent / "schemas" / "resume.json"
        assert out == published.read_text()


def demo(db: Path, *argv: str) -> tuple[int, str, str]:
    """Run the demo command in-process with its session in *db*."""
    return run("demo", "--db", str(db), *argv)


def resume_command(out: str) -> list[str]:
    """The arguments of the resume command the demo printed, after `demo`."""
    line = out.split("resume it with:\n  interruption demo ")[1].splitlines()[0]
    return line.split()


class TestDemo:
    def test_approved_transfer(self, tmp_path: Path) -> None:
        """Answers 'Yes, y' confirm, approve and pay once; --forge is rejected."""
        status, out, err = demo(tmp_path / "d.db", "--answers", "Yes,y", "--forge")
        assert (status, err) == (0, "")
        assert "rejected: input_modified at restart[0]" in out
        assert "model: Paid INV-7: 1,250.00 EUR to ACME (tx-1)." in out
        assert "transfers made by this process: 1" in out

    def test_rejected_transfer(self, tmp_path: Path) -> None:
        """A rejection with a reason reaches the model; nothing is paid."""
        status, out, _ = demo(tmp_path / "d.db", "--answers", "Yes,n wrong account")
        assert status == 0
        assert "the transfer was rejected (wrong account)" in out
        assert "transfers made by this process: 0" in out

    def test_a_rejection_reason_may_hold_a_comma(self, tmp_path: Path) -> None:
        """A quoted answer keeps its commas, all the way to the model."""
        answers = 'Yes, "n wrong account, call me"'
        status, out, _ = demo(tmp_path / "d.db", "--answers", answers)
        assert status == 0
        assert "the transfer was rejected (wrong account, call me)." in out

    def test_defaults_without_a_terminal_approve(self, tmp_path: Path) -> None:
        """With no terminal and no answers the demo says its defaults and pays."""
        out = io.StringIO()
        status = _demo.run(
            None, forged=False, db=str(tmp_path / "d.db"), stdin=io.StringIO(), out=out
        )
        assert status == 0
        text = out.getvalue()
        assert (
            "(no terminal on standard input and no --answers: the demo answers for "
            "you, as --answers Yes,y would: Yes to the invoice question, y to "
            "approve the transfer)"
        ) in text
        assert "answer [Yes/No]: Yes (the default: no terminal)" in text
        assert "approve? [y / n REASON]: y (the default: no terminal)" in text
        assert text.endswith(
            "model: Paid INV-7: 1,250.00 EUR to ACME (tx-1).\n"
            "finished: stop; transfers made by this process: 1\n"
        )

    def test_no_stdin_at_all_uses_the_defaults(self, tmp_path: Path) -> None:
        """A process without standard input runs on the defaults too."""
        out = io.StringIO()
        status = _demo.run(
            None, forged=False, db=str(tmp_path / "d.db"), stdin=None, out=out
        )
        assert status == 0
        assert "transfers made by this process: 1" in out.getvalue()

    def test_make_demo_without_a_terminal(self, tmp_path: Path) -> None:
        """The command, its stdin not a terminal, ends with the transfer approved."""
        done = subprocess.run(
            [sys.executable, "-m", "interruption", "demo", "--db", "d.db"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            check=False,
            cwd=tmp_path,
        )
        assert (done.returncode, done.stderr) == (0, "")
        assert "the demo answers for you" in done.stdout
        assert "transfers made by this process: 1" in done.stdout

    def test_an_unknown_approval_answer_is_asked_again(self, tmp_path: Path) -> None:
        """An approval answer that is neither yes nor no is refused and re-asked."""
        status, out, _ = demo(tmp_path / "d.db", "--answers", "Yes,maybe,y")
        assert status == 0
        assert (
            "approve? [y / n REASON]: maybe\n  please answer y, or n and a reason\n"
            in out
        )
        assert "transfers made by this process: 1" in out

    def test_invalid_answer_is_asked_again(self, tmp_path: Path) -> None:
        """An answer that is not a choice is refused and asked again."""
        status, out, _ = demo(tmp_path / "d.db", "--answers", "maybe,No")
        assert status == 0
        assert "please answer one of Yes/No" in out
        assert "stays unpaid" in out

    def test_answers_running_out_leave_the_session_paused(self, tmp_path: Path) -> None:
        """When --answers runs out nothing is answered; the printed command resumes."""
        db = tmp_path / "d.db"
        status, out, _ = demo(db, "--answers", "Yes")
        assert status == 0
        assert "no answer (the answers ran out): session " in out
        assert "transfers made by this process" not in out
        status, out, _ = run("demo", *resume_command(out), "--answers", "y")
        assert status == 0
        assert "model: Paid INV-7" in out

    def test_detach_then_resume_in_another_process(self, tmp_path: Path) -> None:
        """One process stops at the approval; a second one resumes and pays."""
        db = str(tmp_path / "d.db")
        command = [sys.executable, "-m", "interruption", "demo", "--db", db]
        first = subprocess.run(  # noqa: S603 - our own interpreter and module
            [*command, "--answers", "Yes", "--detach"],
            capture_output=True,
            text=True,
            check=True,
        )
        assert "detached at the approval" in first.stdout
        session = first.stdout.split("--resume ")[1].split()[0]
        second = subprocess.run(  # noqa: S603 - our own interpreter and module
            [*command, "--resume", session, "--answers", "y"],
            capture_output=True,
            text=True,
            check=True,
        )
        assert "model: Paid INV-7" in second.stdout
        assert "transfers made by this process: 1" in second.stdout

    def test_detach_then_resume_in_process(self, tmp_path: Path) -> None:
        """The resumed run picks up the pending approval from the database."""
        status, out, _ = demo(tmp_path / "d.db", "--answers", "Yes", "--detach")
        assert status == 0
        argv = resume_command(out)
        session = argv[argv.index("--resume") + 1]
        status, out, _ = run("demo", *argv)
        assert status == 0
        assert f"session {session}: resuming turn 2" in out
        assert "model: Paid INV-7" in out

    def test_resuming_a_finished_session_says_so(self, tmp_path: Path) -> None:
        """--resume of a session that finished says it finished, and its last word."""
        db = tmp_path / "d.db"
        status, out, _ = demo(db, "--answers", "Yes", "--detach")
        argv = resume_command(out)
        assert run("demo", *argv)[0] == 0
        status, out, err = run("demo", *argv)
        assert (status, out) == (1, "")
        session = argv[argv.index("--resume") + 1]
        assert err == (
            f"session {session} has finished: nothing to resume "
            "(its last word: 'Paid INV-7: 1,250.00 EUR to ACME (tx-1).')\n"
        )

    def test_resuming_an_unknown_session_says_so(self, tmp_path: Path) -> None:
        """--resume of a session the database never held says it is not there."""
        db = tmp_path / "d.db"
        status, out, err = demo(db, "--resume", "nope")
        assert (status, out) == (1, "")
        assert err == f"session nope is not in {db}: nothing to resume\n"

    def test_resuming_a_session_cut_short_says_so(self, tmp_path: Path) -> None:
        """A turn spent by a resume that never finished is not resumed again."""
        db = tmp_path / "d.db"
        _, out, _ = demo(db, "--answers", "Yes", "--detach")
        argv = resume_command(out)
        session = argv[argv.index("--resume") + 1]
        with asyncio.Runner() as runner:
            store = SqliteStore(db)
            stored = runner.run(store.load_turn(session))
            assert stored is not None
            history = runner.run(store.load_history(session))
            assert history is not None
            turn = stored.with_history(history)
            (pending,) = turn.interrupts
            answer = Resume(restart=[pending.approve()])
            assert runner.run(store.consume(turn, answer, None))
            runner.run(store.close())
        status, _, err = run("demo", *argv)
        assert status == 1
        assert err == (
            f"session {session} was answered, but its continuation was cut short: "
            "nothing to resume\n"
        )

    @pytest.mark.parametrize("kind", ["directory", "garbage", "missing parent"])
    def test_a_bad_db_is_one_line(self, tmp_path: Path, kind: str) -> None:
        """A --db that cannot be opened is one line on stderr and exit 3."""
        db = {
            "directory": tmp_path,
            "garbage": tmp_path / "garbage.db",
            "missing parent": tmp_path / "no" / "d.db",
        }[kind]
        (tmp_path / "garbage.db").write_bytes(b"not a database, not at all" * 100)
        status, out, err = demo(db)
        assert (status, out) == (3, "")
        (line,) = err.splitlines()
        assert line.startswith(f"interruption demo: cannot open --db {str(db)!r}: ")

    def test_a_database_failing_later_is_one_line(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A database error after opening is one line on stderr and exit 3."""

        def failing(*_: object) -> object:
            raise sqlite3.OperationalError("attempt to write a readonly database")

        monkeypatch.setattr(Session, "send_sync", failing)
        db = tmp_path / "d.db"
        status, _, err = demo(db, "--answers", "Yes,y")
        assert status == 3
        assert err == (
            f"interruption demo: the database {str(db)!r} failed: "
            "attempt to write a readonly database\n"
        )

    def test_a_busy_database_is_one_line(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A store that stays busy (StoreUnavailable) is one line and exit 3."""

        def failing(*_: object) -> object:
            raise StoreUnavailable("d.db", "busy", "the write lock was not had")

        monkeypatch.setattr(Session, "send_sync", failing)
        status, _, err = demo(tmp_path / "d.db", "--answers", "Yes,y")
        assert status == 3
        assert err.endswith("failed: d.db: the write lock was not had\n")

    def test_ctrl_c_outside_a_prompt_ends_cleanly(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Ctrl-C while the agent runs is one line on stderr and exit 130."""

        def interrupted(*_: object) -> object:
            raise KeyboardInterrupt

        monkeypatch.setattr(Session, "send_sync", interrupted)
        status, _, err = demo(tmp_path / "d.db", "--answers", "Yes,y")
        assert status == 130
        (line,) = err.splitlines()
        assert line.startswith("interruption demo: stopped (Ctrl-C); session ")

    def test_gives_up_after_too_many_rounds(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A model that keeps asking is cut off after MAX_ROUNDS; exit 1."""
        monkeypatch.setattr(_demo, "MAX_ROUNDS", 1)
        status, _, err = demo(tmp_path / "d.db", "--answers", "Yes,y")
        assert status == 1
        assert err == "gave up after 1 rounds of questions\n"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _ctrl_c(monkeypatch: pytest.MonkeyPatch) -> _Terminal:
    """A terminal where the person presses Ctrl-C at the first prompt."""
    terminal = _Terminal()

    def pressed(*_: object) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(terminal, "readline", pressed)
    return terminal


class TestInteractiveDemo:
    def run_with(self, stdin: io.StringIO, tmp_path: Path) -> tuple[int, str]:
        """Run the demo with *stdin* as its terminal; return status and output."""
        out = io.StringIO()
        status = _demo.run(
            None, forged=False, db=str(tmp_path / "d.db"), stdin=stdin, out=out
        )
        return status, out.getvalue()

    def test_reads_answers_from_the_terminal(self, tmp_path: Path) -> None:
        """With a terminal on stdin the person's typed answers are used."""
        status, out = self.run_with(_Terminal("yes\ny\n"), tmp_path)
        assert status == 0
        assert "model: Paid INV-7" in out
        assert "(the default" not in out

    def test_an_empty_line_is_asked_again(self, tmp_path: Path) -> None:
        """At the terminal an empty line answers nothing: the prompt asks again."""
        status, out = self.run_with(_Terminal("\nyes\n\ny\n"), tmp_path)
        assert status == 0
        assert "please answer one of Yes/No" in out
        assert "please answer y, or n and a reason" in out
        assert "transfers made by this process: 1" in out

    def test_ctrl_d_leaves_the_session_paused(self, tmp_path: Path) -> None:
        """End of input at a prompt ends cleanly; the printed command resumes."""
        status, out = self.run_with(_Terminal("yes\n"), tmp_path)
        assert status == 0
        assert "approve? [y / n REASON]: \nno answer (end of input): session " in out
        status, out, _ = run("demo", *resume_command(out), "--answers", "y")
        assert status == 0
        assert "transfers made by this process: 1" in out

    def test_ctrl_c_at_a_prompt_leaves_the_session_paused(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Ctrl-C at a prompt ends cleanly with status 130; nothing is answered."""
        status, out = self.run_with(_ctrl_c(monkeypatch), tmp_path)
        assert status == 130
        assert "answer [Yes/No]: \nno answer (Ctrl-C): session " in out
        assert "stays paused; resume it with:\n  interruption demo --db " in out


def _read_from(terminal: int, until: bytes | None = None) -> bytes:
    """What the child wrote to *terminal*, up to *until* or until it closed.

    A minute without output fails the test instead of hanging it.
    """
    seen = b""
    while until is None or until not in seen:
        ready, _, _ = select.select([terminal], [], [], 60)
        if not ready:
            pytest.fail(f"no output for a minute; so far: {seen!r}")
        try:
            chunk = os.read(terminal, 4096)
        except OSError:  # the child closed its side (Linux: EIO)
            break
        if not chunk:
            break
        seen += chunk
    return seen


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
class TestOnARealTerminal:
    @pytest.mark.parametrize(
        ("key", "status", "how"),
        [(b"\x03", 130, "Ctrl-C"), (b"\x04", 0, "end of input")],
    )
    def test_ctrl_c_and_ctrl_d_end_without_a_traceback(
        self, tmp_path: Path, key: bytes, status: int, how: str
    ) -> None:
        """On a terminal, Ctrl-C (SIGINT) or Ctrl-D at a prompt ends cleanly."""
        terminal, child_side = pty.openpty()
        # A new session that opens the terminal makes it its controlling
        # terminal, so Ctrl-C sends SIGINT to the demo as a shell would.
        wrapper = (
            "import os, sys; os.close(os.open(os.ttyname(0), os.O_RDWR)); "
            "os.execv(sys.executable, [sys.executable, '-m', 'interruption', "
            "'demo', '--db', sys.argv[1]])"
        )
        with subprocess.Popen(  # noqa: S603 - our own interpreter and module
            [sys.executable, "-c", wrapper, str(tmp_path / "d.db")],
            stdin=child_side,
            stdout=child_side,
            stderr=child_side,
            start_new_session=True,
        ) as child:
            os.close(child_side)
            shown = _read_from(terminal, b"answer [Yes/No]:")
            os.write(terminal, key)
            shown += _read_from(terminal)
            os.close(terminal)
            assert child.wait() == status
        text = shown.decode()
        assert "Traceback" not in text
        assert f"no answer ({how}): session " in text
        assert "stays paused; resume it with:" in text


class TestModule:
    def test_python_m_runs_the_command(
        self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """`python -m interruption` runs the same command and exits with its status."""
        monkeypatch.setattr(sys, "argv", ["interruption", "schema", "nope"])
        with pytest.raises(SystemExit) as exited:
            runpy.run_module("interruption", run_name="__main__")
        assert exited.value.code == 2
        assert "invalid choice: 'nope'" in capsys.readouterr().err
