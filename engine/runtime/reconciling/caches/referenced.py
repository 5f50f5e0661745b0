"""The objects kinds reference, held while parents read them, and the parents each change wakes.

A kind's ``references:`` name objects it reads but does not own (``engine.core.model.references``);
unlike children and related objects they carry no label of Stencil's, so no label selects them
for a cache.  Caching every object of a referenced kind whole would make the engine hold every
ConfigMap of the watched namespaces because one kind reads one: another tenant's hundred
unrelated megabyte ConfigMaps would be a hundred megabytes of the engine's.  So each referenced
kind has, per watched namespace, a watch of every object's metadata alone, kept as name,
namespace, resourceVersion and labels (``engine.runtime.cluster.fetched``: a few hundred bytes
an object); and only the objects parents read are held whole, fetched by GET when first read
and when the metadata shows a later version, and dropped when no parent reads them any longer.
A selector is matched against the labels of the metadata, so only its matches are fetched.

Which object a parent reads is decided per reconcile (``engine.core.decisions.referencing``);
this module records it, by name (an index from the object's ``ChildId`` to the parents reading
it, as ``children`` keeps the names parents in conflict wait for) or by selector (matched
against each changed object), and wakes those parents when such an object is created, changed
or deleted.  A reference whose object is missing thus waits for nothing but the object's own
creation, which its metadata's watch brings.

Every read is the parent's namespace's, not the engine's: a reference is read as the
ServiceAccount ``referencing.reader`` names (impersonated), its watch of metadata and its GETs
alike, one watch per account, kind and namespace.  Before anything is watched as an account the
server is asked whether it may get, list and watch there (``engine.runtime.cluster.access``);
a parent whose reader may not is refused (``ReferenceForbidden``, at the reference's line) and
looked at again later, so a tenant who may not read a Secret cannot read it through a parent,
and the engine's own role needs no read of the kinds its kinds reference.

The interest is recorded *before* the caches are read, so an object created between the two
wakes the parent rather than being missed; an object a cache has not listed yet wakes it
when the listing brings it.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import threading
import time
from collections.abc import Hashable, Iterable, Sequence
from typing import Generic, TypeVar

from engine.core.decisions import referencing
from engine.core.model import errors, kinds
from engine.core.model.identity import ChildId
from engine.core.model.objects import Key, Obj, key_of
from engine.runtime.cluster.access import Access
from engine.runtime.cluster.fetched import Fetched, as_index_keeps
from engine.runtime.cluster.informers import Across, InformerSet
from engine.runtime.cluster.seam import Api
from engine.runtime.cluster.store import DELETED, EventHandler, IndexFunc, Transform
from engine.runtime.reconciling.requeuing import Wakes

log = logging.getLogger("stencil.references")

Waiter = tuple[Wakes, Key]  # a parent's queue and key
K = TypeVar("K", bound=Hashable)
Named = tuple[str, ChildId]  # an object by name, and whom it is read as
_Source = tuple[str, tuple[str, str], str]  # reader, (apiVersion, kind), namespace ("" cluster-wide)
READ_VERBS = ("get", "list", "watch")  # what a reader needs where a reference looks


class Interests(Generic[K]):
    """Which parents want which keys, and the other way round, under one lock."""

    def __init__(self) -> None:
        self._waiting: dict[K, set[Waiter]] = {}
        self._wanted_by: dict[Waiter, set[K]] = {}
        self._lock = threading.Lock()

    def want(self, waiter: Waiter, keys: Iterable[K]) -> list[K]:
        """Record that ``waiter`` wants exactly ``keys`` now (none clears); the keys no one wants
        any longer."""
        wanted = set(keys)
        unwanted = []
        with self._lock:
            for key in self._wanted_by.pop(waiter, set()) - wanted:
                waiting = self._waiting.get(key)
                if waiting is not None:
                    waiting.discard(waiter)
                    if not waiting:
                        del self._waiting[key]
                        unwanted.append(key)
            if wanted:
                self._wanted_by[waiter] = wanted
                for key in wanted:
                    self._waiting.setdefault(key, set()).add(waiter)
        return unwanted

    def waiters(self, key: K) -> list[Waiter]:
        with self._lock:
            return list(self._waiting.get(key, ()))

    def wanted(self) -> list[K]:
        with self._lock:
            return list(self._waiting)


class Referenced:
    """The referenced objects parents read, and which parent reads which object, of one engine."""

    def __init__(
        self,
        kube: Api,
        informers: InformerSet,
        sync_wait: float,
        read_as: tuple[str, str] = (referencing.DEFAULT_READER, "default"),
    ) -> None:
        self._kube = kube
        self._informers = informers
        self._sync_wait = sync_wait
        self._read_as = read_as  # the default account's name, and a cluster-scoped parent's namespace
        self._access = Access(kube)
        self._readers: dict[str, tuple[Api, InformerSet]] = {}  # each account read as: its client, watches
        self._fetched: dict[_Source, Fetched] = {}  # the objects read, and every one's metadata
        self._by_name: Interests[Named] = Interests()
        self._by_selector: Interests[referencing.Target] = Interests()
        self._lock = threading.Lock()

    def watch(self, kind: kinds.Kind) -> None:
        """Say, once a kind is served, which kinds it references that the server does not serve;
        the others are watched as each parent's reader when a parent first reads them."""
        for reference in kind.references:
            try:
                self._kube.resource(reference.api_version, reference.kind)
            except errors.NotFound:
                said = (kind.name, reference.api_version, reference.kind)
                log.warning("kind %s references %s %s, which the server does not serve", *said)

    def read(self, kind: kinds.Kind | None, parent: Obj, queue: Wakes, key: Key) -> referencing.Resolved:
        """What ``kind``'s references read for ``parent`` now, as its reader; from now on, a change to
        any of those objects wakes ``key`` of ``queue``.  A reference beyond the parent's reach, or
        one its reader may not read, is not read: the answer carries its refusal."""
        found: Sequence[referencing.Target] = ()
        refusal = None
        if kind is not None and kind.references:
            reader = referencing.reader(kind, parent, *self._read_as)
            try:
                found = referencing.targets(kind, parent, self._kube.is_namespaced, reader)
            except errors.StencilError as error:
                refusal = error
            # The server's trouble asking (unreachable, 429) is raised, for the queue to retry.
            refusal = refusal or next(filter(None, (self._unread(kind, t) for t in found)), None)
        self.forget(queue, key, keep=() if refusal else found)
        if refusal is not None:
            return referencing.Resolved(refusal=refusal)
        deadline = time.monotonic() + self._sync_wait
        return referencing.resolve(found, lambda target: self._lookup(target, deadline))

    def forget(self, queue: Wakes, key: Key, keep: Sequence[referencing.Target] = ()) -> None:
        """Wake ``key`` of ``queue`` only for the objects of ``keep`` from now on (none: a parent
        gone); an object no parent reads any longer is no longer held."""
        waiter = (queue, key)
        unnamed = self._by_name.want(waiter, [(t.reader, t.where) for t in keep if not t.selector])
        unselected = self._by_selector.want(waiter, [_located(t) for t in keep if t.selector])
        if unnamed or unselected:
            self._release(set(unnamed), unselected)

    def cached_bytes(self) -> int:
        """The bytes of JSON the references hold: every object's metadata, and the objects read."""
        with self._lock:
            sources = list(self._fetched.values())
        return sum(source.size() for source in sources)

    def stop(self) -> None:
        """Stop every watch made as a reader."""
        with self._lock:
            readers = list(self._readers.values())
        for _, informers in readers:
            informers.stop_all()

    def _unread(self, kind: kinds.Kind, target: referencing.Target) -> errors.StencilError | None:
        """``ReferenceForbidden`` if ``target``'s reader may not read where it looks, else None."""
        try:
            resource = self._kube.resource(target.where.api_version, target.where.kind)
        except errors.NotFound:
            return None  # nothing to read: the reference is missing
        verb = self._access.refused(target.reader, READ_VERBS, resource, target.where.namespace)
        return None if verb is None else referencing.forbidden(kind, target, verb)

    def _lookup(self, target: referencing.Target, deadline: float) -> list[Obj]:
        source = self._source(target)
        if source is None:
            return []
        source.index.wait_for_sync(max(deadline - time.monotonic(), 0.0))  # else its listing wakes the parent
        namespace = target.where.namespace or None
        if not target.selector:
            found = source.get(namespace, target.where.name)
            return [] if found is None else [found]
        return source.matching(namespace, target.selector)

    def _source(self, target: referencing.Target) -> Fetched | None:
        """The objects of ``target``'s kind and namespace read as its reader, beside the metadata
        of every one there; None if the server does not serve that kind."""
        gvk = (target.where.api_version, target.where.kind)
        key = (target.reader, gvk, target.where.namespace)
        try:
            resource = self._kube.resource(*gvk)  # discovery's answer is kept: no request
        except errors.NotFound:
            return None
        with self._lock:  # so that no watch is retired between finding it and reading it (``_retire``)
            source = self._fetched.get(key)
            if source is None:
                client, informers = self._reader(target.reader)
                index = informers.ensure_across(
                    resource,
                    (target.where.namespace,) if target.where.namespace else (),
                    on_event=functools.partial(self._on_event, target.reader),
                    metadata_only=True,
                    transform=as_index_keeps,
                )
                source = self._fetched[key] = Fetched(client.get, resource, index)
            return source

    def _reader(self, user: str) -> tuple[Api, InformerSet]:
        """The client acting as ``user`` and its informers (under the lock): every GET and watch of
        what it reads is made as that user."""
        reader = self._readers.get(user)
        if reader is None:
            client = self._kube.impersonating(user)
            reader = self._readers[user] = (client, self._informers.acting_as(client))
        return reader

    def _wanted(self, reader: str, obj: Obj) -> bool:
        """Whether a parent reads ``obj`` as ``reader`` (its metadata will do), by name or selector."""
        if self._by_name.waiters((reader, ChildId.of(obj))):
            return True
        return any(t.reader == reader and t.matches(obj) for t in self._by_selector.wanted())

    def _retire(self) -> None:
        """Stop each watch made as a reader that no parent reads through any longer (its namespace
        emptied of such parents, or gone): each is a connection and a thread, and a tenant may make
        namespaces at will.  A parent reading there again makes a new one."""
        with self._lock:
            wanted = {(reader, (w.api_version, w.kind), w.namespace) for reader, w in self._by_name.wanted()}
            wanted |= {
                (t.reader, (t.where.api_version, t.where.kind), t.where.namespace)
                for t in self._by_selector.wanted()
            }
            idle = [key for key in self._fetched if key not in wanted]
            for reader, gvk, namespace in idle:
                del self._fetched[(reader, gvk, namespace)]
                informers = self._readers[reader][1]
                scope = (namespace,) if namespace else ()
                informers.remove_across(
                    self._kube.resource(*gvk), scope, metadata_only=True, transform=as_index_keeps
                )
                if not len(informers):
                    del self._readers[reader]

    def _release(self, unnamed: set[Named], unselected: Sequence[referencing.Target]) -> None:
        """Drop the objects held for names or selectors no parent reads any longer, unless a
        parent still reads them otherwise; and the watches no parent reads through."""
        self._retire()
        with self._lock:
            sources = list(self._fetched.items())
        for (reader, _, _), source in sources:
            gone = [
                meta
                for meta in source.held()
                if (
                    (reader, ChildId.of(meta)) in unnamed
                    or any(t.reader == reader and t.matches(meta) for t in unselected)
                )
                and not self._wanted(reader, meta)
            ]
            source.release([key_of(meta) for meta in gone])

    def _on_event(self, reader: str, type_: str, obj: Obj, old: Obj | None) -> None:
        """Wake the parents that read ``obj`` as ``reader`` by its name, or by a selector it matches
        (before or after); an object held that is deleted, or that no parent reads now, is dropped."""
        waiters = set(self._by_name.waiters((reader, ChildId.of(obj))))
        for target in self._by_selector.wanted():
            if target.reader == reader and (target.matches(obj) or (old is not None and target.matches(old))):
                waiters.update(self._by_selector.waiters(target))
        for queue, key in waiters:
            queue.add(key)
        gvk = (str(obj.get("apiVersion")), str(obj.get("kind")))
        namespace = (obj.get("metadata") or {}).get("namespace") or ""
        source = self._fetched.get((reader, gvk, namespace))
        if source is None or not source.holds(key_of(obj)):
            return
        if type_ == DELETED or not self._wanted(reader, obj):
            source.release([key_of(obj)])


