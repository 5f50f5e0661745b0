"""A parent whose Deployment never gets a pod started (every node cordoned) and passes its
progress deadline reads Failed to kstatus and Degraded to Argo CD: its child has given up, so
waiting longer will not help, and the clients say so rather than wait out their own timeouts."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.runtime.cluster.kube import Kube, Resource
from tests.integration import _clients as c
from tests.integration import _rollouts as r
from tests.integration._engine import conditions, cordon, eventually, running_engine

pytestmark = pytest.mark.nodes


def test_a_parent_whose_deployment_misses_its_progress_deadline_reads_failed_and_degraded(
    kube: Kube, namespace: str, dws: Resource, tmp_path: Path
) -> None:
    templates = tmp_path / "templates"
    kind = c.shipped_kind(templates)
    deadline = "spec:\n  progressDeadlineSeconds: 5\n  replicas:"
    r.change(kind, "spec:\n  replicas:", deadline, "deployment.yaml")
    deployments = kube.resource("apps/v1", "Deployment")
    with cordon(kube), running_engine(kube, templates, namespace):
        kube.create(c.web_service("web", namespace))

        def past_deadline() -> bool:
            found = conditions(kube.get(deployments, "web-deployment", namespace)).get("Progressing", {})
            return found.get("reason") == "ProgressDeadlineExceeded"

        eventually(past_deadline, timeout=120, what="the Deployment past its progress deadline")
        parent = c.eventually_kstatus(kube, dws, "web", namespace, "Failed")
        argo = c.argo_cd_reads(templates, parent)
        assert argo.health == "Degraded", (argo, conditions(parent))
