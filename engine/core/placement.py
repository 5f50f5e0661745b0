"""Placement: where a rendered child lands, and what it carries back to its parent.

The engine, not the template, decides placement: a child lands in its parent's
namespace; another namespace, a cluster-scoped kind or an RBAC kind is a
``PlacementError`` unless ``kind.yaml`` allows it (``placement:``).  Every child
gets Stencil's labels (managed-by, kind, the parent's name, namespace and uid) and,
where Kubernetes permits one, a controller owner reference to its parent.  This
module is also the one home of the labels' names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.core import apis, kinds
from engine.core.errors import PlacementError, RenderError

# -- what every child carries -----------------------------------------------------

MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"
MANAGED_BY_VALUE = "stencil"
KIND_LABEL = "stencil.dev/kind"
PARENT_NAME_LABEL = "stencil.dev/parent-name"
PARENT_NAMESPACE_LABEL = "stencil.dev/parent-namespace"  # absent for cluster-scoped parents
PARENT_UID_LABEL = "stencil.dev/parent-uid"

# Offline (``stencil render``) a parent has no uid yet; a fixed one keeps the output stable.
NO_UID = "00000000-0000-0000-0000-000000000000"

RBAC_GROUP = "rbac.authorization.k8s.io"
RBAC_KINDS = frozenset({"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"})

# -- placement ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Owner:
    """The parent, as its children refer to it."""

    api_version: str
    kind: str
    name: str
    namespace: str | None  # None: cluster-scoped
    uid: str

    @classmethod
    def of(cls, kind: kinds.Kind, parent: Mapping[str, Any]) -> Owner:
        metadata = parent.get("metadata")
        if parent.get("apiVersion") != kind.api_version or parent.get("kind") != kind.kind:
            raise RenderError(
                f"this kind folder serves {kind.kind} ({kind.api_version}), "
                f"not {parent.get('kind')} ({parent.get('apiVersion')})",
                file=str(kind.directory / kinds.KIND_FILE), field="parent",
            )
        if not isinstance(metadata, Mapping) or not _nonempty(metadata.get("name")):
            raise RenderError("the parent has no metadata.name", field="metadata.name")
        return cls(
            api_version=kind.api_version,
            kind=kind.kind,
            name=metadata["name"],
            namespace=metadata.get("namespace") or None,
            uid=metadata.get("uid") or NO_UID,
        )

    def reference(self) -> dict[str, Any]:
        return {
            "apiVersion": self.api_version,
            "kind": self.kind,
            "name": self.name,
            "uid": self.uid,
            "controller": True,
            "blockOwnerDeletion": True,
        }

    def labels(self, kind_name: str) -> dict[str, str]:
        labels = {MANAGED_BY_LABEL: MANAGED_BY_VALUE, KIND_LABEL: kind_name, PARENT_NAME_LABEL: self.name}
        if self.namespace is not None:
            labels[PARENT_NAMESPACE_LABEL] = self.namespace
        labels[PARENT_UID_LABEL] = self.uid
        return labels


def _nonempty(value: Any) -> bool:
    return isinstance(value, str) and bool(value)


def describe(child: Mapping[str, Any]) -> str:
    meta = child.get("metadata") or {}
    where = f"{meta['namespace']}/" if meta.get("namespace") else ""
    return f"{child.get('kind')} {where}{meta.get('name')}"


def place(
    document: Any, owner: Owner, kind: kinds.Kind, is_namespaced: Callable[[str, str], bool],
    template: kinds.Template,
) -> dict[str, Any]:
    """Check a rendered document and give it its namespace, labels and owner reference."""
    file = str(template.path)
    if not isinstance(document, dict):
        raise RenderError(f"a rendered document must be a mapping, not {type(document).__name__}", file=file)
    for key in ("apiVersion", "kind"):
        if not _nonempty(document.get(key)):
            raise RenderError("a rendered document has no " + key, file=file, field=key)
    metadata = document.get("metadata")
    if not isinstance(metadata, dict) or not _nonempty(metadata.get("name")):
        raise RenderError(f"a rendered {document['kind']} has no metadata.name", file=file,
                          field="metadata.name")
    api_version, child_kind, name = document["apiVersion"], document["kind"], metadata["name"]
    what = f"{child_kind} {name}"
    for key, expected in (("namespace", str), ("labels", dict)):
        if key in metadata and not isinstance(metadata[key], expected):
            raise RenderError(f"{what}: metadata.{key} must be a {expected.__name__}", file=file,
                              field=f"metadata.{key}")
    if "ownerReferences" in metadata:
        raise RenderError(f"{what}: owner references are set by Stencil, not by templates", file=file,
                          field="metadata.ownerReferences")
    placement = kind.placement

    def refuse(message: str, field: str | None = None) -> PlacementError:
        return PlacementError(f"{what}: {message}", file=file, field=field)

    if apis.group_of(api_version) == RBAC_GROUP and child_kind in RBAC_KINDS and not placement.rbac:
        raise refuse("RBAC objects are refused unless kind.yaml allows them (placement.rbac: true)")
    namespace: str | None = metadata.get("namespace") or None
    if not is_namespaced(api_version, child_kind):
        if not placement.cluster_scoped:
            raise refuse("cluster-scoped objects are refused unless kind.yaml allows them "
                         "(placement.clusterScoped: true)")
        if namespace is not None:
            raise refuse(f"{child_kind} is cluster-scoped and cannot have a namespace", "metadata.namespace")
        owned = owner.namespace is None  # a namespaced owner cannot own a cluster-scoped object
    else:
        if namespace is None:
            if owner.namespace is None:
                raise refuse("the parent is cluster-scoped, so its namespaced children must name "
                             "their namespace", "metadata.namespace")
            namespace = owner.namespace
        elif namespace != owner.namespace and "*" not in placement.namespaces and (
            namespace not in placement.namespaces
        ):
            allowed = ", ".join(placement.namespaces) or "none"
            raise refuse(f"namespace {namespace!r} is not allowed (placement.namespaces: {allowed}; "
                         "the parent's own namespace always is)", "metadata.namespace")
        # Owner references cannot cross namespaces; such children are tied to the parent by labels only.
        owned = owner.namespace is None or namespace == owner.namespace

    placed_meta: dict[str, Any] = {"name": name}
    if namespace is not None:
        placed_meta["namespace"] = namespace
    placed_meta.update((k, v) for k, v in metadata.items() if k not in ("name", "namespace", "labels"))
    placed_meta["labels"] = {**metadata.get("labels", {}), **owner.labels(kind.name)}
    if owned:
        placed_meta["ownerReferences"] = [owner.reference()]
    rest = {k: v for k, v in document.items() if k not in ("apiVersion", "kind", "metadata")}
    return {"apiVersion": api_version, "kind": child_kind, "metadata": placed_meta, **rest}
