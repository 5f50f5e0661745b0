"""A local, indexed copy of one resource's objects: pure, fed events, answering with events.

``Store`` is the part of an informer worth testing without a cluster.  It is fed a
full listing (``replace``) or single watch events (``apply``) and answers with the
handler events they imply.  It cuts ``metadata.managedFields`` (often half an
object's size) down to the engine's own applied set, which drift is asked of
(``engine.core.decisions.plans.ownership``), fills in ``apiVersion``/``kind``
(list items lack them), keeps the indexes current, turns objects missing from a
relist into synthetic deletes, and never goes backwards: an object replaces a
cached one only when its ``resourceVersion`` is newer (see ``newer``), so a
write's response that arrives after the watch already delivered a later change
cannot roll the cache back.  The I/O around it is ``engine.runtime.cluster.watching``.

Each object is kept as its compact JSON encoding (``orjson``), not as the dict it
was decoded into: a Python dict of a Kubernetes object takes four to ten times the
bytes of its JSON, and a cache of 10,000 parents and 20,000 children is the engine's
memory.  A read decodes (about 20 µs for a Deployment), so every caller gets an
object of its own that it may change without touching the cache.  The resourceVersion and the
index values are kept beside the encoding, so comparing versions and looking up by
index decode nothing.  A store may be given a ``transform`` (client-go's ``SetTransform``):
what it keeps of each object, listed, watched or written, for a cache that needs less of
every object than the server sends (the sharder's cache of every parent keeps metadata).
"""

from __future__ import annotations

import builtins
import json
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import orjson

from engine.core.decisions.plans import ownership
from engine.core.model.objects import Obj
from engine.runtime.cluster import nesting

ADDED = "ADDED"
MODIFIED = "MODIFIED"
DELETED = "DELETED"
SYNC = "SYNC"
BOOKMARK = "BOOKMARK"

EventHandler = Callable[[str, Obj, Obj | None], None]
IndexFunc = Callable[[Obj], list[str]]
Transform = Callable[[Obj], Obj]  # what the store keeps of an object, decided before it is kept

_Key = tuple[str, str]  # (namespace or "" when cluster-scoped, name)
_Entry = tuple[str | None, bytes]  # (resourceVersion, the object's compact JSON)

_decode = orjson.loads


@dataclass(frozen=True)
class Event:
    """What a handler receives: ``(type, obj, old)``."""

    type: str
    obj: Obj
    old: Obj | None


def _key_of(obj: Obj) -> _Key:
    meta = obj["metadata"]
    return meta.get("namespace") or "", meta["name"]


def version_of(obj: Obj | None) -> str | None:
    """The object's resourceVersion, if it has one."""
    if obj is None:
        return None
    version: str | None = obj.get("metadata", {}).get("resourceVersion")
    return version


def newer(obj: Obj, cached: Obj) -> bool | None:
    """Whether ``obj`` is a later state than ``cached``; None when their versions cannot be compared.

    On an etcd-backed API server the resourceVersions of one resource are integers
    that grow with every write (Kubernetes' comparable-resource-version guarantee,
    KEP-5504), so they order the states of an object, and of a deleted object and
    its re-created namesake.  Any other server may use opaque strings: then only
    equality means anything.
    """
    return _newer(version_of(obj), version_of(cached))


def later(mine: str | None, theirs: str | None) -> bool | None:
    """Whether version ``mine`` is later than ``theirs``; None when they cannot be compared (``newer``)."""
    return _newer(mine, theirs)


def _newer(mine: str | None, theirs: str | None) -> bool | None:
    if mine is not None and theirs is not None and mine.isdigit() and theirs.isdigit():
        return int(mine) > int(theirs)
    return None


