"""DeployWebService end to end: the seed's sample CR, unchanged, driven to Ready by the engine.

Every writer of Stencil's children is the field manager ``stencil``, so ``managedFields`` says
only that some engine applied them; the engine runs as a ServiceAccount whose writes to
Deployments and Services the API server counts on their own (``_writers``), and they must be
all the writes to those resources the server served.
"""

from __future__ import annotations

import contextlib
import subprocess
from pathlib import Path
from typing import Any

from engine.localcluster import binaries
from engine.runtime.cluster.kube import Kube, Resource
from engine.testing import write_requests
from engine.tools import manifests
from tests.integration._engine import (
    ROOT,
    condition_is,
    conditions,
    eventually,
    idle,
    running_engine,
    settled,
)
from tests.integration._writers import counted_writers, writes_of

SAMPLE = ROOT / "templates" / "deploywebservice" / "examples"
CHILDREN = [("apps", "deployments"), ("", "services")]
# Left out are the cluster's own writes: the namespace controller deletes in the namespaces of
# earlier tests, and the deployment controller updates (PUT) a Deployment's revision annotation.
CHILD_WRITES = [f"{verb} {plural}" for verb in ("POST", "PATCH", "APPLY") for _, plural in CHILDREN]


def sample() -> dict[str, Any]:
    docs = manifests.read(manifests.yaml_files(SAMPLE))
    return next(d for d in docs if d["metadata"]["name"] == "deploywebservice-sample")


def child_writes(kube: Kube) -> int:
    """Writes to the main resource of Deployments and Services, by anyone, as the API server counts them."""
    counts = write_requests(kube, refused=False)
    return sum(counts[key] for key in CHILD_WRITES)


def test_sample_becomes_ready_with_owned_children(
    kube: Kube, namespace: str, dws: Resource, local_cluster: Any, tmp_path: Path, connect: Any
) -> None:
    deployments = kube.resource("apps/v1", "Deployment")
    services = kube.resource("v1", "Service")
    with contextlib.ExitStack() as stack:
        engine_config = stack.enter_context(
            counted_writers(kube, local_cluster.kubeconfig, namespace, ["engine"], CHILDREN, tmp_path)
        )["engine"]
        before = child_writes(kube)
        engine = stack.enter_context(running_engine(connect(engine_config), ROOT / "templates", namespace))
        parent = manifests.apply_all(kube, [sample()], namespace)[0]
        uid = parent["metadata"]["uid"]

        ready = eventually(
            condition_is(kube, dws, "deploywebservice-sample", namespace, "Ready", "True"),
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
        # The API server's own count: the engine's identity wrote the children, and no one else
        # wrote a Deployment or a Service meanwhile.
        wait_for = settled(lambda: idle(engine), lambda: child_writes(kube))
        eventually(wait_for, what="the engine to be idle")
        engine_writes = writes_of(kube, namespace, "engine")
        assert engine_writes >= 2
        assert child_writes(kube) - before == engine_writes
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
