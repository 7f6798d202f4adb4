import io
import json
import runpy
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest
from interruption import (
    JSON,
    Accepts,
    InterruptedTurn,
    Message,
    Resume,
    Role,
    _demo,
    dumps,
    generate_sync,
)
from interruption._demo import approver, make_tools, script
from interruption._json import MAX_DEPTH
from interruption._schemas import schema_names
from interruption.cli import main
from interruption.testing import ScriptedModel


def run(*argv: str) -> tuple[int, str, str]:
    """Run the command in-process; return status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), out=out, err=err)
    return status, out.getvalue(), err.getvalue()


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


@pytest.fixture(name="listener")
def _listener() -> Iterator[socket.socket]:
    """A TCP port on loopback that queues, but never accepts, connections."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.setblocking(False)  # noqa: FBT003 - the socket API
        yield server


class TestCheck:
    def test_accepted_resume_exits_0(self, files: tuple[Path, Path, Path]) -> None:
        """An accepted resume prints its resolved answers and exits 0."""
        turn, good, _ = files
        status, out, _ = run("check", str(turn), str(good))
        assert status == 0
        assert out.startswith("accepted: 1 answer(s)")
        assert '"output": "Yes"' in out

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
        status, out, _ = run("check", str(turn), str(bad))
        assert status == 1
        lines = out.splitlines()
        assert lines[0] == "rejected: 2 problem(s)"
        codes = [line.split("\t")[0].strip() for line in lines[1:]]
        assert codes == ["unknown_interrupt", "answer_not_accepted"]
        assert "\trespond[0]\t" in lines[1]

    def test_unreadable_input_exits_2(
        self, files: tuple[Path, Path, Path], tmp_path: Path
    ) -> None:
        """A missing file or a malformed document exits 2 and says why."""
        turn, good, _ = files
        status, _, err = run("check", str(tmp_path / "missing.json"), str(good))
        assert status == 2
        assert "cannot read" in err
        broken = tmp_path / "broken.json"
        broken.write_text('{"respond": [], "restart": [], "extra": 1}')
        status, _, err = run("check", str(turn), str(broken))
        assert status == 2
        assert "$.extra: expected only the fields respond, restart" in err

    @pytest.mark.parametrize(
        ("schema", "said"),
        [
            (
                {"type": "integre"},
                "$.type: expected any of: one of 'array', 'boolean', ",
            ),
            (
                {"pattern": "^(?=Yes)"},
                "$.pattern: expected an ECMA-262 pattern without lookaround",
            ),
        ],
    )
    def test_an_invalid_schema_in_the_turn_exits_2(
        self,
        files: tuple[Path, Path, Path],
        turn: InterruptedTurn,
        tmp_path: Path,
        schema: dict[str, JSON],
        said: str,
    ) -> None:
        """A schema the turn file carries is data: invalid means exit 2, no trace."""
        _, good, _ = files
        broken = _with_schema(turn, tmp_path / "broken-turn.json", schema)
        status, out, err = run("check", str(broken), str(good))
        assert status == 2
        assert out == ""
        (line,) = err.splitlines()
        (question,) = turn.interrupts
        assert line.startswith(
            f"{broken}: interrupt {question.id!r}, accepts.respond: "
            "not a usable JSON Schema: "
        )
        assert said in line

    def test_a_remote_ref_is_never_fetched(
        self,
        files: tuple[Path, Path, Path],
        turn: InterruptedTurn,
        tmp_path: Path,
        listener: socket.socket,
    ) -> None:
        """A $ref to an http address exits 2 and makes no connection."""
        _, good, _ = files
        host, port = listener.getsockname()
        url = f"http://{host}:{port}/answer.json"
        fetching = _with_schema(turn, tmp_path / "fetching.json", {"$ref": url})
        status, _, err = run("check", str(fetching), str(good))
        assert status == 2
        assert f"nothing is fetched), got {url!r}" in err
        with pytest.raises(BlockingIOError):
            listener.accept()


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

    def test_unknown_name_exits_2(self) -> None:
        """An unknown schema name exits 2 and lists the known ones."""
        status, _, err = run("schema", "nope")
        assert status == 2
        assert "no schema named 'nope'" in err
        assert "resume" in err


