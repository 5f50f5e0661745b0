"""On the local plane a Deployment's pods are scheduled onto kwok nodes and it becomes Available."""

from __future__ import annotations

from typing import Any

from engine.runtime.cluster.kube import Kube
from tests._deadlines import eventually


def available(deployment: dict[str, Any] | None) -> dict[str, Any] | None:
    conditions = ((deployment or {}).get("status") or {}).get("conditions", [])
    if any(c["type"] == "Available" and c["status"] == "True" for c in conditions):
        return deployment
    return None


def test_a_deployment_reaches_available_with_its_pods_running_on_a_node(kube: Kube, namespace: str) -> None:
    labels = {"app": "web"}
    deployments = kube.resource("apps/v1", "Deployment")
    kube.apply(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web", "namespace": namespace},
            "spec": {
                "replicas": 2,
                "selector": {"matchLabels": labels},
                "template": {
                    "metadata": {"labels": labels},
                    "spec": {"containers": [{"name": "web", "image": "nginx"}]},
                },
            },
        }
    )

    done = eventually(
        lambda: available(kube.get(deployments, "web", namespace)),
        what="Deployment web to become Available",
    )

    assert done["status"]["readyReplicas"] == 2
    pods, _ = kube.list(kube.resource("v1", "Pod"), namespace, label_selector="app=web")
    nodes = {n["metadata"]["name"] for n in kube.list(kube.resource("v1", "Node"))[0]}
    assert len(pods) == 2
    for pod in pods:
        assert pod["spec"]["nodeName"] in nodes
        assert pod["status"]["phase"] == "Running"
