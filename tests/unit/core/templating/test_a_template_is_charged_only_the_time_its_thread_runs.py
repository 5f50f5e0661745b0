"""A template's time budget counts the time its thread runs, not the time it waits.

Eight threads beside the render keep the interpreter busy, as workers decoding large parents do,
and the render gets the interpreter lock one turn in nine: it takes longer than its budget by the
wall clock while using a fraction of it.  It renders; a template that loops without end is
still stopped at its budget (``test_render_time_budget.py``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from engine.core.templating import rendering, sandbox
from tests.unit import _kinds

LIMITS = sandbox.Limits(seconds=0.3)
# About a tenth of the budget's CPU time alone: every iteration reads the clock.
TEMPLATE = "{% for i in range(80000) %}{% if spec.a %}{% endif %}{% endfor %}\n"
BUSY = 8


@pytest.fixture
def busy_interpreter() -> Iterator[None]:
    """``BUSY`` threads running Python until the test ends."""
    done = threading.Event()

    def spin() -> None:
        while not done.is_set():
            sum(range(1000))

    threads = [threading.Thread(target=spin, daemon=True) for _ in range(BUSY)]
    for thread in threads:
        thread.start()
    yield
    done.set()
    for thread in threads:
        thread.join()


def test_a_render_waiting_for_the_interpreter_is_not_charged_the_wait(busy_interpreter: None) -> None:
    started, cpu = time.monotonic(), time.thread_time()
    children = rendering.render(_kinds.kind(TEMPLATE), _kinds.parent({"a": 1}), [], limits=LIMITS)
    waited, ran = time.monotonic() - started, time.thread_time() - cpu
    assert children == []
    # What makes the case: longer than the budget by the wall clock, well within it by its own.
    assert waited > LIMITS.seconds > 2 * ran, (waited, ran)
