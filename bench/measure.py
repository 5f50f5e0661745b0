"""Timing and memory helpers shared by the benchmarks, and the table they print.

CPU is measured with ``time.process_time`` (best of a few rounds, so another
process on a shared machine inflates nothing but the worst round) and memory with
``tracemalloc`` in a separate run, because tracing allocations slows Python down
several times and would distort the timings.
"""

from __future__ import annotations

import gc
import time
import tracemalloc
from collections.abc import Callable, Sequence
from typing import Any


def cpu_seconds(work: Callable[[], Any], rounds: int = 3) -> float:
    """The least CPU time ``work`` took over ``rounds`` runs."""
    best = float("inf")
    for _ in range(rounds):
        gc.collect()
        started = time.process_time()
        result = work()
        best = min(best, time.process_time() - started)
        del result
    return best


def retained_bytes(work: Callable[[], Any]) -> int:
    """Bytes still allocated by ``work``'s result once it returned (what a cache would hold)."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        result = work()
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    del result
    return after - before


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A plain aligned text table: text left-aligned, numbers right-aligned."""
    cells = [[_cell(value) for value in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(headers)]
    numeric = [all(isinstance(row[i], int | float) for row in rows) for i in range(len(headers))]

    def line(values: Sequence[str]) -> str:
        return "  ".join(
            v.rjust(w) if n else v.ljust(w) for v, w, n in zip(values, widths, numeric, strict=True)
        )

    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in cells)])


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:,.1f}" if abs(value) >= 10 else f"{value:,.2f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)
