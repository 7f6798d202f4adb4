"""What the adapters' tests share: logic, never mere imports."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable


def import_error(module: str, missing: str) -> str:
    """What importing *module* says in a fresh interpreter without *missing*.

    The interpreter is this one, with ``sys.modules[missing] = None`` (so
    importing *missing* fails as if it were not installed).

    Args:
        module: The adapter module to import.
        missing: The framework module to hide.

    Returns:
        The `ImportError`'s message, or ``"imported"`` if the import worked.
    """
    code = (
        f"import sys; sys.modules[{missing!r}] = None\n"
        "try:\n"
        f"    import {module}\n"
        "except ImportError as error:\n"
        "    print(error)\n"
        "else:\n"
        "    print('imported')\n"
    )
    done = subprocess.run(  # noqa: S603 - this interpreter, a fixed script
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


class Effects:
    """A conformance world's effects: the transfers, and a hook inside the next.

    A harness's ``World`` (an attrs class) declares ``transfers: int = 0`` and
    ``during: Callable[[], None] | None = None``; its transfer tool calls
    `transfer` where the money would move.
    """

    transfers: int
    during: Callable[[], None] | None

    def transfer(self) -> None:
        """Run the hook set for this transfer (once), then count it."""
        hook, self.during = self.during, None
        if hook is not None:
            hook()
        self.transfers += 1
