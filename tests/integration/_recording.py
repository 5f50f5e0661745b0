"""A watch held open through a test, keeping every version of the objects it reports.

The API server sends a watch's events in the order it wrote them, so the recording is
the order of writes, exact where timestamps (whole seconds) are not; and it holds every
version an object went through, not only the last, so a write that was undone later is
still seen.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from engine.core.model.objects import Obj
from engine.runtime.cluster.kube import Kube, Resource
from tests.integration._engine import eventually


@dataclass
class Recording:
    """``(event type, object)`` for every change of the watched objects, in the server's order."""

    versions: list[tuple[str, Obj]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def seen(self) -> list[tuple[str, Obj]]:
        with self.lock:
            return list(self.versions)

    def of(self, name: str) -> list[tuple[str, Obj]]:
        """The versions of the object called ``name``, oldest first."""
        return [(kind, obj) for kind, obj in self.seen() if obj["metadata"]["name"] == name]

    def first(self, what: str, matches: Callable[[str, Obj], bool]) -> int:
        """The position of the first version that ``matches``; fails the test if none does."""
        for position, (kind, obj) in enumerate(self.seen()):
            if matches(kind, obj):
                return position
        raise AssertionError(f"the watch never saw {what}")

    def reached(self, name: str, resource_version: str) -> bool:
        """Whether the version ``resource_version`` of ``name`` has been recorded."""
        return any(obj["metadata"]["resourceVersion"] == resource_version for _, obj in self.of(name))


@contextlib.contextmanager
def recording(kube: Kube, res: Resource, namespace: str) -> Iterator[Recording]:
    """Record every change of ``res`` objects in ``namespace`` from now until the block ends; the
    watch must stay open all along (one that ended early would have missed changes)."""
    _, version = kube.list(res, namespace)
    record = Recording()
    closers: list[Callable[[], None]] = []

    def watch() -> None:
        for kind, obj in kube.watch(res, version, namespace, timeout_seconds=1800, on_open=closers.append):
            if kind != "BOOKMARK":
                with record.lock:
                    record.versions.append((kind, obj))

    thread = threading.Thread(target=watch, name=f"recording {res.plural}", daemon=True)
    thread.start()
    eventually(lambda: closers, what=f"the watch of {res.plural} to open")
    try:
        yield record
        assert thread.is_alive(), f"the watch of {res.plural} ended before the test did"
    finally:
        closers[0]()
        thread.join(10)
