"""A throw-away PostgreSQL server on loopback, for the tests of `PostgresStore`.

`start` finds PostgreSQL's server programs (installing Debian's
``postgresql`` package with apt-get when they are missing and we are root,
as on a fresh CI machine), creates a cluster in a temporary directory,
starts it on 127.0.0.1 at a free port with trust authentication, and
returns a `Server` whose `stop` shuts it down and deletes the directory (a
watchdog does the same if the test run is killed first).
`limited_role` and `locked` make the server itself refuse a connection or
hold a statement, for the tests of the store's pool.
initdb refuses to run as root, so as root the cluster belongs to the
``postgres`` system user (created if missing) and the programs run through
``runuser``. Durability is off (``fsync=off``): the data is thrown away.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import attrs
import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

__all__ = ["Role", "Server", "limited_role", "locked", "start"]

_USER: Final = "postgres"
_APT_ENV: Final = {"DEBIAN_FRONTEND": "noninteractive"}


@attrs.frozen
class Server:
    """A running throw-away server.

    Attributes:
        dsn: How to reach its ``postgres`` database as the ``postgres`` user.
        root: The temporary directory with the cluster, socket and log.
        prefix: The command prefix that runs a program as the cluster's owner.
        bindir: Where ``pg_ctl`` lives.
        watchdog: The process that stops the server if this one dies first.
    """

    dsn: str
    root: Path
    prefix: tuple[str, ...]
    bindir: Path
    watchdog: int | None = None

    def stop(self) -> None:
        """Stop the server at once and delete its directory."""
        if self.watchdog is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.watchdog, signal.SIGTERM)
        subprocess.run(  # noqa: S603 - our own argument list, no shell
            [*self._pg_ctl(), "stop", "-m", "immediate", "-w"],
            check=False,
            capture_output=True,
        )
        shutil.rmtree(self.root, ignore_errors=True)

    def _pg_ctl(self) -> list[str]:
        return [
            *self.prefix,
            str(self.bindir / "pg_ctl"),
            "-D",
            str(self.root / "data"),
        ]

    def guard(self) -> Server:
        """Start a watchdog that stops the server when this process dies.

        A test run killed before its fixtures' teardown (a timeout, a signal)
        would otherwise leave the server running.

        Returns:
            The server, knowing its watchdog.
        """
        stop = " ".join(shlex.quote(arg) for arg in self._pg_ctl())
        script = (
            f"(while kill -0 {os.getpid()} 2>/dev/null; do sleep 1; done; "
            f"{stop} stop -m immediate; rm -rf {shlex.quote(str(self.root))}) "
            ">/dev/null 2>&1 </dev/null & echo $!"
        )
        done = subprocess.run(  # noqa: S603 - our own script
            ["/bin/sh", "-c", script],
            check=True,
            capture_output=True,
            text=True,
            start_new_session=True,
        )
        return attrs.evolve(self, watchdog=int(done.stdout))


def _bindir() -> Path | None:
    """Find the newest installed PostgreSQL's server programs."""
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda path: (
            int(path.parent.parent.name) if path.parent.parent.name.isdigit() else 0
        ),
    )
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    return Path(initdb).resolve().parent if initdb else None


def _install() -> None:
    """Install Debian's PostgreSQL server with apt-get (needs root)."""
    env = {**os.environ, **_APT_ENV}
    for command in (
        ["apt-get", "update", "-q"],
        ["apt-get", "install", "-y", "-q", "--no-install-recommends", "postgresql"],
    ):
        done = subprocess.run(  # noqa: S603 - fixed apt-get commands
            command, env=env, capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            msg = f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}"
            raise RuntimeError(msg)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _owner() -> tuple[str, ...]:
    """The prefix that runs a program as a non-root user, creating it if needed."""
    if os.geteuid() != 0:
        return ()
    try:
        pwd.getpwnam(_USER)
    except KeyError:
        subprocess.run(  # noqa: S603 - fixed command
            [  # noqa: S607 - found on PATH, like apt-get and runuser
                "useradd",
                "--system",
                "--no-create-home",
                "--shell",
                "/bin/false",
                _USER,
            ],
            check=True,
            capture_output=True,
        )
    return ("runuser", "-u", _USER, "--")


