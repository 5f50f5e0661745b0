"""A parent whose kind renders a child the API server refuses (a container port past 65535, a
422 from the server, not from the parent's own schema) reads Failed to kstatus and Degraded to
Argo CD: retrying the same child cannot succeed, so neither client waits for it."""

from __future__ import annotations

from pathlib import Path

from engine.runtime.cluster.kube import Kube, Resource
from tests.integration import _clients as c
from tests.integration import _rollouts as r
from tests.integration._engine import conditions, running_engine


def test_a_parent_whose_child_the_api_server_refuses_reads_failed_and_degraded(
    kube: Kube, namespace: str, dws: Resource, tmp_path: Path
) -> None:
    templates = tmp_path / "templates"
    kind = c.shipped_kind(templates)
    r.change(kind, "containerPort: {{ spec.exposed_port }}", "containerPort: {{ spec.exposed_port * 100 }}",
             "deployment.yaml")  # fmt: skip
    with running_engine(kube, templates, namespace):
        kube.create(c.web_service("web", namespace))  # port 8080: the Deployment asks for 808000
        parent = c.eventually_kstatus(kube, dws, "web", namespace, "Failed")
        assert kube.get(kube.resource("apps/v1", "Deployment"), "web-deployment", namespace) is None
        argo = c.argo_cd_reads(templates, parent)
        assert argo.health == "Degraded", (argo, conditions(parent))
