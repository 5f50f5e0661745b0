"""The chart's RBAC is enough for the engine, and no more: ``stencil run`` holding a token of
the chart's ServiceAccount drives a DeployWebService to Ready and undoes a hand edit, with
leader election on the chart's Lease and the kind held on its Lease where the chart says,
while a request outside the rules is refused.

The Python client cannot impersonate from a kubeconfig (it ignores ``as:``), so the
engine authenticates as the ServiceAccount itself, with a token from the TokenRequest API.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.core.decisions.coordination import holding
from engine.core.model import errors
from engine.runtime.cluster.kube import Kube
from engine.testing import service_account_token, token_kubeconfig
from engine.tools import manifests
from tests.integration._engine import ROOT, condition_is, eventually
from tests.integration._process import chart_installed, engine_process, helm

SAMPLE = ROOT / "templates" / "deploywebservice" / "examples"


def test_engine_as_the_charts_service_account_reconciles_and_is_refused_the_rest(
    kube: Kube, namespace: str, dws: Any, local_cluster: Any, tmp_path: Path
) -> None:
    release = f"stencil-{uuid.uuid4().hex[:6]}"
    # No engine pod: there is no image here, and the engine runs below as a process instead.
    with chart_installed(local_cluster.kubeconfig, release, namespace, "replicaCount=0"):
        manifest = helm(local_cluster.kubeconfig, "get", "manifest", release, "--namespace", namespace)
        objects = [d for d in yaml.load_all(manifest, Loader=yaml.CSafeLoader) if d]
        (account,) = (d["metadata"]["name"] for d in objects if d["kind"] == "ServiceAccount")
        (lease,) = (
            name
            for d in objects
            if d["kind"] == "Role" and d["metadata"]["namespace"] == namespace
            for rule in d["rules"]
            for name in rule.get("resourceNames", [])
            if "leases" in rule["resources"]
        )
        (deployment,) = (d for d in objects if d["kind"] == "Deployment")
        (kind_leases,) = (
            arg.partition("=")[2]
            for arg in deployment["spec"]["template"]["spec"]["containers"][0]["args"]
            if arg.startswith("--kind-lease-namespace=")
        )
        token = service_account_token(kube, namespace, account)
        config = token_kubeconfig(local_cluster.kubeconfig, token, tmp_path / "sa.kubeconfig")
        # Outside the rules: Secrets anywhere, and another namespace's Leases.
        with contextlib.closing(Kube.from_kubeconfig(str(config))) as as_engine:
            for path in ("/api/v1/secrets", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases"):
                with pytest.raises(errors.ApiError) as refused:
                    as_engine.request("GET", path)
                assert refused.value.status == 403, path

        empty = tmp_path / "no-kinds"
        empty.mkdir()
        with engine_process(
            config, tmp_path / "engine.log",
            "--templates", str(empty),
            "--namespace", namespace,
            "--kind-configmaps-namespace", namespace,
            "--protected-namespaces", "kube-*",  # the parents share the chart's namespace here
            "--leader-elect",
            "--leader-elect-namespace", namespace,
            "--leader-elect-lease-name", lease,
            "--kind-lease-namespace", kind_leases,
        ) as engine:  # fmt: skip
            try:
                eventually(engine.ready, what="/readyz")
                eventually(
                    lambda: engine.metric("leader_election_master_status", name=lease) == [1.0],
                    what="the engine to hold the chart's Lease",
                )
                sample = next(
                    d for d in manifests.read(manifests.yaml_files(SAMPLE)) if d["kind"] == "DeployWebService"
                )
                name = sample["metadata"]["name"]
                manifests.apply_all(kube, [sample], namespace)
                eventually(condition_is(kube, dws, name, namespace, "Ready", "True"), what="Ready=True")

                # A hand edit of a rendered field is undone.
                deployments = kube.resource("apps/v1", "Deployment")
                (child,) = (
                    d
                    for d in kube.list(deployments, namespace)[0]
                    if any(o["name"] == name for o in d["metadata"].get("ownerReferences", []))
                )
                rendered = child["spec"]["replicas"]
                kube.request(
                    "PATCH",
                    deployments.path(namespace, child["metadata"]["name"]),
                    {"spec": {"replicas": rendered + 4}},
                    query={"fieldManager": "kubectl-edit"},
                    content_type="application/merge-patch+json",
                )
                edited = time.monotonic()
                eventually(
                    lambda: (
                        kube.get(deployments, child["metadata"]["name"], namespace)["spec"]["replicas"]  # type: ignore[index]
                        == rendered
                    ),
                    what="the hand edit to be undone",
                )
                assert time.monotonic() - edited < 10

                assert sum(engine.metric("controller_runtime_reconcile_total", result="error")) == 0
                kind_lease = holding.lease_name(sample["apiVersion"], sample["kind"])
                assert engine.metric("leader_election_master_status", name=kind_lease) == [1.0]
                assert "forbidden" not in engine.output().lower()
                assert engine.stop() == 0  # and the kind's Lease released, for whoever comes next
            except BaseException:
                print(engine.output())
                raise
