"""The engine's memory bound: how many bytes of parents are decoded for reconciles at once.

The cache keeps each object as its JSON (``engine.runtime.cluster.store``), but a reconcile reads its
parent decoded, and holds it two or three times over (the parent, the status written back, the
rendering's view of it).  Decoded, JSON grows up to 24-fold (a list of empty objects: three
bytes each, a 64-byte dict and a pointer), so four workers of each of several kinds, each on a
1.4 MB parent, would hold gigabytes, and a Python heap keeps its high-water mark.  ``Budget``
lets reconciles start only while the JSON bytes of the parents being reconciled stay within
``budget``: small parents never wait, and a parent larger than the whole budget is reconciled
alone.  The bound this gives is written out in docs/scaling.md.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

# JSON bytes of parents reconciled at once, across every kind: one parent at etcd's 1.5 MiB
# limit, or hundreds of ordinary ones.
DEFAULT_BUDGET = 2 * 1024 * 1024


class Budget:
    """A counting semaphore of bytes; a request larger than the whole budget waits to be alone."""

    def __init__(self, budget: int = DEFAULT_BUDGET) -> None:
        self.budget = budget
        self._used = 0
        self._changed = threading.Condition()

    @contextlib.contextmanager
    def admit(self, size: int) -> Iterator[None]:
        """Hold ``size`` bytes of the budget while the block runs."""
        with self._changed:
            self._changed.wait_for(lambda: self._used == 0 or self._used + size <= self.budget)
            self._used += size
        try:
            yield
        finally:
            with self._changed:
                self._used -= size
                self._changed.notify_all()

    @property
    def used(self) -> int:
        with self._changed:
            return self._used
