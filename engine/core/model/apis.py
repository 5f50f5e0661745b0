"""What Stencil knows of Kubernetes' built-in API without asking a server.

Where no API server can be asked (``stencil render``, ``stencil rbac``, a scope
before discovery), what the built-in API serves, and each resource's REST plural and
scope, come from one table: ``BUILTIN_RESOURCES``, the discovery of the Kubernetes
version the project builds (``KUBERNETES_VERSION``), shipped as
``engine/schemas/kubernetes-resources.json``.  ``BUILTIN_KINDS`` is the same table by
group and kind, since RBAC names a group and a resource, never a version.  A custom
resource's come from its CRD (``engine.core.offline.admission``).
This is also the one home of how an ``apiVersion`` splits into group and version,
and of which groups are Kubernetes' own (``is_builtin_group``), where no custom
resource can be and so no kind's parent.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

_ADMISSION = "admissionregistration.k8s.io"
RESOURCES_FILE = "kubernetes-resources.json"


def split_api_version(api_version: str) -> tuple[str, str]:
    """``apps/v1`` -> ``("apps", "v1")``; ``v1`` -> ``("", "v1")`` (the core group)."""
    group, _, version = api_version.rpartition("/")
    return group, version


def group_of(api_version: str) -> str:
    """``apps/v1`` -> ``apps``; ``v1`` -> ``""`` (the core group)."""
    return split_api_version(api_version)[0]


def group_kind(obj: Mapping[str, Any]) -> tuple[str, str]:
    """An object's group and kind (``("apps", "Deployment")``): what names its kind in any version."""
    return group_of(str(obj.get("apiVersion") or "")), str(obj.get("kind") or "")


@dataclass(frozen=True)
class BuiltinResource:
    """One resource the pinned Kubernetes version serves by default, as its discovery lists it."""

    api_version: str
    kind: str
    plural: str
    namespaced: bool
    verbs: frozenset[str]


def _read_resources() -> tuple[str, tuple[BuiltinResource, ...]]:
    """The Kubernetes version of ``engine/schemas/kubernetes-resources.json`` and its resources.

    The file is the discovery of the kube-apiserver the project builds (``hack/openapi-snapshot``
    writes it), so every built-in resource's scope is the server's own, never a guess: a kind
    left out of a table kept by hand (StorageClass, say) was placed as a namespaced child.
    """
    raw = resources.files("engine").joinpath("schemas", RESOURCES_FILE).read_text(encoding="utf-8")
    read = json.loads(raw)
    found = tuple(
        BuiltinResource(
            row["apiVersion"], row["kind"], row["plural"], row["namespaced"], frozenset(row["verbs"])
        )
        for row in read["resources"]
    )
    return read["kubernetesVersion"], found


KUBERNETES_VERSION, BUILTIN_RESOURCES = _read_resources()
_BY_API_VERSION: Mapping[tuple[str, str], BuiltinResource] = {
    (resource.api_version, resource.kind): resource for resource in BUILTIN_RESOURCES
}

# (group, kind) -> (plural, namespaced): RBAC names a group and a resource, never a version, and
# a kind's plural and scope are the same in every version of its group that serves it.
BUILTIN_KINDS: Mapping[tuple[str, str], tuple[str, bool]] = {
    (group_of(resource.api_version), resource.kind): (resource.plural, resource.namespaced)
    for resource in BUILTIN_RESOURCES
}


def builtin_is_namespaced(api_version: str, kind: str) -> bool:
    """Scope from the built-in table: every kind not known to be cluster-scoped is namespaced."""
    found = BUILTIN_KINDS.get((group_of(api_version), kind))
    return found[1] if found else True


def builtin_serves(api_version: str, kind: str) -> bool:
    """Whether the pinned version serves ``kind`` in ``api_version`` (by default, as a cluster of it does)."""
    return (api_version, kind) in _BY_API_VERSION


def builtin_versions(group: str, kind: str) -> list[str]:
    """The apiVersions in which the pinned version serves ``kind`` of ``group``, in the table's order."""
    return [
        resource.api_version
        for resource in BUILTIN_RESOURCES
        if resource.kind == kind and group_of(resource.api_version) == group
    ]


# The groups with a dot that Kubernetes serves itself: kube-apiserver's (every one it can
# enable, alpha included) and the metrics APIs Kubernetes defines for add-ons to serve.
_BUILTIN_DOTTED_GROUPS: Final = frozenset(
    {
        _ADMISSION,
        "apiextensions.k8s.io",
        "apiregistration.k8s.io",
        "authentication.k8s.io",
        "authorization.k8s.io",
        "certificates.k8s.io",
        "coordination.k8s.io",
        "custom.metrics.k8s.io",
        "discovery.k8s.io",
        "events.k8s.io",
        "external.metrics.k8s.io",
        "flowcontrol.apiserver.k8s.io",
        "internal.apiserver.k8s.io",
        "metrics.k8s.io",
        "networking.k8s.io",
        "node.k8s.io",
        "rbac.authorization.k8s.io",
        "resource.k8s.io",
        "scheduling.k8s.io",
        "storage.k8s.io",
        "storagemigration.k8s.io",
    }
)


def is_builtin_group(group: str) -> bool:
    """Whether ``group`` is Kubernetes' own, so that no custom resource is in it.

    A CRD's group must hold a dot (the API server refuses one without), so a group
    without one (the core group ``""``, ``apps``, ``batch``, ``autoscaling``,
    ``policy`` …) is never a custom resource's.  Of the dotted groups Kubernetes'
    own are listed: a rule on the ``.k8s.io`` suffix would also catch the custom
    groups under it (Gateway API's ``gateway.networking.k8s.io``, the Network's
    ``samplecrd.k8s.io``), which are CRDs a kind may well own.
    """
    return "." not in group or group in _BUILTIN_DOTTED_GROUPS


def unownable_parent(api_version: str, kind: str) -> str | None:
    """Why ``kind`` of ``api_version`` cannot be a kind's parent, or None when it can."""
    group = group_of(api_version)
    if not is_builtin_group(group):
        return None
    where = f"the {group} group" if group else "the core group"
    return (
        f"{kind} ({api_version}) is built into Kubernetes ({where}): a parent is a custom resource "
        f"the kind owns, served from its CRD, not a way to attach to objects it does not own "
        f"(every {kind} in the cluster would be reconciled and have conditions written into its "
        f"status); read such objects with references:"
    )
