"""Our own writes under way, and the watch events that overtake their answers.

A controller caches the answer to each of its writes (``Informer.observe``), so the watch
event that later reports the same resourceVersion changes nothing and tells no one.  Under
load the API server's watch can deliver that event first, while the writer is still at work:
told of it, the writer's handler queues the parent once more, and the reconcile that follows
finds nothing to do.  ``OwnWrites`` is the informer's record of the writes under way: an event
for an object being written is held (the cache takes it as ever) until the writes of that
object end, then released, marked as ours when its version is one their answers carried.
Another writer's change that came meanwhile is a version of its own and is never marked; a
write that failed marks nothing.  Which handlers skip the events marked ours is the
informer's business (``engine.runtime.cluster.watching``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from engine.core.model.objects import Key, Obj, key_of
from engine.runtime.cluster.store import DELETED, Event, version_of


class OwnWrites:
    """The objects being written, the versions their answers carried, and the events held for them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._writing: dict[Key, int] = {}  # how many writes of the object are under way
        self._answered: dict[Key, set[str]] = {}
        self._held: dict[Key, list[Event]] = {}

    def begin(self, obj: Obj) -> Callable[[Obj], None]:
        """A write of ``obj`` starts; the callable returned is told its answer."""
        key = key_of(obj)
        with self._lock:
            self._writing[key] = self._writing.get(key, 0) + 1
            answered = self._answered.setdefault(key, set())

        def answer(written: Obj) -> None:
            version = version_of(written)
            if version is not None:
                with self._lock:
                    answered.add(version)

        return answer

    def hold(self, event: Event) -> bool:
        """Keep ``event`` until the writes of its object end; False if none is under way."""
        key = key_of(event.obj)
        with self._lock:
            if key not in self._writing:
                return False
            self._held.setdefault(key, []).append(event)
            return True

    def end(self, obj: Obj) -> list[tuple[Event, bool]]:
        """A write of ``obj`` is over: once none is left, the events held, each with whether it
        is ours (the version an answer carried; a deletion never is)."""
        key = key_of(obj)
        with self._lock:
            self._writing[key] -= 1
            if self._writing[key]:
                return []
            del self._writing[key]
            answered = self._answered.pop(key)
            held = self._held.pop(key, [])
        return [(event, event.type != DELETED and version_of(event.obj) in answered) for event in held]
