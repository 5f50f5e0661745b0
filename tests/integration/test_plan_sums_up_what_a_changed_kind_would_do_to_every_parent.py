"""``stencil plan`` on the real control plane: 20 converged DeployWebService parents, then a changed
folder (a new image, an error for the parents with more than two replicas, the Service template gone)
summed up from one listing a kind, with a server dry run of a sample; and a folder whose applies the
API server refuses.  Nothing in the cluster changes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from engine.tools.cli import main
from tests.integration._engine import ROOT, eventually, running_engine

KIND_DIR = ROOT / "templates" / "deploywebservice"
IMAGE = "spec.template.spec.containers[0].image"
KIND_YAML = (
    "apiVersion: stencil.dev/v1alpha1\nkind: StencilKind\nparent:\n"
    "  apiVersion: operator.wujiuye.com/v1beta1\n  kind: DeployWebService\ntemplates: [deployment.yaml]\n"
)


def cr(index: int) -> dict[str, Any]:
    return {
        "apiVersion": "operator.wujiuye.com/v1beta1",
        "kind": "DeployWebService",
        "metadata": {"name": f"web-{index:02}"},
        "spec": {"image": "nginx:1.27", "replicas": 3 if index % 4 == 0 else 1, "exposed_port": 8080},
    }


def changed(tmp_path: Path, replicas: str = "{{ spec.replicas }}") -> Path:
    """The seed folder with a new image, a line that fails for parents of more than two replicas,
    and no Service template; in a folder of the same name, so the children's labels stay."""
    folder = tmp_path / "deploywebservice"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(KIND_DIR, folder)
    (folder / "service.yaml").unlink()
    (folder / "kind.yaml").write_text(KIND_YAML)
    template = folder / "deployment.yaml"
    text = template.read_text().replace("image: {{ spec.image }}", "image: nginx:1.28")
    text = text.replace("replicas: {{ spec.replicas }}", f"replicas: {replicas}")
    template.write_text(text + "# {% if spec.replicas > 2 %}{{ spec.team }}{% endif %}\n")
    return folder


def plan(local_cluster: Any, namespace: str, folder: Path) -> tuple[int, dict[str, Any]]:
    args = ["plan", str(folder), "-n", namespace, "--kubeconfig", str(local_cluster.kubeconfig)]
    result = CliRunner().invoke(main, [*args, "--format", "json", "--sample", "3"])
    return result.exit_code, json.loads(result.stdout)  # notes are on stderr


def children(kube: Kube, namespace: str) -> list[str]:
    found = []
    for api_version, kind in (("apps/v1", "Deployment"), ("v1", "Service")):
        items, _ = kube.list(kube.resource(api_version, kind), namespace)
        found += [f"{kind} {item['metadata']['name']}" for item in items]
    return sorted(found)


def test_plan_sums_up_what_a_changed_kind_would_do_to_every_parent(
    kube: Kube, namespace: str, dws: Resource, local_cluster: Any, tmp_path: Path
) -> None:
    with running_engine(kube, ROOT / "templates", namespace):
        manifests.apply_all(kube, [cr(index) for index in range(20)], namespace)
        eventually(lambda: len(children(kube, namespace)) == 40, what="40 children")
    before = children(kube, namespace)

    code, summary = plan(local_cluster, namespace, changed(tmp_path))

    assert code == 3  # five parents would fail to render
    assert summary["parents"] == {"total": 20, "changed": 15, "unchanged": 0, "failed": 5}
    assert [(f["kind"], f["field"], f["parents"]) for f in summary["fields"]] == [("Deployment", IMAGE, 15)]
    [failure] = summary["failures"]
    assert (failure["where"], failure["field"], failure["parents"]) == (
        f"{tmp_path}/deploywebservice/deployment.yaml:22",
        "spec.team",
        5,
    )
    assert failure["examples"] == [f"{namespace}/web-00", f"{namespace}/web-04", f"{namespace}/web-08"]
    assert [(p["kind"], p["children"], p["parents"]) for p in summary["prunes"]] == [("Service", 15, 15)]
    assert summary["creates"] == [] and summary["conflicts"] == []
    assert summary["dryRun"] == {"sampled": 3, "refused": []}  # one shape of change: 3 of it

    code, summary = plan(local_cluster, namespace, changed(tmp_path, replicas="{{ spec.replicas - 2 }}"))

    assert code == 3
    refused = summary["dryRun"]["refused"]
    assert summary["dryRun"]["sampled"] == 3 and len(refused) == 3
    assert "spec.replicas: Invalid value: -1: must be greater than or equal to 0" in refused[0]["message"]
    assert children(kube, namespace) == before  # read-only: every Service still there
    deployment = kube.get(kube.resource("apps/v1", "Deployment"), "web-01-deployment", namespace)
    assert (
        deployment is not None
        and deployment["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.27"
    )