class Store:
    """The cached objects of one resource with their indexes; fed events, returns events.

    Thread-safe: every method takes the store's lock.
    """

    def __init__(
        self, api_version: str | None = None, kind: str | None = None, *, transform: Transform | None = None
    ) -> None:
        self._api_version = api_version
        self._kind = kind
        self._transform = transform
        self._lock = threading.RLock()
        # namespace -> name -> entry, so a namespaced list costs only that namespace.
        self._objects: dict[str, dict[str, _Entry]] = {}
        self._index_funcs: dict[str, IndexFunc] = {}
        # index -> value -> the key, or a set of two or more: most values (a parent's uid, the
        # children of one parent) name one object, and a set of one takes 216 bytes.
        self._indexes: dict[str, dict[str, _Key | set[_Key]]] = {}
        self._indexed: dict[str, dict[_Key, tuple[str, ...]]] = {}  # index -> key -> values

    # -- feeding --------------------------------------------------------------

    def apply(self, type_: str, obj: Obj, *, only_newer: bool = False) -> Event | None:
        """Take one watch event; the handler event it implies, or None if nothing changed.

        An event older than the cached object (the cache already holds a write's
        response, or the object was re-created) is dropped.  When versions cannot be
        compared, a watch event replaces the cached object unless its version is the
        same; with ``only_newer`` (a write's response, not a watch event) it does not.
        """
        obj = self._prepare(obj)
        key = _key_of(obj)
        version = version_of(obj)
        with self._lock:
            cached = self._objects.get(key[0], {}).get(key[1])
            if type_ == DELETED:
                if cached is not None and _newer(cached[0], version):
                    return None  # the deletion of an earlier incarnation, re-created since
                self._remove(key)
                return Event(DELETED, obj, _decoded(cached))
            if cached is not None:
                later = _newer(version, cached[0])
                if later is False or (later is None and (only_newer or cached[0] == version)):
                    return None
            self._put(key, obj, version)
            return Event(ADDED if cached is None else MODIFIED, obj, _decoded(cached))

    def replace(self, items: Iterable[Obj]) -> list[Event]:
        """Take a full listing: the store becomes exactly ``items``.

        Objects that vanished since the last listing get a synthetic ``DELETED``
        event carrying their last known state, so their owners are reconciled.
        """
        seen: set[_Key] = set()
        with self._lock:
            return [*self.refill(items, seen), *self.drop_unseen(seen)]  # one snapshot: nothing newer

    def refill(self, items: Iterable[Obj], seen: set[_Key]) -> list[Event]:
        """Take part of a full listing (a page), adding the keys of its objects to ``seen``;
        ``drop_unseen(seen)`` ends the listing.  ``replace`` is the two at once."""
        events: list[Event] = []
        for item in items:
            event = self.apply(MODIFIED, item)
            seen.add(_key_of(item))
            if event is not None:
                events.append(event)
        return events

    def drop_unseen(self, seen: set[_Key], listed_at: str | None = None) -> list[Event]:
        """End a full listing: every object not in ``seen`` vanished, and gets a synthetic ``DELETED``.

        An object cached at a version later than the listing's ``listed_at`` (a write's
        response taken in while the pages came) was written after the listing's snapshot:
        its absence from the listing says nothing, and it stays.
        """
        events: list[Event] = []
        with self._lock:
            vanished = [
                (namespace, name)
                for namespace, names in self._objects.items()
                for name, (version, _) in names.items()
                if (namespace, name) not in seen and not _newer(version, listed_at)
            ]
            for key in vanished:
                last = _decode(self._objects[key[0]][key[1]][1])
                self._remove(key)
                events.append(Event(DELETED, last, last))
        return events

    def add_index(self, name: str, func: IndexFunc) -> None:
        """Maintain index ``name`` from ``func(obj) -> values``, covering objects already cached.

        Adding the same function under the same name again is a no-op, so several
        users of a shared informer can each declare the index they rely on.
        """
        with self._lock:
            existing = self._index_funcs.get(name)
            if existing is func:
                return
            if existing is not None:
                raise ValueError(f"index {name!r} already exists with another function")
            self._index_funcs[name] = func
            self._indexes[name] = {}
            self._indexed[name] = {}
            for namespace, names in self._objects.items():
                for obj_name, (_, data) in names.items():
                    self._index_one(name, (namespace, obj_name), _decode(data))

    # -- reading ---------------------------------------------------------------

    def get(self, namespace: str | None, name: str) -> Obj | None:
        with self._lock:
            entry = self._objects.get(namespace or "", {}).get(name)
        return _decoded(entry)

    def list(self, namespace: str | None = None) -> list[Obj]:
        with self._lock:
            if namespace is not None:
                entries = list(self._objects.get(namespace, {}).values())
            else:
                entries = [entry for names in self._objects.values() for entry in names.values()]
        return [_decode(data) for _, data in entries]

    def each(self) -> Iterator[Obj]:
        """Every cached object, decoded one at a time as the caller takes it.

        A parent of 1.4 MB can take 30 MiB decoded, so whatever visits every object (a resync,
        a handler's replay) must hold one at a time, never a ``list()`` of them all.
        """
        with self._lock:
            entries = [entry for names in self._objects.values() for entry in names.values()]
        return (_decode(data) for _, data in entries)

    def by_index(self, index_name: str, value: str) -> builtins.list[Obj]:
        with self._lock:
            entries = [
                self._objects[namespace][name] for namespace, name in self.keys_by_index(index_name, value)
            ]
        return [_decode(data) for _, data in entries]

    def keys_by_index(self, index_name: str, value: str) -> builtins.list[_Key]:
        """(namespace or "", name) of the objects with ``value`` in index ``index_name``, decoding none."""
        with self._lock:
            if index_name not in self._indexes:
                raise KeyError(f"no index named {index_name!r}")
            keys = self._indexes[index_name].get(value)
            if keys is None:
                return []
            return [keys] if isinstance(keys, tuple) else sorted(keys)

    def indexed(self, index_name: str) -> dict[_Key, tuple[str, ...]]:
        """Every object's values in index ``index_name``, by (namespace or "", name), decoding none."""
        with self._lock:
            if index_name not in self._indexed:
                raise KeyError(f"no index named {index_name!r}")
            return dict(self._indexed[index_name])

    def size(self, namespace: str | None, name: str) -> int:
        """The bytes of the cached object's JSON (0 if none), decoding nothing."""
        with self._lock:
            entry = self._objects.get(namespace or "", {}).get(name)
        return 0 if entry is None else len(entry[1])

    def versions(self) -> builtins.list[tuple[str, str, str | None]]:
        """(namespace or "", name, resourceVersion) of every cached object, decoding none."""
        with self._lock:
            return [
                (namespace, name, entry[0])
                for namespace, names in self._objects.items()
                for name, entry in names.items()
            ]

    def __len__(self) -> int:
        with self._lock:
            return sum(len(names) for names in self._objects.values())

    # -- internals ---------------------------------------------------------------

    def _prepare(self, obj: Obj) -> Obj:
        if self._transform is not None:
            obj = self._transform(obj)
        ownership.kept(obj)  # of managedFields, only the engine's own applied set
        if self._api_version and "apiVersion" not in obj:
            obj["apiVersion"] = self._api_version
        if self._kind and "kind" not in obj:
            obj["kind"] = self._kind
        return obj

    def _put(self, key: _Key, obj: Obj, version: str | None) -> None:
        self._objects.setdefault(key[0], {})[key[1]] = (version, _encode(obj))
        for index_name in self._index_funcs:
            self._unindex_one(index_name, key)
            self._index_one(index_name, key, obj)

    def _remove(self, key: _Key) -> None:
        names = self._objects.get(key[0])
        if names is None or names.pop(key[1], None) is None:
            return
        if not names:
            del self._objects[key[0]]
        for index_name in self._index_funcs:
            self._unindex_one(index_name, key)

    def _index_one(self, index_name: str, key: _Key, obj: Obj) -> None:
        values = tuple(self._index_funcs[index_name](obj))
        if not values:
            return
        self._indexed[index_name][key] = values
        index = self._indexes[index_name]
        for value in values:
            keys = index.get(value)
            if keys is None:
                index[value] = key
            elif isinstance(keys, set):
                keys.add(key)
            elif keys != key:
                index[value] = {keys, key}

    def _unindex_one(self, index_name: str, key: _Key) -> None:
        values = self._indexed[index_name].pop(key, None)
        if values is None:
            return
        index = self._indexes[index_name]
        for value in values:
            keys = index.get(value)
            if isinstance(keys, set):
                keys.discard(key)
                if len(keys) == 1:
                    index[value] = keys.pop()
            elif keys == key:
                del index[value]


def _decoded(entry: _Entry | None) -> Obj | None:
    return None if entry is None else _decode(entry[1])


def _encode(obj: Obj) -> bytes:
    """The compact JSON of an object.  An object nested deeper than orjson encodes is kept cut
    at ``nesting.LIMIT`` and marked (``nesting.bounded``); anything else orjson refuses (a key
    that is not a string) is encoded by the standard library instead."""
    try:
        # orjson hands back its whole working buffer (4 KiB for a 2 KiB object): keep a copy
        # of the exact size, or the cache holds twice its bytes.
        return bytes(memoryview(orjson.dumps(obj)))
    except orjson.JSONEncodeError as error:
        if "Recursion" in str(error):
            return orjson.dumps(nesting.bounded(obj))
        return json.dumps(obj, separators=(",", ":")).encode()
