"""Informers shared: one per (resource, namespace, label selector, what it keeps), several read as one cache.

``InformerSet`` makes and starts an informer on first use and hands the same one to
every kind that needs that selection, so two kinds rendering Deployments share one
watch.  ``Across`` reads the informers of several watched namespaces as one cache.
"""

from __future__ import annotations

import builtins
import contextlib
import threading
import time
from collections.abc import Callable, Iterable, Iterator

from engine.core.model.objects import Obj
from engine.runtime.cluster.kube import Resource
from engine.runtime.cluster.seam import ListWatcher
from engine.runtime.cluster.store import EventHandler, IndexFunc, Transform
from engine.runtime.cluster.watching import Informer

# ..., label selector, metadata only, transform: two caches keeping different parts of each object
# (the sharder's of parents, the references' index) are two informers, not one keeping either's.
_InformerKey = tuple[Resource, str | None, str | None, bool, Transform | None]


def _ignore(_: Obj) -> None:
    """An answer with no cache to keep it in."""


class Across:
    """Several informers of one resource, one per watched namespace, read as one cache.

    Lookups by namespace go to that namespace's informer; listings and index lookups
    are the union.  A single informer for every namespace (key ``None``) serves all.
    """

    def __init__(self, informers: dict[str | None, Informer]) -> None:
        self._informers = informers

    def _for(self, namespace: str | None) -> Informer | None:
        if None in self._informers:
            return self._informers[None]
        return self._informers.get(namespace)

    def get(self, namespace: str | None, name: str) -> Obj | None:
        informer = self._for(namespace)
        return informer.get(namespace, name) if informer else None

    def list(self, namespace: str | None = None) -> builtins.list[Obj]:
        if namespace is not None:
            informer = self._for(namespace)
            return informer.list(namespace) if informer else []
        return [obj for informer in self._informers.values() for obj in informer.list()]

    def by_index(self, index_name: str, value: str) -> builtins.list[Obj]:
        return [obj for informer in self._informers.values() for obj in informer.by_index(index_name, value)]

    def keys_by_index(self, index_name: str, value: str) -> builtins.list[tuple[str, str]]:
        """(namespace or "", name) of the objects with ``value`` in the index, decoding none."""
        return [
            key
            for informer in self._informers.values()
            for key in informer.store.keys_by_index(index_name, value)
        ]

    def indexed(self, index_name: str) -> dict[tuple[str, str], tuple[str, ...]]:
        """Every object's values in the index, by (namespace or "", name), decoding none."""
        found: dict[tuple[str, str], tuple[str, ...]] = {}
        for informer in self._informers.values():
            found.update(informer.store.indexed(index_name))
        return found

    def size(self, namespace: str | None, name: str) -> int:
        """The bytes of the cached object's JSON (0 if none), decoding nothing."""
        informer = self._for(namespace)
        return informer.store.size(namespace, name) if informer else 0

    def versions(self) -> builtins.list[tuple[str, str, str | None]]:
        """(namespace or "", name, resourceVersion) of every cached object, decoding none."""
        return [key for informer in self._informers.values() for key in informer.store.versions()]

    def add_index(self, name: str, func: IndexFunc) -> None:
        for informer in self._informers.values():
            informer.add_index(name, func)

    def observe(self, obj: Obj) -> None:
        informer = self._for((obj.get("metadata") or {}).get("namespace"))
        if informer is not None:
            informer.observe(obj)

    def writing(self, obj: Obj) -> contextlib.AbstractContextManager[Callable[[Obj], None]]:
        """``Informer.writing`` of the namespace's informer: the block's answer is cached and its
        watch event wakes no handler deaf to our own writes (none to hold if none watches it)."""
        informer = self._for((obj.get("metadata") or {}).get("namespace"))
        return informer.writing(obj) if informer is not None else contextlib.nullcontext(_ignore)

    def wait_for_sync(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        return all(i.wait_for_sync(max(deadline - time.monotonic(), 0.0)) for i in self._informers.values())

    @property
    def has_synced(self) -> bool:
        return all(informer.has_synced for informer in self._informers.values())


class InformerSet:
    """One shared informer per (resource, namespace, label selector), started on first use."""

    def __init__(
        self, kube: ListWatcher, *, resync_period: float | None = None, watch_timeout: int = 300
    ) -> None:
        self._kube = kube
        self._resync_period = resync_period
        self._watch_timeout = watch_timeout
        self._informers: dict[_InformerKey, Informer] = {}
        self._lock = threading.Lock()

    def acting_as(self, kube: ListWatcher) -> InformerSet:
        """A set of its own, with these settings, whose informers list and watch through ``kube``
        (another user's client): its caches hold what that user may read, apart from these."""
        return InformerSet(kube, resync_period=self._resync_period, watch_timeout=self._watch_timeout)

    def ensure(
        self,
        resource: Resource,
        *,
        namespace: str | None = None,
        label_selector: str | None = None,
        on_event: EventHandler | None = None,
        own_writes: bool = True,
        resync_period: float | None = None,
        metadata_only: bool = False,
        transform: Transform | None = None,
    ) -> Informer:
        """The informer for this selection, created and started if it is the first use.

        A handler given for an informer that already exists is added to it (and
        sees the cached objects replayed as ``ADDED``); without ``own_writes`` it is not
        told of our own writes (``Informer.writing``).  The resync period is the one given
        by the first caller, or the set's default.  A ``metadata_only`` informer is one of
        its own, and so is one with a ``transform`` (what it keeps of each object).
        """
        key = (resource, namespace, label_selector, metadata_only, transform)
        with self._lock:
            informer = self._informers.get(key)
            if informer is None:
                informer = Informer(
                    self._kube,
                    resource,
                    namespace=namespace,
                    label_selector=label_selector,
                    on_event=on_event,
                    own_writes=own_writes,
                    resync_period=resync_period if resync_period is not None else self._resync_period,
                    watch_timeout=self._watch_timeout,
                    metadata_only=metadata_only,
                    transform=transform,
                )
                self._informers[key] = informer
                informer.start()
                return informer
        if on_event is not None:
            informer.add_handler(on_event, own_writes=own_writes)
        return informer

    def ensure_across(
        self,
        resource: Resource,
        namespaces: Iterable[str],
        *,
        label_selector: str | None = None,
        on_event: EventHandler | None = None,
        own_writes: bool = True,
        resync_period: float | None = None,
        metadata_only: bool = False,
        transform: Transform | None = None,
    ) -> Across:
        """One informer per namespace (or one for all when ``namespaces`` is empty, or the
        resource is cluster-scoped), read as one cache."""
        scopes: list[str | None] = list(namespaces) if resource.namespaced else []
        return Across(
            {
                scope: self.ensure(
                    resource,
                    namespace=scope,
                    label_selector=label_selector,
                    on_event=on_event,
                    own_writes=own_writes,
                    resync_period=resync_period,
                    metadata_only=metadata_only,
                    transform=transform,
                )
                for scope in (scopes or [None])
            }
        )

    def remove_across(
        self,
        resource: Resource,
        namespaces: Iterable[str],
        *,
        label_selector: str | None = None,
        metadata_only: bool = False,
        transform: Transform | None = None,
    ) -> None:
        scopes: list[str | None] = list(namespaces) if resource.namespaced else []
        for scope in scopes or [None]:
            self.remove(
                resource,
                namespace=scope,
                label_selector=label_selector,
                metadata_only=metadata_only,
                transform=transform,
            )

    def get(
        self,
        resource: Resource,
        *,
        namespace: str | None = None,
        label_selector: str | None = None,
        metadata_only: bool = False,
        transform: Transform | None = None,
    ) -> Informer | None:
        with self._lock:
            return self._informers.get((resource, namespace, label_selector, metadata_only, transform))

    def remove(
        self,
        resource: Resource,
        *,
        namespace: str | None = None,
        label_selector: str | None = None,
        metadata_only: bool = False,
        transform: Transform | None = None,
    ) -> None:
        """Stop and forget one informer (a kind was unloaded)."""
        with self._lock:
            key = (resource, namespace, label_selector, metadata_only, transform)
            informer = self._informers.pop(key, None)
        if informer is not None:
            informer.stop()

    def stop_all(self) -> None:
        with self._lock:
            informers = list(self._informers.values())
            self._informers.clear()
        for informer in informers:
            informer.stop()

    def synced(self) -> bool:
        """Whether every informer has cached its first listing."""
        return all(informer.has_synced for informer in self)

    def wait_for_sync(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        return all(informer.wait_for_sync(max(deadline - time.monotonic(), 0.0)) for informer in self)

    def __iter__(self) -> Iterator[Informer]:
        with self._lock:
            return iter(list(self._informers.values()))

    def __len__(self) -> int:
        with self._lock:
            return len(self._informers)