def cache_of(
    caches: dict[tuple[str, str], Across],
    gvk: tuple[str, str],
    handler: EventHandler,
    kube: Api,
    informers: InformerSet,
    namespaces: tuple[str, ...],
    lock: threading.Lock,
    *,
    selector: str | None = None,
    index: tuple[str, IndexFunc] | None = None,
    own_writes: bool = True,
    metadata_only: bool = False,
    transform: Transform | None = None,
) -> Across | None:
    """The cache of ``gvk`` in ``caches`` (label-selected by ``selector``, with ``index``; of each
    object's metadata alone, with ``metadata_only``, kept as ``transform`` says), made and started
    once; None if the server does not serve that kind.

    Nothing here waits for the cache to fill, and discovery happens outside the lock: a kind
    whose listing hangs must not stall the workers of other kinds.
    """
    cache = caches.get(gvk)
    if cache is not None:
        return cache
    try:
        resource = kube.resource(*gvk)
    except errors.NotFound:
        return None
    with lock:
        cache = caches.get(gvk)
        if cache is None:
            cache = informers.ensure_across(
                resource,
                namespaces,
                label_selector=selector,
                on_event=handler,
                own_writes=own_writes,
                metadata_only=metadata_only,
                transform=transform,
            )
            if index is not None:
                cache.add_index(*index)
            caches[gvk] = cache
        return cache


def _located(target: referencing.Target) -> referencing.Target:
    """A selector target as a key: where it looks, whichever parent's reference it is."""
    return dataclasses.replace(target, id="", optional=False)
