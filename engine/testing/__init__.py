"""Testing Stencil kinds (and Stencil itself) against a real API server.

The pytest plugin in ``engine.testing.plugin`` is registered as an entry
point, so installing the package is enough to get the ``local_cluster``,
``kube`` and ``namespace`` fixtures.  ``wait_until`` is here because every
test against a live cluster waits for something a controller does
asynchronously, and a fixed ``sleep`` is either flaky or slow.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

__all__ = ["wait_until"]


def wait_until(
    probe: Callable[[], T | None], *, timeout: float = 60.0, interval: float = 0.2, what: str = "condition"
) -> T:
    """Call ``probe`` until it returns something truthy, and return that; or fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    last: T | None = None
    while True:
        last = probe()
        if last:
            return last
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what} (last: {last!r})")
        time.sleep(interval)
