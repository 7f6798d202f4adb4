"""Each adapter's pause → resume cycle against its framework's own, one run.

Every ``adapter_<name>.py`` beside this script exposes ``measure()``, which
times one pause → resume cycle through the framework alone and through the
adapter (validation against the framework's state, spending the pause once),
interleaved, and returns ``(framework, alone µs, with adapter µs)``. This
script runs them all and prints one table: the adapter's overhead should be a
small fraction of the framework's own cycle.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import cast

from _common import machine_load, table

Measure = Callable[[], tuple[str, float, float]]


def main() -> None:
    rows = []
    for path in sorted(Path(__file__).parent.glob("adapter_*.py")):
        measure = cast("Measure", importlib.import_module(path.stem).measure)
        framework, alone, adapted = measure()
        rows.append(
            [
                framework,
                f"{alone:,.1f}",
                f"{adapted:,.1f}",
                f"{adapted - alone:,.1f}",
                f"{adapted / alone:.2f}x",
            ]
        )
    header = ["framework", "alone µs", "with adapter µs", "overhead µs", "ratio"]
    print(machine_load())
    print(table(header, rows))


if __name__ == "__main__":
    main()
