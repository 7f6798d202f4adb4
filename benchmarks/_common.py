"""What the benchmarks share: interleaved best-of timing and plain tables.

Every benchmark times its own functions next to its anchors in one run, so
the ratios travel and the absolute microseconds do not.
"""

from __future__ import annotations

import abc
import asyncio
import os
import timeit
from collections.abc import Callable, Sequence
from typing import Final

REPEATS: Final = 30
"""Repeats of each measurement; the best one is reported."""

TARGET_SECONDS: Final = 0.04
"""Rough wall time of one repeat of one function; `_calibrate` picks the count."""


def _calibrate(timer: timeit.Timer, target: float) -> tuple[int, float]:
    """Return a call count that takes about *target* s, and a first time."""
    number = 1
    while True:
        elapsed = timer.timeit(number)
        if elapsed >= target / 10:
            return max(1, int(number * target / elapsed)), elapsed / number
        number *= 10


def best_us(
    *functions: Callable[[], object],
    repeats: int = REPEATS,
    target: float = TARGET_SECONDS,
) -> list[float]:
    """Time each function; return its best µs per call over *repeats*.

    The repeats are short and go round-robin over *functions*, so that a
    burst of load from elsewhere on the machine slows all of them alike and
    each gets many chances at a quiet moment.
    """
    timers = [timeit.Timer(function) for function in functions]
    calibrated = [_calibrate(timer, target) for timer in timers]
    numbers = [number for number, _ in calibrated]
    fastest = [first for _, first in calibrated]
    for _ in range(repeats):
        for index, (timer, number) in enumerate(zip(timers, numbers, strict=True)):
            fastest[index] = min(fastest[index], timer.timeit(number) / number)
    return [seconds * 1e6 for seconds in fastest]


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Lay out *rows* under *header*: first column left, the rest right."""
    widths = [
        max(len(line[column]) for line in [header, *rows])
        for column in range(len(header))
    ]

    def line(cells: Sequence[str]) -> str:
        first = cells[0].ljust(widths[0])
        rest = (
            cell.rjust(width) for cell, width in zip(cells[1:], widths[1:], strict=True)
        )
        return "  ".join([first, *rest])

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([line(header), rule, *(line(cells) for cells in rows)])


def machine_load() -> str:
    """Describe how busy the machine is: other work skews the timings."""
    load, cpus = os.getloadavg()[0], os.cpu_count() or 1
    busy = "; other work competes, numbers are noisy" if load > cpus - 0.5 else ""
    return f"load average {load:.2f} on {cpus} CPUs{busy}\n"


def print_cycle(framework: str, alone: float, adapted: float) -> None:
    """Print one adapter's cycle against its framework's, with the load."""
    print(machine_load())
    header = ["cycle", "µs", "ratio"]
    rows = [
        [f"{framework}, alone", f"{alone:,.1f}", "1.00x"],
        ["with the adapter", f"{adapted:,.1f}", f"{adapted / alone:.2f}x"],
    ]
    print(table(header, rows))


class Cycle(abc.ABC):
    """One framework's pause → resume cycle, alone and through its adapter.

    A subclass sets up the framework (after ``super().__init__()``), counts
    its tool's runs in `runs`, and writes `_alone` and `_adapted`: one whole
    cycle each, returning the model's last text. Both run on one event loop.
    """

    def __init__(self) -> None:
        self.runs = 0
        self.loop = asyncio.new_event_loop()

    @abc.abstractmethod
    async def _alone(self) -> str:
        """One cycle through the framework alone."""

    @abc.abstractmethod
    async def _adapted(self) -> str:
        """One cycle through the adapter."""

    def alone(self) -> str:
        """One cycle through the framework alone."""
        return self.loop.run_until_complete(self._alone())

    def adapted(self) -> str:
        """One cycle through the adapter."""
        return self.loop.run_until_complete(self._adapted())

    def check(self) -> None:
        """Each cycle must pause, finish, and run the tool exactly once."""
        for cycle in (self.alone, self.adapted):
            before = self.runs
            if cycle() != "done" or self.runs != before + 1:
                msg = f"{cycle.__name__}: expected one finished cycle, one tool run"
                raise AssertionError(msg)


def measure_cycle(framework: str, bench: Cycle) -> tuple[str, float, float]:
    """Check *bench*, then time its two cycles interleaved, and close its loop.

    Returns:
        (framework, framework-alone µs, with-adapter µs), as each adapter
        script's ``measure()`` returns it.
    """
    try:
        bench.check()
        alone, adapted = best_us(bench.alone, bench.adapted)
    finally:
        bench.loop.close()
    return framework, alone, adapted
