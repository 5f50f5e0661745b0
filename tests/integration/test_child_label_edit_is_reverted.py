"""A hand edit of a child's ``stencil.dev/parent-name`` label, pointing it at another parent, is
put back by the engine within 10 s: child events reach the parent that controls the child by its
owner reference, which a label edit cannot redirect, and the parent applies its label again."""

from __future__ import annotations

import time
from pathlib import Path

from engine.core.model.children import placement
from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import condition_is, eventually, running_engine
from tests.integration._widgets import configmap, widget, write_kind

TEMPLATE = configmap("  parent: {{ name }}\n", name="{{ name }}-config")


def test_child_label_edit_is_reverted(kube: Kube, namespace: str, widgets: Resource, tmp_path: Path) -> None:
    templates = write_kind(tmp_path / "templates", {"configmap.yaml": TEMPLATE})
    configmaps = kube.resource("v1", "ConfigMap")

    def parent_name_label() -> str | None:
        child = kube.get(configmaps, "p-config", namespace)
        return ((child or {}).get("metadata", {}).get("labels") or {}).get(placement.PARENT_NAME_LABEL)

    with running_engine(kube, templates, namespace):
        # "other" is a real parent of the same kind: the edited label names someone who exists.
        manifests.apply_all(kube, [widget("p"), widget("other")], namespace)
        for name in ("p", "other"):
            eventually(condition_is(kube, widgets, name, namespace, "Ready", "True"), what=f"{name} Ready")
        assert parent_name_label() == "p"

        edited = kube.request(
            "PATCH",
            configmaps.path(namespace, "p-config"),
            {"metadata": {"labels": {placement.PARENT_NAME_LABEL: "other"}}},
            query={"fieldManager": "kubectl-edit"},
            content_type="application/merge-patch+json",
        )
        assert edited["metadata"]["labels"][placement.PARENT_NAME_LABEL] == "other"
        started = time.monotonic()
        eventually(lambda: parent_name_label() == "p", what="the label to be put back")
        took = time.monotonic() - started
    print(f"\nparent-name label put back after {took:.2f} s")
    child = kube.get(configmaps, "p-config", namespace)
    assert child is not None
    assert [o["name"] for o in child["metadata"]["ownerReferences"]] == ["p"]
    assert child["data"] == {"parent": "p"}
