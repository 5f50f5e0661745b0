"""On the local plane a StatefulSet with ``volumeClaimTemplates`` reaches all its replicas Ready:
each pod's claim is bound to a volume made for it, and the scheduler places the pod on a kwok node
(the volumes have no node affinity), where kwok makes it Running and Ready."""

from __future__ import annotations

from typing import Any

from engine.runtime.cluster.kube import Kube
from tests.integration._engine import eventually


def test_a_statefulset_of_two_with_claim_templates_reaches_two_ready_replicas(
    kube: Kube, namespace: str
) -> None:
    labels = {"app": "db"}
    statefulsets = kube.resource("apps/v1", "StatefulSet")
    kube.create(
        {
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "metadata": {"name": "db", "namespace": namespace},
            "spec": {
                "replicas": 2,
                "serviceName": "db",
                "selector": {"matchLabels": labels},
                "template": {
                    "metadata": {"labels": labels},
                    "spec": {
                        "containers": [
                            {
                                "name": "db",
                                "image": "postgres:17",
                                "volumeMounts": [{"name": "data", "mountPath": "/var/lib/postgresql"}],
                            }
                        ]
                    },
                },
                "volumeClaimTemplates": [
                    {
                        "metadata": {"name": "data"},
                        "spec": {
                            "accessModes": ["ReadWriteOnce"],
                            "resources": {"requests": {"storage": "1Gi"}},
                        },
                    }
                ],
            },
        }
    )

    def ready_replicas() -> int:
        return int(
            ((kube.get(statefulsets, "db", namespace) or {}).get("status") or {}).get("readyReplicas", 0)
        )

    eventually(lambda: ready_replicas() == 2, what="StatefulSet db to have 2 ready replicas")

    claims, _ = kube.list(kube.resource("v1", "PersistentVolumeClaim"), namespace)
    assert sorted(c["metadata"]["name"] for c in claims) == ["data-db-0", "data-db-1"]
    assert all(c["status"]["phase"] == "Bound" for c in claims)
    pods: list[dict[str, Any]] = kube.list(kube.resource("v1", "Pod"), namespace, label_selector="app=db")[0]
    nodes = {n["metadata"]["name"] for n in kube.list(kube.resource("v1", "Node"))[0]}
    assert len(pods) == 2
    for pod in pods:
        assert pod["spec"]["nodeName"] in nodes
        assert pod["status"]["phase"] == "Running"
