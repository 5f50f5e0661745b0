"""A decorator's parents on the API server: existing objects it selects (``engine.core.model.decorators``).

The controller watches the decorated kind with the decorator's label selector, in the namespaces it
selects in (``watched``), and reconciles each selected object as a parent, writing no status.  An
object that stops being selected (its labels or annotations changed, it moved out of reach, it was
deleted) has its children pruned and what the decorator's patch set on it taken off
(``Decorations.undecorate``); one deleted takes its children with it anyway, through their owner
references.  Objects an annotation selector does not select are cached, as their changes must be
seen, but cost no request.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from engine.core.decisions.plans import planning
from engine.core.model import kinds
from engine.core.model.children import placement
from engine.core.model.objects import Key, Obj, key_of, uid_of
from engine.runtime.reconciling.host import Host
from engine.runtime.reconciling.reconcile.applying import Applier
from engine.runtime.reconciling.reconcile.patching import Patcher
from engine.runtime.reconciling.requeuing import Result


def watched(kind: kinds.Kind | None, host: Host) -> tuple[tuple[str, ...], str | None]:
    """The namespaces and label selector the parents of ``kind`` are watched with."""
    engine = tuple(host.options.namespaces)
    if kind is None or kind.decorates is None:
        return engine, host.parent_selector
    selecting = kind.decorates.namespaces
    if "*" in selecting:
        return engine, kind.decorates.label_selector
    # Those the engine watches too (it may have rights nowhere else); else the decorator's own.
    namespaces = tuple(n for n in selecting if not engine or n in engine) or selecting
    return namespaces, kind.decorates.label_selector


def selected(kind: kinds.Kind, obj: Obj | None) -> bool:
    """Whether ``obj`` is one of the decorator's parents now: selected, not off limits, not going."""
    if obj is None or kind.decorates is None or obj["metadata"].get("deletionTimestamp"):
        return False
    namespace = str(obj["metadata"].get("namespace") or "")
    return kind.decorates.selects(obj) and placement.off_limits(namespace, kind.placement.off_limits) is None


class Decorations:
    """The objects a decorator decorated that left its cache, until their children are pruned."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self._lock = threading.Lock()
        self._left: dict[Key, Obj] = {}  # by key: each object as last cached

    def left(self, obj: Obj) -> Key:
        """``obj`` left the cache (deleted, or no longer matching the label selector): its key, to queue."""
        key = key_of(obj)
        with self._lock:
            self._left[key] = obj
        return key

    def undecorate(
        self, key: Key, cached: Obj | None, applier: Callable[[Obj], Applier], patcher: Patcher
    ) -> Result:
        """Prune the children of an object no longer decorated and take off what its patch set."""
        with self._lock:
            gone = self._left.pop(key, None)
        obj = cached or gone
        if obj is None:
            return Result()
        uid, namespace = uid_of(obj), str(obj["metadata"].get("namespace") or "")
        reach = planning.Reach(namespace)
        mine = planning.owned(self.host.children.of(uid), uid, reach)
        if mine:
            applier(obj).prune_all(planning.plan([], mine, uid, reach))
        patcher.undecorate(obj, cached=cached is not None)
        return Result()
