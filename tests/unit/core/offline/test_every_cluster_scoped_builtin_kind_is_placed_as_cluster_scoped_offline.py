"""Offline, a built-in kind's scope is the pinned Kubernetes version's own (its discovery, shipped as a
table): a cluster-scoped kind such as StorageClass, VolumeAttributesClass or ServiceCIDR is refused as a
child unless kind.yaml allows cluster-scoped children, placed without a namespace or owner when it does,
and refused with a namespace, as the engine does live; a namespaced one lands in the parent's namespace."""

from __future__ import annotations

import pytest

from engine.core.model import apis
from engine.core.model.errors import PlacementError
from engine.core.model.kinds import Placement
from engine.core.offline import admission
from engine.core.templating import rendering
from tests.unit import _kinds

CLUSTER_SCOPED = [
    ("storage.k8s.io/v1", "StorageClass"),
    ("scheduling.k8s.io/v1", "PriorityClass"),
    ("networking.k8s.io/v1", "IngressClass"),
    ("node.k8s.io/v1", "RuntimeClass"),
    ("storage.k8s.io/v1", "CSIDriver"),
    ("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy"),
    ("v1", "Namespace"),
    ("v1", "PersistentVolume"),
    ("rbac.authorization.k8s.io/v1", "ClusterRole"),
    ("storage.k8s.io/v1", "VolumeAttributesClass"),
    ("networking.k8s.io/v1", "ServiceCIDR"),
    ("networking.k8s.io/v1", "IPAddress"),
    ("resource.k8s.io/v1", "DeviceClass"),
    ("resource.k8s.io/v1", "ResourceSlice"),
]
NAMESPACED = [
    ("v1", "PodTemplate"),
    ("storage.k8s.io/v1", "CSIStorageCapacity"),
    ("resource.k8s.io/v1", "ResourceClaim"),
]
ALLOWED = Placement(cluster_scoped=True, rbac=True)


def template(api_version: str, kind: str, metadata: str = "") -> str:
    return f"apiVersion: {api_version}\nkind: {kind}\nmetadata:\n  name: '{{{{ name }}}}-x'\n{metadata}"


@pytest.mark.parametrize(("api_version", "kind"), CLUSTER_SCOPED)
def test_the_kind_is_cluster_scoped_offline(api_version: str, kind: str) -> None:
    assert (api_version, kind) in {(r.api_version, r.kind) for r in apis.BUILTIN_RESOURCES}
    assert not apis.builtin_is_namespaced(api_version, kind)
    assert not admission.OfflineCrds([]).is_namespaced(api_version, kind)


@pytest.mark.parametrize(("api_version", "kind"), CLUSTER_SCOPED)
def test_a_child_of_the_kind_is_refused_unless_cluster_scoped_children_are_allowed(
    api_version: str, kind: str
) -> None:
    with pytest.raises(PlacementError, match=r"cluster-scoped objects are refused unless kind\.yaml"):
        rendering.render(
            _kinds.kind(template(api_version, kind), placement=Placement(rbac=True)), _kinds.parent(), []
        )


@pytest.mark.parametrize(("api_version", "kind"), CLUSTER_SCOPED)
def test_an_allowed_child_of_the_kind_has_no_namespace_and_no_owner(api_version: str, kind: str) -> None:
    [child] = rendering.render(
        _kinds.kind(template(api_version, kind), placement=ALLOWED), _kinds.parent(), []
    )

    assert "namespace" not in child["metadata"]
    assert "ownerReferences" not in child["metadata"]  # a namespaced parent cannot own it


@pytest.mark.parametrize(("api_version", "kind"), CLUSTER_SCOPED)
def test_a_child_of_the_kind_naming_a_namespace_is_refused(api_version: str, kind: str) -> None:
    kind_ = _kinds.kind(template(api_version, kind, "  namespace: ns\n"), placement=ALLOWED)

    with pytest.raises(PlacementError, match=f"{kind} is cluster-scoped and cannot have a namespace"):
        rendering.render(kind_, _kinds.parent(), [])


@pytest.mark.parametrize(("api_version", "kind"), NAMESPACED)
def test_a_namespaced_builtin_kind_lands_in_the_parents_namespace(api_version: str, kind: str) -> None:
    [child] = rendering.render(_kinds.kind(template(api_version, kind)), _kinds.parent(namespace="shop"), [])

    assert child["metadata"]["namespace"] == "shop"
