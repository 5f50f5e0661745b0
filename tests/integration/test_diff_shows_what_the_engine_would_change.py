"""``stencil diff``: before the engine runs, the children it would create; once converged,
nothing; after a CR edit not yet applied, exactly the fields that would change."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from engine.tools.cli import main
from tests.integration._engine import ROOT, condition_is, eventually, running_engine

KIND_DIR = ROOT / "templates" / "deploywebservice"


def cr(replicas: int) -> dict[str, Any]:
    return {
        "apiVersion": "operator.wujiuye.com/v1beta1",
        "kind": "DeployWebService",
        "metadata": {"name": "shop"},
        "spec": {"image": "nginx:1.27", "replicas": replicas, "exposed_port": 8080},
    }


def diff(local_cluster: Any, namespace: str, file: Path) -> tuple[int, str]:
    result = CliRunner().invoke(
        main,
        [
            "diff",
            str(KIND_DIR),
            "-f",
            str(file),
            "-n",
            namespace,
            "--kubeconfig",
            str(local_cluster.kubeconfig),
        ],
    )
    return result.exit_code, result.output


def test_diff_previews_creates_then_nothing_then_the_edited_field(
    kube: Kube, namespace: str, dws: Resource, local_cluster: Any, tmp_path: Path
) -> None:
    file = tmp_path / "shop.yaml"
    file.write_text(yaml.safe_dump(cr(replicas=1)))

    code, output = diff(local_cluster, namespace, file)
    assert code == 1, output
    assert f"create    Deployment {namespace}/shop-deployment" in output
    assert f"create    Service {namespace}/shop-service" in output
    assert (
        kube.get(kube.resource("apps/v1", "Deployment"), "shop-deployment", namespace) is None
    )  # dry run only

    with running_engine(kube, ROOT / "templates", namespace):
        manifests.apply_all(kube, [cr(replicas=1)], namespace)
        eventually(condition_is(kube, dws, "shop", namespace, "Ready", "True"), what="Ready")

        code, output = diff(local_cluster, namespace, file)
        assert code == 0, output
        assert output.splitlines() == [
            f"unchanged Deployment {namespace}/shop-deployment",
            f"unchanged Service {namespace}/shop-service",
        ]

        file.write_text(yaml.safe_dump(cr(replicas=3)))
        code, output = diff(local_cluster, namespace, file)
        assert code == 1, output
        assert f"update    Deployment {namespace}/shop-deployment (spec.replicas)" in output
        assert "-  replicas: 1\n" in output and "+  replicas: 3\n" in output
        assert f"unchanged Service {namespace}/shop-service" in output
