"""``stencil run`` as a real process: a kind dropped in as a labelled ConfigMap starts
reconciling without a restart, and the probes and metrics tell the truth."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from engine import manifests
from engine.kube import Kube, Resource
from tests.integration._engine import ROOT, condition_is, eventually

KIND_DIR = ROOT / "templates" / "deploywebservice"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()
    except OSError:
        return 0, ""


def metric(text: str, series: str, **labels: str) -> float:
    total = 0.0
    for line in text.splitlines():
        if line.startswith(series + "{") and all(f'{k}="{v}"' in line for k, v in labels.items()):
            total += float(line.rsplit(" ", 1)[1])
    return total


def test_drop_in_kind_reconciles_and_metrics_move(
    kube: Kube, namespace: str, dws: Resource, local_cluster: Any, tmp_path: Path
) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    empty = tmp_path / "no-kinds"
    empty.mkdir()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "engine.cli",
            "run",
            "--kubeconfig",
            str(local_cluster.kubeconfig),
            "--namespace",
            namespace,
            "--templates",
            str(empty),
            "--kind-configmaps-namespace",
            namespace,
            "--metrics-bind-address",
            f"127.0.0.1:{port}",
            "--log-format",
            "json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        eventually(lambda: get(f"{base}/healthz")[0] == 200, what="/healthz")
        eventually(lambda: get(f"{base}/readyz")[0] == 200, what="/readyz after the caches synced")

        bundle = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "deploywebservice", "labels": {"stencil.dev/kind-bundle": "true"}},
            "data": {p.name: p.read_text() for p in KIND_DIR.iterdir() if p.is_file()},
        }
        manifests.apply_all(kube, [bundle], namespace)
        manifests.apply_all(
            kube,
            [
                {
                    "apiVersion": "operator.wujiuye.com/v1beta1",
                    "kind": "DeployWebService",
                    "metadata": {"name": "dropped-in"},
                    "spec": {"image": "nginx:1.27", "replicas": 1, "exposed_port": 80},
                }
            ],
            namespace,
        )
        eventually(
            condition_is(kube, dws, "dropped-in", namespace, "Ready", "True"),
            timeout=90,
            what="a parent of the dropped-in kind to become Ready",
        )

        text = get(f"{base}/metrics")[1]
        assert (
            metric(
                text, "controller_runtime_reconcile_total", controller="deploywebservice", result="success"
            )
            >= 1
        )
        assert metric(text, "stencil_applies_total", kind="deploywebservice") >= 2
        assert metric(text, "workqueue_adds_total", name="deploywebservice") >= 1
    finally:
        process.send_signal(signal.SIGTERM)
        output = process.communicate(timeout=30)[0]
    assert process.returncode == 0, output
