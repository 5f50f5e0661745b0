"""Replacing a seed operator by Stencil: on a cluster where the seed's CRD is installed and a CR
was made (and its status written) under it, applying Stencil's CRD upgrades the CRD in place, and
the engine adopts and converges the existing CR: the same object (uid, creation time), never
deleted and made again.

Each seed's CRD is installed on a control plane of this module's own, since the rest of the suite
shares one on which Stencil's CRDs are installed from the start.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.core.model import errors, kinds
from engine.core.model.objects import Obj
from engine.localcluster import LocalCluster
from engine.runtime.cluster.kube import Kube, Resource
from engine.testing import plugin
from engine.tools import manifests
from tests.integration._engine import ROOT, eventually, running_engine
from tests.integration._seeds import SEEDS, Seed, report_progress

pytestmark = pytest.mark.cluster

# What each seed's controller had left in a CR's status before it was removed.
SEED_STATUS: dict[str, dict[str, Any]] = {
    # Seed 000 appended a condition on every pass, in its own snake_case Condition.
    "DeployWebService": {
        "conditions": [
            {
                "type": type_,
                "status": status,
                "last_transition_time": "2023-06-03T10:00:00Z",
                "reason": reason,
                "message": message,
            }
            for type_, status, reason, message in (
                ("DeploymentProgressing", "True", "CreateDeployment", "success to create deployment."),
                ("ServiceProgressing", "True", "CreateService", "success to create service."),
                ("DeploymentAvailable", "False", "DeploymentStatusUpdate", "deployment is not available"),
                ("ServiceAvailable", "True", "ServiceStatusUpdate", "service is available"),
                ("DeploymentAvailable", "True", "DeploymentStatusUpdate", "deployment is available"),
                ("ServiceAvailable", "True", "ServiceStatusUpdate", "service is available"),
            )
        ]
    },
    # Seed 001 listed the pods of its Deployment, which Stencil's StatefulSet replaces.
    "MySQLCluster": {"nodes": ["my-mysql-7d4b9c8f6d-2xk9p"]},
    # A Playbook's reader had reported how far it had read.
    "Playbook": {"progress": 50},
}


@pytest.fixture(scope="module")
def plane() -> Iterator[LocalCluster]:
    with LocalCluster(nodes=1) as cluster:
        yield cluster


@pytest.fixture
def kube_of_plane(plane: LocalCluster, connect: Any) -> Kube:
    plane.check()
    return connect(plane.kubeconfig)


@pytest.fixture
def seed_namespace(kube_of_plane: Kube, request: pytest.FixtureRequest) -> Iterator[str]:
    name = plugin.namespace_name(request.node.name)
    kube_of_plane.request(
        "POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
    )
    eventually(
        lambda: kube_of_plane.list(kube_of_plane.resource("v1", "ServiceAccount"), name)[0],
        what=f"the default ServiceAccount in {name}",
    )
    yield name
    kube_of_plane.request("DELETE", f"/api/v1/namespaces/{name}")


def install(kube: Kube, crd: Path | None, tmp_path: Path, kind: kinds.Kind | None = None) -> Obj:
    """Apply one CRD file, or the CRD ``kind`` writes, and wait until it is Established; the CRD as
    the server then has it."""
    folder = None
    if crd is not None:
        folder = tmp_path / crd.stem
        folder.mkdir()
        shutil.copy(crd, folder / crd.name)
    (name,) = manifests.install_crds(kube, folder, kinds_=[kind] if kind else [])
    found = kube.get(kube.resource("apiextensions.k8s.io/v1", "CustomResourceDefinition"), name)
    assert found is not None
    return found


def as_under_seed(seed: Seed) -> dict[str, Any]:
    """The seed's sample as a CR its own CRD takes: seed 001's CRD has version as a string, which
    refuses the sample's unquoted 8.0 (a number), so its users had written "8.0"."""
    sample = seed.sample_cr()
    if seed.kind == "MySQLCluster":
        return {**sample, "spec": {**sample["spec"], "version": "8.0"}}
    return sample


@pytest.mark.parametrize("seed", SEEDS, ids=lambda seed: seed.folder)
def test_seed_crd_upgrades_in_place_and_its_existing_cr_converges(
    kube_of_plane: Kube, seed_namespace: str, tmp_path: Path, seed: Seed
) -> None:
    kube, namespace = kube_of_plane, seed_namespace

    # 1. The cluster as the seed left it: its CRD, a CR, and the status its controller wrote.
    seed_crd = install(kube, seed.seed_crd, tmp_path)
    res = kube.resource(seed.api_version, seed.kind)
    cr = as_under_seed(seed)
    name = cr["metadata"]["name"]
    created = kube.request("POST", res.path(namespace), cr)
    if seed.kind in SEED_STATUS:
        kube.request(
            "PATCH",
            res.path(namespace, name, "status"),
            {"status": SEED_STATUS[seed.kind]},
            content_type="application/merge-patch+json",
        )

    # 2. Stencil's CRD, written from the kind's schema:, applied over it: the same CRD, upgraded in place.
    stencil_crd = install(kube, None, tmp_path, seed.stencil_kind)
    assert stencil_crd["metadata"]["uid"] == seed_crd["metadata"]["uid"]
    assert stencil_crd["metadata"]["generation"] > seed_crd["metadata"]["generation"]
    res = kube.resource(seed.api_version, seed.kind)

    # 3. The engine adopts the CR that was there and converges it.
    with running_engine(kube, ROOT / "templates", namespace):

        def converged() -> Obj | None:
            parent = kube.get(res, name, namespace)
            return parent and seed.converged(kube, res, parent, namespace)

        parent = eventually(converged, timeout=120, what=f"the existing {seed.kind} to converge")
        # The same object all along: neither deleted nor made again.
        for key in ("uid", "creationTimestamp"):
            assert parent["metadata"][key] == created["metadata"][key]
        if seed.kind == "DeployWebService":
            # Stencil's conditions replace the seed's appended ones: one of each type.
            types = [c["type"] for c in parent["status"]["conditions"]]
            assert len(types) == len(set(types)), types
        if seed.kind == "Playbook":
            # The progress the reader reported under the seed is kept; 100 still ends the Playbook.
            assert parent["status"]["progress"] == SEED_STATUS["Playbook"]["progress"]
            report_progress(kube, res, name, namespace, 100)
            eventually(lambda: gone(kube, res, name, namespace), what="the Playbook to be deleted")


def gone(kube: Kube, res: Resource, name: str, namespace: str) -> bool:
    try:
        return kube.get(res, name, namespace) is None
    except errors.NotFound:
        return True
