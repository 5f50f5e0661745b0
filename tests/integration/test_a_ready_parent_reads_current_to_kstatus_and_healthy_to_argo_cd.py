"""A parent of a shipped kind that is Ready reads Current to kstatus (what Flux, kpt and Helm 4's
watcher wait with) and Healthy to Argo CD with the check ``stencil argocd-health`` prints: both
clients, in their own code, say what Ready says."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.runtime.cluster.kube import Kube, Resource
from tests.integration import _clients as c
from tests.integration._engine import running_engine

pytestmark = pytest.mark.nodes


def test_a_ready_parent_reads_current_to_kstatus_and_healthy_to_argo_cd(
    kube: Kube, namespace: str, dws: Resource, tmp_path: Path
) -> None:
    templates = tmp_path / "templates"
    c.shipped_kind(templates)
    with running_engine(kube, templates, namespace):
        c.create_ready(kube, dws, c.web_service("web", namespace))
        parent = c.eventually_kstatus(kube, dws, "web", namespace, "Current")
        ready = next(cond for cond in parent["status"]["conditions"] if cond["type"] == "Ready")
        # The same snapshot says Ready: kstatus did not read Current before the engine spoke.
        assert ready["status"] == "True", ready
        assert parent["status"]["observedGeneration"] == parent["metadata"]["generation"]
        argo = c.argo_cd_reads(templates, parent)
        assert argo.health == "Healthy", argo
