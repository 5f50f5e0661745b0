"""DeployWebService end to end: the seed's sample CR, unchanged, driven to Ready by the engine."""

from __future__ import annotations

import subprocess
from typing import Any

from engine.localcluster import binaries
from engine.runtime.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import ROOT, condition_is, conditions, eventually, running_engine

SAMPLE = ROOT / "templates" / "deploywebservice" / "examples"


def sample() -> dict[str, Any]:
    docs = manifests.read(manifests.yaml_files(SAMPLE))
    return next(d for d in docs if d["metadata"]["name"] == "deploywebservice-sample")


def test_sample_becomes_ready_with_owned_children(
    kube: Kube, namespace: str, dws: Resource, local_cluster: Any
) -> None:
    deployments = kube.resource("apps/v1", "Deployment")
    services = kube.resource("v1", "Service")
    with running_engine(kube, ROOT / "templates", namespace):
        parent = manifests.apply_all(kube, [sample()], namespace)[0]
        uid = parent["metadata"]["uid"]

        ready = eventually(
            condition_is(kube, dws, "deploywebservice-sample", namespace, "Ready", "True"),
            timeout=90,
            what="Ready=True",
        )

        conds = conditions(ready)
        assert conds["DeploymentAvailable"]["status"] == "True"
        assert conds["ServiceAvailable"]["status"] == "True"
        assert conds["Ready"]["observedGeneration"] == ready["metadata"]["generation"]
        for res, name in (
            (deployments, "deploywebservice-sample-deployment"),
            (services, "deploywebservice-sample-service"),
        ):
            child = kube.request("GET", res.path(namespace, name))
            owner = child["metadata"]["ownerReferences"][0]
            assert (owner["uid"], owner["controller"], owner["blockOwnerDeletion"]) == (uid, True, True)
            managers = {m["manager"] for m in child["metadata"]["managedFields"] if m["operation"] == "Apply"}
            assert managers == {"stencil"}
        service = kube.get(services, "deploywebservice-sample-service", namespace)
        assert ready["status"]["nodePort"] == service["spec"]["ports"][0]["nodePort"]  # type: ignore[index]

        table = subprocess.run(
            [
                str(binaries.find("kubectl")),
                "--kubeconfig",
                str(local_cluster.kubeconfig),
                "get",
                "deploywebservice",
                "-n",
                namespace,
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        header, row = table.splitlines()[:2]
        assert header.split() == ["NAME", "READY", "REASON", "AGE"]
        assert row.split()[:2] == ["deploywebservice-sample", "True"]
