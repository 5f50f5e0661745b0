"""Guestbook (seed 003) end to end: kubebuilder's sample CR, unchanged, becomes the classic guestbook."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core.model import kinds
from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import ROOT, condition_is, conditions, eventually, running_engine

EXAMPLES = ROOT / "templates" / "guestbook" / "examples"
NAME = "guestbook-sample"
TIERS = ("frontend", "redis-leader", "redis-follower")
CONDITIONS = {
    "frontend": "FrontendAvailable",
    "redis-leader": "RedisLeaderAvailable",
    "redis-follower": "RedisFollowersAvailable",
}


@pytest.fixture
def guestbooks(kube: Kube, crds_installed: list[str]) -> Resource:
    return kube.resource("webapp.my.domain/v1", "Guestbook")


def spec_defaults() -> dict[str, Any]:
    """The defaults the Guestbook's CRD (written from its kind.yaml's schema:) gives spec.frontend
    and spec.redis."""
    crd = kinds.load_kind(ROOT / "templates" / "guestbook").crd
    assert crd is not None
    spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
    return {
        part: {field: schema["default"] for field, schema in spec[part]["properties"].items()}
        for part in ("frontend", "redis")
    }


def test_sample_becomes_ready_with_the_whole_guestbook_owned_by_it(
    kube: Kube, namespace: str, guestbooks: Resource
) -> None:
    deployments = kube.resource("apps/v1", "Deployment")
    services = kube.resource("v1", "Service")
    example = next(d for d in manifests.read(manifests.yaml_files(EXAMPLES)) if d["metadata"]["name"] == NAME)
    # The sample as the tutorial has it: spec.foo and nothing else.
    sample = {**example, "spec": {"foo": example["spec"]["foo"]}}
    with running_engine(kube, ROOT / "templates", namespace):
        parent = manifests.apply_all(kube, [sample], namespace)[0]
        ready = eventually(
            condition_is(kube, guestbooks, NAME, namespace, "Ready", "True"), what="Ready=True"
        )

    # The tutorial's field is kept as it was; the API server filled in the rest from the CRD.
    defaults = spec_defaults()
    assert parent["spec"] == {"foo": sample["spec"]["foo"], **defaults}

    conds = conditions(ready)
    for tier, type_ in CONDITIONS.items():
        assert conds[type_]["status"] == "True", f"{type_}: {conds[type_]}"
        deployment = kube.get(deployments, f"{NAME}-{tier}", namespace)
        assert deployment is not None
        available = next(c for c in deployment["status"]["conditions"] if c["type"] == "Available")
        assert conds[type_]["reason"] == available["reason"]
    assert conds["Ready"]["observedGeneration"] == ready["metadata"]["generation"]

    uid = parent["metadata"]["uid"]
    for res in (deployments, services):
        for tier in TIERS:
            child = kube.get(res, f"{NAME}-{tier}", namespace)
            assert child is not None, f"{res.kind} {NAME}-{tier} does not exist"
            owner = child["metadata"]["ownerReferences"][0]
            assert (owner["kind"], owner["uid"], owner["controller"]) == ("Guestbook", uid, True)

    replicas = {
        tier: kube.get(deployments, f"{NAME}-{tier}", namespace)["spec"]["replicas"]  # type: ignore[index]
        for tier in TIERS
    }
    assert replicas == {
        "frontend": defaults["frontend"]["replicas"],
        "redis-leader": 1,
        "redis-follower": defaults["redis"]["followers"],
    }

    frontend = kube.get(services, f"{NAME}-frontend", namespace)
    assert frontend is not None
    assert ready["status"]["frontendClusterIP"] == frontend["spec"]["clusterIP"]

    # The hosts the frontend and the followers connect to are this guestbook's own Services.
    def container(tier: str) -> dict[str, Any]:
        deployment = kube.get(deployments, f"{NAME}-{tier}", namespace)
        return deployment["spec"]["template"]["spec"]["containers"][0]  # type: ignore[index,no-any-return]

    env = container("frontend")["env"]
    hosts = {e["name"]: e["value"] for e in env if e["name"].endswith("_SERVICE_HOST")}
    command = container("redis-follower")["command"]
    hosts["replicaof"] = command[command.index("--replicaof") + 1]
    assert hosts == {
        "REDIS_LEADER_SERVICE_HOST": f"{NAME}-redis-leader",
        "REDIS_FOLLOWER_SERVICE_HOST": f"{NAME}-redis-follower",
        "replicaof": f"{NAME}-redis-leader",
    }
