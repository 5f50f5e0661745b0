"""The Helm chart installs into a real cluster: every object it renders exists, its CRDs are
established, its RBAC is exactly the derived rules, and the kinds it ships serve parents.

No image of the engine exists on these machines.  The chart's Deployment still goes
in as it is: its pod lands on the simulated kwok node, which reports it running, and
the engine proper runs here as a process reading the kinds from the chart's ConfigMaps.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import yaml

from engine.runtime.cluster.kube import Kube
from engine.tools import manifests
from tests.integration._engine import ROOT, condition_is, eventually
from tests.integration._process import CHART, chart_installed, engine_process, helm

SAMPLE = ROOT / "templates" / "deploywebservice" / "examples"


def crd_established(kube: Kube, name: str) -> bool:
    crd = kube.request("GET", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}")
    conditions = crd.get("status", {}).get("conditions", [])
    return any(c["type"] == "Established" and c["status"] == "True" for c in conditions)


def test_chart_lints_renders_installs_and_its_kinds_serve_parents(
    kube: Kube, namespace: str, local_cluster: Any, tmp_path: Path
) -> None:
    kubeconfig = local_cluster.kubeconfig
    release = f"stencil-{uuid.uuid4().hex[:6]}"
    helm(kubeconfig, "lint", "--strict", str(CHART))
    rendered = [
        d
        for d in yaml.load_all(helm(kubeconfig, "template", release, str(CHART), "--namespace", namespace),
                               Loader=yaml.CSafeLoader)
        if d
    ]  # fmt: skip
    kinds = {d["kind"] for d in rendered}
    assert {"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "ConfigMap",
            "Deployment", "Service"} <= kinds  # fmt: skip
    crds = manifests.read(manifests.yaml_files(CHART / "crds"))
    assert crds, "the chart ships CRDs"

    with chart_installed(kubeconfig, release, namespace):
        # Everything helm template rendered now exists, where it said.
        for doc in rendered:
            res = kube.resource(doc["apiVersion"], doc["kind"])
            where = doc["metadata"].get("namespace") or namespace  # the kinds' Leases' Role: kube-system
            found = kube.get(res, doc["metadata"]["name"], where if res.namespaced else None)
            assert found is not None, f"{doc['kind']} {doc['metadata']['name']} was not created"
            assert found["metadata"]["labels"]["app.kubernetes.io/instance"] == release
        names = [crd["metadata"]["name"] for crd in crds]
        eventually(lambda: all(crd_established(kube, n) for n in names), what=f"the chart's CRDs {names}")

        # The ClusterRole grants exactly the derived rules, and nothing with a wildcard.
        (role,) = (d for d in rendered if d["kind"] == "ClusterRole" and d["metadata"]["name"] == release)
        installed = kube.request(
            "GET", f"/apis/rbac.authorization.k8s.io/v1/clusterroles/{role['metadata']['name']}"
        )
        derived = role["rules"]
        assert installed["rules"] == derived
        fields = ("apiGroups", "resources", "verbs")
        assert not any("*" in rule.get(field, []) for rule in derived for field in fields)

        # The engine's Deployment is scheduled and, on the simulated node, becomes Available.
        (deployment,) = (d for d in rendered if d["kind"] == "Deployment")
        deployments = kube.resource("apps/v1", "Deployment")
        eventually(
            lambda: (
                (kube.get(deployments, deployment["metadata"]["name"], namespace) or {})
                .get("status", {})
                .get("availableReplicas")
            ),
            what="the chart's Deployment to become Available",
        )

        # The shipped kinds are active: an engine with no kinds of its own serves them from the
        # chart's ConfigMaps.
        empty = tmp_path / "no-kinds"
        empty.mkdir()
        examples = manifests.read(manifests.yaml_files(SAMPLE))
        sample = next(d for d in examples if d["kind"] == "DeployWebService")
        dws = kube.resource(sample["apiVersion"], sample["kind"])
        with engine_process(
            kubeconfig, tmp_path / "engine.log",
            "--templates", str(empty), "--namespace", namespace, "--kind-configmaps-namespace", namespace,
            # The parents share the chart's namespace here, so it cannot be off limits to their children.
            "--protected-namespaces", "kube-*",
        ) as engine:  # fmt: skip
            eventually(engine.ready, what="/readyz")
            manifests.apply_all(kube, [sample], namespace)
            try:
                eventually(
                    condition_is(kube, dws, sample["metadata"]["name"], namespace, "Ready", "True"),
                    what="a parent of a shipped kind to become Ready",
                )
            except AssertionError:
                print(engine.output())
                raise
