"""Whole objects fetched one at a time, beside a cache of every object's metadata alone.

A cache of whole objects costs each object's bytes, whether anyone reads it or not: a kind that
references ConfigMaps by name, cached so, holds every ConfigMap of the watched namespaces, a
megabyte each for another tenant's that nothing reads.  ``Fetched`` holds instead two things:

- an index of every object's metadata (a ``metadata_only`` informer whose store keeps what
  ``as_index_keeps`` keeps: name, namespace, resourceVersion and labels, a few hundred bytes an
  object, so that an unrelated object costs that and no more); its watch is what tells of a
  change, and its labels are what a selector is matched against;
- the whole objects someone reads, fetched by GET on the first read, and again on a read once the
  index shows a later resourceVersion than the one held.  The caller says when an object is no
  longer read (``release``), and it is dropped.

A read thus answers what the server held at the last change the index saw, or later: a GET
that returns a version newer than the index's (the watch not there yet) is kept, and the
watch's event for it then finds it current.  Fetching on read rather than on every watch event
costs no request for a change nobody reads before the next one.  A GET that fails (the server
away, a right missing) fails the read with the client's error, for the caller to retry.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import orjson

from engine.core.decisions.plans import ownership
from engine.core.model.objects import Key, Obj, key_of
from engine.runtime.cluster.informers import Across
from engine.runtime.cluster.kube import Resource
from engine.runtime.cluster.store import later, version_of

Get = Callable[[Resource, str, str | None], Obj | None]  # the client's GET of one object

_KEPT = ("name", "namespace", "resourceVersion", "labels")


def as_index_keeps(obj: Obj) -> Obj:
    """What the index keeps of an object: its name, namespace, resourceVersion and labels.

    Annotations go (a ``kubectl apply``'d object's last-applied annotation is the object again),
    as do managedFields, owner references and timestamps.  The apiVersion and kind go too: a
    watch of metadata says ``PartialObjectMetadata`` there, and the store fills in the resource's.
    """
    meta = obj.get("metadata") or {}
    return {"metadata": {key: meta[key] for key in _KEPT if key in meta}}


class Fetched:
    """The whole objects of one resource that are read, fetched by GET and checked against
    ``index``, a metadata cache of every object of it (``as_index_keeps``)."""

    def __init__(self, get: Get, resource: Resource, index: Across) -> None:
        self._get = get
        self._resource = resource
        self.index = index
        self._held: dict[Key, tuple[str | None, Obj, bytes]] = {}  # version, metadata, JSON
        self._lock = threading.Lock()

    def get(self, namespace: str | None, name: str) -> Obj | None:
        """The object, as of the index's version of it or later; None if the index has none."""
        meta = self.index.get(namespace, name)
        if meta is None:
            self.release([Key(namespace or "", name)])
            return None
        return self._current(meta)

    def matching(self, namespace: str | None, selector: Sequence[tuple[str, str]]) -> list[Obj]:
        """The objects of ``namespace`` (every watched one: None) whose labels the index shows
        carry every pair of ``selector``."""
        found = []
        for meta in self.index.list(namespace):
            labels = (meta.get("metadata") or {}).get("labels") or {}
            if all(labels.get(key) == value for key, value in selector):
                obj = self._current(meta)
                if obj is not None:
                    found.append(obj)
        return found

    def release(self, keys: Sequence[Key]) -> None:
        """Drop the objects of ``keys``: no one reads them now."""
        with self._lock:
            for key in keys:
                self._held.pop(key, None)

    def holds(self, key: Key) -> bool:
        """Whether the object of ``key`` is held whole."""
        with self._lock:
            return key in self._held

    def held(self) -> list[Obj]:
        """The metadata (``as_index_keeps``, with apiVersion and kind) of every object held whole."""
        with self._lock:
            metas = [meta for _, meta, _ in self._held.values()]
        return [{"apiVersion": self._resource.api_version, "kind": self._resource.kind, **m} for m in metas]

    def size(self) -> int:
        """The bytes of JSON held: the objects held whole and the index of every object."""
        with self._lock:
            whole = sum(len(data) for _, _, data in self._held.values())
        return whole + sum(self.index.size(ns or None, name) for ns, name, _ in self.index.versions())

    def _current(self, meta: Mapping[str, Any]) -> Obj | None:
        """The whole object ``meta`` is the metadata of, held or fetched."""
        key = key_of(meta)
        namespace, name = key
        version = version_of(dict(meta))
        with self._lock:
            entry = self._held.get(key)
        if entry is not None and (entry[0] == version or later(entry[0], version)):
            held: Obj = orjson.loads(entry[2])
            return held
        obj = self._get(self._resource, name, namespace or None)
        if obj is None:
            self.release([key])  # deleted since: the index's event for it comes
            return None
        ownership.kept(obj)  # of managedFields, the engine's own applied set, as every cache keeps
        fetched = version_of(obj)
        with self._lock:
            entry = self._held.get(key)
            if entry is None or not later(entry[0], fetched):  # never a GET older than one held
                self._held[key] = (fetched, as_index_keeps(obj), orjson.dumps(obj))
        return obj
