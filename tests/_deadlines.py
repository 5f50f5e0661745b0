"""How long the suite waits for what it waits for, set in one place.

A test waits for a condition, never for a time: ``eventually`` polls a probe until it holds and
fails only once a deadline has passed.  The deadline is no claim about speed, so it is generous:
the suite runs on 2-core machines with other work beside it, where the engine, the API server
and etcd get a fraction of a core each.  Measured beside CPU-bound processes: a pytest started in
a subprocess took 1 s alone and up to 20 s at a load of 11; three sharded replicas converging 300
Networks took 31 s at a load of 10 and 102 s at 28.  ``WAIT``, the deadline of a wait that names
none, covers a few reconciles or a Deployment rollout there with room to spare; a wait for a
batch of heavy work (``eventually_all``) is bounded by its progress instead of its whole.

Every deadline goes through ``scaled``: ``STENCIL_TEST_DEADLINE_SCALE`` (default 1, for the
machine above) stretches them all at once on a slower one, instead of a number edited in each
test.  A deadline that must stay below an engine's period to prove anything (a wait that shows
a change came from its event, not from the ten-minute resync) stays far below it at 1.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TypeVar

from engine.testing import wait_until

T = TypeVar("T")

SCALE = float(os.environ.get("STENCIL_TEST_DEADLINE_SCALE") or 1.0)


def scaled(seconds: float) -> float:
    """A deadline of ``seconds`` on a loaded 2-core machine, on this one."""
    return seconds * SCALE


# What a few reconciles, watch events and status writes take beside other work, with room.
WAIT = 120.0


def eventually(
    probe: Callable[[], T | None], timeout: float = WAIT, what: str = "condition", interval: float = 0.2
) -> T:
    """The first truthy value ``probe`` returns, polling every ``interval``; fails the test once
    ``timeout`` (scaled) has passed."""
    return wait_until(probe, timeout=scaled(timeout), interval=interval, what=what)


def eventually_all(done: Callable[[], int], total: int, what: str, stall: float = WAIT) -> None:
    """Wait until ``done()`` counts ``total``: a batch of heavy work (hundreds of parents, or forty
    of 1.4 MB) takes as long as the machine needs, so the deadline is on progress, not on the whole:
    the test fails once the count has not grown for ``stall`` (scaled)."""
    best, moved = -1, time.monotonic()
    while (count := done()) < total:
        if count > best:
            best, moved = count, time.monotonic()
        elif time.monotonic() - moved > scaled(stall):
            raise AssertionError(f"{what}: {count} of {total}, and none more for {scaled(stall):.0f}s")
        time.sleep(0.2)
