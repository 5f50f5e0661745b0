"""``helm install --wait=watcher`` (Helm 4, which waits with kstatus) of a chart holding one
parent of a shipped kind returns 0, and only once the parent is Ready: Helm's wait ends when
the engine's work is done, not when the API server has stored the parent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.runtime.cluster.kube import Kube, Resource
from tests.integration import _clients as c
from tests.integration._engine import conditions, running_engine

pytestmark = pytest.mark.nodes

TIMEOUT = 240


def test_helm_install_waits_until_its_parent_is_ready(
    kube: Kube, namespace: str, dws: Resource, tmp_path: Path, local_cluster: Any
) -> None:
    templates = tmp_path / "templates"
    c.shipped_kind(templates)
    chart = c.write_chart(tmp_path / "web", [c.web_service("web", namespace)])
    with (
        running_engine(kube, templates, namespace),
        c.helm_install_waiting(local_cluster.kubeconfig, "web", chart, namespace, TIMEOUT) as install,
    ):
        parent = kube.get(dws, "web", namespace)
        assert install.returncode == 0, install.output
        assert parent is not None
        assert conditions(parent)["Ready"]["status"] == "True", (install, conditions(parent))
        assert parent["status"]["observedGeneration"] == parent["metadata"]["generation"]
