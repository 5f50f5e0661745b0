"""Pruning: a child the templates stop rendering is deleted; an object Stencil does not
control is never taken over nor deleted, and the parent says who holds the name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import condition_is, conditions, eventually, running_engine
from tests.integration._widgets import configmap, widget, write_kind

MAIN = configmap("  value: {{ spec.value }}\n", name="{{ name }}-main")
EXTRA = "{% if spec.extra %}\n" + configmap("  value: extra\n", name="{{ name }}-extra") + "{% endif %}\n"


def parent(extra: bool) -> dict[str, Any]:
    return widget("p", value="v", extra=extra)


def test_unrendered_child_is_pruned_and_foreign_object_left_alone(
    kube: Kube, namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    templates = write_kind(tmp_path / "templates", {"main.yaml": MAIN, "extra.yaml": EXTRA})
    configmaps = kube.resource("v1", "ConfigMap")

    with running_engine(kube, templates, namespace):
        manifests.apply_all(kube, [parent(extra=True)], namespace)
        eventually(
            condition_is(kube, widgets, "p", namespace, "Ready", "True"), what="Ready with two children"
        )
        assert kube.get(configmaps, "p-extra", namespace) is not None

        # The {% if %} turns off: that child goes, the other stays.
        manifests.apply_all(kube, [parent(extra=False)], namespace)
        eventually(
            lambda: kube.get(configmaps, "p-extra", namespace) is None,
            what="the unrendered child to be pruned",
        )
        assert kube.get(configmaps, "p-main", namespace) is not None

        # Someone else's object holds a name the template now wants: not taken, not deleted.
        kube.create(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "p-extra", "namespace": namespace},
                "data": {"value": "theirs"},
            }
        )
        manifests.apply_all(kube, [parent(extra=True)], namespace)
        cond = eventually(
            condition_is(kube, widgets, "p", namespace, "ChildrenApplied", "False"),
            what="ChildrenApplied=False naming the conflict",
        )
        applied = conditions(cond)["ChildrenApplied"]
        assert applied["reason"] == "ChildConflict"
        assert "ConfigMap" in applied["message"] and "p-extra" in applied["message"]
        assert conditions(cond)["Ready"]["status"] == "False"
        theirs = kube.get(configmaps, "p-extra", namespace)
        assert theirs is not None and theirs["data"] == {"value": "theirs"}
        assert not theirs["metadata"].get("ownerReferences")
