"""``helm install --wait=watcher`` (Helm 4) of a chart holding one parent whose template cannot
render fails, naming the parent as Failed, long before its timeout: a Stalled parent ends
Helm's wait at once instead of holding a pipeline until the deadline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.runtime.cluster.kube import Kube, Resource
from tests.integration import _clients as c
from tests.integration._engine import running_engine

TIMEOUT = 300


def test_helm_install_fails_before_its_timeout_when_its_parent_stalls(
    kube: Kube, namespace: str, dws: Resource, tmp_path: Path, local_cluster: Any
) -> None:
    templates = tmp_path / "templates"
    c.make_unrenderable(c.shipped_kind(templates))
    chart = c.write_chart(tmp_path / "web", [c.web_service("web", namespace)])
    with (
        running_engine(kube, templates, namespace),
        c.helm_install_waiting(local_cluster.kubeconfig, "web", chart, namespace, TIMEOUT) as install,
    ):
        assert install.returncode != 0, install.output
        assert install.seconds < TIMEOUT / 2, install
        assert "DeployWebService" in install.output and "Failed" in install.output, install.output