class TestDemo:
    def test_approved_transfer(self, tmp_path: Path) -> None:
        """Answers 'Yes, y' confirm, approve and pay once; --forge is rejected."""
        status, out, _ = run(
            "demo", "--db", str(tmp_path / "d.db"), "--answers", "Yes,y", "--forge"
        )
        assert status == 0
        assert "rejected: input_modified at restart[0]" in out
        assert "model: Paid INV-7: 1,250.00 EUR to ACME (tx-1)." in out
        assert "transfers made by this process: 1" in out

    def test_rejected_transfer(self, tmp_path: Path) -> None:
        """A rejection with a reason reaches the model; nothing is paid."""
        status, out, _ = run(
            "demo", "--db", str(tmp_path / "d.db"), "--answers", "Yes,n wrong account"
        )
        assert status == 0
        assert "the transfer was rejected (wrong account)" in out
        assert "transfers made by this process: 0" in out

    def test_defaults_without_a_terminal(self, tmp_path: Path) -> None:
        """With no terminal and no answers the prompt's default (No) stands."""
        status, out, _ = run("demo", "--db", str(tmp_path / "d.db"))
        assert status == 0
        assert "using each prompt's default answer" in out
        assert "model: Understood: INV-7 stays unpaid." in out

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
        status, out, _ = run("demo", "--db", db, "--resume", session, "--answers", "y")
        assert status == 1
        assert "nothing pending" in out

    def test_invalid_answer_is_asked_again(self, tmp_path: Path) -> None:
        """An answer that is not a choice is refused and asked again."""
        status, out, _ = run(
            "demo", "--db", str(tmp_path / "d.db"), "--answers", "maybe,No"
        )
        assert status == 0
        assert "please answer one of Yes/No" in out
        assert "stays unpaid" in out

    def test_detach_then_resume_in_process(self, tmp_path: Path) -> None:
        """The resumed run picks up the pending approval from the database."""
        db = str(tmp_path / "d.db")
        status, out, _ = run("demo", "--db", db, "--answers", "Yes", "--detach")
        assert status == 0
        session = out.split("--resume ")[1].split()[0]
        status, out, _ = run("demo", "--db", db, "--resume", session, "--answers", "y")
        assert status == 0
        assert f"session {session}: resuming turn 2" in out
        assert "model: Paid INV-7" in out

    def test_answers_running_out_use_the_defaults(self, tmp_path: Path) -> None:
        """When --answers runs out, the approval's default (reject) stands."""
        status, out, _ = run("demo", "--db", str(tmp_path / "d.db"), "--answers", "Yes")
        assert status == 0
        assert "answers ran out" in out
        assert "the transfer was rejected (closed without an answer)" in out


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class TestInteractiveDemo:
    def test_reads_answers_from_the_terminal(self, tmp_path: Path) -> None:
        """With a terminal on stdin the person's typed answers are used."""
        out = io.StringIO()
        status = _demo.run(
            None,
            forged=False,
            db=str(tmp_path / "d.db"),
            stdin=_Terminal("yes\ny\n"),
            out=out,
        )
        assert status == 0
        assert "model: Paid INV-7" in out.getvalue()


class TestModule:
    def test_python_m_runs_the_command(
        self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """`python -m interruption` runs the same command and exits with its status."""
        monkeypatch.setattr(sys, "argv", ["interruption", "schema", "nope"])
        with pytest.raises(SystemExit) as exited:
            runpy.run_module("interruption", run_name="__main__")
        assert exited.value.code == 2
        assert "no schema named 'nope'" in capsys.readouterr().err
