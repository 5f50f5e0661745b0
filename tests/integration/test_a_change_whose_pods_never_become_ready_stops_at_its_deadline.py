"""A change whose new pods never become Ready (no node takes them) stops the rollout once the
first wave's parents miss the progress deadline: the rollout is paused naming a parent of that
wave and ProgressDeadlineExceeded, the other parents' Deployments are untouched, and
``stencil rollout undo`` gives the moved ones their old image back, Ready again."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from engine.runtime.cluster.kube import Kube
from engine.tools.cli import main
from tests.integration import _rollouts as r
from tests.integration._engine import cordon, eventually, running_engine

pytestmark = pytest.mark.nodes

KIND = "dws-deadline"
PARENTS = 30  # each runs a pod on the simulated nodes: fewer than the Networks' 200


def _ready_at(kube: Kube, res: Any, namespace: str, revision: int) -> bool:
    items, _ = kube.list(res, namespace)
    return len(items) == PARENTS and all(r.revision_of(p) == revision and r.ready(p) for p in items)


def test_a_change_whose_pods_never_become_ready_stops_at_its_deadline(
    kube: Kube, namespace: str, dws: Any, tmp_path: Path, local_cluster: Any
) -> None:
    deployments = kube.resource("apps/v1", "Deployment")
    folder = r.network_kind(
        tmp_path, KIND, deadline="8s", shipped="deploywebservice", budget="maxFailures: 0"
    )
    try:
        with running_engine(kube, tmp_path, namespace, revisions_namespace=namespace, workers=4):
            for i in range(PARENTS):
                spec = {"image": "nginx:1.27", "replicas": 1, "exposed_port": 8080}
                body = {"metadata": {"name": f"web-{i:02d}", "namespace": namespace}, "spec": spec}
                kube.create(
                    {"apiVersion": "operator.wujiuye.com/v1beta1", "kind": "DeployWebService", **body}
                )
            eventually(lambda: _ready_at(kube, dws, namespace, 1), timeout=180, what="every parent Ready")
            before = {
                d["metadata"]["name"]: d["metadata"]["resourceVersion"]
                for d in kube.list(deployments, namespace)[0]
            }
            with cordon(kube):
                r.change(folder, "image: {{ spec.image }}", "image: {{ spec.image }}-next", "deployment.yaml")
                eventually(
                    lambda: (r.kind_rollout(kube, KIND) or {}).get("spec", {}).get("paused"),
                    what="the rollout paused",
                )
                time.sleep(2)
                items, _ = kube.list(dws, namespace)
                moved = {p["metadata"]["name"] for p in items if r.revision_of(p) == 2}
                assert len(moved) == 3, moved  # 10% of 30
                # The pause (spec) and its reason (status) are two writes; the reason follows.
                failure = eventually(
                    lambda: (r.kind_rollout(kube, KIND) or {}).get("status", {}).get("failure"),
                    what="the rollout's status naming its failure",
                )
                assert failure["reason"] == "ProgressDeadlineExceeded" and "parent" not in failure
                for d in kube.list(deployments, namespace)[0]:
                    name = d["metadata"]["name"]
                    if name.removesuffix("-deployment") in moved:
                        assert d["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.27-next"
                    else:
                        assert d["metadata"]["resourceVersion"] == before[name], name  # untouched
                undone = CliRunner().invoke(
                    main, ["rollout", "undo", KIND, "--kubeconfig", str(local_cluster.kubeconfig)]
                )
                assert undone.exit_code == 0, undone.output
                eventually(lambda: _ready_at(kube, dws, namespace, 1), timeout=120, what="every parent back")
                images = {
                    d["spec"]["template"]["spec"]["containers"][0]["image"]
                    for d in kube.list(deployments, namespace)[0]
                }
                assert images == {"nginx:1.27"}
    finally:
        r.delete_kind_rollout(kube, KIND)
