"""The engine keeps children as rendered: spec changes, hand edits, deletions, parent deletion."""

from __future__ import annotations

import time
from typing import Any

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import ROOT, eventually, running_engine

NAME = "web"
SPEC = {"image": "nginx:1.27", "replicas": 1, "exposed_port": 8080}


def parent(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "operator.wujiuye.com/v1beta1",
        "kind": "DeployWebService",
        "metadata": {"name": NAME},
        "spec": {**SPEC, **spec},
    }


def test_children_follow_the_spec_and_hand_edits_are_undone(
    kube: Kube, namespace: str, dws: Resource
) -> None:
    deployments = kube.resource("apps/v1", "Deployment")
    services = kube.resource("v1", "Service")
    deployment_path = deployments.path(namespace, f"{NAME}-deployment")

    def replicas() -> int | None:
        obj = kube.get(deployments, f"{NAME}-deployment", namespace)
        return obj["spec"]["replicas"] if obj else None

    with running_engine(kube, ROOT / "templates", namespace):
        manifests.apply_all(kube, [parent()], namespace)
        eventually(lambda: replicas() == 1, what="the Deployment")

        # The spec changes: the Deployment follows.
        manifests.apply_all(kube, [parent(replicas=3)], namespace)
        eventually(lambda: replicas() == 3, what="replicas to follow spec.replicas")

        # A hand edit of a rendered field is undone, within seconds.
        kube.request(
            "PATCH",
            deployment_path,
            {"spec": {"replicas": 7}},
            query={"fieldManager": "kubectl-edit"},
            content_type="application/merge-patch+json",
        )
        edited = time.monotonic()
        eventually(lambda: replicas() == 3, what="the hand edit to be undone")
        assert time.monotonic() - edited < 5

        # A child deleted by mistake is recreated.
        old_uid = kube.get(services, f"{NAME}-service", namespace)["metadata"]["uid"]  # type: ignore[index]
        kube.delete(services, f"{NAME}-service", namespace)
        recreated = eventually(
            lambda: (
                (s := kube.get(services, f"{NAME}-service", namespace))
                and s["metadata"]["uid"] != old_uid
                and s
            ),
            what="the Service to be recreated",
        )
        assert recreated["metadata"]["ownerReferences"][0]["name"] == NAME

    # Deleting the parent garbage-collects its children (owner references; no engine needed).
    kube.delete(dws, NAME, namespace)
    eventually(
        lambda: (
            kube.get(deployments, f"{NAME}-deployment", namespace) is None
            and kube.get(services, f"{NAME}-service", namespace) is None
        ),
        what="children to be garbage-collected",
    )
