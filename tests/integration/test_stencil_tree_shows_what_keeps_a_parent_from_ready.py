"""``stencil tree`` on a real control plane: a converged DeployWebService whose pods cannot be
scheduled shows its Deployment as the child that keeps it from Ready, in the words of its
ChildrenReady condition, its Service as Current, and the parent's own Ready condition."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools.cli import main
from tests.integration._engine import ROOT, condition_is, conditions, eventually, running_engine

CR = {
    "apiVersion": "operator.wujiuye.com/v1beta1",
    "kind": "DeployWebService",
    "metadata": {"name": "shop"},
    "spec": {"image": "nginx:1.27", "replicas": 2, "exposed_port": 8080},
}


def settled(kube: Kube, dws: Resource, namespace: str) -> dict[str, Any] | None:
    parent = kube.get(dws, "shop", namespace)
    said = conditions(parent).get("ChildrenReady", {})
    return (
        parent if said.get("status") == "False" and "replicas available" in said.get("message", "") else None
    )


def tree(local_cluster: Any, namespace: str, *more: str, parent: str = "DeployWebService/shop") -> str:
    arguments = ["tree", parent, "-n", namespace, "--templates", str(ROOT / "templates")]
    result = CliRunner().invoke(main, [*arguments, "--kubeconfig", str(local_cluster.kubeconfig), *more])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_tree_names_the_unready_deployment_and_the_parents_ready_reason(
    kube: Kube, namespace: str, dws: Resource, local_cluster: Any, cordoned: list[str]
) -> None:
    kube.create({**CR, "metadata": {**CR["metadata"], "namespace": namespace}})
    with running_engine(kube, ROOT / "templates", namespace):
        parent = eventually(
            condition_is(kube, dws, "shop", namespace, "ServiceAvailable", "True"), what="node port"
        )
        # Settled: every pod created (and none schedulable), so the Deployment's health no longer moves.
        parent = eventually(lambda: settled(kube, dws, namespace), what="all pods created, none available")
    ready, children_ready = conditions(parent)["Ready"], conditions(parent)["ChildrenReady"]

    text = tree(local_cluster, namespace)
    print(text)  # what the README shows

    rows = [line.split(maxsplit=3) for line in text.splitlines()]
    assert rows[0] == ["NAMESPACE", "NAME", "HEALTH", "REASON"]
    assert rows[1][:3] == [namespace, "DeployWebService/shop", "Ready=False"]
    assert rows[1][3].startswith(f"{ready['reason']}: ")
    names = [" ".join(line.split()[1:3]) for line in text.splitlines()[2:]]
    assert names == ["├── Deployment/shop-deployment", "└── Service/shop-service"]
    deployment, service = (line.split(maxsplit=5) for line in text.splitlines()[2:])
    assert deployment[3:5] == ["[deployment]", "InProgress"]
    assert f"Deployment shop-deployment: {deployment[5]}" in children_ready["message"]
    assert service[3:5] == ["[service]", "Current"]

    picture = tree(local_cluster, namespace, "-o", "dot")
    assert '"m0" -> "m1";' in picture and '"m0" -> "m2";' in picture
    assert "Deployment/shop-deployment\\n[deployment]\\nInProgress" in picture

    # As kubectl reads it: the short name the CRD gives, and a context of the kubeconfig.
    assert (
        tree(local_cluster, namespace, parent="dws/shop").splitlines()[1].split()[1]
        == "DeployWebService/shop"
    )
    context = yaml.safe_load(Path(local_cluster.kubeconfig).read_text())["current-context"]
    assert tree(local_cluster, namespace, "--context", context) == text
    arguments = ["tree", "dws/shop", "-n", namespace, "--kubeconfig", str(local_cluster.kubeconfig)]
    refused = CliRunner().invoke(main, [*arguments, "--context", "no-such-context"])
    assert refused.exit_code != 0 and "no-such-context" in refused.output, refused.output
