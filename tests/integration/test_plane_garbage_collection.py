"""The local plane's controller-manager garbage-collects a dependent once its owner is deleted."""

from __future__ import annotations

from engine.runtime.cluster.kube import Kube
from tests._deadlines import eventually


def test_deleting_an_owner_garbage_collects_its_dependent(kube: Kube, namespace: str) -> None:
    config_maps = kube.resource("v1", "ConfigMap")
    owner = kube.create(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "owner", "namespace": namespace}}
    )
    kube.create(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": "dependent",
                "namespace": namespace,
                "ownerReferences": [
                    {
                        "apiVersion": "v1",
                        "kind": "ConfigMap",
                        "name": "owner",
                        "uid": owner["metadata"]["uid"],
                    }
                ],
            },
        }
    )

    assert kube.delete(config_maps, "owner", namespace, propagation="Background")

    eventually(
        lambda: kube.get(config_maps, "dependent", namespace) is None,
        what="the dependent ConfigMap to be garbage-collected",
    )
