"""The caches of children and related objects, and the routing of their events to parents.

A child is cached by Stencil's managed-by label, so a cache holds only objects
Stencil manages, not every Deployment in the cluster (a sharded replica's, only those
labelled with its name too: its own parents' children); one informer per child kind,
made the first time a kind is rendered (or found in a kind's templates and examples
at load time) and indexed by the uid of the parent that controls it.  Related
objects (a kind's ``observe`` list, such as a StatefulSet's Pods) are cached when
they carry the ``stencil.dev/parent-uid`` label and indexed by it.

An event wakes the parent that controls the object, found by its controller owner
reference first (a label edit cannot redirect it), and, when a child goes, every
parent waiting for its name (a parent in ``ChildConflict``).  Waking is the
engine's business: it is handed in as ``wake(uid, kind)``, with the parent's group and kind
where the object says it (an owner reference names it; a related object is woken for the kinds
that observe its kind), so that only that kind's controller is asked for the uid.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterable

from engine.core.decisions import referencing
from engine.core.decisions.coordination import sharding
from engine.core.model import apis, errors, kinds
from engine.core.model.children import placement
from engine.core.model.identity import ChildId
from engine.core.model.objects import Key, Obj
from engine.core.templating import rendering
from engine.runtime.cluster.informers import Across, InformerSet
from engine.runtime.cluster.kube import Resource
from engine.runtime.cluster.seam import Api
from engine.runtime.cluster.watching import DELETED
from engine.runtime.reconciling.caches.referenced import Interests, Referenced, cache_of
from engine.runtime.reconciling.requeuing import Wakes

log = logging.getLogger("stencil.children")

MANAGED_SELECTOR = f"{placement.MANAGED_BY_LABEL}={placement.MANAGED_BY_VALUE}"
OWNER_INDEX = "parent-uid"
RELATED_SELECTOR = placement.PARENT_UID_LABEL  # related objects: any that carry the label
CACHE_SYNC_WAIT = 2.0  # how long a reconcile waits for a new child kind's first listing

GroupKind = tuple[str, str]  # a parent's group and kind, in any of its versions
Wake = Callable[[str, GroupKind | None], None]  # the parent with this uid, of this kind if known


def controlling_parent(obj: Obj) -> tuple[str, GroupKind | None] | None:
    """The uid of the parent that controls ``obj`` and, from its owner reference, its group and
    kind; where Kubernetes allows no owner reference, the uid its label names, of no kind known."""
    for owner in obj.get("metadata", {}).get("ownerReferences") or ():
        if owner.get("controller"):
            return str(owner.get("uid")), apis.group_kind(owner)
    uid = (obj.get("metadata", {}).get("labels") or {}).get(placement.PARENT_UID_LABEL)
    return (uid, None) if uid else None


def owner_index(obj: Obj) -> list[str]:
    """Index children by the uid of the parent that controls them."""
    parent = controlling_parent(obj)
    return [parent[0]] if parent is not None else []


def labelled_parent(obj: Obj) -> list[str]:
    """Index related objects by the parent uid they are labelled with (their own controller,
    say a ReplicaSet for a Pod, is not the parent)."""
    uid = (obj.get("metadata", {}).get("labels") or {}).get(placement.PARENT_UID_LABEL)
    return [uid] if uid else []


class Children:
    """Every child and related-object cache of one engine, shared by its controllers."""

    def __init__(
        self,
        kube: Api,
        informers: InformerSet,
        namespaces: tuple[str, ...],
        wake: Wake,
        shard: str | None = None,
        read_as: tuple[str, str] = (referencing.DEFAULT_READER, "default"),
    ) -> None:
        self._kube = kube
        # A sharded replica caches only the children labelled with its name: its parents' children.
        self._selector = MANAGED_SELECTOR + (f",{sharding.OWNER_LABEL}={shard}" if shard else "")
        self._informers = informers
        self._namespaces = namespaces
        self._wake = wake
        self._children: dict[tuple[str, str], Across] = {}
        self._related: dict[tuple[str, str], Across] = {}
        self._observers: dict[GroupKind, set[GroupKind]] = {}  # by related kind: the kinds observing it
        self._waiting: Interests[ChildId] = Interests()  # parents in ChildConflict, by the name
        self._lock = threading.Lock()
        self.referenced = Referenced(kube, informers, CACHE_SYNC_WAIT, read_as)  # read as read_as says

    def synced(self) -> bool:
        """Whether every child cache holds its first listing."""
        return all(cache.has_synced for cache in list(self._children.values()))

    def watch(self, children: Iterable[Obj], wait: float = CACHE_SYNC_WAIT) -> bool:
        """Make sure every child kind has a cache, and wait up to ``wait`` seconds for the first
        listing of those still without one; False if some still has none.

        Children are cached by Stencil's managed-by label, from the watched namespaces:
        a kind that places children elsewhere needs the engine to watch every namespace.
        """
        deadline = time.monotonic() + wait
        synced = True
        for gvk in sorted({(child["apiVersion"], child["kind"]) for child in children}):
            cache = self._cache(
                self._children, gvk, self._selector, self._on_child_event, owner_index, own_writes=False
            )
            if cache is not None and not cache.wait_for_sync(max(deadline - time.monotonic(), 0.0)):
                synced = False
        return synced

    def watch_related(self, kind: kinds.Kind) -> None:
        """Cache the kind's ``observe`` objects (those labelled with a parent uid) and the objects it
        references, and wake parents."""
        self.referenced.watch(kind)
        for gvk in kind.observe:
            with self._lock:
                observers = self._observers.setdefault((apis.group_of(gvk[0]), gvk[1]), set())
                observers.add((apis.group_of(kind.api_version), kind.kind))
            if (
                self._cache(self._related, gvk, RELATED_SELECTOR, self._on_related_event, labelled_parent)
                is None
            ):
                log.warning("kind %s observes %s %s, which the server does not serve", kind.name, *gvk)

    def _cache(
        self,
        caches: dict[tuple[str, str], Across],
        gvk: tuple[str, str],
        selector: str,
        handler: Callable[[str, Obj, Obj | None], None],
        index: Callable[[Obj], list[str]],
        *,
        own_writes: bool = True,
    ) -> Across | None:
        """The label-selected cache of ``gvk`` in ``caches``, indexed by parent uid (``cache_of``);
        the handler of the children's caches wakes only their writer on our own writes, so it is
        not told of them (``Informer.writing``)."""
        return cache_of(
            caches,
            gvk,
            handler,
            self._kube,
            self._informers,
            self._namespaces,
            self._lock,
            selector=selector,
            index=(OWNER_INDEX, index),
            own_writes=own_writes,
        )

    def related_of(self, uid: str, gvks: Iterable[tuple[str, str]]) -> list[Obj]:
        found: list[Obj] = []
        for gvk in gvks:
            informer = self._related.get(gvk)
            if informer is not None:
                found.extend(informer.by_index(OWNER_INDEX, uid))
        return found

    def _on_related_event(self, type_: str, obj: Obj, old: Obj | None) -> None:
        observers = self._observers.get(apis.group_kind(obj), ())
        for uid in labelled_parent(obj):
            for kind in list(observers):
                self._wake(uid, kind)

    def resources(self, kind: kinds.Kind | None) -> list[Resource]:
        """Every child resource a kind may have made: what is watched, and what it can render."""
        gvks = set(self._children)
        if kind is not None:
            gvks |= {(c["apiVersion"], c["kind"]) for c in known_child_kinds(kind)}
        found = []
        for gvk in sorted(gvks):
            try:
                found.append(self._kube.resource(*gvk))
            except errors.NotFound:
                continue
        return found

    def synced_kinds(self) -> frozenset[tuple[str, str]]:
        """The child kinds whose caches hold their first listing (a cache never loses it)."""
        return frozenset(gvk for gvk, cache in list(self._children.items()) if cache.has_synced)

    def of(
        self,
        uid: str,
        also: Iterable[Obj] = (),
        *,
        read: tuple[Iterable[Obj], frozenset[tuple[str, str]]] | None = None,
    ) -> list[Obj]:
        """Cached children controlled by ``uid``, plus cached objects named like ``also``.

        ``read`` is what an earlier call found, with the kinds ``synced_kinds`` gave before
        it: those kinds' children are taken from it, not read (and decoded) again.
        """
        found: dict[ChildId, Obj] = {}
        earlier, complete = read if read is not None else ((), frozenset())
        for obj in earlier:
            if (obj["apiVersion"], obj["kind"]) in complete:
                found[ChildId.of(obj)] = obj
        for gvk, informer in list(self._children.items()):
            if gvk not in complete:
                for obj in informer.by_index(OWNER_INDEX, uid):
                    found[ChildId.of(obj)] = obj
        for child in also:
            named = self._children.get((child["apiVersion"], child["kind"]))
            if named is None or ChildId.of(child) in found:
                continue  # not cached, or already found as a controlled child (a cache read decodes)
            meta = child["metadata"]
            cached = named.get(meta.get("namespace"), meta["name"])
            if cached is not None:
                found[ChildId.of(cached)] = cached
        return list(found.values())

    def count(self, uid: str) -> int:
        """How many cached children ``uid`` controls (read from the index, nothing decoded)."""
        return sum(len(cache.keys_by_index(OWNER_INDEX, uid)) for cache in list(self._children.values()))

    def writing(self, obj: Obj) -> contextlib.AbstractContextManager[Callable[[Obj], None]]:
        """Our write of the child ``obj`` under way: the block gives its answer to the callable
        yielded, which caches it, and its watch event wakes nobody (``Informer.writing``)."""
        informer = self._children.get((obj["apiVersion"], obj["kind"]))
        return informer.writing(obj) if informer is not None else contextlib.nullcontext(lambda _: None)

    def remember(self, obj: Obj) -> None:
        """Put what the server answered into the cache at once, so the next reconcile reads its writes."""
        informer = self._children.get((obj["apiVersion"], obj["kind"]))
        if informer is not None:
            informer.observe(obj)

    def _on_child_event(self, type_: str, obj: Obj, old: Obj | None) -> None:
        """Wake the parent that controls the child (before and after the change), found by
        its owner reference, which a label edit cannot redirect; and, when a child goes,
        the parents waiting for its name."""
        for parent in {controlling_parent(obj), controlling_parent(old) if old is not None else None}:
            if parent is not None:
                self._wake(*parent)
        if type_ == DELETED:
            self._wake_waiting(obj)

    def wait_for_names(self, queue: Wakes, key: Key, conflicts: Iterable[ChildId]) -> None:
        """Record which child names the parent ``key`` of ``queue`` waits for (its conflicts now;
        none clears)."""
        self._waiting.want((queue, key), conflicts)

    def _wake_waiting(self, obj: Obj) -> None:
        for queue, key in self._waiting.waiters(ChildId.of(obj)):
            queue.add(key)


def known_child_kinds(kind: kinds.Kind) -> list[Obj]:
    """The child kinds a kind may write (``rendering.allowed_child_kinds``), as stubs: watched
    from the start, so a child kind that a template no longer renders for some parent is
    still seen, and pruned."""
    found = rendering.allowed_child_kinds(kind)
    return [{"apiVersion": api_version, "kind": child} for api_version, child in sorted(found)]
