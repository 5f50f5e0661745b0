"""On the local plane a PersistentVolumeClaim that names no class is given the default one,
``standard``, and bound to a volume made for it at once, as on kind or minikube; deleting the
claim deletes its volume, as the class's reclaim policy says."""

from __future__ import annotations

from typing import Any

from engine.runtime.cluster.kube import Kube
from tests.integration._engine import eventually


def phase(obj: dict[str, Any] | None) -> str | None:
    return ((obj or {}).get("status") or {}).get("phase")


def test_a_claim_is_bound_to_a_volume_of_its_own_that_is_deleted_with_it(kube: Kube, namespace: str) -> None:
    claims = kube.resource("v1", "PersistentVolumeClaim")
    volumes = kube.resource("v1", "PersistentVolume")
    classes = kube.resource("storage.k8s.io/v1", "StorageClass")
    default = kube.get(classes, "standard")
    assert default is not None, "the local plane has no StorageClass standard"
    assert default["metadata"]["annotations"]["storageclass.kubernetes.io/is-default-class"] == "true"

    kube.create(
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": "data", "namespace": namespace},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "2Gi"}}},
        }
    )

    def bound() -> dict[str, Any] | None:
        claim = kube.get(claims, "data", namespace)
        return claim if phase(claim) == "Bound" else None

    claim = eventually(bound, what="claim data to be Bound")

    assert claim["spec"]["storageClassName"] == "standard"
    volume = kube.get(volumes, claim["spec"]["volumeName"])
    assert volume is not None
    assert phase(volume) == "Bound"
    assert volume["spec"]["claimRef"]["uid"] == claim["metadata"]["uid"]
    assert volume["spec"]["capacity"]["storage"] == "2Gi"
    assert volume["spec"]["accessModes"] == ["ReadWriteOnce"]
    assert volume["spec"]["persistentVolumeReclaimPolicy"] == "Delete"

    kube.delete(claims, "data", namespace)
    eventually(
        lambda: kube.get(volumes, volume["metadata"]["name"]) is None,
        what=f"volume {volume['metadata']['name']} to be deleted with its claim",
    )
