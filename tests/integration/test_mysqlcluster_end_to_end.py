"""MySQLCluster (seed 001) end to end: the seed's sample CR becomes a ready StatefulSet whose
pods status.nodes names, follows spec.size, and has a hand edit of its replicas undone."""

from __future__ import annotations

import secrets
import time
from typing import Any

import pytest

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import ROOT, condition_is, conditions, eventually, running_engine

EXAMPLES = ROOT / "templates" / "mysqlcluster" / "examples"
NAME = "my-mysql"


@pytest.fixture
def clusters(kube: Kube, crds_installed: list[str]) -> Resource:
    return kube.resource("database.example.com/v1alpha1", "MySQLCluster")


def sample(**spec: Any) -> dict[str, Any]:
    """The seed's sample CR, with ``spec`` fields overridden."""
    doc = next(d for d in manifests.read(manifests.yaml_files(EXAMPLES)) if d["metadata"]["name"] == NAME)
    return {**doc, "spec": {**doc["spec"], **spec}}


def test_sample_is_ready_lists_its_pods_follows_size_and_keeps_replicas(
    kube: Kube, namespace: str, clusters: Resource
) -> None:
    pods = kube.resource("v1", "Pod")
    stateful_sets = kube.resource("apps/v1", "StatefulSet")
    services = kube.resource("v1", "Service")
    # The root password the kind's documentation asks for, in the Secret of the default name.
    password_secret = f"{NAME}-root-password"
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": password_secret},
        "stringData": {"password": secrets.token_urlsafe(16)},
    }
    manifests.apply_all(kube, [secret], namespace)

    def pod_names() -> list[str]:
        selected = kube.list(pods, namespace, f"app=mysqlcluster,mysqlcluster_cr={NAME}")[0]
        return sorted(p["metadata"]["name"] for p in selected)

    def replicas() -> int | None:
        obj = kube.get(stateful_sets, NAME, namespace)
        return obj["spec"]["replicas"] if obj else None

    def settled(size: int) -> dict[str, Any] | None:
        """The cluster once it is Ready at this size and status.nodes names exactly its pods."""
        obj = kube.get(clusters, NAME, namespace)
        if obj is None or obj["spec"]["size"] != size:
            return None
        if conditions(obj).get("Ready", {}).get("status") != "True":
            return None
        names = pod_names()
        return obj if len(names) == size and obj["status"].get("nodes") == names else None

    with running_engine(kube, ROOT / "templates", namespace):
        parent = manifests.apply_all(kube, [sample()], namespace)[0]
        size = parent["spec"]["size"]
        eventually(
            condition_is(kube, clusters, NAME, namespace, "Ready", "True"), timeout=120, what="Ready=True"
        )
        ready = eventually(lambda: settled(size), what="status.nodes to name the pods")

        conds = conditions(ready)
        assert conds["Available"]["status"] == "True", conds["Available"]
        assert conds["Ready"]["observedGeneration"] == ready["metadata"]["generation"]
        # A StatefulSet's pods are named <name>-0 .. <name>-(size-1).
        assert ready["status"]["nodes"] == sorted(f"{NAME}-{i}" for i in range(size))

        # The children: owned by the cluster, running the sample's version, the password by reference.
        uid = parent["metadata"]["uid"]
        stateful_set = kube.get(stateful_sets, NAME, namespace)
        service = kube.get(services, NAME, namespace)
        assert stateful_set is not None and service is not None
        for child in (stateful_set, service):
            owner = child["metadata"]["ownerReferences"][0]
            assert (owner["kind"], owner["uid"], owner["controller"]) == ("MySQLCluster", uid, True)
        assert service["spec"]["clusterIP"] == "None"
        assert stateful_set["spec"]["serviceName"] == NAME
        assert stateful_set["status"]["readyReplicas"] == size
        container = stateful_set["spec"]["template"]["spec"]["containers"][0]
        # The sample's unquoted `version: 8.0` is kept by the API server as the number 8, which
        # the kind reads as MySQL's major.minor.
        assert parent["spec"]["version"] == 8
        assert container["image"] == "mysql:8.0"
        assert [p["containerPort"] for p in container["ports"]] == [3306]
        password = next(e for e in container["env"] if e["name"] == "MYSQL_ROOT_PASSWORD")
        assert password == {
            "name": "MYSQL_ROOT_PASSWORD",
            "valueFrom": {"secretKeyRef": {"name": password_secret, "key": "password"}},
        }

        # Scaling spec.size changes the replicas, and status.nodes follows the pods.
        smaller = size - 1
        manifests.apply_all(kube, [sample(size=smaller)], namespace)
        eventually(lambda: replicas() == smaller, what="replicas to follow spec.size")
        eventually(lambda: settled(smaller), what="status.nodes to follow the scale-down")

        # A hand edit of the replicas is undone, as the seed's reconcile did by hand.
        kube.request(
            "PATCH",
            stateful_sets.path(namespace, NAME),
            {"spec": {"replicas": smaller + 3}},
            query={"fieldManager": "kubectl-edit"},
            content_type="application/merge-patch+json",
        )
        edited = time.monotonic()
        eventually(lambda: replicas() == smaller, what="the hand edit to be undone")
        assert time.monotonic() - edited < 5
        settled_again = eventually(
            lambda: settled(smaller), what="status.nodes to name only the wanted pods again"
        )
    assert settled_again["status"]["nodes"] == sorted(f"{NAME}-{i}" for i in range(smaller))