def _run(command: list[str], what: str) -> None:
    done = subprocess.run(  # noqa: S603 - our own argument lists
        command, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        msg = f"{what} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
        raise RuntimeError(msg)


def start() -> Server:
    """Start a throw-away PostgreSQL server on 127.0.0.1.

    Returns:
        The running server.

    Raises:
        RuntimeError: if PostgreSQL is missing and cannot be installed, or the
            server does not start; the message says why.
    """
    bindir = _bindir()
    if bindir is None:
        if os.geteuid() != 0:
            msg = (
                "PostgreSQL's server programs (initdb, pg_ctl) were not found; "
                "install PostgreSQL (Debian: apt-get install postgresql), or set "
                "INTERRUPTION_SKIP_POSTGRES=1 to skip PostgresStore's tests locally"
            )
            raise RuntimeError(msg)
        _install()
        bindir = _bindir()
        if bindir is None:
            msg = "apt-get installed postgresql, but initdb is still missing"
            raise RuntimeError(msg)
    prefix = _owner()
    root = Path(tempfile.mkdtemp(prefix="interruption-pg-"))
    try:
        if prefix:
            shutil.chown(root, _USER, _USER)
        data = root / "data"
        _run(
            [
                *prefix,
                str(bindir / "initdb"),
                "-D",
                str(data),
                "-U",
                _USER,
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
                "--no-instructions",
            ],
            "initdb",
        )
        port = _free_port()
        options = " ".join(
            [
                "-c listen_addresses=127.0.0.1",
                f"-c port={port}",
                f"-c unix_socket_directories={root}",
                "-c fsync=off",
                "-c synchronous_commit=off",
                "-c full_page_writes=off",
                "-c max_connections=200",
            ]
        )
        _run(
            [
                *prefix,
                str(bindir / "pg_ctl"),
                "start",
                "-w",
                "-t",
                "30",
                "-D",
                str(data),
                "-l",
                str(root / "server.log"),
                "-o",
                options,
            ],
            "pg_ctl start",
        )
    except BaseException as error:
        log = root / "server.log"
        with contextlib.suppress(OSError):
            error.add_note(f"server log:\n{log.read_text()}")
        Server("", root, prefix, bindir).stop()
        raise
    dsn = f"host=127.0.0.1 port={port} user={_USER} dbname=postgres"
    return Server(dsn, root, prefix, bindir).guard()


@attrs.frozen
class Role:
    """A login role of a test's own, allowed few connections at once.

    Attributes:
        name: The role's name.
        dsn: How to connect as it.
        admin: How to connect as the superuser.
    """

    name: str
    dsn: str
    admin: str

    def limit(self, connections: int) -> None:
        """Let the role hold *connections* at once (the server refuses more)."""
        with psycopg.connect(self.admin, autocommit=True) as conn:
            conn.execute(
                sql.SQL("ALTER ROLE {} CONNECTION LIMIT {}").format(
                    sql.Identifier(self.name), sql.Literal(connections)
                )
            )


@contextlib.contextmanager
def limited_role(dsn: str, connections: int) -> Iterator[Role]:
    """A role that may create schemas and hold *connections* connections at once.

    The server refuses its next connection with ``too many connections for
    role`` (an `psycopg.OperationalError`, as a refused connection is).

    Args:
        dsn: How to reach the server as the superuser.
        connections: How many connections the role may hold at once.

    Yields:
        The role; afterwards its connections end, and it and what it owns go.
    """
    name = f"r_{uuid.uuid4().hex[:12]}"
    role = sql.Identifier(name)
    database = sql.Identifier(str(conninfo_to_dict(dsn).get("dbname") or "postgres"))
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(role))
        conn.execute(
            sql.SQL("GRANT CREATE ON DATABASE {} TO {}").format(database, role)
        )
    limited = Role(name, make_conninfo(dsn, user=name), dsn)
    limited.limit(connections)
    try:
        yield limited
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE usename = %s",
                (name,),
            )
            conn.execute(sql.SQL("DROP OWNED BY {} CASCADE").format(role))
            conn.execute(sql.SQL("DROP ROLE {}").format(role))


@contextlib.contextmanager
def locked(dsn: str, schema: str, table: str = "turns") -> Iterator[None]:
    """Hold an exclusive lock on *schema*'s *table*: statements on it wait.

    A store call that reads the table (``load_turn`` reads ``turns``) keeps
    its connection, waiting, until the block ends.

    Args:
        dsn: How to reach the server as the superuser.
        schema: The store's schema (its tables must exist: open it first).
        table: The table to lock.

    Yields:
        While the block runs, the lock is held.
    """
    with psycopg.connect(dsn) as conn:
        conn.execute(
            sql.SQL("LOCK TABLE {}.{} IN ACCESS EXCLUSIVE MODE").format(
                sql.Identifier(schema), sql.Identifier(table)
            )
        )
        try:
            yield
        finally:
            conn.rollback()
