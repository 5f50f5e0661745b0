"""``stencil run`` as a real process: a kind dropped in as a labelled ConfigMap starts
reconciling without a restart, and the probes and metrics tell the truth."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import ROOT, condition_is, eventually
from tests.integration._process import engine_process

KIND_DIR = ROOT / "templates" / "deploywebservice"


def test_drop_in_kind_reconciles_and_metrics_move(
    kube: Kube, namespace: str, dws: Resource, local_cluster: Any, tmp_path: Path
) -> None:
    empty = tmp_path / "no-kinds"
    empty.mkdir()
    # The parents share the kind ConfigMaps' namespace here, so it cannot be off limits to their children.
    args = (
        "--namespace", namespace, "--templates", str(empty), "--kind-configmaps-namespace", namespace,
        "--protected-namespaces", "kube-*",
    )  # fmt: skip
    with engine_process(local_cluster.kubeconfig, tmp_path / "engine.log", *args) as engine:
        eventually(lambda: engine.get("/healthz")[0] == 200, what="/healthz")
        eventually(engine.ready, what="/readyz after the caches synced")

        bundle = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "deploywebservice", "labels": {"stencil.dev/kind-bundle": "true"}},
            "data": {p.name: p.read_text() for p in KIND_DIR.iterdir() if p.is_file()},
        }
        manifests.apply_all(kube, [bundle], namespace)
        parent = {
            "apiVersion": "operator.wujiuye.com/v1beta1",
            "kind": "DeployWebService",
            "metadata": {"name": "dropped-in"},
            "spec": {"image": "nginx:1.27", "replicas": 1, "exposed_port": 80},
        }
        manifests.apply_all(kube, [parent], namespace)
        eventually(
            condition_is(kube, dws, "dropped-in", namespace, "Ready", "True"),
            what="a parent of the dropped-in kind to become Ready",
        )

        assert (
            sum(
                engine.metric(
                    "controller_runtime_reconcile_total", controller="deploywebservice", result="success"
                )
            )
            >= 1
        )
        assert sum(engine.metric("stencil_applies_total", kind="deploywebservice")) >= 2
        assert sum(engine.metric("workqueue_adds_total", name="deploywebservice")) >= 1
        assert engine.stop() == 0, engine.output()

    # --log-format json: one object a line; every reconcile line names the parent's key and kind.
    lines = [json.loads(line) for line in engine.output().splitlines() if line.startswith("{")]
    reconciled = [line for line in lines if line["message"] == "reconciled"]
    assert reconciled and all(
        (line["kind"], line["key"]) == ("deploywebservice", f"{namespace}/dropped-in") for line in reconciled
    )
