"""A parent whose kind's template cannot render for it (it reads a field the parent does not
have) reads Failed to kstatus and Degraded to Argo CD: only a change to the kind or the parent
can help, so neither client waits for it."""

from __future__ import annotations

from pathlib import Path

from engine.runtime.cluster.kube import Kube, Resource
from tests.integration import _clients as c
from tests.integration._engine import conditions, running_engine


def test_a_parent_whose_template_does_not_render_reads_failed_and_degraded(
    kube: Kube, namespace: str, dws: Resource, tmp_path: Path
) -> None:
    templates = tmp_path / "templates"
    c.make_unrenderable(c.shipped_kind(templates))
    with running_engine(kube, templates, namespace):
        kube.create(c.web_service("web", namespace))
        parent = c.eventually_kstatus(kube, dws, "web", namespace, "Failed")
        assert conditions(parent)["TemplatesRendered"]["status"] == "False", conditions(parent)
        argo = c.argo_cd_reads(templates, parent)
        assert argo.health == "Degraded", (argo, conditions(parent))
