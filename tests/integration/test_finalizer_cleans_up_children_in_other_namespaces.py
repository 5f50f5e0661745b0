"""A child in another namespace cannot carry an owner reference, so garbage collection would
leave it behind: the engine holds a finalizer on the parent and deletes such children itself."""

from __future__ import annotations

from pathlib import Path

from engine.core.decisions.plans import planning
from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import condition_is, eventually, running_engine
from tests.integration._widgets import widget, write_kind

TEMPLATE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ name }}-shared
  namespace: {{ spec.target }}
data:
  from: {{ namespace }}
"""


def test_parent_deletion_removes_its_children_elsewhere(
    kube: Kube, namespace: str, other_namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    templates = write_kind(
        tmp_path / "templates", {"shared.yaml": TEMPLATE}, 'placement:\n  namespaces: ["*"]\n'
    )
    configmaps = kube.resource("v1", "ConfigMap")

    # The engine watches every namespace here: the child lives outside the parent's.
    with running_engine(kube, templates, None):
        manifests.apply_all(kube, [widget("w", target=other_namespace)], namespace)
        ready = eventually(condition_is(kube, widgets, "w", namespace, "Ready", "True"), what="Ready")
        assert planning.FINALIZER in ready["metadata"]["finalizers"]
        shared = kube.get(configmaps, "w-shared", other_namespace)
        assert shared is not None and not shared["metadata"].get("ownerReferences")

        kube.delete(widgets, "w", namespace)

        eventually(
            lambda: kube.get(configmaps, "w-shared", other_namespace) is None,
            what="the child in the other namespace to be deleted",
        )
        eventually(
            lambda: kube.get(widgets, "w", namespace) is None,
            what="the parent to go once its finalizer is removed",
        )
