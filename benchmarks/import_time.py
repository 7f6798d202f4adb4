"""Time ``import interruption`` in a fresh interpreter, against ``import json``.

Run with ``make bench``. Each figure is the best of several fresh processes
(``python -c``), taken in turns so that a burst of load from elsewhere slows
both alike; the difference from a bare interpreter is the import's own cost.
With ``-v``, ``python -X importtime`` then lists the slowest modules.

The processes read and write bytecode caches (under a temporary
``PYTHONPYCACHEPREFIX``, so the tree stays clean), as an installed package
does: without them every import compiles its source again, which measures
the compiler, not the package.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from typing import Final

from _common import machine_load, table

RUNS: Final = 15
"""Fresh processes per statement; the fastest one counts."""

BUDGET_MS: Final = 100.0
"""The issue's target for ``import interruption``, in milliseconds."""

STATEMENTS: Final = {
    "bare interpreter": "pass",
    "import json": "import json",
    "import interruption": "import interruption",
    "every name (import *)": "from interruption import *",
}
"""What is timed; the last one pays for the modules imported when first used."""


def _environment(cache: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return env | {"PYTHONPYCACHEPREFIX": cache}


def _run_ms(statement: str, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", statement], check=True, env=env)  # noqa: S603
    return (time.perf_counter() - start) * 1000


def best_ms(env: dict[str, str], runs: int = RUNS) -> dict[str, float]:
    """The fastest wall time of each statement, in ms, over *runs* processes."""
    for statement in STATEMENTS.values():  # write the bytecode caches first
        _run_ms(statement, env)
    best = dict.fromkeys(STATEMENTS, float("inf"))
    for _ in range(runs):
        for name, statement in STATEMENTS.items():
            best[name] = min(best[name], _run_ms(statement, env))
    return best


def slowest_modules(env: dict[str, str], count: int = 15) -> str:
    """The modules ``import interruption`` spends the most time in, by own time."""
    found = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import interruption"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stderr.splitlines()[1:]
    rows = []
    for line in found:
        own, total, name = (part.strip() for part in line.split(":", 1)[1].split("|"))
        rows.append((int(own), int(total), name))
    rows.sort(reverse=True)
    cells = [
        [name, f"{own / 1000:.1f}", f"{total / 1000:.1f}"]
        for own, total, name in rows[:count]
    ]
    return table(["module", "own ms", "with imports ms"], cells)


def main() -> None:
    print(machine_load())
    with tempfile.TemporaryDirectory() as cache:
        env = _environment(cache)
        best = best_ms(env)
        modules = slowest_modules(env) if "-v" in sys.argv[1:] else ""
    bare = best["bare interpreter"]
    cells = [[name, f"{ms:.1f}", f"{ms - bare:.1f}"] for name, ms in best.items()]
    print(table([f"best of {RUNS} processes", "wall ms", "minus bare ms"], cells))
    ours = best["import interruption"] - bare
    json_ms = best["import json"] - bare
    print(f"\nimport interruption / import json = {ours / max(json_ms, 0.01):.0f}x")
    verdict = "met" if ours <= BUDGET_MS else "MISSED"
    print(f"import interruption within {BUDGET_MS:g} ms: {verdict} ({ours:.1f} ms)")
    if modules:
        print(f"\n{modules}")


if __name__ == "__main__":
    main()
