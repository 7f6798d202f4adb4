"""What the browser tests need: Debian's chromium, axe-core, a served inbox.

Chromium is Debian's ``chromium`` package, driven by Playwright for Python
through ``executable_path`` (Playwright's own browser download is not
reachable from these machines). When it is missing and we are root, it is
installed with apt-get, as tests/_postgres.py installs PostgreSQL; when it
cannot be, the tests fail and say so. axe-core comes from the npm registry,
into a cache directory, once.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Final

import pytest
import uvicorn
from starlette.types import ASGIApp

CHROMIUM: Final = Path("/usr/bin/chromium")
"""Debian's chromium."""

CHROMIUM_ARGS: Final = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
"""How the tests launch it (as root, in a container)."""

AXE_CACHE: Final = Path(
    os.environ.get("INTERRUPTION_AXE_CACHE", Path.home() / ".cache/interruption-axe")
)
"""Where axe-core is installed from npm, once."""


def chromium() -> Path:
    """Debian's chromium, installed with apt-get first when missing (as root).

    Fails the test, saying what to do, when it is missing and cannot be.
    """
    if CHROMIUM.exists():
        return CHROMIUM
    if os.geteuid() != 0:
        pytest.fail(
            "the inbox's browser tests need Debian's chromium: install it "
            "(apt-get install chromium) or run the tests as root"
        )
    for command in (
        ["apt-get", "update", "-q"],
        ["apt-get", "install", "-y", "-q", "--no-install-recommends", "chromium"],
    ):
        done = subprocess.run(  # noqa: S603 - fixed apt-get commands
            command,
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
        )
        if done.returncode != 0:
            pytest.fail(f"{' '.join(command)} failed: {done.stderr[-2000:]}")
    if not CHROMIUM.exists():  # pragma: no cover - apt-get said it worked
        pytest.fail("apt-get installed chromium, but /usr/bin/chromium is missing")
    return CHROMIUM


def axe_script() -> Path:
    """axe-core's ``axe.min.js``, installed from npm into `AXE_CACHE` once."""
    script = AXE_CACHE / "node_modules/axe-core/axe.min.js"
    if script.exists():
        return script
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("the accessibility checks need npm, to install axe-core")
    AXE_CACHE.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(  # noqa: S603 - a fixed npm command
        [npm, "install", "--no-save", "--prefix", str(AXE_CACHE), "axe-core@4"],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0 or not script.exists():
        pytest.fail(f"npm install axe-core failed: {done.stderr[-2000:]}")
    return script


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Served:
    """An ASGI app served by uvicorn on 127.0.0.1, in a thread."""

    def __init__(self, app: ASGIApp, port: int | None = None) -> None:
        self.port = port or free_port()
        config = uvicorn.Config(
            app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="off"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                pytest.fail("uvicorn did not start the inbox")
            time.sleep(0.02)

    @property
    def url(self) -> str:
        """The app's base URL."""
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        """Stop the server and wait for its thread."""
        self.server.should_exit = True
        self.thread.join(timeout=10)
