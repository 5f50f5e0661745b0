"""Who holds a child's fields, as the API server says in ``managedFields``: drift asked of the server.

Server-side apply records, for every field manager, the set of fields it holds
(``metadata.managedFields[].fieldsV1``).  A field Stencil applied stays in its set
until another writer changes its value (an update, or an apply with force, moves the
field to that writer) or removes it.  So "does the child still hold what the engine
applied?" is answered by the server's own bookkeeping, not by comparing rendered text
with live text, which the server never returns as written:

- write-only fields (a Secret's ``stringData``) are stored as other fields;
- nulls and empty maps or lists are dropped, defaults filled in;
- quantities (``500m`` and ``0.5``) and int-or-string values are stored in a canonical form;
- admission and other managers add items to lists (the ServiceAccount plugin's
  ``kube-api-access-…`` volume and its mounts).

None of these moves a field out of Stencil's set, so none of them is drift; a value
another writer puts in its place is.  ``taken(fields, desired)`` lists the rendered
fields that the engine's set no longer holds, matching list items by the keys the
server records them under (``k:{"name":"web"}``, ``v:"value"``), never by position.

The cache keeps of every object only the engine's own applied set (``kept``), a few
hundred bytes a child; an object with no ``managedFields`` at all (one read from a file,
or from a server double that keeps none) has nothing to ask, and is compared by value
(``planning.contains``) instead.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from engine.core.model.children.patches import MANAGER_PREFIX

# The one field manager of every write the engine makes (changing it would orphan the
# fields of every object it manages).
FIELD_MANAGER = "stencil"

Path = tuple[str | int, ...]
Fields = Mapping[str, Any]  # a ``fieldsV1`` tree: "f:name", "k:{...}", "v:...", "i:N", "."

# Identity is not a field a manager holds: the server leaves these out of every set.
_IDENTITY = ("name", "namespace", "uid", "resourceVersion", "generateName")


def kept(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` with its ``managedFields`` cut down, in place, to the engine's own applied set:
    one entry holding ``fieldsV1`` alone, or none (an empty list) when the engine applied nothing;
    and the sets of the parents' patch managers, if any."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or meta.get("managedFields") is None:
        return obj
    fields = applied(obj)
    entry = {"manager": FIELD_MANAGER, "operation": "Apply", "fieldsV1": fields}
    patched = [  # what a decorator's patch holds of the object it decorates (``patches.held``)
        {"manager": e["manager"], "operation": "Apply", "fieldsV1": e.get("fieldsV1") or {}}
        for e in meta["managedFields"]
        if isinstance(e, Mapping) and str(e.get("manager", "")).startswith(MANAGER_PREFIX)
    ]
    meta["managedFields"] = ([entry] if fields else []) + patched
    return obj


def applied(obj: Mapping[str, Any]) -> dict[str, Any] | None:
    """The fields the engine's ``Apply`` entries hold in ``obj`` (the object itself, not a
    subresource); None when the object carries no ``managedFields``, {} when none is the engine's."""
    entries = (obj.get("metadata") or {}).get("managedFields")
    if entries is None:
        return None
    ours = [
        entry.get("fieldsV1") or {}
        for entry in entries
        if isinstance(entry, Mapping)
        and entry.get("manager") == FIELD_MANAGER
        and entry.get("operation") == "Apply"
        and not entry.get("subresource")
    ]
    if len(ours) == 1:  # the usual case: one entry, taken as it is
        return dict(ours[0])
    union: dict[str, Any] = {}
    for fields in ours:
        _merge(union, fields)
    return union


def _merge(into: dict[str, Any], fields: Fields) -> None:
    for key, sub in fields.items():
        if isinstance(sub, Mapping):
            _merge(into.setdefault(key, {}), sub)


def taken(fields: Fields, desired: Mapping[str, Any]) -> list[Path]:
    """The paths of ``desired``'s values that ``fields`` (the engine's applied set) no longer
    holds: what another writer changed or removed since the engine applied them."""
    meta = {k: v for k, v in (desired.get("metadata") or {}).items() if k not in _IDENTITY}
    body = {k: v for k, v in desired.items() if k not in ("apiVersion", "kind", "metadata")}
    return list(_taken(fields, {**body, "metadata": meta}, ()))


def _asks(value: Any) -> bool:
    """Whether a rendered value asks the server to hold anything: nulls and empty maps and
    lists are dropped by the server, so nobody can take them."""
    return value is not None and value != {} and value != []


def _taken(fields: Fields, desired: Any, path: Path) -> Iterator[Path]:
    if not fields and path:  # a leaf, or a field held whole (an atomic map or list): all of it
        return
    if isinstance(desired, Mapping):
        for key, value in desired.items():
            if not _asks(value):
                continue
            sub = fields.get(f"f:{key}")
            if sub is None:
                yield (*path, str(key))
            else:
                yield from _taken(sub, value, (*path, str(key)))
    elif isinstance(desired, list):
        yield from _taken_items(fields, desired, path)


def _taken_items(fields: Fields, items: list[Any], path: Path) -> Iterator[Path]:
    """A granular list's items, each found by the key the server files it under."""
    keys = [key for key in fields if key != "."]
    used: set[str] = set()
    for index, item in enumerate(items):
        if item is None:
            continue
        key = next((k for k in keys if k not in used and _is_item(k, item, index)), None)
        if key is None:
            yield (*path, index)
            continue
        used.add(key)
        yield from _taken(fields[key], item, (*path, index))


def _is_item(key: str, item: Any, index: int) -> bool:
    """Whether ``key`` of a list's field set names ``item`` (at ``index``).  A key field the item
    leaves out is one the server filled with its default, which the rendered item cannot
    contradict (``protocol: TCP`` of a port)."""
    kind, _, text = key.partition(":")
    if kind == "i":
        return text == str(index)
    try:
        value = json.loads(text)
    except ValueError:
        return False
    if kind == "v":
        return bool(value == item)
    if kind == "k" and isinstance(value, Mapping) and isinstance(item, Mapping):
        return all(field not in item or item[field] == wanted for field, wanted in value.items())
    return False
