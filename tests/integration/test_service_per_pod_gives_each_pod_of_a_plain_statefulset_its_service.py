"""Metacontroller's service-per-pod, as two decorator kinds (examples/decorators), on a plain
StatefulSet the StatefulSet controller runs: each of its Pods is labelled with its own name as the
pod-name-label kind's field manager, beside the labels the controller keeps, and gets a Service
owned by the StatefulSet that selects it and it alone.  Scaled down, the Services of the Pods gone
are pruned; a StatefulSet that does not ask gets none; neither the StatefulSet's nor a Pod's status
is written."""

from __future__ import annotations

import copy

import pytest
import yaml

from engine.runtime.cluster.kube import Kube
from tests.integration._engine import ROOT, eventually, running_engine

pytestmark = pytest.mark.nodes

DECORATORS = ROOT / "examples" / "decorators"


def test_service_per_pod_gives_each_pod_of_a_plain_statefulset_its_service(
    kube: Kube, namespace: str
) -> None:
    statefulsets, services = kube.resource("apps/v1", "StatefulSet"), kube.resource("v1", "Service")
    pods = kube.resource("v1", "Pod")
    asking = yaml.safe_load((DECORATORS / "service-per-pod" / "examples" / "nginx.yaml").read_text())
    asking["metadata"]["namespace"] = namespace
    plain = copy.deepcopy(asking)
    plain["metadata"] = {"name": "plain", "namespace": namespace}
    plain["spec"]["template"]["metadata"]["annotations"] = {}
    plain["spec"]["selector"]["matchLabels"] = plain["spec"]["template"]["metadata"]["labels"] = {
        "app": "plain"
    }
    plain["spec"]["replicas"] = 1

    with running_engine(kube, DECORATORS, namespace):
        made = kube.create(asking)
        kube.create(plain)

        def served() -> bool:
            for ordinal in range(3):
                service = kube.get(services, f"nginx-{ordinal}", namespace)
                pod = kube.get(pods, f"nginx-{ordinal}", namespace)
                if (
                    service is None
                    or pod is None
                    or pod["metadata"]["labels"].get("pod-name") != f"nginx-{ordinal}"
                ):
                    return False
            return True

        eventually(served, timeout=120, what="a Service and a label for each of the three Pods")
        for ordinal in range(3):
            service = kube.get(services, f"nginx-{ordinal}", namespace)
            assert service["spec"]["selector"] == {"pod-name": f"nginx-{ordinal}"}, service["spec"]
            (owner,) = service["metadata"]["ownerReferences"]
            assert owner["uid"] == made["metadata"]["uid"], owner
            pod = kube.get(pods, f"nginx-{ordinal}", namespace)
            assert (
                pod["metadata"]["labels"]["app"] == "nginx"
                and "controller-revision-hash" in pod["metadata"]["labels"]
            )
            managers = {m["manager"] for m in pod["metadata"]["managedFields"]}
            assert f"stencil-patch/pod-name-label/{namespace}/nginx-{ordinal}" in managers, managers
        for obj in (kube.get(statefulsets, "nginx", namespace), kube.get(pods, "nginx-0", namespace)):
            status_writers = {m["manager"] for m in obj["metadata"]["managedFields"] if m.get("subresource")}
            assert not any(w.startswith("stencil") for w in status_writers), status_writers
        assert kube.get(services, "plain-0", namespace) is None

        path = statefulsets.path(namespace, "nginx")
        kube.request("PATCH", path, {"spec": {"replicas": 1}}, content_type="application/merge-patch+json")
        eventually(
            lambda: (
                kube.get(services, "nginx-1", namespace) is None
                and kube.get(services, "nginx-2", namespace) is None
            ),
            what="the Services of the Pods gone pruned",
        )
        assert kube.get(services, "nginx-0", namespace) is not None
