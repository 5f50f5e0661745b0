"""Patches: named fields of objects a kind does not own (``patch: true`` on a ``templates:`` entry).

A patch template renders an object that already exists (a Namespace to label, a ConfigMap
another team made) with only the fields the kind sets on it.  The engine server-side applies
those fields with a field manager of the parent's own (``manager``): they are the parent's
and no one else's, so a field the template stops naming is removed, and when the parent goes
every field it set goes with it; a field another writer holds with another value is a conflict
(``PatchConflict``), never taken by force.  Nothing else of the object is touched, it gets no
owner reference and no Stencil label, and the engine never creates it: a missing one is
waited for.

A patch is placed like a child (``engine.core.model.children.placement``): in the parent's namespace
unless ``placement:`` allows another, cluster-scoped only with ``placement.clusterScoped``,
never in a namespace off limits; of a kind its templates spell out, which ``stencil rbac``
grants ``get`` and ``patch`` alone.  Its metadata may name only labels and annotations, never
Stencil's own labels (which would make the object pass for a child of the parent), and it has
no status.

What a parent has patched is recorded on the parent (``ANNOTATION``: each target with the
digest of what was applied), written before a new target is patched, so that an engine
restarted meanwhile still knows what to remove.  Whether a target still holds a patch is the
server's to say: the fields its manager holds there (``fields_of``), not a comparison of values.
A record is a tenant's to edit: each entry is placed again before anything is removed through it.
Everything here is pure.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Container, Mapping
from typing import Any

from engine.core.model import kinds
from engine.core.model.children import placement
from engine.core.model.errors import PlacementError, RenderError
from engine.core.model.identity import ChildId
from engine.core.model.objects import Obj

ANNOTATION = "stencil.dev/patches"  # on the parent: what it has patched, and the digest of each
MANAGER_PREFIX = "stencil-patch/"
_MANAGER_MAX = 128  # a field manager's name, at most
_METADATA = ("name", "namespace", "labels", "annotations")
_STENCIL_KEYS = ("stencil.dev/", placement.MANAGED_BY_LABEL)


class PatchConflict(RenderError):
    """A field the patch names is held by another writer with another value."""

    reason = "PatchConflict"
    terminal = False
    retry_after = 30.0


class PatchTargetMissing(RenderError):
    """The object a patch names does not exist; the engine never creates it."""

    reason = "PatchTargetMissing"
    terminal = False
    retry_after = 10.0


def manager(kind_name: str, parent: Mapping[str, Any]) -> str:
    """The field manager of ``parent``'s patches: ``stencil-patch/<kind>/<namespace>/<name>``, a
    prefix and a hash of it when that is over 128 characters."""
    meta = parent.get("metadata") or {}
    whole = f"{MANAGER_PREFIX}{kind_name}/{meta.get('namespace') or ''}/{meta.get('name') or ''}"
    if len(whole) <= _MANAGER_MAX:
        return whole
    digest_ = hashlib.sha256(whole.encode()).hexdigest()[:16]
    return f"{whole[: _MANAGER_MAX - len(digest_) - 1]}-{digest_}"


def place(
    document: Any,
    owner: placement.Owner,
    kind: kinds.Kind,
    is_namespaced: Callable[[str, str], bool],
    file: str,
    patch_kinds: Container[tuple[str, str]],
) -> Obj:
    """A rendered patch checked and given its namespace: where a child of the parent could be, of a
    kind the templates spell out, naming only fields the kind may set on an object it does not own.
    A refusal is a ``PlacementError`` naming ``file``, the patch template's."""
    metadata = placement.checked_metadata(document, file)
    api_version, target_kind, name = document["apiVersion"], document["kind"], metadata["name"]
    what = f"the patch of {target_kind} {name!r}"

    def refuse(message: str, field: str | None = None) -> PlacementError:
        return PlacementError(f"{what}: {message}", file=file, field=field)

    if (api_version, target_kind) not in patch_kinds:
        raise refuse(
            f"{target_kind} ({api_version}) is not spelled out in a patch template, so the engine was "
            "given no right to patch it; spell apiVersion and kind out",
            "kind",
        )
    for key in metadata:
        if key not in _METADATA:
            raise refuse(f"metadata.{key}: a patch names only labels and annotations", f"metadata.{key}")
    for key in ("labels", "annotations"):
        for name_ in metadata.get(key) or {}:
            if str(name_).startswith(_STENCIL_KEYS):
                problem = f"metadata.{key}: {name_!r} is Stencil's own, set on children only"
                raise refuse(problem, f"metadata.{key}")
    if "status" in document:
        raise refuse("a patch never writes an object's status", "status")
    if kind.decorates is not None:  # a decorator patches the labels and annotations of its object alone
        fields = sorted(k for k in document if k not in ("apiVersion", "kind", "metadata"))
        if fields:
            raise refuse(f"{fields[0]}: a decorator patches only labels and annotations", fields[0])
        named = ChildId.of(
            {**document, "metadata": {**metadata, "namespace": metadata.get("namespace") or owner.namespace}}
        )
        if named != ChildId.at(owner.api_version, owner.kind, owner.namespace or "", owner.name):
            raise refuse("a decorator patches only the object it decorates", "metadata.name")
    namespace = placement.namespace_of(
        api_version, target_kind, metadata, owner, kind.placement, is_namespaced, refuse
    )
    placed: Obj = {"name": name, **({"namespace": namespace} if namespace else {})}
    placed.update((k, metadata[k]) for k in ("labels", "annotations") if k in metadata)
    rest = {k: v for k, v in document.items() if k not in ("apiVersion", "kind", "metadata")}
    return {"apiVersion": api_version, "kind": target_kind, "metadata": placed, **rest}


def digest(patch: Mapping[str, Any]) -> str:
    """What a patch applies, as a short digest: changes when any field it names or sets changes."""
    return hashlib.sha256(json.dumps(patch, sort_keys=True, default=str).encode()).hexdigest()[:16]


def key(patch: Mapping[str, Any]) -> str:
    """A target as its record entry names it: ``apiVersion/kind/namespace/name`` (no namespace: empty)."""
    meta = patch.get("metadata") or {}
    return "/".join((str(patch["apiVersion"]), str(patch["kind"]), meta.get("namespace") or "", meta["name"]))


def target_of(entry: str) -> Obj | None:
    """The object a record entry names, as a patch that sets nothing; None if it names none."""
    parts = entry.split("/")
    if len(parts) not in (4, 5):  # apiVersion is version, or group/version
        return None
    *version, target_kind, namespace, name = parts
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {"apiVersion": "/".join(version), "kind": target_kind, "metadata": meta}


def record(parent: Mapping[str, Any]) -> dict[str, str]:
    """What ``parent`` has patched, as its record says: each target's key and the digest applied
    ("" while an apply may be under way).  A record that does not parse is read as empty."""
    text = ((parent.get("metadata") or {}).get("annotations") or {}).get(ANNOTATION)
    try:
        found = json.loads(text) if text else {}
    except ValueError:
        return {}
    if not isinstance(found, dict):
        return {}
    return {str(k): str(v) for k, v in found.items()}


def record_patch(parent: Mapping[str, Any], entries: Mapping[str, str]) -> list[Obj] | None:
    """A compare-and-swap JSON patch writing ``entries`` as the parent's record; None if it is so."""
    meta = parent["metadata"]
    if record(parent) == dict(entries) and (entries or ANNOTATION not in (meta.get("annotations") or {})):
        return None
    test = {"op": "test", "path": "/metadata/resourceVersion", "value": meta["resourceVersion"]}
    path = "/metadata/annotations/" + ANNOTATION.replace("~", "~0").replace("/", "~1")
    if not entries:
        return [test, {"op": "remove", "path": path}]
    value = json.dumps(dict(sorted(entries.items())), separators=(",", ":"))
    if not meta.get("annotations"):
        return [test, {"op": "add", "path": "/metadata/annotations", "value": {ANNOTATION: value}}]
    return [test, {"op": "add", "path": path, "value": value}]


def named(patch: Mapping[str, Any] | None) -> set[tuple[str, str]]:
    """The labels and annotations a decorator's patch sets, as ``(labels|annotations, key)``."""
    meta = (patch or {}).get("metadata") or {}
    return {(section, str(k)) for section in ("labels", "annotations") for k in meta.get(section) or {}}


def fields_of(obj: Mapping[str, Any], manager_: str) -> dict[str, Any] | None:
    """What ``manager_`` holds of ``obj`` (its applied ``fieldsV1``), as the server says in
    managedFields; None when it holds nothing there."""
    for entry in (obj.get("metadata") or {}).get("managedFields") or ():
        if (
            isinstance(entry, Mapping)
            and entry.get("manager") == manager_
            and entry.get("operation") == "Apply"
        ):
            return dict(entry.get("fieldsV1") or {})
    return None


def held(fields: Mapping[str, Any] | None) -> set[tuple[str, str]]:
    """The labels and annotations a manager's ``fields`` (``fields_of``) hold, as
    ``(labels|annotations, key)``."""
    meta = (fields or {}).get("f:metadata") or {}
    sections = ("labels", "annotations")
    return {(s, k[2:]) for s in sections for k in meta.get(f"f:{s}") or {} if k.startswith("f:")}
